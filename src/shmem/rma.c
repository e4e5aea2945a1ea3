/* Remote memory access (spec §9.6): put, get, p, g, iput, iget, ibput, ibget and the nbi
 * forms, for every type of T-RMA, every SIZE and mem, each with its ctx twin. */
#include "shmem_internal.h"

/* The checks of a contiguous transfer: sym is the symmetric side, local the caller's. */
static inline void check_contig(const char *call, shmem_ctx_t ctx, const void *sym,
                                const char *sym_arg, const void *local, const char *local_arg,
                                size_t len, int pe)
{
    PG_CHECKS(pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe);
              pg_check_rma(call, sym, sym_arg, local, local_arg, len, pe));
}

static inline void put_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    PG_SHMEM_ENTRY(call);
    check_contig(call, ctx, dest, "dest", source, "source", len, pe);
    pg_put(pg_ctx(ctx), dest, source, len, pg_ctx_pe(ctx, pe));
}

static inline void put_nbi_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t len, int pe)
{
    PG_SHMEM_ENTRY(call);
    check_contig(call, ctx, dest, "dest", source, "source", len, pe);
    pg_put_nbi(pg_ctx(ctx), dest, source, len, pg_ctx_pe(ctx, pe));
}

static inline void get_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                             size_t len, int pe)
{
    PG_SHMEM_ENTRY(call);
    check_contig(call, ctx, source, "source", dest, "dest", len, pe);
    pg_get(pg_ctx(ctx), dest, source, len, pg_ctx_pe(ctx, pe));
}

static inline void get_nbi_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                                 size_t len, int pe)
{
    PG_SHMEM_ENTRY(call);
    check_contig(call, ctx, source, "source", dest, "dest", len, pe);
    pg_get_nbi(pg_ctx(ctx), dest, source, len, pg_ctx_pe(ctx, pe));
}

/* Block-strided transfer of nblocks blocks of bsize elements of elem bytes; the strides dst
 * and sst count elements between block starts. iput/iget are bsize 1. */
static inline struct pg_strided block_shape(size_t elem, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                                            size_t nblocks)
{
    struct pg_strided shape = {.levels = 1};
    shape.count[0] = bsize * elem;
    shape.count[1] = nblocks;
    shape.dst_stride[0] = dst * (ptrdiff_t)elem;
    shape.src_stride[0] = sst * (ptrdiff_t)elem;
    return shape;
}

static void check_block_strides(const char *call, ptrdiff_t dst, ptrdiff_t sst, size_t bsize)
{
    if (dst < (ptrdiff_t)bsize || dst < 1)
        pg_fatal(call, "argument 'dst' = %td must be at least %zu", dst, bsize ? bsize : 1);
    if (sst < (ptrdiff_t)bsize || sst < 1)
        pg_fatal(call, "argument 'sst' = %td must be at least %zu", sst, bsize ? bsize : 1);
}

static inline void iput_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                              size_t elem, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                              size_t nblocks, int pe)
{
    PG_SHMEM_CALL(call);
    struct pg_strided shape = block_shape(elem, dst, sst, bsize, nblocks);
    PG_CHECKS(pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe); if (bsize && nblocks) {
        check_block_strides(call, dst, sst, bsize);
        pg_check_rma(call, dest, "dest", source, "source", pg_strided_extent(&shape, 1), pe);
    });
    pg_put_strided(pg_ctx(ctx), dest, source, &shape, pg_ctx_pe(ctx, pe));
}

static inline void iget_bytes(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                              size_t elem, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                              size_t nblocks, int pe)
{
    PG_SHMEM_CALL(call);
    struct pg_strided shape = block_shape(elem, dst, sst, bsize, nblocks);
    PG_CHECKS(pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe); if (bsize && nblocks) {
        check_block_strides(call, dst, sst, bsize);
        pg_check_rma(call, source, "source", dest, "dest", pg_strided_extent(&shape, 0), pe);
    });
    pg_get_strided(pg_ctx(ctx), dest, source, &shape, pg_ctx_pe(ctx, pe));
}

/* A contiguous family NAME (put, get, put_nbi, get_nbi) for one element size. */
#define PG_CONTIG(NAME, CORE, PTYPE, CTYPE, ELEM)                                            \
    void pshmem_ctx_##NAME(shmem_ctx_t ctx, PTYPE *dest, const CTYPE *source, size_t nelems, \
                           int pe)                                                           \
    {                                                                                        \
        CORE("shmem_ctx_" #NAME, ctx, dest, source, nelems *(ELEM), pe);                     \
    }                                                                                        \
    void pshmem_##NAME(PTYPE *dest, const CTYPE *source, size_t nelems, int pe)              \
    {                                                                                        \
        CORE("shmem_" #NAME, SHMEM_CTX_DEFAULT, dest, source, nelems *(ELEM), pe);           \
    }                                                                                        \
    PG_ALIAS(shmem_ctx_##NAME)                                                               \
    PG_ALIAS(shmem_##NAME)

#define PG_STRIDED(NAME, CORE, PTYPE, CTYPE, ELEM)                                            \
    void pshmem_ctx_##NAME(shmem_ctx_t ctx, PTYPE *dest, const CTYPE *source, ptrdiff_t dst,  \
                           ptrdiff_t sst, size_t nelems, int pe)                              \
    {                                                                                         \
        CORE("shmem_ctx_" #NAME, ctx, dest, source, ELEM, dst, sst, 1, nelems, pe);           \
    }                                                                                         \
    void pshmem_##NAME(PTYPE *dest, const CTYPE *source, ptrdiff_t dst, ptrdiff_t sst,        \
                       size_t nelems, int pe)                                                 \
    {                                                                                         \
        CORE("shmem_" #NAME, SHMEM_CTX_DEFAULT, dest, source, ELEM, dst, sst, 1, nelems, pe); \
    }                                                                                         \
    PG_ALIAS(shmem_ctx_##NAME)                                                                \
    PG_ALIAS(shmem_##NAME)

#define PG_BLOCKED(NAME, CORE, PTYPE, CTYPE, ELEM)                                                 \
    void pshmem_ctx_##NAME(shmem_ctx_t ctx, PTYPE *dest, const CTYPE *source, ptrdiff_t dst,       \
                           ptrdiff_t sst, size_t bsize, size_t nblocks, int pe)                    \
    {                                                                                              \
        CORE("shmem_ctx_" #NAME, ctx, dest, source, ELEM, dst, sst, bsize, nblocks, pe);           \
    }                                                                                              \
    void pshmem_##NAME(PTYPE *dest, const CTYPE *source, ptrdiff_t dst, ptrdiff_t sst,             \
                       size_t bsize, size_t nblocks, int pe)                                       \
    {                                                                                              \
        CORE("shmem_" #NAME, SHMEM_CTX_DEFAULT, dest, source, ELEM, dst, sst, bsize, nblocks, pe); \
    }                                                                                              \
    PG_ALIAS(shmem_ctx_##NAME)                                                                     \
    PG_ALIAS(shmem_##NAME)

#define PG_RMA_TYPED(T, N)                                                             \
    PG_CONTIG(N##_put, put_bytes, T, T, sizeof(T))                                     \
    PG_CONTIG(N##_get, get_bytes, T, T, sizeof(T))                                     \
    PG_CONTIG(N##_put_nbi, put_nbi_bytes, T, T, sizeof(T))                             \
    PG_CONTIG(N##_get_nbi, get_nbi_bytes, T, T, sizeof(T))                             \
    PG_STRIDED(N##_iput, iput_bytes, T, T, sizeof(T))                                  \
    PG_STRIDED(N##_iget, iget_bytes, T, T, sizeof(T))                                  \
    PG_BLOCKED(N##_ibput, iput_bytes, T, T, sizeof(T))                                 \
    PG_BLOCKED(N##_ibget, iget_bytes, T, T, sizeof(T))                                 \
    void pshmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                 \
    {                                                                                  \
        put_bytes("shmem_ctx_" #N "_p", ctx, dest, &value, sizeof(T), pe);             \
    }                                                                                  \
    void pshmem_##N##_p(T *dest, T value, int pe)                                      \
    {                                                                                  \
        put_bytes("shmem_" #N "_p", SHMEM_CTX_DEFAULT, dest, &value, sizeof(T), pe);   \
    }                                                                                  \
    T pshmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                     \
    {                                                                                  \
        T value;                                                                       \
        get_bytes("shmem_ctx_" #N "_g", ctx, &value, source, sizeof(T), pe);           \
        return value;                                                                  \
    }                                                                                  \
    T pshmem_##N##_g(const T *source, int pe)                                          \
    {                                                                                  \
        T value;                                                                       \
        get_bytes("shmem_" #N "_g", SHMEM_CTX_DEFAULT, &value, source, sizeof(T), pe); \
        return value;                                                                  \
    }                                                                                  \
    PG_ALIAS(shmem_ctx_##N##_p)                                                        \
    PG_ALIAS(shmem_##N##_p)                                                            \
    PG_ALIAS(shmem_ctx_##N##_g)                                                        \
    PG_ALIAS(shmem_##N##_g)

PANGEA_T_RMA(PG_RMA_TYPED)

#define PG_RMA_SIZED(BITS, BYTES)                                \
    PG_CONTIG(put##BITS, put_bytes, void, void, BYTES)           \
    PG_CONTIG(get##BITS, get_bytes, void, void, BYTES)           \
    PG_CONTIG(put##BITS##_nbi, put_nbi_bytes, void, void, BYTES) \
    PG_CONTIG(get##BITS##_nbi, get_nbi_bytes, void, void, BYTES) \
    PG_STRIDED(iput##BITS, iput_bytes, void, void, BYTES)        \
    PG_STRIDED(iget##BITS, iget_bytes, void, void, BYTES)        \
    PG_BLOCKED(ibput##BITS, iput_bytes, void, void, BYTES)       \
    PG_BLOCKED(ibget##BITS, iget_bytes, void, void, BYTES)

PANGEA_SIZES(PG_RMA_SIZED)

PG_CONTIG(putmem, put_bytes, void, void, 1)
PG_CONTIG(getmem, get_bytes, void, void, 1)
PG_CONTIG(putmem_nbi, put_nbi_bytes, void, void, 1)
PG_CONTIG(getmem_nbi, get_nbi_bytes, void, void, 1)
