/* CPU time per message of the mpi transport's MPI calls (src/transport/mpi.c), for choosing
 * how a two-piece reply (a 96-byte header and 8 bytes of data) is sent and how an arrival is
 * received. One rank sends to itself on a duplicate of the world communicator, as the
 * transport does: MPI_Isend, MPI_Improbe until matched, then the receive, and MPI_Testsome
 * until everything completed. Four variants, each over -n MESSAGES (default 200000):
 *  - send: an MPI_Type_create_hindexed datatype built, committed and freed per message, or
 *    both pieces gathered into one malloc'd buffer;
 *  - receive: MPI_Imrecv completed by MPI_Testsome, or MPI_Mrecv.
 * Prints the thread's CPU time per message (us; CPU time, so that other processes' load
 * counts less than in wall time) and checks every byte received. */
#define _POSIX_C_SOURCE 200809L

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEADER 96
#define DATA 8
#define TAG 7

static double cpu_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void send_pieces(MPI_Comm comm, const char *header, const char *data, int gather,
                        MPI_Request *request, char **copy)
{
    *copy = NULL;
    if (gather) {
        *copy = malloc(HEADER + DATA);
        if (!*copy) {
            fprintf(stderr, "mpi_message_cost: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        memcpy(*copy, header, HEADER);
        memcpy(*copy + HEADER, data, DATA);
        MPI_Isend(*copy, HEADER + DATA, MPI_BYTE, 0, TAG, comm, request);
        return;
    }
    int lengths[2] = {HEADER, DATA};
    MPI_Aint places[2];
    MPI_Get_address(header, &places[0]);
    MPI_Get_address(data, &places[1]);
    MPI_Datatype pieces;
    MPI_Type_create_hindexed(2, lengths, places, MPI_BYTE, &pieces);
    MPI_Type_commit(&pieces);
    MPI_Isend(MPI_BOTTOM, 1, pieces, 0, TAG, comm, request);
    MPI_Type_free(&pieces);
}

int main(int argc, char **argv)
{
    int provided, rank, opt;
    long messages = 200000;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    while ((opt = getopt(argc, argv, "n:")) != -1)
        if (opt == 'n')
            messages = atol(optarg);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_SELF, &comm);
    char header[HEADER], data[DATA], received[HEADER + DATA];
    int failed = 0;
    for (int variant = 0; variant < 4 && rank == 0; variant++) {
        int gather = variant >> 1, mrecv = variant & 1;
        double start = cpu_us();
        for (long i = 0; i < messages; i++) {
            memset(header, (int)(i & 0x7f), HEADER);
            memset(data, (int)(~i & 0x7f), DATA);
            MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
            char *copy;
            send_pieces(comm, header, data, gather, &requests[0], &copy);
            int flag = 0, done[2], n, left = 2;
            MPI_Message message;
            MPI_Status status, statuses[2];
            while (!flag)
                MPI_Improbe(MPI_ANY_SOURCE, TAG, comm, &flag, &message, &status);
            if (mrecv) {
                MPI_Mrecv(received, HEADER + DATA, MPI_BYTE, &message, MPI_STATUS_IGNORE);
                left = 1;
            } else {
                MPI_Imrecv(received, HEADER + DATA, MPI_BYTE, &message, &requests[1]);
            }
            while (left > 0) {
                MPI_Testsome(2, requests, &n, done, statuses);
                if (n != MPI_UNDEFINED)
                    left -= n;
            }
            free(copy);
            if (memcmp(received, header, HEADER) != 0 || memcmp(received + HEADER, data, DATA) != 0)
                failed++;
        }
        printf("send %-8s receive %-7s %.3f us CPU per message\n", gather ? "gather" : "hindexed",
               mrecv ? "Mrecv" : "Imrecv", (cpu_us() - start) / (double)messages);
    }
    if (rank == 0)
        printf("# verification: %s (%d bad messages)\n", failed ? "FAILED" : "ok", failed);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return failed != 0;
}
