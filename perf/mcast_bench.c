/* mcast_bench: what a broadcast costs the network — the bytes all nodes' links transmitted per
 * broadcast (the interface's tx_bytes, read by one PE per node before and after, summed over
 * nodes) and its latency — for each size given (default 8 B, 64 KiB, 4 MiB) from PE 0.
 * Run with PANGEA_MCAST=on and =off for multicast against the tree (perf/mcast-bench.sh).
 *
 * Standard OpenSHMEM only: with a 1.5 library or later it broadcasts on SHMEM_TEAM_WORLD (the
 * teams are what multicast serves), with an older one (Open MPI's OSHMEM) by the active set of
 * every PE; the same source builds with any oshcc.
 *
 * Method: each broadcast is followed by a barrier (so dest and pSync may be reused), and the
 * bytes of the same number of barriers alone, measured just before, are taken away. A PE reads
 * its node's counter when no PE below it has the same host name. Latency: each PE's median
 * time in the call, the slowest PE's reported (as coll_bench).
 *
 *   mcast_bench [-i ITERS] [-n INTERFACE] [-r] [SIZE...]     sizes with K/M suffixes
 *
 * INTERFACE defaults to pgeth0 (the emulated nodes' link, tests/netns/netns-run.sh). With -r
 * the bytes are those the nodes' links received (rx_bytes): a multicast datagram counts once
 * per node that takes it, as the copies a switch makes would. */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"

#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define BENCH_TEAMS 1
#endif

static long psync[SHMEM_BCAST_SYNC_SIZE];
static long psync_stat[SHMEM_REDUCE_SYNC_SIZE];
static long psync_collect[SHMEM_COLLECT_SYNC_SIZE];
static double dwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 2];
static long long lwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 2];
static double stat_in, stat_out;
static long long bytes_in, bytes_out;
static uint64_t host_hash;

static char counter_path[256];
static int counts; /* this PE reads its node's counter */

static long long link_bytes(void)
{
    if (!counts)
        return 0;
    FILE *f = fopen(counter_path, "r");
    long long v = -1;
    if (f) {
        if (fscanf(f, "%lld", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* All nodes' bytes since `before` (this PE's reading), summed; -1 when a counter is missing. */
static long long all_nodes_since(long long before, int npes)
{
    long long now = link_bytes();
    bytes_in = before < 0 || now < 0 ? -(1ll << 40) : now - before;
    shmem_barrier_all();
    shmem_longlong_sum_to_all(&bytes_out, &bytes_in, 1, 0, 0, npes, lwork, psync_stat);
    shmem_barrier_all();
    return bytes_out < 0 ? -1 : bytes_out;
}

static double slowest(double mine, int npes)
{
    stat_in = mine;
    shmem_barrier_all();
    shmem_double_max_to_all(&stat_out, &stat_in, 1, 0, 0, npes, dwork, psync_stat);
    shmem_barrier_all();
    return stat_out;
}

static void broadcast(void *dst, const void *src, size_t bytes, int npes)
{
#ifdef BENCH_TEAMS
    (void)npes;
    shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, bytes, 0);
#else
    shmem_broadcast64(dst, src, bytes / 8, 0, 0, 0, npes, psync);
#endif
}

/* Which PE reads its node's counter: the first of those with my host name. */
static void choose_counters(int me, int npes, const char *ifname, const char *counter)
{
    static uint64_t hashes_in, *hashes;
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint64_t h = 1469598103934665603ull;
    for (const char *c = host; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    host_hash = hashes_in = h;
    hashes = shmem_malloc((size_t)npes * sizeof *hashes);
    shmem_barrier_all();
    shmem_fcollect64(hashes, &hashes_in, 1, 0, 0, npes, psync_collect);
    shmem_barrier_all();
    counts = 1;
    for (int p = 0; p < me; p++)
        if (hashes[p] == host_hash)
            counts = 0;
    shmem_free(hashes);
    snprintf(counter_path, sizeof counter_path, "/sys/class/net/%s/statistics/%s", ifname, counter);
}

int main(int argc, char **argv)
{
    int iters = 0, opt;
    const char *ifname = "pgeth0", *counter = "tx_bytes";
    while ((opt = getopt(argc, argv, "i:n:rh")) != -1) {
        if (opt == 'i') {
            iters = atoi(optarg);
        } else if (opt == 'n') {
            ifname = optarg;
        } else if (opt == 'r') {
            counter = "rx_bytes";
        } else {
            fprintf(stderr, "usage: %s [-i ITERS] [-n INTERFACE] [-r] [SIZE...]\n", argv[0]);
            return 2;
        }
    }
    size_t sizes[16] = {8, 64 << 10, 4 << 20};
    int nsizes = 3;
    if (optind < argc) {
        nsizes = 0;
        for (int a = optind; a < argc && nsizes < 16; a++)
            sizes[nsizes++] = (bench_size(argv[a]) + 7) & ~(size_t)7;
    }
    size_t max = 0;
    for (int s = 0; s < nsizes; s++)
        max = sizes[s] > max ? sizes[s] : max;

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (size_t i = 0; i < sizeof psync / sizeof *psync; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync_stat / sizeof *psync_stat; i++)
        psync_stat[i] = SHMEM_SYNC_VALUE;
    for (size_t i = 0; i < sizeof psync_collect / sizeof *psync_collect; i++)
        psync_collect[i] = SHMEM_SYNC_VALUE;
    char *src = shmem_malloc(max), *dst = shmem_malloc(max);
    double *t = malloc(BENCH_MAX_SAMPLE * sizeof *t);
    if (!src || !dst || !t) {
        fprintf(stderr, "mcast_bench: cannot allocate 2 x %zu bytes (SHMEM_SYMMETRIC_SIZE)\n", max);
        shmem_global_exit(1);
    }
    memset(src, 1, max);
    memset(dst, 0, max);
    choose_counters(me, npes, ifname, counter);
    int nodes_in = counts, nodes = 0;
    {
        static int in, out;
        static int iwork[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 2];
        in = nodes_in;
        shmem_barrier_all();
        shmem_int_sum_to_all(&out, &in, 1, 0, 0, npes, iwork, psync_stat);
        shmem_barrier_all();
        nodes = out;
    }
    if (me == 0)
        printf("# mcast_bench: %d PEs on %d nodes, %s; bytes = all nodes' %s %s per "
               "broadcast (barriers' taken away); us = slowest PE's median\n"
               "%9s %6s %12s %10s %10s %12s\n",
               npes, nodes,
#ifdef BENCH_TEAMS
               "shmem_broadcastmem on SHMEM_TEAM_WORLD",
#else
               "shmem_broadcast64 on all PEs",
#endif
               ifname, counter, "bytes", "iters", "bytes/bcast", "x size", "median(us)",
               "x (nodes-1)");
    for (int s = 0; s < nsizes; s++) {
        size_t bytes = sizes[s];
        int n = iters > 0 ? iters : bytes <= 4096 ? 200 : bytes <= (1 << 20) ? 50 : 12;
        if (n > BENCH_MAX_SAMPLE)
            n = BENCH_MAX_SAMPLE;
        for (int i = 0; i < 3; i++) { /* warm-up: the first broadcast joins the group */
            broadcast(dst, src, bytes, npes);
            shmem_barrier_all();
        }
        long long before = link_bytes();
        for (int i = 0; i < n; i++)
            shmem_barrier_all();
        long long barriers = all_nodes_since(before, npes);
        before = link_bytes();
        for (int i = 0; i < n; i++) {
            double t0 = bench_now_us();
            broadcast(dst, src, bytes, npes);
            t[i] = bench_now_us() - t0;
            shmem_barrier_all();
        }
        long long total = all_nodes_since(before, npes);
        double us = slowest(bench_median(t, n), npes);
        if (me != 0)
            continue;
        if (total < 0 || barriers < 0) {
            printf("%9zu %6d %12s %10s %10.1f %12s\n", bytes, n, "n/a", "n/a", us, "n/a");
        } else {
            double per = (double)(total - barriers) / n;
            printf("%9zu %6d %12.0f %10.3f %10.1f %12.3f\n", bytes, n, per, per / (double)bytes, us,
                   nodes > 1 ? per / ((double)bytes * (nodes - 1)) : 0.0);
        }
        fflush(stdout);
    }
    shmem_free(dst);
    shmem_free(src);
    free(t);
    shmem_finalize();
    return 0;
}
