/* The server half: the node's data-server thread. It polls while requests keep coming, for
 * PANGEA_SERVER_SPIN_US after the last one, then sleeps on the completion queue's wait
 * object, so an idle job costs no CPU. Every request is validated before it touches memory. */
#define _GNU_SOURCE /* pthread_attr_setaffinity_np */
#include "ds_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A reply: its header, and for a packed get its data. */
struct reply_buffer {
    struct fi_context ctx; /* first: the completion's context points here */
    int busy;
    struct pg_ds_header header;
    char *packed; /* [chunk] in the packing pool, NULL in the header pool */
};

#define REPLY_BUFFERS 256
#define PACK_BUFFERS 16

struct reply_pool {
    struct reply_buffer *buffers;
    int count, next;
    char *packed;                 /* [count * chunk] packing space, or NULL */
    struct pg_net_mr *headers_mr; /* when local buffers must be registered */
    struct pg_net_mr *packed_mr;
};

/* Requests read from the completion queue and not yet served, oldest first (a ring that
 * grows). Serving never serves more from inside: a reply waiting for a buffer only collects
 * completions, so the send completion it waits for is never left unread in the events of a
 * suspended outer call (which deadlocked servers with 5 or more remote PEs). */
struct arrivals {
    struct pg_net_event *ring;
    size_t head, count, cap;
};

/* Ordered requests served and not yet acknowledged, of one source. */
struct owed_ack {
    struct pg_ds_header last; /* the latest: its number is what the acknowledgement covers */
    uint32_t count;
};

static struct {
    struct pg_net_ep *ep;
    struct pg_ds_recv_buffer recv[2];
    struct reply_pool headers, packs;
    size_t chunk;
    struct pg_net_mr **segment_mr; /* [local_size * PG_SEG_COUNT] */
    fi_addr_t *client;             /* [npes], inserted on a PE's first request */
    struct ds_stream *streams;     /* [npes]: each source's ordered requests */
    struct owed_ack *owed;         /* [npes] */
    uint32_t *owing;               /* sources with acknowledgements owed */
    int nowing;
    struct arrivals arrivals;
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

static void arrival_push(const struct pg_net_event *e)
{
    struct arrivals *q = &s.arrivals;
    if (q->count == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        struct pg_net_event *ring = malloc(cap * sizeof *ring);
        if (!ring)
            pg_fatal("data server", "out of memory queueing %zu requests", cap);
        for (size_t i = 0; i < q->count; i++)
            ring[i] = q->ring[(q->head + i) % q->cap];
        free(q->ring);
        q->ring = ring;
        q->head = 0;
        q->cap = cap;
    }
    q->ring[(q->head + q->count++) % q->cap] = *e;
}

static struct pg_net_event arrival_pop(void)
{
    struct arrivals *q = &s.arrivals;
    struct pg_net_event e = q->ring[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    return e;
}

/* Reads completions, waiting up to wait_ms for one (0: not at all): a sent reply frees its
 * buffer at once, a request joins the arrivals. Returns how many were read. */
static int collect(int wait_ms)
{
    struct pg_net_event events[16];
    int n = wait_ms ? pg_net_wait(s.ep, events, 16, wait_ms) : pg_net_poll(s.ep, events, 16);
    for (int i = 0; i < n; i++) {
        if (events[i].is_recv)
            arrival_push(&events[i]);
        else
            ((struct reply_buffer *)events[i].context)->busy = 0; /* either pool */
    }
    return n;
}

/* The first free buffer from where the last search ended: a reply still in flight to a slow
 * client holds only its own buffer, not the ones after it. */
static struct reply_buffer *take_reply(struct reply_pool *pool)
{
    for (;;) {
        for (int i = 0; i < pool->count; i++) {
            int at = (pool->next + i) % pool->count;
            struct reply_buffer *r = &pool->buffers[at];
            if (!r->busy) {
                pool->next = (at + 1) % pool->count;
                r->busy = 1;
                return r;
            }
        }
        collect(0);
    }
}

static fi_addr_t client_addr(uint32_t pe)
{
    if (s.client[pe] == FI_ADDR_NOTAVAIL)
        s.client[pe] = pg_net_av_insert(s.ep, s.client_names + pe * s.name_stride);
    return s.client[pe];
}

/* Answers a request: the request's header echoed (seq, cookie, credit) with the reply's type,
 * status, operand and data. r is a buffer of pool; data lies in the pool's packing space or,
 * registered as data_mr, in a segment. */
static void send_reply(struct reply_pool *pool, struct reply_buffer *r,
                       const struct pg_ds_header *request, uint8_t type, uint16_t status,
                       uint64_t operand, const void *data, size_t len, uint64_t position,
                       const struct pg_net_mr *data_mr)
{
    r->header = *request;
    r->header.type = type;
    r->header.status = status;
    r->header.operand = operand;
    r->header.length = len;
    r->header.position = position;
    struct iovec iov[2] = {{&r->header, sizeof r->header}, {(void *)data, len}};
    void *desc[2] = {pg_net_mr_desc(pool->headers_mr), pg_net_mr_desc(data_mr)};
    pg_net_sendv(s.ep, client_addr(request->source), iov, desc, len ? 2 : 1, &r->ctx);
}

static void reply(const struct pg_ds_header *request, uint8_t type, uint16_t status,
                  uint64_t operand)
{
    send_reply(&s.headers, take_reply(&s.headers), request, type, status, operand, NULL, 0, 0,
               NULL);
}

/* A put, accumulate or non-fetching AMO is done. An ordered one is acknowledged together
 * with the source's others served in the same batch of arrivals (send_owed_acks): one
 * message instead of one each when requests come faster than they are served. */
static void acknowledge(const struct pg_ds_header *h)
{
    if (!(h->flags & PG_DS_ORDERED)) {
        reply(h, PG_DS_ACK, 0, 0);
        return;
    }
    struct owed_ack *o = &s.owed[h->source];
    if (o->count++ == 0)
        s.owing[s.nowing++] = h->source;
    o->last = *h;
}

static void send_owed_acks(void)
{
    while (s.nowing > 0) {
        struct owed_ack *o = &s.owed[s.owing[--s.nowing]];
        uint32_t count = o->count;
        o->count = 0;
        reply(&o->last, PG_DS_ACK, 0, count);
    }
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
        reply(h, PG_DS_NACK, (uint16_t)status, 0);
}

static struct pg_net_mr *segment_mr(uint32_t pe, int seg)
{
    return s.segment_mr ? s.segment_mr[pg_world.local_of[pe] * PG_SEG_COUNT + seg] : NULL;
}

static void acc_piece(char *region, char *packed, size_t n, void *arg)
{
    const struct pg_ds_header *h = arg;
    pg_acc_apply((enum pg_acc_type)h->op, h->scale, region, packed, n);
}

/* Applies a put's or accumulate's data to the target's memory (base: the segment). */
static void apply(const struct pg_ds_header *h, char *base, const struct pg_ds_shape *l)
{
    char *data = (char *)(h + 1) + l->descriptor_bytes;
    pg_ds_piece_fn piece = h->type == PG_DS_ACC ? acc_piece : pg_ds_unpack_piece;
    if (h->type == PG_DS_ACC)
        pg_acc_lock((int)h->target);
    if (h->layout == PG_DS_VECTOR) {
        for (size_t i = 0; i < l->pieces; i++)
            piece(base + l->offsets[i], data + i * l->piece_bytes, l->piece_bytes, (void *)h);
    } else {
        pg_ds_walk(base + h->offset, l->levels, l->count, l->stride, h->position, h->length, data,
                   piece, (void *)h);
    }
    if (h->type == PG_DS_ACC)
        pg_acc_unlock((int)h->target);
}

/* Streams a get's data back in chunks: straight from memory when contiguous, else packed. */
static void stream(const struct pg_ds_header *h, char *base, const struct pg_ds_shape *l)
{
    for (size_t done = 0; done < h->length;) {
        size_t n = h->length - done < s.chunk ? h->length - done : s.chunk;
        if (h->layout == PG_DS_VECTOR)
            n = n / l->piece_bytes * l->piece_bytes;
        size_t position = h->position + done;
        if (h->layout == PG_DS_CONTIG) {
            send_reply(&s.headers, take_reply(&s.headers), h, PG_DS_GET_REPLY, 0, 0,
                       base + h->offset + position, n, position, segment_mr(h->target, h->segment));
        } else {
            struct reply_buffer *r = take_reply(&s.packs);
            if (h->layout == PG_DS_VECTOR) {
                for (size_t i = 0; i < n / l->piece_bytes; i++) {
                    size_t piece = done / l->piece_bytes + i;
                    memcpy(r->packed + i * l->piece_bytes, base + l->offsets[piece],
                           l->piece_bytes);
                }
            } else {
                pg_ds_walk(base + h->offset, l->levels, l->count, l->stride, position, n, r->packed,
                           pg_ds_pack_piece, NULL);
            }
            send_reply(&s.packs, r, h, PG_DS_GET_REPLY, 0, 0, r->packed, n, position,
                       s.packs.packed_mr);
        }
        done += n;
    }
}

static int on_this_node(uint32_t pe)
{
    return pg_world.node_of[pe] == pg_world.node;
}

/* Where bytes [origin, origin + span) of segment seg of pe, a PE of this node, lie in this
 * process, or NULL when the range runs past the segment. */
static char *segment_base(uint32_t pe, int seg, uint64_t origin, uint64_t span)
{
    const struct pg_segment *sg = &pg_segments[seg];
    if (!sg->peer_base || !sg->peer_base[pe] || origin > sg->size || span > sg->size - origin)
        return NULL;
    return sg->peer_base[pe];
}

/* A put of records (validated): all are checked before any is applied, so a bad one leaves
 * memory as it was. */
static void put_records(const struct pg_ds_header *h, size_t len)
{
    const char *first = (const char *)(h + 1), *end = first + h->length;
    for (int applying = 0; applying < 2; applying++) {
        for (const char *at = first; at < end;) {
            struct pg_ds_record r;
            memcpy(&r, at, sizeof r);
            if (!on_this_node(r.target)) {
                reject(h, len, PG_DS_BAD_TARGET);
                return;
            }
            char *base = segment_base(r.target, r.segment, r.offset, r.length);
            if (!base) {
                reject(h, len, PG_DS_BAD_RANGE);
                return;
            }
            if (applying)
                memcpy(base + r.offset, at + sizeof r, r.length);
            at += pg_ds_record_bytes(r.length);
        }
    }
    acknowledge(h);
}

/* Validates a request and carries it out. */
static void execute(const struct pg_ds_header *h, size_t len)
{
    struct pg_ds_shape shape;
    int status = pg_ds_validate(h, len, pg_world.npes, &shape);
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
    if (!on_this_node(h->target)) {
        reject(h, len, PG_DS_BAD_TARGET);
        return;
    }
    if (h->layout == PG_DS_RECORDS) {
        put_records(h, len);
        return;
    }
    char *base =
        segment_base(h->target, h->segment, h->layout == PG_DS_VECTOR ? 0 : h->offset, shape.span);
    if (!base) {
        reject(h, len, PG_DS_BAD_RANGE);
        return;
    }
    if (h->type == PG_DS_AMO) {
        uint64_t old = pg_amo_apply(base + h->offset, h->op, h->width, h->operand, h->compare);
        if (h->fetch)
            reply(h, PG_DS_AMO_REPLY, 0, old);
        else
            acknowledge(h);
        return;
    }
    if (h->type == PG_DS_GET) {
        stream(h, base, &shape);
    } else {
        apply(h, base, &shape);
        acknowledge(h);
    }
}

/* An ordered request waits for its turn in its source's stream (and is validated then). */
static void serve(const struct pg_ds_header *h, size_t len)
{
    if (len < sizeof *h || !(h->flags & PG_DS_ORDERED) || h->source >= (uint32_t)pg_world.npes) {
        execute(h, len);
        return;
    }
    int status = ds_stream_deliver(&s.streams[h->source], h, len, execute);
    if (status != PG_DS_OK)
        reject(h, len, status);
}

/* Arrivals per acknowledgement batch: fewer messages, against credits held longer. */
#define ACK_BATCH 16

/* Serves the arrivals in order, those that come meanwhile too. A request lies in its receive
 * buffer, whose used-up notice queues behind it: the buffer is posted again once every
 * request in it has been served. */
static void serve_arrivals(void)
{
    while (s.arrivals.count) {
        for (int i = 0; i < ACK_BATCH && s.arrivals.count; i++) {
            struct pg_net_event e = arrival_pop();
            if (e.len)
                serve(e.buf, e.len);
            if (e.buffer_done)
                pg_ds_recv_repost(s.ep, e.context);
        }
        send_owed_acks();
    }
}

#if defined(__SANITIZE_THREAD__)
#define PG_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PG_TSAN 1
#endif
#endif
#ifdef PG_TSAN
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);
#endif

static void *server_main(void *arg)
{
    (void)arg;
#ifdef PG_TSAN
    /* The server's copies into its node's PEs are ordered by chains through other processes
     * that ThreadSanitizer cannot see (tests/tsan.supp); its history of them is often lost,
     * so the suppression cannot match: its memory accesses are not tracked at all. */
    __tsan_ignore_thread_begin();
#endif
    uint64_t spin_us = (uint64_t)pg_cfg.server_spin_us, last = now_us();
    while (!s.stopping) {
        int n = collect(0);
        if (n == 0 && now_us() - last < spin_us) {
            /* Yielding costs little when nothing else wants the core; spinning without it
             * held the core from the PEs whose requests the server waits for whenever a
             * node's threads outnumber its cores (measured: 2-PE barrier 0.45 ms vs 40 us). */
            sched_yield();
            continue;
        }
        if (n == 0)
            n = collect(1000);
        if (n > 0) {
            serve_arrivals();
            last = now_us();
        }
    }
#ifdef PG_TSAN
    __tsan_ignore_thread_end();
#endif
    return NULL;
}

static void pool_open(struct reply_pool *pool, int count, size_t packed_bytes)
{
    *pool = (struct reply_pool){.buffers = calloc((size_t)count, sizeof(struct reply_buffer)),
                                .count = count};
    if (packed_bytes && !(pool->packed = malloc((size_t)count * packed_bytes)))
        pool->buffers = NULL;
    if (!pool->buffers)
        pg_fatal("shmem_init", "out of memory for the data server's reply buffers");
    for (int i = 0; packed_bytes && i < count; i++)
        pool->buffers[i].packed = pool->packed + (size_t)i * packed_bytes;
    if (pg_net_local_mr()) {
        pool->headers_mr = pg_net_mr_reg(s.ep, pool->buffers,
                                         (size_t)count * sizeof(struct reply_buffer), FI_SEND);
        if (packed_bytes)
            pool->packed_mr =
                pg_net_mr_reg(s.ep, pool->packed, (size_t)count * packed_bytes, FI_SEND);
    }
}

static void pool_close(struct reply_pool *pool)
{
    for (int i = 0; i < pool->count; i++)
        while (pool->buffers[i].busy)
            collect(0);
    pg_net_mr_close(pool->headers_mr);
    pg_net_mr_close(pool->packed_mr);
    free(pool->packed);
    free(pool->buffers);
}

/* Every segment of every PE of the node is registered once: the target of direct RMA, and
 * the source of contiguous get replies where sends need registered buffers. */
static void register_segments(void)
{
    uint64_t access = (pg_net_has_rma() ? FI_REMOTE_READ | FI_REMOTE_WRITE : 0) |
                      (pg_net_local_mr() ? FI_SEND : 0);
    if (!access)
        return;
    s.segment_mr = calloc((size_t)pg_world.local_size * PG_SEG_COUNT, sizeof *s.segment_mr);
    if (!s.segment_mr)
        pg_fatal("shmem_init", "out of memory for the data server's registrations");
    for (int i = 0; i < pg_world.local_size; i++) {
        int pe = pg_world.local_pes[i];
        for (int seg = 0; seg < PG_SEG_COUNT; seg++) {
            const struct pg_segment *sg = &pg_segments[seg];
            if (sg->peer_base && sg->peer_base[pe] && sg->size)
                s.segment_mr[i * PG_SEG_COUNT + seg] =
                    pg_net_mr_reg(s.ep, sg->peer_base[pe], sg->size, access);
        }
    }
}

struct pg_ds_region pg_ds_server_region(int pe, int seg)
{
    struct pg_net_mr *mr = segment_mr((uint32_t)pe, seg);
    if (!mr || !pg_net_has_rma())
        return (struct pg_ds_region){0};
    return (struct pg_ds_region){
        .registered = 1, .key = pg_net_mr_key(mr), .base = pg_net_mr_remote_base(mr)};
}

void pg_ds_server_open(size_t credit_bytes)
{
    s.ep = pg_net_ep_open("data server", pg_ds_max_message());
    s.chunk = pg_ds_chunk_bytes();
    pool_open(&s.headers, REPLY_BUFFERS, 0);
    pool_open(&s.packs, PACK_BUFFERS, s.chunk);
    register_segments();
    /* Every PE of another node may hold its credit's worth of this space at once. */
    size_t remote_pes = (size_t)(pg_world.npes - pg_world.local_size);
    for (int i = 0; i < 2; i++)
        pg_ds_recv_open(s.ep, &s.recv[i], remote_pes * credit_bytes);
}

struct pg_net_ep *pg_ds_server_ep(void)
{
    return s.ep;
}

void pg_ds_server_start(const char *client_names, size_t name_stride)
{
    int npes = pg_world.npes;
    s.name_stride = name_stride;
    s.client_names = malloc((size_t)npes * name_stride);
    s.client = malloc((size_t)npes * sizeof(fi_addr_t));
    s.streams = calloc((size_t)npes, sizeof *s.streams);
    s.owed = calloc((size_t)npes, sizeof *s.owed);
    s.owing = malloc((size_t)npes * sizeof *s.owing);
    s.nowing = 0;
    if (!s.client_names || !s.client || !s.streams || !s.owed || !s.owing)
        pg_fatal("shmem_init", "out of memory for the data server's address table");
    memcpy(s.client_names, client_names, (size_t)npes * name_stride);
    for (int pe = 0; pe < npes; pe++)
        s.client[pe] = FI_ADDR_NOTAVAIL;
    s.stopping = 0;
    /* A launcher that binds each PE to a core would bind the server to its host PE's core,
     * where it could run only when that PE waits: the server may run on any core (the kernel
     * keeps it within the job's cpuset). */
    cpu_set_t any;
    CPU_ZERO(&any);
    for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF) && cpu < CPU_SETSIZE; cpu++)
        CPU_SET(cpu, &any);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof any, &any);
    int failed = pthread_create(&s.thread, &attr, server_main, NULL);
    if (failed) /* an affinity the cpuset refuses: keep the inherited one */
        failed = pthread_create(&s.thread, NULL, server_main, NULL);
    pthread_attr_destroy(&attr);
    if (failed)
        pg_fatal("shmem_init", "cannot start the data-server thread");
    pthread_setname_np(s.thread, "pangea-server"); /* as top -H and /proc show it */
    s.running = 1;
}

void pg_ds_server_stop(void)
{
    if (!s.running)
        return;
    pthread_join(s.thread, NULL);
    s.running = 0;
    pool_close(&s.headers);
    pool_close(&s.packs);
    for (int i = 0; s.segment_mr && i < pg_world.local_size * PG_SEG_COUNT; i++)
        pg_net_mr_close(s.segment_mr[i]);
    free(s.segment_mr);
    for (int i = 0; i < 2; i++)
        pg_ds_recv_close(&s.recv[i]);
    pg_net_ep_close(s.ep);
    for (int pe = 0; pe < pg_world.npes; pe++)
        ds_stream_reset(&s.streams[pe]);
    free(s.streams);
    free(s.owed);
    free(s.owing);
    free(s.arrivals.ring);
    free(s.client);
    free(s.client_names);
    memset(&s, 0, sizeof s);
}
