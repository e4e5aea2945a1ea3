/* Pangea: the OpenSHMEM type-generic interface in C++, as overloads.
 *
 * C++ has no _Generic: every type-generic name of shmem.h is here a set of inline overloads,
 * one for each row of the same type table as its C11 selection (PANGEA_GT_<name>,
 * pangea_shmem_tables.h), with and without a leading shmem_ctx_t where the C11 name takes one.
 * Each overload calls the typed function. shmem.h includes this file in C++ only, after its
 * extern "C" block. */
#ifndef PANGEA_SHMEM_CXX_H
#define PANGEA_SHMEM_CXX_H

#define PANGEA_CXX_UNPAREN(...) __VA_ARGS__

/* shmem_FAM PARAMS, calling shmem_N_FAM ARGS (N is the row's TYPENAME). */
#define PANGEA_CXX_PLAIN(RET, FAM, N, PARAMS, ARGS) \
    inline RET shmem_##FAM PARAMS                   \
    {                                               \
        return shmem_##N##_##FAM ARGS;              \
    }
/* ... and its ctx form shmem_FAM(ctx, PARAMS...), calling shmem_ctx_N_FAM. */
#define PANGEA_CXX_CTX(RET, FAM, N, PARAMS, ARGS)                      \
    PANGEA_CXX_PLAIN(RET, FAM, N, PARAMS, ARGS)                        \
    inline RET shmem_##FAM(shmem_ctx_t ctx, PANGEA_CXX_UNPAREN PARAMS) \
    {                                                                  \
        return shmem_ctx_##N##_##FAM(ctx, PANGEA_CXX_UNPAREN ARGS);    \
    }

/* The signatures, by shape: FORM is PANGEA_CXX_CTX or PANGEA_CXX_PLAIN. */
#define PANGEA_CXX_CONTIG(FORM, FAM, T, N)                                 \
    FORM(void, FAM, N, (T * dest, const T *source, size_t nelems, int pe), \
         (dest, source, nelems, pe))
#define PANGEA_CXX_STRIDED(FORM, FAM, T, N)                                                \
    FORM(void, FAM, N,                                                                     \
         (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe), \
         (dest, source, dst, sst, nelems, pe))
#define PANGEA_CXX_BLOCKED(FORM, FAM, T, N)                                                      \
    FORM(void, FAM, N,                                                                           \
         (T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
          int pe),                                                                               \
         (dest, source, dst, sst, bsize, nblocks, pe))
#define PANGEA_CXX_READ(FORM, FAM, T, N) FORM(T, FAM, N, (const T *source, int pe), (source, pe))
#define PANGEA_CXX_WRITE(FORM, RET, FAM, T, N) \
    FORM(RET, FAM, N, (T * dest, T value, int pe), (dest, value, pe))
#define PANGEA_CXX_CSWAP(FORM, FAM, T, N) \
    FORM(T, FAM, N, (T * dest, T cond, T value, int pe), (dest, cond, value, pe))
#define PANGEA_CXX_INC(FORM, RET, FAM, T, N) FORM(RET, FAM, N, (T * dest, int pe), (dest, pe))
#define PANGEA_CXX_NBI(FAM, T, N) \
    PANGEA_CXX_CTX(void, FAM, N, (T * fetch, T * dest, T value, int pe), (fetch, dest, value, pe))
#define PANGEA_CXX_SIGNAL(FAM, T, N)                                                               \
    PANGEA_CXX_CTX(void, FAM, N,                                                                   \
                   (T * dest, const T *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, \
                    int sig_op, int pe),                                                           \
                   (dest, source, nelems, sig_addr, signal, sig_op, pe))
#define PANGEA_CXX_WAIT(RET, FAM, T, N) \
    PANGEA_CXX_PLAIN(RET, FAM, N, (T * ivar, int cmp, T cmp_value), (ivar, cmp, cmp_value))
#define PANGEA_CXX_MULTI(RET, FAM, T, N)                                                  \
    PANGEA_CXX_PLAIN(RET, FAM, N,                                                         \
                     (T * ivars, size_t nelems, const int *status, int cmp, T cmp_value), \
                     (ivars, nelems, status, cmp, cmp_value))
#define PANGEA_CXX_MULTI_VECTOR(RET, FAM, T, N)                                                   \
    PANGEA_CXX_PLAIN(RET, FAM, N,                                                                 \
                     (T * ivars, size_t nelems, const int *status, int cmp, const T *cmp_values), \
                     (ivars, nelems, status, cmp, cmp_values))
#define PANGEA_CXX_SOME(FAM, T, N)                                                             \
    PANGEA_CXX_PLAIN(                                                                          \
        size_t, FAM, N,                                                                        \
        (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, T cmp_value), \
        (ivars, nelems, indices, status, cmp, cmp_value))
#define PANGEA_CXX_SOME_VECTOR(FAM, T, N)                                                     \
    PANGEA_CXX_PLAIN(size_t, FAM, N,                                                          \
                     (T * ivars, size_t nelems, size_t * indices, const int *status, int cmp, \
                      const T *cmp_values),                                                   \
                     (ivars, nelems, indices, status, cmp, cmp_values))
#define PANGEA_CXX_TEAM(FAM, T, N)                                                               \
    PANGEA_CXX_PLAIN(int, FAM, N, (shmem_team_t team, T * dest, const T *source, size_t nelems), \
                     (team, dest, source, nelems))

/* §3.6 RMA */
#define PANGEA_CXX_put(T, N) PANGEA_CXX_CONTIG(PANGEA_CXX_CTX, put, T, N)
#define PANGEA_CXX_get(T, N) PANGEA_CXX_CONTIG(PANGEA_CXX_CTX, get, T, N)
#define PANGEA_CXX_put_nbi(T, N) PANGEA_CXX_CONTIG(PANGEA_CXX_CTX, put_nbi, T, N)
#define PANGEA_CXX_get_nbi(T, N) PANGEA_CXX_CONTIG(PANGEA_CXX_CTX, get_nbi, T, N)
#define PANGEA_CXX_p(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, p, T, N)
#define PANGEA_CXX_g(T, N) PANGEA_CXX_READ(PANGEA_CXX_CTX, g, T, N)
#define PANGEA_CXX_iput(T, N) PANGEA_CXX_STRIDED(PANGEA_CXX_CTX, iput, T, N)
#define PANGEA_CXX_iget(T, N) PANGEA_CXX_STRIDED(PANGEA_CXX_CTX, iget, T, N)
#define PANGEA_CXX_ibput(T, N) PANGEA_CXX_BLOCKED(PANGEA_CXX_CTX, ibput, T, N)
#define PANGEA_CXX_ibget(T, N) PANGEA_CXX_BLOCKED(PANGEA_CXX_CTX, ibget, T, N)

/* §3.7 AMO, blocking */
#define PANGEA_CXX_atomic_fetch(T, N) PANGEA_CXX_READ(PANGEA_CXX_CTX, atomic_fetch, T, N)
#define PANGEA_CXX_atomic_set(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, atomic_set, T, N)
#define PANGEA_CXX_atomic_swap(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, T, atomic_swap, T, N)
#define PANGEA_CXX_atomic_compare_swap(T, N) \
    PANGEA_CXX_CSWAP(PANGEA_CXX_CTX, atomic_compare_swap, T, N)
#define PANGEA_CXX_atomic_fetch_inc(T, N) PANGEA_CXX_INC(PANGEA_CXX_CTX, T, atomic_fetch_inc, T, N)
#define PANGEA_CXX_atomic_inc(T, N) PANGEA_CXX_INC(PANGEA_CXX_CTX, void, atomic_inc, T, N)
#define PANGEA_CXX_atomic_fetch_add(T, N) \
    PANGEA_CXX_WRITE(PANGEA_CXX_CTX, T, atomic_fetch_add, T, N)
#define PANGEA_CXX_atomic_add(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, atomic_add, T, N)
#define PANGEA_CXX_atomic_fetch_and(T, N) \
    PANGEA_CXX_WRITE(PANGEA_CXX_CTX, T, atomic_fetch_and, T, N)
#define PANGEA_CXX_atomic_and(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, atomic_and, T, N)
#define PANGEA_CXX_atomic_fetch_or(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, T, atomic_fetch_or, T, N)
#define PANGEA_CXX_atomic_or(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, atomic_or, T, N)
#define PANGEA_CXX_atomic_fetch_xor(T, N) \
    PANGEA_CXX_WRITE(PANGEA_CXX_CTX, T, atomic_fetch_xor, T, N)
#define PANGEA_CXX_atomic_xor(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_CTX, void, atomic_xor, T, N)

/* §3.7 AMO, nonblocking fetching (the result lands in *fetch) */
#define PANGEA_CXX_atomic_fetch_nbi(T, N)                                           \
    PANGEA_CXX_CTX(void, atomic_fetch_nbi, N, (T * fetch, const T *source, int pe), \
                   (fetch, source, pe))
#define PANGEA_CXX_atomic_compare_swap_nbi(T, N)     \
    PANGEA_CXX_CTX(void, atomic_compare_swap_nbi, N, \
                   (T * fetch, T * dest, T cond, T value, int pe), (fetch, dest, cond, value, pe))
#define PANGEA_CXX_atomic_fetch_inc_nbi(T, N) \
    PANGEA_CXX_CTX(void, atomic_fetch_inc_nbi, N, (T * fetch, T * dest, int pe), (fetch, dest, pe))
#define PANGEA_CXX_atomic_swap_nbi(T, N) PANGEA_CXX_NBI(atomic_swap_nbi, T, N)
#define PANGEA_CXX_atomic_fetch_add_nbi(T, N) PANGEA_CXX_NBI(atomic_fetch_add_nbi, T, N)
#define PANGEA_CXX_atomic_fetch_and_nbi(T, N) PANGEA_CXX_NBI(atomic_fetch_and_nbi, T, N)
#define PANGEA_CXX_atomic_fetch_or_nbi(T, N) PANGEA_CXX_NBI(atomic_fetch_or_nbi, T, N)
#define PANGEA_CXX_atomic_fetch_xor_nbi(T, N) PANGEA_CXX_NBI(atomic_fetch_xor_nbi, T, N)

/* §3.8 Signaling: put_signal[_nbi], and the ctx forms of signal_add and signal_set */
#define PANGEA_CXX_put_signal(T, N) PANGEA_CXX_SIGNAL(put_signal, T, N)
#define PANGEA_CXX_put_signal_nbi(T, N) PANGEA_CXX_SIGNAL(put_signal_nbi, T, N)
inline void shmem_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_add(ctx, sig_addr, signal, pe);
}
inline void shmem_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_ctx_signal_set(ctx, sig_addr, signal, pe);
}

/* §3.11 Point-to-point synchronization */
#define PANGEA_CXX_wait_until(T, N) PANGEA_CXX_WAIT(void, wait_until, T, N)
#define PANGEA_CXX_test(T, N) PANGEA_CXX_WAIT(int, test, T, N)
#define PANGEA_CXX_wait_until_all(T, N) PANGEA_CXX_MULTI(void, wait_until_all, T, N)
#define PANGEA_CXX_wait_until_any(T, N) PANGEA_CXX_MULTI(size_t, wait_until_any, T, N)
#define PANGEA_CXX_wait_until_some(T, N) PANGEA_CXX_SOME(wait_until_some, T, N)
#define PANGEA_CXX_wait_until_all_vector(T, N) \
    PANGEA_CXX_MULTI_VECTOR(void, wait_until_all_vector, T, N)
#define PANGEA_CXX_wait_until_any_vector(T, N) \
    PANGEA_CXX_MULTI_VECTOR(size_t, wait_until_any_vector, T, N)
#define PANGEA_CXX_wait_until_some_vector(T, N) PANGEA_CXX_SOME_VECTOR(wait_until_some_vector, T, N)
#define PANGEA_CXX_test_all(T, N) PANGEA_CXX_MULTI(int, test_all, T, N)
#define PANGEA_CXX_test_any(T, N) PANGEA_CXX_MULTI(size_t, test_any, T, N)
#define PANGEA_CXX_test_some(T, N) PANGEA_CXX_SOME(test_some, T, N)
#define PANGEA_CXX_test_all_vector(T, N) PANGEA_CXX_MULTI_VECTOR(int, test_all_vector, T, N)
#define PANGEA_CXX_test_any_vector(T, N) PANGEA_CXX_MULTI_VECTOR(size_t, test_any_vector, T, N)
#define PANGEA_CXX_test_some_vector(T, N) PANGEA_CXX_SOME_VECTOR(test_some_vector, T, N)

/* §4.3 Deprecated AMO names (no ctx form) */
#define PANGEA_CXX_fetch(T, N) PANGEA_CXX_READ(PANGEA_CXX_PLAIN, fetch, T, N)
#define PANGEA_CXX_set(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_PLAIN, void, set, T, N)
#define PANGEA_CXX_swap(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_PLAIN, T, swap, T, N)
#define PANGEA_CXX_cswap(T, N) PANGEA_CXX_CSWAP(PANGEA_CXX_PLAIN, cswap, T, N)
#define PANGEA_CXX_finc(T, N) PANGEA_CXX_INC(PANGEA_CXX_PLAIN, T, finc, T, N)
#define PANGEA_CXX_inc(T, N) PANGEA_CXX_INC(PANGEA_CXX_PLAIN, void, inc, T, N)
#define PANGEA_CXX_fadd(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_PLAIN, T, fadd, T, N)
#define PANGEA_CXX_add(T, N) PANGEA_CXX_WRITE(PANGEA_CXX_PLAIN, void, add, T, N)

/* §3.10 Team collectives; shmem_sync(team) is shmem_team_sync */
#define PANGEA_CXX_alltoall(T, N) PANGEA_CXX_TEAM(alltoall, T, N)
#define PANGEA_CXX_collect(T, N) PANGEA_CXX_TEAM(collect, T, N)
#define PANGEA_CXX_fcollect(T, N) PANGEA_CXX_TEAM(fcollect, T, N)
#define PANGEA_CXX_alltoalls(T, N)                                                                \
    PANGEA_CXX_PLAIN(int, alltoalls, N,                                                           \
                     (shmem_team_t team, T * dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, \
                      size_t nelems),                                                             \
                     (team, dest, source, dst, sst, nelems))
#define PANGEA_CXX_broadcast(T, N)                                                               \
    PANGEA_CXX_PLAIN(int, broadcast, N,                                                          \
                     (shmem_team_t team, T * dest, const T *source, size_t nelems, int PE_root), \
                     (team, dest, source, nelems, PE_root))
#define PANGEA_CXX_and_reduce(T, N) PANGEA_CXX_TEAM(and_reduce, T, N)
#define PANGEA_CXX_or_reduce(T, N) PANGEA_CXX_TEAM(or_reduce, T, N)
#define PANGEA_CXX_xor_reduce(T, N) PANGEA_CXX_TEAM(xor_reduce, T, N)
#define PANGEA_CXX_max_reduce(T, N) PANGEA_CXX_TEAM(max_reduce, T, N)
#define PANGEA_CXX_min_reduce(T, N) PANGEA_CXX_TEAM(min_reduce, T, N)
#define PANGEA_CXX_sum_reduce(T, N) PANGEA_CXX_TEAM(sum_reduce, T, N)
#define PANGEA_CXX_prod_reduce(T, N) PANGEA_CXX_TEAM(prod_reduce, T, N)
#define PANGEA_CXX_sum_inscan(T, N) PANGEA_CXX_TEAM(sum_inscan, T, N)
#define PANGEA_CXX_sum_exscan(T, N) PANGEA_CXX_TEAM(sum_exscan, T, N)
inline int shmem_sync(shmem_team_t team)
{
    return shmem_team_sync(team);
}

/* The overloads: every generic name over the rows of its type table. shmem_wait_until(long *,
 * int, long) is the deprecated C function itself, so its long row is left out
 * (PANGEA_T_P2P_BASE_NOT_LONG is PANGEA_GT_wait_until without it). */
/* clang-format off */
PANGEA_GT_put(PANGEA_CXX_put)
PANGEA_GT_get(PANGEA_CXX_get)
PANGEA_GT_put_nbi(PANGEA_CXX_put_nbi)
PANGEA_GT_get_nbi(PANGEA_CXX_get_nbi)
PANGEA_GT_p(PANGEA_CXX_p)
PANGEA_GT_g(PANGEA_CXX_g)
PANGEA_GT_iput(PANGEA_CXX_iput)
PANGEA_GT_iget(PANGEA_CXX_iget)
PANGEA_GT_ibput(PANGEA_CXX_ibput)
PANGEA_GT_ibget(PANGEA_CXX_ibget)
PANGEA_GT_atomic_fetch(PANGEA_CXX_atomic_fetch)
PANGEA_GT_atomic_set(PANGEA_CXX_atomic_set)
PANGEA_GT_atomic_swap(PANGEA_CXX_atomic_swap)
PANGEA_GT_atomic_compare_swap(PANGEA_CXX_atomic_compare_swap)
PANGEA_GT_atomic_fetch_inc(PANGEA_CXX_atomic_fetch_inc)
PANGEA_GT_atomic_inc(PANGEA_CXX_atomic_inc)
PANGEA_GT_atomic_fetch_add(PANGEA_CXX_atomic_fetch_add)
PANGEA_GT_atomic_add(PANGEA_CXX_atomic_add)
PANGEA_GT_atomic_fetch_and(PANGEA_CXX_atomic_fetch_and)
PANGEA_GT_atomic_and(PANGEA_CXX_atomic_and)
PANGEA_GT_atomic_fetch_or(PANGEA_CXX_atomic_fetch_or)
PANGEA_GT_atomic_or(PANGEA_CXX_atomic_or)
PANGEA_GT_atomic_fetch_xor(PANGEA_CXX_atomic_fetch_xor)
PANGEA_GT_atomic_xor(PANGEA_CXX_atomic_xor)
PANGEA_GT_atomic_fetch_nbi(PANGEA_CXX_atomic_fetch_nbi)
PANGEA_GT_atomic_compare_swap_nbi(PANGEA_CXX_atomic_compare_swap_nbi)
PANGEA_GT_atomic_fetch_inc_nbi(PANGEA_CXX_atomic_fetch_inc_nbi)
PANGEA_GT_atomic_swap_nbi(PANGEA_CXX_atomic_swap_nbi)
PANGEA_GT_atomic_fetch_add_nbi(PANGEA_CXX_atomic_fetch_add_nbi)
PANGEA_GT_atomic_fetch_and_nbi(PANGEA_CXX_atomic_fetch_and_nbi)
PANGEA_GT_atomic_fetch_or_nbi(PANGEA_CXX_atomic_fetch_or_nbi)
PANGEA_GT_atomic_fetch_xor_nbi(PANGEA_CXX_atomic_fetch_xor_nbi)
PANGEA_GT_put_signal(PANGEA_CXX_put_signal)
PANGEA_GT_put_signal_nbi(PANGEA_CXX_put_signal_nbi)
PANGEA_T_P2P_BASE_NOT_LONG(PANGEA_CXX_wait_until)
PANGEA_GT_test(PANGEA_CXX_test)
PANGEA_GT_wait_until_all(PANGEA_CXX_wait_until_all)
PANGEA_GT_wait_until_any(PANGEA_CXX_wait_until_any)
PANGEA_GT_wait_until_some(PANGEA_CXX_wait_until_some)
PANGEA_GT_wait_until_all_vector(PANGEA_CXX_wait_until_all_vector)
PANGEA_GT_wait_until_any_vector(PANGEA_CXX_wait_until_any_vector)
PANGEA_GT_wait_until_some_vector(PANGEA_CXX_wait_until_some_vector)
PANGEA_GT_test_all(PANGEA_CXX_test_all)
PANGEA_GT_test_any(PANGEA_CXX_test_any)
PANGEA_GT_test_some(PANGEA_CXX_test_some)
PANGEA_GT_test_all_vector(PANGEA_CXX_test_all_vector)
PANGEA_GT_test_any_vector(PANGEA_CXX_test_any_vector)
PANGEA_GT_test_some_vector(PANGEA_CXX_test_some_vector)
PANGEA_GT_fetch(PANGEA_CXX_fetch)
PANGEA_GT_set(PANGEA_CXX_set)
PANGEA_GT_swap(PANGEA_CXX_swap)
PANGEA_GT_cswap(PANGEA_CXX_cswap)
PANGEA_GT_finc(PANGEA_CXX_finc)
PANGEA_GT_inc(PANGEA_CXX_inc)
PANGEA_GT_fadd(PANGEA_CXX_fadd)
PANGEA_GT_add(PANGEA_CXX_add)
PANGEA_GT_alltoall(PANGEA_CXX_alltoall)
PANGEA_GT_alltoalls(PANGEA_CXX_alltoalls)
PANGEA_GT_broadcast(PANGEA_CXX_broadcast)
PANGEA_GT_collect(PANGEA_CXX_collect)
PANGEA_GT_fcollect(PANGEA_CXX_fcollect)
PANGEA_GT_and_reduce(PANGEA_CXX_and_reduce)
PANGEA_GT_or_reduce(PANGEA_CXX_or_reduce)
PANGEA_GT_xor_reduce(PANGEA_CXX_xor_reduce)
PANGEA_GT_max_reduce(PANGEA_CXX_max_reduce)
PANGEA_GT_min_reduce(PANGEA_CXX_min_reduce)
PANGEA_GT_sum_reduce(PANGEA_CXX_sum_reduce)
PANGEA_GT_prod_reduce(PANGEA_CXX_prod_reduce)
PANGEA_GT_sum_inscan(PANGEA_CXX_sum_inscan)
PANGEA_GT_sum_exscan(PANGEA_CXX_sum_exscan)
/* clang-format on */

#endif /* PANGEA_SHMEM_CXX_H */
