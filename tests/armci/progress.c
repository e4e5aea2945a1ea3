/* Remote progress: the last process computes (spins on a word of its own ARMCI memory, making
 * no ARMCI call) while every other process accumulates into it, reads it back, increments a
 * counter with ARMCI_Rmw, takes one of its mutexes, and finally sets the word. Without
 * asynchronous progress at the target (its node's data server when off-node) the job hangs. */
#include "armci_check.h"

#define ROUNDS 50

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    int target = nproc - 1;
    void **base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, 256);
    memset(base[me], 0, 256);
    ARMCI_Create_mutexes(1);
    ARMCI_Barrier();
    if (me == target) {
        volatile int *done = (volatile int *)base[me];
        while (*done < nproc - 1) /* computes: no ARMCI call until everybody is done */
            ;
    } else {
        char *t = base[target];
        double one = 1.0, sum[4];
        for (int r = 0; r < ROUNDS; r++) {
            double v[4] = {1, 2, 3, 4};
            ARMCI_Acc(ARMCI_ACC_DBL, &one, v, t + 64, sizeof v, target);
            int old;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, t + 8, 1, target);
        }
        ARMCI_Lock(0, target);
        ARMCI_Fence(target);
        ARMCI_Get(t + 64, sum, sizeof sum, target);
        ARMCI_Unlock(0, target);
        CHECK(sum[0] >= ROUNDS && sum[3] >= 4.0 * ROUNDS, "accumulated %g %g", sum[0], sum[3]);
        int one_more;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &one_more, t, 1, target); /* releases the target */
    }
    ARMCI_Barrier();
    if (me == target) {
        double *acc = (double *)((char *)base[me] + 64);
        CHECK(acc[0] == (nproc - 1.0) * ROUNDS && acc[3] == 4.0 * (nproc - 1) * ROUNDS,
              "totals %g %g", acc[0], acc[3]);
        CHECK(*(int *)((char *)base[me] + 8) == (nproc - 1) * ROUNDS, "Rmw counter %d",
              *(int *)((char *)base[me] + 8));
    }
    ARMCI_Destroy_mutexes();
    return test_end(base);
}
