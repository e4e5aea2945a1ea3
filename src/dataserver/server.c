/* The server half: the node's data-server thread. It polls while requests keep coming, for
 * PANGEA_SERVER_SPIN_US after the last one, then sleeps on the completion queue's wait
 * object, so an idle job costs no CPU. Every request is validated before it touches memory. */
#include "ds_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct reply_buffer {
    struct fi_context ctx; /* first: the completion's context points here */
    int busy;
    struct pg_ds_header header;
};

#define REPLY_BUFFERS 256

static struct {
    struct pg_net_ep *ep;
    struct ds_recv_buffer recv[2];
    struct reply_buffer *replies;
    int next_reply;
    fi_addr_t *client;  /* [npes], inserted on a PE's first request */
    char *client_names; /* [npes * stride] */
    size_t name_stride;
    pthread_t thread;
    int running, stopping;
} s;

static uint64_t now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

static void handle_events(struct pg_net_event *events, int n);

static void progress(void)
{
    struct pg_net_event events[16];
    int n = pg_net_poll(s.ep, events, 16);
    if (n > 0)
        handle_events(events, n);
}

static struct reply_buffer *take_reply(void)
{
    for (;;) {
        struct reply_buffer *r = &s.replies[s.next_reply];
        if (!r->busy) {
            s.next_reply = (s.next_reply + 1) % REPLY_BUFFERS;
            r->busy = 1;
            return r;
        }
        progress();
    }
}

static fi_addr_t client_addr(uint32_t pe)
{
    if (s.client[pe] == FI_ADDR_NOTAVAIL)
        s.client[pe] = pg_net_av_insert(s.ep, s.client_names + pe * s.name_stride);
    return s.client[pe];
}

static void reply(const struct pg_ds_header *request, uint8_t type, uint16_t status,
                  uint64_t operand, const void *data, size_t len)
{
    struct reply_buffer *r = take_reply();
    r->header = *request;
    r->header.type = type;
    r->header.status = status;
    r->header.operand = operand;
    r->header.length = len;
    struct iovec iov[2] = {{&r->header, sizeof r->header}, {(void *)data, len}};
    pg_net_sendv(s.ep, client_addr(request->source), iov, len ? 2 : 1, &r->ctx);
}

static void reject(const struct pg_ds_header *h, size_t len, int status)
{
    pg_warn("data server: rejected a %zu-byte request (type %u from PE %u for PE %u, segment "
            "%u, offset %llu, length %llu): %s",
            len, len >= 2 ? h->type : 0u, len >= sizeof *h ? h->source : 0u,
            len >= sizeof *h ? h->target : 0u, len >= sizeof *h ? h->segment : 0u,
            len >= sizeof *h ? (unsigned long long)h->offset : 0ull,
            len >= sizeof *h ? (unsigned long long)h->length : 0ull, pg_ds_status_text(status));
    /* The source is known to be a PE of the job once the header is whole and valid so far. */
    if (len >= sizeof *h && status != PG_DS_BAD_SOURCE && status != PG_DS_BAD_VERSION &&
        h->source < (uint32_t)pg_world.npes)
        reply(h, PG_DS_NACK, (uint16_t)status, 0, NULL, 0);
}

static void serve(const struct pg_ds_header *h, size_t len)
{
    int status = pg_ds_validate(h, len, pg_world.npes);
    if (status != PG_DS_OK) {
        reject(h, len, status);
        return;
    }
    if (h->type == PG_DS_STOP) {
        if (h->source == (uint32_t)pg_world.me)
            s.stopping = 1;
        else
            reject(h, len, PG_DS_BAD_SOURCE);
        return;
    }
    if (pg_world.node_of[h->target] != pg_world.node) {
        reject(h, len, PG_DS_BAD_TARGET);
        return;
    }
    const struct pg_segment *seg = &pg_segments[h->segment];
    char *base = seg->peer_base ? seg->peer_base[h->target] : NULL;
    if (!base || h->offset > seg->size || h->length > seg->size - h->offset) {
        reject(h, len, PG_DS_BAD_RANGE);
        return;
    }
    char *at = base + h->offset;
    switch (h->type) {
    case PG_DS_PUT:
        memcpy(at, h + 1, h->length);
        reply(h, PG_DS_ACK, 0, 0, NULL, 0);
        break;
    case PG_DS_ACC:
        pg_acc_lock((int)h->target);
        pg_acc_apply((enum pg_acc_type)h->op, h->scale, at, h + 1, h->length);
        pg_acc_unlock((int)h->target);
        reply(h, PG_DS_ACK, 0, 0, NULL, 0);
        break;
    case PG_DS_GET:
        reply(h, PG_DS_GET_REPLY, 0, 0, at, h->length);
        break;
    case PG_DS_AMO: {
        uint64_t old = pg_amo_apply(at, h->op, h->width, h->operand, h->compare);
        reply(h, h->fetch ? PG_DS_AMO_REPLY : PG_DS_ACK, 0, old, NULL, 0);
        break;
    }
    }
}

static void handle_events(struct pg_net_event *events, int n)
{
    for (int i = 0; i < n; i++) {
        struct pg_net_event *e = &events[i];
        if (!e->is_recv) {
            ((struct reply_buffer *)e->context)->busy = 0;
            continue;
        }
        if (e->len)
            serve(e->buf, e->len);
        if (e->buffer_done)
            ds_recv_repost(s.ep, e->context);
    }
}

static void *server_main(void *arg)
{
    (void)arg;
    uint64_t spin_us = (uint64_t)pg_cfg.server_spin_us, last = now_us();
    struct pg_net_event events[16];
    while (!s.stopping) {
        int n = pg_net_poll(s.ep, events, 16);
        if (n == 0 && now_us() - last < spin_us) {
            pg_cpu_relax();
            continue;
        }
        if (n == 0)
            n = pg_net_wait(s.ep, events, 16, 1000);
        if (n > 0) {
            handle_events(events, n);
            last = now_us();
        }
    }
    return NULL;
}

void ds_server_open(void)
{
    s.ep = pg_net_ep_open("data server", ds_max_message());
    s.replies = calloc(REPLY_BUFFERS, sizeof *s.replies);
    if (!s.replies)
        pg_fatal("shmem_init", "out of memory for the data server");
    for (int i = 0; i < 2; i++)
        ds_recv_open(s.ep, &s.recv[i]);
}

struct pg_net_ep *ds_server_ep(void)
{
    return s.ep;
}

void ds_server_start(const char *client_names, size_t name_stride)
{
    int npes = pg_world.npes;
    s.name_stride = name_stride;
    s.client_names = malloc((size_t)npes * name_stride);
    s.client = malloc((size_t)npes * sizeof(fi_addr_t));
    if (!s.client_names || !s.client)
        pg_fatal("shmem_init", "out of memory for the data server's address table");
    memcpy(s.client_names, client_names, (size_t)npes * name_stride);
    for (int pe = 0; pe < npes; pe++)
        s.client[pe] = FI_ADDR_NOTAVAIL;
    s.stopping = 0;
    if (pthread_create(&s.thread, NULL, server_main, NULL) != 0)
        pg_fatal("shmem_init", "cannot start the data-server thread");
    s.running = 1;
}

void ds_server_stop(void)
{
    if (!s.running)
        return;
    struct pg_ds_header stop = {
        .version = PG_DS_PROTOCOL_VERSION, .type = PG_DS_STOP, .source = (uint32_t)pg_world.me};
    pg_ds_send_raw(pg_world.node, &stop, sizeof stop);
    pthread_join(s.thread, NULL);
    s.running = 0;
    for (int i = 0; i < REPLY_BUFFERS; i++)
        while (s.replies[i].busy)
            progress();
    pg_net_ep_close(s.ep);
    for (int i = 0; i < 2; i++)
        ds_recv_close(&s.recv[i]);
    free(s.replies);
    free(s.client);
    free(s.client_names);
    memset(&s, 0, sizeof s);
}
