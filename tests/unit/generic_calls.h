/* Every type-generic name of OpenSHMEM 1.6 called with every type of its table in the
 * specification (the rows of spec_types.h, typedef'd types such as int32_t or size_t included),
 * with and without a leading ctx where the name takes one: the C11 _Generic selections
 * (header_generic.c) and the C++ overloads (header_generic_cxx.cpp) compile the same calls.
 * gc_all() makes them all; the tests only compile and link it. */
#ifndef PANGEA_TESTS_GENERIC_CALLS_H
#define PANGEA_TESTS_GENERIC_CALLS_H

#include "spec_types.h"

#ifdef __cplusplus
#define GC_ZERO \
    {           \
    }
#else
#define GC_ZERO \
    {           \
        0       \
    }
#endif

static uint64_t gc_sig;
static size_t gc_idx[4];
static const int gc_status[4] = GC_ZERO;

/* T-RMA: RMA (§3.6), put_signal (§3.8), the team data collectives and the MAX/MIN, SUM/PROD
 * reductions and scans (§3.10). */
#define GC_RMA(T, N)                                                          \
    {                                                                         \
        static T d[8], s[8];                                                  \
        const T *cs = s;                                                      \
        shmem_put(d, cs, 8, pe);                                              \
        shmem_put(ctx, d, s, 8, pe);                                          \
        shmem_get(d, cs, 8, pe);                                              \
        shmem_get(ctx, d, s, 8, pe);                                          \
        shmem_put_nbi(d, cs, 8, pe);                                          \
        shmem_put_nbi(ctx, d, s, 8, pe);                                      \
        shmem_get_nbi(d, cs, 8, pe);                                          \
        shmem_get_nbi(ctx, d, s, 8, pe);                                      \
        shmem_p(d, s[0], pe);                                                 \
        shmem_p(ctx, d, s[0], pe);                                            \
        d[1] = shmem_g(cs, pe);                                               \
        d[2] = shmem_g(ctx, s, pe);                                           \
        shmem_iput(d, cs, 2, 1, 4, pe);                                       \
        shmem_iput(ctx, d, s, 2, 1, 4, pe);                                   \
        shmem_iget(d, cs, 1, 2, 4, pe);                                       \
        shmem_iget(ctx, d, s, 1, 2, 4, pe);                                   \
        shmem_ibput(d, cs, 4, 2, 2, 2, pe);                                   \
        shmem_ibput(ctx, d, s, 4, 2, 2, 2, pe);                               \
        shmem_ibget(d, cs, 2, 4, 2, 2, pe);                                   \
        shmem_ibget(ctx, d, s, 2, 4, 2, 2, pe);                               \
        shmem_put_signal(d, cs, 8, &gc_sig, 1, SHMEM_SIGNAL_SET, pe);         \
        shmem_put_signal(ctx, d, s, 8, &gc_sig, 1, SHMEM_SIGNAL_ADD, pe);     \
        shmem_put_signal_nbi(d, cs, 8, &gc_sig, 1, SHMEM_SIGNAL_SET, pe);     \
        shmem_put_signal_nbi(ctx, d, s, 8, &gc_sig, 1, SHMEM_SIGNAL_ADD, pe); \
        n += shmem_alltoall(team, d, cs, 1);                                  \
        n += shmem_alltoalls(team, d, cs, 1, 1, 1);                           \
        n += shmem_broadcast(team, d, cs, 8, 0);                              \
        n += shmem_collect(team, d, cs, 1);                                   \
        n += shmem_fcollect(team, d, cs, 1);                                  \
        n += shmem_max_reduce(team, d, cs, 8);                                \
        n += shmem_min_reduce(team, d, cs, 8);                                \
        n += shmem_sum_reduce(team, d, cs, 8);                                \
        n += shmem_prod_reduce(team, d, cs, 8);                               \
        n += shmem_sum_inscan(team, d, cs, 8);                                \
        n += shmem_sum_exscan(team, d, cs, 8);                                \
    }

/* The complex rows, which only SUM/PROD and the scans take. */
#define GC_COMPLEX(T, N)                        \
    {                                           \
        static T d[8], s[8];                    \
        const T *cs = s;                        \
        n += shmem_sum_reduce(team, d, cs, 8);  \
        n += shmem_prod_reduce(team, d, cs, 8); \
        n += shmem_sum_inscan(team, d, cs, 8);  \
        n += shmem_sum_exscan(team, d, cs, 8);  \
    }

/* T-RED-TEAM AND/OR/XOR: the unsigned and exact-width types. */
#define GC_RED_BIT(T, N)                       \
    {                                          \
        static T d[8], s[8];                   \
        const T *cs = s;                       \
        n += shmem_and_reduce(team, d, cs, 8); \
        n += shmem_or_reduce(team, d, cs, 8);  \
        n += shmem_xor_reduce(team, d, cs, 8); \
    }

/* T-AMO-EXT (§3.7): fetch, set, swap and their nbi forms. */
#define GC_AMO_EXT(T, N)                          \
    {                                             \
        static T d[2], f;                         \
        const T *cd = d;                          \
        f = shmem_atomic_fetch(cd, pe);           \
        f = shmem_atomic_fetch(ctx, d, pe);       \
        shmem_atomic_set(d, f, pe);               \
        shmem_atomic_set(ctx, d, f, pe);          \
        f = shmem_atomic_swap(d, f, pe);          \
        f = shmem_atomic_swap(ctx, d, f, pe);     \
        shmem_atomic_fetch_nbi(&f, cd, pe);       \
        shmem_atomic_fetch_nbi(ctx, &f, d, pe);   \
        shmem_atomic_swap_nbi(&f, d, f, pe);      \
        shmem_atomic_swap_nbi(ctx, &f, d, f, pe); \
    }

/* T-AMO-STD (§3.7): compare_swap, fetch_inc, inc, fetch_add, add and the nbi forms. */
#define GC_AMO_STD(T, N)                                     \
    {                                                        \
        static T d[2], f;                                    \
        f = shmem_atomic_compare_swap(d, f, f, pe);          \
        f = shmem_atomic_compare_swap(ctx, d, f, f, pe);     \
        f = shmem_atomic_fetch_inc(d, pe);                   \
        f = shmem_atomic_fetch_inc(ctx, d, pe);              \
        shmem_atomic_inc(d, pe);                             \
        shmem_atomic_inc(ctx, d, pe);                        \
        f = shmem_atomic_fetch_add(d, f, pe);                \
        f = shmem_atomic_fetch_add(ctx, d, f, pe);           \
        shmem_atomic_add(d, f, pe);                          \
        shmem_atomic_add(ctx, d, f, pe);                     \
        shmem_atomic_compare_swap_nbi(&f, d, f, f, pe);      \
        shmem_atomic_compare_swap_nbi(ctx, &f, d, f, f, pe); \
        shmem_atomic_fetch_inc_nbi(&f, d, pe);               \
        shmem_atomic_fetch_inc_nbi(ctx, &f, d, pe);          \
        shmem_atomic_fetch_add_nbi(&f, d, f, pe);            \
        shmem_atomic_fetch_add_nbi(ctx, &f, d, f, pe);       \
    }

/* T-AMO-BIT (§3.7): the bitwise AMOs. */
#define GC_AMO_BIT(T, N)                               \
    {                                                  \
        static T d[2], f;                              \
        f = shmem_atomic_fetch_and(d, f, pe);          \
        f = shmem_atomic_fetch_and(ctx, d, f, pe);     \
        shmem_atomic_and(d, f, pe);                    \
        shmem_atomic_and(ctx, d, f, pe);               \
        f = shmem_atomic_fetch_or(d, f, pe);           \
        f = shmem_atomic_fetch_or(ctx, d, f, pe);      \
        shmem_atomic_or(d, f, pe);                     \
        shmem_atomic_or(ctx, d, f, pe);                \
        f = shmem_atomic_fetch_xor(d, f, pe);          \
        f = shmem_atomic_fetch_xor(ctx, d, f, pe);     \
        shmem_atomic_xor(d, f, pe);                    \
        shmem_atomic_xor(ctx, d, f, pe);               \
        shmem_atomic_fetch_and_nbi(&f, d, f, pe);      \
        shmem_atomic_fetch_and_nbi(ctx, &f, d, f, pe); \
        shmem_atomic_fetch_or_nbi(&f, d, f, pe);       \
        shmem_atomic_fetch_or_nbi(ctx, &f, d, f, pe);  \
        shmem_atomic_fetch_xor_nbi(&f, d, f, pe);      \
        shmem_atomic_fetch_xor_nbi(ctx, &f, d, f, pe); \
    }

/* T-P2P (§3.11): every point-to-point synchronization routine. */
#define GC_P2P(T, N)                                                                  \
    {                                                                                 \
        static T v[4];                                                                \
        const T *cv = v;                                                              \
        shmem_wait_until(v, SHMEM_CMP_EQ, v[1]);                                      \
        n += shmem_test(v, SHMEM_CMP_NE, v[1]);                                       \
        shmem_wait_until_all(v, 4, gc_status, SHMEM_CMP_EQ, v[1]);                    \
        n += shmem_wait_until_any(v, 4, NULL, SHMEM_CMP_EQ, v[1]);                    \
        n += shmem_wait_until_some(v, 4, gc_idx, gc_status, SHMEM_CMP_EQ, v[1]);      \
        shmem_wait_until_all_vector(v, 4, gc_status, SHMEM_CMP_EQ, cv);               \
        n += shmem_wait_until_any_vector(v, 4, gc_status, SHMEM_CMP_EQ, cv);          \
        n += shmem_wait_until_some_vector(v, 4, gc_idx, gc_status, SHMEM_CMP_EQ, cv); \
        n += shmem_test_all(v, 4, gc_status, SHMEM_CMP_EQ, v[1]);                     \
        n += shmem_test_any(v, 4, gc_status, SHMEM_CMP_EQ, v[1]);                     \
        n += shmem_test_some(v, 4, gc_idx, NULL, SHMEM_CMP_EQ, v[1]);                 \
        n += shmem_test_all_vector(v, 4, gc_status, SHMEM_CMP_EQ, cv);                \
        n += shmem_test_any_vector(v, 4, gc_status, SHMEM_CMP_EQ, cv);                \
        n += shmem_test_some_vector(v, 4, gc_idx, gc_status, SHMEM_CMP_EQ, cv);       \
    }

/* §4.3 The deprecated AMO generics (no ctx form). */
#define GC_DEP_AMO_EXT(T, N)      \
    {                             \
        static T d[2], f;         \
        const T *cd = d;          \
        f = shmem_fetch(cd, pe);  \
        shmem_set(d, f, pe);      \
        f = shmem_swap(d, f, pe); \
    }
#define GC_DEP_AMO(T, N)              \
    {                                 \
        static T d[2], f;             \
        f = shmem_cswap(d, f, f, pe); \
        f = shmem_finc(d, pe);        \
        shmem_inc(d, pe);             \
        f = shmem_fadd(d, f, pe);     \
        shmem_add(d, f, pe);          \
    }

static size_t gc_all(shmem_ctx_t ctx, shmem_team_t team, int pe)
{
    size_t n = 0;
    TEST_T_RMA(GC_RMA)
    TEST_T_COMPLEX(GC_COMPLEX)
    TEST_T_RED_BIT(GC_RED_BIT)
    TEST_T_AMO_EXT(GC_AMO_EXT)
    TEST_T_AMO_STD(GC_AMO_STD)
    TEST_T_AMO_BIT(GC_AMO_BIT)
    TEST_T_P2P(GC_P2P)
    TEST_T_DEP_AMO_EXT(GC_DEP_AMO_EXT)
    TEST_T_DEP_AMO(GC_DEP_AMO)
    /* the names dispatched by arity (§3.8, §4.6) */
    shmem_signal_add(&gc_sig, 1, pe);
    shmem_signal_add(ctx, &gc_sig, 1, pe);
    shmem_signal_set(&gc_sig, 1, pe);
    shmem_signal_set(ctx, &gc_sig, 1, pe);
    n += shmem_sync(team);
    return n;
}

#endif /* PANGEA_TESTS_GENERIC_CALLS_H */
