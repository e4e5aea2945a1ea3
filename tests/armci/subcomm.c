/* ARMCI on a communicator of some of the processes (GA_Initialize_comm, GA's comm_init.x):
 * MPI_COMM_WORLD is split in two disjoint halves (even and odd ranks, so each spans the nodes
 * when there are several) and each half runs ARMCI on its own communicator at the same time.
 * In each half: process ids are the half's ranks (armci_msg_me/nproc, ARMCI_Malloc's
 * pointer array), every process puts a pattern into its right neighbour's block and reads
 * it back from the left one (every byte and the guards around it), accumulates into
 * process 0 (exact total), and fetch-and-adds a counter there (each old value once); an
 * OpenSHMEM init afterwards sees the same processes (shmem_n_pes is the half's size).
 * With one process, the half is the whole world. With TEST_SHMEM_FIRST=1, OpenSHMEM comes up
 * over all the processes first, and ARMCI on a half must then stop the job with a message (the
 * list line expects it), never hang. */
#include "armci_check.h"

#include <shmem.h>

#define BLOCK 1000
#define GUARD 16

static unsigned char pattern(int from, size_t k, int half)
{
    return (unsigned char)(from * 17 + k * 5 + half * 101 + 3);
}

static void run_half(MPI_Comm comm, int half)
{
    CHECK(ARMCI_Init_mpi_comm(comm) == 0, "ARMCI_Init_mpi_comm failed");
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int me = armci_msg_me(), nproc = armci_msg_nproc();
    CHECK(me == rank && nproc == size, "ARMCI says %d of %d, the communicator %d of %d", me, nproc,
          rank, size);
    void **ptrs = malloc((size_t)size * sizeof *ptrs);
    ARMCI_Malloc(ptrs, BLOCK + 2 * GUARD + 2 * sizeof(double) + sizeof(long));
    unsigned char *mine = ptrs[me];
    memset(mine, 0xA5, BLOCK + 2 * GUARD);
    double *total = (double *)(mine + BLOCK + 2 * GUARD);
    total[0] = 0;
    long *counter = (long *)(total + 2);
    *counter = 0;
    ARMCI_Barrier();

    unsigned char out[BLOCK];
    for (size_t k = 0; k < BLOCK; k++)
        out[k] = pattern(me, k, half);
    int right = (me + 1) % size, left = (me + size - 1) % size;
    ARMCI_Put(out, (char *)ptrs[right] + GUARD, BLOCK, right);
    double one = 1.0;
    ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, (char *)ptrs[0] + BLOCK + 2 * GUARD, sizeof one, 0);
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (char *)ptrs[0] + BLOCK + 2 * GUARD + 16, 1, 0);
    CHECK(old >= 0 && old < size, "fetch-and-add gave %ld with %d processes", old, size);
    ARMCI_AllFence();
    ARMCI_Barrier();

    for (size_t k = 0; k < BLOCK + 2 * GUARD; k++) {
        int data = k >= GUARD && k < GUARD + BLOCK;
        unsigned char want = data ? pattern(left, k - GUARD, half) : 0xA5;
        CHECK(mine[k] == want, "half %d, process %d: byte %zu is %u, expected %u", half, me, k,
              mine[k], want);
    }
    if (me == 0) {
        CHECK(total[0] == size, "half %d: the accumulated total is %g, expected %d", half, total[0],
              size);
        CHECK(*counter == size, "half %d: the counter is %ld, expected %d", half, *counter, size);
    }

    shmem_init();
    CHECK(shmem_n_pes() == size && shmem_my_pe() == me,
          "OpenSHMEM after ARMCI on the half: PE %d of %d, expected %d of %d", shmem_my_pe(),
          shmem_n_pes(), me, size);
    shmem_finalize();

    ARMCI_Free(ptrs[me]);
    free(ptrs);
    ARMCI_Finalize();
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    if (getenv("TEST_SHMEM_FIRST"))
        shmem_init();
    run_half(half, rank % 2);
    MPI_Comm_free(&half);
    int status = check_finish();
    MPI_Finalize();
    return status;
}
