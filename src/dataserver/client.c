/* The client half: requests to the data server of the target's node, and their replies.
 * Every transfer goes out in chunks through a ring of send buffers; a buffer is reused once
 * the provider has sent it, and each server accepts at most a fixed number of requests in
 * flight from one PE (credits), so its receive buffers are never overrun. */
#include "ds_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct send_buffer {
    struct fi_context ctx; /* first: the completion's context points here */
    int busy;
    char *data; /* header, then up to chunk bytes */
};

/* A request that waits for a reply (gets and AMOs). */
struct pending {
    uint64_t seq;
    void *dest;
    size_t len;
    uint64_t result;
    int active, done;
};

#define PENDING_SLOTS 4096
#define CREDITS_PER_SERVER 64

static struct {
    pthread_mutex_t lock;
    struct pg_net_ep *ep;
    fi_addr_t *server; /* [nnodes] */
    struct send_buffer *buffers;
    int nbuffers, next_buffer;
    size_t chunk;
    struct ds_recv_buffer recv[2];
    uint64_t next_seq;
    uint64_t acks_due; /* puts and non-fetching AMOs not yet acknowledged */
    int *in_flight;    /* [nnodes] requests awaiting a reply */
    struct pending *pending;
    unsigned long probes_rejected;
} c = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void handle_reply(const struct pg_ds_header *h, size_t len)
{
    if (h->type == PG_DS_NACK && (h->seq & PG_DS_PROBE)) {
        c.probes_rejected++;
        return;
    }
    int node = pg_world.node_of[h->target < (uint32_t)pg_world.npes ? h->target : 0];
    struct pending *p = &c.pending[h->seq % PENDING_SLOTS];
    switch (h->type) {
    case PG_DS_ACK:
        c.acks_due--;
        break;
    case PG_DS_GET_REPLY:
        if (!p->active || p->seq != h->seq || len != sizeof *h + p->len)
            pg_fatal("get", "malformed reply from the data server of PE %u", h->target);
        memcpy(p->dest, h + 1, p->len);
        p->done = 1;
        break;
    case PG_DS_AMO_REPLY:
        if (!p->active || p->seq != h->seq)
            pg_fatal("atomic", "malformed reply from the data server of PE %u", h->target);
        p->result = h->operand;
        p->done = 1;
        break;
    case PG_DS_NACK:
        pg_fatal("remote access", "the data server of PE %u rejected a request: %s", h->target,
                 pg_ds_status_text(h->status));
    default:
        pg_fatal("remote access", "unknown reply type %u from the data server", h->type);
    }
    c.in_flight[node]--;
}

/* Reads completions: replies, used-up receive buffers, sent buffers. Lock held. */
static void progress(void)
{
    struct pg_net_event events[16];
    int n = pg_net_poll(c.ep, events, 16);
    for (int i = 0; i < n; i++) {
        struct pg_net_event *e = &events[i];
        if (!e->is_recv) {
            ((struct send_buffer *)e->context)->busy = 0;
            continue;
        }
        if (e->len >= sizeof(struct pg_ds_header))
            handle_reply(e->buf, e->len);
        if (e->buffer_done)
            ds_recv_repost(c.ep, e->context);
    }
}

/* Waits (progressing) until *flag is non-zero. Lock held; released while yielding. */
static void wait_for(const int *flag)
{
    struct pg_waiter w = {0};
    for (;;) {
        progress();
        if (*flag)
            return;
        pthread_mutex_unlock(&c.lock);
        pg_wait_step(&w);
        pthread_mutex_lock(&c.lock);
    }
}

static struct send_buffer *take_buffer(int node)
{
    struct pg_waiter w = {0};
    for (;;) {
        struct send_buffer *b = &c.buffers[c.next_buffer];
        if (!b->busy && c.in_flight[node] < CREDITS_PER_SERVER) {
            c.next_buffer = (c.next_buffer + 1) % c.nbuffers;
            b->busy = 1;
            return b;
        }
        progress();
        pg_wait_step(&w);
    }
}

static struct pending *take_pending(uint64_t seq)
{
    struct pending *p = &c.pending[seq % PENDING_SLOTS];
    while (p->active)
        progress();
    *p = (struct pending){.seq = seq, .active = 1};
    return p;
}

/* Sends one request (header plus len payload bytes) to pe's server. */
static void send_request(int pe, struct pg_ds_header *h, const void *payload, size_t len)
{
    int node = pg_world.node_of[pe];
    struct send_buffer *b = take_buffer(node);
    h->version = PG_DS_PROTOCOL_VERSION;
    h->source = (uint32_t)pg_world.me;
    h->target = (uint32_t)pe;
    memcpy(b->data, h, sizeof *h);
    if (len)
        memcpy(b->data + sizeof *h, payload, len);
    struct iovec iov = {b->data, sizeof *h + len};
    c.in_flight[node]++;
    pg_net_sendv(c.ep, c.server[node], &iov, 1, &b->ctx);
}

void pg_ds_put(int pe, int seg, size_t offset, const void *src, size_t len)
{
    pthread_mutex_lock(&c.lock);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < c.chunk ? len - done : c.chunk;
        struct pg_ds_header h = {
            .type = PG_DS_PUT, .segment = (uint8_t)seg, .offset = offset + done, .length = n};
        h.seq = c.next_seq++;
        c.acks_due++;
        send_request(pe, &h, (const char *)src + done, n);
        done += n;
    }
    pthread_mutex_unlock(&c.lock);
}

void pg_ds_acc(int pe, int seg, size_t offset, enum pg_acc_type type, const void *scale,
               const void *src, size_t len)
{
    size_t elem = pg_acc_type_size(type), chunk = c.chunk / elem * elem;
    struct pg_ds_header h = {.type = PG_DS_ACC, .segment = (uint8_t)seg, .op = (uint8_t)type};
    memcpy(h.scale, scale, elem);
    pthread_mutex_lock(&c.lock);
    for (size_t done = 0; done < len;) {
        size_t n = len - done < chunk ? len - done : chunk;
        h.offset = offset + done;
        h.length = n;
        h.seq = c.next_seq++;
        c.acks_due++;
        send_request(pe, &h, (const char *)src + done, n);
        done += n;
    }
    pthread_mutex_unlock(&c.lock);
}

void pg_ds_get(int pe, int seg, size_t offset, void *dest, size_t len)
{
    pthread_mutex_lock(&c.lock);
    /* All chunks go out before the first is awaited: the server streams them back. */
    size_t nchunks = (len + c.chunk - 1) / c.chunk;
    uint64_t first = c.next_seq;
    for (size_t i = 0; i < nchunks; i++) {
        size_t at = i * c.chunk, n = len - at < c.chunk ? len - at : c.chunk;
        struct pg_ds_header h = {
            .type = PG_DS_GET, .segment = (uint8_t)seg, .offset = offset + at, .length = n};
        h.seq = c.next_seq++;
        struct pending *p = take_pending(h.seq);
        p->dest = (char *)dest + at;
        p->len = n;
        send_request(pe, &h, NULL, 0);
    }
    for (size_t i = 0; i < nchunks; i++) {
        struct pending *p = &c.pending[(first + i) % PENDING_SLOTS];
        wait_for(&p->done);
        p->active = 0;
    }
    pthread_mutex_unlock(&c.lock);
}

uint64_t pg_ds_amo(int pe, int seg, size_t offset, int op, size_t width, uint64_t value,
                   uint64_t compare, int fetch)
{
    pthread_mutex_lock(&c.lock);
    struct pg_ds_header h = {.type = PG_DS_AMO,
                             .segment = (uint8_t)seg,
                             .op = (uint8_t)op,
                             .width = (uint8_t)width,
                             .fetch = (uint8_t)fetch,
                             .offset = offset,
                             .length = width,
                             .operand = value,
                             .compare = compare};
    h.seq = c.next_seq++;
    uint64_t result = 0;
    if (fetch) {
        struct pending *p = take_pending(h.seq);
        send_request(pe, &h, NULL, 0);
        wait_for(&p->done);
        result = p->result;
        p->active = 0;
    } else {
        c.acks_due++;
        send_request(pe, &h, NULL, 0);
    }
    pthread_mutex_unlock(&c.lock);
    return result;
}

void pg_ds_quiet(void)
{
    if (__atomic_load_n(&c.acks_due, __ATOMIC_RELAXED) == 0)
        return; /* nothing off-node outstanding: the common on-node case takes no lock */
    pthread_mutex_lock(&c.lock);
    struct pg_waiter w = {0};
    while (c.acks_due) {
        progress();
        if (!c.acks_due)
            break;
        pthread_mutex_unlock(&c.lock);
        pg_wait_step(&w);
        pthread_mutex_lock(&c.lock);
    }
    pthread_mutex_unlock(&c.lock);
}

void pg_ds_send_raw(int node, const void *bytes, size_t len)
{
    pthread_mutex_lock(&c.lock);
    struct send_buffer *b = take_buffer(node);
    if (len > sizeof(struct pg_ds_header) + c.chunk)
        len = sizeof(struct pg_ds_header) + c.chunk;
    memcpy(b->data, bytes, len);
    struct iovec iov = {b->data, len};
    pg_net_sendv(c.ep, c.server[node], &iov, 1, &b->ctx);
    pthread_mutex_unlock(&c.lock);
}

/* Driven from every wait loop: replies are read and queued sends leave even while a PE waits
 * on its own memory (a barrier flag, wait_until). Skipped when another thread holds the lock. */
static void progress_while_waiting(void)
{
    if (pthread_mutex_trylock(&c.lock) != 0)
        return;
    progress();
    pthread_mutex_unlock(&c.lock);
}

unsigned long pg_ds_probes_rejected(void)
{
    pthread_mutex_lock(&c.lock);
    progress();
    unsigned long n = c.probes_rejected;
    pthread_mutex_unlock(&c.lock);
    return n;
}

void ds_client_open(void)
{
    c.chunk = (size_t)pg_cfg.pipeline_buffer_size;
    c.nbuffers = (int)pg_cfg.pipeline_buffers;
    c.ep = pg_net_ep_open("client", ds_max_message());
    c.buffers = calloc((size_t)c.nbuffers, sizeof *c.buffers);
    c.pending = calloc(PENDING_SLOTS, sizeof *c.pending);
    c.in_flight = calloc((size_t)pg_world.nnodes, sizeof(int));
    c.server = calloc((size_t)pg_world.nnodes, sizeof(fi_addr_t));
    if (!c.buffers || !c.pending || !c.in_flight || !c.server)
        pg_fatal("shmem_init", "out of memory for the network client");
    for (int i = 0; i < c.nbuffers; i++)
        if (!(c.buffers[i].data = malloc(ds_max_message())))
            pg_fatal("shmem_init", "out of memory for %d send buffers", c.nbuffers);
    for (int i = 0; i < 2; i++)
        ds_recv_open(c.ep, &c.recv[i]);
    c.next_seq = 0;
    c.acks_due = 0;
    c.next_buffer = 0;
    pg_wait_progress = progress_while_waiting;
}

struct pg_net_ep *ds_client_ep(void)
{
    return c.ep;
}

void ds_client_connect(int node, const void *server_name)
{
    c.server[node] = pg_net_av_insert(c.ep, server_name);
}

void ds_client_close(void)
{
    pg_wait_progress = NULL;
    pthread_mutex_lock(&c.lock);
    /* Let the last sends finish before their buffers go. */
    for (int i = 0; i < c.nbuffers; i++)
        while (c.buffers[i].busy)
            progress();
    pthread_mutex_unlock(&c.lock);
    pg_net_ep_close(c.ep);
    for (int i = 0; i < c.nbuffers; i++)
        free(c.buffers[i].data);
    for (int i = 0; i < 2; i++)
        ds_recv_close(&c.recv[i]);
    free(c.buffers);
    free(c.pending);
    free(c.in_flight);
    free(c.server);
    c.ep = NULL;
}
