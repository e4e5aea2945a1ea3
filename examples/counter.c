/* counter: every PE adds to one counter on PE 0 with atomic fetch-add, then all check the
 * total, and a global (static) array is filled by one-sided puts from every PE. */
#include <shmem.h>
#include <stdio.h>

#define ADDS_PER_PE 10000

static long counter;   /* static data is symmetric too */
static int slots[256]; /* slots[pe] is written by PE pe */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > 256) {
        if (me == 0)
            fprintf(stderr, "counter: at most 256 PEs\n");
        shmem_global_exit(1);
    }
    for (int i = 0; i < ADDS_PER_PE; i++)
        shmem_long_atomic_fetch_add(&counter, 1, 0);
    shmem_int_p(&slots[me], me * me, 0);
    shmem_barrier_all();

    int ok = 1;
    if (me == 0) {
        long total = shmem_long_atomic_fetch(&counter, 0);
        ok = total == (long)npes * ADDS_PER_PE;
        for (int pe = 0; pe < npes; pe++)
            ok &= slots[pe] == pe * pe;
        printf("counter: %d PEs x %d fetch-adds = %ld (expected %ld), static slots %s\n", npes,
               ADDS_PER_PE, total, (long)npes * ADDS_PER_PE, ok ? "ok" : "WRONG");
    }
    shmem_finalize();
    return ok ? 0 : 1;
}
