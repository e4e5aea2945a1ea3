/* Atomic memory operations (spec §9.7): blocking and nbi, every type of each table, with ctx
 * twins, and the deprecated names. Values travel as bits; the engine works by width. */
#include "shmem_internal.h"

static inline void amo_checks(const char *call, shmem_ctx_t ctx, const void *dest, int pe,
                              enum pg_amo_op op, size_t width)
{
    PG_CHECKS(pg_check_init(call); pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe);
              pg_check_pe(call, "pe", pe);
              pg_check_symmetric(call, op == PG_AMO_FETCH ? "source" : "dest", dest, width);
              if ((uintptr_t)dest % width) pg_fatal(call,
                                                    "argument 'dest' = %p is not "
                                                    "aligned to its %zu-byte type",
                                                    dest, width));
}

static inline uint64_t amo(const char *call, shmem_ctx_t ctx, const void *dest, int pe,
                           enum pg_amo_op op, size_t width, uint64_t value, uint64_t cond)
{
    PG_SHMEM_ENTRY(call);
    amo_checks(call, ctx, dest, pe, op, width);
    return pg_amo(pg_ctx(ctx), (void *)dest, pg_ctx_pe(ctx, pe), op, width, value, cond);
}

/* Non-fetching and nbi forms: complete at the context's quiet; fetch (NULL: none) receives
 * the old value by then. */
static inline void amo_nbi(const char *call, shmem_ctx_t ctx, const void *dest, int pe,
                           enum pg_amo_op op, size_t width, uint64_t value, uint64_t cond,
                           void *fetch)
{
    PG_SHMEM_ENTRY(call);
    amo_checks(call, ctx, dest, pe, op, width);
    pg_amo_nbi(pg_ctx(ctx), (void *)dest, pg_ctx_pe(ctx, pe), op, width, value, cond, fetch);
}

/* One blocking family member, with and without ctx. */
#define PG_AMO_FETCHING(T, N, OPNAME, OP, PARAMS, ARGS, VALUE, COND)                            \
    T pshmem_ctx_##N##_atomic_##OPNAME(shmem_ctx_t ctx, PARAMS)                                 \
    {                                                                                           \
        return PG_FROM_BITS(                                                                    \
            T, amo("shmem_ctx_" #N "_atomic_" #OPNAME, ctx, ARGS, OP, sizeof(T), VALUE, COND)); \
    }                                                                                           \
    T pshmem_##N##_atomic_##OPNAME(PARAMS)                                                      \
    {                                                                                           \
        return PG_FROM_BITS(T, amo("shmem_" #N "_atomic_" #OPNAME, SHMEM_CTX_DEFAULT, ARGS, OP, \
                                   sizeof(T), VALUE, COND));                                    \
    }                                                                                           \
    PG_ALIAS(shmem_ctx_##N##_atomic_##OPNAME)                                                   \
    PG_ALIAS(shmem_##N##_atomic_##OPNAME)

#define PG_AMO_NONFETCHING(T, N, OPNAME, OP, PARAMS, ARGS, VALUE)                                 \
    void pshmem_ctx_##N##_atomic_##OPNAME(shmem_ctx_t ctx, PARAMS)                                \
    {                                                                                             \
        amo_nbi("shmem_ctx_" #N "_atomic_" #OPNAME, ctx, ARGS, OP, sizeof(T), VALUE, 0, NULL);    \
    }                                                                                             \
    void pshmem_##N##_atomic_##OPNAME(PARAMS)                                                     \
    {                                                                                             \
        amo_nbi("shmem_" #N "_atomic_" #OPNAME, SHMEM_CTX_DEFAULT, ARGS, OP, sizeof(T), VALUE, 0, \
                NULL);                                                                            \
    }                                                                                             \
    PG_ALIAS(shmem_ctx_##N##_atomic_##OPNAME)                                                     \
    PG_ALIAS(shmem_##N##_atomic_##OPNAME)

/* nbi fetching forms: the old value lands in *fetch by the context's quiet. */
#define PG_AMO_NBI(T, N, OPNAME, OP, PARAMS, ARGS, VALUE, COND)                                   \
    void pshmem_ctx_##N##_atomic_##OPNAME##_nbi(shmem_ctx_t ctx, T *fetch, PARAMS)                \
    {                                                                                             \
        PG_CHECKS(pg_check_buffer("shmem_ctx_" #N "_atomic_" #OPNAME "_nbi", "fetch", fetch, 1)); \
        amo_nbi("shmem_ctx_" #N "_atomic_" #OPNAME "_nbi", ctx, ARGS, OP, sizeof(T), VALUE, COND, \
                fetch);                                                                           \
    }                                                                                             \
    void pshmem_##N##_atomic_##OPNAME##_nbi(T *fetch, PARAMS)                                     \
    {                                                                                             \
        PG_CHECKS(pg_check_buffer("shmem_" #N "_atomic_" #OPNAME "_nbi", "fetch", fetch, 1));     \
        amo_nbi("shmem_" #N "_atomic_" #OPNAME "_nbi", SHMEM_CTX_DEFAULT, ARGS, OP, sizeof(T),    \
                VALUE, COND, fetch);                                                              \
    }                                                                                             \
    PG_ALIAS(shmem_ctx_##N##_atomic_##OPNAME##_nbi)                                               \
    PG_ALIAS(shmem_##N##_atomic_##OPNAME##_nbi)

#define PG_P(...) __VA_ARGS__

#define PG_AMO_EXT(T, N)                                                                           \
    PG_AMO_FETCHING(T, N, fetch, PG_AMO_FETCH, PG_P(const T *source, int pe), PG_P(source, pe), 0, \
                    0)                                                                             \
    PG_AMO_NONFETCHING(T, N, set, PG_AMO_SET, PG_P(T *dest, T value, int pe), PG_P(dest, pe),      \
                       PG_TO_BITS(T, value))                                                       \
    PG_AMO_FETCHING(T, N, swap, PG_AMO_SWAP, PG_P(T *dest, T value, int pe), PG_P(dest, pe),       \
                    PG_TO_BITS(T, value), 0)                                                       \
    PG_AMO_NBI(T, N, fetch, PG_AMO_FETCH, PG_P(const T *source, int pe), PG_P(source, pe), 0, 0)   \
    PG_AMO_NBI(T, N, swap, PG_AMO_SWAP, PG_P(T *dest, T value, int pe), PG_P(dest, pe),            \
               PG_TO_BITS(T, value), 0)
PANGEA_T_AMO_EXT(PG_AMO_EXT)

#define PG_AMO_STD(T, N)                                                                         \
    PG_AMO_FETCHING(T, N, compare_swap, PG_AMO_CSWAP, PG_P(T *dest, T cond, T value, int pe),    \
                    PG_P(dest, pe), PG_TO_BITS(T, value), PG_TO_BITS(T, cond))                   \
    PG_AMO_FETCHING(T, N, fetch_inc, PG_AMO_ADD, PG_P(T *dest, int pe), PG_P(dest, pe),          \
                    PG_TO_BITS(T, (T)1), 0)                                                      \
    PG_AMO_NONFETCHING(T, N, inc, PG_AMO_ADD, PG_P(T *dest, int pe), PG_P(dest, pe),             \
                       PG_TO_BITS(T, (T)1))                                                      \
    PG_AMO_FETCHING(T, N, fetch_add, PG_AMO_ADD, PG_P(T *dest, T value, int pe), PG_P(dest, pe), \
                    PG_TO_BITS(T, value), 0)                                                     \
    PG_AMO_NONFETCHING(T, N, add, PG_AMO_ADD, PG_P(T *dest, T value, int pe), PG_P(dest, pe),    \
                       PG_TO_BITS(T, value))                                                     \
    PG_AMO_NBI(T, N, compare_swap, PG_AMO_CSWAP, PG_P(T *dest, T cond, T value, int pe),         \
               PG_P(dest, pe), PG_TO_BITS(T, value), PG_TO_BITS(T, cond))                        \
    PG_AMO_NBI(T, N, fetch_inc, PG_AMO_ADD, PG_P(T *dest, int pe), PG_P(dest, pe),               \
               PG_TO_BITS(T, (T)1), 0)                                                           \
    PG_AMO_NBI(T, N, fetch_add, PG_AMO_ADD, PG_P(T *dest, T value, int pe), PG_P(dest, pe),      \
               PG_TO_BITS(T, value), 0)
PANGEA_T_AMO_STD(PG_AMO_STD)

#define PG_AMO_BITWISE(T, N, OPNAME, OP)                                                      \
    PG_AMO_FETCHING(T, N, fetch_##OPNAME, OP, PG_P(T *dest, T value, int pe), PG_P(dest, pe), \
                    PG_TO_BITS(T, value), 0)                                                  \
    PG_AMO_NONFETCHING(T, N, OPNAME, OP, PG_P(T *dest, T value, int pe), PG_P(dest, pe),      \
                       PG_TO_BITS(T, value))                                                  \
    PG_AMO_NBI(T, N, fetch_##OPNAME, OP, PG_P(T *dest, T value, int pe), PG_P(dest, pe),      \
               PG_TO_BITS(T, value), 0)
#define PG_AMO_BIT(T, N)                  \
    PG_AMO_BITWISE(T, N, and, PG_AMO_AND) \
    PG_AMO_BITWISE(T, N, or, PG_AMO_OR)   \
    PG_AMO_BITWISE(T, N, xor, PG_AMO_XOR)
PANGEA_T_AMO_BIT(PG_AMO_BIT)

/* Deprecated names (spec §4.3): the same operations, no ctx form. */
#define PG_DEP(T, N, OLD, NEW, PARAMS, ARGS)    \
    T pshmem_##N##_##OLD(PARAMS)                \
    {                                           \
        return pshmem_##N##_atomic_##NEW(ARGS); \
    }                                           \
    PG_ALIAS(shmem_##N##_##OLD)
#define PG_DEP_VOID(T, N, OLD, NEW, PARAMS, ARGS) \
    void pshmem_##N##_##OLD(PARAMS)               \
    {                                             \
        pshmem_##N##_atomic_##NEW(ARGS);          \
    }                                             \
    PG_ALIAS(shmem_##N##_##OLD)

#define PG_DEP_EXT(T, N)                                                               \
    PG_DEP(T, N, fetch, fetch, PG_P(const T *source, int pe), PG_P(source, pe))        \
    PG_DEP_VOID(T, N, set, set, PG_P(T *dest, T value, int pe), PG_P(dest, value, pe)) \
    PG_DEP(T, N, swap, swap, PG_P(T *dest, T value, int pe), PG_P(dest, value, pe))
PANGEA_T_DEP_AMO_EXT(PG_DEP_EXT)

#define PG_DEP_STD(T, N)                                                                 \
    PG_DEP(T, N, cswap, compare_swap, PG_P(T *dest, T cond, T value, int pe),            \
           PG_P(dest, cond, value, pe))                                                  \
    PG_DEP(T, N, finc, fetch_inc, PG_P(T *dest, int pe), PG_P(dest, pe))                 \
    PG_DEP_VOID(T, N, inc, inc, PG_P(T *dest, int pe), PG_P(dest, pe))                   \
    PG_DEP(T, N, fadd, fetch_add, PG_P(T *dest, T value, int pe), PG_P(dest, value, pe)) \
    PG_DEP_VOID(T, N, add, add, PG_P(T *dest, T value, int pe), PG_P(dest, value, pe))
PANGEA_T_DEP_AMO(PG_DEP_STD)
