/* Hybrid MPI + OpenSHMEM program that initializes MPI first (spec Annex D.1): MPI_Init,
 * shmem_init, puts and MPI calls side by side, shmem_finalize, MPI still usable, MPI_Finalize.
 *
 * Checks: n_pes == MPI size; the PE numbers are a permutation of the ranks, and Pangea maps
 * PE = MPI_COMM_WORLD rank; a communicator split by PE number (the annex's example) has
 * rank == PE; ring puts deliver; an MPI_Allreduce agrees with what the puts carried; MPI works
 * after shmem_finalize. The verdict is aggregated over MPI, after shmem_finalize. */
#include "check.h"

#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    CHECK(npes == size, "n_pes %d, MPI size %d", npes, size);
    CHECK(me == rank, "PE %d is MPI rank %d (Pangea maps PE = rank)", me, rank);

    /* Every rank appears exactly once among the PEs. */
    int *ranks = shmem_calloc((size_t)npes, sizeof(int));
    long *ring = shmem_calloc(4, sizeof(long));
    shmem_int_p(&ranks[me], rank + 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        int *count = calloc((size_t)size, sizeof(int));
        for (int pe = 0; pe < npes; pe++)
            if (ranks[pe] >= 1 && ranks[pe] <= size)
                count[ranks[pe] - 1]++;
        for (int r = 0; r < size; r++)
            CHECK(count[r] == 1, "MPI rank %d belongs to %d PEs", r, count[r]);
        free(count);
    }

    /* The annex's mapping: split by PE number, then rank == PE. */
    MPI_Comm by_pe;
    MPI_Comm_split(MPI_COMM_WORLD, 0, me, &by_pe);
    int split_rank;
    MPI_Comm_rank(by_pe, &split_rank);
    CHECK(split_rank == me, "rank %d in the communicator split by PE, PE %d", split_rank, me);

    /* SHMEM puts and MPI collectives side by side. */
    for (int round = 0; round < 10; round++) {
        long v = 1000L * round + me;
        shmem_long_put(&ring[round % 2], &v, 1, right);
        shmem_barrier_all();
        CHECK(ring[round % 2] == 1000L * round + left, "round %d: ring put %ld", round,
              ring[round % 2]);
        long sum = 0, got = ring[round % 2];
        MPI_Allreduce(&got, &sum, 1, MPI_LONG, MPI_SUM, by_pe);
        long want = 1000L * round * npes + (long)npes * (npes - 1) / 2;
        CHECK(sum == want, "round %d: MPI_Allreduce of the put values %ld, want %ld", round, sum,
              want);
        shmem_barrier_all();
    }
    shmem_free(ring);
    shmem_free(ranks);
    shmem_finalize();

    /* MPI outlives shmem_finalize. */
    int flag = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "MPI no longer initialized after shmem_finalize");
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total == size, "MPI_Allreduce after shmem_finalize: %d, want %d", total, size);

    long failures = check_local_failures(), all = 0;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    int rc = check_report(__FILE__, rank, all);
    MPI_Comm_free(&by_pe);
    MPI_Finalize();
    return rc;
}
