#include "onesided.h"

#include "memory/memory.h"
#include "runtime/runtime.h"

#include <string.h>

/* The only path so far is on-node load/store; off-node PEs are refused at init. */
static char *peer_ptr(const void *addr, int pe, const char *call)
{
    char *p = pg_mem_peer_ptr(addr, pe);
    if (!p)
        pg_fatal(call, "address %p is not symmetric memory reachable on PE %d", addr, pe);
    return p;
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
    copy_bytes(peer_ptr(dest, pe, "put"), src, len);
}

void pg_get(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe)
{
    (void)ctx;
    if (len == 0)
        return;
    copy_bytes(dest, peer_ptr(src, pe, "get"), len);
}

static void copy_strided(char *to, const char *from, const struct pg_strided *s)
{
    size_t index[PG_MAX_STRIDE] = {0};
    for (int l = 1; l <= s->levels; l++)
        if (s->count[l] == 0)
            return;
    for (;;) {
        copy_bytes(to, from, s->count[0]);
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

void pg_put_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    (void)ctx;
    if (shape->count[0] == 0)
        return;
    copy_strided(peer_ptr(dest, pe, "put"), src, shape);
}

void pg_get_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe)
{
    (void)ctx;
    if (shape->count[0] == 0)
        return;
    copy_strided(dest, peer_ptr(src, pe, "get"), shape);
}

void pg_put_signal(struct pangea_ctx *ctx, void *dest, const void *src, size_t len,
                   uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op, int pe)
{
    pg_put(ctx, dest, src, len, pe);
    uint64_t *sig = (uint64_t *)peer_ptr(sig_addr, pe, "put_signal");
    if (op == PG_SIGNAL_SET)
        __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
    else
        __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
}

void pg_fence(struct pangea_ctx *ctx)
{
    (void)ctx;
    /* On-node deliveries are stores; a release fence keeps them in program order. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

void pg_quiet(struct pangea_ctx *ctx)
{
    (void)ctx;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
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
