/* The engine: requests to the data server of the target's node, and their replies.
 *
 * The pipeline: a transfer is cut into chunks of at most PANGEA_PIPELINE_BUFFER_SIZE data
 * bytes. Each chunk is packed (strided and vector data gathered) into a block carved from one
 * send region of PANGEA_PIPELINE_BUFFERS chunks, sized to the request, so a small request does
 * not hold a whole chunk; packing chunk k+1 overlaps sending chunk k, and a block is reused
 * once the provider has sent it. Credits bound what one PE has in flight at one server (bytes
 * of its receive space and a number of requests), so a server's receive buffers are never
 * overrun whatever all PEs send at once: small requests go against a little grant-free space,
 * the rest against a grant that the server hands out on demand and may ask back (the protocol
 * is described in dataserver.h, "Credits"). A get is one request per window of half the send
 * region: the server packs and streams the data back in chunks, and the window bounds what
 * the replies may occupy in this PE's receive buffers. What this PE keeps per node is one
 * struct link (and a batch), plus the records of its requests in flight to the nodes it has
 * contacted.
 *
 * Small nbi puts to one node are gathered into one request of records (a batch of up to
 * PANGEA_PUT_BATCH bytes), numbered when it is sent: when full, before any other request to
 * that node, and when the PE quiets or waits. So they keep their order with everything else
 * the PE sends there.
 *
 * Contiguous puts and gets of PANGEA_DIRECT_RMA_THRESHOLD bytes or more skip the copies: one
 * RMA between the caller's buffer and the target's memory, as registered by its node's
 * server, when the provider offers RMA. */
#define _GNU_SOURCE /* pthread_setname_np */
#include "pipe_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

/* A block of the send region. Blocks are carved in order and released in any order; the
 * region's oldest end advances over released blocks. */
struct block {
    struct fi_context ctx; /* first: the completion's context points here */
    uint32_t size;         /* bytes of the block, this struct included */
    uint8_t busy;          /* carved and not yet sent, or a send of it in the provider */
    uint8_t kept;          /* with retransmission on: its request is not done yet */
    uint16_t small;        /* its request's credit is grant-free space */
    uint8_t rail;          /* the rail its latest send went by */
    char data[] __attribute__((aligned(8)));
};
#define BLOCK_ALIGN 64

/* A call that waits for replies: a get (of one or more requests) or a fetching AMO. */
struct call {
    size_t remaining; /* get data bytes not yet arrived */
    int done;         /* fetching AMO */
    uint64_t result;
};

/* One request awaiting replies, and where its data goes: a shaped local region, a contiguous
 * one (shape NULL), or the pieces of a vector. */
struct pending {
    uint64_t seq;
    int active;
    struct call *call; /* NULL: a non-blocking get or AMO, counted in its completion record */
    size_t remaining;  /* of this request */
    char *base;        /* shaped or contiguous get: local region; non-blocking AMO: the result */
    const struct pg_strided *shape;
    void *const *pieces; /* vector get: local piece pointers, from the first of this request */
    size_t piece_bytes;
};

/* A request sent to a node, by its number there, until it is done: by its reply (a get, a
 * fetching AMO) or by an acknowledgement that covers its number (the others). */
enum awaits { AWAITS_NOTHING, AWAITS_ACK, AWAITS_REPLY };
struct sent {
    uint64_t cookie; /* its completion record */
    uint32_t credit;
    uint16_t order;
    uint8_t awaits;
    uint8_t small : 1;    /* the credit is grant-free space */
    uint8_t control : 1;  /* a HELLO, RELEASE or CLOSE: no completion record counts it */
    uint8_t streamed : 1; /* a get: its data comes in parts */
    /* With retransmission on: the message, kept in its block until the request is done. */
    uint8_t attempt;     /* transmissions after the first */
    uint32_t wire;       /* its bytes */
    struct block *block; /* NULL: retransmission off */
    uint64_t sent_ns;    /* the latest transmission, or the latest part of a get's reply */
};

/* What this PE holds at one node's server: nothing yet (NEW), its endpoint known there
 * (IDLE), a grant asked for (ASKED) or held (HELD). */
enum link_state { LINK_NEW, LINK_IDLE, LINK_ASKED, LINK_HELD };
struct link {
    struct sent *sent;            /* [SENT_SLOTS], from the first contact */
    struct pg_ds_region *regions; /* [PEs of the node][PG_SEG_COUNT], on the first direct RMA */
    struct pg_ds_region *grown;   /* [PEs of the node][PG_HEAP_GROWTHS], on the first direct
                                     RMA into a part the heap grew by */
    fi_addr_t server;             /* inserted at the first contact */
    uint64_t last_use;            /* for giving the least recently used grant back */
    uint32_t credit_used;         /* granted space held by requests in flight */
    uint32_t small_used;          /* grant-free space held */
    uint32_t grant, epoch;        /* HELD: its bytes and number */
    uint32_t released;            /* the number of the last grant given back */
    int requests;                 /* requests awaiting a reply or an acknowledgement */
    uint16_t order;               /* the number of my next ordered request there */
    uint16_t acked;               /* my oldest number there that may not be done */
    uint8_t state, release_due, wants_more;
    /* With retransmission on: the round trip measured and when the grant was last asked
     * for. */
    struct pg_rtt rtt;
    uint64_t asked_ns;
    uint64_t heard_ns; /* the latest message from the node's server */
};

/* Small puts to one node not yet sent: records (struct pg_ds_record and data), counted once
 * in their completion record while the batch is open. */
struct batch {
    char *records; /* grown on demand up to c.batch_bytes */
    size_t used, capacity;
    struct pg_pipe_completion *cc;
    int sending; /* a thread is sending it and waits for credit, the lock released */
};
/* A put is batched when its record takes at most this fraction of a batch. */
#define BATCH_SHARE 8
/* Batches open at once, and batch buffers kept once sent: a PE putting to many nodes holds a
 * few, whatever the number of nodes. */
#define BATCHES_KEPT 16

#define PENDING_SLOTS 4096
#define REQUESTS_PER_SERVER 64
/* Requests in flight to all nodes together: with the grants held, what bounds the small
 * replies this PE's receive buffers must hold, whatever the number of nodes. */
#define REQUESTS_IN_FLIGHT 256
/* A request's record is found at its number modulo this; a number waits for its slot. The
 * server knows this window (it keeps fetching AMOs' replies by it): twice the requests a PE
 * may have in flight at one server. */
#define SENT_SLOTS PG_DS_WINDOW
_Static_assert(SENT_SLOTS == 2 * REQUESTS_PER_SERVER, "the window holds what is in flight twice");
#define SMALL_BUDGET (PG_DS_SMALL_IN_FLIGHT * pg_ds_receive_bytes(PG_DS_SMALL_MESSAGE))
/* What a grant keeps for the RELEASE that gives it back. */
#define RELEASE_BYTES pg_ds_receive_bytes(sizeof(struct pg_ds_header))
/* The first table of signalled PEs' addresses (client.peers). */
#define PEER_SLOTS_MIN 4

static struct {
    pthread_mutex_t lock;
    struct pg_net_ep *ep;
    char name[PG_NET_ADDR_MAX]; /* my endpoint, told to each server in a HELLO */
    size_t name_len;
    struct link *links;         /* [nnodes] */
    char *server_names;         /* [nnodes][name_bytes] */
    size_t name_bytes;          /* the job's longest server name */
    int *server_pe;             /* [nnodes] the PE hosting each node's server */
    int *node_size;             /* [nnodes] */
    size_t regions_offset;      /* of every PE's direct RMA regions, in its internal area */
    int in_flight;              /* requests in flight to all nodes */
    int grants;                 /* links ASKED or HELD */
    int due[PG_DS_GRANTS_HELD]; /* nodes whose grant is asked back */
    int ndue, giving_back;
    uint64_t clock;                         /* counts sends, for last_use */
    char *region;                           /* the send region */
    struct pg_net_mr *region_mr;            /* when local buffers must be registered */
    struct pg_net_mr *own_mr[PG_MEM_PARTS]; /* my segments' parts, as RMA buffers (idem) */
    size_t region_size, oldest, next, wrap_at;
    size_t chunk;         /* data bytes per message, a multiple of PG_ACC_MAX_ELEMENT */
    size_t window;        /* get bytes per request */
    size_t get_in_flight; /* get bytes requested and not yet arrived */
    struct pg_ds_recv_buffer recv[2];
    uint64_t next_seq;
    struct pg_pipe_completion all; /* every context's acknowledgements */
    struct batch *batches;         /* [nnodes] */
    int *open_batches;             /* nodes whose batch holds puts */
    int nopen;
    int batch_buffers;  /* batches with records allocated */
    size_t batch_bytes; /* 0: no batching */
    struct pending *pending;
    unsigned long probes_rejected;
    unsigned long foreign; /* messages refused for want of the job's key */
    int reliable;          /* retransmission on (pg_ds_reliable) */
    int closed;            /* the closing handshake is done: nothing goes again */
    uint64_t next_scan_ns; /* when requests are next looked at for retransmission */
    uint64_t corrupt, retransmissions;
    pthread_t resender; /* with retransmission on: resends while the PE is elsewhere */
    int resender_running, resender_stop;
    struct pg_ds_bounce bounce; /* a reply that landed misaligned, copied */
    int lock_waiters;           /* threads blocked in client_lock */
    /* Direct signals: where each PE leaves its endpoint's name (in its internal area), the
     * addresses of the PEs signalled so far, and the signals this PE has applied (a waiter's
     * sequence: pg_wait_net_seq). */
    size_t name_offset;
    struct peer_table {
        struct peer_slot {
            int pe_plus1; /* 0: free */
            fi_addr_t addr;
        } * slots;
        size_t capacity, count; /* capacity: 0 or a power of two, at least twice count */
    } peers;
    uint32_t signals;
} c = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Takes the client's lock, counted while blocked: a holder that would sleep on the completion
 * queue lets the lock go instead while another thread waits for it (await_network). */
static void client_lock(void)
{
    if (pthread_mutex_trylock(&c.lock) == 0)
        return;
    __atomic_fetch_add(&c.lock_waiters, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&c.lock);
    __atomic_fetch_sub(&c.lock_waiters, 1, __ATOMIC_RELAXED);
}

/* Every request takes the client's lock here. After pg_pipe_suspend closed the links, a request
 * is the program's error. */
static void lock_for_request(void)
{
    client_lock();
    if (!c.links)
        pg_fatal("off-node request", "the network is closed: between shmemx_ckpt_quiesce and "
                                     "shmemx_ckpt_resume only PEs of the same node can be reached");
}

static struct block *block_at(size_t at)
{
    return (struct block *)(c.region + at);
}

static void get_arrived(struct pending *p, const struct pg_ds_header *h, size_t len)
{
    if (!p->active || p->seq != h->seq || len != pg_ds_wire_bytes(sizeof *h + h->length) ||
        h->length > p->remaining)
        pg_fatal("get", "malformed reply from the data server of PE %u", h->target);
    char *data = (char *)(h + 1);
    if (!p->shape && !p->pieces) {
        memcpy(p->base + h->position, data, h->length);
    } else if (p->shape) {
        pg_ds_walk(p->base, p->shape->levels, p->shape->count, p->shape->dst_stride, h->position,
                   h->length, data, pg_ds_unpack_piece, NULL);
    } else {
        for (size_t i = 0; i < h->length / p->piece_bytes; i++)
            memcpy(p->pieces[i], data + i * p->piece_bytes, p->piece_bytes);
    }
    p->remaining -= h->length;
    if (p->call)
        p->call->remaining -= h->length;
    c.get_in_flight -= h->length;
}

/* An operation counted in a completion record (echoed as the cookie) is complete. */
static void completed(uint64_t cookie)
{
    if (cookie)
        __atomic_fetch_sub(&((struct pg_pipe_completion *)(uintptr_t)cookie)->acks_due, 1,
                           __ATOMIC_RELEASE);
    __atomic_fetch_sub(&c.all.acks_due, 1, __ATOMIC_RELEASE);
}

static void acknowledged_by(const struct pg_ds_header *h)
{
    completed(h->cookie);
}

static struct sent *sent_at(int node, uint16_t order)
{
    return &c.links[node].sent[order % SENT_SLOTS];
}

static int sent_done(int node, uint16_t order)
{
    if (!c.links[node].sent)
        return 1;
    const struct sent *r = sent_at(node, order);
    return r->order != order || r->awaits == AWAITS_NOTHING;
}

/* A request to node is done: its credit and its place in the counts come back. */
static void credit_back(int node, uint32_t credit, int small)
{
    struct link *l = &c.links[node];
    l->requests--;
    c.in_flight--;
    if (small)
        l->small_used -= credit;
    else
        l->credit_used -= credit;
}

static void region_advance(void);

/* Karn's rule: only a request sent once measures the round trip (a reply to a retransmitted
 * one could answer either transmission); a get's replies stream, so they do not measure it. */
static void measure_round_trip(struct link *l, const struct sent *r)
{
    if (r->attempt || r->streamed)
        return;
    pg_rtt_sample(&l->rtt, pg_now_ns() - r->sent_ns);
}

static void sent_finish(int node, uint16_t order)
{
    struct link *l = &c.links[node];
    struct sent *r = sent_at(node, order);
    if (r->block) {
        measure_round_trip(l, r);
        r->block->kept = 0;
        r->block = NULL;
        region_advance();
    }
    credit_back(node, r->credit, r->small);
    r->awaits = AWAITS_NOTHING;
    while (l->acked != l->order && sent_done(node, l->acked))
        l->acked++;
    if (!l->requests && l->state == LINK_IDLE) { /* records only for nodes in use */
        free(l->sent);
        l->sent = NULL;
    }
}

/* An acknowledgement of every request to node up to number h->order that awaits one. */
static void acknowledged_up_to(int node, const struct pg_ds_header *h)
{
    struct link *l = &c.links[node];
    uint16_t first = l->acked, span = (uint16_t)(h->order - first);
    if (c.reliable && span >= (uint16_t)(l->order - first))
        return; /* a repeated acknowledgement of requests done already */
    if (span >= (uint16_t)(l->order - first))
        pg_fatal("remote access",
                 "acknowledgement of unsent request %u from the data server "
                 "of PE %u",
                 h->order, h->target);
    uint64_t count = 0;
    for (uint16_t k = 0; k <= span; k++) {
        uint16_t order = (uint16_t)(first + k);
        struct sent *r = sent_at(node, order);
        if (r->order != order || r->awaits != AWAITS_ACK)
            continue;
        if (!r->control)
            completed(r->cookie);
        sent_finish(node, order);
        count++;
    }
    /* With retransmission, an acknowledgement lost covers its requests in the next one. */
    if (count != h->operand && !c.reliable)
        pg_fatal("remote access",
                 "the data server of PE %u acknowledged %llu requests, %llu "
                 "were due",
                 h->target, (unsigned long long)h->operand, (unsigned long long)count);
}

/* A GRANT: the first for the grant asked for, or a larger one for the grant held. One for a
 * grant given back since is stale. */
static void granted(int node, const struct pg_ds_header *h)
{
    struct link *l = &c.links[node];
    uint32_t epoch = (uint32_t)h->compare;
    if (epoch <= l->released || h->operand > UINT32_MAX ||
        !(l->state == LINK_ASKED || (l->state == LINK_HELD && epoch == l->epoch)))
        return;
    l->state = LINK_HELD;
    l->grant = (uint32_t)h->operand;
    l->epoch = epoch;
}

/* A RECLAIM of the grant held: given back at the next safe point (give_back_due). */
static void reclaimed(int node, const struct pg_ds_header *h)
{
    struct link *l = &c.links[node];
    if (l->state != LINK_HELD || l->epoch != (uint32_t)h->compare || l->release_due)
        return;
    l->release_due = 1;
    c.due[c.ndue++] = node;
}

/* With retransmission on, a reply to a request done already (a repeated reply or
 * acknowledgement), or a part of a get's data streamed for an earlier attempt (the latest
 * streams all of it again). Ignored. */
static int repeated(int node, const struct pg_ds_header *h, const struct pending *p)
{
    if (h->type == PG_DS_GRANT || h->type == PG_DS_RECLAIM || h->type == PG_DS_NACK)
        return 0;
    if (!c.links[node].sent)
        return 1;
    if (h->type != PG_DS_GET_REPLY && h->type != PG_DS_AMO_REPLY)
        return 0; /* acknowledgements: acknowledged_up_to tells */
    struct sent *r = sent_at(node, h->order);
    if (!p->active || p->seq != h->seq || r->order != h->order || r->awaits != AWAITS_REPLY ||
        (h->type == PG_DS_GET_REPLY && r->attempt != h->attempt))
        return 1;             /* an AMO's value is the same in every attempt's reply */
    r->sent_ns = pg_now_ns(); /* a get whose data streams is not overdue */
    return 0;
}

/* A direct signal to this PE (pg_pipe_signal): applied and rung like a server's AMO, so that
 * a thread of this PE asleep on the doorbell while another reads the endpoint wakes too. */
static void signal_arrived(const struct pg_ds_header *h)
{
    char *base = h->target == (uint32_t)pg_world.me && h->segment < PG_SEG_COUNT &&
                         h->width == sizeof(uint64_t) && h->offset % sizeof(uint64_t) == 0
                     ? pg_mem_peer_range(h->segment, pg_world.me, h->offset, sizeof(uint64_t))
                     : NULL;
    if (!base)
        pg_fatal("collective", "malformed signal from PE %u (segment %u, offset %llu)", h->source,
                 h->segment, (unsigned long long)h->offset);
    __atomic_fetch_add((uint64_t *)(base + h->offset), h->operand, __ATOMIC_RELEASE);
    pg_mem_ring(pg_world.me, pg_segments[h->segment].base + h->offset);
    __atomic_fetch_add(&c.signals, 1, __ATOMIC_SEQ_CST);
}

static void handle_reply(const struct pg_ds_header *h, size_t len)
{
    if (h->type == PG_DS_NACK && (h->seq & PG_DS_PROBE)) {
        c.probes_rejected++;
        return;
    }
    if (h->type == PG_DS_SIGNAL) {
        signal_arrived(h);
        return;
    }
    if (h->target >= (uint32_t)pg_world.npes)
        pg_fatal("remote access", "reply for unknown PE %u from a data server", h->target);
    int node = pg_world.node_of[h->target];
    struct pending *p = &c.pending[h->seq % PENDING_SLOTS];
    if (c.reliable) {
        c.links[node].heard_ns = pg_now_ns(); /* a repeated reply too: the path works */
        if (repeated(node, h, p))
            return;
    }
    if (!c.links[node].sent && h->type != PG_DS_GRANT && h->type != PG_DS_RECLAIM)
        pg_fatal("remote access", "reply from the data server of PE %u, which has nothing of mine",
                 h->target);
    switch (h->type) {
    case PG_DS_GRANT:
        granted(node, h);
        return;
    case PG_DS_RECLAIM:
        reclaimed(node, h);
        return;
    case PG_DS_ACK:
        if (h->flags & PG_DS_ORDERED) {
            acknowledged_up_to(node, h);
            return;
        }
        acknowledged_by(h);
        break;
    case PG_DS_GET_REPLY:
        get_arrived(p, h, len);
        if (p->remaining)
            return; /* the request's credit comes back with its last part */
        if (!p->call)
            acknowledged_by(h);
        p->active = 0;
        break;
    case PG_DS_AMO_REPLY:
        if (!p->active || p->seq != h->seq || (h->width != 4 && h->width != 8))
            pg_fatal("atomic", "malformed reply from the data server of PE %u", h->target);
        if (p->call) {
            p->call->result = h->operand;
            p->call->done = 1;
        } else {
            memcpy(p->base, &h->operand, h->width); /* little-endian: the low bytes */
            acknowledged_by(h);
        }
        p->active = 0;
        break;
    case PG_DS_NACK:
        pg_fatal("remote access", "the data server of PE %u rejected a request: %s", h->target,
                 pg_ds_status_text(h->status));
    default:
        pg_fatal("remote access", "unknown reply type %u from the data server", h->type);
    }
    if (h->flags & PG_DS_ORDERED)
        sent_finish(node, h->order);
    else
        credit_back(node, h->credit, 0);
}

/* The oldest end of the region advances over released blocks. */
static void region_advance(void)
{
    while (c.oldest != c.next) {
        if (c.oldest == c.wrap_at) {
            c.oldest = 0;
            c.wrap_at = c.region_size;
            continue;
        }
        struct block *old = block_at(c.oldest);
        if (old->busy || old->kept)
            break;
        c.oldest += old->size;
    }
}

static void block_sent(struct block *b)
{
    b->busy = 0;
    region_advance();
}

/* The path a request to node takes: the one place where a choice between rails goes. */
static fi_addr_t path_to(int node)
{
    return c.links[node].server;
}

/* How long a request to node waits for its reply before it goes again: the measured round
 * trip plus four deviations, at least PANGEA_RETRANSMIT_MIN_US (four times that before the
 * first sample), doubled for each transmission already made, at most RETRANSMIT_MAX_NS. */
#define RETRANSMIT_MAX_NS 1000000000ull
static uint64_t timeout_ns(const struct link *l, unsigned attempt)
{
    uint64_t floor = (uint64_t)pg_cfg.retransmit_min_us * 1000;
    uint64_t t = l->rtt.srtt ? l->rtt.srtt + 4 * l->rtt.rttvar : 4 * floor;
    t = t < floor ? floor : t;
    t <<= attempt < 10 ? attempt : 10;
    return t < RETRANSMIT_MAX_NS ? t : RETRANSMIT_MAX_NS;
}

/* Sends a request again, as it was, marked with its new attempt: once no send of it is in
 * the provider any more (an earlier one still there has not been lost). A get's data so far
 * is dropped from the counts: this attempt's replies stream all of it again. */
static void retransmit(int node, struct sent *r, int blame)
{
    struct block *b = r->block;
    struct pg_ds_header *h = (struct pg_ds_header *)b->data;
    if (h->type == PG_DS_GET) {
        struct pending *p = &c.pending[h->seq % PENDING_SLOTS];
        size_t arrived = h->length - p->remaining;
        p->remaining = h->length;
        if (p->call)
            p->call->remaining += arrived;
        c.get_in_flight += arrived;
    }
    h->attempt = ++r->attempt;
    if (pg_cfg.checksum)
        pg_ds_seal(h, r->wire);
    pg_net_reroute(c.ep, path_to(node), blame ? b->rail : -1); /* maybe its rail failed */
    b->busy = 1;
    r->sent_ns = pg_now_ns();
    c.retransmissions++;
    struct iovec iov = {b->data, r->wire};
    void *desc = pg_net_mr_desc(c.region_mr);
    pg_net_sendv(c.ep, path_to(node), &iov, &desc, 1, &b->ctx);
}

/* Looks at most every millisecond for requests overdue. */
#define RETRANSMIT_SCAN_NS 1000000
static void retransmit_overdue(void)
{
    uint64_t now = pg_now_ns();
    if (now < c.next_scan_ns || c.closed)
        return;
    c.next_scan_ns = now + RETRANSMIT_SCAN_NS;
    for (int node = 0; node < pg_world.nnodes; node++) {
        struct link *l = &c.links[node];
        if (!l->sent || !l->requests)
            continue;
        /* The server applies a source's requests in order: those behind the oldest one not done
         * wait for it, so only its rail is suspect, and only for its first send: a request sent
         * again is late on its new rail while that rail's connection is being made, and blaming
         * it too left no rail that "works" to take the first one out (a hang over rxm). Unless
         * nothing at all came from the node since it went again: then the rail it went by does
         * not reach the node (a rail chosen after a late reply blamed the one that works, while
         * the far end of this one is down: only resends went there, none blamed, a hang). */
        int oldest = 1;
        for (uint16_t order = l->acked; order != l->order; order++) {
            struct sent *r = sent_at(node, order);
            if (r->order != order || r->awaits == AWAITS_NOTHING)
                continue;
            if (r->block && !r->block->busy && now - r->sent_ns > timeout_ns(l, r->attempt))
                retransmit(node, r, oldest && (r->attempt == 0 || l->heard_ns < r->sent_ns));
            oldest = 0;
        }
    }
}

/* A direct RMA call: its operations (one per provider-sized piece) in flight. */
struct rma_call {
    struct fi_context ctx; /* first: the completion's context points here */
    size_t outstanding;
};

/* Reads completions: replies, used-up receive buffers, sent blocks; waiting up to wait_ms on
 * the completion queue's wait object for one (0: not at all). Lock held. */
static void progress_for(int wait_ms)
{
    struct pg_net_event events[16];
    int n = wait_ms ? pg_net_wait(c.ep, events, 16, wait_ms) : pg_net_poll(c.ep, events, 16);
    for (int i = 0; i < n; i++) {
        struct pg_net_event *e = &events[i];
        if (e->is_rma) {
            ((struct rma_call *)e->context)->outstanding--;
            continue;
        }
        if (!e->is_recv) {
            ((struct block *)e->context)->rail = (uint8_t)e->rail;
            block_sent((struct block *)e->context);
            continue;
        }
        const struct pg_ds_header *h =
            e->len >= sizeof *h ? pg_ds_aligned(&c.bounce, e->buf, e->len) : NULL;
        if (!e->len)
            ; /* a buffer given back by a rail taken out */
        else if (pg_cfg.checksum && (!h || !pg_ds_intact(h, e->len)))
            c.corrupt++; /* dropped: the request goes again when its time is up */
        else if (h && pg_ds_message_key(h) == pg_world.job_key)
            handle_reply(h, e->len);
        else if (c.foreign++ == 0)
            pg_warn("refused a %zu-byte message without this job's key (from outside the "
                    "job?); more are counted, not logged",
                    e->len);
        if (e->buffer_done)
            pg_ds_recv_repost(c.ep, e->context);
    }
    if (c.reliable)
        retransmit_overdue();
}

static void progress(void)
{
    progress_for(0);
}

static void give_back_due(void);

/* A waiter for replies polls, yielding, for the spin's time, then sleeps on the completion
 * queue, at most this long at a time (the lock is held meanwhile: other threads of the PE
 * that arrive wait for it at most this long, and the same reply would wake them). */
#define REPLY_SLEEP_MS 10

/* One step of a wait for the network, lock held: once spun, a sleep on the completion queue.
 * Never while another thread waits for the lock: what this waiter awaits may be that
 * thread's to send (a batch it sends while it waits for credit, the lock released), and a
 * holder that slept again and again would keep it out for good. Then, and while spinning,
 * the lock is released and the core yielded (pg_wait_yield, not pg_wait_step: the waiting
 * PE's hook would send batches from inside a send). */
static void await_network(struct pg_waiter *w)
{
    if (pg_wait_spun(w) && !__atomic_load_n(&c.lock_waiters, __ATOMIC_RELAXED)) {
        progress_for(REPLY_SLEEP_MS);
        return;
    }
    pthread_mutex_unlock(&c.lock);
    pg_wait_yield(w);
    client_lock();
}

/* Progresses until done() holds. Lock held (released while yielding: await_network). */
static void wait_until(int (*done)(const void *), const void *arg)
{
    struct pg_waiter w = {0};
    for (;;) {
        progress();
        if (done(arg))
            return;
        give_back_due();
        await_network(&w);
    }
}

/* Carves a block of `bytes` (header included, aligned) from the send region, or NULL when
 * the region is full. Blocks never wrap: when the tail is too short, carving restarts at the
 * start and the tail is skipped. next == oldest only when nothing is carved. */
static struct block *carve(size_t bytes)
{
    if (c.oldest == c.next) {
        c.oldest = c.next = 0;
        c.wrap_at = c.region_size;
    }
    size_t at = c.next;
    if (c.next >= c.oldest) { /* free: [next, end) and [0, oldest) */
        if (c.region_size - c.next < bytes) {
            if (c.oldest <= bytes)
                return NULL;
            c.wrap_at = c.next;
            at = 0;
        }
    } else if (c.oldest - c.next <= bytes) { /* free: [next, oldest) */
        return NULL;
    }
    struct block *b = block_at(at);
    b->size = (uint32_t)bytes;
    b->busy = 1;
    b->kept = 0;
    c.next = at + bytes;
    return b;
}

/* What a request takes: a message of `bytes` receive bytes to node; a control message (a
 * HELLO, RELEASE or CLOSE) waits only for a place among the requests in flight. */
enum control { NOT_CONTROL, CONTROL_HELLO, CONTROL_RELEASE, CONTROL_CLOSE };
struct credit_need {
    int node;
    size_t bytes;
    enum control control;
};

/* Whether the request may be sent now; *small: against grant-free space. A HELLO takes
 * grant-free space and a RELEASE what its grant kept for it, over any limit: there is at most
 * one of each per grant. A CLOSE takes what a RELEASE would when a grant is held, else
 * grant-free space: there is one per node. */
static int can_send(const struct credit_need *n, int *small)
{
    const struct link *l = &c.links[n->node];
    /* The window: number n waits until n - SENT_SLOTS is done (its record's slot is free, and
     * a server keeping replies by number knows it may drop that one's). */
    if (l->requests >= REQUESTS_PER_SERVER || c.in_flight >= REQUESTS_IN_FLIGHT ||
        (uint16_t)(l->order - l->acked) >= SENT_SLOTS)
        return 0;
    *small = l->state != LINK_HELD && n->control != CONTROL_RELEASE;
    if (n->control)
        return 1;
    if (l->state == LINK_HELD)
        return l->credit_used + n->bytes + RELEASE_BYTES <= l->grant;
    return n->bytes <= pg_ds_receive_bytes(PG_DS_SMALL_MESSAGE) &&
           l->small_used + n->bytes <= SMALL_BUDGET;
}

static struct block *reserve_block(int node, size_t bytes, uint32_t *credit, enum control control);
static void send_block_summed(int pe, struct block *b, struct pg_ds_header *h, size_t bytes,
                              uint32_t payload_crc);

/* send_block_summed, the sum taken here. */
static void send_block(int pe, struct block *b, struct pg_ds_header *h, size_t bytes)
{
    uint32_t crc =
        pg_cfg.checksum ? pg_ds_sum_payload(0, b->data + sizeof *h, bytes - sizeof *h) : 0;
    send_block_summed(pe, b, h, bytes, crc);
}

/* A HELLO to node: my endpoint, and with ask a request for a grant. */
static void send_hello(int node, int ask)
{
    struct pg_ds_header h = {.type = PG_DS_HELLO, .op = (uint8_t)ask, .length = c.name_len};
    struct block *b = reserve_block(node, sizeof h + c.name_len, &h.credit, CONTROL_HELLO);
    memcpy(b->data + sizeof h, c.name, c.name_len);
    h.seq = c.next_seq++;
    send_block(c.server_pe[node], b, &h, sizeof h + c.name_len);
}

/* Gives node's grant back: a RELEASE after every request sent there so far. */
static void give_back(int node)
{
    struct link *l = &c.links[node];
    struct pg_ds_header h = {.type = PG_DS_RELEASE, .compare = l->epoch};
    l->state = LINK_IDLE;
    l->released = l->epoch;
    l->grant = 0;
    l->release_due = 0;
    c.grants--;
    struct block *b = reserve_block(node, sizeof h, &h.credit, CONTROL_RELEASE);
    h.seq = c.next_seq++;
    send_block(c.server_pe[node], b, &h, sizeof h);
}

/* The last request to node before the endpoints close (dataserver.h, "Closing"), after every
 * earlier one: it gives the grant back too, held or asked for, so no GRANT or RECLAIM for it
 * matters any more. */
static void send_close(int node)
{
    struct link *l = &c.links[node];
    struct pg_ds_header h = {.type = PG_DS_CLOSE};
    struct block *b = reserve_block(node, sizeof h, &h.credit, CONTROL_CLOSE);
    if (l->state == LINK_ASKED || l->state == LINK_HELD)
        c.grants--;
    l->state = LINK_IDLE;
    l->released = l->epoch;
    l->grant = 0;
    l->release_due = 0;
    h.seq = c.next_seq++;
    send_block(c.server_pe[node], b, &h, sizeof h);
}

/* Gives back the grants that servers asked for. Called where a send may start (never from
 * inside progress, which only notes the asks) and not from inside itself. Lock held. */
static void give_back_due(void)
{
    if (c.giving_back)
        return;
    c.giving_back = 1;
    while (c.ndue > 0) {
        int node = c.due[--c.ndue];
        if (c.links[node].release_due)
            give_back(node);
    }
    c.giving_back = 0;
}

static void ask_again(int node)
{
    c.links[node].asked_ns = pg_now_ns();
    send_hello(node, 1);
}

/* Asks node for a grant, giving back the least recently used one first when I hold as many
 * as a PE may. */
static void ask_grant(int node)
{
    if (c.grants >= PG_DS_GRANTS_HELD) {
        int oldest = -1;
        for (int n = 0; n < pg_world.nnodes; n++)
            if (c.links[n].state == LINK_HELD &&
                (oldest < 0 || c.links[n].last_use < c.links[oldest].last_use))
                oldest = n;
        if (oldest >= 0)
            give_back(oldest);
    }
    c.links[node].state = LINK_ASKED;
    c.grants++;
    ask_again(node);
}

/* The first request to node: its server learns my endpoint from a HELLO sent first, which
 * asks for a grant at once when the request will need one. */
static void first_contact(int node, size_t bytes)
{
    struct link *l = &c.links[node];
    l->server = pg_net_av_insert(c.ep, c.server_names + (size_t)node * c.name_bytes);
    l->state = LINK_IDLE;
    l->heard_ns = pg_now_ns(); /* its silence counts from here */
    if (bytes > pg_ds_receive_bytes(PG_DS_SMALL_MESSAGE))
        ask_grant(node);
    else
        send_hello(node, 0);
}

/* A block for a message of `bytes` to `node`, once the node's credits allow it. While they do
 * not, a grant is asked for, or a larger one (the next request says so: PG_DS_MORE). */
static struct block *reserve_block(int node, size_t bytes, uint32_t *credit, enum control control)
{
    struct link *l = &c.links[node];
    struct credit_need need = {node, pg_ds_receive_bytes(pg_ds_wire_bytes(bytes)), control};
    if (l->state == LINK_NEW)
        first_contact(node, need.bytes);
    struct pg_waiter w = {0};
    int small;
    while (!can_send(&need, &small)) {
        if (!control && l->state == LINK_IDLE)
            ask_grant(node);
        if (!control && l->state == LINK_HELD)
            l->wants_more = 1;
        if (!control && l->state == LINK_ASKED && c.reliable &&
            pg_now_ns() - l->asked_ns > timeout_ns(l, 0))
            ask_again(node); /* its GRANT may have been lost */
        progress();
        if (!control)
            give_back_due();
        if (can_send(&need, &small))
            break;
        await_network(&w);
    }
    size_t size = (sizeof(struct block) + bytes + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
    if (size >= c.region_size)
        pg_fatal("remote access", "a %zu-byte request exceeds the send region", bytes);
    struct block *b;
    while (!(b = carve(size))) {
        progress();
        pg_wait_yield(&w);
    }
    /* Progress above may have freed the records of a node with nothing in flight. */
    if (!l->sent && !(l->sent = calloc(SENT_SLOTS, sizeof(struct sent))))
        pg_fatal("remote access", "out of memory");
    b->small = (uint16_t)small;
    l->requests++;
    c.in_flight++;
    if (small)
        l->small_used += (uint32_t)need.bytes;
    else
        l->credit_used += (uint32_t)need.bytes;
    *credit = (uint32_t)need.bytes;
    return b;
}

/* The flag of a request that completes operations counted at their target. */
static uint8_t counted_flag(int counted)
{
    return counted ? PG_DS_COUNTED : 0;
}

static int batch_idle(const void *arg)
{
    return !((const struct batch *)arg)->sending;
}

/* Sends node's batch, if it holds puts, as the node's next request. Lock held. */
static void flush_batch(int node)
{
    struct batch *b = &c.batches[node];
    if (b->sending) {
        wait_until(batch_idle, b); /* another thread sends it */
        return;
    }
    if (!b->used)
        return;
    b->sending = 1;
    struct pg_ds_header h = {.type = PG_DS_PUT,
                             .layout = PG_DS_RECORDS,
                             .flags = counted_flag(b->cc && b->cc->counted),
                             .length = b->used,
                             .cookie = (uint64_t)(uintptr_t)b->cc};
    struct block *blk = reserve_block(node, sizeof h + b->used, &h.credit, NOT_CONTROL);
    memcpy(blk->data + sizeof h, b->records, b->used);
    h.seq = c.next_seq++;
    /* The message goes to the first record's PE: a PE of the node, as the header needs. */
    send_block((int)((const struct pg_ds_record *)b->records)->target, blk, &h, sizeof h + b->used);
    b->used = 0;
    b->sending = 0;
    if (c.batch_buffers > BATCHES_KEPT) { /* a PE putting to many nodes keeps a few */
        free(b->records);
        b->records = NULL;
        b->capacity = 0;
        c.batch_buffers--;
    }
    for (int i = 0; i < c.nopen; i++)
        if (c.open_batches[i] == node)
            c.open_batches[i] = c.open_batches[--c.nopen];
}

static void flush_batches(void)
{
    while (c.nopen > 0)
        flush_batch(c.open_batches[c.nopen - 1]);
}

/* A block for a request to node, after the node's batched puts: they were issued first. */
static struct block *take_block(int node, size_t bytes, uint32_t *credit)
{
    flush_batch(node);
    return reserve_block(node, bytes, credit, NOT_CONTROL);
}

/* Fills in the header's common fields and sends the block's first `bytes` bytes, next in my
 * stream to the node. The caller numbered the request (h->seq); with checksums, payload_crc
 * is the sum of the bytes after the header (pg_ds_sum_payload), as packed. */
static void send_block_summed(int pe, struct block *b, struct pg_ds_header *h, size_t bytes,
                              uint32_t payload_crc)
{
    int node = pg_world.node_of[pe];
    struct link *l = &c.links[node];
    h->version = PG_DS_PROTOCOL_VERSION;
    h->key = pg_world.job_key;
    h->flags |= PG_DS_ORDERED;
    int control = h->type == PG_DS_HELLO || h->type == PG_DS_RELEASE || h->type == PG_DS_CLOSE;
    if (l->wants_more && !control) {
        h->flags |= PG_DS_MORE;
        l->wants_more = 0;
    }
    h->order = l->order++;
    int replied = h->type == PG_DS_GET || (h->type == PG_DS_AMO && h->fetch);
    size_t wire = pg_ds_wire_bytes(bytes); /* the block has room: blocks are BLOCK_ALIGN long */
    struct sent *r = sent_at(node, h->order);
    *r = (struct sent){.cookie = h->cookie,
                       .credit = h->credit,
                       .order = h->order,
                       .awaits = replied ? AWAITS_REPLY : AWAITS_ACK,
                       .small = b->small,
                       .control = (uint8_t)control,
                       .streamed = h->type == PG_DS_GET};
    l->last_use = ++c.clock;
    h->source = (uint32_t)pg_world.me;
    h->target = (uint32_t)pe;
    memset(b->data + bytes, 0, wire - bytes);
    if (pg_cfg.checksum)
        pg_ds_seal_summed(h, pg_ds_sum_payload(payload_crc, b->data + bytes, wire - bytes));
    memcpy(b->data, h, sizeof *h);
    if (c.reliable) {
        r->block = b;
        r->wire = (uint32_t)wire;
        r->sent_ns = pg_now_ns();
        b->kept = 1;
    }
    struct iovec iov = {b->data, wire};
    void *desc = pg_net_mr_desc(c.region_mr);
    pg_net_sendv(c.ep, path_to(node), &iov, &desc, 1, &b->ctx);
}

/* The descriptor of the remote side of a shape; returns its bytes. */
static size_t write_strided(uint64_t *d, const struct pg_strided *shape, const ptrdiff_t *stride)
{
    int levels = shape->levels;
    d[0] = (uint64_t)levels;
    for (int l = 0; l <= levels; l++)
        d[1 + l] = shape->count[l];
    for (int l = 0; l < levels; l++)
        d[2 + levels + l] = (uint64_t)stride[l];
    return 8 * (size_t)(2 + 2 * levels);
}

static size_t shape_bytes(const struct pg_strided *shape)
{
    size_t total = shape->count[0];
    for (int l = 1; l <= shape->levels; l++)
        total *= shape->count[l];
    return total;
}

/* Counts an operation awaiting acknowledgement: in its record (none: NULL) and in all. */
/* Atomic, though the lock is held: pg_pipe_quiet reads the counts without it. */
static void count_ack_due(struct pg_pipe_completion *cc)
{
    if (cc)
        __atomic_fetch_add(&cc->acks_due, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&c.all.acks_due, 1, __ATOMIC_RELAXED);
}

/* A piece function for pg_ds_walk: packs and sums the packed bytes into *(uint32_t *)arg. */
static void pack_summing(char *region, char *packed, size_t n, void *arg)
{
    memcpy(packed, region, n);
    *(uint32_t *)arg = pg_ds_sum_payload(*(uint32_t *)arg, packed, n);
}

/* Puts, accumulates and broadcasts' chunks: every chunk is one message, acknowledged on its
 * own. A contiguous one may carry a descriptor of `extra` bytes (a broadcast's). */
static void send_shaped(struct pg_pipe_completion *cc, int pe, struct pg_ds_header *proto,
                        const void *src, const struct pg_strided *shape, const void *extra,
                        size_t extra_bytes)
{
    size_t total = shape_bytes(shape);
    int node = pg_world.node_of[pe];
    lock_for_request();
    for (size_t position = 0; position < total;) {
        size_t n = total - position < c.chunk ? total - position : c.chunk;
        struct pg_ds_header h = *proto;
        uint64_t desc[2 + 2 * PG_MAX_STRIDE];
        size_t desc_bytes = 0;
        if (shape->levels) {
            h.layout = PG_DS_STRIDED;
            desc_bytes = write_strided(desc, shape, shape->dst_stride);
        } else if (extra_bytes) {
            memcpy(desc, extra, extra_bytes);
            desc_bytes = extra_bytes;
        }
        struct block *b = take_block(node, sizeof h + desc_bytes + n, &h.credit);
        h.position = position;
        h.length = n;
        h.cookie = (uint64_t)(uintptr_t)cc;
        if (position + n == total) /* the operation completes with its last chunk */
            h.flags = counted_flag(cc && cc->counted);
        memcpy(b->data + sizeof h, desc, desc_bytes);
        /* With checksums the data is summed as it is packed, while it is in cache. */
        uint32_t crc = pg_cfg.checksum ? pg_ds_sum_payload(0, desc, desc_bytes) : 0;
        pg_ds_walk((char *)src, shape->levels, shape->count, shape->src_stride, position, n,
                   b->data + sizeof h + desc_bytes,
                   pg_cfg.checksum ? pack_summing : pg_ds_pack_piece, &crc);
        h.seq = c.next_seq++;
        count_ack_due(cc);
        send_block_summed(pe, b, &h, sizeof h + desc_bytes + n, crc);
        position += n;
    }
    pthread_mutex_unlock(&c.lock);
}

static void request_windows(struct pg_pipe_completion *cc, struct call *call, int counted, int pe,
                            int seg, size_t offset, void *dest, const struct pg_strided *shape);
static int get_done(const void *arg);

/* A region's `registered` once fetched: bit 0 as its server set it, and this bit. */
#define REGION_FETCHED 2

/* Fetches `count` regions of pe from the table in its internal area, from part id on. */
static void fetch_regions(int pe, int id, struct pg_ds_region *r, int count)
{
    struct pg_strided all = {.count = {(size_t)count * sizeof *r}};
    struct call call = {.remaining = all.count[0]};
    request_windows(NULL, &call, 0, pe, PG_SEG_HEAP, c.regions_offset + (size_t)id * sizeof *r, r,
                    &all);
    wait_until(get_done, &call);
    for (int i = 0; i < count; i++)
        r[i].registered |= REGION_FETCHED;
}

/* The direct RMA target of part id (pg_mem_part) of pe's segments: on the first direct
 * transfer to pe (or into that grown part of its heap), fetched from pe's internal area, where
 * its node's server left it. Lock held. */
static const struct pg_ds_region *region_of(int pe, int id)
{
    int node = pg_world.node_of[pe];
    struct link *l = &c.links[node];
    size_t local = (size_t)pg_world.local_of[pe];
    if (id < PG_SEG_COUNT) {
        if (!l->regions &&
            !(l->regions = calloc((size_t)c.node_size[node] * PG_SEG_COUNT, sizeof *l->regions)))
            pg_fatal("remote access", "out of memory");
        struct pg_ds_region *r = &l->regions[local * PG_SEG_COUNT];
        if (!(r->registered & REGION_FETCHED))
            fetch_regions(pe, 0, r, PG_SEG_COUNT);
        return &r[id];
    }
    if (!l->grown &&
        !(l->grown = calloc((size_t)c.node_size[node] * PG_HEAP_GROWTHS, sizeof *l->grown)))
        pg_fatal("remote access", "out of memory");
    struct pg_ds_region *r = &l->grown[local * PG_HEAP_GROWTHS + (size_t)(id - PG_SEG_COUNT)];
    if (!(r->registered & REGION_FETCHED))
        fetch_regions(pe, id, r, 1);
    return r;
}

/* Every part of a segment is registered when its first is: asking the first is enough. The
 * parts tile the segment from its start; beyond them (a PE's own area) only the server goes. */
static int direct_worthwhile(int counted, int pe, int seg, size_t offset,
                             const struct pg_strided *shape)
{
    size_t start;
    /* With checksums everything goes as messages, which carry them; so do counted operations,
     * which the target's server counts. */
    if (counted || shape->levels || !pg_cfg.direct_rma_threshold || pg_cfg.checksum ||
        shape->count[0] < (size_t)pg_cfg.direct_rma_threshold ||
        pg_mem_part_of(seg, offset + shape->count[0] - 1, 1, &start) < 0)
        return 0;
    lock_for_request();
    int registered = region_of(pe, seg)->registered & 1;
    pthread_mutex_unlock(&c.lock);
    return registered;
}

static int node_drained(const void *arg)
{
    return c.links[*(const int *)arg].requests == 0;
}

static int rma_done(const void *arg)
{
    return ((const struct rma_call *)arg)->outstanding == 0;
}

/* The descriptor of a local buffer for an RMA: my registered segments cover symmetric
 * buffers; any other is registered for this call (*temporary, closed by the caller). */
static void *local_desc(void *buf, size_t len, struct pg_net_mr **temporary)
{
    *temporary = NULL;
    if (!pg_net_local_mr())
        return NULL;
    size_t offset, start;
    int seg = pg_mem_locate(buf, len, &offset);
    int id = seg < 0 ? -1 : pg_mem_part_of(seg, offset, len, &start);
    if (id >= 0 && c.own_mr[id])
        return pg_net_mr_desc(c.own_mr[id]);
    *temporary = pg_net_mr_reg(c.ep, buf, len, FI_READ | FI_WRITE);
    return pg_net_mr_desc(*temporary);
}

/* One contiguous transfer straight between buf and the target's memory; returns when it is
 * complete at both ends. It waits first for this PE's requests to the node, so operations
 * to one PE apply in issue order whichever path they take. */
static void direct(int write, int pe, int seg, size_t offset, void *buf, size_t len)
{
    int node = pg_world.node_of[pe];
    lock_for_request();
    /* The target's regions first: fetching one is a request to the node. */
    for (size_t at = offset, start; at < offset + len;) {
        int id = pg_mem_part_of(seg, at, 1, &start);
        size_t part_len;
        int part_seg;
        pg_mem_part(id, &part_seg, &start, &part_len);
        region_of(pe, id);
        at = start + part_len;
    }
    flush_batch(node);
    if (!node_drained(&node))
        wait_until(node_drained, &node);
    struct pg_net_mr *temporary;
    void *desc = local_desc(buf, len, &temporary);
    struct rma_call call = {.outstanding = 0};
    size_t piece = pg_net_max_msg();
    /* One operation per provider-sized piece, none across a part of the target (each is a
     * registration of its own). */
    for (size_t done = 0, n; done < len; done += n) {
        size_t start, part_len;
        int part_seg, id = pg_mem_part_of(seg, offset + done, 1, &start);
        pg_mem_part(id, &part_seg, &start, &part_len);
        const struct pg_ds_region *r = region_of(pe, id);
        n = len - done < piece ? len - done : piece;
        if (n > start + part_len - (offset + done))
            n = start + part_len - (offset + done);
        call.outstanding++;
        pg_net_rma(c.ep, write, c.links[node].server, (char *)buf + done, n, desc,
                   r->base + (offset + done - start), r->key, &call.ctx);
    }
    wait_until(rma_done, &call);
    pthread_mutex_unlock(&c.lock);
    pg_net_mr_close(temporary);
}

/* Adds a small put to its node's batch, sending the batch first when the put does not fit or
 * belongs to another completion record. */
static void batch_put(struct pg_pipe_completion *cc, int pe, int seg, size_t offset,
                      const void *src, size_t n)
{
    int node = pg_world.node_of[pe];
    struct batch *b = &c.batches[node];
    size_t need = pg_ds_record_bytes(n);
    lock_for_request();
    while (b->sending || (b->used && (b->cc != cc || b->used + need > c.batch_bytes)))
        flush_batch(node);
    if (!b->used && c.nopen >= BATCHES_KEPT)
        flush_batch(c.open_batches[0]);
    if (b->used + need > b->capacity) {
        c.batch_buffers += b->capacity == 0;
        size_t capacity = b->capacity ? b->capacity : 1024;
        while (capacity < b->used + need)
            capacity *= 2;
        capacity = capacity < c.batch_bytes ? capacity : c.batch_bytes;
        char *records = realloc(b->records, capacity);
        if (!records)
            pg_fatal("put", "out of memory for a batch of small puts");
        b->records = records;
        b->capacity = capacity;
    }
    if (!b->used) {
        b->cc = cc;
        count_ack_due(cc);
        c.open_batches[c.nopen++] = node;
    }
    struct pg_ds_record r = {
        .offset = offset, .target = (uint32_t)pe, .length = (uint16_t)n, .segment = (uint8_t)seg};
    memcpy(b->records + b->used, &r, sizeof r);
    memcpy(b->records + b->used + sizeof r, src, n);
    b->used += need;
    pthread_mutex_unlock(&c.lock);
}

void pg_pipe_put(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, const void *src,
                 const struct pg_strided *shape)
{
    if (direct_worthwhile(cc && cc->counted, pe, seg, offset, shape)) {
        direct(1, pe, seg, offset, (void *)src, shape->count[0]);
        return;
    }
    struct pg_ds_header h = {.type = PG_DS_PUT, .segment = (uint8_t)seg, .offset = offset};
    send_shaped(cc, pe, &h, src, shape, NULL, 0);
}

void pg_pipe_put_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, const void *src,
                     size_t len)
{
    if (len <= UINT16_MAX && pg_ds_record_bytes(len) <= c.batch_bytes / BATCH_SHARE) {
        batch_put(cc, pe, seg, offset, src, len);
        return;
    }
    struct pg_strided contiguous = {.count = {len}};
    pg_pipe_put(cc, pe, seg, offset, src, &contiguous);
}

void pg_pipe_acc(struct pg_pipe_completion *cc, int pe, int seg, size_t offset,
                 enum pg_acc_type type, const void *scale, const void *src,
                 const struct pg_strided *shape)
{
    struct pg_ds_header h = {
        .type = PG_DS_ACC, .segment = (uint8_t)seg, .op = (uint8_t)type, .offset = offset};
    memcpy(h.scale, scale, pg_acc_type_size(type));
    send_shaped(cc, pe, &h, src, shape, NULL, 0);
}

void pg_pipe_forward(int pe, int seg, size_t offset, const void *src, size_t len,
                     const struct pg_ds_forward *f)
{
    _Static_assert(sizeof *f <= 8 * (2 + 2 * PG_MAX_STRIDE), "a strided descriptor's room");
    struct pg_ds_header h = {.type = PG_DS_FORWARD, .segment = (uint8_t)seg, .offset = offset};
    struct pg_strided contiguous = {.count = {len}};
    send_shaped(NULL, pe, &h, src, &contiguous, f, sizeof *f);
}

void pg_pipe_arrived(int pe, const struct pg_ds_forward *f)
{
    struct pg_ds_header h = {.type = PG_DS_ARRIVED};
    lock_for_request();
    struct block *b = take_block(pg_world.node_of[pe], sizeof h + sizeof *f, &h.credit);
    memcpy(b->data + sizeof h, f, sizeof *f);
    h.seq = c.next_seq++;
    count_ack_due(NULL);
    send_block_summed(pe, b, &h, sizeof h + sizeof *f,
                      pg_cfg.checksum ? pg_ds_sum_payload(0, f, sizeof *f) : 0);
    pthread_mutex_unlock(&c.lock);
}

int pg_pipe_forwarding(void)
{
    return c.ep && !c.closed && !c.reliable;
}

static int pending_free(const void *arg)
{
    return !((const struct pending *)arg)->active;
}

/* Numbers a request that awaits replies and reserves its pending slot. Lock held. */
static struct pending *take_pending(struct call *call)
{
    uint64_t seq = c.next_seq++;
    struct pending *p = &c.pending[seq % PENDING_SLOTS];
    if (p->active)
        wait_until(pending_free, p);
    *p = (struct pending){.seq = seq, .active = 1, .call = call};
    return p;
}

static int window_open(const void *arg)
{
    return c.get_in_flight + *(const size_t *)arg <= 2 * c.window;
}

static int get_done(const void *arg)
{
    return ((const struct call *)arg)->remaining == 0;
}

/* Sends the get request of pending p for `n` bytes with the descriptor desc. */
static void request_get(int pe, struct pending *p, struct pg_ds_header *h, const uint64_t *desc,
                        size_t desc_bytes, size_t n)
{
    if (!window_open(&n))
        wait_until(window_open, &n);
    struct block *b = take_block(pg_world.node_of[pe], sizeof *h + desc_bytes, &h->credit);
    h->seq = p->seq;
    h->length = n;
    if (desc_bytes)
        memcpy(b->data + sizeof *h, desc, desc_bytes);
    c.get_in_flight += n;
    send_block(pe, b, h, sizeof *h + desc_bytes);
}

/* Sends a get's requests, one per window: for a call that waits for them, or with call NULL
 * counted in cc and completed by the replies alone (contiguous only: the shape is not kept);
 * with `counted`, the last window counts the get at its target. Lock held. */
static void request_windows(struct pg_pipe_completion *cc, struct call *call, int counted, int pe,
                            int seg, size_t offset, void *dest, const struct pg_strided *shape)
{
    size_t total = shape_bytes(shape);
    uint64_t desc[2 + 2 * PG_MAX_STRIDE];
    size_t desc_bytes = shape->levels ? write_strided(desc, shape, shape->src_stride) : 0;
    for (size_t position = 0; position < total;) {
        size_t n = total - position < c.window ? total - position : c.window;
        struct pg_ds_header h = {.type = PG_DS_GET,
                                 .segment = (uint8_t)seg,
                                 .layout = shape->levels ? PG_DS_STRIDED : PG_DS_CONTIG,
                                 .flags = counted_flag(counted && position + n == total),
                                 .offset = offset,
                                 .position = position,
                                 .cookie = (uint64_t)(uintptr_t)cc};
        struct pending *p = take_pending(call);
        p->base = dest;
        p->shape = call ? shape : NULL;
        p->remaining = n;
        if (!call)
            count_ack_due(cc);
        request_get(pe, p, &h, desc, desc_bytes, n);
        position += n;
    }
}

void pg_pipe_get_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, void *dest,
                     size_t len)
{
    struct pg_strided contiguous = {.count = {len}};
    if (direct_worthwhile(cc && cc->counted, pe, seg, offset, &contiguous)) {
        direct(0, pe, seg, offset, dest, len);
        return;
    }
    lock_for_request();
    request_windows(cc, NULL, cc && cc->counted, pe, seg, offset, dest, &contiguous);
    pthread_mutex_unlock(&c.lock);
}

void pg_pipe_get(int counted, int pe, int seg, size_t offset, void *dest,
                 const struct pg_strided *shape)
{
    if (direct_worthwhile(counted, pe, seg, offset, shape)) {
        direct(0, pe, seg, offset, dest, shape->count[0]);
        return;
    }
    struct call call = {.remaining = shape_bytes(shape)};
    lock_for_request();
    request_windows(NULL, &call, counted, pe, seg, offset, dest, shape);
    wait_until(get_done, &call);
    pthread_mutex_unlock(&c.lock);
}

/* Pieces per vector message: whole pieces with their offsets within one chunk. */
#define VECTOR_BATCH_MAX 1024
static size_t vector_batch(size_t bytes, size_t chunk)
{
    size_t k = (chunk - 16) / (bytes + 8);
    return k < VECTOR_BATCH_MAX ? k : VECTOR_BATCH_MAX;
}

static void send_vector(struct pg_pipe_completion *cc, int pe, struct pg_ds_header *proto,
                        const uint64_t *remote, void *const *local, size_t count, size_t bytes)
{
    size_t batch = vector_batch(bytes, c.chunk);
    int node = pg_world.node_of[pe];
    lock_for_request();
    for (size_t first = 0; first < count;) {
        size_t k = count - first < batch ? count - first : batch;
        size_t desc_bytes = 8 * (2 + k), n = k * bytes;
        struct pg_ds_header h = *proto;
        struct block *b = take_block(node, sizeof h + desc_bytes + n, &h.credit);
        h.layout = PG_DS_VECTOR;
        h.flags = counted_flag(cc && cc->counted);
        h.length = n;
        h.cookie = (uint64_t)(uintptr_t)cc;
        uint64_t *desc = (uint64_t *)(b->data + sizeof h);
        desc[0] = k;
        desc[1] = bytes;
        memcpy(desc + 2, remote + first, 8 * k);
        char *data = b->data + sizeof h + desc_bytes;
        for (size_t i = 0; i < k; i++)
            memcpy(data + i * bytes, local[first + i], bytes);
        h.seq = c.next_seq++;
        count_ack_due(cc);
        send_block(pe, b, &h, sizeof h + desc_bytes + n);
        first += k;
    }
    pthread_mutex_unlock(&c.lock);
}

/* Vectors of pieces too large to batch go piece by piece as contiguous transfers. */
static int batchable(size_t bytes)
{
    return vector_batch(bytes, c.chunk) >= 2;
}

void pg_pipe_put_vector(struct pg_pipe_completion *cc, int pe, int seg, const uint64_t *remote,
                        void *const *local, size_t count, size_t bytes)
{
    struct pg_ds_header h = {.type = PG_DS_PUT, .segment = (uint8_t)seg};
    if (batchable(bytes)) {
        send_vector(cc, pe, &h, remote, local, count, bytes);
        return;
    }
    struct pg_strided piece = {.count = {bytes}};
    for (size_t i = 0; i < count; i++)
        pg_pipe_put(cc, pe, seg, remote[i], local[i], &piece);
}

void pg_pipe_acc_vector(struct pg_pipe_completion *cc, int pe, int seg, const uint64_t *remote,
                        void *const *local, size_t count, size_t bytes, enum pg_acc_type type,
                        const void *scale)
{
    struct pg_ds_header h = {.type = PG_DS_ACC, .segment = (uint8_t)seg, .op = (uint8_t)type};
    memcpy(h.scale, scale, pg_acc_type_size(type));
    if (batchable(bytes)) {
        send_vector(cc, pe, &h, remote, local, count, bytes);
        return;
    }
    struct pg_strided piece = {.count = {bytes}};
    for (size_t i = 0; i < count; i++)
        pg_pipe_acc(cc, pe, seg, remote[i], type, scale, local[i], &piece);
}

void pg_pipe_get_vector(int counted, int pe, int seg, const uint64_t *remote, void *const *local,
                        size_t count, size_t bytes)
{
    if (!batchable(bytes)) {
        struct pg_strided piece = {.count = {bytes}};
        for (size_t i = 0; i < count; i++)
            pg_pipe_get(counted, pe, seg, remote[i], local[i], &piece);
        return;
    }
    size_t batch = vector_batch(bytes, c.chunk);
    uint64_t desc[2 + VECTOR_BATCH_MAX];
    struct call call = {.remaining = count * bytes};
    lock_for_request();
    for (size_t first = 0; first < count;) {
        size_t k = count - first < batch ? count - first : batch;
        struct pg_ds_header h = {.type = PG_DS_GET,
                                 .segment = (uint8_t)seg,
                                 .layout = PG_DS_VECTOR,
                                 .flags = counted_flag(counted)};
        desc[0] = k;
        desc[1] = bytes;
        memcpy(desc + 2, remote + first, 8 * k);
        struct pending *p = take_pending(&call);
        p->pieces = local + first;
        p->piece_bytes = bytes;
        p->remaining = k * bytes;
        request_get(pe, p, &h, desc, 8 * (2 + k), k * bytes);
        first += k;
    }
    wait_until(get_done, &call);
    pthread_mutex_unlock(&c.lock);
}

static int amo_done(const void *arg)
{
    return ((const struct call *)arg)->done;
}

/* Sends an AMO request; a fetching one is numbered by the caller's pending slot. Lock held. */
static void send_amo(int counted, int pe, int seg, size_t offset, int op, size_t width,
                     uint64_t value, uint64_t compare, struct pg_pipe_completion *cc,
                     struct pending *p)
{
    struct pg_ds_header h = {.type = PG_DS_AMO,
                             .segment = (uint8_t)seg,
                             .op = (uint8_t)op,
                             .width = (uint8_t)width,
                             .fetch = p != NULL,
                             .flags = counted_flag(counted),
                             .offset = offset,
                             .length = width,
                             .cookie = (uint64_t)(uintptr_t)cc,
                             .operand = value,
                             .compare = compare};
    struct block *b = take_block(pg_world.node_of[pe], sizeof h, &h.credit);
    h.seq = p ? p->seq : c.next_seq++;
    send_block(pe, b, &h, sizeof h);
}

uint64_t pg_pipe_amo(int counted, int pe, int seg, size_t offset, int op, size_t width,
                     uint64_t value, uint64_t compare)
{
    struct call call = {0};
    lock_for_request();
    send_amo(counted, pe, seg, offset, op, width, value, compare, NULL, take_pending(&call));
    wait_until(amo_done, &call);
    pthread_mutex_unlock(&c.lock);
    return call.result;
}

void pg_pipe_amo_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, int op,
                     size_t width, uint64_t value, uint64_t compare, void *fetch)
{
    lock_for_request();
    struct pending *p = NULL;
    if (fetch) {
        p = take_pending(NULL);
        p->base = fetch;
    }
    count_ack_due(cc);
    send_amo(cc && cc->counted, pe, seg, offset, op, width, value, compare, cc, p);
    pthread_mutex_unlock(&c.lock);
}

static int acknowledged(const void *arg)
{
    return __atomic_load_n(&((const struct pg_pipe_completion *)arg)->acks_due, __ATOMIC_RELAXED) ==
           0;
}

void pg_pipe_quiet(struct pg_pipe_completion *cc)
{
    if (!cc)
        cc = &c.all;
    if (__atomic_load_n(&cc->acks_due, __ATOMIC_ACQUIRE) == 0)
        return; /* nothing off-node outstanding: the common on-node case takes no lock */
    client_lock();
    flush_batches();
    wait_until(acknowledged, cc);
    pthread_mutex_unlock(&c.lock);
}

int pg_pipe_direct_signals(void)
{
    return c.ep && !c.reliable;
}

/* The slots of a table holding count PEs: a PE signals few others (its syncs' partners), so
 * the table grows with those, not with the job. */
static size_t peer_slots(size_t count)
{
    size_t slots = count ? PEER_SLOTS_MIN : 0;
    while (slots && slots < 2 * count)
        slots *= 2;
    return slots;
}

/* pe's slot: where it is, or the free slot where it goes. */
static struct peer_slot *peer_slot(const struct peer_table *t, int pe)
{
    size_t mask = t->capacity - 1;
    for (size_t i = (((size_t)pe * 0x9e3779b97f4a7c15ull) >> 32) & mask;; i = (i + 1) & mask)
        if (t->slots[i].pe_plus1 == pe + 1 || !t->slots[i].pe_plus1)
            return &t->slots[i];
}

static void peer_remember(int pe, fi_addr_t addr)
{
    struct peer_table *t = &c.peers;
    size_t capacity = peer_slots(t->count + 1);
    if (capacity != t->capacity) {
        struct peer_table grown = {.slots = calloc(capacity, sizeof *grown.slots),
                                   .capacity = capacity,
                                   .count = t->count};
        if (!grown.slots)
            pg_fatal("collective", "out of memory for the addresses of %zu PEs", capacity);
        for (size_t i = 0; i < t->capacity; i++)
            if (t->slots[i].pe_plus1)
                *peer_slot(&grown, t->slots[i].pe_plus1 - 1) = t->slots[i];
        free(t->slots);
        *t = grown;
    }
    *peer_slot(t, pe) = (struct peer_slot){.pe_plus1 = pe + 1, .addr = addr};
    t->count++;
}

/* pe's endpoint, fetched from its internal area on the first signal to it. Lock held. */
static fi_addr_t peer_address(int pe)
{
    if (c.peers.count) {
        struct peer_slot *known = peer_slot(&c.peers, pe);
        if (known->pe_plus1)
            return known->addr;
    }
    struct {
        uint64_t len;
        char name[PG_NET_ADDR_MAX];
    } theirs;
    struct pg_strided all = {.count = {sizeof theirs}};
    struct call call = {.remaining = sizeof theirs};
    request_windows(NULL, &call, 0, pe, PG_SEG_HEAP, c.name_offset, &theirs, &all);
    wait_until(get_done, &call);
    if (!theirs.len || theirs.len > PG_NET_ADDR_MAX)
        pg_fatal("collective", "PE %d has published no endpoint address", pe);
    fi_addr_t addr = pg_net_av_insert(c.ep, theirs.name);
    peer_remember(pe, addr);
    return addr;
}

void pg_pipe_signal(int pe, int seg, size_t offset, uint64_t value, int ordered)
{
    int node = pg_world.node_of[pe];
    lock_for_request();
    fi_addr_t to = peer_address(pe);
    if (ordered) {
        flush_batch(node);
        wait_until(node_drained, &node);
    }
    struct pg_ds_header h = {.version = PG_DS_PROTOCOL_VERSION,
                             .key = pg_world.job_key,
                             .type = PG_DS_SIGNAL,
                             .segment = (uint8_t)seg,
                             .width = sizeof(uint64_t),
                             .source = (uint32_t)pg_world.me,
                             .target = (uint32_t)pe,
                             .offset = offset,
                             .operand = value};
    size_t size = (sizeof(struct block) + sizeof h + BLOCK_ALIGN - 1) & ~(size_t)(BLOCK_ALIGN - 1);
    struct pg_waiter w = {0};
    struct block *b;
    while (!(b = carve(size))) {
        progress();
        pg_wait_yield(&w);
    }
    memcpy(b->data, &h, sizeof h);
    struct iovec iov = {b->data, sizeof h};
    void *desc = pg_net_mr_desc(c.region_mr);
    pg_net_sendv(c.ep, to, &iov, &desc, 1, &b->ctx);
    pthread_mutex_unlock(&c.lock);
}

/* A waiter for a direct signal (runtime.h, pg_waiter.net). */
static uint32_t signals_applied(void)
{
    return __atomic_load_n(&c.signals, __ATOMIC_SEQ_CST);
}

/* Sleeps on the completion queue unless a signal was applied since the waiter read *seq
 * (signals are applied under the lock, so one not applied yet is still to be read there);
 * with the lock taken, or another thread waiting for it, yields instead. */
static void sleep_for_signal(uint32_t *seq)
{
    if (pthread_mutex_trylock(&c.lock) != 0) {
        sched_yield();
        return;
    }
    if (c.signals == *seq && !__atomic_load_n(&c.lock_waiters, __ATOMIC_RELAXED))
        progress_for(REPLY_SLEEP_MS);
    *seq = signals_applied();
    pthread_mutex_unlock(&c.lock);
}

int pg_pipe_in_flight(struct pg_pipe_in_flight *f)
{
    *f = (struct pg_pipe_in_flight){.resent_node = -1};
    if (pthread_mutex_trylock(&c.lock) != 0)
        return 0;
    f->requests = __atomic_load_n(&c.all.acks_due, __ATOMIC_ACQUIRE) + (uint64_t)c.in_flight;
    uint64_t now = pg_now_ns();
    for (int node = 0; c.links && node < pg_world.nnodes; node++) {
        const struct link *l = &c.links[node];
        if (!l->sent || !l->requests)
            continue;
        for (uint16_t order = l->acked; order != l->order; order++) {
            const struct sent *r = sent_at(node, order);
            if (r->order != order || r->awaits == AWAITS_NOTHING || r->attempt + 1u <= f->sends ||
                !r->attempt)
                continue;
            f->resent_node = node;
            f->sends = r->attempt + 1u;
            f->silent_ns = now - l->heard_ns;
        }
    }
    pthread_mutex_unlock(&c.lock);
    return 1;
}

void pg_pipe_send_raw(int node, const void *bytes, size_t len)
{
    client_lock();
    if (len > pg_ds_max_message())
        len = pg_ds_max_message();
    uint32_t credit;
    struct block *b = take_block(node, len, &credit);
    /* A probe is answered (NACK) or not at all: its credit is not counted. */
    credit_back(node, credit, b->small);
    memcpy(b->data, bytes, len);
    struct iovec iov = {b->data, len};
    void *desc = pg_net_mr_desc(c.region_mr);
    pg_net_sendv(c.ep, c.links[node].server, &iov, &desc, 1, &b->ctx);
    pthread_mutex_unlock(&c.lock);
}

/* Driven from every wait loop: batched puts leave, replies are read and queued sends leave
 * even while a PE waits on its own memory (a barrier flag, wait_until), which another PE may
 * set only after seeing those puts. Skipped when another thread holds the lock.
 *
 * The PE may sleep once every request has left (the provider has completed every send) and
 * no get data is on its way: what may still come is small (acknowledgements, AMO results,
 * grants), waits in the socket and is read at the next call. Waiting for the
 * acknowledgements too kept a waiter polling and yielding for a round trip after each barrier
 * signal it sent. */
static int progress_while_waiting(void)
{
    if (pthread_mutex_trylock(&c.lock) != 0)
        return 0;
    flush_batches();
    progress();
    give_back_due();
    int idle = c.oldest == c.next && c.get_in_flight == 0;
    pthread_mutex_unlock(&c.lock);
    return idle;
}

struct pg_pipe_faults pg_pipe_faults(void)
{
    client_lock();
    struct pg_pipe_faults f = {.corrupt_replies = c.corrupt, .retransmissions = c.retransmissions};
    pthread_mutex_unlock(&c.lock);
    return f;
}

const void *pg_pipe_server_name(int node, size_t *bytes)
{
    *bytes = c.name_bytes;
    return c.server_names + (size_t)node * c.name_bytes;
}

unsigned long pg_pipe_probes_rejected(void)
{
    client_lock();
    progress();
    unsigned long n = c.probes_rejected;
    pthread_mutex_unlock(&c.lock);
    return n;
}

/* Each of the two reply buffers holds what may be in flight to me — get replies within two
 * windows, the small replies (acknowledgements, AMO values, NACKs, GRANTs of larger grants) of
 * every request in flight, a GRANT and a RECLAIM for each grant held — and one message more:
 * the one left unused when the other is used up (dataserver.h, "Credits", the same proof). */
static size_t reply_space(size_t window)
{
    size_t small = 2 * REQUESTS_IN_FLIGHT + 2 * PG_DS_GRANTS_HELD;
    return 2 * window + small * pg_ds_receive_bytes(sizeof(struct pg_ds_header)) +
           pg_ds_receive_bytes(pg_ds_max_message());
}

static size_t send_region_bytes(void)
{
    size_t message = sizeof(struct block) + pg_ds_max_message() + BLOCK_ALIGN;
    /* aligned_alloc wants a multiple of the alignment. */
    return ((size_t)pg_cfg.pipeline_buffers * message + BLOCK_ALIGN - 1) &
           ~(size_t)(BLOCK_ALIGN - 1);
}

static size_t window_bytes(size_t region_size, size_t chunk)
{
    return region_size / 2 > chunk ? region_size / 2 / chunk * chunk : chunk;
}

/* What one node costs this PE before it sends there: its link, batch and server's name. */
static size_t per_node_bytes(size_t name_bytes)
{
    return sizeof(struct link) + sizeof(struct batch) + sizeof *c.open_batches + name_bytes +
           sizeof *c.server_pe + sizeof *c.node_size;
}

/* Registers part id of my segments as local RMA buffers, when it exists and RMA is used. */
static void register_own_part(int id)
{
    int seg;
    size_t start, len;
    if (pg_net_has_rma() && pg_mem_part(id, &seg, &start, &len) == 0)
        c.own_mr[id] = pg_net_mr_reg(c.ep, pg_segments[seg].base + start, len, FI_READ | FI_WRITE);
}

void pipe_client_heap_grown(void)
{
    client_lock();
    if (pg_net_local_mr())
        register_own_part(pg_mem_newest_part());
    pthread_mutex_unlock(&c.lock);
}

/* With retransmission on, requests must go again even while the PE is outside the library —
 * computing, or blocked in an MPI call that waits for a PE whose request of mine was lost: a
 * thread of the PE's own looks every RESEND_PERIOD_MS while requests are in flight (and
 * sleeps longer when none are), taking the client's lock only when it is free. */
#define RESEND_PERIOD_MS 2
#define RESEND_IDLE_MS 20
static void *resender_main(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&c.resender_stop, __ATOMIC_ACQUIRE)) {
        int busy = 0;
        if (pthread_mutex_trylock(&c.lock) == 0) {
            if (c.reliable && c.in_flight > 0) {
                progress();
                busy = 1;
            }
            pthread_mutex_unlock(&c.lock);
        }
        struct timespec pause = {0, (busy ? RESEND_PERIOD_MS : RESEND_IDLE_MS) * 1000000L};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void start_resender(void)
{
    c.resender_stop = 0;
    if (pthread_create(&c.resender, NULL, resender_main, NULL) != 0)
        pg_fatal("shmem_init", "cannot start the retransmission thread");
    pthread_setname_np(c.resender, "pangea-resend");
    c.resender_running = 1;
}

static void stop_resender(void)
{
    if (!c.resender_running)
        return;
    __atomic_store_n(&c.resender_stop, 1, __ATOMIC_RELEASE);
    pthread_join(c.resender, NULL);
    c.resender_running = 0;
}

void pipe_client_open(const char (*server_names)[PG_NET_ADDR_MAX], size_t name_bytes,
                      size_t regions_offset, size_t name_offset)
{
    int nnodes = pg_world.nnodes;
    c.chunk = pg_ds_chunk_bytes();
    c.region_size = send_region_bytes();
    c.window = window_bytes(c.region_size, c.chunk);
    c.ep = pg_net_ep_open("client", pg_ds_max_message());
    c.name_len = pg_net_ep_name(c.ep, c.name);
    if (!c.name_len)
        pg_fatal("shmem_init", "endpoint address longer than %d bytes", PG_NET_ADDR_MAX);
    c.region = aligned_alloc(BLOCK_ALIGN, c.region_size);
    c.pending = calloc(PENDING_SLOTS, sizeof *c.pending);
    c.links = calloc((size_t)nnodes, sizeof *c.links);
    c.batches = calloc((size_t)nnodes, sizeof *c.batches);
    c.open_batches = calloc((size_t)nnodes, sizeof *c.open_batches);
    c.name_bytes = name_bytes;
    c.server_names = malloc((size_t)nnodes * name_bytes);
    c.server_pe = malloc((size_t)nnodes * sizeof *c.server_pe);
    c.node_size = calloc((size_t)nnodes, sizeof *c.node_size);
    if (!c.region || !c.pending || !c.links || !c.batches || !c.open_batches || !c.server_names ||
        !c.server_pe || !c.node_size)
        pg_fatal("shmem_init", "out of memory for the network client");
    for (int node = 0; node < nnodes; node++)
        memcpy(c.server_names + (size_t)node * name_bytes, server_names[node], name_bytes);
    for (int pe = pg_world.npes - 1; pe >= 0; pe--) {
        c.node_size[pg_world.node_of[pe]]++;
        if (pg_world.local_of[pe] == 0)
            c.server_pe[pg_world.node_of[pe]] = pe;
    }
    c.regions_offset = regions_offset;
    c.name_offset = name_offset;
    char *name = pg_mem_record_mine(name_offset);
    *(uint64_t *)name = c.name_len;
    memcpy(name + sizeof(uint64_t), c.name, c.name_len);
    c.nopen = 0;
    c.batch_bytes = (size_t)pg_cfg.put_batch < c.chunk ? (size_t)pg_cfg.put_batch : c.chunk;
    memset(c.region, 0, c.region_size);
    if (pg_net_local_mr()) {
        c.region_mr = pg_net_mr_reg(c.ep, c.region, c.region_size, FI_SEND);
        for (int id = 0; id < PG_MEM_PARTS; id++)
            register_own_part(id);
    }
    for (int i = 0; i < 2; i++)
        pg_ds_recv_open(c.ep, &c.recv[i], reply_space(c.window));
    c.next_seq = 0;
    c.all.acks_due = 0;
    c.oldest = c.next = 0;
    c.wrap_at = c.region_size;
    c.get_in_flight = 0;
    c.in_flight = c.grants = c.ndue = c.batch_buffers = 0;
    c.reliable = pg_ds_reliable();
    c.closed = 0;
    c.next_scan_ns = 0;
    pg_wait_progress = progress_while_waiting;
    if (!c.reliable) {
        pg_wait_net_seq = signals_applied;
        pg_wait_net_sleep = sleep_for_signal;
    }
    if (c.reliable)
        start_resender();
}

struct pg_net_ep *pg_pipe_ep(void)
{
    return c.ep;
}

static int region_idle(const void *arg)
{
    (void)arg;
    return c.oldest == c.next;
}

static int all_closed(const void *arg)
{
    (void)arg;
    return c.in_flight == 0 && c.oldest == c.next;
}

/* Without retransmission a message goes once, and a request is done when its reply has come:
 * once my HELLOs and RELEASEs are done too, nothing is on its way between me and a server, and
 * the round trip of a CLOSE is spared. */
void pipe_client_closing(void)
{
    client_lock();
    flush_batches();
    for (int node = 0; c.reliable && node < pg_world.nnodes; node++)
        if (c.links[node].state != LINK_NEW)
            send_close(node);
    wait_until(all_closed, NULL);
    c.closed = 1;
    pthread_mutex_unlock(&c.lock);
    stop_resender();
}

void pipe_client_close(void)
{
    stop_resender();
    pg_wait_progress = NULL;
    pg_wait_net_seq = NULL;
    pg_wait_net_sleep = NULL;
    client_lock();
    /* What was sent after the closing handshake (a host PE's HELLO to its own node's server,
     * before the STOP) is not sent again: only the sends in the provider are waited for. */
    for (int node = 0; c.reliable && node < pg_world.nnodes; node++) {
        for (int i = 0; c.links[node].sent && i < SENT_SLOTS; i++) {
            struct sent *r = &c.links[node].sent[i];
            if (r->block)
                r->block->kept = 0;
            r->block = NULL;
        }
    }
    region_advance();
    wait_until(region_idle, NULL); /* the last sends finish before their blocks go */
    pthread_mutex_unlock(&c.lock);
    for (int i = 0; i < 2; i++)
        pg_ds_recv_close(&c.recv[i]);
    pg_net_mr_close(c.region_mr);
    for (int id = 0; id < PG_MEM_PARTS; id++)
        pg_net_mr_close(c.own_mr[id]);
    pg_net_ep_close(c.ep);
    free(c.region);
    free(c.pending);
    for (int node = 0; node < pg_world.nnodes; node++) {
        free(c.batches[node].records);
        free(c.links[node].sent);
        free(c.links[node].regions);
        free(c.links[node].grown);
    }
    free(c.links);
    free(c.batches);
    free(c.open_batches);
    free(c.server_names);
    pg_ds_bounce_free(&c.bounce);
    free(c.server_pe);
    free(c.node_size);
    free(c.peers.slots);
    c.peers = (struct peer_table){0};
    c.ep = NULL;
    c.links = NULL; /* closed: lock_for_request tells a request so */
    c.region_mr = NULL;
    memset(c.own_mr, 0, sizeof c.own_mr);
}

static size_t regions_bytes(const struct pg_pipe_counts *n)
{
    return (n->region_pes * PG_SEG_COUNT + n->grown_pes * PG_HEAP_GROWTHS) *
           sizeof(struct pg_ds_region);
}

struct pg_pipe_counts pg_pipe_memory(struct pg_pipe_bytes *bytes)
{
    client_lock();
    struct pg_pipe_counts n = {.npes = (size_t)pg_world.npes,
                               .nnodes = (size_t)pg_world.nnodes,
                               .name_bytes = c.name_bytes,
                               .signalled = c.peers.count};
    for (int node = 0; node < pg_world.nnodes; node++) {
        n.contacted += c.links[node].sent != NULL;
        n.batch_bytes += c.batches[node].capacity;
        n.region_pes += c.links[node].regions ? (size_t)c.node_size[node] : 0;
        n.grown_pes += c.links[node].grown ? (size_t)c.node_size[node] : 0;
    }
    *bytes = (struct pg_pipe_bytes){
        .send_region = c.region_size,
        .replies = c.recv[0].size + c.recv[1].size,
        .pending = PENDING_SLOTS * sizeof *c.pending,
        .links = (size_t)pg_world.nnodes * per_node_bytes(c.name_bytes),
        .sent = n.contacted * SENT_SLOTS * sizeof(struct sent),
        .batches = n.batch_bytes,
        .regions = regions_bytes(&n),
        .peers = c.peers.capacity * sizeof *c.peers.slots,
    };
    pthread_mutex_unlock(&c.lock);
    bytes->total = bytes->send_region + bytes->replies + bytes->pending + bytes->links +
                   bytes->sent + bytes->batches + bytes->regions + bytes->peers;
    return n;
}

struct pg_pipe_bytes pg_pipe_model(const struct pg_pipe_counts *n)
{
    size_t region = send_region_bytes();
    struct pg_pipe_bytes b = {
        .send_region = region,
        .replies = 2 * reply_space(window_bytes(region, pg_ds_chunk_bytes())),
        .pending = PENDING_SLOTS * sizeof(struct pending),
        .links = n->nnodes * per_node_bytes(n->name_bytes),
        .sent = n->contacted * SENT_SLOTS * sizeof(struct sent),
        .batches = n->batch_bytes,
        .regions = regions_bytes(n),
        .peers = peer_slots(n->signalled) * sizeof(struct peer_slot),
    };
    b.total =
        b.send_region + b.replies + b.pending + b.links + b.sent + b.batches + b.regions + b.peers;
    return b;
}

/* The node leaders a leader signals in a sync over all PEs without switches (a dissemination
 * among the leaders: one per round). Teams of other shapes add theirs when they sync. */
static size_t sync_partners(size_t nnodes)
{
    size_t rounds = 0;
    for (size_t d = 1; d < nnodes; d <<= 1)
        rounds++;
    return rounds;
}

struct pg_pipe_counts pg_pipe_worst(size_t npes, size_t pes_per_node)
{
    size_t nnodes = (npes + pes_per_node - 1) / pes_per_node;
    size_t batch = (size_t)pg_cfg.put_batch < pg_ds_chunk_bytes() ? (size_t)pg_cfg.put_batch
                                                                  : pg_ds_chunk_bytes();
    /* Records are kept for the nodes with a grant or a request in flight; batch buffers for
     * the nodes with a batch open, and a few more. */
    size_t in_use = PG_DS_GRANTS_HELD + REQUESTS_IN_FLIGHT;
    size_t batches = BATCHES_KEPT + 1;
    return (struct pg_pipe_counts){.npes = npes,
                                   .nnodes = nnodes,
                                   .contacted = nnodes < in_use ? nnodes : in_use,
                                   .batch_bytes = (nnodes < batches ? nnodes : batches) * batch,
                                   .region_pes = pg_cfg.direct_rma_threshold ? npes : 0,
                                   .name_bytes = PG_NET_ADDR_MAX,
                                   .signalled = sync_partners(nnodes)};
}
