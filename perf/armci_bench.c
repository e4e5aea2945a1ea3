/* armci_bench: ARMCI transfer costs, one source built twice — against Pangea (armci_bench)
 * and against Debian's ARMCI-MPI (armci_bench_armci_mpi, `make bench` when the package is
 * installed) — so the two can be compared on the same machine.
 *
 *   mpiexec -np P armci_bench [-q] [-m]     (-m: the armci_msg_* calls only)
 *
 * Process 0 moves 2-D patches of doubles (8x8 to 512x512) to and from process 1 (process 0
 * itself with one process): contiguous (the patch's bytes in one piece) and strided (a patch
 * of a 512-column array, one stride level), put, get and accumulate (scale 1), each ended by
 * ARMCI_Fence for the remote completion. Then the ARMCI_Rmw fetch-and-add latency, and the
 * accumulate throughput of up to 4 processes (0..3, process 0 included) hitting process 0 at
 * once with 64x64 strided patches, and the armci_msg_* barrier, reductions and broadcast that
 * Global Arrays calls in its loops. Every figure is the best of REPEATS runs (the machine is
 * shared). Columns: operation, shape, patch, microseconds per operation, MB/s (10^6 bytes). */
#include <armci.h>
#include <message.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LD 512 /* columns of the remote array */
#define REPEATS 5

enum op { PUT, GET, ACC };
static const char *const op_names[] = {"put", "get", "acc"};

static int me, nproc;
static void **base;
static double *local;

/* Seconds for `iters` operations of a size x size patch to target. */
static double run(enum op op, int strided, int size, int iters, int target)
{
    int bytes = size * size * (int)sizeof(double);
    int count[2] = {size * (int)sizeof(double), size};
    int stride[1] = {LD * (int)sizeof(double)};
    double scale = 1.0, t0 = MPI_Wtime();
    for (int k = 0; k < iters; k++) {
        void *remote = base[target];
        switch (op * 2 + strided) {
        case PUT * 2:
            ARMCI_Put(local, remote, bytes, target);
            break;
        case PUT * 2 + 1:
            ARMCI_PutS(local, stride, remote, stride, count, 1, target);
            break;
        case GET * 2:
            ARMCI_Get(remote, local, bytes, target);
            break;
        case GET * 2 + 1:
            ARMCI_GetS(remote, stride, local, stride, count, 1, target);
            break;
        case ACC * 2:
            ARMCI_Acc(ARMCI_ACC_DBL, &scale, local, remote, bytes, target);
            break;
        default:
            ARMCI_AccS(ARMCI_ACC_DBL, &scale, local, stride, remote, stride, count, 1, target);
        }
    }
    ARMCI_Fence(target);
    return MPI_Wtime() - t0;
}

static int iterations(int size)
{
    long bytes = (long)size * size * 8;
    long n = 8L * 1024 * 1024 / bytes;
    return n < 4 ? 4 : n > 2000 ? 2000 : (int)n;
}

static void transfers(void)
{
    int target = nproc > 1 ? 1 : 0;
    for (int strided = 0; strided <= 1; strided++)
        for (int op = PUT; op <= ACC; op++)
            for (int size = 8; size <= 512; size *= 2) {
                int iters = iterations(size);
                double best = 1e30;
                for (int r = 0; r < REPEATS; r++) {
                    if (me == 0) {
                        run((enum op)op, strided, size, 1, target); /* warm up */
                        double t = run((enum op)op, strided, size, iters, target);
                        best = t < best ? t : best;
                    }
                    ARMCI_Barrier();
                }
                if (me == 0) {
                    double us = best / iters * 1e6;
                    printf("%-4s %-7s %3dx%-3d %12.2f %10.1f\n", op_names[op],
                           strided ? "strided" : "contig", size, size, us, size * size * 8.0 / us);
                }
            }
}

static void rmw_latency(void)
{
    int target = nproc > 1 ? 1 : 0, iters = 20000;
    double best = 1e30;
    for (int r = 0; r < REPEATS; r++) {
        if (me == 0) {
            double t0 = MPI_Wtime();
            for (int k = 0; k < iters; k++) {
                int old;
                ARMCI_Rmw(ARMCI_FETCH_AND_ADD, &old, base[target], 1, target);
            }
            double t = MPI_Wtime() - t0;
            best = t < best ? t : best;
        }
        ARMCI_Barrier();
    }
    if (me == 0)
        printf("%-4s %-7s %7s %12.2f %10s\n", "rmw", "fadd", "int", best / iters * 1e6, "-");
}

/* Up to 4 processes (0..3) accumulate 64x64 strided patches into process 0 at once. The time
 * is from a barrier before the first to a barrier after the last has fenced: a per-process
 * time would flatter runs in which the scheduler lets the writers go one after another. */
static void contended_acc(void)
{
    int writers = nproc < 4 ? nproc : 4;
    int size = 64, iters = 400;
    double best = 1e30;
    for (int r = 0; r < REPEATS; r++) {
        ARMCI_Barrier();
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (me < writers)
            run(ACC, 1, size, iters, 0);
        MPI_Barrier(MPI_COMM_WORLD);
        double t = MPI_Wtime() - t0;
        best = t < best ? t : best;
    }
    if (me == 0) {
        double bytes = (double)writers * iters * size * size * 8;
        printf("%-4s %-7s %3dx%-3d %12.2f %10.1f   (%d processes into 1)\n", "acc", "contend", size,
               size, best / (writers * iters) * 1e6, bytes / best / 1e6, writers);
    }
}

/* The armci_msg_* calls Global Arrays makes in its loops (GA_Sync, GA_Dgop, GA_Brdcst):
 * microseconds per call, over all processes. */
static void message_calls(void)
{
    enum { ITERS = 2000, LONG = 1000 };
    static double values[LONG];
    static const char *const names[] = {"barrier", "dgop 1", "dgop 1000", "bcast 8"};
    for (int which = 0; which < 4; which++) {
        double best = 1e30;
        for (int r = 0; r < REPEATS; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < ITERS; k++) {
                if (which == 0)
                    armci_msg_barrier();
                else if (which == 1)
                    armci_msg_dgop(values, 1, "+");
                else if (which == 2)
                    armci_msg_dgop(values, LONG, "max");
                else
                    armci_msg_bcast(values, 8, 0);
            }
            double t = MPI_Wtime() - t0;
            MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            best = t < best ? t : best;
        }
        if (me == 0)
            printf("%-4s %-7s %-9s %10.2f %10s\n", "msg", names[which], "", best / ITERS * 1e6,
                   "-");
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    int quiet = 0, messages_only = 0;
    for (int a = 1; a < argc; a++) {
        quiet |= strcmp(argv[a], "-q") == 0;
        messages_only |= strcmp(argv[a], "-m") == 0;
    }
    base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)LD * LD * sizeof(double));
    local = ARMCI_Malloc_local((armci_size_t)LD * LD * sizeof(double));
    for (int k = 0; k < LD * LD; k++)
        local[k] = 1.0;
    memset(base[me], 0, (size_t)LD * LD * sizeof(double));
    ARMCI_Barrier();
    if (me == 0 && !quiet)
        printf("# %d processes; op shape patch us/op MB/s\n", nproc);
    if (!messages_only) {
        transfers();
        rmw_latency();
        contended_acc();
    }
    message_calls();
    ARMCI_Barrier();
    ARMCI_Free_local(local);
    ARMCI_Free(base[me]);
    free(base);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
