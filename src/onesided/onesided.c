#include "onesided.h"

#include "dataserver/dataserver.h"
#include "memory/memory.h"
#include "runtime/runtime.h"

#include <string.h>

/* The off-node path: where the object lies, for a request to pe's data server. */
static int locate(const void *addr, size_t len, int pe, size_t *offset, const char *call)
{
    int seg = pg_mem_locate(addr, len ? len : 1, offset);
    if (seg < 0 || (unsigned)pe >= (unsigned)pg_world.npes)
        pg_fatal(call, "address %p (%zu bytes) on PE %d is not symmetric memory", addr, len, pe);
    return seg;
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

void pg_put(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    (void)ctx;
    if (len == 0)
        return;
    char *to = pg_mem_peer_ptr(dest, pe);
    if (to) {
        copy_bytes(to, src, len);
        return;
    }
    size_t offset;
    int seg = locate(dest, len, pe, &offset, "put");
    pg_ds_put(pe, seg, offset, src, len);
}

void pg_get(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    (void)ctx;
    if (len == 0)
        return;
    const char *from = pg_mem_peer_ptr(src, pe);
    if (from) {
        copy_bytes(dest, from, len);
        return;
    }
    size_t offset;
    int seg = locate(src, len, pe, &offset, "get");
    pg_ds_get(pe, seg, offset, dest, len);
}

/* Calls piece(to, from, count[0]) for every contiguous piece of a strided shape. */
static void for_each_piece(char *to, const char *from, const struct pg_strided *s,
                           void (*piece)(char *to, const char *from, size_t len, int pe), int pe)
{
    size_t index[PG_MAX_STRIDE] = {0};
    for (int l = 1; l <= s->levels; l++)
        if (s->count[l] == 0)
            return;
    for (;;) {
        piece(to, from, s->count[0], pe);
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

static void copy_piece(char *to, const char *from, size_t len, int pe)
{
    (void)pe;
    copy_bytes(to, from, len);
}

static void put_piece(char *to, const char *from, size_t len, int pe)
{
    pg_put(NULL, to, from, len, pe);
}

static void get_piece(char *to, const char *from, size_t len, int pe)
{
    pg_get(NULL, to, from, len, pe);
}

void pg_put_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    (void)ctx;
    if (shape->count[0] == 0)
        return;
    char *to = pg_mem_peer_ptr(dest, pe);
    if (to)
        for_each_piece(to, src, shape, copy_piece, pe);
    else /* off-node: one request per piece until the pipeline packs them */
        for_each_piece(dest, src, shape, put_piece, pe);
}

void pg_get_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    (void)ctx;
    if (shape->count[0] == 0)
        return;
    const char *from = pg_mem_peer_ptr(src, pe);
    if (from)
        for_each_piece(dest, from, shape, copy_piece, pe);
    else
        for_each_piece(dest, src, shape, get_piece, pe);
}

void pg_put_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe)
{
    for (size_t i = 0; i < v->count; i++)
        pg_put(ctx, v->dst[i], v->src[i], v->bytes, pe);
}

void pg_get_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe)
{
    for (size_t i = 0; i < v->count; i++)
        pg_get(ctx, v->dst[i], v->src[i], v->bytes, pe);
}

/* One contiguous accumulate: under the target's lock on its node, else by its data server. */
static void acc_contig(enum pg_acc_type type, const void *scale, char *dest, const char *src,
                       size_t len, int pe)
{
    char *to = pg_mem_peer_ptr(dest, pe);
    if (to) {
        pg_acc_lock(pe);
        pg_acc_apply(type, scale, to, src, len);
        pg_acc_unlock(pe);
        return;
    }
    size_t offset;
    int seg = locate(dest, len, pe, &offset, "accumulate");
    pg_ds_acc(pe, seg, offset, type, scale, src, len);
}

void pg_acc_strided(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale, void *dest,
                    const void *src, const struct pg_strided *shape, int pe)
{
    (void)ctx;
    size_t index[PG_MAX_STRIDE] = {0};
    for (int l = 1; l <= shape->levels; l++)
        if (shape->count[l] == 0)
            return;
    if (shape->count[0] == 0)
        return;
    char *to = dest;
    const char *from = src;
    for (;;) {
        acc_contig(type, scale, to, from, shape->count[0], pe);
        int l = 0;
        for (; l < shape->levels; l++) {
            to += shape->dst_stride[l];
            from += shape->src_stride[l];
            if (++index[l] < shape->count[l + 1])
                break;
            to -= shape->dst_stride[l] * (ptrdiff_t)index[l];
            from -= shape->src_stride[l] * (ptrdiff_t)index[l];
            index[l] = 0;
        }
        if (l == shape->levels)
            return;
    }
}

void pg_acc_vector(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale,
                   const struct pg_iovec *v, int pe)
{
    (void)ctx;
    for (size_t i = 0; i < v->count; i++)
        acc_contig(type, scale, v->dst[i], v->src[i], v->bytes, pe);
}

void pg_ctx_init(struct pangea_ctx *ctx, struct pangea_team *team, long options)
{
    *ctx = (struct pangea_ctx){.team = team, .options = options};
}

void pg_ctx_fini(struct pangea_ctx *ctx)
{
    pg_quiet(ctx);
}

void pg_put_signal(struct pangea_ctx *ctx, void *dest, const void *src, size_t len,
                   uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op, int pe)
{
    pg_put(ctx, dest, src, len, pe);
    uint64_t *sig = (uint64_t *)pg_mem_peer_ptr(sig_addr, pe);
    if (sig && op == PG_SIGNAL_SET) {
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
    } else if (sig) {
        __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
    } else {
        /* Providers deliver large messages by rendezvous, which may complete after a later
         * small one: the data must be acknowledged before the signal goes out. */
        pg_ds_quiet();
        size_t offset;
        int seg = locate(sig_addr, sizeof *sig_addr, pe, &offset, "put_signal");
        pg_ds_amo(pe, seg, offset, op == PG_SIGNAL_SET ? PG_AMO_SET : PG_AMO_ADD, 8, signal, 0, 0);
    }
}

void pg_fence(struct pangea_ctx *ctx)
{
    (void)ctx;
    /* On-node deliveries are stores; a release fence keeps them in program order. Off-node
     * requests may complete out of order (a provider's rendezvous for large messages), so
     * fence waits for the acknowledgements of what is outstanding. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    pg_ds_quiet();
}

void pg_quiet(struct pangea_ctx *ctx)
{
    (void)ctx;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    pg_ds_quiet();
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
