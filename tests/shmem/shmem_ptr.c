/* shmem_ptr on symmetric heap objects.
 *
 * shmem_ptr(obj, me) is obj itself, and when all PEs run on one host (same hostname) every PE's
 * heap must be reachable (Pangea maps the segments of all PEs of a node). Stores through the
 * pointers must be seen by the owner after a barrier, loads through them must see the owner's
 * values, and interior addresses map to interior addresses. */
#include "check.h"

#include <unistd.h>

#define BIG ((size_t)1 << 20)

static int me, npes;

/* 1 when every PE has PE 0's hostname (collective). */
static int all_on_one_host(void)
{
    char *names = shmem_calloc(64, 1);
    long *mismatches = shmem_calloc(1, sizeof(long));
    char mine[64] = {0}, first[64];
    gethostname(mine, sizeof mine - 1);
    memcpy(names, mine, sizeof mine);
    shmem_barrier_all();
    shmem_getmem(first, names, sizeof first, 0);
    if (strcmp(first, mine) != 0)
        shmem_long_atomic_inc(mismatches, 0);
    shmem_barrier_all();
    int one = shmem_long_atomic_fetch(mismatches, 0) == 0;
    shmem_free(mismatches);
    shmem_free(names);
    return one;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    int one_host = all_on_one_host();
    if (me == 0)
        printf("%s\n", one_host ? "one host: every PE must be reachable" : "several hosts");

    long *a = shmem_malloc((size_t)npes * sizeof(long) + 64);
    unsigned char *big = shmem_malloc(BIG);
    CHECK(a && big, "shmem_malloc");
    if (!a || !big)
        return check_finish();

    long **ptrs = calloc((size_t)npes, sizeof *ptrs);
    for (int pe = 0; pe < npes; pe++) {
        long *p = shmem_ptr(a, pe);
        CHECK(p || !one_host, "shmem_ptr(heap, %d) is NULL in a one-host run", pe);
        if (pe == me)
            CHECK(p == a, "shmem_ptr(heap, my_pe) = %p, not the address itself %p", (void *)p,
                  (void *)a);
        if (p)
            CHECK((long *)shmem_ptr(a + 5, pe) == p + 5, "shmem_ptr of an interior address");
        ptrs[pe] = p;
    }

    /* Stores through the pointers (shmem_long_p where there is none). */
    for (int i = 0; i < npes; i++)
        a[i] = -1;
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++) {
        long v = TEST_VAL(long, me, (size_t)pe, 1);
        if (ptrs[pe])
            ptrs[pe][me] = v;
        else
            shmem_long_p(&a[me], v, pe);
    }
    shmem_barrier_all();
    for (int src = 0; src < npes; src++)
        CHECK(a[src] == TEST_VAL(long, src, (size_t)me, 1),
              "a[%d] = %ld after stores through shmem_ptr", src, a[src]);

    /* Loads through the pointers see the owners' values. */
    for (int pe = 0; pe < npes; pe++)
        if (ptrs[pe])
            for (int src = 0; src < npes; src++)
                CHECK(ptrs[pe][src] == TEST_VAL(long, src, (size_t)pe, 1),
                      "load of PE %d's a[%d] through shmem_ptr", pe, src);
    shmem_barrier_all();

    /* 1 MiB copied into the right neighbour's object through its pointer, then read back. */
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *rp = shmem_ptr(big, right);
    unsigned char *src = malloc(BIG);
    test_fill_bytes(src, BIG, me, 2);
    if (rp)
        memcpy(rp, src, BIG);
    else
        shmem_putmem(big, src, BIG, right);
    shmem_barrier_all();
    size_t bad = test_bad_byte(big, BIG, left, 2);
    CHECK(bad == SIZE_MAX, "1 MiB stored through shmem_ptr by PE %d: byte %zu wrong", left, bad);
    if (rp) {
        bad = test_bad_byte(rp, BIG, me, 2);
        CHECK(bad == SIZE_MAX, "1 MiB loaded through shmem_ptr of PE %d: byte %zu wrong", right,
              bad);
    }
    shmem_barrier_all();

    free(src);
    free(ptrs);
    shmem_free(big);
    shmem_free(a);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
