/* Asynchronous progress: gets, puts and atomics aimed at a PE that computes without calling
 * the library must complete (spec §4.1). PE 0 works on the last PE, which spins on a plain
 * memory read of a flag until PE 0's final put sets it (or gives up after 60 s). */
#include "check.h"

#include <shmem.h>
#include <time.h>

static long counter;
static long flag;
static long data[512];

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), busy = npes - 1;
    for (int i = 0; i < 512; i++)
        data[i] = me * 1000 + i;
    shmem_barrier_all();

    if (npes > 1 && me == 0) {
        long got[512];
        for (int round = 0; round < 100; round++) {
            long old = shmem_long_atomic_fetch_add(&counter, 1, busy);
            CHECK(old == round, "fetch_add %d on the computing PE returned %ld", round, old);
        }
        shmem_long_get(got, data, 512, busy);
        for (int i = 0; i < 512; i++)
            CHECK(got[i] == busy * 1000 + i, "get from the computing PE: [%d] = %ld", i, got[i]);
        shmem_long_put(data, got, 256, busy); /* the first half of its array, its own values */
        shmem_quiet();
        shmem_long_atomic_set(&flag, 1, busy);
    } else if (npes > 1 && me == busy) {
        /* Computing: no library call until the flag is seen. */
        double start = seconds();
        while (__atomic_load_n(&flag, __ATOMIC_ACQUIRE) == 0 && seconds() - start < 60)
            ;
        CHECK(flag == 1, "no progress: the flag never arrived in 60 s");
        CHECK(counter == 100, "counter = %ld after 100 fetch-adds while computing", counter);
    }
    shmem_barrier_all();
    return check_finish();
}
