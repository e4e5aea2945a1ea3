/*
 * shmem_bench.c - portable OpenSHMEM micro-benchmark.
 *
 * Uses only standard OpenSHMEM 1.4 calls, so the same source builds with
 * any implementation's compiler wrapper (Pangea's, Open MPI OSHMEM's oshcc,
 * Sandia OpenSHMEM, ...).
 *
 * PE 0 measures, PE 1 is the target.  With more than 2 PEs only PEs 0 and 1
 * take part in the point-to-point tests; the others wait in
 * shmem_barrier_all() (all PEs take part in the barrier test).
 *
 * Measured:
 *   - shmem_putmem + shmem_quiet latency and shmem_getmem latency,
 *     8 B .. max size (powers of 2);
 *   - put / get bandwidth: a window of WINDOW (64) shmem_putmem_nbi /
 *     shmem_getmem_nbi calls followed by shmem_quiet (fewer calls above
 *     4 MiB, so that a window moves at most 256 MiB), median over windows,
 *     MB/s with MB = 10^6 bytes;
 *   - memcpy bandwidth between two private (malloc) buffers of PE 0,
 *     same sizes and windows, as a reference for the put bandwidth;
 *   - shmem_long_atomic_fetch_add and shmem_long_atomic_add + shmem_quiet;
 *   - what ordering costs the caller: 8-byte shmem_putmem + shmem_fence, and a 1 KiB
 *     shmem_putmem_signal (signal added; OpenSHMEM 1.5 and later), each per call, a quiet
 *     after the samples;
 *   - shmem_barrier_all (all PEs);
 *   - 8-byte put+quiet / get / fetch-add on a static global array
 *     (symmetric by the spec) versus the symmetric heap.
 * Latencies are per operation: the median over samples, each sample timing
 * a batch of operations sized (during warm-up) to last >= 5 us, because the
 * clock costs ~20-30 ns and a shared-memory put can take less than that.
 * Data moved by puts/gets and the atomic counters are checked afterwards;
 * the exit code is 1 if a check failed.
 *
 * With -s nothing but the symmetric heap is accessed remotely, which helps
 * with an implementation that cannot yet reach static/global data.
 *
 * Options: -q quick mode (fewer iterations, sizes up to 1 MiB)
 *          -m BYTES largest size (suffix K, M or G allowed, binary units)
 *          -s skip the static-data tests
 *          -h help
 */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

#define MIN_SIZE ((size_t)8)
#define DEFAULT_MAX ((size_t)4 << 20)
#define QUICK_MAX ((size_t)1 << 20)
#define WINDOW 64                            /* ops per bandwidth window */
#define WINDOW_MAX_BYTES ((size_t)256 << 20) /* fewer ops above 4 MiB */
#define STATIC_LEN 64

/* Static global data: symmetric by the OpenSHMEM spec. */
static long static_target[STATIC_LEN];
static long static_counter;

/* Called through a volatile pointer so the compiler can neither inline nor
 * drop the copies into a buffer that is never read. */
static void *(*volatile memcpy_fn)(void *, const void *, size_t) = memcpy;

struct config {
    int quick;
    int skip_static;
    size_t max_bytes;
};

struct stats {
    double median; /* microseconds per unit (operation or window) */
    double mean;
    double min;
    long n;     /* samples */
    long batch; /* units per timed sample */
    long ops;   /* units executed in total, warm-up included */
};

static double *samples; /* per-sample times, microseconds per unit */

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
}

static struct stats summarize(long n)
{
    struct stats s = {0.0, 0.0, 0.0, n, 1, 0};
    if (n <= 0)
        return s;
    double sum = 0.0;
    for (long i = 0; i < n; i++)
        sum += samples[i];
    qsort(samples, (size_t)n, sizeof(double), bench_compare);
    s.min = samples[0];
    s.mean = sum / (double)n;
    s.median = (n % 2) ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
    return s;
}

static long clampl(long v, long lo, long hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

/* Operations per bandwidth window: WINDOW, fewer for sizes > 4 MiB. */
static int window_for(size_t n)
{
    size_t w = WINDOW_MAX_BYTES / n;
    return w >= WINDOW ? WINDOW : (w < 1 ? 1 : (int)w);
}

/* Units per timed sample so that one sample lasts >= BATCH_TARGET_NS: the
 * clock costs ~20-30 ns per call and may tick in 10 ns steps, which is the
 * order of a shared-memory put. */
#define BATCH_TARGET_NS 5000.0
#define BATCH_MAX 1000
#define SAMPLES_MAX 2000

static long batch_for(double unit_ns)
{
    if (unit_ns <= 0.0)
        return BATCH_MAX;
    return clampl((long)(BATCH_TARGET_NS / unit_ns) + 1, 1, BATCH_MAX);
}

/*
 * MEASURE(res, nsamp, BODY...): run BODY (one unit: one operation, or one
 * window of operations) as warm-up, calibrate the batch size on the second
 * half of the warm-up, then take nsamp samples of `batch` units each.
 * res gets per-unit statistics in microseconds.
 */
#define MEASURE(res, nsamp, ...)                                              \
    do {                                                                      \
        long ns_ = (nsamp);                                                   \
        long w_ = clampl(ns_ / 10, 16, 1000);                                 \
        for (long i_ = 0; i_ < w_ / 2; i_++) {                                \
            __VA_ARGS__;                                                      \
        }                                                                     \
        uint64_t c_ = now_ns();                                               \
        for (long i_ = w_ / 2; i_ < w_; i_++) {                               \
            __VA_ARGS__;                                                      \
        }                                                                     \
        long b_ = batch_for((double)(now_ns() - c_) / (double)(w_ - w_ / 2)); \
        for (long s_ = 0; s_ < ns_; s_++) {                                   \
            uint64_t a_ = now_ns();                                           \
            for (long k_ = 0; k_ < b_; k_++) {                                \
                __VA_ARGS__;                                                  \
            }                                                                 \
            samples[s_] = (double)(now_ns() - a_) * 1e-3 / (double)b_;        \
        }                                                                     \
        (res) = summarize(ns_);                                               \
        (res).batch = b_;                                                     \
        (res).ops = w_ + ns_ * b_;                                            \
    } while (0)

/* Samples of a latency test for size n. */
static long lat_samples(const struct config *c, size_t n)
{
    long base = c->quick ? 200 : SAMPLES_MAX;
    long lo = c->quick ? 20 : 100;
    return clampl((long)((double)base * (16384.0 / (double)n)), lo, base);
}

/* Samples (windows) of a bandwidth test for size n. */
static long bw_samples(const struct config *c, size_t n)
{
    double budget = c->quick ? 64.0 * 1048576.0 : 512.0 * 1048576.0;
    long lo = c->quick ? 3 : 10;
    long hi = c->quick ? 200 : SAMPLES_MAX;
    return clampl((long)(budget / ((double)n * window_for(n))), lo, hi);
}

static unsigned char pattern(int pe, size_t n)
{
    unsigned lg = 0;
    while (((size_t)1 << lg) < n)
        lg++;
    return (unsigned char)(0x11u + 0x40u * (unsigned)(pe & 3) + lg);
}

static long check_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += (p[i] != v);
    return bad;
}

/* ---- point-to-point kernels (run on PE 0 only) ---- */

static struct stats lat_put(void *dst, const void *src, size_t n, long ns)
{
    struct stats r;
    MEASURE(r, ns, {
        shmem_putmem(dst, src, n, 1);
        shmem_quiet();
    });
    return r;
}

static struct stats lat_get(void *dst, const void *src, size_t n, long ns)
{
    struct stats r;
    MEASURE(r, ns, shmem_getmem(dst, src, n, 1));
    return r;
}

/* Bandwidth in MB/s (10^6 B/s) from the median window time. */
static double bw_put(void *dst, const void *src, size_t n, long ns)
{
    struct stats r;
    const int win = window_for(n);
    MEASURE(r, ns, {
        for (int w = 0; w < win; w++)
            shmem_putmem_nbi(dst, src, n, 1);
        shmem_quiet();
    });
    return (double)n * win / r.median; /* bytes/us == MB/s */
}

static double bw_get(void *dst, const void *src, size_t n, long ns)
{
    struct stats r;
    const int win = window_for(n);
    MEASURE(r, ns, {
        for (int w = 0; w < win; w++)
            shmem_getmem_nbi(dst, src, n, 1);
        shmem_quiet();
    });
    return (double)n * win / r.median;
}

static double bw_memcpy(void *dst, const void *src, size_t n, long ns)
{
    struct stats r;
    const int win = window_for(n);
    MEASURE(r, ns, {
        for (int w = 0; w < win; w++)
            memcpy_fn(dst, src, n);
    });
    return (double)n * win / r.median;
}

/* *last gets the value returned by the last fetch-add. */
static struct stats lat_fadd(long *ctr, long ns, long *last)
{
    struct stats r;
    long v = 0;
    MEASURE(r, ns, v = shmem_long_atomic_fetch_add(ctr, 1, 1));
    *last = v;
    return r;
}

static struct stats lat_add(long *ctr, long ns)
{
    struct stats r;
    MEASURE(r, ns, {
        shmem_long_atomic_add(ctr, 1, 1);
        shmem_quiet();
    });
    return r;
}

static struct stats lat_put_fence(void *dst, const void *src, long ns)
{
    struct stats r;
    MEASURE(r, ns, {
        shmem_putmem(dst, src, 8, 1);
        shmem_fence();
    });
    shmem_quiet();
    return r;
}

/* put_signal came with OpenSHMEM 1.5; other libraries report nothing here. */
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
#define HAVE_PUT_SIGNAL 1
static struct stats lat_put_signal(void *dst, const void *src, uint64_t *sig, long ns)
{
    struct stats r;
    MEASURE(r, ns, shmem_putmem_signal(dst, src, 1024, sig, 1, SHMEM_SIGNAL_ADD, 1));
    shmem_quiet();
    return r;
}
#endif

/* ---- option parsing ---- */

static int parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return -1;
    switch (*end) {
    case 'k':
    case 'K':
        v <<= 10;
        end++;
        break;
    case 'm':
    case 'M':
        v <<= 20;
        end++;
        break;
    case 'g':
    case 'G':
        v <<= 30;
        end++;
        break;
    default:
        break;
    }
    if (*end == 'i' || *end == 'I') /* accept KiB, MiB, ... */
        end++;
    if (*end == 'b' || *end == 'B')
        end++;
    if (*end != '\0' || v < MIN_SIZE)
        return -1;
    *out = (size_t)v;
    return 0;
}

static void usage(const char *prog)
{
    printf("usage: %s [-q] [-m MAXBYTES] [-s] [-h]\n"
           "  -q   quick mode: fewer iterations, sizes up to 1 MiB\n"
           "  -m   largest message size in bytes (K/M/G suffix allowed;"
           " default 4M, 1M with -q)\n"
           "  -s   skip the static-data (global array) tests\n"
           "  -h   this help\n"
           "Run with at least 2 PEs; PE 0 measures, PE 1 is the target.\n",
           prog);
}

/* 0 = run, 1 = exit success (help), 2 = usage error */
static int parse_args(int argc, char **argv, struct config *c)
{
    int opt, have_max = 0;
    c->quick = 0;
    c->skip_static = 0;
    c->max_bytes = DEFAULT_MAX;
    while ((opt = getopt(argc, argv, "qm:sh")) != -1) {
        switch (opt) {
        case 'q':
            c->quick = 1;
            break;
        case 's':
            c->skip_static = 1;
            break;
        case 'm':
            if (parse_size(optarg, &c->max_bytes) != 0)
                return 2;
            have_max = 1;
            break;
        case 'h':
            return 1;
        default:
            return 2;
        }
    }
    if (optind != argc)
        return 2;
    if (c->quick && !have_max)
        c->max_bytes = QUICK_MAX;
    return 0;
}

static void print_lat_line(const char *what, struct stats s)
{
    printf("%-40s %10.3f us  (mean %.3f, min %.3f; %ld samples x %ld ops)\n", what, s.median,
           s.mean, s.min, s.n, s.batch);
}

int main(int argc, char **argv)
{
    struct config cfg;
    int rc = 0;

    shmem_init();
    int me = shmem_my_pe();
    int npes = shmem_n_pes();

    /* Every PE parses the same argv, so all take the same path. */
    int pa = parse_args(argc, argv, &cfg);
    if (pa != 0) {
        if (me == 0) {
            if (pa == 2)
                fprintf(stderr, "%s: bad arguments\n", argv[0]);
            usage(argv[0]);
        }
        shmem_finalize();
        return pa == 1 ? 0 : 2;
    }
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "%s: needs at least 2 PEs (got %d)\n", argv[0], npes);
        shmem_finalize();
        return 2;
    }

    /* Largest power of two <= max_bytes. */
    size_t max_n = MIN_SIZE;
    while (max_n * 2 <= cfg.max_bytes)
        max_n *= 2;

    /* Symmetric buffers (collective: same sizes on every PE), at least the 1 KiB of the
     * put_signal test. */
    size_t buffer_bytes = max_n < 1024 ? 1024 : max_n;
    unsigned char *src = shmem_malloc(buffer_bytes);
    unsigned char *dst = shmem_malloc(buffer_bytes);
    long *heap_target = shmem_malloc(STATIC_LEN * sizeof(long));
    long *counter = shmem_malloc(sizeof(long));
    uint64_t *signal = shmem_calloc(1, sizeof(uint64_t));
    long *remote_bad = shmem_malloc(sizeof(long));
    /* Private buffers for the memcpy reference and the samples. */
    unsigned char *priv_a = NULL, *priv_b = NULL;
    samples = malloc(SAMPLES_MAX * sizeof(double));
    if (me == 0) {
        priv_a = malloc(max_n);
        priv_b = malloc(max_n);
    }
    long *bar_batch = shmem_malloc(sizeof(long));
    int ok = src && dst && heap_target && counter && signal && remote_bad && bar_batch && samples &&
             (me != 0 || (priv_a && priv_b));
    if (!ok) {
        fprintf(stderr,
                "%s: PE %d: allocation of %zu-byte buffers failed "
                "(symmetric heap too small? set SHMEM_SYMMETRIC_SIZE or "
                "use a smaller -m)\n",
                argv[0], me, max_n);
        shmem_global_exit(1);
    }

    /* Touch everything before timing. */
    memset(src, 0, max_n);
    memset(dst, 0, max_n);
    if (me == 0) {
        memset(priv_a, 0x5a, max_n);
        memset(priv_b, 0, max_n);
    }
    for (int i = 0; i < STATIC_LEN; i++)
        heap_target[i] = 0;
    *counter = 0;
    *remote_bad = 0;
    *bar_batch = 0;
    shmem_barrier_all();

    if (me == 0) {
        char name[SHMEM_MAX_NAME_LEN + 1];
        int vmaj = 0, vmin = 0;
        memset(name, 0, sizeof(name));
        shmem_info_get_name(name);
        shmem_info_get_version(&vmaj, &vmin);
        printf("# shmem_bench: OpenSHMEM micro-benchmark\n");
        printf("# implementation: %s (OpenSHMEM spec %d.%d)\n", name, vmaj, vmin);
        printf("# PEs: %d (PE 0 measures, PE 1 is the target)  mode: %s  "
               "sizes: %zu B .. %zu B\n",
               npes, cfg.quick ? "quick" : "full", MIN_SIZE, max_n);
        printf("# latency (us/op) = median over samples; a sample times a "
               "batch of ops lasting >= %.0f us\n",
               BATCH_TARGET_NS * 1e-3);
        printf("# BW = windows of %d nbi ops + shmem_quiet (at most %zu MiB "
               "per window), median window time; MB/s = 10^6 B/s\n",
               WINDOW, WINDOW_MAX_BYTES >> 20);
        printf("# memcpy = PE 0 private malloc buffers, same windows; "
               "put/memcpy = put BW as %% of memcpy BW\n");
        printf("%10s %14s %10s %13s %13s %16s %11s\n", "size", "put+quiet(us)", "get(us)",
               "put BW(MB/s)", "get BW(MB/s)", "memcpy BW(MB/s)", "put/memcpy");
        fflush(stdout);
    }

    long bad_local = 0; /* verification failures seen by this PE */

    for (size_t n = MIN_SIZE; n <= max_n; n *= 2) {
        /* Fresh pattern per size: PE p's src holds pattern(p, n). */
        memset(src, pattern(me, n), n);
        shmem_barrier_all();

        struct stats sp = {0}, sg = {0};
        double bwp = 0.0, bwg = 0.0, bwm = 0.0;
        long li = lat_samples(&cfg, n), bi = bw_samples(&cfg, n);

        if (me == 0) {
            sp = lat_put(dst, src, n, li);
            bwp = bw_put(dst, src, n, bi);
        }
        shmem_barrier_all(); /* completes the puts */
        if (me == 1) {
            bad_local += check_bytes(dst, n, pattern(0, n));
            memset(dst, 0, n);
        }
        if (me == 0) {
            sg = lat_get(dst, src, n, li);
            bwg = bw_get(dst, src, n, bi);
            bad_local += check_bytes(dst, n, pattern(1, n));
            memset(dst, 0, n);
            bwm = bw_memcpy(priv_b, priv_a, n, bi);
            printf("%10zu %14.3f %10.3f %13.2f %13.2f %16.2f %10.1f%%\n", n, sp.median, sg.median,
                   bwp, bwg, bwm, 100.0 * bwp / bwm);
            fflush(stdout);
        }
        shmem_barrier_all();
    }

    /* ---- atomics ---- */
    long at_samples = cfg.quick ? 200 : SAMPLES_MAX;
    long fadd_last = -1;
    struct stats sfa = {0}, sad = {0}, spf = {0}, sps = {0};
    if (me == 0) {
        sfa = lat_fadd(counter, at_samples, &fadd_last);
        sad = lat_add(counter, at_samples);
        spf = lat_put_fence(dst, src, at_samples);
#ifdef HAVE_PUT_SIGNAL
        sps = lat_put_signal(dst, src, signal, at_samples);
        if (shmem_uint64_atomic_fetch(signal, 1) != (uint64_t)sps.ops)
            bad_local++;
#endif
    }
    shmem_barrier_all();
    long expect_total = sfa.ops + sad.ops;
    long ctr_seen = -1;
    if (me == 0) {
        ctr_seen = shmem_long_atomic_fetch(counter, 1);
        if (fadd_last != sfa.ops - 1 || ctr_seen != expect_total)
            bad_local++;
    }

    /* ---- barrier (all PEs) ---- */
    /* Every PE must run the same number of barriers, so PE 0 calibrates the
     * batch size and sends it to the others. */
    long bar_samples = cfg.quick ? 200 : SAMPLES_MAX;
    if (npes > 2) /* oversubscribed runs can be slow */
        bar_samples /= 4;
    struct stats sb;
    {
        long warm = clampl(bar_samples / 2, 100, 1000);
        for (long i = 0; i < warm / 2; i++)
            shmem_barrier_all();
        uint64_t c0 = now_ns();
        for (long i = warm / 2; i < warm; i++)
            shmem_barrier_all();
        if (me == 0) {
            long b = batch_for((double)(now_ns() - c0) / (double)(warm - warm / 2));
            for (int pe = 0; pe < npes; pe++)
                shmem_long_p(bar_batch, b, pe);
        }
        shmem_barrier_all();
        long b = *bar_batch;
        for (long s = 0; s < bar_samples; s++) {
            uint64_t t0 = now_ns();
            for (long k = 0; k < b; k++)
                shmem_barrier_all();
            samples[s] = (double)(now_ns() - t0) * 1e-3 / (double)b;
        }
        sb = summarize(bar_samples);
        sb.batch = b;
        sb.ops = warm + bar_samples * b;
    }

    if (me == 0) {
        printf("\n# atomics / synchronization (8-byte long, PE 0 -> PE 1)\n");
        print_lat_line("shmem_long_atomic_fetch_add", sfa);
        print_lat_line("shmem_long_atomic_add + shmem_quiet", sad);
        print_lat_line("shmem_putmem 8 B + shmem_fence, per call", spf);
        if (sps.ops)
            print_lat_line("shmem_putmem_signal 1 KiB, per call", sps);
        char what[64];
        snprintf(what, sizeof(what), "shmem_barrier_all (%d PEs)", npes);
        print_lat_line(what, sb);
        fflush(stdout);
    }
    shmem_barrier_all();

    /* ---- static (global) data vs symmetric heap, 8 bytes ---- */
    if (!cfg.skip_static) {
        long si = cfg.quick ? 200 : SAMPLES_MAX;
        struct stats pst = {0}, phe = {0}, gst = {0}, ghe = {0};
        struct stats fst = {0}, fhe = {0};
        long got = 0, last = 0;
        long *lsrc = (long *)(void *)src; /* symmetric-heap local source */
        for (int i = 0; i < STATIC_LEN; i++)
            static_target[i] = 0;
        static_counter = 0;
        static_target[1] = 1000 + me;
        heap_target[1] = 2000 + me;
        shmem_barrier_all();
        if (me == 0) {
            *lsrc = 0x1234567;
            pst = lat_put(&static_target[0], lsrc, sizeof(long), si);
            phe = lat_put(&heap_target[0], lsrc, sizeof(long), si);
            gst = lat_get(&got, &static_target[1], sizeof(long), si);
            if (got != 1001)
                bad_local++;
            got = 0;
            ghe = lat_get(&got, &heap_target[1], sizeof(long), si);
            if (got != 2001)
                bad_local++;
            fst = lat_fadd(&static_counter, si, &last);
            if (last != fst.ops - 1)
                bad_local++;
            fhe = lat_fadd(heap_target + 2, si, &last);
            if (last != fhe.ops - 1)
                bad_local++;
        }
        shmem_barrier_all();
        if (me == 1 && (static_target[0] != 0x1234567 || heap_target[0] != 0x1234567))
            bad_local++;
        if (me == 0) {
            printf("\n# static global array vs symmetric heap target "
                   "(8 bytes, PE 0 -> PE 1)\n");
            printf("%-24s %12s %12s %14s\n", "operation", "static(us)", "heap(us)", "static/heap");
            printf("%-24s %12.3f %12.3f %13.2fx\n", "put+quiet", pst.median, phe.median,
                   pst.median / phe.median);
            printf("%-24s %12.3f %12.3f %13.2fx\n", "get", gst.median, ghe.median,
                   gst.median / ghe.median);
            printf("%-24s %12.3f %12.3f %13.2fx\n", "atomic_fetch_add", fst.median, fhe.median,
                   fst.median / fhe.median);
            fflush(stdout);
        }
        shmem_barrier_all();
    }

    /* ---- gather verification results on PE 0 ---- */
    if (me != 0 && bad_local != 0)
        shmem_long_atomic_add(remote_bad, bad_local, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total_bad = bad_local + *remote_bad;
        printf("\n# verification: %s (atomic counter %ld, expected %ld)\n",
               total_bad ? "FAILED" : "ok", ctr_seen, expect_total);
        if (total_bad) {
            printf("# %ld bad bytes/values\n", total_bad);
            rc = 1;
        }
        fflush(stdout);
    }
    shmem_barrier_all();

    shmem_free(bar_batch);
    shmem_free(remote_bad);
    shmem_free(counter);
    shmem_free(signal);
    shmem_free(heap_target);
    shmem_free(dst);
    shmem_free(src);
    free(priv_a);
    free(priv_b);
    free(samples);
    shmem_finalize();
    return rc;
}
