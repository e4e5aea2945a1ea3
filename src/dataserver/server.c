/* The server half: the node's data-server thread. It serves while requests keep coming, polls
 * a while after the last one only while requests have been coming back within that while
 * (PANGEA_SERVER_SPIN_US at most), then sleeps on the completion queue's wait object, so an
 * idle job costs no CPU. Every request is validated before it touches memory.
 * It learns a source's endpoint from its HELLO, keeps a record of each source that has sent
 * to it, and hands out its receive pool as grants (dataserver.h, "Credits"). */
#define _GNU_SOURCE /* pthread_attr_setaffinity_np */
#include "ds_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

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
    char *packed; /* [chunk + PG_DS_WIRE_ALIGN] in the packing pool, NULL in the header pool */
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
#define ARRIVALS_START 256

#define NO_PE UINT32_MAX
/* A waiter for a grant that has waited this long while the holders asked to give theirs back
 * stayed silent (computing, or blocked in an MPI call that waits for the waiter) is lent one
 * from segments beyond the pool: at most a quarter more of it, freed as grants come back. */
#define PATIENCE_US 50000
static size_t lend_segments(size_t max_segments)
{
    return max_segments / 4 > 2 ? max_segments / 4 : 2;
}

/* A PE that has sent to this server. The lists are threaded through the records by PE
 * number: sources owed an acknowledgement, grant holders from the least recently served
 * (those asked to give theirs back are off that list), and sources waiting for a grant. */
struct ds_source {
    fi_addr_t addr; /* FI_ADDR_NOTAVAIL until its HELLO is served */
    struct ds_stream stream;
    uint32_t owed; /* ordered requests served and not yet acknowledged */
    uint32_t owed_target;
    uint16_t owed_order; /* the latest of them: what the acknowledgement covers */
    uint8_t waiting, reclaiming;
    uint8_t closed; /* its CLOSE is served: nothing more of it is answered but a repeated one */
    uint32_t next_owing;
    uint32_t grant; /* bytes of the pool it may hold; 0: none */
    uint32_t epoch; /* number of its latest grant */
    uint32_t lru_prev, lru_next;
    uint32_t next_waiter;
    uint64_t waiting_since;  /* microseconds, while waiting */
    uint64_t reclaim_told;   /* microseconds: when it was last asked for its grant back */
    struct fetched *fetched; /* [PG_DS_WINDOW] with retransmission on, from its first AMO */
};

/* The reply of a fetching AMO, kept for a retransmission of its request: the old value. */
struct fetched {
    uint64_t value;
    uint16_t order;
    uint8_t valid;
};

/* What the server allocates, by part (read by other threads: pg_ds_server_memory). */
enum memory_part { PART_POOL, PART_REPLIES, PART_TABLES, PART_SOURCES, PART_ARRIVALS, PARTS };

static struct {
    struct pg_net_ep *ep;
    int rails; /* pg_net_rails: more than one, replies follow their requests' rail */
    struct pg_ds_recv_buffer *segments; /* [max_segments + lent]; data NULL when not in use */
    size_t max_segments, lend_segments, segments_in_use;
    size_t granted; /* bytes of all grants out */
    size_t min_grant, full_grant;
    struct reply_pool headers, packs;
    struct reply_pool forwards; /* broadcasts' chunks to other servers, from the first */
    const char *peer_names;     /* the servers' names (the pipeline's table), name_bytes each */
    size_t peer_name_bytes;
    fi_addr_t *peers; /* [nnodes] the servers forwarded to, inserted on the first forward */
    size_t chunk;
    struct pg_net_mr **segment_mr; /* [local_size * PG_MEM_PARTS], by segment part */
    size_t registrations;
    uint64_t segment_access;    /* what the registrations allow; 0: none made */
    struct ds_source **sources; /* [npes], a record once the PE has sent here */
    size_t nsources;
    uint32_t owing;
    uint32_t lru_head, lru_tail;
    uint32_t waiters_head, waiters_tail;
    size_t waiters, reclaims; /* reclaims: RECLAIMs sent, not yet answered */
    struct arrivals arrivals;
    size_t bytes[PARTS];
    struct pg_ds_server_stats stats;
    struct pg_ds_bounce bounce; /* a message that landed misaligned, copied */
    uint64_t drop_state;        /* PANGEA_TEST_DROP_ACKS's random numbers */
    pthread_t thread;
    int running, stopping;
} s;

static void account(enum memory_part part, long long bytes)
{
    __atomic_fetch_add(&s.bytes[part], (size_t)bytes, __ATOMIC_RELAXED);
}

/* Counts read by other threads are written through this. */
static void set_count(size_t *count, size_t value)
{
    __atomic_store_n(count, value, __ATOMIC_RELAXED);
}

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
        size_t cap = q->cap ? 2 * q->cap : ARRIVALS_START;
        struct pg_net_event *ring = malloc(cap * sizeof *ring);
        if (!ring)
            pg_fatal("data server", "out of memory queueing %zu requests", cap);
        for (size_t i = 0; i < q->count; i++)
            ring[i] = q->ring[(q->head + i) % q->cap];
        free(q->ring);
        account(PART_ARRIVALS, (long long)((cap - q->cap) * sizeof *ring));
        q->ring = ring;
        q->head = 0;
        set_count(&q->cap, cap);
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

/* The record of source pe, made on its first request. */
static struct ds_source *source(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    if (src)
        return src;
    if (!(src = calloc(1, sizeof *src)))
        pg_fatal("data server", "out of memory for the record of PE %u", pe);
    account(PART_SOURCES, sizeof *src);
    src->addr = FI_ADDR_NOTAVAIL;
    src->lru_prev = src->lru_next = src->next_owing = src->next_waiter = NO_PE;
    s.sources[pe] = src;
    set_count(&s.nsources, s.nsources + 1);
    return src;
}

/* PANGEA_TEST_DROP_ACKS=N: an acknowledgement or reply is not sent, as if lost, with
 * probability 1/N — at random, not every Nth: a get answered in N parts would lose one of
 * them in every attempt. */
static int dropped_by_test_hook(uint8_t type)
{
    if (!pg_cfg.test_drop_acks ||
        (type != PG_DS_ACK && type != PG_DS_AMO_REPLY && type != PG_DS_GET_REPLY))
        return 0;
    uint64_t x = s.drop_state ? s.drop_state : 0x9e3779b97f4a7c15ull ^ (uint64_t)pg_world.me;
    x ^= x << 13; /* xorshift64 */
    x ^= x >> 7;
    x ^= x << 17;
    s.drop_state = x;
    return x % (uint64_t)pg_cfg.test_drop_acks == 0;
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
    /* Data of a length that is not a whole wire length is always packed (stream), and the
     * packing buffer has room for the padding. */
    size_t wire = pg_ds_wire_bytes(len);
    if (wire > len)
        memset((char *)data + len, 0, wire - len);
    if (pg_cfg.checksum)
        pg_ds_seal_summed(&r->header, len ? pg_ds_sum_payload(0, data, wire) : 0);
    if (dropped_by_test_hook(type)) {
        r->busy = 0;
        return;
    }
    struct iovec iov[2] = {{&r->header, sizeof r->header}, {(void *)data, wire}};
    void *desc[2] = {pg_net_mr_desc(pool->headers_mr), pg_net_mr_desc(data_mr)};
    pg_net_sendv(s.ep, s.sources[request->source]->addr, iov, desc, len ? 2 : 1, &r->ctx);
}

/* Whether a reply can reach the request's source: it has said hello. */
static int reachable(const struct pg_ds_header *request)
{
    const struct ds_source *src = s.sources[request->source];
    return src && src->addr != FI_ADDR_NOTAVAIL;
}

static void reply(const struct pg_ds_header *request, uint8_t type, uint16_t status,
                  uint64_t operand)
{
    send_reply(&s.headers, take_reply(&s.headers), request, type, status, operand, NULL, 0, 0,
               NULL);
}

void pg_ds_server_peers(const void *names, size_t name_bytes)
{
    s.peer_names = names;
    s.peer_name_bytes = name_bytes;
}

static fi_addr_t peer(int node)
{
    if (!s.peers) {
        if (!(s.peers = malloc((size_t)pg_world.nnodes * sizeof *s.peers)))
            pg_fatal("data server", "out of memory for the addresses of %d servers",
                     pg_world.nnodes);
        account(PART_TABLES, (long long)((size_t)pg_world.nnodes * sizeof *s.peers));
        for (int n = 0; n < pg_world.nnodes; n++)
            s.peers[n] = FI_ADDR_NOTAVAIL;
    }
    if (s.peers[node] == FI_ADDR_NOTAVAIL)
        s.peers[node] = pg_net_av_insert(s.ep, s.peer_names + (size_t)node * s.peer_name_bytes);
    return s.peers[node];
}

static size_t forward_bytes(void)
{
    return pg_ds_max_message();
}

static void pool_open(struct reply_pool *pool, int count, size_t packed_bytes);

void ds_forward_send(int node, uint32_t target, const struct pg_ds_header *h, size_t len)
{
    if (!s.forwards.buffers)
        pool_open(&s.forwards, PG_DS_FORWARD_BUFFERS, forward_bytes());
    struct reply_buffer *r = take_reply(&s.forwards);
    r->header = *h;
    r->header.source = (uint32_t)pg_world.me;
    r->header.target = target;
    r->header.flags = 0; /* unordered, holding no grant, counted nowhere */
    r->header.order = 0;
    r->header.credit = 0;
    size_t data = len - sizeof *h;
    memcpy(r->packed, h + 1, data);
    if (pg_cfg.checksum)
        pg_ds_seal_summed(&r->header, pg_ds_sum_payload(0, r->packed, data));
    struct iovec iov[2] = {{&r->header, sizeof r->header}, {r->packed, data}};
    void *desc[2] = {pg_net_mr_desc(s.forwards.headers_mr), pg_net_mr_desc(s.forwards.packed_mr)};
    pg_net_sendv(s.ep, peer(node), iov, desc, 2, &r->ctx);
}

/* A message of the server's own to source pe: a GRANT or RECLAIM of its latest grant, or an
 * acknowledgement of `count` ordered requests up to number `order`. */
static void tell(uint32_t pe, uint8_t type, uint32_t target, uint16_t order, uint64_t count)
{
    const struct ds_source *src = s.sources[pe];
    struct pg_ds_header m = {.version = PG_DS_PROTOCOL_VERSION,
                             .key = pg_world.job_key,
                             .source = pe,
                             .target = target,
                             .order = order,
                             .flags = type == PG_DS_ACK ? PG_DS_ORDERED : 0,
                             .compare = src->epoch};
    reply(&m, type, 0, type == PG_DS_ACK ? count : src->grant);
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
    struct ds_source *src = s.sources[h->source];
    if (src->owed++ == 0) {
        src->next_owing = s.owing;
        s.owing = h->source;
    }
    src->owed_order = h->order;
    src->owed_target = h->target;
}

static void send_owed_acks(void)
{
    while (s.owing != NO_PE) {
        uint32_t pe = s.owing;
        struct ds_source *src = s.sources[pe];
        s.owing = src->next_owing;
        uint32_t count = src->owed;
        src->owed = 0;
        tell(pe, PG_DS_ACK, src->owed_target, src->owed_order, count);
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
    /* The source is known to be a PE of the job once the header is whole and valid so far,
     * and can be answered once it has said hello. */
    if (len >= sizeof *h && status != PG_DS_BAD_SOURCE && status != PG_DS_BAD_VERSION &&
        h->source < (uint32_t)pg_world.npes && reachable(h))
        reply(h, PG_DS_NACK, (uint16_t)status, 0);
}

/* The registration of part id of pe's segments; a growth's is stored by the hosting PE's
 * thread before any request can name that part. */
static struct pg_net_mr *segment_mr(uint32_t pe, int id)
{
    return s.segment_mr ? __atomic_load_n(&s.segment_mr[pg_world.local_of[pe] * PG_MEM_PARTS + id],
                                          __ATOMIC_ACQUIRE)
                        : NULL;
}

/* The registration covering [offset, offset+len) of segment seg of pe, or NULL when none
 * does (the range crosses parts). */
static struct pg_net_mr *range_mr(uint32_t pe, int seg, size_t offset, size_t len)
{
    size_t start;
    int id = pg_mem_part_of(seg, offset, len, &start);
    return id < 0 ? NULL : segment_mr(pe, id);
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

/* A packing buffer: a chunk and the padding to a whole wire length. */
static size_t pack_bytes(void)
{
    return pg_ds_chunk_bytes() + PG_DS_WIRE_ALIGN;
}

/* Streams a get's data back in chunks: straight from memory when contiguous and registered
 * (or no registration is needed), else packed (the packing space is made on the first such
 * chunk: a PE's own area, for one, has no registration). */
static void stream(const struct pg_ds_header *h, char *base, const struct pg_ds_shape *l)
{
    for (size_t done = 0; done < h->length;) {
        size_t n = h->length - done < s.chunk ? h->length - done : s.chunk;
        if (h->layout == PG_DS_VECTOR)
            n = n / l->piece_bytes * l->piece_bytes;
        size_t position = h->position + done;
        struct pg_net_mr *mr = h->layout == PG_DS_CONTIG
                                   ? range_mr(h->target, h->segment, h->offset + position, n)
                                   : NULL;
        /* Sent from memory when its registration covers the chunk (or none is needed); with
         * checksums always from a copy, so the sum is of the bytes that are sent. */
        if (h->layout == PG_DS_CONTIG && n % PG_DS_WIRE_ALIGN == 0 && !pg_cfg.checksum &&
            (mr || !pg_net_local_mr())) {
            send_reply(&s.headers, take_reply(&s.headers), h, PG_DS_GET_REPLY, 0, 0,
                       base + h->offset + position, n, position, mr);
        } else {
            if (!s.packs.buffers)
                pool_open(&s.packs, PACK_BUFFERS, pack_bytes());
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
 * process, or NULL when the range runs past what pe has of the segment. */
static char *segment_base(uint32_t pe, int seg, uint64_t origin, uint64_t span)
{
    return pg_mem_peer_range(seg, (int)pe, origin, span);
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
            if (applying) {
                memcpy(base + r.offset, at + sizeof r, r.length);
                pg_mem_ring((int)r.target, pg_segments[r.segment].base + r.offset);
                if (h->flags & PG_DS_COUNTED)
                    pg_target_count_add((int)r.target, 1);
            }
            at += pg_ds_record_bytes(r.length);
        }
    }
    acknowledge(h);
}

/* The receive pool. A segment is added when grants need it and dropped, rather than posted
 * again, once used up when the others hold every grant (dataserver.h, "Credits"). */
static void add_segment(void)
{
    for (size_t i = 0; i < s.max_segments + s.lend_segments; i++) {
        if (s.segments[i].data)
            continue;
        pg_ds_recv_open(s.ep, &s.segments[i], pg_ds_segment_bytes());
        account(PART_POOL, (long long)pg_ds_segment_bytes());
        set_count(&s.segments_in_use, s.segments_in_use + 1);
        return;
    }
}

static void segment_used_up(void *context)
{
    if (s.segments_in_use > 2 && s.granted <= pg_ds_pool_capacity(s.segments_in_use - 1) &&
        !pg_net_multi_recv_needed(s.ep, context)) {
        pg_ds_recv_close(context);
        account(PART_POOL, -(long long)pg_ds_segment_bytes());
        set_count(&s.segments_in_use, s.segments_in_use - 1);
        return;
    }
    pg_ds_recv_repost(s.ep, context);
}

/* Room for `bytes` more of grants, growing the pool up to `most` segments if it must. */
static int pool_fits(size_t bytes, size_t most)
{
    while (s.granted + bytes > pg_ds_pool_capacity(s.segments_in_use)) {
        if (s.segments_in_use >= most)
            return 0;
        add_segment();
    }
    return 1;
}

static void lru_remove(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    if (src->lru_prev != NO_PE)
        s.sources[src->lru_prev]->lru_next = src->lru_next;
    else
        s.lru_head = src->lru_next;
    if (src->lru_next != NO_PE)
        s.sources[src->lru_next]->lru_prev = src->lru_prev;
    else
        s.lru_tail = src->lru_prev;
    src->lru_prev = src->lru_next = NO_PE;
}

static void lru_append(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    src->lru_prev = s.lru_tail;
    src->lru_next = NO_PE;
    if (s.lru_tail != NO_PE)
        s.sources[s.lru_tail]->lru_next = pe;
    else
        s.lru_head = pe;
    s.lru_tail = pe;
}

static void give(uint32_t pe, size_t bytes)
{
    struct ds_source *src = s.sources[pe];
    src->grant = (uint32_t)bytes;
    src->epoch++;
    __atomic_fetch_add(&s.stats.grants, 1, __ATOMIC_RELAXED);
    s.granted += bytes;
    lru_append(pe);
    tell(pe, PG_DS_GRANT, (uint32_t)pg_world.me, 0, 0);
}

static void tell_reclaim(uint32_t pe)
{
    s.sources[pe]->reclaim_told = now_us();
    tell(pe, PG_DS_RECLAIM, (uint32_t)pg_world.me, 0, 0);
}

/* Asks holders for their grants back, the least recently served first, until every waiter
 * has a reclaim under way for it (a holder's grant is at least one waiter's). */
static void reclaim_for_waiters(void)
{
    while (s.reclaims < s.waiters && s.lru_head != NO_PE) {
        uint32_t pe = s.lru_head;
        lru_remove(pe);
        s.sources[pe]->reclaiming = 1;
        s.reclaims++;
        __atomic_fetch_add(&s.stats.reclaims, 1, __ATOMIC_RELAXED);
        tell_reclaim(pe);
    }
}

/* Grants to the waiters in the order they asked, while the pool has room; with `lend`, to
 * those that waited longer than PATIENCE_US from segments beyond it. */
static void grant_waiters(int lend)
{
    size_t most = s.max_segments + (lend ? s.lend_segments : 0);
    while (s.waiters_head != NO_PE && pool_fits(s.min_grant, most) &&
           (!lend || now_us() - s.sources[s.waiters_head]->waiting_since > PATIENCE_US)) {
        uint32_t pe = s.waiters_head;
        struct ds_source *src = s.sources[pe];
        s.waiters_head = src->next_waiter;
        if (s.waiters_head == NO_PE)
            s.waiters_tail = NO_PE;
        src->next_waiter = NO_PE;
        src->waiting = 0;
        s.waiters--;
        give(pe, s.min_grant);
        if (lend)
            __atomic_fetch_add(&s.stats.lent, 1, __ATOMIC_RELAXED);
    }
    reclaim_for_waiters();
}

static void serve_waiters(void)
{
    grant_waiters(0);
}

/* A HELLO that asks for a grant: a first one, or queued behind earlier askers. */
static void ask_grant(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    if (src->grant) { /* it holds one: say so again */
        tell(pe, PG_DS_GRANT, (uint32_t)pg_world.me, 0, 0);
        return;
    }
    if (src->waiting)
        return;
    src->waiting = 1;
    src->waiting_since = now_us();
    s.waiters++;
    if (s.waiters_tail != NO_PE)
        s.sources[s.waiters_tail]->next_waiter = pe;
    else
        s.waiters_head = pe;
    s.waiters_tail = pe;
    serve_waiters();
}

/* A request marked PG_DS_MORE: its source waited for room in its grant. Doubled, up to a
 * whole send region, if the pool has room and nobody waits for a grant. */
static void enlarge(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    if (!src->grant || src->reclaiming || src->grant >= s.full_grant || s.waiters)
        return;
    size_t more = s.full_grant - src->grant < src->grant ? s.full_grant - src->grant : src->grant;
    /* Never into room lent beyond the pool: that is for PEs kept waiting. */
    if (s.granted + more > pg_ds_pool_capacity(s.max_segments) || !pool_fits(more, s.max_segments))
        return;
    src->grant += (uint32_t)more;
    s.granted += more;
    __atomic_fetch_add(&s.stats.enlargements, 1, __ATOMIC_RELAXED);
    tell(pe, PG_DS_GRANT, (uint32_t)pg_world.me, 0, 0);
}

/* A RELEASE, served after every earlier request of its source: the grant's space is free. */
static void release(uint32_t pe, uint32_t epoch)
{
    struct ds_source *src = s.sources[pe];
    if (!src->grant || src->epoch != epoch)
        return; /* given back already */
    s.granted -= src->grant;
    src->grant = 0;
    if (src->reclaiming) {
        src->reclaiming = 0;
        s.reclaims--;
    } else {
        lru_remove(pe);
    }
    serve_waiters();
}

/* Takes a waiter for a grant off the queue without granting it. */
static void waiters_remove(uint32_t pe)
{
    uint32_t before = NO_PE;
    for (uint32_t at = s.waiters_head; at != pe; at = s.sources[at]->next_waiter)
        before = at;
    struct ds_source *src = s.sources[pe];
    if (before == NO_PE)
        s.waiters_head = src->next_waiter;
    else
        s.sources[before]->next_waiter = src->next_waiter;
    if (s.waiters_tail == pe)
        s.waiters_tail = before;
    src->next_waiter = NO_PE;
    src->waiting = 0;
    s.waiters--;
}

/* A CLOSE, served after every earlier request of its source: its grant goes back, and its
 * ask for one if it still waits (the closing handshake, dataserver.h "Closing"). */
static void close_source(uint32_t pe)
{
    struct ds_source *src = s.sources[pe];
    src->closed = 1;
    if (src->waiting)
        waiters_remove(pe);
    release(pe, src->epoch);
}

/* A source's HELLO: its endpoint, and maybe its ask for a grant. */
static void hello(const struct pg_ds_header *h)
{
    struct ds_source *src = s.sources[h->source];
    if (src->addr == FI_ADDR_NOTAVAIL)
        src->addr = pg_net_av_insert(s.ep, h + 1);
    if (h->op)
        ask_grant(h->source);
}

/* A served request of a holder makes it the most recently served. */
static void served_from(const struct pg_ds_header *h)
{
    struct ds_source *src = s.sources[h->source];
    if (src->reclaiming && pg_ds_reliable() && now_us() - src->reclaim_told > PATIENCE_US)
        tell_reclaim(h->source); /* the RECLAIM may have been lost */
    if (!src->grant || src->reclaiming)
        return;
    lru_remove(h->source);
    lru_append(h->source);
    if (h->flags & PG_DS_MORE)
        enlarge(h->source);
}

static void carry_out(const struct pg_ds_header *h, size_t len, int again);

/* A fetching AMO's old value, kept for retransmissions of its request. */
static void keep_fetched(const struct pg_ds_header *h, uint64_t value)
{
    struct ds_source *src = s.sources[h->source];
    if (!src->fetched) {
        if (!(src->fetched = calloc(PG_DS_WINDOW, sizeof *src->fetched)))
            pg_fatal("data server", "out of memory for the replies kept for PE %u", h->source);
        account(PART_SOURCES, PG_DS_WINDOW * sizeof *src->fetched);
    }
    src->fetched[h->order % PG_DS_WINDOW] =
        (struct fetched){.value = value, .order = h->order, .valid = 1};
}

/* A request served before, sent again because its source saw no reply: a get is served again
 * (it changes nothing; its source takes the data of this attempt only), a fetching AMO gets
 * its kept reply, anything else an acknowledgement (every ordered request up to it is done).
 * Nothing is applied twice. One further back than the window is done at its source: dropped. */
static void answer_again(const struct pg_ds_header *h, size_t len)
{
    struct ds_source *src = s.sources[h->source];
    __atomic_fetch_add(&s.stats.duplicates, 1, __ATOMIC_RELAXED);
    if ((uint16_t)(src->stream.expected - h->order) > PG_DS_WINDOW || !reachable(h) ||
        (src->closed && h->type != PG_DS_CLOSE))
        return;
    if (h->type == PG_DS_GET) {
        carry_out(h, len, 1);
    } else if (h->type == PG_DS_AMO && h->fetch) {
        const struct fetched *f = src->fetched ? &src->fetched[h->order % PG_DS_WINDOW] : NULL;
        if (f && f->valid && f->order == h->order)
            reply(h, PG_DS_AMO_REPLY, 0, f->value);
    } else {
        tell(h->source, PG_DS_ACK, h->target, h->order, 0);
    }
}

/* Counts the operations a request marked PG_DS_COUNTED completes at its target (records count
 * one by one where they are applied), before its reply tells the source it is done. */
static void count_at_target(const struct pg_ds_header *h, const struct pg_ds_shape *shape)
{
    if (h->flags & PG_DS_COUNTED)
        pg_target_count_add((int)h->target, h->layout == PG_DS_VECTOR ? shape->pieces : 1);
}

/* Validates a request and carries it out; `again`: a get served before, streamed again for a
 * retransmission (it counts once). */
static void carry_out(const struct pg_ds_header *h, size_t len, int again)
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
    if (h->type == PG_DS_HELLO) {
        hello(h);
        acknowledge(h);
        return;
    }
    if (h->type == PG_DS_FORWARD && !(h->flags & PG_DS_ORDERED)) { /* from a server */
        int status = ds_forward(h, len);
        if (status != PG_DS_OK)
            reject(h, len, status);
        return;
    }
    if (!reachable(h)) {
        pg_warn("data server: a request from PE %u before its HELLO is dropped", h->source);
        return;
    }
    if (h->type == PG_DS_CLOSE) {
        close_source(h->source);
        acknowledge(h);
        return;
    }
    served_from(h);
    if (h->type == PG_DS_RELEASE) {
        release(h->source, (uint32_t)h->compare);
        acknowledge(h);
        return;
    }
    if (h->layout == PG_DS_RECORDS) {
        put_records(h, len);
        return;
    }
    if (h->type == PG_DS_FORWARD || h->type == PG_DS_ARRIVED) { /* from a PE */
        int status = h->type == PG_DS_FORWARD ? ds_forward(h, len) : ds_arrived(h);
        if (status != PG_DS_OK)
            reject(h, len, status);
        else
            acknowledge(h);
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
        if (h->op != PG_AMO_FETCH)
            pg_mem_ring((int)h->target, pg_segments[h->segment].base + h->offset);
        count_at_target(h, &shape);
        if (h->fetch && pg_ds_reliable() && (h->flags & PG_DS_ORDERED))
            keep_fetched(h, old);
        if (h->fetch)
            reply(h, PG_DS_AMO_REPLY, 0, old);
        else
            acknowledge(h);
        return;
    }
    if (h->type == PG_DS_GET) {
        if (!again) /* counted before the data leaves: the get is complete once it arrives */
            count_at_target(h, &shape);
        stream(h, base, &shape);
    } else {
        apply(h, base, &shape);
        pg_mem_ring((int)h->target, pg_segments[h->segment].base + h->offset);
        count_at_target(h, &shape);
        acknowledge(h);
    }
}

static void execute(const struct pg_ds_header *h, size_t len)
{
    carry_out(h, len, 0);
}

/* Whatever reaches the server's address without the job's key — a process outside the job,
 * a stale PE of an earlier job on a reused port, noise — is counted and dropped before
 * anything of it is read: said once here and summed up when the server stops, never logged
 * per message. */
static int foreign(const struct pg_ds_header *h, size_t len)
{
    if (len >= sizeof *h && pg_ds_message_key(h) == pg_world.job_key)
        return 0;
    if (__atomic_fetch_add(&s.stats.foreign, 1, __ATOMIC_RELAXED) == 0)
        pg_warn("data server: refused a %zu-byte message without this job's key (from outside "
                "the job?); more are counted, not logged",
                len);
    return 1;
}

/* With checksums, a message whose sum does not match is dropped unread (none of it can be
 * trusted, not even whom to refuse it to): its source's timeout sends it again. */
static int corrupt(const struct pg_ds_header *h, size_t len)
{
    if (len >= sizeof *h && pg_ds_intact(h, len))
        return 0;
    __atomic_fetch_add(&s.stats.corrupt, 1, __ATOMIC_RELAXED);
    return 1;
}

/* An ordered request waits for its turn in its source's stream (and is validated then). */
/* With several rails, replies go back by the rail the source's requests now come by: it may
 * have left a failed one, and a rail it never used may have no connection to it yet. */
static void route_back(const struct pg_ds_header *h, size_t len, int rail)
{
    if (s.rails > 1 && len >= sizeof *h && h->source < (uint32_t)pg_world.npes &&
        s.sources[h->source] && s.sources[h->source]->addr != FI_ADDR_NOTAVAIL)
        pg_net_route(s.ep, s.sources[h->source]->addr, rail);
}

static void serve(const struct pg_ds_header *h, size_t len, int rail)
{
    if (len >= sizeof *h)
        h = pg_ds_aligned(&s.bounce, h, len);
    if (pg_cfg.checksum && corrupt(h, len))
        return;
    if (foreign(h, len))
        return;
    route_back(h, len, rail);
    if (len < sizeof *h || !(h->flags & PG_DS_ORDERED) || h->source >= (uint32_t)pg_world.npes) {
        execute(h, len);
        return;
    }
    int status = ds_stream_deliver(&source(h->source)->stream, h, len, execute);
    route_back(h, len, rail); /* a HELLO served made its source's address known */
    if (status == PG_DS_BAD_ORDER && pg_ds_reliable())
        answer_again(h, len);
    else if (status != PG_DS_OK)
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
                serve(e.buf, e.len, e.rail);
            if (e.buffer_done)
                segment_used_up(e.context);
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
    /* Polling pays when the next request comes within the poll (a ping-pong on idle cores);
     * when the gaps are longer (a loaded machine, a slow peer) it only holds a core the PEs
     * need, and the server sleeps at once (perf/README.md, "The data server's idle wait"). */
    uint64_t spin_max = (uint64_t)pg_cfg.server_spin_us, spin_us = spin_max, gap_avg = 0;
    uint64_t last = now_us();
    while (!s.stopping) {
        int n = collect(0);
        if (n == 0 && now_us() - last < spin_us) {
            /* Yielding costs little when nothing else wants the core; spinning without it
             * held the core from the PEs whose requests the server waits for whenever a
             * node's threads outnumber its cores (measured: 2-PE barrier 0.45 ms vs 40 us). */
            sched_yield();
            continue;
        }
        if (n == 0) /* with waiters, awake to lend to those kept waiting too long */
            n = collect(s.waiters ? 10 : 1000);
        if (n > 0) {
            gap_avg = (7 * gap_avg + (now_us() - last)) / 8;
            spin_us = 2 * gap_avg <= spin_max ? spin_max : 0;
            serve_arrivals();
            last = now_us();
        }
        if (s.waiters)
            grant_waiters(1);
    }
#ifdef PG_TSAN
    __tsan_ignore_thread_end();
#endif
    return NULL;
}

static size_t reply_pool_bytes(int count, size_t packed_bytes)
{
    return (size_t)count * (sizeof(struct reply_buffer) + packed_bytes);
}

static void pool_open(struct reply_pool *pool, int count, size_t packed_bytes)
{
    *pool = (struct reply_pool){.buffers = calloc((size_t)count, sizeof(struct reply_buffer)),
                                .count = count};
    if (packed_bytes && !(pool->packed = malloc((size_t)count * packed_bytes)))
        pool->buffers = NULL;
    if (!pool->buffers)
        pg_fatal("data server", "out of memory for the reply buffers");
    account(PART_REPLIES, (long long)reply_pool_bytes(count, packed_bytes));
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

/* Registers part id of the segments of the node's PE of local rank i, when it exists. */
static void register_part(int i, int id)
{
    int seg;
    size_t start, len;
    int pe = pg_world.local_pes[i];
    if (pg_mem_part(id, &seg, &start, &len) != 0 || !pg_mem_peer_base(seg, pe))
        return;
    struct pg_net_mr *mr =
        pg_net_mr_reg(s.ep, pg_mem_peer_base(seg, pe) + start, len, s.segment_access);
    __atomic_store_n(&s.segment_mr[i * PG_MEM_PARTS + id], mr, __ATOMIC_RELEASE);
}

/* Every segment of every PE of the node is registered once, part by part: the target of
 * direct RMA, and the source of contiguous get replies where sends need registered buffers. */
static void register_segments(void)
{
    s.segment_access = (pg_net_has_rma() ? FI_REMOTE_READ | FI_REMOTE_WRITE : 0) |
                       (pg_net_local_mr() ? FI_SEND : 0);
    if (!s.segment_access)
        return;
    s.registrations = (size_t)pg_world.local_size * PG_MEM_PARTS;
    s.segment_mr = calloc(s.registrations, sizeof *s.segment_mr);
    if (!s.segment_mr)
        pg_fatal("shmem_init", "out of memory for the data server's registrations");
    account(PART_TABLES, (long long)(s.registrations * sizeof *s.segment_mr));
    for (int i = 0; i < pg_world.local_size; i++)
        for (int id = 0; id < PG_MEM_PARTS; id++)
            register_part(i, id);
}

void pg_ds_server_heap_grown(void)
{
    if (!s.segment_access)
        return;
    for (int i = 0; i < pg_world.local_size; i++)
        register_part(i, pg_mem_newest_part());
}

struct pg_ds_region pg_ds_server_region(int pe, int id)
{
    struct pg_net_mr *mr = segment_mr((uint32_t)pe, id);
    if (!mr || !pg_net_has_rma())
        return (struct pg_ds_region){0};
    return (struct pg_ds_region){
        .registered = 1, .key = pg_net_mr_key(mr), .base = pg_net_mr_remote_base(mr)};
}

void pg_ds_server_open(void)
{
    s.ep = pg_net_ep_open("data server", pg_ds_max_message());
    s.chunk = pg_ds_chunk_bytes();
    pool_open(&s.headers, REPLY_BUFFERS, 0);
    register_segments();
    s.max_segments = pg_ds_pool_max_segments();
    s.lend_segments = lend_segments(s.max_segments);
    s.min_grant = pg_ds_min_grant();
    s.full_grant = pg_ds_full_grant();
    s.segments = calloc(s.max_segments + s.lend_segments, sizeof *s.segments);
    s.sources = calloc((size_t)pg_world.npes, sizeof *s.sources);
    if (!s.segments || !s.sources)
        pg_fatal("shmem_init", "out of memory for the data server's tables");
    account(PART_TABLES, (long long)((s.max_segments + s.lend_segments) * sizeof *s.segments +
                                     (size_t)pg_world.npes * sizeof *s.sources));
    s.owing = s.lru_head = s.lru_tail = s.waiters_head = s.waiters_tail = NO_PE;
    add_segment();
    add_segment();
}

struct pg_net_ep *pg_ds_server_ep(void)
{
    return s.ep;
}

void pg_ds_server_start(void)
{
    s.stopping = 0;
    s.rails = pg_net_rails();
    /* A launcher that binds each PE to a core would bind the server to its host PE's core,
     * where it could run only when that PE waits: the server runs near the NIC on a core no PE
     * is bound to (pg_topo_server_cpus), or, when hwloc cannot tell, on any core (the kernel
     * keeps it within the job's cpuset). */
    struct pg_cpus place;
    char why[200];
    int known = pg_topo_server_cpus(&place, why, sizeof why) == 0;
    cpu_set_t where;
    CPU_ZERO(&where);
    for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_CONF) && cpu < CPU_SETSIZE; cpu++)
        if (!known || (cpu < PG_TOPO_MAX_CPUS && (place.bits[cpu / 64] >> (cpu % 64) & 1)))
            CPU_SET(cpu, &where);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setaffinity_np(&attr, sizeof where, &where);
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
    if (s.stats.foreign > 1)
        pg_warn("data server: refused %llu messages without this job's key in all",
                (unsigned long long)s.stats.foreign);
    pool_close(&s.headers);
    if (s.packs.buffers)
        pool_close(&s.packs);
    if (s.forwards.buffers)
        pool_close(&s.forwards);
    free(s.peers);
    ds_forward_fini();
    for (size_t i = 0; i < s.registrations; i++)
        pg_net_mr_close(s.segment_mr[i]);
    free(s.segment_mr);
    s.segment_access = 0;
    for (size_t i = 0; i < s.max_segments + s.lend_segments; i++)
        if (s.segments[i].data)
            pg_ds_recv_close(&s.segments[i]);
    free(s.segments);
    pg_net_ep_close(s.ep);
    for (int pe = 0; pe < pg_world.npes; pe++) {
        if (!s.sources[pe])
            continue;
        ds_stream_reset(&s.sources[pe]->stream);
        free(s.sources[pe]->fetched);
        free(s.sources[pe]);
    }
    free(s.sources);
    free(s.arrivals.ring);
    pg_ds_bounce_free(&s.bounce);
    memset(&s, 0, sizeof s);
}

struct pg_ds_server_counts pg_ds_server_memory(struct pg_ds_server_bytes *bytes)
{
    struct pg_ds_server_counts n = {
        .npes = (size_t)pg_world.npes,
        .local_size = (size_t)pg_world.local_size,
        .sources = __atomic_load_n(&s.nsources, __ATOMIC_RELAXED),
        .segments = __atomic_load_n(&s.segments_in_use, __ATOMIC_RELAXED),
        .arrivals = __atomic_load_n(&s.arrivals.cap, __ATOMIC_RELAXED),
        .pack_buffers = __atomic_load_n(&s.packs.buffers, __ATOMIC_RELAXED) ? PACK_BUFFERS : 0,
        .forward_buffers =
            __atomic_load_n(&s.forwards.buffers, __ATOMIC_RELAXED) ? PG_DS_FORWARD_BUFFERS : 0,
        .forward_nodes = __atomic_load_n(&s.peers, __ATOMIC_RELAXED) ? (size_t)pg_world.nnodes : 0,
        .registrations = s.registrations,
    };
    size_t *part[PARTS] = {&bytes->pool, &bytes->replies, &bytes->tables, &bytes->sources,
                           &bytes->arrivals};
    bytes->total = 0;
    for (int i = 0; i < PARTS; i++)
        bytes->total += *part[i] = __atomic_load_n(&s.bytes[i], __ATOMIC_RELAXED);
    return n;
}

struct pg_ds_server_bytes pg_ds_server_model(const struct pg_ds_server_counts *n)
{
    struct pg_ds_server_bytes b = {
        .pool = n->segments * pg_ds_segment_bytes(),
        .replies =
            reply_pool_bytes(REPLY_BUFFERS, 0) +
            (n->pack_buffers ? reply_pool_bytes((int)n->pack_buffers, pack_bytes()) : 0) +
            (n->forward_buffers ? reply_pool_bytes((int)n->forward_buffers, forward_bytes()) : 0),
        .tables = n->registrations * sizeof(struct pg_net_mr *) +
                  n->forward_nodes * sizeof(fi_addr_t) +
                  (pg_ds_pool_max_segments() + lend_segments(pg_ds_pool_max_segments())) *
                      sizeof(struct pg_ds_recv_buffer) +
                  n->npes * sizeof(struct ds_source *),
        .sources = n->sources * sizeof(struct ds_source),
        .arrivals = n->arrivals * sizeof(struct pg_net_event),
    };
    b.total = b.pool + b.replies + b.tables + b.sources + b.arrivals;
    return b;
}

struct pg_ds_server_stats pg_ds_server_stats(void)
{
    return (struct pg_ds_server_stats){
        .grants = __atomic_load_n(&s.stats.grants, __ATOMIC_RELAXED),
        .enlargements = __atomic_load_n(&s.stats.enlargements, __ATOMIC_RELAXED),
        .reclaims = __atomic_load_n(&s.stats.reclaims, __ATOMIC_RELAXED),
        .lent = __atomic_load_n(&s.stats.lent, __ATOMIC_RELAXED),
        .foreign = __atomic_load_n(&s.stats.foreign, __ATOMIC_RELAXED),
        .corrupt = __atomic_load_n(&s.stats.corrupt, __ATOMIC_RELAXED),
        .duplicates = __atomic_load_n(&s.stats.duplicates, __ATOMIC_RELAXED)};
}

struct pg_ds_server_counts pg_ds_server_worst(size_t npes, size_t local_size)
{
    /* The pool grows no further than every source's full grant needs. */
    size_t sources = npes - local_size, segments = 2;
    while (segments < pg_ds_pool_max_segments() &&
           pg_ds_pool_capacity(segments) < sources * pg_ds_full_grant())
        segments++;
    return (struct pg_ds_server_counts){.npes = npes,
                                        .local_size = local_size,
                                        .sources = sources,
                                        .segments = segments,
                                        .arrivals = ARRIVALS_START,
                                        .pack_buffers = PACK_BUFFERS,
                                        .forward_buffers = PG_DS_FORWARD_BUFFERS,
                                        .forward_nodes = (npes + local_size - 1) / local_size,
                                        .registrations = local_size * PG_MEM_PARTS};
}
