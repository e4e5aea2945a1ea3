/* Remote access to global and static data (symmetric objects outside the heap, spec §3).
 *
 * Objects: a static long array in .bss, an initialized global int array in .data, a global
 * double, a function-scope static and a 1 MiB static buffer. On each: put, get, p, g, iput,
 * fetch_add and compare_swap contention, checked exactly. shmem_ptr on static data may be NULL;
 * if it is not, loads through it must see the owner's values. */
#include "check.h"

#define NX 64
#define NG 100
#define BIG ((size_t)1 << 20)

static long sx[NX];                              /* .bss */
int gdata[NG] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}; /* .data */
double gd = 0.5;                                 /* .data */
static unsigned char big_static[BIG];            /* .bss, large */

static int me, npes, left, right;

static long *fn_static(void)
{
    static long counter[4]; /* function-scope static */
    return counter;
}

static void test_initial_values(void)
{
    /* The initializers are the same everywhere: a get must see them before anyone writes. */
    int got[NG];
    shmem_int_get(got, gdata, NG, right);
    for (int i = 0; i < NG; i++)
        CHECK(got[i] == (i < 10 ? i + 1 : 0), "initial gdata[%d] of PE %d = %d", i, right, got[i]);
    CHECK(shmem_double_g(&gd, right) == 0.5, "initial gd of PE %d", right);
    shmem_barrier_all();
}

static void test_put_get(void)
{
    long src[NX];
    for (int i = 0; i < NX; i++)
        src[i] = TEST_VAL(long, me, i, 1);
    shmem_long_put(sx, src, NX, right);
    for (int i = 0; i < NG; i++)
        gdata[i] = TEST_VAL(int, me, i, 2);
    shmem_double_p(&gd, 1000.25 + me, right);
    shmem_barrier_all();

    for (int i = 0; i < NX; i++)
        CHECK(sx[i] == TEST_VAL(long, left, i, 1), "long_put into static sx[%d] from PE %d", i,
              left);
    CHECK(gd == 1000.25 + left, "double_p into global gd from PE %d: %g", left, gd);

    int got[NG];
    shmem_int_get(got, gdata, NG, right);
    for (int i = 0; i < NG; i++)
        CHECK(got[i] == TEST_VAL(int, right, i, 2), "int_get of global gdata[%d] from PE %d", i,
              right);
    CHECK(shmem_int_g(&gdata[NG - 1], right) == TEST_VAL(int, right, NG - 1, 2), "int_g gdata");
    CHECK(shmem_double_g(&gd, right) == 1000.25 + me, "double_g of gd from PE %d", right);
    CHECK(shmem_long_g(&sx[5], right) == TEST_VAL(long, me, 5, 1), "long_g of sx from PE %d",
          right);
    shmem_barrier_all();
}

static void test_iput_iget(void)
{
    /* iput every other element of sx on the right neighbour; the gaps keep their values. */
    long src[NX / 2];
    for (int i = 0; i < NX; i++)
        sx[i] = -1 - i;
    for (int i = 0; i < NX / 2; i++)
        src[i] = TEST_VAL(long, me, i, 3);
    shmem_barrier_all();
    shmem_long_iput(sx, src, 2, 1, NX / 2, right);
    shmem_barrier_all();
    for (int i = 0; i < NX; i++) {
        long want = i % 2 ? -1 - i : TEST_VAL(long, left, i / 2, 3);
        CHECK(sx[i] == want, "iput into static sx[%d] from PE %d: %ld, want %ld", i, left, sx[i],
              want);
    }
    long got[NX / 2];
    shmem_long_iget(got, sx, 1, 2, NX / 2, right);
    for (int i = 0; i < NX / 2; i++)
        CHECK(got[i] == TEST_VAL(long, me, i, 3), "iget of static sx[%d] from PE %d", 2 * i, right);
    shmem_barrier_all();
}

static void test_big(void)
{
    unsigned char *src = malloc(BIG), *got = malloc(BIG);
    CHECK(src && got, "malloc");
    if (!src || !got)
        return;
    test_fill_bytes(src, BIG, me, 4);
    shmem_putmem(big_static, src, BIG, right);
    shmem_barrier_all();
    size_t bad = test_bad_byte(big_static, BIG, left, 4);
    CHECK(bad == SIZE_MAX, "1 MiB putmem into static data from PE %d: byte %zu wrong", left, bad);
    shmem_getmem(got, big_static, BIG, right);
    bad = test_bad_byte(got, BIG, me, 4);
    CHECK(bad == SIZE_MAX, "1 MiB getmem of static data from PE %d: byte %zu wrong", right, bad);
    shmem_barrier_all();
    free(src);
    free(got);
}

static void test_atomics(void)
{
    const long m = test_scaled(200);
    long *ctr = fn_static();
    ctr[0] = 0;
    sx[0] = 0;
    shmem_barrier_all();
    /* fetch_add on PE 0's function-scope static: fetched values are all distinct multiples. */
    for (long i = 0; i < m; i++) {
        long old = shmem_long_atomic_fetch_add(&ctr[0], 3, 0);
        CHECK(old % 3 == 0 && old < 3 * m * npes, "fetch_add on static returned %ld", old);
    }
    /* compare_swap increments on PE 0's static sx[0]. */
    for (long i = 0; i < m; i++) {
        long cur = shmem_long_atomic_fetch(&sx[0], 0), prev;
        while ((prev = shmem_long_atomic_compare_swap(&sx[0], cur, cur + 1, 0)) != cur)
            cur = prev;
    }
    /* int AMOs on the global array, one element per PE on the right neighbour. */
    shmem_int_atomic_set(&gdata[me], 40 + me, right);
    int old = shmem_int_atomic_swap(&gdata[me], 50 + me, right);
    CHECK(old == 40 + me, "int swap on global returned %d", old);
    shmem_int_atomic_add(&gdata[me], 5, right);
    shmem_barrier_all();
    if (me == 0) {
        CHECK(ctr[0] == 3 * m * npes, "fetch_add total on static = %ld, want %ld", ctr[0],
              3 * m * npes);
        CHECK(sx[0] == m * npes, "compare_swap total on static = %ld, want %ld", sx[0], m * npes);
    }
    CHECK(gdata[left] == 55 + left, "AMOs on global gdata[%d] = %d", left, gdata[left]);
    shmem_barrier_all();
}

static void test_ptr(void)
{
    sx[1] = 7000 + me;
    gdata[1] = 8000 + me;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(sx, pe) == 1, "addr_accessible(static sx, %d)", pe);
        CHECK(shmem_addr_accessible(gdata, pe) == 1, "addr_accessible(global gdata, %d)", pe);
        long *p = shmem_ptr(sx, pe);
        if (p)
            CHECK(p[1] == 7000 + pe, "load through shmem_ptr(static sx, %d) = %ld", pe, p[1]);
        int *q = shmem_ptr(gdata, pe);
        if (q)
            CHECK(q[1] == 8000 + pe, "load through shmem_ptr(gdata, %d) = %d", pe, q[1]);
        if (pe == me) {
            CHECK(p == NULL || p == sx, "shmem_ptr(sx, me) is another address");
            CHECK(q == NULL || q == gdata, "shmem_ptr(gdata, me) is another address");
        }
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    test_initial_values();
    test_put_get();
    test_iput_iget();
    test_big();
    test_atomics();
    test_ptr();

    int rc = check_finish();
    shmem_finalize();
    return rc;
}
