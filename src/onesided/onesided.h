/* onesided: put, get and accumulate — contiguous, strided (up to PG_MAX_STRIDE levels, struct
 * pg_strided in dataserver.h), I/O vectors and with signal — and their completion: fence,
 * quiet, per-PE quiet, per context. Chooses the path to each PE. */
#ifndef PG_ONESIDED_H
#define PG_ONESIDED_H

#include <stddef.h>
#include <stdint.h>

#include "pipeline/pipeline.h"

/* A communication context (OpenSHMEM shmem_ctx_t points to one). fence/quiet on a context
 * wait only for the operations issued on it. Fields past `options` belong to the engine. */
struct pangea_team;
/* The puts and gets issued on a context (shmemx_pcntr_*): put, p, iput, ibput, put_nbi and
 * put_signal are puts; get, g, iget, ibget and get_nbi are gets. An on-node operation is
 * complete when it returns, and so is a blocking off-node get; the other off-node ones are
 * pending until the context's quiet. */
struct pg_ctx_counts {
    uint64_t puts, gets;                 /* issued */
    uint64_t pending_puts, pending_gets; /* issued off-node, not yet quieted */
};

/* How a context keeps its counts: not at all (the engine's own), by plain increments (one
 * thread at a time issues on it), or by atomic ones (several threads at once), since a
 * locked increment on every put would cost the on-node path a third of its time. */
enum pg_ctx_counting { PG_COUNT_OFF, PG_COUNT_ONE_THREAD, PG_COUNT_THREADS };

struct pangea_ctx {
    struct pangea_team *team;
    long options;
    struct pg_pipe_completion completion; /* off-node operations not yet acknowledged */
    struct pg_ctx_counts counts;
    enum pg_ctx_counting counting;
};
/* A consistent copy of the context's counts. */
struct pg_ctx_counts pg_ctx_counts(struct pangea_ctx *ctx);
/* `operations` of a counting context completed on the memory of pe, a PE of my node, by this
 * PE: counted at pe (shmemx_pcntr's completed_target) unless pe is me. Off-node operations
 * count at their target's server (PG_DS_COUNTED). */
void pg_ctx_target_done(int pe, uint64_t operations);

/* Grows the symmetric heap so that pg_heap_alloc(alignment, size) fits, with the network
 * registrations and every PE's view of the new part following: collective over the world, for
 * the front-ends' collective allocations once the allocator said no on every PE alike. 0, or -1
 * on every PE with why (pg_mem_heap_grow). */
int pg_symmetric_grow(size_t alignment, size_t size, char *why, size_t len);
#define PG_GROWTH_WHY 512 /* room for its why */

/* Prepares or retires a context created by a front-end (the default context included).
 * pg_ctx_fini completes what is outstanding on it first. */
void pg_ctx_init(struct pangea_ctx *ctx, struct pangea_team *team, long options,
                 enum pg_ctx_counting counting);
void pg_ctx_fini(struct pangea_ctx *ctx);

/* dest is a symmetric address on pe; src is local. Returns when src may be reused. An
 * off-node put leaves at once; with nbi a small one may wait in a batch for the next request
 * to its node, a quiet or a wait (pg_pipe_put_nbi). */
void pg_put(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
void pg_put_nbi(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
/* src is a symmetric address on pe; dest is local. Returns with the data in dest. */
void pg_get(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
/* The same, returning at once: the data is in dest once pg_quiet(ctx) returns. */
void pg_get_nbi(struct pangea_ctx *ctx, void *dest, const void *src, size_t len, int pe);
void pg_put_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe);
void pg_get_strided(struct pangea_ctx *ctx, void *dest, const void *src,
                    const struct pg_strided *shape, int pe);
/* Data, then the 64-bit signal at sig_addr (set or added), seen in that order. */
enum pg_signal_op { PG_SIGNAL_SET, PG_SIGNAL_ADD };
void pg_put_signal(struct pangea_ctx *ctx, void *dest, const void *src, size_t len,
                   uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op, int pe);
/* The signal alone (shmem_signal_add/set), after my earlier operations to pe. */
void pg_signal(struct pangea_ctx *ctx, uint64_t *sig_addr, uint64_t signal, enum pg_signal_op op,
               int pe);

/* An I/O vector: count pieces of `bytes` bytes each, src[i] to dst[i] (ARMCI's giov). The
 * remote side (dst of a put or accumulate, src of a get) holds symmetric addresses. */
struct pg_iovec {
    void *const *src;
    void *const *dst;
    size_t count;
    size_t bytes;
};
void pg_put_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe);
void pg_get_vector(struct pangea_ctx *ctx, const struct pg_iovec *v, int pe);

/* Accumulate: dest += scale * src element-wise. scale points to one element of the type.
 * Every element is updated atomically with respect to every other accumulate on the target
 * PE's memory, whether issued on the target's node or from another node. Returns when src may
 * be reused; the update is complete at the target after fence/quiet.
 * (enum pg_acc_type and pg_acc_type_size() are in dataserver.h.) */
/* count[0] of the shape (and v->bytes) must be a multiple of the element size. */
void pg_acc_strided(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale, void *dest,
                    const void *src, const struct pg_strided *shape, int pe);
void pg_acc_vector(struct pangea_ctx *ctx, enum pg_acc_type type, const void *scale,
                   const struct pg_iovec *v, int pe);

void pg_fence(struct pangea_ctx *ctx);
void pg_quiet(struct pangea_ctx *ctx);
void pg_pe_quiet(struct pangea_ctx *ctx, const int *pes, size_t npes);

/* Bytes spanned by a strided shape on its destination (or source) side: the extent from the
 * first to one past the last byte, for bounds checks. Strides must be non-negative. */
size_t pg_strided_extent(const struct pg_strided *shape, int dst_side);

#endif
