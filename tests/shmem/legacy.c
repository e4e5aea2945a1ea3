/* The legacy API that old codes still use: start_pes (no shmem_init, no shmem_finalize: the
 * library finalizes at exit), _my_pe, _num_pes, shmalloc, shfree, shrealloc, shmemalign, the
 * mpp/shmem.h header, the _SHMEM_ constants and the removed cache calls (opt-in no-ops). Values are
 * checked through puts around the ring. */
#define PANGEA_SHMEM_CACHE_ROUTINES /* the removed cache calls, as old codes use them */
#include "check.h"                  /* first: it sets the POSIX feature level */

#include <mpp/shmem.h>

TEST_ALLOW_DEPRECATED

int main(void)
{
    start_pes(0);
    start_pes(0); /* a second call does nothing */
    int init = 0;
    shmem_query_initialized(&init);
    CHECK(init == 1, "query_initialized after start_pes: %d", init);
    int me = _my_pe(), npes = _num_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(me == shmem_my_pe() && npes == shmem_n_pes(), "_my_pe/_num_pes %d/%d, shmem %d/%d", me,
          npes, shmem_my_pe(), shmem_n_pes());
    CHECK(_SHMEM_CMP_EQ == SHMEM_CMP_EQ && _SHMEM_CMP_NE == SHMEM_CMP_NE &&
              _SHMEM_CMP_GT == SHMEM_CMP_GT && _SHMEM_CMP_GE == SHMEM_CMP_GE &&
              _SHMEM_CMP_LT == SHMEM_CMP_LT && _SHMEM_CMP_LE == SHMEM_CMP_LE,
          "_SHMEM_CMP_ constants differ");
    CHECK(_SHMEM_SYNC_VALUE == SHMEM_SYNC_VALUE &&
              _SHMEM_BARRIER_SYNC_SIZE == SHMEM_BARRIER_SYNC_SIZE &&
              _SHMEM_REDUCE_SYNC_SIZE == SHMEM_REDUCE_SYNC_SIZE &&
              _SHMEM_MAX_NAME_LEN == SHMEM_MAX_NAME_LEN,
          "_SHMEM_ sync constants differ");

    long *a = shmalloc(16 * sizeof(long));
    unsigned char *al = shmemalign(4096, 100);
    CHECK(a && al, "shmalloc/shmemalign returned NULL");
    if (!a || !al)
        return check_finish();
    CHECK((uintptr_t)al % 4096 == 0, "shmemalign(4096) returned %p", (void *)al);
    unsigned char src[100];
    test_fill_bytes(src, sizeof src, me, 1);
    shmem_long_p(&a[3], 3000 + me, right);
    shmem_putmem(al, src, sizeof src, right);
    shmem_barrier_all();
    CHECK(a[3] == 3000 + left, "shmalloc block: %ld, want %d", a[3], 3000 + left);
    size_t bad = test_bad_byte(al, 100, left, 1);
    CHECK(bad == SIZE_MAX, "shmemalign block from PE %d: byte %zu", left, bad);

    long *b = shrealloc(a, 100000 * sizeof(long));
    CHECK(b != NULL, "shrealloc returned NULL");
    if (b) {
        CHECK(b[3] == 3000 + left, "shrealloc lost the contents: %ld", b[3]);
        shmem_long_p(&b[99999], 5000 + me, right);
        shmem_barrier_all();
        CHECK(b[99999] == 5000 + left, "grown shrealloc block: %ld", b[99999]);
        a = b;
    }
    shmem_set_cache_inv(); /* removed in 1.5: no-ops */
    shmem_set_cache_line_inv(a);
    shmem_clear_cache_inv();
    shmem_clear_cache_line_inv(a);
    shmem_udcflush();
    shmem_udcflush_line(a);
    shfree(al);
    shfree(a);
    return check_finish(); /* no shmem_finalize: start_pes finalizes at exit */
}
