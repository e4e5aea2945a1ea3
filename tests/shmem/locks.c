/* Distributed locks: shmem_set_lock, shmem_test_lock, shmem_clear_lock.
 *
 * - Mutual exclusion: every PE increments a non-atomic counter on PE 0 (g, then p, then quiet)
 *   M times under one lock; the total must be exactly npes * M. Inside the critical section an
 *   owner word (swapped with atomics) must show nobody else inside.
 * - test_lock: returns 1 while another PE holds the lock, 0 when it takes a free lock; a loop
 *   of test_lock used as the acquire also gives an exact total.
 * - Several locks at once: four locks, each guarding its own counter on a different PE, taken
 *   alone and two at a time (always in the same order); every counter is exact. */
#include "check.h"

#define NLOCKS 4

static int me, npes;
static long *locks;   /* symmetric, zeroed: [0] main, [1] test_lock, [2..2+NLOCKS) several */
static long *counter; /* symmetric: [0] main, [1] test_lock loop, [2..2+NLOCKS) several */
static long *owner;   /* symmetric: who is inside the main critical section (+1), on PE 0 */

static void critical_increment(long *ctr, int pe)
{
    long v = shmem_long_g(ctr, pe);
    shmem_long_p(ctr, v + 1, pe);
    shmem_quiet();
}

static void mutual_exclusion(long m)
{
    for (long i = 0; i < m; i++) {
        shmem_set_lock(&locks[0]);
        long was = shmem_long_atomic_swap(owner, me + 1, 0);
        CHECK(was == 0, "PE %ld was inside the critical section when PE %d entered", was - 1, me);
        critical_increment(&counter[0], 0);
        was = shmem_long_atomic_swap(owner, 0, 0);
        CHECK(was == me + 1, "owner word changed to %ld inside my critical section", was);
        shmem_clear_lock(&locks[0]);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter[0] == npes * m, "lock-protected counter: %ld, want %ld", counter[0],
              npes * m);
    shmem_barrier_all();
}

static void test_lock_semantics(long m)
{
    /* Each PE in turn takes the free lock with test_lock; the others see it held. */
    for (int holder = 0; holder < npes; holder++) {
        if (me == holder)
            CHECK(shmem_test_lock(&locks[1]) == 0, "test_lock on a free lock did not take it");
        shmem_barrier_all();
        if (me != holder)
            CHECK(shmem_test_lock(&locks[1]) == 1,
                  "test_lock returned 0 while PE %d holds the lock", holder);
        shmem_barrier_all();
        if (me == holder)
            shmem_clear_lock(&locks[1]);
        shmem_barrier_all();
    }
    /* test_lock as the acquire of a critical section. */
    for (long i = 0; i < m; i++) {
        while (shmem_test_lock(&locks[1]) != 0)
            ;
        critical_increment(&counter[1], npes - 1);
        shmem_clear_lock(&locks[1]);
    }
    shmem_barrier_all();
    if (me == npes - 1)
        CHECK(counter[1] == npes * m, "test_lock-protected counter: %ld, want %ld", counter[1],
              npes * m);
    shmem_barrier_all();
}

static void several_locks(long m)
{
    long want[NLOCKS] = {0};
    for (int pe = 0; pe < npes; pe++)
        for (long i = 0; i < m; i++) {
            int a = (int)((i + pe) % NLOCKS), b = (a + 1 + (int)(i % (NLOCKS - 1))) % NLOCKS;
            want[a]++;
            if (i % 2)
                want[b]++;
        }
    for (long i = 0; i < m; i++) {
        int a = (int)((i + me) % NLOCKS), b = (a + 1 + (int)(i % (NLOCKS - 1))) % NLOCKS;
        int lo = a < b ? a : b, hi = a < b ? b : a;
        if (i % 2) { /* two locks, always lowest first */
            shmem_set_lock(&locks[2 + lo]);
            shmem_set_lock(&locks[2 + hi]);
            critical_increment(&counter[2 + a], a % npes);
            critical_increment(&counter[2 + b], b % npes);
            shmem_clear_lock(&locks[2 + hi]);
            shmem_clear_lock(&locks[2 + lo]);
        } else {
            shmem_set_lock(&locks[2 + a]);
            critical_increment(&counter[2 + a], a % npes);
            shmem_clear_lock(&locks[2 + a]);
        }
    }
    shmem_barrier_all();
    for (int k = 0; k < NLOCKS; k++)
        if (k % npes == me)
            CHECK(counter[2 + k] == want[k], "counter of lock %d: %ld, want %ld", k, counter[2 + k],
                  want[k]);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    locks = shmem_calloc(2 + NLOCKS, sizeof(long));
    counter = shmem_calloc(2 + NLOCKS, sizeof(long));
    owner = shmem_calloc(1, sizeof(long));
    CHECK(locks && counter && owner, "allocation failed");
    if (!locks || !counter || !owner)
        return check_finish();

    long m = 2000 / npes < 250 ? 250 : 2000 / npes;
    mutual_exclusion(m);
    test_lock_semantics(m / 2);
    several_locks(m / 2);

    shmem_free(owner);
    shmem_free(counter);
    shmem_free(locks);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
