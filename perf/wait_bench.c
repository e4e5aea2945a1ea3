/*
 * wait_bench.c - how fast waiting PEs hand off, and what their waiting costs.
 *
 * Standard OpenSHMEM 1.4 only, so it builds with any implementation's oshcc (Pangea's, Open
 * MPI's OSHMEM) and the figures compare.
 *
 *   barrier      shmem_barrier_all, all PEs;
 *   pingpong     wait_until hand-off between PE 0 and the last PE: each puts a counter into
 *                the other's flag and waits for its own (half a round trip);
 *   pipeline     a Synch_p2p-style sweep: a grid of ROWS x (COLS_PER_PE x npes) points split
 *                in columns over the PEs, each point a(i,j) = a(i-1,j) + a(i,j-1) - a(i-1,j-1);
 *                a PE waits for the left neighbour's flag of row i, computes its part of the
 *                row, puts its last value and the row's flag to the right neighbour; the last
 *                PE returns the corner to PE 0, which starts the next sweep. Reported as time
 *                per sweep, per row hand-off and MFlop/s (2 flops per point), verified against
 *                the closed form a(i,j) = i + j.
 *   aftercompute a phase of computation (COMPUTE_S of busy work on every PE), then one
 *                barrier and AFTER_HANDOFFS ping-pong hand-offs, each timed alone; repeated for
 *                the test's seconds (at least 3 times). Reports the first barrier's and the
 *                hand-offs' medians: what waking from a long quiet phase costs (a data server
 *                that stopped polling in it). Not in the default set.
 * Each line: the median of the samples, the minimum, and the CPU PE 0's process used over the
 * test's wall time (user + system from getrusage: ~100% for a spinning waiter, ~0 for one
 * that sleeps; PE 0 takes part in every test), and how much of it its other threads used
 * (Pangea's data-server thread on the node's first PE, a library's progress threads). A sample
 * times a batch of operations that lasts >= 20 us.
 *
 * Options: -t TESTS (comma list: barrier,pingpong,pipeline,aftercompute; default the first 3)
 *          -s SECONDS per test (default 1)
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"

#define MAX_SAMPLES 4000
#define PIPE_ROWS 256
#define PIPE_COLS_PER_PE 64
#define COMPUTE_S 1.0
#define AFTER_HANDOFFS 20
#define AFTER_REPEATS_MAX 64

static long flag;
static long pipe_flag[PIPE_ROWS];
static double pipe_left[PIPE_ROWS];
static long go;
static int batch; /* ops per sample, decided by PE 0 */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU seconds of the process (RUSAGE_SELF) or of the calling thread (RUSAGE_THREAD). */
static double cpu_now(int who)
{
    struct rusage r;
    getrusage(who, &r);
    return (double)r.ru_utime.tv_sec + 1e-6 * (double)r.ru_utime.tv_usec +
           (double)r.ru_stime.tv_sec + 1e-6 * (double)r.ru_stime.tv_usec;
}

/* One sample: `batch` operations of the test; returns its time. */
typedef double (*sample_fn)(int me, int npes, long *seq);

static double barrier_sample(int me, int npes, long *seq)
{
    (void)me, (void)npes, (void)seq;
    double t = now();
    for (int k = 0; k < batch; k++)
        shmem_barrier_all();
    return now() - t;
}

/* Half a round trip per operation: 2 x batch hand-offs. */
static double pingpong_sample(int me, int npes, long *seq)
{
    int last = npes - 1;
    double t = now();
    for (int k = 0; k < batch; k++) {
        long v = ++*seq;
        if (me == 0) {
            shmem_long_p(&flag, v, last);
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, v);
        } else if (me == last) {
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, v);
            shmem_long_p(&flag, v, 0);
        }
    }
    return (now() - t) / 2;
}

static double grid[PIPE_ROWS][PIPE_COLS_PER_PE + 1]; /* column 0: the left neighbour's */

/* One sweep per operation. */
static double pipeline_sample(int me, int npes, long *seq)
{
    double t = now();
    for (int k = 0; k < batch; k++) {
        long sweep = ++*seq;
        for (int i = 0; i < PIPE_ROWS; i++) {
            if (me > 0) {
                shmem_long_wait_until(&pipe_flag[i], SHMEM_CMP_EQ, sweep);
                grid[i][0] = pipe_left[i];
            } else {
                if (i == 0)
                    shmem_long_wait_until(&go, SHMEM_CMP_GE, sweep - 1);
                grid[i][0] = (double)(i - 1); /* a(i, -1) = i - 1 */
            }
            for (int j = 1; j <= PIPE_COLS_PER_PE; j++) {
                double up = i ? grid[i - 1][j] : (double)(me * PIPE_COLS_PER_PE + j - 2);
                double diag = i ? grid[i - 1][j - 1] : (double)(me * PIPE_COLS_PER_PE + j - 3);
                grid[i][j] = up + grid[i][j - 1] - diag;
            }
            if (me < npes - 1) {
                shmem_double_p(&pipe_left[i], grid[i][PIPE_COLS_PER_PE], me + 1);
                shmem_fence();
                shmem_long_p(&pipe_flag[i], sweep, me + 1);
            }
        }
        if (me == npes - 1 && npes > 1)
            shmem_long_p(&go, sweep, 0);
    }
    return now() - t;
}

static int pipeline_check(int me, int npes)
{
    int bad = 0;
    for (int i = 0; i < PIPE_ROWS; i++)
        for (int j = 1; j <= PIPE_COLS_PER_PE; j++)
            bad += grid[i][j] != (double)(i + me * PIPE_COLS_PER_PE + j - 1);
    (void)npes;
    return bad;
}

/* Busy work for `seconds` of wall time. */
static double compute(double seconds)
{
    double x = 0, end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 1000; i++)
            x += 1e-9 * i;
    return x;
}

static void after_compute(int me, int npes, double seconds)
{
    static double barriers[AFTER_REPEATS_MAX], handoffs[AFTER_REPEATS_MAX * AFTER_HANDOFFS];
    int repeats = (int)(seconds / COMPUTE_S);
    repeats = repeats < 3 ? 3 : repeats > AFTER_REPEATS_MAX ? AFTER_REPEATS_MAX : repeats;
    long seq = 0;
    double sink = 0;
    shmem_barrier_all();
    for (int r = 0; r < repeats; r++) {
        sink += compute(COMPUTE_S);
        double t = now();
        shmem_barrier_all();
        barriers[r] = now() - t;
        batch = 1;
        for (int h = 0; h < AFTER_HANDOFFS; h++)
            handoffs[r * AFTER_HANDOFFS + h] = pingpong_sample(me, npes, &seq);
    }
    shmem_barrier_all();
    if (me == 0) {
        int n = repeats * AFTER_HANDOFFS;
        qsort(barriers, (size_t)repeats, sizeof *barriers, bench_compare);
        qsort(handoffs, (size_t)n, sizeof *handoffs, bench_compare);
        printf("barrier after %.0f s compute       %10.3f us  (min %.3f; %d samples)%s\n",
               COMPUTE_S, barriers[repeats / 2] * 1e6, barriers[0] * 1e6, repeats,
               sink < 0 ? " " : "");
        printf("wait_until ping-pong after compute %10.3f us  (min %.3f; %d samples, the first "
               "%d after each phase)\n",
               handoffs[n / 2] * 1e6, handoffs[0] * 1e6, n, AFTER_HANDOFFS);
        fflush(stdout);
    }
}

static void run(const char *name, sample_fn sample, int me, int npes, double seconds,
                double flops_per_op)
{
    static double samples[MAX_SAMPLES];
    long seq = 0; /* each test has its own flags, counted from 0 */
    /* Batch size: PE 0 times single operations, everyone follows its choice. */
    static int chosen;
    batch = 1;
    shmem_barrier_all();
    double one = 0;
    for (int w = 0; w < 20; w++)
        one = sample(me, npes, &seq);
    if (me == 0) {
        chosen = one > 0 ? (int)(20e-6 / one) + 1 : 1;
        if (chosen > 10000)
            chosen = 10000;
    }
    shmem_barrier_all();
    batch = shmem_int_g(&chosen, 0);
    static int nsamples_box;
    if (me == 0) {
        double per_sample = one * batch;
        long n = per_sample > 0 ? (long)(seconds / per_sample) : MAX_SAMPLES;
        nsamples_box = n < 10 ? 10 : n > MAX_SAMPLES ? MAX_SAMPLES : (int)n;
    }
    shmem_barrier_all();
    int nsamples = shmem_int_g(&nsamples_box, 0);
    shmem_barrier_all();
    double wall0 = now(), cpu0 = cpu_now(RUSAGE_SELF), mine0 = cpu_now(RUSAGE_THREAD);
    for (int s = 0; s < nsamples; s++)
        samples[s] = sample(me, npes, &seq) / batch;
    double wall = now() - wall0, cpu = cpu_now(RUSAGE_SELF) - cpu0;
    double others = cpu - (cpu_now(RUSAGE_THREAD) - mine0);
    shmem_barrier_all();
    if (me == 0) {
        qsort(samples, (size_t)nsamples, sizeof *samples, bench_compare);
        double median = samples[nsamples / 2] * 1e6, min = samples[0] * 1e6;
        printf("%-34s %10.3f us  (min %.3f; %d samples x %d ops; PE 0 CPU %3.0f%%, other "
               "threads %3.0f%%)",
               name, median, min, nsamples, batch, 100 * cpu / wall, 100 * others / wall);
        if (flops_per_op > 0)
            printf("  %.0f MFlop/s, %.3f us per row hand-off", flops_per_op / median,
                   median / PIPE_ROWS);
        printf("\n");
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    const char *tests = "barrier,pingpong,pipeline";
    double seconds = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-t") && i + 1 < argc)
            tests = argv[++i];
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seconds = atof(argv[++i]);
        else {
            fprintf(stderr, "usage: wait_bench [-t barrier,pingpong,pipeline,aftercompute] [-s "
                            "SECONDS]\n");
            return 2;
        }
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    char name[64];
    int status = 0;
    if (strstr(tests, "barrier")) {
        snprintf(name, sizeof name, "barrier_all (%d PEs)", npes);
        run(name, barrier_sample, me, npes, seconds, 0);
    }
    if (strstr(tests, "pingpong") && npes > 1) {
        snprintf(name, sizeof name, "wait_until ping-pong (PE 0-%d)", npes - 1);
        run(name, pingpong_sample, me, npes, seconds, 0);
    }
    if (strstr(tests, "pipeline") && npes > 1) {
        snprintf(name, sizeof name, "pipeline %dx%d (%d PEs)", PIPE_ROWS, PIPE_COLS_PER_PE * npes,
                 npes);
        run(name, pipeline_sample, me, npes, seconds, 2.0 * PIPE_ROWS * PIPE_COLS_PER_PE * npes);
        int bad = pipeline_check(me, npes);
        if (bad) {
            printf("PE %d: pipeline: %d wrong points\n", me, bad);
            status = 1;
        }
    }
    if (strstr(tests, "aftercompute") && npes > 1)
        after_compute(me, npes, seconds);
    shmem_barrier_all();
    shmem_finalize();
    return status;
}
