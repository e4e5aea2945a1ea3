/* topo_bench: the collectives with and without the switch level, A/B in one run — two copies of
 * SHMEM_TEAM_WORLD, one made with PANGEA_COLL_SWITCHES on (A: one leader per leaf switch above
 * the node leaders), one with it off (B: node leaders only), used in alternate rounds so that
 * both see the same load on a shared machine. Per collective and size: the messages and bytes
 * that crossed between leaf switches in one call (coll.h's counters, summed over the PEs), and
 * the latency: the median of each PE's calls, the slowest PE's, the median over rounds.
 *
 *   topo_bench [-r ROUNDS] [-i ITERS]       (run with PANGEA_TOPOLOGY_FILE on emulated nodes)
 *
 * It sets the tunable between the two splits, so it links the static library (like
 * pangea-tune). Each timed call is followed by an untimed barrier, so buffers may be reused. */
#define _POSIX_C_SOURCE 200809L
#include "coll/coll.h"
#include "runtime/runtime.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

enum op { SYNC, BROADCAST, REDUCE, SCAN, FCOLLECT, COLLECT, ALLTOALL, NOPS };
static const char *const op_names[NOPS] = {"team_sync",       "broadcastmem", "long_sum_reduce",
                                           "long_sum_inscan", "fcollectmem",  "collectmem",
                                           "alltoallmem"};
static const enum pg_coll_kind op_kind[NOPS] = {PG_COLL_SYNC,    PG_COLL_BROADCAST, PG_COLL_REDUCE,
                                                PG_COLL_SCAN,    PG_COLL_FCOLLECT,  PG_COLL_COLLECT,
                                                PG_COLL_ALLTOALL};

static char *src, *dst;
static double mine, slowest;
static long long counts[2], totals[2];

static void run(enum op op, shmem_team_t team, size_t bytes)
{
    switch (op) {
    case SYNC:
        shmem_team_sync(team);
        break;
    case BROADCAST:
        shmem_broadcastmem(team, dst, src, bytes, shmem_team_n_pes(team) - 1);
        break;
    case REDUCE:
        shmem_long_sum_reduce(team, (long *)dst, (const long *)src, bytes / sizeof(long));
        break;
    case SCAN:
        shmem_long_sum_inscan(team, (long *)dst, (const long *)src, bytes / sizeof(long));
        break;
    case FCOLLECT:
        shmem_fcollectmem(team, dst, src, bytes);
        break;
    case COLLECT:
        shmem_collectmem(team, dst, src, bytes);
        break;
    case ALLTOALL:
        shmem_alltoallmem(team, dst, src, bytes);
        break;
    default:
        break;
    }
}

/* The slowest PE's median of iters calls. */
static double latency(enum op op, shmem_team_t team, size_t bytes, int iters)
{
    double t[iters];
    for (int i = 0; i < iters; i++) {
        double start = bench_now_us();
        run(op, team, bytes);
        t[i] = bench_now_us() - start;
        shmem_barrier_all();
    }
    qsort(t, (size_t)iters, sizeof *t, bench_compare);
    mine = t[iters / 2];
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &slowest, &mine, 1);
    return slowest;
}

/* Messages and bytes of one call that crossed between leaf switches, over all PEs. */
static void traffic(enum op op, shmem_team_t team, size_t bytes, long long out[2])
{
    struct pg_coll_traffic before, after;
    shmem_barrier_all();
    pg_coll_traffic(op_kind[op], &before);
    run(op, team, bytes);
    pg_coll_traffic(op_kind[op], &after);
    counts[0] = (long long)(after.messages - before.messages);
    counts[1] = (long long)(after.bytes - before.bytes);
    shmem_barrier_all();
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, totals, counts, 2);
    out[0] = totals[0];
    out[1] = totals[1];
}

int main(int argc, char **argv)
{
    int rounds = 7, iters = 50, opt;
    while ((opt = getopt(argc, argv, "r:i:")) != -1) {
        if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'i')
            iters = atoi(optarg);
        else {
            fprintf(stderr, "usage: topo_bench [-r ROUNDS] [-i ITERS]\n");
            return 2;
        }
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    shmem_team_t team[2];
    long long on = pg_cfg.coll_switches;
    for (int ab = 0; ab < 2; ab++) {
        pg_cfg.coll_switches = ab == 0;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &team[ab]);
    }
    pg_cfg.coll_switches = on;
    size_t max = (size_t)npes * 65536;
    src = shmem_malloc(max);
    dst = shmem_malloc(max);
    memset(src, 1, max);
    memset(dst, 0, max);
    /* Reductions: gathered (8, 1024), split only across switches (3072), split (65536). */
    static const size_t sizes[][4] = {
        {0},       {8, 65536}, {8, 1024, 3072, 65536}, {8, 1024, 65536},
        {8, 4096}, {8, 4096},  {8, 4096, 65536}};
    if (me == 0)
        printf("# %d PEs; A = switch level, B = node leaders only; %d rounds of %d calls, "
               "alternating\n# %-16s %8s %12s %14s %12s %14s %10s %10s\n",
               npes, rounds, iters, "collective", "bytes", "A messages", "A bytes", "B messages",
               "B bytes", "A us", "B us");
    for (int op = 0; op < NOPS; op++)
        for (int s = 0; s < 4; s++) {
            size_t bytes = sizes[op][s];
            if (s > 0 && bytes == 0)
                break;
            long long cross[2][2];
            double us[2][rounds];
            for (int ab = 0; ab < 2; ab++)
                traffic(op, team[ab], bytes, cross[ab]);
            for (int r = 0; r < rounds; r++)
                for (int k = 0; k < 2; k++) {
                    int ab = (r + k) % 2; /* alternate which goes first */
                    us[ab][r] = latency(op, team[ab], bytes, iters);
                }
            qsort(us[0], (size_t)rounds, sizeof(double), bench_compare);
            qsort(us[1], (size_t)rounds, sizeof(double), bench_compare);
            if (me == 0)
                printf("  %-16s %8zu %12lld %14lld %12lld %14lld %10.1f %10.1f\n", op_names[op],
                       bytes, cross[0][0], cross[0][1], cross[1][0], cross[1][1], us[0][rounds / 2],
                       us[1][rounds / 2]);
        }
    shmem_team_destroy(team[0]);
    shmem_team_destroy(team[1]);
    shmem_free(dst);
    shmem_free(src);
    shmem_finalize();
    return 0;
}
