/* chunk_bench: the time of one pipeline chunk alone and the bandwidth of a stream of them, for
 * the pipeline settings in the environment. PE 0 measures against PE 1 (one PE per node):
 * contiguous put + quiet of 256K, 512K and 1M (one chunk each while they fit in one), of
 * 4 MiB (a stream of chunks), and a 2-D strided put of 1 MiB (1 KiB rows, every other row of
 * the target). Output: median and fastest of the repetitions, in us and MB/s (10^6 B).
 *
 *   oshrun -np 2 chunk_bench [REPEATS [BYTES]]   (default 30; BYTES: only a put + quiet of
 *                                                  that size, e.g. under a tracer) */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ROW 1024
#define MAX_BYTES (4u << 20)
#define MAX_REPEATS 1000

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void measure(const char *name, char *remote, char *local, size_t bytes, int strided,
                    int repeats)
{
    static double t[MAX_REPEATS];
    for (int r = -2; r < repeats; r++) { /* two warm-up rounds */
        double start = now();
        if (strided)
            shmem_char_ibput(remote, local, 2 * ROW, ROW, ROW, bytes / ROW, 1);
        else
            shmem_putmem(remote, local, bytes, 1);
        shmem_quiet();
        if (r >= 0)
            t[r] = now() - start;
    }
    qsort(t, (size_t)repeats, sizeof t[0], compare);
    double median = t[repeats / 2];
    printf("%-16s %8zu B  median %8.1f us %7.0f MB/s   fastest %8.1f us %7.0f MB/s\n", name, bytes,
           median * 1e6, (double)bytes / median / 1e6, t[0] * 1e6, (double)bytes / t[0] / 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 30;
    if (repeats < 1 || repeats > MAX_REPEATS)
        repeats = 30;
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "chunk_bench: needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    char *remote = shmem_malloc(2 * MAX_BYTES);
    char *local = malloc(2 * MAX_BYTES);
    for (size_t i = 0; i < 2 * MAX_BYTES; i++)
        local[i] = (char)(i * 7 + 1);
    memset(remote, 0, 2 * MAX_BYTES);
    shmem_barrier_all();
    if (me == 0) {
        const char *buffers = getenv("PANGEA_PIPELINE_BUFFERS");
        const char *size = getenv("PANGEA_PIPELINE_BUFFER_SIZE");
        printf("# chunk_bench: buffers %s, buffer size %s\n", buffers ? buffers : "default",
               size ? size : "default");
        size_t only = argc > 2 ? strtoull(argv[2], NULL, 0) : 0;
        if (only && only <= MAX_BYTES)
            measure("put+quiet", remote, local, only, 0, repeats);
        for (size_t bytes = 256 * 1024; !only && bytes <= (1u << 20); bytes *= 2)
            measure("put+quiet", remote, local, bytes, 0, repeats);
        if (!only) {
            measure("put+quiet", remote, local, MAX_BYTES, 0, repeats);
            measure("strided put", remote, local, 1u << 20, 1, repeats);
        }
    }
    shmem_barrier_all();
    shmem_free(remote);
    free(local);
    shmem_finalize();
    return 0;
}
