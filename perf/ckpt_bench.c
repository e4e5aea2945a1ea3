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
 *            the reference for the flush (the same file system, the same run); ddD the same
 *            with oflag=direct, as the flush writes;
 *   compute+ a private stencil kernel timed alone (before and after: their mean) and while
 *            each of three writers writes the PE's bytes: the flush (right after
 *            shmemx_checkpoint returns), dd oflag=direct and the buffered dd, in an order that
 *            turns with the round; the kernel is sized to take about half the quickest writer.
 *            Slowdown = during / alone - 1, the largest over the PEs: what any writer of those
 *            bytes costs the computation on this machine, next to what the flush costs.
 * Times are the largest over the PEs. Prints one line per round and the medians.
 *
 * Options: -d DIR (required; on the file system to measure), -s SIZES (comma list of job heap
 * sizes, K/M/G suffixes; default 64M,256M,1G), -r ROUNDS (default 3), -p (the kernel runs
 * bound to one vCPU per PE, the writers free to use the others: with fewer PEs than vCPUs,
 * the computation beside a writer with a core left for the I/O). The heap must hold the
 * largest size / npes: SHMEM_SYMMETRIC_SIZE. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_* */

#include <shmem.h>
#include <shmemx.h>

#include <sched.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_ROUNDS 32
#define MAX_SIZES 8
#define KERNEL_CELLS ((size_t)1 << 19) /* 4 MiB of doubles: in cache on most machines */

enum writer { WRITER_FLUSH, WRITER_DD_DIRECT, WRITER_DD_BUFFERED, NWRITERS };

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
    double memcpy_s, block_s, flush_s, dd_s, dd_direct_s;
    double slowdown[NWRITERS];
    int writer_ended_early[NWRITERS]; /* the writer finished before the kernel */
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

/* Starts dd writing my bytes to DIR/dd-PE in the background: with O_DIRECT (as the flush
 * writes) or through the page cache; both fsync at the end, as the flush does. */
static pid_t start_dd(const char *dir, size_t bytes, int direct, char *file, size_t file_size)
{
    char of[4200], count[64];
    snprintf(file, file_size, "%s/dd-%d", dir, me);
    snprintf(of, sizeof of, "of=%s", file);
    snprintf(count, sizeof count, "count=%zu", bytes >> 22);
    char *argv[] = {"dd",         "if=/dev/zero", of,   "bs=4M", count,
                    "conv=fsync", "status=none",  NULL, NULL};
    if (direct)
        argv[7] = "oflag=direct";
    pid_t pid;
    int rc = posix_spawnp(&pid, "dd", NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "ckpt_bench: PE %d: cannot start dd: %s\n", me, strerror(rc));
        shmem_global_exit(1);
    }
    return pid;
}

static void finish_dd(pid_t pid, const char *file)
{
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr, "ckpt_bench: PE %d: dd of=%s failed\n", me, file);
    unlink(file);
}

/* Every PE at once writes its bytes with dd; returns the time until the last one is done. */
static double measure_dd(const char *dir, size_t bytes, int direct)
{
    char file[4096];
    shmem_barrier_all();
    double t = now();
    finish_dd(start_dd(dir, bytes, direct, file, sizeof file), file);
    shmem_barrier_all();
    return max_over_pes(now() - t);
}

/* With -p, the kernel runs bound to one vCPU (the PE's number modulo the vCPUs it may use),
 * the writers (started before) wherever the scheduler puts them. */
static int pin_kernel;
static cpu_set_t unpinned;

static void pin(void)
{
    if (!pin_kernel)
        return;
    sched_getaffinity(0, sizeof unpinned, &unpinned);
    int n = CPU_COUNT(&unpinned), k = me % (n > 0 ? n : 1);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &unpinned) && k-- == 0) {
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            sched_setaffinity(0, sizeof one, &one);
            return;
        }
    }
}

static void unpin(void)
{
    if (pin_kernel)
        sched_setaffinity(0, sizeof unpinned, &unpinned);
}

static double kernel_alone(long passes)
{
    shmem_barrier_all();
    pin();
    double t = kernel(passes);
    unpin();
    return t;
}

/* The kernel while writer w writes my bytes; *ended_early when the writer was done first. */
static double kernel_beside(enum writer w, const char *dir, size_t bytes, long passes,
                            int *ended_early)
{
    char file[4096];
    pid_t pid = -1;
    shmem_barrier_all();
    if (w == WRITER_FLUSH)
        shmemx_checkpoint(dir);
    else
        pid = start_dd(dir, bytes, w == WRITER_DD_DIRECT, file, sizeof file);
    pin();
    double t = kernel(passes);
    unpin();
    if (w == WRITER_FLUSH) {
        *ended_early = 0; /* sized from the flush's own time: see main */
        shmemx_ckpt_quiesce();
        shmemx_ckpt_resume();
    } else {
        int status;
        *ended_early = waitpid(pid, &status, WNOHANG) == pid;
        if (*ended_early) {
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
                fprintf(stderr, "ckpt_bench: PE %d: dd of=%s failed\n", me, file);
            unlink(file);
        } else {
            finish_dd(pid, file);
        }
    }
    return t;
}

/* The kernel alone (before and after; their mean) and beside each writer, the writers in an
 * order that turns with the round. */
static void measure_compute(struct round *r, const char *dir, size_t bytes, long passes, int k)
{
    double alone = kernel_alone(passes);
    double during[NWRITERS];
    for (int i = 0; i < NWRITERS; i++) {
        enum writer w = (enum writer)((i + k) % NWRITERS);
        during[w] = kernel_beside(w, dir, bytes, passes, &r->writer_ended_early[w]);
    }
    alone = 0.5 * (alone + kernel_alone(passes));
    for (int w = 0; w < NWRITERS; w++) {
        r->slowdown[w] = max_over_pes(during[w] / alone - 1.0);
        r->writer_ended_early[w] = (int)max_over_pes(r->writer_ended_early[w]);
    }
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *sizes_text = "64M,256M,1G";
    int rounds = 3;
    for (int opt; (opt = getopt(argc, argv, "d:s:r:p")) != -1;) {
        if (opt == 'd')
            dir = optarg;
        else if (opt == 's')
            sizes_text = optarg;
        else if (opt == 'r')
            rounds = atoi(optarg);
        else if (opt == 'p')
            pin_kernel = 1;
    }
    if (!dir || rounds < 1 || rounds > MAX_ROUNDS) {
        fprintf(stderr, "usage: ckpt_bench -d DIR [-s 64M,256M,1G] [-r ROUNDS] [-p]\n");
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
        printf("# ckpt_bench: %d PEs, DIR %s%s; times are the largest over the PEs; MB/s = 10^6 "
               "bytes/s of the whole job; compute+ beside the flush, dd oflag=direct, dd "
               "(buffered, conv=fsync); * the dd ended before the kernel\n"
               "# %9s %5s %9s %9s %5s %10s %8s %8s %5s %8s %8s %8s\n",
               npes, dir, pin_kernel ? ", kernel bound to one vCPU per PE (-p)" : "", "job bytes",
               "round", "memcpy ms", "block ms", "x", "flush MB/s", "dd MB/s", "ddD MB/s", "%dd",
               "+flush", "+ddD", "+dd");
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
        double writer_s = warm.flush_s, dd_s = measure_dd(dir, bytes, 1);
        writer_s = dd_s < writer_s ? dd_s : writer_s;
        dd_s = measure_dd(dir, bytes, 0);
        writer_s = dd_s < writer_s ? dd_s : writer_s;
        /* The kernel runs about half the quickest writer, so that all of it overlaps each. */
        kernel(1); /* its arrays' pages, once */
        double pass = kernel(1);
        long passes = (long)(0.5 * writer_s / (pass > 1e-6 ? pass : 1e-6));
        passes = passes < 1 ? 1 : passes;
        static long passes_all, passes_src;
        passes_src = passes;
        shmem_long_min_reduce(SHMEM_TEAM_WORLD, &passes_all, &passes_src, 1);

        struct round r[MAX_ROUNDS];
        double v[5 + NWRITERS][MAX_ROUNDS];
        for (int k = 0; k < rounds; k++) {
            if (k % 2 == 0) {
                measure_memcpy(&r[k], copy, object, bytes);
                measure_checkpoint(&r[k], dir);
                r[k].dd_s = measure_dd(dir, bytes, 0);
                r[k].dd_direct_s = measure_dd(dir, bytes, 1);
            } else {
                r[k].dd_direct_s = measure_dd(dir, bytes, 1);
                r[k].dd_s = measure_dd(dir, bytes, 0);
                measure_checkpoint(&r[k], dir);
                measure_memcpy(&r[k], copy, object, bytes);
            }
            measure_compute(&r[k], dir, bytes, passes_all, k);
            double job = (double)bytes * npes;
            v[0][k] = r[k].memcpy_s;
            v[1][k] = r[k].block_s;
            v[2][k] = job / r[k].flush_s;
            v[3][k] = job / r[k].dd_s;
            v[4][k] = job / r[k].dd_direct_s;
            for (int w = 0; w < NWRITERS; w++)
                v[5 + w][k] = r[k].slowdown[w];
            if (me == 0)
                printf("  %9zu %5d %9.1f %9.1f %5.2f %10.0f %8.0f %8.0f %5.0f %7.1f%% %7.1f%%%s "
                       "%6.1f%%%s\n",
                       bytes * (size_t)npes, k, 1e3 * r[k].memcpy_s, 1e3 * r[k].block_s,
                       r[k].block_s / r[k].memcpy_s, 1e-6 * v[2][k], 1e-6 * v[3][k], 1e-6 * v[4][k],
                       100.0 * v[2][k] / v[3][k], 100.0 * v[5][k], 100.0 * v[6][k],
                       r[k].writer_ended_early[WRITER_DD_DIRECT] ? "*" : " ", 100.0 * v[7][k],
                       r[k].writer_ended_early[WRITER_DD_BUFFERED] ? "*" : "");
        }
        if (me == 0) {
            double med[5 + NWRITERS];
            for (int i = 0; i < 5 + NWRITERS; i++)
                med[i] = median(v[i], rounds);
            printf("  %9zu %5s %9.1f %9.1f %5.2f %10.0f %8.0f %8.0f %5.0f %7.1f%% %7.1f%%  "
                   "%6.1f%%\n",
                   bytes * (size_t)npes, "med", 1e3 * med[0], 1e3 * med[1], med[1] / med[0],
                   1e-6 * med[2], 1e-6 * med[3], 1e-6 * med[4], 100.0 * med[2] / med[3],
                   100.0 * med[5], 100.0 * med[6], 100.0 * med[7]);
            fflush(stdout);
        }
        free(copy);
        shmem_free(object);
    }
    shmem_finalize();
    return 0;
}
