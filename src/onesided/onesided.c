#include "onesided.h"

#include "pipeline/pipeline.h"
#include "memory/memory.h"
#include "prof/prof.h"
#include "runtime/runtime.h"

#include <string.h>

/* The off-node path: where the object lies, for a request to pe's data server. */
static int locate(const void *addr, size_t len, int pe, size_t *offset, const char *call)
{
    if ((unsigned)pe >= (unsigned)pg_world.npes)
        pg_fatal(call, "PE %d is out of range [0, %d)", pe, pg_world.npes);
    int seg = pg_mem_locate(addr, len ? len : 1, offset);
    if (seg < 0)
        pg_fatal(call, "address %p (%zu bytes) on PE %d is not symmetric memory", addr, len, pe);
    return seg;
}

static struct pg_pipe_completion *completion(struct pangea_ctx *ctx)
{
    return ctx ? &ctx->completion : NULL;
}

/* Small copies as plain moves: a call to memcpy costs more than the copy. */
static inline void copy_bytes(char *to, const char *from, size_t len)
{
    switch (len) {
    case 1:
        *to = *from;
        break;
    case 2:
        __builtin_memcpy(to, from, 2);
        break;
    case 4:
        __builtin_memcpy(to, from, 4);
        break;
    case 8:
        __builtin_memcpy(to, from, 8);
        break;
    case 16:
        __builtin_memcpy(to, from, 16);
        break;
    default:
        memcpy(to, from, len);
    }
}

static inline void add_one(const struct pangea_ctx *ctx, uint64_t *counter)
{
    if (ctx->counting == PG_COUNT_THREADS)
        __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
    else /* atomic load and store: readers on other threads see whole values */
        __atomic_store_n(counter, __atomic_load_n(counter, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void pg_ctx_target_done(int pe, uint64_t operations)
{
    if (pe != pg_world.me)
        pg_target_count_add(pe, operations);
}

/* One operation more in *issued, and in *pending when it completes only at the next quiet; one
 * done on-node (on_node_pe >= 0) completes within the call, and counts at its target at once
 * (counted as it starts, in the branch that is there anyway). */
static inline void count(const struct pangea_ctx *ctx, uint64_t *issued, uint64_t *pending,
                         int completes_later, int on_node_pe)
{
    if (ctx->counting == PG_COUNT_OFF)
        return;
    add_one(ctx, issued);
    if (completes_later)
        add_one(ctx, pending);
    if (on_node_pe >= 0)
        pg_ctx_target_done(on_node_pe, 1);
}
#define COUNT_PUT(ctx, later, pe) \
    count(ctx, &(ctx)->counts.puts, &(ctx)->counts.pending_puts, later, pe)
#define COUNT_GET(ctx, later, pe) \
    count(ctx, &(ctx)->counts.gets, &(ctx)->counts.pending_gets, later, pe)
/* The on-node operations that count at their target and are not puts or gets. */
#define COUNT_TARGET(ctx, pe, operations)       \
    do {                                        \
        if ((ctx)->counting != PG_COUNT_OFF)    \
            pg_ctx_target_done(pe, operations); \
    } while (0)

/* How a contiguous transfer goes: NBI, and PROFILED, an operation of its own in the profile
 * (not a piece of a vector). put/get_contiguous are inlined into each caller, so that `how` is
 * a constant there and the profile's test is the one branch of pg_prof_op. Every operation is
 * counted once pe is known to be a PE of the job (the counters are indexed by it): on the node
 * once pg_mem_peer_ptr found it, off the node once locate accepted it. */
enum { NBI = 1, PROFILED = 2 };

/* An off-node put leaves at once, or with NBI may wait in its node's batch of small puts. */
static inline __attribute__((always_inline)) void
put_contiguous(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe, int how)
{
    if (len == 0)
        return;
    int nbi = how & NBI;
    char *to = pg_mem_peer_ptr(dest, pe);
    COUNT_PUT(ctx, !to, to ? pe : -1);
    if (to) {
        if (how & PROFILED)
            pg_prof_op(PG_PROF_PUT, pe, len);
        copy_bytes(to, src, len);
        pg_mem_ring(pe, dest);
        return;
    }
    size_t offset;
    int seg = locate(dest, len, pe, &offset, "put");
    if (how & PROFILED)
        pg_prof_op(PG_PROF_PUT, pe, len);
    struct pg_strided contiguous = {.count = {len}};
    if (nbi)
        pg_pipe_put_nbi(completion(ctx), pe, seg, offset, src, len);
    else
        pg_pipe_put(completion(ctx), pe, seg, offset, src, &contiguous);
}

void pg_put(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    put_contiguous(ctx, dest, src, len, pe, PROFILED);
}

void pg_put_nbi(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    put_contiguous(ctx, dest, src, len, pe, NBI | PROFILED);
}

/* An off-node get waits for its data, or with NBI counts in the context's completion. */
static inline __attribute__((always_inline)) void
get_contiguous(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe, int how)
{
    if (len == 0)
        return;
    int nbi = how & NBI;
    const char *from = pg_mem_peer_ptr(src, pe);
    COUNT_GET(ctx, !from && nbi, from ? pe : -1);
    if (from) {
        if (how & PROFILED)
            pg_prof_op(PG_PROF_GET, pe, len);
        copy_bytes(dest, from, len);
        return;
    }
    size_t offset;
    int seg = locate(src, len, pe, &offset, "get");
    if (how & PROFILED)
        pg_prof_op(PG_PROF_GET, pe, len);
    struct pg_strided contiguous = {.count = {len}};
    if (nbi)
        pg_pipe_get_nbi(completion(ctx), pe, seg, offset, dest, len);
    else
        pg_pipe_get(ctx->counting != PG_COUNT_OFF, pe, seg, offset, dest, &contiguous);
}

void pg_get(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    get_contiguous(ctx, dest, src, len, pe, PROFILED);
}

void pg_get_nbi(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    get_contiguous(ctx, dest, src, len, pe, NBI | PROFILED);
}

/* Calls piece(to, from, count[0], arg) for every contiguous piece of a strided shape. */
static void for_each_piece(char *to, const char *from, const struct pg_strided *s,
                           void (*piece)(char *to, const char *from, size_t len, void *arg),
                           void *arg)
{
    size_t index[PG_MAX_STRIDE] = {0};
    for (;;) {
        piece(to, from, s->count[0], arg);
        int l = 0;
        for (; l < s->levels; l++) {
            to += s->dst_stride[l];
            from += s->src_stride[l];
            if (++index[l] < s->count[l + 1])
                break;
            to -= s->dst_stride[l] * (ptrdiff_t)index[l];
            from -= s->src_stride[l] * (ptrdiff_t)index[l];
            index[l] = 0;
        }
        if (l == s->levels)
            return;
    }
}

static int empty_shape(const struct pg_strided *shape)
{
    for (int l = 0; l <= shape->levels; l++)
        if (shape->count[l] == 0)
            return 1;
    return 0;
}

/* The bytes a strided transfer moves: the product of its counts. */
static size_t shape_bytes(const struct pg_strided *shape)
{
    size_t bytes = 1;
    for (int l = 0; l <= shape->levels; l++)
        bytes *= shape->count[l];
    return bytes;
}

static void copy_piece(char *to, const char *from, size_t len, void *arg)
{
    (void)arg;
    copy_bytes(to, from, len);
}

/* The remote side of a strided transfer: its segment and offset, after a bounds check. */
static int locate_shape(const void *addr, const struct pg_strided *shape, int dst_side, int pe,
                        size_t *offset, const char *call)
{
    return locate(addr, pg_strided_extent(shape, dst_side), pe, offset, call);
}

void pg_put_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    if (empty_shape(shape))
        return;
    char *to = pg_mem_peer_ptr(dest, pe);
    if (to) {
        pg_prof_op(PG_PROF_PUT, pe, shape_bytes(shape));
        for_each_piece(to, src, shape, copy_piece, NULL);
        COUNT_PUT(ctx, 0, pe);
        pg_mem_ring(pe, dest);
        return;
    }
    COUNT_PUT(ctx, 1, -1);
    size_t offset;
    int seg = locate_shape(dest, shape, 1, pe, &offset, "put");
    pg_prof_op(PG_PROF_PUT, pe, shape_bytes(shape));
    pg_pipe_put(completion(ctx), pe, seg, offset, src, shape);
}

void pg_get_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    if (empty_shape(shape))
        return;
    const char *from = pg_mem_peer_ptr(src, pe);
    if (from) {
        pg_prof_op(PG_PROF_GET, pe, shape_bytes(shape));
        for_each_piece(dest, from, shape, copy_piece, NULL);
        COUNT_GET(ctx, 0, pe);
        return;
    }
    COUNT_GET(ctx, 0, -1);
    size_t offset;
    int seg = locate_shape(src, shape, 0, pe, &offset, "get");
    pg_prof_op(PG_PROF_GET, pe, shape_bytes(shape));
    pg_pipe_get(ctx->counting != PG_COUNT_OFF, pe, seg, offset, dest, shape);
}

/* The remote pieces of a vector as offsets in one segment; -1 when they span segments (the
 * vector then goes piece by piece). */
static int remote_offsets(void *const *remote, size_t count, size_t bytes, int pe,
                          uint64_t *offsets, const char *call)
{
    int seg = -1;
    for (size_t i = 0; i < count; i++) {
        size_t offset;
        int s = locate(remote[i], bytes, pe, &offset, call);
        if (i > 0 && s != seg)
            return -1;
        seg = s;
        offsets[i] = offset;
    }
    return seg;
}

/* Runs a vector transfer off-node as batches of at most VECTOR_STEP pieces. */
#define VECTOR_STEP 256
enum vector_op { VECTOR_PUT, VECTOR_GET, VECTOR_ACC };

struct acc_args {
    enum pg_acc_type type;
    const void *scale;
};

static void vector_remote(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe,
                          enum vector_op op, const struct acc_args *acc)
{
    uint64_t offsets[VECTOR_STEP];
    void *const *remote = op == VECTOR_GET ? v->src : v->dst;
    void *const *local = op == VECTOR_GET ? v->dst : v->src;
    const char *call = op == VECTOR_GET ? "get" : op == VECTOR_PUT ? "put" : "accumulate";
    for (size_t first = 0; first < v->count; first += VECTOR_STEP) {
        size_t k = v->count - first < VECTOR_STEP ? v->count - first : VECTOR_STEP;
        int seg = remote_offsets(remote + first, k, v->bytes, pe, offsets, call);
        for (size_t i = 0; seg < 0 && i < k; i++) { /* pieces in different segments */
            struct pg_iovec one = {v->src + first + i, v->dst + first + i, 1, v->bytes};
            vector_remote(ctx, &one, pe, op, acc);
        }
        if (seg < 0)
            continue;
        if (op == VECTOR_PUT)
            pg_pipe_put_vector(completion(ctx), pe, seg, offsets, local + first, k, v->bytes);
        else if (op == VECTOR_GET)
            pg_pipe_get_vector(ctx->counting != PG_COUNT_OFF, pe, seg, offsets, local + first, k,
                               v->bytes);
        else
            pg_pipe_acc_vector(completion(ctx), pe, seg, offsets, local + first, k, v->bytes,
                               acc->type, acc->scale);
    }
}

void pg_put_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe)
{
    if (v->bytes == 0 || v->count == 0)
        return;
    if (!pg_mem_peer_ptr(v->dst[0], pe)) {
        vector_remote(ctx, v, pe, VECTOR_PUT, NULL);
        pg_prof_op(PG_PROF_PUT, pe, v->count * v->bytes);
        return;
    }
    pg_prof_op(PG_PROF_PUT, pe, v->count * v->bytes);
    for (size_t i = 0; i < v->count; i++)
        put_contiguous(ctx, v->dst[i], v->src[i], v->bytes, pe, 0);
}

void pg_get_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe)
{
    if (v->bytes == 0 || v->count == 0)
        return;
    if (!pg_mem_peer_ptr(v->src[0], pe)) {
        vector_remote(ctx, v, pe, VECTOR_GET, NULL);
        pg_prof_op(PG_PROF_GET, pe, v->count * v->bytes);
        return;
    }
    pg_prof_op(PG_PROF_GET, pe, v->count * v->bytes);
    for (size_t i = 0; i < v->count; i++)
        get_contiguous(ctx, v->dst[i], v->src[i], v->bytes, pe, 0);
}

static void acc_piece(char *to, const char *from, size_t len, void *arg)
{
    const struct acc_args *a = arg;
    pg_acc_apply(a->type, a->scale, to, from, len);
}

void pg_acc_strided(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale, void *dest,
                    const void *src, const struct pg_strided *shape, int pe)
{
    if (empty_shape(shape))
        return;
    struct acc_args args = {type, scale};
    char *to = pg_mem_peer_ptr(dest, pe);
    if (to) {
        pg_prof_op(PG_PROF_ACC, pe, shape_bytes(shape));
        pg_acc_lock(pe);
        for_each_piece(to, src, shape, acc_piece, &args);
        pg_acc_unlock(pe);
        COUNT_TARGET(ctx, pe, 1);
        pg_mem_ring(pe, dest);
        return;
    }
    size_t offset;
    int seg = locate_shape(dest, shape, 1, pe, &offset, "accumulate");
    pg_prof_op(PG_PROF_ACC, pe, shape_bytes(shape));
    pg_pipe_acc(completion(ctx), pe, seg, offset, type, scale, src, shape);
}

void pg_acc_vector(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale,
                   const struct pg_iovec *v, int pe)
{
    if (v->bytes == 0 || v->count == 0)
        return;
    struct acc_args args = {type, scale};
    if (!pg_mem_peer_ptr(v->dst[0], pe)) {
        vector_remote(ctx, v, pe, VECTOR_ACC, &args);
        pg_prof_op(PG_PROF_ACC, pe, v->count * v->bytes);
        return;
    }
    pg_prof_op(PG_PROF_ACC, pe, v->count * v->bytes);
    pg_acc_lock(pe);
    for (size_t i = 0; i < v->count; i++) {
        char *to = pg_mem_peer_ptr(v->dst[i], pe);
        if (!to)
            pg_fatal("accumulate", "address %p on PE %d is not symmetric memory", v->dst[i], pe);
        pg_acc_apply(type, scale, to, v->src[i], v->bytes);
    }
    pg_acc_unlock(pe);
    COUNT_TARGET(ctx, pe, v->count);
    pg_mem_ring(pe, v->dst[0]);
}

int pg_symmetric_grow(size_t alignment, size_t size, char *why, size_t len)
{
    if (pg_mem_heap_grow(alignment, size, why, len) != 0)
        return -1;
    pg_pipe_heap_grown();
    return 0;
}

void pg_ctx_init(struct pangea_ctx *ctx, struct pangea_team *team, long options,
                 enum pg_ctx_counting counting)
{
    *ctx = (struct pangea_ctx){.team = team,
                               .options = options,
                               .completion = {.counted = counting != PG_COUNT_OFF},
                               .counting = counting};
}

void pg_ctx_fini(struct pangea_ctx *ctx)
{
    pg_quiet(ctx);
}

void pg_signal(struct pangea_ctx *ctx, uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op,
               int pe)
{
    uint64_t *sig = (uint64_t *)pg_mem_peer_ptr(sig_addr, pe);
    if (sig)
        pg_prof_op(PG_PROF_SIGNAL, pe, sizeof *sig_addr);
    if (sig && op == PG_SIGNAL_SET) {
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
        COUNT_TARGET(ctx, pe, 1);
        pg_mem_ring(pe, sig_addr);
    } else if (sig) {
        __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
        COUNT_TARGET(ctx, pe, 1);
        pg_mem_ring(pe, sig_addr);
    } else {
        /* The node's server applies my requests in issue order: earlier data before the
         * signal. */
        size_t offset;
        int seg = locate(sig_addr, sizeof *sig_addr, pe, &offset, "signal");
        pg_prof_op(PG_PROF_SIGNAL, pe, sizeof *sig_addr);
        pg_pipe_amo_nbi(completion(ctx), pe, seg, offset,
                        op == PG_SIGNAL_SET ? PG_AMO_SET : PG_AMO_ADD, 8, signal, 0, NULL);
    }
}

void pg_put_signal(struct pangea_ctx *ctx, void *dest, const void *src, size_t len,
                   uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op, int pe)
{
    pg_put(ctx, dest, src, len, pe);
    pg_signal(ctx, sig_addr, signal, op, pe);
}

void pg_fence(struct pangea_ctx *ctx)
{
    /* On-node deliveries are stores; a release fence keeps them in program order. Off-node,
     * a node's server applies my requests in the order I issued them. */
    (void)ctx;
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void pg_quiet(struct pangea_ctx *ctx)
{
    /* On one node a quiet is a fence: counted, not timed. */
    PG_PROF_WAIT_TIMED(QUIET, pg_wait_progress != NULL);
    /* What was pending when the quiet began is complete when it returns (operations other
     * threads issue meanwhile stay pending). NULL quiets the whole process, no context's
     * counts. */
    struct pg_ctx_counts *c = ctx ? &ctx->counts : NULL;
    uint64_t puts = c ? __atomic_load_n(&c->pending_puts, __ATOMIC_RELAXED) : 0;
    uint64_t gets = c ? __atomic_load_n(&c->pending_gets, __ATOMIC_RELAXED) : 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    pg_pipe_quiet(completion(ctx));
    if (c) {
        __atomic_fetch_sub(&c->pending_puts, puts, __ATOMIC_RELAXED);
        __atomic_fetch_sub(&c->pending_gets, gets, __ATOMIC_RELAXED);
    }
}

struct pg_ctx_counts pg_ctx_counts(struct pangea_ctx *ctx)
{
    struct pg_ctx_counts c;
    /* pending before issued: an operation counted in pending is also in issued */
    c.pending_puts = __atomic_load_n(&ctx->counts.pending_puts, __ATOMIC_ACQUIRE);
    c.pending_gets = __atomic_load_n(&ctx->counts.pending_gets, __ATOMIC_ACQUIRE);
    c.puts = __atomic_load_n(&ctx->counts.puts, __ATOMIC_ACQUIRE);
    c.gets = __atomic_load_n(&ctx->counts.gets, __ATOMIC_ACQUIRE);
    return c;
}

void pg_pe_quiet(struct pangea_ctx *ctx, const int *pes, size_t npes)
{
    (void)pes;
    if (npes)
        pg_quiet(ctx);
}

size_t pg_strided_extent(const struct pg_strided *shape, int dst_side)
{
    const ptrdiff_t *stride = dst_side ? shape->dst_stride : shape->src_stride;
    size_t extent = shape->count[0];
    for (int l = 0; l < shape->levels; l++) {
        if (shape->count[l + 1] == 0)
            return 0;
        extent += (size_t)stride[l] * (shape->count[l + 1] - 1);
    }
    return extent;
}
