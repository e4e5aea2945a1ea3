/* hybrid_bench: the rates of an application's MPI traffic and of PGAS traffic, each alone and
 * both at once (issue 22: over PANGEA_TRANSPORT=mpi they share the MPI library).
 *
 *   mpiexec -np P hybrid_bench [seconds]      (default 2 s per phase)
 *
 * MPI traffic: each process exchanges 16 KiB messages with both ring neighbours (nonblocking,
 * then MPI_Waitall) and every 8th round joins an 8-byte MPI_Allreduce. PGAS traffic: each PE
 * puts 1 KiB (nbi) into the PE half a job away and adds 1 to a counter there, quieting every 16
 * rounds. Phases: mpi alone, pgas alone, both interleaved in one loop. Prints, for process 0,
 * rounds per second of each kind in each phase (one round of each kind per loop when both). */
#include "bench_util.h"

#include <mpi.h>
#include <shmem.h>
#include <stdio.h>

#define MPI_BYTES 16384
#define PUT_BYTES 1024

static int me, npes;
static char *out, *in_left, *in_right, *target;
static long *counter;

static void mpi_round(int round)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    MPI_Request r[4];
    MPI_Status s[4];
    MPI_Irecv(in_left, MPI_BYTES, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(in_right, MPI_BYTES, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Isend(out, MPI_BYTES, MPI_BYTE, right, 0, MPI_COMM_WORLD, &r[2]);
    MPI_Isend(out, MPI_BYTES, MPI_BYTE, left, 0, MPI_COMM_WORLD, &r[3]);
    MPI_Waitall(4, r, s);
    if (round % 8 == 0) {
        long one = 1, sum;
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    }
}

static void pgas_round(int round)
{
    int partner = (me + npes / 2) % npes;
    shmem_putmem_nbi(target, out, PUT_BYTES, partner);
    shmem_long_atomic_add(counter, 1, partner);
    if (round % 16 == 15)
        shmem_quiet();
}

/* Rounds per second of (mpi, pgas) over about `seconds`, the end agreed by process 0. */
static void phase(int do_mpi, int do_pgas, double seconds, double rates[2])
{
    MPI_Barrier(MPI_COMM_WORLD);
    double start = bench_now();
    int round = 0, stop = 0;
    while (!stop) {
        if (do_mpi)
            mpi_round(round);
        if (do_pgas)
            pgas_round(round);
        round++;
        if (round % 64 == 0) {
            stop = me == 0 && bench_now() - start > seconds;
            MPI_Bcast(&stop, 1, MPI_INT, 0, MPI_COMM_WORLD);
        }
    }
    shmem_quiet();
    double elapsed = bench_now() - start;
    rates[0] = do_mpi ? round / elapsed : 0;
    rates[1] = do_pgas ? round / elapsed : 0;
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    out = malloc(MPI_BYTES);
    in_left = malloc(MPI_BYTES);
    in_right = malloc(MPI_BYTES);
    target = shmem_malloc(PUT_BYTES);
    counter = shmem_calloc(1, sizeof *counter);
    memset(out, 1, MPI_BYTES);
    double alone_mpi[2], alone_pgas[2], both[2];
    phase(1, 0, seconds, alone_mpi);
    phase(0, 1, seconds, alone_pgas);
    phase(1, 1, seconds, both);
    if (me == 0) {
        printf("# hybrid_bench: %d processes, rounds/s of process 0\n", npes);
        printf("%-6s %12s %12s\n", "phase", "mpi", "pgas");
        printf("%-6s %12.0f %12s\n", "alone", alone_mpi[0], "-");
        printf("%-6s %12s %12.0f\n", "alone", "-", alone_pgas[1]);
        printf("%-6s %12.0f %12.0f\n", "both", both[0], both[1]);
    }
    shmem_free(target);
    shmem_free(counter);
    free(out);
    free(in_left);
    free(in_right);
    shmem_finalize();
    MPI_Finalize();
    return 0;
}
