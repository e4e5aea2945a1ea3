/* prof_bench: what the communication profile (PANGEA_PROFILE) costs, A/B in one run. PE 0
 * measures 8-byte shmem_putmem to PE 1 — the rate of back-to-back puts, and the latency of a
 * put + shmem_quiet — in alternate rounds with counting off (A) and on (B), so that both see
 * the same load on a shared machine; it prints each round's figures and the median of each
 * side. The rate is taken in the thread's CPU time, the latency in elapsed time. Run with PE 1 on
 * PE 0's node for the on-node rate, on another node (tests/netns) for the off-node latency.
 *
 *   prof_bench [-r ROUNDS] [-n PUTS]
 *
 * It profiles into a scratch directory (PANGEA_PROFILE, unless set) and switches counting on
 * and off between rounds through prof.h, so it links the static library (like topo_bench). */
#define _POSIX_C_SOURCE 200809L
#include "prof/prof.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static long target[1];

/* This thread's CPU time: on a shared machine, time spent descheduled is not the put's. */
static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Nanoseconds per operation of n puts (with a quiet after each when quiet is set): CPU time
 * for the rate, elapsed time for the latency (which includes the network's). */
static double time_puts(long n, int quiet)
{
    long value = 1;
    double (*clock)(void) = quiet ? bench_now : cpu_now;
    double start = clock();
    for (long i = 0; i < n; i++) {
        shmem_putmem(target, &value, sizeof value, 1);
        if (quiet)
            shmem_quiet();
    }
    shmem_quiet();
    return (clock() - start) * 1e9 / (double)n;
}

int main(int argc, char **argv)
{
    int rounds = 10;
    long puts = 2000000;
    for (int opt; (opt = getopt(argc, argv, "r:n:")) != -1;) {
        if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'n')
            puts = atol(optarg);
        else {
            fprintf(stderr, "usage: %s [-r ROUNDS] [-n PUTS]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || rounds > BENCH_MAX_SAMPLE / 2 || puts < 1) {
        fprintf(stderr, "prof_bench: -r must be 1..%d and -n positive\n", BENCH_MAX_SAMPLE / 2);
        return 2;
    }
    char scratch[] = "/tmp/pangea-prof-bench.XXXXXX";
    if (!getenv("PANGEA_PROFILE")) {
        if (!mkdtemp(scratch))
            return perror("mkdtemp"), 1;
        setenv("PANGEA_PROFILE", scratch, 1);
    }
    shmem_init();
    if (shmem_n_pes() < 2) {
        fprintf(stderr, "prof_bench: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    uintptr_t counting = pg_prof_counting;
    if (shmem_my_pe() == 0) {
        long latency_puts = puts / 20 > 0 ? puts / 20 : 1;
        double rate[2][BENCH_MAX_SAMPLE], lat[2][BENCH_MAX_SAMPLE];
        time_puts(puts / 10 + 1, 0); /* warm-up */
        printf("# round  side  put rate (Mops/s)  put+quiet latency (us)\n");
        for (int r = 0; r < rounds; r++)
            for (int side = 0; side < 2; side++) {
                int on = (r % 2) ^ side; /* alternate which side goes first */
                pg_prof_counting = on ? counting : 0;
                rate[on][r] = 1e3 / time_puts(puts, 0);
                lat[on][r] = time_puts(latency_puts, 1) / 1e3;
                printf("%7d  %-4s  %17.2f  %22.3f\n", r, on ? "on" : "off", rate[on][r],
                       lat[on][r]);
            }
        pg_prof_counting = counting;
        double rate_off = bench_median(rate[0], rounds), rate_on = bench_median(rate[1], rounds);
        double lat_off = bench_median(lat[0], rounds), lat_on = bench_median(lat[1], rounds);
        printf("median  off   %17.2f  %22.3f\nmedian  on    %17.2f  %22.3f\n", rate_off, lat_off,
               rate_on, lat_on);
        printf("cost of counting: put rate %+.1f%%, put+quiet latency %+.1f%%\n",
               (rate_off / rate_on - 1) * 100, (lat_on / lat_off - 1) * 100);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
