/* Binary compatibility with Global Arrays: this program is linked with Debian's prebuilt
 * libga-mpich.a (compiled against ARMCI-MPI's headers) and Pangea's -larmci. It creates a
 * 2-D double array over all processes, puts a patch from every process, gets the whole array
 * back, accumulates into it, synchronizes, computes GA_Ddot and GA_Dgemm, and destroys it,
 * checking every value. */
#include <ga.h>
#include <macdecls.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

#define N 48

static long failures;

static void check(int ok, const char *what, int i, int j, double got, double want)
{
    if (!ok && failures++ < 10)
        fprintf(stderr, "%s (%d,%d): %g, want %g\n", what, i, j, got, want);
}

static double initial(int i, int j)
{
    return (double)(i * N + j);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    GA_Initialize();
    MA_init(C_DBL, 4 * N * N, 4 * N * N);
    int me = GA_Nodeid(), nproc = GA_Nnodes();

    int dims[2] = {N, N}, chunk[2] = {-1, -1}, ld = N;
    int g_a = NGA_Create(C_DBL, 2, dims, "A", chunk);
    int g_b = GA_Duplicate(g_a, "B");
    int g_c = GA_Duplicate(g_a, "C");
    GA_Zero(g_a);

    /* Process p puts rows [p*N/nproc, (p+1)*N/nproc). */
    double *buf = malloc(sizeof(double) * N * N);
    int lo[2] = {me * N / nproc, 0}, hi[2] = {(me + 1) * N / nproc - 1, N - 1};
    for (int i = lo[0]; i <= hi[0]; i++)
        for (int j = 0; j < N; j++)
            buf[(i - lo[0]) * N + j] = initial(i, j);
    if (hi[0] >= lo[0])
        NGA_Put(g_a, lo, hi, buf, &ld);
    GA_Sync();

    int all_lo[2] = {0, 0}, all_hi[2] = {N - 1, N - 1};
    NGA_Get(g_a, all_lo, all_hi, buf, &ld);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            check(buf[i * N + j] == initial(i, j), "get after put", i, j, buf[i * N + j],
                  initial(i, j));
    GA_Sync(); /* everybody has read before anybody accumulates */

    /* Every process adds 2 * 1.0 everywhere. */
    double alpha = 2.0;
    for (int k = 0; k < N * N; k++)
        buf[k] = 1.0;
    NGA_Acc(g_a, all_lo, all_hi, buf, &ld, &alpha);
    GA_Sync();
    NGA_Get(g_a, all_lo, all_hi, buf, &ld);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            check(buf[i * N + j] == initial(i, j) + 2.0 * nproc, "get after acc", i, j,
                  buf[i * N + j], initial(i, j) + 2.0 * nproc);

    /* B = 1 everywhere: A.B = sum of A; A*B has the row sums of A in every column. */
    double one = 1.0;
    GA_Fill(g_b, &one);
    double dot = GA_Ddot(g_a, g_b), want_dot = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            want_dot += initial(i, j) + 2.0 * nproc;
    check(dot == want_dot, "GA_Ddot", 0, 0, dot, want_dot);
    GA_Dgemm('N', 'N', N, N, N, 1.0, g_a, g_b, 0.0, g_c);
    NGA_Get(g_c, all_lo, all_hi, buf, &ld);
    for (int i = 0; i < N; i++) {
        double row = 0;
        for (int j = 0; j < N; j++)
            row += initial(i, j) + 2.0 * nproc;
        for (int j = 0; j < N; j++)
            check(buf[i * N + j] == row, "GA_Dgemm", i, j, buf[i * N + j], row);
    }
    GA_Sync();

    GA_Destroy(g_c);
    GA_Destroy(g_b);
    GA_Destroy(g_a);
    free(buf);
    long all = failures;
    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (me == 0)
        printf(all ? "FAIL ga_basic (%ld failures)\n" : "PASS ga_basic\n", all);
    GA_Terminate();
    MPI_Finalize();
    return all ? 1 : 0;
}
