/* Heavy MPI traffic and heavy PGAS traffic at the same time (issue 22: over PANGEA_TRANSPORT=mpi
 * both share the MPI library's resources, and Pangea's credits must leave the program's own
 * messages theirs). Every iteration each PE has, in flight together:
 *  - MPI: a nonblocking ring exchange with both neighbours (sizes cycling from 8 B to 64 KiB,
 *    contents derived from sender, iteration and position), and every few iterations an
 *    MPI_Allreduce and an MPI_Bcast;
 *  - PGAS: a BLOCK-byte nbi put into its own row of the partner half a job away (another node
 *    where there are several), a fetch-and-increment of its right neighbour's counter and an
 *    add into PE 0's total.
 * Checks: every byte of every MPI message; every collective's exact result; every fetched
 * value (one source per counter: 0, 1, ... in order); every byte of every row at the partner,
 * and that rows no PE puts into stay zero; the counters and PE 0's total exactly. TEST_ITERS
 * sets the iterations (default 200). */
#include "check.h"

#include <mpi.h>

#define BLOCK 1024
#define MAX_MPI 65536

static unsigned char mpi_byte(int from, int iter, size_t i)
{
    return (unsigned char)(from * 31 + iter * 7 + i * 13 + 1);
}

static unsigned char put_byte(int from, int iter, size_t i)
{
    return (unsigned char)(from * 17 + iter * 5 + i * 3 + 2);
}

static size_t mpi_size(int iter)
{
    return (size_t)8 << (iter % 14); /* 8 B .. 64 KiB */
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int iters = getenv("TEST_ITERS") ? atoi(getenv("TEST_ITERS")) : 200;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    int partner = (me + npes / 2) % npes;

    unsigned char *rows = shmem_calloc((size_t)npes * (size_t)iters, BLOCK);
    long *counter = shmem_calloc(1, sizeof *counter);
    long *total = shmem_calloc(1, sizeof *total);
    unsigned char *block = malloc(BLOCK * (size_t)iters);
    unsigned char *out = malloc(MAX_MPI), *in_left = malloc(MAX_MPI), *in_right = malloc(MAX_MPI);
    long *fetched = malloc((size_t)iters * sizeof *fetched);
    CHECK(rows && counter && total && block && out && in_left && in_right && fetched,
          "allocation failed");
    shmem_barrier_all();

    for (int iter = 0; iter < iters; iter++) {
        size_t n = mpi_size(iter);
        for (size_t i = 0; i < n; i++)
            out[i] = mpi_byte(me, iter, i);
        MPI_Request requests[4];
        MPI_Irecv(in_left, (int)n, MPI_BYTE, left, iter, MPI_COMM_WORLD, &requests[0]);
        MPI_Irecv(in_right, (int)n, MPI_BYTE, right, iter, MPI_COMM_WORLD, &requests[1]);
        MPI_Isend(out, (int)n, MPI_BYTE, right, iter, MPI_COMM_WORLD, &requests[2]);
        MPI_Isend(out, (int)n, MPI_BYTE, left, iter, MPI_COMM_WORLD, &requests[3]);

        unsigned char *mine = block + (size_t)iter * BLOCK;
        for (size_t i = 0; i < BLOCK; i++)
            mine[i] = put_byte(me, iter, i);
        shmem_putmem_nbi(rows + ((size_t)me * (size_t)iters + (size_t)iter) * BLOCK, mine, BLOCK,
                         partner);
        fetched[iter] = shmem_long_atomic_fetch_inc(counter, right);
        shmem_long_atomic_add(total, iter + 1, 0);

        MPI_Status statuses[4];
        MPI_Waitall(4, requests, statuses);
        for (size_t i = 0; i < n; i++) {
            CHECK(in_left[i] == mpi_byte(left, iter, i), "iteration %d: byte %zu from %d", iter, i,
                  left);
            CHECK(in_right[i] == mpi_byte(right, iter, i), "iteration %d: byte %zu from %d", iter,
                  i, right);
        }
        CHECK(fetched[iter] == iter, "iteration %d: fetched %ld from PE %d's counter", iter,
              fetched[iter], right);
        if (iter % 8 == 0) {
            long mine_value = (long)me * iter + 1, sum = 0;
            MPI_Allreduce(&mine_value, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
            CHECK(sum == (long)iter * npes * (npes - 1) / 2 + npes, "iteration %d: allreduce %ld",
                  iter, sum);
            long root_value = me == iter % npes ? 1000L + iter : -1;
            MPI_Bcast(&root_value, 1, MPI_LONG, iter % npes, MPI_COMM_WORLD);
            CHECK(root_value == 1000L + iter, "iteration %d: bcast %ld", iter, root_value);
        }
    }
    shmem_quiet();
    shmem_barrier_all();

    CHECK(*counter == iters, "counter %ld, expected %d", *counter, iters);
    if (me == 0)
        CHECK(*total == (long)npes * iters * (iters + 1) / 2, "total %ld, expected %ld", *total,
              (long)npes * iters * (iters + 1) / 2);
    for (int from = 0; from < npes; from++) {
        int puts_here = (from + npes / 2) % npes == me;
        for (int iter = 0; iter < iters; iter++) {
            const unsigned char *row = rows + ((size_t)from * (size_t)iters + (size_t)iter) * BLOCK;
            for (size_t i = 0; i < BLOCK; i++) {
                unsigned char want = puts_here ? put_byte(from, iter, i) : 0;
                if (row[i] != want) {
                    CHECK(0, "row of PE %d, iteration %d, byte %zu: %u, expected %u", from, iter, i,
                          row[i], want);
                    break;
                }
            }
        }
    }
    int result = check_finish();
    shmem_free(rows);
    shmem_free(counter);
    shmem_free(total);
    free(block);
    free(out);
    free(in_left);
    free(in_right);
    free(fetched);
    shmem_finalize();
    MPI_Finalize();
    return result;
}
