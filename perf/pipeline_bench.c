/* pipeline_bench: bandwidth of the transfers that go through the pipeline between two PEs —
 * 2-D strided put and get (rows of 1 KiB, every other row of the target, OpenSHMEM 1.6
 * shmem_ibput/ibget) and contiguous put and get — for the settings in the environment.
 * PE 0 measures against PE 1 (run one PE per node to measure the network path); every
 * transfer is checked. Output: one line per measurement, MB/s with MB = 10^6 bytes, median of
 * REPEATS timings of a window of transfers followed by shmem_quiet.
 *
 *   oshrun -np 2 pipeline_bench [-q]     (-q: fewer repetitions)
 *
 * With -1, each timing is one contiguous put + quiet (a chunk alone while it fits in one, a
 * stream of chunks beyond): 256K, 512K, 1M and 4M, or only BYTES (e.g. under a tracer), median
 * and fastest of REPEATS (default 30).
 *
 *   oshrun -np 2 pipeline_bench -1 [REPEATS [BYTES]] */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROW 1024
#define MAX_BYTES (4u << 20)

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

enum kind { STRIDED_PUT, STRIDED_GET, CONTIG_PUT, CONTIG_GET };
static const char *const names[] = {"strided put (1 KiB rows)", "strided get (1 KiB rows)",
                                    "contiguous put", "contiguous get"};

static void transfer(enum kind k, char *remote, char *local, size_t bytes)
{
    size_t rows = bytes / ROW;
    switch (k) {
    case STRIDED_PUT:
        shmem_char_ibput(remote, local, 2 * ROW, ROW, ROW, rows, 1);
        break;
    case STRIDED_GET:
        shmem_char_ibget(local, remote, ROW, 2 * ROW, ROW, rows, 1);
        break;
    case CONTIG_PUT:
        shmem_putmem(remote, local, bytes, 1);
        break;
    case CONTIG_GET:
        shmem_getmem(local, remote, bytes, 1);
        break;
    }
}

#define MAX_ALONE_REPEATS 1000

static void put_alone(char *remote, char *local, size_t bytes, int repeats)
{
    static double t[MAX_ALONE_REPEATS];
    for (int r = -2; r < repeats; r++) { /* two warm-up rounds */
        double start = now();
        transfer(CONTIG_PUT, remote, local, bytes);
        shmem_quiet();
        if (r >= 0)
            t[r] = now() - start;
    }
    qsort(t, (size_t)repeats, sizeof t[0], compare);
    double median = t[repeats / 2];
    printf("put+quiet alone %8zu B  median %8.1f us %7.0f MB/s   fastest %8.1f us %7.0f MB/s\n",
           bytes, median * 1e6, (double)bytes / median / 1e6, t[0] * 1e6,
           (double)bytes / t[0] / 1e6);
    fflush(stdout);
}

static void puts_alone(char *remote, char *local, int argc, char **argv)
{
    int repeats = argc > 2 ? atoi(argv[2]) : 30;
    if (repeats < 1 || repeats > MAX_ALONE_REPEATS)
        repeats = 30;
    size_t only = argc > 3 ? strtoull(argv[3], NULL, 0) : 0;
    if (only && only <= MAX_BYTES) {
        put_alone(remote, local, only, repeats);
        return;
    }
    for (size_t bytes = 256 * 1024; bytes <= (1u << 20); bytes *= 2)
        put_alone(remote, local, bytes, repeats);
    put_alone(remote, local, MAX_BYTES, repeats);
}

int main(int argc, char **argv)
{
    int alone = argc > 1 && strcmp(argv[1], "-1") == 0;
    int repeats = argc > 1 && strcmp(argv[1], "-q") == 0 ? 5 : 15;
    shmem_init();
    int me = shmem_my_pe();
    if (shmem_n_pes() < 2) {
        if (me == 0)
            fprintf(stderr, "pipeline_bench: needs 2 PEs\n");
        shmem_finalize();
        return 1;
    }
    char *remote = shmem_malloc(2 * MAX_BYTES);
    char *local = malloc(2 * MAX_BYTES);
    for (size_t i = 0; i < 2 * MAX_BYTES; i++)
        local[i] = (char)(i * 7 + 1);
    memset(remote, 0, 2 * MAX_BYTES);
    shmem_barrier_all();
    int failed = 0;
    if (me == 0) {
        const char *buffers = getenv("PANGEA_PIPELINE_BUFFERS");
        const char *size = getenv("PANGEA_PIPELINE_BUFFER_SIZE");
        printf("# pipeline_bench: buffers %s, buffer size %s\n", buffers ? buffers : "default",
               size ? size : "default");
        if (alone)
            puts_alone(remote, local, argc, argv);
        for (enum kind k = STRIDED_PUT; k <= CONTIG_GET && !alone; k++) {
            for (size_t bytes = 64 * 1024; bytes <= MAX_BYTES; bytes *= 4) {
                int window = bytes >= (1u << 20) ? 4 : 16;
                double t[15];
                transfer(k, remote, local, bytes);
                shmem_quiet();
                for (int r = 0; r < repeats; r++) {
                    double start = now();
                    for (int w = 0; w < window; w++)
                        transfer(k, remote, local, bytes);
                    shmem_quiet();
                    t[r] = now() - start;
                }
                qsort(t, (size_t)repeats, sizeof t[0], compare);
                printf("%-26s %8zu B  %9.1f MB/s\n", names[k], bytes,
                       (double)bytes * window / t[repeats / 2] / 1e6);
                fflush(stdout);
            }
        }
        /* Check: a strided put of 1 MiB lands on every other row; a get brings it back. */
        memset(local + MAX_BYTES, 0, MAX_BYTES);
        shmem_char_ibput(remote, local, 2 * ROW, ROW, ROW, (1u << 20) / ROW, 1);
        shmem_quiet();
        shmem_char_ibget(local + MAX_BYTES, remote, ROW, 2 * ROW, ROW, (1u << 20) / ROW, 1);
        failed = memcmp(local, local + MAX_BYTES, 1u << 20) != 0;
        if (failed)
            fprintf(stderr, "pipeline_bench: strided data came back wrong\n");
    }
    shmem_barrier_all();
    shmem_free(remote);
    free(local);
    shmem_finalize();
    return failed;
}
