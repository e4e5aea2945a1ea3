/* Helpers the OpenSHMEM micro-benchmarks share (standard C and POSIX only, so that each still
 * builds with any oshcc): the clock, sizes with K/M/G suffixes, and the median of a sample. */
#ifndef PANGEA_PERF_BENCH_UTIL_H
#define PANGEA_PERF_BENCH_UTIL_H

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_SAMPLE 256 /* the largest sample bench_median takes */

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double bench_now_us(void)
{
    return bench_now() * 1e6;
}

static inline size_t bench_size(const char *text)
{
    char *end;
    size_t n = strtoull(text, &end, 10);
    switch (*end) {
    case 'k':
    case 'K':
        return n << 10;
    case 'm':
    case 'M':
        return n << 20;
    case 'g':
    case 'G':
        return n << 30;
    }
    return n;
}

static inline int bench_compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n), n at most BENCH_MAX_SAMPLE; v is left as it was. */
static inline double bench_median(const double *v, int n)
{
    double sorted[BENCH_MAX_SAMPLE];
    memcpy(sorted, v, (size_t)n * sizeof *v);
    qsort(sorted, (size_t)n, sizeof *sorted, bench_compare);
    return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/* The growth benchmarks' options (heap_grow, group_grow): -s SIZE (K, M, G), -g GROWTHS (at
 * least 1), -i ITERS, -b BLOCKS (at most max_blocks); what is not given keeps its value. */
struct bench_growth_options {
    size_t size;
    int growths, iters, blocks;
};
static inline void bench_growth_options(int argc, char **argv, struct bench_growth_options *o,
                                        int max_blocks)
{
    for (int opt; (opt = getopt(argc, argv, "s:g:i:b:")) != -1;) {
        if (opt == 's')
            o->size = bench_size(optarg);
        else if (opt == 'g')
            o->growths = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else if (opt == 'i')
            o->iters = atoi(optarg);
        else if (opt == 'b')
            o->blocks = atoi(optarg) < max_blocks ? atoi(optarg) : max_blocks;
    }
}

#endif
