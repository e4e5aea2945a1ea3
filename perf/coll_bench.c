/* coll_bench: OpenSHMEM collective latency — barrier_all, broadcast64, fcollect64,
 * long_sum_to_all and alltoall64 — from 8 B to 1 MiB (powers of 2) on every PE.
 *
 * Uses only the OpenSHMEM 1.4 active-set calls, so the same source builds with Pangea and
 * with Open MPI's OSHMEM (which has no teams). Each timed call is followed by an untimed
 * barrier, as in the OSU OpenSHMEM benchmarks, so that pSync and the buffers may be reused.
 * Reported per size: the median time of one call on the slowest PE (max over PEs of each PE's
 * median) and the mean over all PEs, in microseconds; for broadcast and fcollect also the
 * bandwidth each PE receives at, in MB/s (10^6 B), from the median.
 *
 *   coll_bench [-m MAX_BYTES] [-i ITERS] [-o OPERATION]
 *
 * -o runs only the named operation (e.g. alltoall64), for repeated runs of one of them.
 *
 * Needs a symmetric heap of about 4 x npes x MAX_BYTES (SHMEM_SYMMETRIC_SIZE). */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MIN_SIZE 8
#define DEFAULT_MAX (1 << 20)

static long psync[SHMEM_REDUCE_SYNC_SIZE > SHMEM_COLLECT_SYNC_SIZE ? SHMEM_REDUCE_SYNC_SIZE
                                                                   : SHMEM_COLLECT_SYNC_SIZE];
static long psync_alltoall[SHMEM_ALLTOALL_SYNC_SIZE];
static long psync_barrier[SHMEM_BARRIER_SYNC_SIZE];
static double stat_in[2], stat_out[2];
static double dwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 2];
static long psync_stat[SHMEM_REDUCE_SYNC_SIZE];

enum op { BARRIER, BROADCAST, FCOLLECT, SUM_REDUCE, ALLTOALL, NOPS };
static const char *op_names[NOPS] = {"barrier_all", "broadcast64", "fcollect64", "long_sum_to_all",
                                     "alltoall64"};

struct buffers {
    long *src, *dst, *work;
};

static void run_op(enum op op, const struct buffers *b, size_t bytes, int npes)
{
    size_t n64 = bytes / 8;
    switch (op) {
    case BARRIER:
        shmem_barrier_all();
        break;
    case BROADCAST:
        shmem_broadcast64(b->dst, b->src, n64, 0, 0, 0, npes, psync);
        break;
    case FCOLLECT:
        shmem_fcollect64(b->dst, b->src, n64, 0, 0, npes, psync);
        break;
    case SUM_REDUCE:
        shmem_long_sum_to_all(b->dst, b->src, (int)n64, 0, 0, npes, b->work, psync);
        break;
    case ALLTOALL:
        shmem_alltoall64(b->dst, b->src, n64, 0, 0, npes, psync_alltoall);
        break;
    case NOPS:
        break;
    }
}

/* Median and mean of one PE's times; then the max of medians and the mean of means. */
static void report(enum op op, size_t bytes, double *t, int iters, int npes, int me)
{
    double sum = 0;
    for (int i = 0; i < iters; i++)
        sum += t[i];
    qsort(t, (size_t)iters, sizeof *t, bench_compare);
    stat_in[0] = t[iters / 2];
    stat_in[1] = sum / iters;
    shmem_barrier_all();
    shmem_double_max_to_all(&stat_out[0], &stat_in[0], 1, 0, 0, npes, dwork, psync_stat);
    shmem_barrier_all();
    shmem_double_sum_to_all(&stat_out[1], &stat_in[1], 1, 0, 0, npes, dwork, psync_stat);
    shmem_barrier_all();
    if (me != 0)
        return;
    double received = op == BROADCAST ? (double)bytes : op == FCOLLECT ? (double)bytes * npes : 0;
    if (received > 0)
        printf("%-16s %9zu %12.2f %12.2f %12.1f\n", op_names[op], bytes, stat_out[0],
               stat_out[1] / npes, received / stat_out[0]);
    else
        printf("%-16s %9zu %12.2f %12.2f %12s\n", op_names[op], bytes, stat_out[0],
               stat_out[1] / npes, "-");
    fflush(stdout);
}

static int iterations_for(size_t bytes, int base)
{
    int iters = base;
    for (size_t b = 4096; b < bytes && iters > 10; b *= 4)
        iters /= 2;
    return iters;
}

int main(int argc, char **argv)
{
    size_t max = DEFAULT_MAX;
    int base_iters = 400, opt, only = -1;
    while ((opt = getopt(argc, argv, "m:i:o:h")) != -1) {
        if (opt == 'm') {
            max = (size_t)strtoul(optarg, NULL, 0);
        } else if (opt == 'i') {
            base_iters = atoi(optarg);
        } else if (opt == 'o') {
            for (int op = 0; op < NOPS; op++)
                if (strcmp(optarg, op_names[op]) == 0)
                    only = op;
            if (only < 0) {
                fprintf(stderr, "%s: no operation named %s\n", argv[0], optarg);
                return 2;
            }
        } else {
            fprintf(stderr, "usage: %s [-m MAX_BYTES] [-i ITERS] [-o OPERATION]\n", argv[0]);
            return 2;
        }
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (size_t i = 0; i < sizeof psync / sizeof psync[0]; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync_alltoall / sizeof psync_alltoall[0]; i++)
        psync_alltoall[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync_barrier / sizeof psync_barrier[0]; i++)
        psync_barrier[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync_stat / sizeof psync_stat[0]; i++)
        psync_stat[i] = SHMEM_SYNC_VALUE;
    struct buffers b;
    size_t all = max * (size_t)npes;
    b.src = shmem_malloc(all);
    b.dst = shmem_malloc(all);
    b.work = shmem_malloc(max / 2 + 8 * SHMEM_REDUCE_MIN_WRKDATA_SIZE);
    double *t = malloc((size_t)base_iters * sizeof *t);
    if (!b.src || !b.dst || !b.work || !t) {
        if (me == 0)
            fprintf(stderr, "coll_bench: cannot allocate %zu bytes (SHMEM_SYMMETRIC_SIZE)\n",
                    2 * all);
        shmem_global_exit(1);
    }
    memset(b.src, 1, all);
    memset(b.dst, 0, all);
    if (me == 0)
        printf("# coll_bench: %d PEs; us = microseconds per call; median: slowest PE's\n"
               "%-16s %9s %12s %12s %12s\n",
               npes, "operation", "bytes", "median(us)", "mean(us)", "MB/s");
    shmem_barrier_all();
    for (int op = 0; op < NOPS; op++) {
        if (only >= 0 && op != only)
            continue;
        for (size_t bytes = MIN_SIZE; bytes <= max; bytes *= 2) {
            int iters = iterations_for(bytes, base_iters);
            for (int i = -iters / 10 - 1; i < iters; i++) { /* a few untimed warm-up calls */
                double t0 = bench_now_us();
                run_op((enum op)op, &b, bytes, npes);
                double t1 = bench_now_us();
                if (i >= 0)
                    t[i] = t1 - t0;
                shmem_barrier(0, 0, npes, psync_barrier);
            }
            report((enum op)op, bytes, t, iters, npes, me);
            if (op == BARRIER)
                break;
        }
    }
    shmem_free(b.work);
    shmem_free(b.dst);
    shmem_free(b.src);
    free(t);
    shmem_finalize();
    return 0;
}
