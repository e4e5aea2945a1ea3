/* stencil2d: a 2-D 5-point Jacobi stencil over PX x PY PEs, halos exchanged with
 * put-with-signal; checks its result bit for bit against the same computation done serially
 * on PE 0 and prints the time per iteration. The program of pangea-map's demonstration
 * (perf/map-demo.sh): its traffic is the grid's neighbour pattern.
 *
 *   oshrun -np N stencil2d [NX NY ITERATIONS [PX PY]]
 *
 * NX x NY points (default 512 x 512), 100 iterations; PE p holds the block at column p % PX,
 * row p / PX of the PE grid (PX x PY = N; default the squarest). Points outside the grid are a
 * fixed boundary. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { WEST, EAST, NORTH, SOUTH, SIDES };

static int nx, ny, px, py, lx, ly;

static double initial(int x, int y)
{
    return (double)((x * 13 + y * 5) % 17);
}

/* Fixed values outside the grid. */
static double boundary(int x, int y)
{
    return (double)(((x + 1) * 7 + (y + 1) * 3) % 11);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* The value of global point (x, y) at the start: the grid, or the boundary around it. */
static double start_value(int x, int y)
{
    return x < 0 || y < 0 || x >= nx || y >= ny ? boundary(x, y) : initial(x, y);
}

static void sweep(const double *u, double *next, int w, int h)
{
    /* u and next are (w + 2) x (h + 2) with a ring of ghost points; the same expression and
     * order as the serial check, so the results are equal bit for bit. */
    for (int j = 1; j <= h; j++)
        for (int i = 1; i <= w; i++)
            next[j * (w + 2) + i] = (u[j * (w + 2) + i - 1] + u[j * (w + 2) + i + 1] +
                                     u[(j - 1) * (w + 2) + i] + u[(j + 1) * (w + 2) + i]) *
                                    0.25;
}

static int parse(int argc, char **argv, int npes, int me)
{
    nx = argc > 1 ? atoi(argv[1]) : 512;
    ny = argc > 2 ? atoi(argv[2]) : 512;
    if (argc > 5) {
        px = atoi(argv[4]);
        py = atoi(argv[5]);
    } else {
        for (px = 1; px * px < npes; px++)
            ;
        while (npes % px)
            px++;
        py = npes / px;
    }
    if (nx < 1 || ny < 1 || px < 1 || py < 1 || px * py != npes || nx % px || ny % py) {
        if (me == 0)
            fprintf(stderr,
                    "stencil2d: a %d x %d grid does not split into %d x %d blocks for %d PEs "
                    "(usage: stencil2d [NX NY ITERATIONS [PX PY]])\n",
                    nx, ny, px, py, npes);
        return -1;
    }
    lx = nx / px;
    ly = ny / py;
    return 0;
}

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int iterations = argc > 3 ? atoi(argv[3]) : 100;
    if (parse(argc, argv, npes, me) != 0 || iterations < 1) {
        shmem_finalize();
        return 2;
    }
    int cx = me % px, cy = me / px;
    int neighbour[SIDES] = {cx > 0 ? me - 1 : -1, cx < px - 1 ? me + 1 : -1, cy > 0 ? me - px : -1,
                            cy < py - 1 ? me + px : -1};
    int length[SIDES] = {ly, ly, lx, lx};
    int longest = lx > ly ? lx : ly;
    /* halo[side][parity]: what the neighbour on that side sent in iterations of that parity;
     * signal[side][parity] = the iteration + 1 it belongs to. Two sets, so that a neighbour
     * one iteration ahead never overwrites a halo still being read. */
    double *halo = shmem_calloc((size_t)SIDES * 2 * (size_t)longest, sizeof *halo);
    uint64_t *signal = shmem_calloc(SIDES * 2, sizeof *signal);
    size_t cells = (size_t)(lx + 2) * (size_t)(ly + 2);
    double *u = malloc(cells * sizeof *u), *next = malloc(cells * sizeof *next);
    double *edge = malloc((size_t)longest * sizeof *edge);
    if (!halo || !signal || !u || !next || !edge) {
        fprintf(stderr, "stencil2d: PE %d: out of memory for a %d x %d block\n", me, lx, ly);
        shmem_global_exit(1);
    }
    for (int j = 0; j < ly + 2; j++)
        for (int i = 0; i < lx + 2; i++)
            u[j * (lx + 2) + i] = next[j * (lx + 2) + i] =
                start_value(cx * lx + i - 1, cy * ly + j - 1);

    shmem_barrier_all();
    double start = now();
    for (int t = 0; t < iterations; t++) {
        int parity = t & 1;
        /* My edge on each side goes to the halo facing me on that neighbour. */
        static const int facing[SIDES] = {EAST, WEST, SOUTH, NORTH};
        for (int s = 0; s < SIDES; s++) {
            if (neighbour[s] < 0)
                continue;
            for (int k = 0; k < length[s]; k++)
                edge[k] = s == WEST    ? u[(k + 1) * (lx + 2) + 1]
                          : s == EAST  ? u[(k + 1) * (lx + 2) + lx]
                          : s == NORTH ? u[1 * (lx + 2) + k + 1]
                                       : u[ly * (lx + 2) + k + 1];
            size_t slot = (size_t)(facing[s] * 2 + parity);
            shmem_putmem_signal(halo + slot * (size_t)longest, edge,
                                (size_t)length[s] * sizeof *edge, signal + slot, (uint64_t)t + 1,
                                SHMEM_SIGNAL_SET, neighbour[s]);
        }
        for (int s = 0; s < SIDES; s++) {
            if (neighbour[s] < 0)
                continue;
            size_t slot = (size_t)(s * 2 + parity);
            shmem_signal_wait_until(signal + slot, SHMEM_CMP_GE, (uint64_t)t + 1);
            const double *in = halo + slot * (size_t)longest;
            for (int k = 0; k < length[s]; k++) {
                if (s == WEST)
                    u[(k + 1) * (lx + 2)] = in[k];
                else if (s == EAST)
                    u[(k + 1) * (lx + 2) + lx + 1] = in[k];
                else if (s == NORTH)
                    u[k + 1] = in[k];
                else
                    u[(ly + 1) * (lx + 2) + k + 1] = in[k];
            }
        }
        sweep(u, next, lx, ly);
        /* The ghost ring of next keeps the boundary; the halos are refilled next time. */
        double *swap = u;
        u = next;
        next = swap;
    }
    shmem_barrier_all();
    double elapsed = now() - start;

    /* PE 0 gathers the blocks and redoes the whole computation serially. */
    double *block = shmem_malloc((size_t)lx * (size_t)ly * sizeof *block);
    for (int j = 0; j < ly; j++)
        memcpy(block + (size_t)j * lx, u + (size_t)(j + 1) * (lx + 2) + 1,
               (size_t)lx * sizeof *block);
    shmem_barrier_all();
    int status = 0;
    if (me == 0) {
        size_t all = (size_t)(nx + 2) * (size_t)(ny + 2);
        double *a = malloc(all * sizeof *a), *b = malloc(all * sizeof *b);
        double *got = malloc((size_t)lx * (size_t)ly * sizeof *got);
        for (int j = 0; j < ny + 2; j++)
            for (int i = 0; i < nx + 2; i++)
                a[(size_t)j * (nx + 2) + i] = b[(size_t)j * (nx + 2) + i] =
                    start_value(i - 1, j - 1);
        for (int t = 0; t < iterations; t++) {
            sweep(a, b, nx, ny);
            double *swap = a;
            a = b;
            b = swap;
        }
        long wrong = 0;
        for (int pe = 0; pe < npes; pe++) {
            shmem_getmem(got, block, (size_t)lx * (size_t)ly * sizeof *got, pe);
            for (int j = 0; j < ly; j++)
                for (int i = 0; i < lx; i++) {
                    int x = (pe % px) * lx + i, y = (pe / px) * ly + j;
                    wrong += memcmp(&got[(size_t)j * lx + i],
                                    &a[(size_t)(y + 1) * (nx + 2) + x + 1], sizeof(double)) != 0;
                }
        }
        printf("stencil2d: %d x %d points on %d x %d PEs, %d iterations: %.2f us per "
               "iteration; %s\n",
               nx, ny, px, py, iterations, elapsed / iterations * 1e6,
               wrong ? "WRONG" : "result equals the serial computation");
        if (wrong) {
            fprintf(stderr, "stencil2d: %ld of %d x %d points differ from the serial result\n",
                    wrong, nx, ny);
            status = 1;
        }
        free(a);
        free(b);
        free(got);
    }
    shmem_barrier_all();
    shmem_free(block);
    shmem_free(halo);
    shmem_free(signal);
    free(u);
    free(next);
    free(edge);
    shmem_finalize();
    return status;
}
