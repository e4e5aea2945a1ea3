/* The MPI library's own 8-byte round trip, the floor under the mpi transport's latency
 * (src/transport/mpi.c), and what the transport's way of receiving adds to it. Two ranks (run
 * them on two emulated nodes); rank 0 sends, rank 1 answers the same way, on a duplicate of the
 * world communicator. Each variant is timed over -n round trips (default 20000, after 1000 not
 * timed) and prints the median and the 10th and 90th percentiles in us:
 *  - blocking: MPI_Send and MPI_Recv;
 *  - irecv: MPI_Irecv completed by polls of MPI_Test, MPI_Isend by polls of MPI_Testsome;
 *  - improbe: the transport's way: polls of MPI_Improbe until the message is matched
 *    (MPI_Mrecv), MPI_Isend completed by polls of MPI_Testsome;
 *  - improbe2: the same, each poll also looking at a second tag (MPI_Improbe and MPI_Testsome
 *    of an endpoint with nothing in flight), as the transport's driver polls both endpoints
 *    of a process (a PE's and its node's data server's);
 *  - improbe2-yield: improbe2 with a sched_yield after every empty poll, as the driver does.
 * With -t a second thread of each rank polls the second tag meanwhile (MPI_Improbe and
 * MPI_Testsome, a sched_yield after each poll), as a process's waiting PE and its data server
 * can both poll over the transport. MPI is started at MPI_THREAD_MULTIPLE, as the transport
 * needs it. Every answer is checked (rank 1 returns the round's number plus one). */
#define _GNU_SOURCE

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench_util.h"

#define TAG 7
#define OTHER_TAG 8

enum variant { BLOCKING, IRECV, IMPROBE, IMPROBE2, IMPROBE2_YIELD, VARIANTS };

static const char *const names[VARIANTS] = {"blocking", "irecv", "improbe", "improbe2",
                                            "improbe2-yield"};

/* One poll of an endpoint with nothing in flight, as the driver's pass over the other one. */
static void poll_other(MPI_Comm comm)
{
    int flag = 0, outcount = 0, index = 0;
    MPI_Message message;
    MPI_Request none = MPI_REQUEST_NULL;
    MPI_Improbe(MPI_ANY_SOURCE, OTHER_TAG, comm, &flag, &message, MPI_STATUS_IGNORE);
    MPI_Status status;
    MPI_Testsome(1, &none, &outcount, &index, &status);
}

static int stopping;

/* The second poller (-t). */
static void *poll_beside(void *arg)
{
    MPI_Comm comm = *(MPI_Comm *)arg;
    while (!__atomic_load_n(&stopping, __ATOMIC_RELAXED)) {
        poll_other(comm);
        sched_yield();
    }
    return NULL;
}

/* Receives one value from peer, the variant's way. */
static uint64_t receive(MPI_Comm comm, enum variant v, int peer)
{
    uint64_t value = 0;
    if (v == BLOCKING) {
        MPI_Recv(&value, 1, MPI_UINT64_T, peer, TAG, comm, MPI_STATUS_IGNORE);
        return value;
    }
    if (v == IRECV) {
        MPI_Request request;
        int done = 0;
        MPI_Irecv(&value, 1, MPI_UINT64_T, peer, TAG, comm, &request);
        while (!done)
            MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        return value;
    }
    for (;;) {
        int matched = 0;
        MPI_Message message;
        MPI_Improbe(MPI_ANY_SOURCE, TAG, comm, &matched, &message, MPI_STATUS_IGNORE);
        if (matched) {
            MPI_Mrecv(&value, 1, MPI_UINT64_T, &message, MPI_STATUS_IGNORE);
            return value;
        }
        if (v >= IMPROBE2)
            poll_other(comm);
        if (v == IMPROBE2_YIELD)
            sched_yield();
    }
}

/* Sends value to peer, the variant's way, until the library completed the send. */
static void send_value(MPI_Comm comm, enum variant v, int peer, uint64_t value)
{
    if (v == BLOCKING) {
        MPI_Send(&value, 1, MPI_UINT64_T, peer, TAG, comm);
        return;
    }
    MPI_Request request;
    MPI_Isend(&value, 1, MPI_UINT64_T, peer, TAG, comm, &request);
    for (;;) {
        int outcount = 0, index = 0;
        MPI_Status status;
        MPI_Testsome(1, &request, &outcount, &index, &status);
        if (outcount)
            return;
        if (v >= IMPROBE2)
            poll_other(comm);
        if (v == IMPROBE2_YIELD)
            sched_yield();
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, n = 20000, beside = 0, opt;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "n:t")) != -1) {
        if (opt == 'n')
            n = atoi(optarg);
        beside |= opt == 't';
    }
    if (size != 2 || n < 10) {
        if (rank == 0)
            fprintf(stderr, "mpi_pingpong: 2 ranks and -n of at least 10 (%d ranks, -n %d)\n", size,
                    n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    double *samples = malloc((size_t)n * sizeof *samples);
    if (!samples)
        MPI_Abort(MPI_COMM_WORLD, 1);
    pthread_t poller;
    if (beside && pthread_create(&poller, NULL, poll_beside, &comm) != 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0)
        printf("# thread level %s%s; 8-byte round trips, us: median p10 p90\n",
               provided == MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE",
               beside ? ", a second thread polling in each rank" : "");
    long bad = 0;
    for (int v = 0; v < VARIANTS; v++) {
        const int warm = 1000;
        MPI_Barrier(comm);
        for (int i = -warm; i < n; i++) {
            uint64_t round = (uint64_t)(i + warm);
            if (rank == 0) {
                double t = bench_now_us();
                send_value(comm, (enum variant)v, 1, round);
                uint64_t answer = receive(comm, (enum variant)v, 1);
                if (i >= 0)
                    samples[i] = bench_now_us() - t;
                bad += answer != round + 1;
                continue;
            }
            uint64_t value = receive(comm, (enum variant)v, 0);
            bad += value != round;
            send_value(comm, (enum variant)v, 0, value + 1);
        }
        if (rank == 0) {
            qsort(samples, (size_t)n, sizeof *samples, bench_compare);
            printf("%-15s %8.1f %8.1f %8.1f\n", names[v], samples[n / 2], samples[n / 10],
                   samples[n - n / 10 - 1]);
            fflush(stdout);
        }
    }
    if (beside) {
        __atomic_store_n(&stopping, 1, __ATOMIC_RELAXED);
        pthread_join(poller, NULL);
    }
    long all_bad = 0;
    MPI_Reduce(&bad, &all_bad, 1, MPI_LONG, MPI_SUM, 0, comm);
    if (rank == 0)
        printf("# verification: %s\n", all_bad ? "FAILED" : "ok");
    MPI_Comm_free(&comm);
    free(samples);
    MPI_Finalize();
    return all_bad != 0;
}
