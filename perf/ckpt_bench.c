/* ckpt_bench: what a checkpoint costs (docs/checkpoint.md). For each job heap size (split evenly
 * over the PEs, one symmetric object each), in rounds whose order alternates (the machine is
 * shared):
 *   memcpy   each PE copies its object into a private buffer (both warm): the reference for
 *            the blocking time;
 *   block    shmemx_checkpoint, until it returns (the image buffer warm from a first, unmeasured
 *            checkpoint);
 *   flush    from its return until shmemx_ckpt_quiesce has waited for every PE's write and
 *            committed it; throughput = job bytes / that time;
 *   dd       every PE at once: dd if=/dev/zero of=DIR/dd-PE bs=4M conv=fsync of its bytes:
 *            the reference for the flush (the same file system, the same run);
 *   compute  a private stencil kernel timed alone and right after shmemx_checkpoint returns,
 *            while the flush runs (sized to take about half the flush), in alternating
 *            order: slowdown = during / alone - 1, the largest over the PEs.
 * Times are the largest over the PEs. Prints one line per round and the medians.
 *
 * Options: -d DIR (required; on the file system to measure), -s SIZES (comma list of job heap
 * sizes, K/M/G suffixes; default 64M,256M,1G), -r ROUNDS (default 3). The heap must hold the
 * largest size / npes: SHMEM_SYMMETRIC_SIZE. */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>
#include <shmemx.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 32
#define MAX_SIZES 8
#define KERNEL_CELLS ((size_t)1 << 19) /* 4 MiB of doubles: in cache on most machines */

static int me, npes;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t parse_size(const char *text, char **end)
{
    size_t n = strtoull(text, end, 10);
    switch (**end) {
    case 'k':
    case 'K':
        ++*end;
        return n << 10;
    case 'm':
    case 'M':
        ++*end;
        return n << 20;
    case 'g':
    case 'G':
        ++*end;
        return n << 30;
    }
    return n;
}

/* The largest value over the PEs. */
static double max_over_pes(double mine)
{
    static double src, dest;
    src = mine;
    shmem_double_max_reduce(SHMEM_TEAM_WORLD, &dest, &src, 1);
    return dest;
}

static double kernel_cells[KERNEL_CELLS], kernel_next[KERNEL_CELLS];

/* A 1-D smoothing pass, repeated: memory- and FPU-bound work of the program. */
static double kernel(long passes)
{
    double t = now();
    for (long p = 0; p < passes; p++) {
        for (size_t i = 1; i + 1 < KERNEL_CELLS; i++)
            kernel_next[i] =
                0.25 * (kernel_cells[i - 1] + 2.0 * kernel_cells[i] + kernel_cells[i + 1]) + 1e-9;
        memcpy(kernel_cells + 1, kernel_next + 1, (KERNEL_CELLS - 2) * sizeof(double));
    }
    return now() - t;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct round {
    double memcpy_s, block_s, flush_s, dd_s, slowdown;
};

static void measure_memcpy(struct round *r, char *copy, const char *object, size_t bytes)
{
    shmem_barrier_all();
    double t = now();
    memcpy(copy, object, bytes);
    r->memcpy_s = max_over_pes(now() - t);
}

static void measure_checkpoint(struct round *r, const char *dir)
{
    shmem_barrier_all();
    double t = now();
    shmemx_checkpoint(dir);
    double returned = now();
    shmemx_ckpt_quiesce(); /* waits for every PE's write and commits it */
    double flushed = now();
    shmemx_ckpt_resume();
    r->block_s = max_over_pes(returned - t);
    r->flush_s = max_over_pes(flushed - returned);
}

static void measure_dd(struct round *r, const char *dir, size_t bytes)
{
    char file[4096], command[8192];
    snprintf(file, sizeof file, "%s/dd-%d", dir, me);
    snprintf(command, sizeof command,
             "dd if=/dev/zero of=%s bs=4M count=%zu conv=fsync status=none", file, bytes >> 22);
    shmem_barrier_all();
    double t = now();
    if (system(command) != 0)
        fprintf(stderr, "ckpt_bench: PE %d: %s failed\n", me, command);
    shmem_barrier_all();
    r->dd_s = max_over_pes(now() - t);
    unlink(file);
}

/* The kernel alone and during a flush, in the order the round's parity says. */
static void measure_compute(struct round *r, const char *dir, long passes, int alone_first)
{
    double alone = 0, during;
    if (alone_first) {
        shmem_barrier_all();
        alone = kernel(passes);
    }
    shmem_barrier_all();
    shmemx_checkpoint(dir);
    during = kernel(passes);
    shmemx_ckpt_quiesce();
    shmemx_ckpt_resume();
    if (!alone_first) {
        shmem_barrier_all();
        alone = kernel(passes);
    }
    r->slowdown = max_over_pes(during / alone - 1.0);
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *sizes_text = "64M,256M,1G";
    int rounds = 3;
    for (int opt; (opt = getopt(argc, argv, "d:s:r:")) != -1;) {
        if (opt == 'd')
            dir = optarg;
        else if (opt == 's')
            sizes_text = optarg;
        else if (opt == 'r')
            rounds = atoi(optarg);
    }
    if (!dir || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: ckpt_bench -d DIR [-s 64M,256M,1G] [-r ROUNDS]\n");
        return 2;
    }
    size_t sizes[MAX_SIZES];
    int nsizes = 0;
    for (char *p = (char *)sizes_text; *p && nsizes < MAX_SIZES; p += *p == ',') {
        char *end;
        sizes[nsizes++] = parse_size(p, &end);
        p = end;
    }

    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (size_t i = 0; i < KERNEL_CELLS; i++)
        kernel_cells[i] = (double)(i % 17);
    if (me == 0)
        printf("# ckpt_bench: %d PEs, DIR %s; times are the largest over the PEs; MB/s = 10^6 "
               "bytes/s of the whole job\n"
               "# %9s %5s %10s %10s %6s %10s %10s %6s %9s\n",
               npes, dir, "job bytes", "round", "memcpy ms", "block ms", "x", "flush MB/s",
               "dd MB/s", "%dd", "compute+");
    for (int s = 0; s < nsizes; s++) {
        size_t bytes = (sizes[s] / (size_t)npes) & ~(((size_t)4 << 20) - 1); /* whole 4 MiB */
        char *object = shmem_malloc(bytes);
        char *copy = malloc(bytes);
        if (!object || !copy) {
            if (me == 0)
                fprintf(stderr,
                        "ckpt_bench: cannot allocate %zu bytes per PE (raise "
                        "SHMEM_SYMMETRIC_SIZE)\n",
                        bytes);
            shmem_global_exit(1);
        }
        for (size_t i = 0; i < bytes; i += 64)
            object[i] = (char)(i * 7 + (size_t)me);
        memset(copy, 0, bytes);
        struct round warm;
        measure_checkpoint(&warm, dir); /* the image buffer's pages, and a first flush time */
        /* The kernel runs about half the flush, so that all of it overlaps the write. */
        kernel(1); /* its arrays' pages, once */
        double pass = kernel(1);
        long passes = (long)(0.5 * warm.flush_s / (pass > 1e-6 ? pass : 1e-6));
        passes = passes < 1 ? 1 : passes;
        static long passes_all, passes_src;
        passes_src = passes;
        shmem_long_min_reduce(SHMEM_TEAM_WORLD, &passes_all, &passes_src, 1);

        struct round r[MAX_ROUNDS];
        double v[5][MAX_ROUNDS];
        for (int k = 0; k < rounds; k++) {
            if (k % 2 == 0) {
                measure_memcpy(&r[k], copy, object, bytes);
                measure_checkpoint(&r[k], dir);
                measure_dd(&r[k], dir, bytes);
            } else {
                measure_dd(&r[k], dir, bytes);
                measure_checkpoint(&r[k], dir);
                measure_memcpy(&r[k], copy, object, bytes);
            }
            measure_compute(&r[k], dir, passes_all, k % 2 == 0);
            double job = (double)bytes * npes;
            v[0][k] = r[k].memcpy_s;
            v[1][k] = r[k].block_s;
            v[2][k] = job / r[k].flush_s;
            v[3][k] = job / r[k].dd_s;
            v[4][k] = r[k].slowdown;
            if (me == 0)
                printf("  %9zu %5d %10.1f %10.1f %6.2f %10.0f %10.0f %6.0f %8.1f%%\n",
                       bytes * (size_t)npes, k, 1e3 * r[k].memcpy_s, 1e3 * r[k].block_s,
                       r[k].block_s / r[k].memcpy_s, 1e-6 * v[2][k], 1e-6 * v[3][k],
                       100.0 * v[2][k] / v[3][k], 100.0 * r[k].slowdown);
        }
        if (me == 0) {
            double mc = median(v[0], rounds), bl = median(v[1], rounds);
            double fl = median(v[2], rounds), dd = median(v[3], rounds);
            printf("  %9zu %5s %10.1f %10.1f %6.2f %10.0f %10.0f %6.0f %8.1f%%\n",
                   bytes * (size_t)npes, "med", 1e3 * mc, 1e3 * bl, bl / mc, 1e-6 * fl, 1e-6 * dd,
                   100.0 * fl / dd, 100.0 * median(v[4], rounds));
            fflush(stdout);
        }
        free(copy);
        shmem_free(object);
    }
    shmem_finalize();
    return 0;
}
