/* heap_grow: what growing the symmetric heap costs (issue 24), and that it costs nothing after.
 *
 * 1. A collective allocation that fits (shmem_malloc of 4 KiB, then shmem_free): the median of
 *    ROUNDS, the time on the slowest PE.
 * 2. Allocations that grow the heap: SIZE, 2 x SIZE, 4 x SIZE, ... never freed and never
 *    touched, each larger than the free space, so every one grows the heap (the heap at least
 *    doubles). Per allocation, the time on the slowest PE.
 * 3. RMA latency from PE 0 to the last PE (another node when the job spans two) into an object
 *    of the initial heap and into one in the grown part: 8-byte put + quiet, 8-byte get, and a
 *    64 KiB get, in alternating blocks of ITERS; the median of the blocks' means, in us.
 *
 * Run with SHMEM_SYMMETRIC_SIZE=SIZE (the default 64M) so that the first allocation grows it.
 * Options: -s SIZE (K, M, G), -g GROWTHS (default 4), -i ITERS (default 500), -b BLOCKS
 * (default 8). */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BLOCKS 64 /* and 4 x MAX_BLOCKS samples at most: BENCH_MAX_SAMPLE */
#define LARGE (64 * 1024)

static double slowest(double seconds)
{
    static double mine, most;
    mine = seconds;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &most, &mine, 1);
    return most;
}

/* Mean microseconds of one operation kind on target, over iters. */
enum op { PUT8, GET8, GET_LARGE };
static double latency(enum op op, char *remote, char *local, int target, int iters)
{
    double t0 = bench_now();
    for (int i = 0; i < iters; i++) {
        if (op == PUT8) {
            shmem_putmem(remote, local, 8, target);
            shmem_quiet();
        } else {
            shmem_getmem(local, remote, op == GET8 ? 8 : LARGE, target);
        }
    }
    return (bench_now() - t0) * 1e6 / iters;
}

int main(int argc, char **argv)
{
    struct bench_growth_options o = {.size = 64 << 20, .growths = 4, .iters = 500, .blocks = 8};
    bench_growth_options(argc, argv, &o, MAX_BLOCKS);
    size_t size = o.size;
    int growths = o.growths, iters = o.iters, blocks = o.blocks;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    char *initial = shmem_malloc(LARGE);
    char hostname[64] = "";
    gethostname(hostname, sizeof hostname);

    double fits[MAX_BLOCKS * 4];
    int nfits = blocks * 4;
    for (int r = 0; r < nfits; r++) {
        shmem_barrier_all();
        double t0 = bench_now();
        void *p = shmem_malloc(4096);
        double t = bench_now() - t0;
        shmem_free(p);
        fits[r] = slowest(t);
    }
    if (me == 0)
        printf("# heap_grow: %d PEs, PE 0 on %s, PE %d %s, SHMEM_SYMMETRIC_SIZE-sized steps of "
               "%zu bytes\nmalloc that fits: %.1f us (median of %d, slowest PE)\n",
               npes, hostname, last, shmem_ptr(initial, last) ? "on its node" : "on another node",
               size, bench_median(fits, nfits) * 1e6, nfits);

    char *grown = NULL;
    for (int g = 0; g < growths; g++) {
        size_t bytes = size << g;
        shmem_barrier_all();
        double t0 = bench_now();
        grown = shmem_malloc(bytes);
        double t = slowest(bench_now() - t0);
        if (me == 0)
            printf("malloc that grows the heap: %zu bytes: %.1f us%s\n", bytes, t * 1e6,
                   grown ? "" : " (failed)");
        if (!grown)
            break;
    }
    if (!grown) {
        shmem_finalize();
        return 1;
    }
    char *grown_object = grown + (size << (growths - 1)) - LARGE; /* the newest part's end */

    char *local = malloc(LARGE);
    memset(local, me, LARGE);
    static const char *const names[] = {"put 8 B + quiet", "get 8 B", "get 64 KiB"};
    for (int op = PUT8; op <= GET_LARGE; op++) {
        double part[2][MAX_BLOCKS];
        for (int b = 0; b < blocks; b++) {
            shmem_barrier_all();
            for (int which = 0; which < 2; which++) {
                int first = b % 2; /* alternate which part goes first */
                int w = which ^ first;
                char *remote = w ? grown_object : initial;
                part[w][b] = me == 0 ? latency((enum op)op, remote, local, last, iters) : 0;
            }
        }
        if (me == 0)
            printf("%-16s initial part %.2f us, grown part %.2f us (median of %d blocks of %d)\n",
                   names[op], bench_median(part[0], blocks), bench_median(part[1], blocks), blocks,
                   iters);
    }
    shmem_barrier_all();
    free(local);
    shmem_finalize();
    return 0;
}
