/* Compile-only check of the OpenSHMEM headers in C11: every C11 type-generic name, with and
 * without a leading ctx, on base types, typedef'd types (int32_t, size_t, ptrdiff_t, uint64_t,
 * ...), arrays and const sources, plus the functions that share a name with a generic (taken
 * by address). Built with -std=c11 -Wall -Wextra -Werror -pedantic and linked against the
 * library; nothing here runs (the calls sit behind argc > 100). */
#include <shmem.h>
#include <stdio.h>
#include <shmemx.h>
#include <pshmem.h>
#include <mpp/shmem.h>
#include <mpp/shmemx.h>

#include <stddef.h>
#include <stdint.h>

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "header_c11.c must be compiled as C11 or later"
#endif

/* Symmetric (static) objects of several types. */
static int i_arr[8];
static long l_arr[8];
static long long ll_arr[8];
static unsigned int ui_arr[8];
static unsigned long ul_arr[8];
static unsigned long long ull_arr[8];
static short s_arr[8];
static unsigned short us_arr[8];
static float f_arr[8];
static double d_arr[8];
static long double ld_arr[8];
static char c_arr[8];
static signed char sc_arr[8];
static unsigned char uc_arr[8];
static int8_t i8_arr[8];
static int16_t i16_arr[8];
static int32_t i32_arr[8];
static int64_t i64_arr[8];
static uint8_t u8_arr[8];
static uint16_t u16_arr[8];
static uint32_t u32_arr[8];
static uint64_t u64_arr[8];
static size_t sz_arr[8];
static ptrdiff_t pd_arr[8];
static const int ci_arr[8];
static const double cd_arr[8];
static const uint64_t cu64_arr[8];
static uint64_t sig;
static size_t indices[8];
static const int status[8];

/* §3.6 RMA generics */
static double rma(shmem_ctx_t ctx, int pe)
{
    double sum = 0;
    const int32_t *csrc = i32_arr;

    shmem_put(i_arr, i_arr, 8, pe);
    shmem_put(ctx, i_arr, ci_arr, 8, pe);
    shmem_put(i32_arr, csrc, 8, pe);
    shmem_put(SHMEM_CTX_DEFAULT, sz_arr, sz_arr, 8, pe);
    shmem_put(ld_arr, ld_arr, 8, pe);
    shmem_put(c_arr, "abcdefg", 8, pe);
    shmem_put(sc_arr, sc_arr, 8, pe);
    shmem_put(ctx, uc_arr, uc_arr, 8, pe);

    shmem_p(&d_arr[0], 1.5, pe);
    shmem_p(ctx, &pd_arr[1], (ptrdiff_t)-3, pe);
    shmem_p(&u8_arr[2], 7, pe);
    shmem_p(ctx, &i16_arr[2], 7, pe);

    shmem_iput(l_arr, l_arr, 2, 1, 4, pe);
    shmem_iput(ctx, i64_arr, i64_arr, 2, 1, 4, pe);
    shmem_ibput(f_arr, f_arr, 4, 2, 2, 2, pe);
    shmem_ibput(ctx, u16_arr, u16_arr, 4, 2, 2, 2, pe);

    shmem_get(d_arr, cd_arr, 8, pe);
    shmem_get(ctx, u64_arr, cu64_arr, 8, pe);
    shmem_get(i8_arr, i8_arr, 8, pe);
    shmem_get(ctx, ull_arr, ull_arr, 8, pe);

    sum += shmem_g(&ci_arr[0], pe);
    sum += shmem_g(ctx, &cd_arr[1], pe);
    sum += shmem_g(&ld_arr[2], pe);
    sum += (double)shmem_g(ctx, &u32_arr[3], pe);
    sum += (double)shmem_g(csrc, pe);

    shmem_iget(us_arr, us_arr, 1, 2, 4, pe);
    shmem_iget(ctx, s_arr, s_arr, 1, 2, 4, pe);
    shmem_ibget(ui_arr, ui_arr, 2, 4, 2, 2, pe);
    shmem_ibget(ctx, ul_arr, ul_arr, 2, 4, 2, 2, pe);

    shmem_put_nbi(ll_arr, ll_arr, 8, pe);
    shmem_put_nbi(ctx, pd_arr, pd_arr, 8, pe);
    shmem_get_nbi(i_arr, ci_arr, 8, pe);
    shmem_get_nbi(ctx, sz_arr, sz_arr, 8, pe);
    return sum;
}

/* §3.7 AMO generics, blocking */
static long amo(shmem_ctx_t ctx, int pe)
{
    long sum = 0;
    const int64_t *c64 = i64_arr;

    sum += shmem_atomic_fetch(&ci_arr[0], pe);
    sum += shmem_atomic_fetch(ctx, c64, pe);
    sum += (long)shmem_atomic_fetch(&f_arr[0], pe);
    sum += (long)shmem_atomic_fetch(ctx, &cd_arr[0], pe);
    sum += (long)shmem_atomic_fetch(&sz_arr[0], pe);

    shmem_atomic_set(&d_arr[0], 2.0, pe);
    shmem_atomic_set(ctx, &u64_arr[0], (uint64_t)1, pe);

    sum += shmem_atomic_compare_swap(&i_arr[0], 0, 1, pe);
    sum += shmem_atomic_compare_swap(ctx, &pd_arr[0], 0, 1, pe);

    sum += (long)shmem_atomic_swap(&f_arr[1], 1.0f, pe);
    sum += (long)shmem_atomic_swap(ctx, &u32_arr[1], 5u, pe);

    sum += shmem_atomic_fetch_inc(&l_arr[0], pe);
    sum += (long)shmem_atomic_fetch_inc(ctx, &ull_arr[0], pe);
    shmem_atomic_inc(&i32_arr[0], pe);
    shmem_atomic_inc(ctx, &sz_arr[1], pe);

    sum += shmem_atomic_fetch_add(&ll_arr[0], 3LL, pe);
    sum += (long)shmem_atomic_fetch_add(ctx, &ui_arr[0], 3u, pe);
    shmem_atomic_add(&i64_arr[0], 4, pe);
    shmem_atomic_add(ctx, &ul_arr[0], 4ul, pe);

    /* bitwise: unsigned and exact-width types, including the signed int32_t and int64_t */
    sum += (long)shmem_atomic_fetch_and(&ui_arr[1], 1u, pe);
    sum += (long)shmem_atomic_fetch_and(ctx, &i32_arr[1], 1, pe);
    shmem_atomic_and(&u64_arr[1], 1, pe);
    shmem_atomic_and(ctx, &i64_arr[1], 1, pe);
    sum += (long)shmem_atomic_fetch_or(&ull_arr[1], 1ull, pe);
    sum += (long)shmem_atomic_fetch_or(ctx, &u32_arr[2], 1u, pe);
    shmem_atomic_or(&i32_arr[2], 1, pe);
    shmem_atomic_or(ctx, &ul_arr[2], 1ul, pe);
    sum += (long)shmem_atomic_fetch_xor(&i64_arr[2], 1, pe);
    sum += (long)shmem_atomic_fetch_xor(ctx, &u64_arr[2], 1, pe);
    shmem_atomic_xor(&ui_arr[2], 1u, pe);
    shmem_atomic_xor(ctx, &i32_arr[3], 1, pe);
    return sum;
}

/* §3.7 AMO generics, nonblocking fetching */
static void amo_nbi(shmem_ctx_t ctx, int pe)
{
    static int fi;
    static double fd;
    static uint64_t fu64;
    static int32_t fi32;
    static size_t fsz;
    static long fl;

    shmem_atomic_fetch_nbi(&fi, &ci_arr[0], pe);
    shmem_atomic_fetch_nbi(ctx, &fd, &d_arr[0], pe);
    shmem_atomic_compare_swap_nbi(&fsz, &sz_arr[0], 0, 1, pe);
    shmem_atomic_compare_swap_nbi(ctx, &fl, &l_arr[0], 0L, 1L, pe);
    shmem_atomic_swap_nbi(&fd, &d_arr[1], 1.0, pe);
    shmem_atomic_swap_nbi(ctx, &fu64, &u64_arr[0], 1, pe);
    shmem_atomic_fetch_inc_nbi(&fi32, &i32_arr[0], pe);
    shmem_atomic_fetch_inc_nbi(ctx, &fi, &i_arr[0], pe);
    shmem_atomic_fetch_add_nbi(&fl, &l_arr[1], 2L, pe);
    shmem_atomic_fetch_add_nbi(ctx, &fsz, &sz_arr[1], 2, pe);
    shmem_atomic_fetch_and_nbi(&fu64, &u64_arr[1], 1, pe);
    shmem_atomic_fetch_and_nbi(ctx, &fi32, &i32_arr[1], 1, pe);
    shmem_atomic_fetch_or_nbi(&fi32, &i32_arr[2], 1, pe);
    shmem_atomic_fetch_or_nbi(ctx, &fu64, &u64_arr[2], 1, pe);
    shmem_atomic_fetch_xor_nbi(&fu64, &u64_arr[3], 1, pe);
    shmem_atomic_fetch_xor_nbi(ctx, &fi32, &i32_arr[3], 1, pe);
}

/* §3.8 Signaling generics */
static void signaling(shmem_ctx_t ctx, int pe)
{
    void (*add3)(uint64_t *, uint64_t, int) = shmem_signal_add; /* the 3-argument function */
    void (*set3)(uint64_t *, uint64_t, int) = &shmem_signal_set;

    shmem_put_signal(i_arr, ci_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_put_signal(ctx, u64_arr, cu64_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_put_signal_nbi(ld_arr, ld_arr, 8, &sig, 1, SHMEM_SIGNAL_SET, pe);
    shmem_put_signal_nbi(ctx, c_arr, c_arr, 8, &sig, 1, SHMEM_SIGNAL_ADD, pe);
    shmem_signal_add(&sig, 1, pe);
    shmem_signal_add(ctx, &sig, 1, pe);
    shmem_signal_set(&sig, 2, pe);
    shmem_signal_set(SHMEM_CTX_DEFAULT, &sig, 2, pe);
    add3(&sig, 1, pe);
    set3(&sig, 1, pe);
}

/* §3.11 Point-to-point generics */
static size_t p2p(void)
{
    size_t n = 0;
    void (*wait_long)(long *, int, long) = shmem_wait_until; /* the deprecated function */

    shmem_wait_until(&i_arr[0], SHMEM_CMP_EQ, 1);
    shmem_wait_until(&s_arr[0], SHMEM_CMP_NE, (short)0);
    shmem_wait_until(&us_arr[0], SHMEM_CMP_GT, 0);
    shmem_wait_until(&l_arr[0], SHMEM_CMP_GE, 0L);
    shmem_wait_until(&u64_arr[0], SHMEM_CMP_LT, 5);
    shmem_wait_until(&pd_arr[0], SHMEM_CMP_LE, 5);
    n += (size_t)shmem_test(&sz_arr[0], SHMEM_CMP_EQ, 1);
    n += (size_t)shmem_test(&us_arr[1], SHMEM_CMP_EQ, 1);
    n += (size_t)shmem_test(&ll_arr[0], SHMEM_CMP_EQ, 1);
    wait_long(&l_arr[1], SHMEM_CMP_NE, 0);

    shmem_wait_until_all(i32_arr, 8, status, SHMEM_CMP_EQ, 1);
    shmem_wait_until_all(ul_arr, 8, NULL, SHMEM_CMP_EQ, 1);
    n += shmem_wait_until_any(l_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_wait_until_some(u64_arr, 8, indices, status, SHMEM_CMP_EQ, 1);
    shmem_wait_until_all_vector(i_arr, 8, status, SHMEM_CMP_EQ, ci_arr);
    n += shmem_wait_until_any_vector(u64_arr, 8, status, SHMEM_CMP_EQ, cu64_arr);
    n += shmem_wait_until_some_vector(i_arr, 8, indices, NULL, SHMEM_CMP_EQ, i_arr);
    n += (size_t)shmem_test_all(sz_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_test_any(pd_arr, 8, status, SHMEM_CMP_EQ, 1);
    n += shmem_test_some(ull_arr, 8, indices, status, SHMEM_CMP_EQ, 1);
    n += (size_t)shmem_test_all_vector(i_arr, 8, status, SHMEM_CMP_EQ, ci_arr);
    n += shmem_test_any_vector(u32_arr, 8, status, SHMEM_CMP_EQ, u32_arr);
    n += shmem_test_some_vector(i64_arr, 8, indices, status, SHMEM_CMP_EQ, i64_arr);
    return n;
}

/* §4.3 Deprecated AMO generics */
static long deprecated_amo(int pe)
{
    long sum = 0;
    const long *cl = l_arr;

    sum += shmem_fetch(&ci_arr[0], pe);
    sum += shmem_fetch(cl, pe);
    sum += (long)shmem_fetch(&d_arr[0], pe);
    shmem_set(&f_arr[0], 1.0f, pe);
    shmem_set(&ll_arr[0], 1LL, pe);
    sum += shmem_swap(&l_arr[0], 2L, pe);
    sum += (long)shmem_swap(&d_arr[0], 2.0, pe);
    sum += shmem_cswap(&i_arr[0], 0, 1, pe);
    sum += shmem_finc(&l_arr[0], pe);
    shmem_inc(&ll_arr[0], pe);
    sum += shmem_fadd(&i32_arr[0], 2, pe);
    shmem_add(&l_arr[0], 2L, pe);
    return sum;
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 100) {
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
        const shmem_ctx_t cctx = SHMEM_CTX_DEFAULT;
        shmem_init();
        int pe = (shmem_my_pe() + 1) % shmem_n_pes();
        double total = rma(ctx, pe) + (double)amo(cctx, pe);
        amo_nbi(ctx, pe);
        signaling(ctx, pe);
        total += (double)p2p() + (double)deprecated_amo(pe);
        /* nested generic calls */
        shmem_p(&i_arr[0], shmem_g(&i_arr[1], pe), pe);
        shmem_atomic_add(cctx, &l_arr[0], shmem_atomic_fetch(ctx, &l_arr[1], pe), pe);
        shmem_quiet();
        shmem_finalize();
        if (total < 0)
            shmem_global_exit(1);
    }
    printf("PASS header_c11\n");
    return 0;
}
