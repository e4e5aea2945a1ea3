/* MPI-3 RMA on this machine's MPI library, for the decision whether Pangea's mpi transport
 * should move data by RMA on a window rather than by messages to the data servers
 * (docs/transport.md, "No RMA"). Two ranks (run them on two emulated nodes); rank 0 targets
 * rank 1's window (MPI_Win_allocate, passive target, MPI_Win_lock_all once) and prints the
 * median over samples of:
 *  - 8-byte MPI_Put + MPI_Win_flush, MPI_Get + flush, MPI_Fetch_and_op(MPI_SUM) + flush;
 *  - MPI_Put and MPI_Get + flush bandwidth for 64 KiB and 1 MiB;
 *  - for reference, an 8-byte and a 1 MiB message round trip (MPI_Send/MPI_Recv ping-pong).
 * Rank 1 sits in MPI_Barrier meanwhile (a passive target: its library progresses RMA only if
 * it does so without the target's calls). The results are checked: the fetch-and-op total and
 * every byte of the last 1 MiB get (the puts write rank 1's own pattern). Options: -n SAMPLES
 * (default 200). */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES (1 << 20)

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, by_value);
    return samples[n / 2];
}

enum op { PUT, GET, FETCH_ADD };

/* One timed operation of bytes on the window at rank 1, flushed. */
static void rma_once(enum op op, MPI_Win win, unsigned char *buf, int bytes, long *fetched)
{
    long one = 1;
    if (op == PUT)
        MPI_Put(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
    else if (op == GET)
        MPI_Get(buf, bytes, MPI_BYTE, 1, 0, bytes, MPI_BYTE, win);
    else
        MPI_Fetch_and_op(&one, fetched, MPI_LONG, 1, MAX_BYTES, MPI_SUM, win);
    MPI_Win_flush(1, win);
}

int main(int argc, char **argv)
{
    int samples = 200, opt;
    while ((opt = getopt(argc, argv, "n:")) != -1)
        samples = opt == 'n' ? atoi(optarg) : samples;
    MPI_Init(&argc, &argv);
    int me, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || samples < 1) {
        if (me == 0)
            fprintf(stderr, "mpi_rma_bench: run on exactly 2 ranks, -n at least 1\n");
        MPI_Finalize();
        return 2;
    }
    unsigned char *base;
    MPI_Win win;
    MPI_Win_allocate(MAX_BYTES + sizeof(long), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < MAX_BYTES; i++)
        base[i] = (unsigned char)(i * 7 + me);
    memset(base + MAX_BYTES, 0, sizeof(long));
    unsigned char *buf = malloc(MAX_BYTES);
    for (int i = 0; i < MAX_BYTES; i++)
        buf[i] = (unsigned char)(i * 7 + 1); /* rank 1's pattern: the puts leave it there */
    double *t = malloc((size_t)samples * sizeof *t);
    int bad = 0;
    long fetched = 0, fetch_adds = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len;
        MPI_Get_library_version(version, &len);
        version[strcspn(version, "\n")] = 0;
        printf("# mpi_rma_bench: %s; median of %d samples\n", version, samples);
        MPI_Win_lock_all(0, win);
        static const char *const names[] = {"MPI_Put 8 B + flush", "MPI_Get 8 B + flush",
                                            "MPI_Fetch_and_op + flush"};
        for (enum op op = PUT; op <= FETCH_ADD; op++) {
            for (int s = -10; s < samples; s++) {
                double t0 = now_us();
                rma_once(op, win, buf, 8, &fetched);
                if (s >= 0)
                    t[s] = now_us() - t0;
            }
            fetch_adds += op == FETCH_ADD ? samples + 10 : 0;
            printf("%-34s %10.2f us\n", names[op], median(t, samples));
        }
        static const int sizes[] = {65536, MAX_BYTES};
        for (int k = 0; k < 2; k++)
            for (enum op op = PUT; op <= GET; op++) {
                for (int s = -2; s < samples / 10 + 1; s++) {
                    double t0 = now_us();
                    rma_once(op, win, buf, sizes[k], NULL);
                    if (s >= 0)
                        t[s] = now_us() - t0;
                }
                printf("%s %7d B + flush %19.1f MB/s\n", op == PUT ? "MPI_Put" : "MPI_Get",
                       sizes[k], sizes[k] / median(t, samples / 10 + 1));
            }
        MPI_Win_unlock_all(win);
        for (int i = 0; i < MAX_BYTES; i++)
            bad += buf[i] != (unsigned char)(i * 7 + 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 1) {
        long total;
        memcpy(&total, base + MAX_BYTES, sizeof total);
        MPI_Send(&total, 1, MPI_LONG, 0, 0, MPI_COMM_WORLD);
    } else {
        long total;
        MPI_Recv(&total, 1, MPI_LONG, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        bad += total != fetch_adds;
    }
    static const int pings[] = {8, MAX_BYTES};
    for (int k = 0; k < 2; k++) {
        int n = k ? samples / 10 + 1 : samples;
        for (int s = -2; s < n; s++) {
            double t0 = now_us();
            if (me == 0) {
                MPI_Send(buf, pings[k], MPI_BYTE, 1, 1, MPI_COMM_WORLD);
                MPI_Recv(buf, pings[k], MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, pings[k], MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, pings[k], MPI_BYTE, 0, 1, MPI_COMM_WORLD);
            }
            if (s >= 0)
                t[s] = now_us() - t0;
        }
        if (me == 0)
            printf("MPI_Send/Recv round trip %7d B %13.2f us\n", pings[k], median(t, n));
    }
    if (me == 0)
        printf("# verification: %s\n", bad ? "FAILED" : "ok");
    free(buf);
    free(t);
    MPI_Win_free(&win);
    MPI_Finalize();
    return bad != 0;
}
