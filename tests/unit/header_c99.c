/* Compile-only check of the OpenSHMEM headers in C99 (no type-generic names): the constants and
 * types, and a sample of every family of typed, SIZE, mem and ctx functions, the deprecated
 * names and the pshmem_ profiling twins. Built with -std=c99 -Wall -Wextra -Werror -pedantic and
 * linked against the library; nothing here runs (the calls sit behind argc > 100). */
#include <shmem.h>
#include <stdio.h>
#include <shmemx.h>
#include <pshmem.h>
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <stddef.h>
#include <stdint.h>

/* §1.1: constants usable in constant expressions. */
typedef char check_version[(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6) ? 1 : -1];
typedef char check_threads[(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
                            SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
                            SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE)
                               ? 1
                               : -1];
typedef char check_name[sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN ? 1 : -1];
typedef char check_sync
    [(SHMEM_SYNC_SIZE >= SHMEM_BARRIER_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_BCAST_SYNC_SIZE &&
      SHMEM_SYNC_SIZE >= SHMEM_COLLECT_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_REDUCE_SYNC_SIZE &&
      SHMEM_SYNC_SIZE >= SHMEM_ALLTOALL_SYNC_SIZE && SHMEM_SYNC_SIZE >= SHMEM_ALLTOALLS_SYNC_SIZE)
         ? 1
         : -1];
typedef char check_legacy[(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION &&
                           _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION &&
                           _SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN &&
                           _SHMEM_REDUCE_MIN_WRKDATA_SIZE == SHMEM_REDUCE_MIN_WRKDATA_SIZE &&
                           _SHMEM_BARRIER_SYNC_SIZE + _SHMEM_BCAST_SYNC_SIZE +
                                   _SHMEM_COLLECT_SYNC_SIZE + _SHMEM_REDUCE_SYNC_SIZE >
                               0)
                              ? 1
                              : -1];

static long pSync[SHMEM_SYNC_SIZE] = {SHMEM_SYNC_VALUE};
static long pSync_legacy[_SHMEM_BCAST_SYNC_SIZE] = {_SHMEM_SYNC_VALUE};
static char vendor[] = _SHMEM_VENDOR_STRING;

static const char *cmp_name(int cmp)
{
    switch (cmp) { /* integer constant expressions */
    case SHMEM_CMP_EQ:
        return "eq";
    case SHMEM_CMP_NE:
        return "ne";
    case SHMEM_CMP_GT:
        return "gt";
    case SHMEM_CMP_GE:
        return "ge";
    case SHMEM_CMP_LT:
        return "lt";
    case SHMEM_CMP_LE:
        return "le";
    case SHMEM_SIGNAL_SET + 100:
        return "set";
    case SHMEM_SIGNAL_ADD + 100:
        return "add";
    default:
        return _SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE &&
                       _SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE &&
                       _SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE
                   ? "?"
                   : "!";
    }
}

static int i_arr[8];
static long l_arr[8];
static long long ll_arr[8];
static short s_arr[8];
static unsigned short us_arr[8];
static float f_arr[8];
static double d_arr[8];
static long double ld_arr[8];
static char c_arr[8];
static int32_t i32_arr[8];
static int64_t i64_arr[8];
static uint32_t u32_arr[8];
static uint64_t u64_arr[8];
static size_t sz_arr[8];
static ptrdiff_t pd_arr[8];
static const int ci_arr[8];
static const uint64_t cu64_arr[8];
static uint64_t sig;
static size_t indices[8];
static const int status[8];
static long lock;

static void types_and_handles(void)
{
    shmem_team_config_t tconf;
    shmem_ctx_session_config_t sconf;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    shmem_team_t team = SHMEM_TEAM_WORLD;
    long options = SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE;
    long masks = SHMEM_TEAM_NUM_CONTEXTS | SHMEM_CTX_SESSION_TOTAL_OPS | SHMEM_CTX_SESSION_BATCH;

    tconf.num_contexts = 1;
    sconf.total_ops = SIZE_MAX;
    if (ctx == SHMEM_CTX_INVALID || team == SHMEM_TEAM_INVALID || team == SHMEM_TEAM_SHARED)
        options += masks + tconf.num_contexts + (long)sconf.total_ops;
    if (options == 0)
        shmem_global_exit(2);
}

static void setup_memory(void)
{
    int initialized, major, minor, provided;
    char name[SHMEM_MAX_NAME_LEN];
    void *p;

    if (shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) != 0)
        shmem_init();
    shmem_query_initialized(&initialized);
    shmem_query_thread(&provided);
    shmem_info_get_version(&major, &minor);
    shmem_info_get_name(name);
    if (!shmem_pe_accessible(shmem_n_pes() - 1) || !shmem_addr_accessible(i_arr, shmem_my_pe()))
        return;
    p = shmem_ptr(i_arr, 0);
    p = shmem_malloc(64);
    p = shmem_realloc(p, 128);
    shmem_free(p);
    p = shmem_align(64, 64);
    shmem_free(p);
    p = shmem_malloc_with_hints(64, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    shmem_free(p);
    p = shmem_calloc(8, sizeof(long));
    shmem_free(p);
    shmem_pcontrol(1);
    shmem_pcontrol(3, "extra", 42);
    shmem_barrier_all();
    shmem_sync_all();
}

static double rma(shmem_ctx_t ctx, int pe)
{
    double sum = 0;

    shmem_int_put(i_arr, ci_arr, 8, pe);
    shmem_ctx_int32_put(ctx, i32_arr, i32_arr, 8, pe);
    shmem_char_put(c_arr, "abcdefg", 8, pe);
    shmem_put8(c_arr, c_arr, 8, pe);
    shmem_ctx_put128(ctx, ld_arr, ld_arr, 1, pe);
    shmem_putmem(c_arr, c_arr, 8, pe);
    shmem_ctx_putmem(ctx, c_arr, c_arr, 8, pe);
    shmem_double_p(d_arr, 1.0, pe);
    shmem_ctx_size_p(ctx, sz_arr, 1, pe);
    shmem_long_iput(l_arr, l_arr, 2, 1, 4, pe);
    shmem_ctx_iput64(ctx, l_arr, l_arr, 2, 1, 4, pe);
    shmem_ptrdiff_ibput(pd_arr, pd_arr, 4, 2, 2, 2, pe);
    shmem_ctx_ibput16(ctx, s_arr, s_arr, 4, 2, 2, 2, pe);
    shmem_uint64_get(u64_arr, cu64_arr, 8, pe);
    shmem_ctx_longdouble_get(ctx, ld_arr, ld_arr, 8, pe);
    shmem_get32(i_arr, ci_arr, 8, pe);
    shmem_ctx_getmem(ctx, c_arr, c_arr, 8, pe);
    sum += shmem_int_g(ci_arr, pe);
    sum += (double)shmem_ctx_longdouble_g(ctx, ld_arr, pe);
    shmem_ushort_iget(us_arr, us_arr, 1, 2, 4, pe);
    shmem_ctx_iget32(ctx, u32_arr, u32_arr, 1, 2, 4, pe);
    shmem_float_ibget(f_arr, f_arr, 2, 4, 2, 2, pe);
    shmem_ctx_ibget64(ctx, d_arr, d_arr, 2, 4, 2, 2, pe);
    shmem_longlong_put_nbi(ll_arr, ll_arr, 8, pe);
    shmem_ctx_put64_nbi(ctx, i64_arr, i64_arr, 8, pe);
    shmem_putmem_nbi(c_arr, c_arr, 8, pe);
    shmem_ctx_schar_get_nbi(ctx, (signed char *)c_arr, (const signed char *)c_arr, 8, pe);
    shmem_get128_nbi(ld_arr, ld_arr, 1, pe);
    shmem_ctx_getmem_nbi(ctx, c_arr, c_arr, 8, pe);
    return sum;
}

static long amo(shmem_ctx_t ctx, int pe)
{
    long sum = 0;
    static int fi;
    static uint64_t fu64;

    sum += shmem_int_atomic_fetch(ci_arr, pe);
    sum += (long)shmem_ctx_double_atomic_fetch(ctx, d_arr, pe);
    shmem_float_atomic_set(f_arr, 1.0f, pe);
    shmem_ctx_size_atomic_set(ctx, sz_arr, 1, pe);
    sum += shmem_long_atomic_compare_swap(l_arr, 0, 1, pe);
    sum += (long)shmem_ctx_uint64_atomic_compare_swap(ctx, u64_arr, 0, 1, pe);
    sum += shmem_ptrdiff_atomic_swap(pd_arr, 1, pe);
    sum += (long)shmem_ctx_double_atomic_swap(ctx, d_arr, 1.0, pe);
    sum += shmem_longlong_atomic_fetch_inc(ll_arr, pe);
    sum += shmem_ctx_int32_atomic_fetch_inc(ctx, i32_arr, pe);
    shmem_ulong_atomic_inc((unsigned long *)sz_arr, pe);
    shmem_ctx_int_atomic_inc(ctx, i_arr, pe);
    sum += shmem_int64_atomic_fetch_add(i64_arr, 1, pe);
    sum += (long)shmem_ctx_uint32_atomic_fetch_add(ctx, u32_arr, 1, pe);
    shmem_size_atomic_add(sz_arr, 1, pe);
    shmem_ctx_long_atomic_add(ctx, l_arr, 1, pe);
    sum += (long)shmem_uint64_atomic_fetch_and(u64_arr, 1, pe);
    sum += shmem_ctx_int32_atomic_fetch_and(ctx, i32_arr, 1, pe);
    shmem_uint_atomic_and((unsigned int *)u32_arr, 1, pe);
    shmem_ctx_int64_atomic_and(ctx, i64_arr, 1, pe);
    sum += (long)shmem_ulonglong_atomic_fetch_or((unsigned long long *)ll_arr, 1, pe);
    sum += (long)shmem_ctx_uint32_atomic_fetch_or(ctx, u32_arr, 1, pe);
    shmem_int32_atomic_or(i32_arr, 1, pe);
    shmem_ctx_uint64_atomic_or(ctx, u64_arr, 1, pe);
    sum += (long)shmem_ulong_atomic_fetch_xor((unsigned long *)l_arr, 1, pe);
    sum += shmem_ctx_int64_atomic_fetch_xor(ctx, i64_arr, 1, pe);
    shmem_uint32_atomic_xor(u32_arr, 1, pe);
    shmem_ctx_ulonglong_atomic_xor(ctx, (unsigned long long *)ll_arr, 1, pe);

    shmem_int_atomic_fetch_nbi(&fi, ci_arr, pe);
    shmem_ctx_uint64_atomic_fetch_nbi(ctx, &fu64, cu64_arr, pe);
    shmem_int_atomic_compare_swap_nbi(&fi, i_arr, 0, 1, pe);
    shmem_ctx_uint64_atomic_compare_swap_nbi(ctx, &fu64, u64_arr, 0, 1, pe);
    shmem_int_atomic_swap_nbi(&fi, i_arr, 1, pe);
    shmem_ctx_uint64_atomic_swap_nbi(ctx, &fu64, u64_arr, 1, pe);
    shmem_int_atomic_fetch_inc_nbi(&fi, i_arr, pe);
    shmem_ctx_uint64_atomic_fetch_inc_nbi(ctx, &fu64, u64_arr, pe);
    shmem_int_atomic_fetch_add_nbi(&fi, i_arr, 1, pe);
    shmem_ctx_uint64_atomic_fetch_add_nbi(ctx, &fu64, u64_arr, 1, pe);
    shmem_uint64_atomic_fetch_and_nbi(&fu64, u64_arr, 1, pe);
    shmem_ctx_uint64_atomic_fetch_and_nbi(ctx, &fu64, u64_arr, 1, pe);
    shmem_uint64_atomic_fetch_or_nbi(&fu64, u64_arr, 1, pe);
    shmem_ctx_uint64_atomic_fetch_or_nbi(ctx, &fu64, u64_arr, 1, pe);
    shmem_uint64_atomic_fetch_xor_nbi(&fu64, u64_arr, 1, pe);
    shmem_ctx_uint64_atomic_fetch_xor_nbi(ctx, &fu64, u64_arr, 1, pe);
    return sum + fi + (long)fu64;
}

static uint64_t signaling_p2p_ordering(shmem_ctx_t ctx, int pe)
{
    uint64_t n = 0;
    static const int pes[2] = {0, 1};

    shmem_int_put_signal(i_arr, ci_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_ctx_uint64_put_signal(ctx, u64_arr, cu64_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_put64_signal(u64_arr, u64_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_ctx_putmem_signal(ctx, c_arr, c_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_double_put_signal_nbi(d_arr, d_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_ctx_put8_signal_nbi(ctx, c_arr, c_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_putmem_signal_nbi(c_arr, c_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_signal_add(&sig, 1, pe);
    shmem_ctx_signal_add(ctx, &sig, 1, pe);
    shmem_signal_set(&sig, 1, pe);
    shmem_ctx_signal_set(ctx, &sig, 1, pe);
    n += shmem_signal_fetch(&sig);
    n += shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1);

    shmem_wait_until(l_arr, SHMEM_CMP_NE, 0L); /* the deprecated long function */
    shmem_int32_wait_until(i32_arr, SHMEM_CMP_EQ, 1);
    shmem_ushort_wait_until(us_arr, SHMEM_CMP_EQ, 1);
    n += (uint64_t)shmem_size_test(sz_arr, SHMEM_CMP_EQ, 1);
    n += (uint64_t)shmem_short_test(s_arr, SHMEM_CMP_EQ, 1);
    shmem_uint64_wait_until_all(u64_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_ptrdiff_wait_until_any(pd_arr, 8, NULL, SHMEM_CMP_EQ, 1);
    n += shmem_int_wait_until_some(i_arr, 8, indices, status, SHMEM_CMP_EQ, 1);
    shmem_long_wait_until_all_vector(l_arr, 8, status, SHMEM_CMP_EQ, l_arr);
    n += shmem_int_wait_until_any_vector(i_arr, 8, status, SHMEM_CMP_EQ, ci_arr);
    n += shmem_uint64_wait_until_some_vector(u64_arr, 8, indices, status, SHMEM_CMP_EQ, cu64_arr);
    n += (uint64_t)shmem_size_test_all(sz_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_int32_test_any(i32_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_longlong_test_some(ll_arr, 8, indices, status, SHMEM_CMP_EQ, 1);
    n += (uint64_t)shmem_int_test_all_vector(i_arr, 8, status, SHMEM_CMP_EQ, ci_arr);
    n += shmem_uint32_test_any_vector(u32_arr, 8, status, SHMEM_CMP_EQ, u32_arr);
    n += shmem_int64_test_some_vector(i64_arr, 8, indices, NULL, SHMEM_CMP_EQ, i64_arr);

    shmem_fence();
    shmem_ctx_fence(ctx);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_pe_quiet(pes, 2);
    shmem_ctx_pe_quiet(ctx, pes, 2);
    shmem_set_lock(&lock);
    n += (uint64_t)shmem_test_lock(&lock);
    shmem_clear_lock(&lock);
    return n;
}

static long deprecated(int pe)
{
    long sum = 0;
    void *p;

    start_pes(0);
    sum += _my_pe() + _num_pes();
    p = shmalloc(64);
    p = shrealloc(p, 128);
    shfree(p);
    p = shmemalign(64, 64);
    shfree(p);

    sum += (long)shmem_float_fetch(f_arr, pe) + shmem_long_fetch(l_arr, pe);
    shmem_double_set(d_arr, 1.0, pe);
    shmem_longlong_set(ll_arr, 1, pe);
    sum += shmem_int_swap(i_arr, 1, pe) + (long)shmem_double_swap(d_arr, 1.0, pe);
    sum += shmem_int_cswap(i_arr, 0, 1, pe) + shmem_long_finc(l_arr, pe);
    shmem_longlong_inc(ll_arr, pe);
    sum += (long)shmem_longlong_fadd(ll_arr, 1, pe);
    shmem_int_add(i_arr, 1, pe);
    shmem_wait(l_arr, 0);
    shmem_short_wait(s_arr, 0);
    shmem_int_wait(i_arr, 0);
    shmem_long_wait(l_arr, 0);
    shmem_longlong_wait(ll_arr, 0);
    return sum;
}

static void profiling(int pe)
{
    pshmem_init();
    pshmem_int_put(i_arr, ci_arr, 8, pe);
    pshmem_ctx_putmem(SHMEM_CTX_DEFAULT, c_arr, c_arr, 8, pe);
    (void)pshmem_uint64_atomic_fetch_add(u64_arr, 1, pe);
    pshmem_wait_until(l_arr, SHMEM_CMP_EQ, 0L);
    pshmem_pcontrol(0);
    pshmem_barrier_all();
    pshmem_finalize();
}

int main(int argc, char **argv)
{
    (void)argv;
    (void)pSync;
    (void)pSync_legacy;
    (void)vendor;
    if (argc > 100) {
        int pe;
        double total;
        types_and_handles();
        setup_memory();
        pe = (shmem_my_pe() + 1) % shmem_n_pes();
        total = rma(SHMEM_CTX_DEFAULT, pe) + (double)amo(SHMEM_CTX_DEFAULT, pe);
        total += (double)signaling_p2p_ordering(SHMEM_CTX_DEFAULT, pe) + (double)deprecated(pe);
        profiling(pe);
        shmem_finalize();
        if (total < 0 || cmp_name(argc)[0] == '!')
            shmem_global_exit(1);
    }
    printf("PASS header_c99\n");
    return 0;
}
