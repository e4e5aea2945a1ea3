/* The pause at a rail failover (issue 21, item 6): across 2 emulated nodes with two links each
 * (perf/failover-pause.sh: netns-run.sh --rails 2, one PE per node), PE 0 times each of OPS
 * operations to PE 1: fetch-adds (amo) or 1 MiB puts followed by quiet (put). When half of
 * them have landed, PE 1 takes its link LINK (the rail PE 0's requests go over) down. PE 0
 * prints the median time of an operation before the link went down, the longest one of the
 * 50 after it (the pause: the failover's detection, the rail taken out and the requests sent
 * again), the median after those, and the longest of the whole run (on a loaded machine the
 * scheduler's own pauses).
 *
 *   failover_pause amo|put LINK [OPS] */
#include "bench_util.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUT_BYTES (1 << 20)
#define MAX_OPS 20000

static long landed; /* at PE 1: operations PE 0 has done */
static double took[MAX_OPS];

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe();
    if (argc < 3 || shmem_n_pes() != 2 || (strcmp(argv[1], "amo") && strcmp(argv[1], "put"))) {
        if (me == 0)
            fprintf(stderr, "usage: failover_pause amo|put LINK [OPS] (2 PEs on 2 nodes)\n");
        shmem_finalize();
        return 2;
    }
    int put = strcmp(argv[1], "put") == 0;
    int ops = argc > 3 ? atoi(argv[3]) : (put ? 200 : 4000);
    if (ops < 4 || ops > MAX_OPS)
        ops = put ? 200 : 4000;
    char *region = shmem_malloc(PUT_BYTES);
    char *src = calloc(1, PUT_BYTES);
    shmem_barrier_all();
    if (me == 0) {
        for (int i = 0; i < ops; i++) {
            double t = bench_now_us();
            if (put) {
                shmem_putmem(region, src, PUT_BYTES, 1);
                shmem_quiet();
                shmem_long_atomic_inc(&landed, 1);
            } else {
                shmem_long_atomic_fetch_inc(&landed, 1);
            }
            took[i] = bench_now_us() - t;
        }
        /* The link goes down once op half has landed: the pause is the longest op of the
         * next WINDOW (PE 1 needs a moment to see the count and run ip). */
        enum { WINDOW = 50 };
        int half = ops / 2, at = half, longest = 0;
        for (int i = half; i < ops && i < half + WINDOW; i++)
            if (took[i] > took[at])
                at = i;
        for (int i = 1; i < ops; i++)
            if (took[i] > took[longest])
                longest = i;
        double pause = took[at], most = took[longest];
        double before = median(took, half),
               after = median(took + half + WINDOW, ops - half - WINDOW);
        printf("failover_pause %s: %d ops, median before %.1f us, pause %.1f ms (op %d), "
               "median after %.1f us, longest of all %.1f ms (op %d)\n",
               argv[1], ops, before, pause / 1000, at, after, most / 1000, longest);
    } else {
        shmem_long_wait_until(&landed, SHMEM_CMP_GE, ops / 2);
        char command[128];
        snprintf(command, sizeof command, "ip link set dev %s down", argv[2]);
        if (system(command) != 0)
            fprintf(stderr, "failover_pause: %s failed\n", command);
    }
    shmem_barrier_all();
    free(src);
    shmem_free(region);
    shmem_finalize();
    return 0;
}
