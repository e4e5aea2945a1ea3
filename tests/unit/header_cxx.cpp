/* Compile-only check of the OpenSHMEM headers in C++ (C++11 to C++17): the headers are
 * extern "C" clean, have no C11 generics, and declare the same functions as in C. A sample of
 * every family, with ctx, typedef'd types and const sources, plus pshmem_ twins and function
 * pointers. Built with -Wall -Wextra -Werror -pedantic and linked against the library; nothing
 * here runs (the calls sit behind argc > 100). */
#include <shmem.h>
#include <cstdio>
#include <shmemx.h>
#include <pshmem.h>
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <cstddef>
#include <cstdint>

static_assert(SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION == 6, "version");
static_assert(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
                  SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
                  SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
              "thread levels");
static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN, "vendor string");
static_assert(SHMEM_SYNC_SIZE >= SHMEM_REDUCE_SYNC_SIZE && _SHMEM_SYNC_VALUE == 0L, "pSync");

namespace
{

int i_arr[8];
long l_arr[8];
long long ll_arr[8];
short s_arr[8];
double d_arr[8];
long double ld_arr[8];
char c_arr[8];
std::int32_t i32_arr[8];
std::int64_t i64_arr[8];
std::uint32_t u32_arr[8];
std::uint64_t u64_arr[8];
std::size_t sz_arr[8];
std::ptrdiff_t pd_arr[8];
const int ci_arr[8] = {0};
const std::uint64_t cu64_arr[8] = {0};
std::uint64_t sig;
std::size_t indices[8];
const int status[8] = {0};
long lock;

int cmp_label(int cmp)
{
    switch (cmp) {
    case SHMEM_CMP_EQ:
    case SHMEM_CMP_NE:
    case SHMEM_CMP_GT:
    case SHMEM_CMP_GE:
    case SHMEM_CMP_LT:
    case SHMEM_CMP_LE:
        return 1;
    default:
        return 0;
    }
}

double sample(shmem_ctx_t ctx, int pe)
{
    double sum = 0;
    static int fi;
    static std::uint64_t fu64;
    static const int pes[1] = {0};

    // §3.6 RMA
    shmem_int_put(i_arr, ci_arr, 8, pe);
    shmem_ctx_int32_put(ctx, i32_arr, i32_arr, 8, pe);
    shmem_put64(i64_arr, i64_arr, 8, pe);
    shmem_ctx_putmem(ctx, c_arr, c_arr, 8, pe);
    shmem_longdouble_p(ld_arr, 1.0L, pe);
    shmem_ctx_ptrdiff_p(ctx, pd_arr, -1, pe);
    shmem_short_iput(s_arr, s_arr, 2, 1, 4, pe);
    shmem_ctx_iput32(ctx, u32_arr, u32_arr, 2, 1, 4, pe);
    shmem_size_ibput(sz_arr, sz_arr, 4, 2, 2, 2, pe);
    shmem_ctx_ibput8(ctx, c_arr, c_arr, 4, 2, 2, 2, pe);
    shmem_uint64_get(u64_arr, cu64_arr, 8, pe);
    shmem_ctx_getmem(ctx, c_arr, c_arr, 8, pe);
    sum += shmem_double_g(d_arr, pe) + shmem_ctx_int_g(ctx, ci_arr, pe);
    shmem_long_iget(l_arr, l_arr, 1, 2, 4, pe);
    shmem_ctx_ibget64(ctx, d_arr, d_arr, 2, 4, 2, 2, pe);
    shmem_char_put_nbi(c_arr, "abcdefg", 8, pe);
    shmem_ctx_get128_nbi(ctx, ld_arr, ld_arr, 1, pe);

    // §3.7 AMO
    sum += shmem_int_atomic_fetch(ci_arr, pe);
    sum += static_cast<double>(shmem_ctx_uint64_atomic_fetch(ctx, cu64_arr, pe));
    shmem_double_atomic_set(d_arr, 1.0, pe);
    sum += static_cast<double>(shmem_ctx_size_atomic_compare_swap(ctx, sz_arr, 0, 1, pe));
    sum += shmem_long_atomic_swap(l_arr, 1, pe);
    sum += static_cast<double>(shmem_ctx_int64_atomic_fetch_inc(ctx, i64_arr, pe));
    shmem_ptrdiff_atomic_inc(pd_arr, pe);
    sum += static_cast<double>(shmem_longlong_atomic_fetch_add(ll_arr, 1, pe));
    shmem_ctx_uint32_atomic_add(ctx, u32_arr, 1, pe);
    sum += shmem_int32_atomic_fetch_and(i32_arr, 1, pe);
    shmem_ctx_uint64_atomic_or(ctx, u64_arr, 1, pe);
    shmem_int64_atomic_xor(i64_arr, 1, pe);
    shmem_ctx_int_atomic_fetch_nbi(ctx, &fi, ci_arr, pe);
    shmem_uint64_atomic_compare_swap_nbi(&fu64, u64_arr, 0, 1, pe);
    shmem_ctx_int_atomic_swap_nbi(ctx, &fi, i_arr, 1, pe);
    shmem_int_atomic_fetch_inc_nbi(&fi, i_arr, pe);
    shmem_ctx_uint64_atomic_fetch_add_nbi(ctx, &fu64, u64_arr, 1, pe);
    shmem_uint64_atomic_fetch_xor_nbi(&fu64, u64_arr, 1, pe);

    // §3.8 Signaling
    shmem_int_put_signal(i_arr, ci_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_ctx_put32_signal_nbi(ctx, u32_arr, u32_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_signal_add(&sig, 1, pe);
    shmem_ctx_signal_set(ctx, &sig, 1, pe);
    sum += static_cast<double>(shmem_signal_fetch(&sig));

    // §3.11 Point-to-point
    shmem_wait_until(l_arr, SHMEM_CMP_EQ, 0L);
    shmem_short_wait_until(s_arr, SHMEM_CMP_EQ, 0);
    sum += shmem_uint64_test(u64_arr, SHMEM_CMP_EQ, 0);
    shmem_int_wait_until_all(i_arr, 8, status, SHMEM_CMP_EQ, 0);
    sum += static_cast<double>(
        shmem_size_wait_until_some(sz_arr, 8, indices, nullptr, SHMEM_CMP_EQ, 0));
    sum += static_cast<double>(
        shmem_uint64_test_any_vector(u64_arr, 8, status, SHMEM_CMP_EQ, cu64_arr));
    sum += static_cast<double>(shmem_signal_wait_until(&sig, SHMEM_CMP_GE, 1));

    // §3.12, §3.13
    shmem_ctx_fence(ctx);
    shmem_ctx_pe_quiet(ctx, pes, 1);
    shmem_set_lock(&lock);
    sum += shmem_test_lock(&lock);
    shmem_clear_lock(&lock);

    // §4 deprecated
    sum += shmem_long_fadd(l_arr, 1, pe) + shmem_int_cswap(i_arr, 0, 1, pe);
    shmem_longlong_wait(ll_arr, 0);
    shmem_wait(l_arr, 0);
    return sum;
}

} // namespace

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 100) {
        int provided = 0;
        if (shmem_init_thread(SHMEM_THREAD_FUNNELED, &provided) != 0)
            start_pes(0);
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        shmem_team_t team = SHMEM_TEAM_WORLD;
        shmem_team_config_t tconf = {1};
        shmem_ctx_session_config_t sconf = {SIZE_MAX};
        void *(*alloc)(std::size_t) = shmem_malloc;
        void (*wait_long)(long *, int, long) = shmem_wait_until;
        void (*pput)(int *, const int *, std::size_t, int) = pshmem_int_put;
        void *p = alloc(64);
        shmem_free(p);
        p = shmalloc(sconf.total_ops > 0 ? 64 : 32);
        shfree(p);
        wait_long(l_arr, SHMEM_CMP_NE, 0);
        pput(i_arr, ci_arr, 8, 0);
        double total = sample(ctx, (shmem_my_pe() + 1) % shmem_n_pes());
        if (ctx == SHMEM_CTX_INVALID || team == SHMEM_TEAM_INVALID || team == SHMEM_TEAM_SHARED ||
            tconf.num_contexts < 0 || cmp_label(argc) == 2)
            total += 1;
        shmem_barrier_all();
        shmem_finalize();
        if (total < 0)
            shmem_global_exit(1);
    }
    std::printf("PASS header_cxx\n");
    return 0;
}
