/* onesided: put and get — contiguous, strided (up to PG_MAX_STRIDE levels) and with signal —
 * and their completion: fence, quiet, per-PE quiet. Chooses the path to each PE. */
#ifndef PG_ONESIDED_H
#define PG_ONESIDED_H

#include <stddef.h>
#include <stdint.h>

#define PG_MAX_STRIDE 8

/* A communication context (OpenSHMEM shmem_ctx_t points to one). */
struct pangea_team;
struct pangea_ctx {
    struct pangea_team *team;
    long options;
};

/* A strided shape: count[0] contiguous bytes, repeated count[1..levels] times with the byte
 * strides src_stride[0..levels-1] and dst_stride[0..levels-1] (ARMCI's convention). */
struct pg_strided {
    int levels;
    size_t count[PG_MAX_STRIDE + 1];
    ptrdiff_t src_stride[PG_MAX_STRIDE];
    ptrdiff_t dst_stride[PG_MAX_STRIDE];
};

/* dest is a symmetric address on pe; src is local. Returns when src may be reused. */
void pg_put(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
/* src is a symmetric address on pe; dest is local. Returns with the data in dest. */
void pg_get(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
void pg_put_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe);
void pg_get_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe);
/* Data, then the 64-bit signal at sig_addr (set or added), seen in that order. */
enum pg_signal_op { PG_SIGNAL_SET, PG_SIGNAL_ADD };
void pg_put_signal(struct pangea_ctx *ctx, void *dest, const void *src, size_t len,
                   uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op, int pe);

void pg_fence(struct pangea_ctx *ctx);
void pg_quiet(struct pangea_ctx *ctx);
void pg_pe_quiet(struct pangea_ctx *ctx, const int *pes, size_t npes);

/* Bytes spanned by a strided shape on its destination (or source) side: the extent from the
 * first to one past the last byte, for bounds checks. Strides must be non-negative. */
size_t pg_strided_extent(const struct pg_strided *shape, int dst_side);

#endif
