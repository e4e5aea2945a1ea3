/* Atomics, mutexes and notification, with ARMCI and OpenSHMEM in one program (initialised in
 * the order TEST_ORDER says: "armci" first or "shmem" first, finalised in the same order).
 *
 * - ARMCI_Rmw: FETCH_AND_ADD and FETCH_AND_ADD_LONG counters on every process, interleaved
 *   with shmem_int/long_atomic_(fetch_)add on the same words: totals exact. SWAP/SWAP_LONG:
 *   every value swapped in comes out exactly once.
 * - ARMCI_Lock/Unlock: a non-atomic get-increment-put counter on every process, under that
 *   process's mutex: exact. The ARMCIX_*_hdl forms on a split group, with Trylock.
 * - armci_notify / armci_notify_wait: a put then a notification to the right neighbour. */
#include "armci_check.h"

#include <armcix.h>
#include <shmem.h>

#define ADDS 200
#define CS 50

static int me, nproc;

static void init_both(int armci_first)
{
    if (armci_first) {
        ARMCI_Init();
        shmem_init();
    } else {
        shmem_init();
        ARMCI_Init();
    }
}

static void rmw_counters(void **base)
{
    /* Layout of every block: int counter at 0, long counter at 8, swap slots after. */
    for (int k = 0; k < ADDS; k++) {
        int t = (me + k) % nproc;
        int old_int;
        long old_long;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old_int, base[t], 1, t);
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old_long, (char *)base[t] + 8, 3, t);
        /* The same words through OpenSHMEM: base[me] is my symmetric address. */
        shmem_int_atomic_fetch_add((int *)base[me], 1, t);
        shmem_long_atomic_add((long *)((char *)base[me] + 8), 3, t);
        CHECK(old_int >= 0 && old_int < 2 * ADDS * nproc && old_long % 3 == 0, "fetched %d and %ld",
              old_int, old_long);
    }
    ARMCI_Barrier();
    CHECK(*(int *)base[me] == 2 * ADDS, "int counter %d, want %d", *(int *)base[me], 2 * ADDS);
    CHECK(*(long *)((char *)base[me] + 8) == 6L * ADDS, "long counter %ld, want %ld",
          *(long *)((char *)base[me] + 8), 6L * ADDS);

    /* Swaps: each process swaps its own tokens into the right neighbour's slot 10 times. */
    int right = (me + 1) % nproc;
    int token = 1000 * (me + 1), got_int = 0;
    long ltoken = 100000L * (me + 1), got_long = 0;
    *(int *)((char *)base[me] + 16) = 0;
    *(long *)((char *)base[me] + 24) = 0;
    ARMCI_Barrier();
    long seen = 0, seen_long = 0;
    for (int k = 0; k < 10; k++) {
        got_int = token + k;
        ARMCI_Rmw(ARMCI_SWAP, &got_int, (char *)base[right] + 16, 0, right);
        seen += got_int;
        got_long = ltoken + k;
        ARMCI_Rmw(ARMCI_SWAP_LONG, &got_long, (char *)base[right] + 24, 0, right);
        seen_long += got_long;
    }
    ARMCI_Barrier();
    /* Only I swap into my right neighbour: I saw 0 then my own previous values. */
    long want = 0, want_long = 0;
    for (int k = 0; k < 9; k++) {
        want += token + k;
        want_long += ltoken + k;
    }
    CHECK(seen == want, "swapped out %ld, want %ld", seen, want);
    CHECK(seen_long == want_long, "swapped out (long) %ld, want %ld", seen_long, want_long);
    int left = (me + nproc - 1) % nproc;
    CHECK(*(int *)((char *)base[me] + 16) == 1000 * (left + 1) + 9, "int slot holds %d",
          *(int *)((char *)base[me] + 16));
    CHECK(*(long *)((char *)base[me] + 24) == 100000L * (left + 1) + 9, "long slot holds %ld",
          *(long *)((char *)base[me] + 24));
}

static void mutex_counters(void **base)
{
    ARMCI_Create_mutexes(2);
    long *counter = (long *)((char *)base[me] + 64);
    counter[0] = counter[1] = 0;
    ARMCI_Barrier();
    for (int k = 0; k < CS; k++) {
        int t = (me + k) % nproc, m = k % 2;
        long *remote = (long *)((char *)base[t] + 64) + m;
        ARMCI_Lock(m, t);
        long v = ARMCI_GetValueLong(remote, t);
        ARMCI_PutValueLong(v + 1, remote, t);
        ARMCI_Unlock(m, t);
    }
    ARMCI_Barrier();
    CHECK(counter[0] + counter[1] == CS, "mutex counters %ld + %ld, want %d", counter[0],
          counter[1], CS);
    ARMCI_Destroy_mutexes();

    /* Handle forms on the group of even or odd processes; ranks are group ranks. */
    ARMCI_Group world, half;
    ARMCI_Group_get_world(&world);
    ARMCIX_Group_split(&world, me % 2, me, &half);
    int hsize, hrank;
    ARMCI_Group_size(&half, &hsize);
    ARMCI_Group_rank(&half, &hrank);
    armcix_mutex_hdl_t hdl = ARMCIX_Create_mutexes_hdl(1, &half);
    long *hcounter = (long *)((char *)base[me] + 96);
    *hcounter = 0;
    ARMCI_Barrier();
    for (int k = 0; k < CS; k++) {
        int r = (hrank + k) % hsize, owner = ARMCI_Absolute_id(&half, r);
        long *remote = (long *)((char *)base[owner] + 96);
        if (k % 2 == 0) {
            ARMCIX_Lock_hdl(hdl, 0, r);
        } else {
            while (ARMCIX_Trylock_hdl(hdl, 0, r) != 0)
                sched_yield();
        }
        long v = ARMCI_GetValueLong(remote, owner);
        ARMCI_PutValueLong(v + 1, remote, owner);
        ARMCIX_Unlock_hdl(hdl, 0, r);
    }
    ARMCI_Barrier();
    CHECK(*hcounter == CS, "group mutex counter %ld, want %d", *hcounter, CS);
    ARMCIX_Destroy_mutexes_hdl(hdl);
    ARMCI_Group_free(&half);
}

static void notification(void **base)
{
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    for (int k = 1; k <= 3; k++) {
        ARMCI_PutValueInt(100 * me + k, (char *)base[right] + 128, right);
        CHECK(armci_notify(right) == k, "armci_notify count");
        int val = 0;
        CHECK(armci_notify_wait(left, &val) == k && val == k, "armci_notify_wait count %d", val);
        CHECK(*(int *)((char *)base[me] + 128) == 100 * left + k, "data before notification: %d",
              *(int *)((char *)base[me] + 128));
        ARMCI_Barrier(); /* the slot is reused in the next round */
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *order = getenv("TEST_ORDER");
    int armci_first = !order || strcmp(order, "shmem") != 0;
    init_both(armci_first);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(shmem_my_pe() == me && shmem_n_pes() == nproc, "shmem and MPI disagree on ids");

    void **base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, 256);
    memset(base[me], 0, 256);
    /* shmem_malloc after ARMCI allocations: the symmetric heap is still in step everywhere. */
    long *sym = shmem_malloc(sizeof(long));
    *sym = 0;
    ARMCI_Barrier();
    shmem_long_atomic_inc(sym, 0);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*sym == nproc, "shmem counter %ld after ARMCI_Malloc", *sym);
    /* ...and ARMCI reaches it: its address on process p is p's translation of mine. */
    long from_armci = ARMCI_GetValueLong(sym, me);
    CHECK(from_armci == *sym, "ARMCI get of shmem memory");

    rmw_counters(base);
    mutex_counters(base);
    notification(base);

    ARMCI_Barrier();
    shmem_free(sym);
    ARMCI_Free(base[me]);
    free(base);
    int rc = check_finish();
    if (armci_first) {
        ARMCI_Finalize();
        shmem_finalize();
    } else {
        shmem_finalize();
        ARMCI_Finalize();
    }
    MPI_Finalize();
    return rc;
}
