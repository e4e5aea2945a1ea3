/* group_grow: what growing a process's own area for ARMCI_Malloc_group costs (issue 24), and
 * the latency into it. The group is the even processes of the job.
 *
 * 1. A group allocation that fits (ARMCI_Malloc_group of 4 KiB, then ARMCI_Free_group): the
 *    median of ROUNDS, the time on the slowest member.
 * 2. Group allocations that grow the area: SIZE, 2 x SIZE, 4 x SIZE, ... never freed and never
 *    touched, each larger than the free space, so every one grows it. Per allocation, the time
 *    on the slowest member.
 * 3. Latency from process 0 to the last member (another node when the job spans two) into an
 *    ARMCI_Malloc object (the heap) and into the newest group object (the own area): 8-byte put
 *    + fence, 8-byte get, and a 64 KiB get, in alternating blocks of ITERS; the median of the
 *    blocks' means, in us.
 *
 *   mpiexec -np P group_grow [-s SIZE] [-g GROWTHS] [-i ITERS] [-b BLOCKS]
 *
 * SIZE (K, M, G; default 64M), GROWTHS (default 3), ITERS (default 500), BLOCKS (default 8). */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <armci.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_BLOCKS 64 /* and 4 x MAX_BLOCKS samples at most: BENCH_MAX_SAMPLE */
#define LARGE (64 * 1024)

static double slowest(double seconds, MPI_Comm comm)
{
    double most;
    MPI_Allreduce(&seconds, &most, 1, MPI_DOUBLE, MPI_MAX, comm);
    return most;
}

enum op { PUT8, GET8, GET_LARGE };
/* Mean microseconds of one operation kind on target, over iters. */
static double latency(enum op op, char *remote, char *local, int target, int iters)
{
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (op == PUT8) {
            ARMCI_Put(local, remote, 8, target);
            ARMCI_Fence(target);
        } else {
            ARMCI_Get(remote, local, op == GET8 ? 8 : LARGE, target);
        }
    }
    return (bench_now() - t0) * 1e6 / iters;
}

int main(int argc, char **argv)
{
    struct bench_growth_options o = {.size = 64 << 20, .growths = 3, .iters = 500, .blocks = 8};
    bench_growth_options(argc, argv, &o, MAX_BLOCKS);
    size_t size = o.size;
    int growths = o.growths, iters = o.iters, blocks = o.blocks;
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    int nmembers = (nproc + 1) / 2, last = 2 * (nmembers - 1);
    int *members = malloc((size_t)nmembers * sizeof *members);
    void **world = malloc((size_t)nproc * sizeof *world);
    void **ptrs = malloc((size_t)nmembers * sizeof *ptrs);
    for (int g = 0; g < nmembers; g++)
        members[g] = 2 * g;
    ARMCI_Group evens;
    ARMCI_Group_create(nmembers, members, &evens);
    ARMCI_Malloc(world, LARGE);
    char hostname[64] = "", last_host[64] = "";
    gethostname(hostname, sizeof hostname);
    memcpy(last_host, hostname, sizeof hostname);
    MPI_Bcast(last_host, sizeof last_host, MPI_CHAR, last, MPI_COMM_WORLD);

    int member = me % 2 == 0;
    char *newest = NULL;
    if (member) {
        MPI_Comm comm = evens.comm;
        double fits[MAX_BLOCKS * 4];
        int nfits = blocks * 4;
        ARMCI_Malloc_group(ptrs, 4096, &evens); /* the area's first growth is not timed here */
        ARMCI_Free_group(ptrs[me / 2], &evens);
        for (int r = 0; r < nfits; r++) {
            MPI_Barrier(comm);
            double t0 = bench_now();
            ARMCI_Malloc_group(ptrs, 4096, &evens);
            double t = bench_now() - t0;
            ARMCI_Free_group(ptrs[me / 2], &evens);
            fits[r] = slowest(t, comm);
        }
        if (me == 0)
            printf("# group_grow: %d processes, group of the %d even ones, process 0 on %s, "
                   "member %d %s, steps of %zu bytes\ngroup malloc that fits: %.1f us (median of "
                   "%d, slowest member)\n",
                   nproc, nmembers, hostname, last,
                   strcmp(hostname, last_host) ? "on another node" : "on its node", size,
                   bench_median(fits, nfits) * 1e6, nfits);
        for (int g = 0; g < growths; g++) {
            size_t bytes = size << g;
            MPI_Barrier(comm);
            double t0 = bench_now();
            ARMCI_Malloc_group(ptrs, (armci_size_t)bytes, &evens);
            double t = slowest(bench_now() - t0, comm);
            if (me == 0)
                printf("group malloc that grows the area: %zu bytes: %.1f us\n", bytes, t * 1e6);
        }
        newest = (char *)ptrs[nmembers - 1] + (size << (growths - 1)) - LARGE;
    }

    char *local = malloc(LARGE);
    memset(local, me, LARGE);
    static const char *const names[] = {"put 8 B + fence", "get 8 B", "get 64 KiB"};
    for (int op = PUT8; op <= GET_LARGE; op++) {
        double part[2][MAX_BLOCKS];
        for (int b = 0; b < blocks; b++) {
            MPI_Barrier(MPI_COMM_WORLD);
            for (int which = 0; which < 2; which++) {
                int w = which ^ (b % 2); /* alternate which goes first */
                char *remote = w ? newest : (char *)world[last];
                part[w][b] = me == 0 ? latency((enum op)op, remote, local, last, iters) : 0;
            }
        }
        if (me == 0)
            printf("%-16s heap object %.2f us, group object %.2f us (median of %d blocks of %d)\n",
                   names[op], bench_median(part[0], blocks), bench_median(part[1], blocks), blocks,
                   iters);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(local);
    free(ptrs);
    free(world);
    free(members);
    ARMCI_Finalize();
    MPI_Finalize();
    return 0;
}
