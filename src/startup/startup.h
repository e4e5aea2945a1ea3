/* startup: bootstrap over MPI — who we are, which PEs share our node — and the init-time
 * exchanges the other modules use while the runtime comes up. */
#ifndef PG_STARTUP_H
#define PG_STARTUP_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

struct pg_world {
    int me; /* PE number = rank in the runtime's world communicator (pg_startup_world) */
    int npes;
    int node; /* index of my node, 0..nnodes-1 (nodes numbered by their lowest PE) */
    int nnodes;
    int local_rank; /* my index among the PEs of my node */
    int local_size;
    int max_local_size; /* the most PEs any node has */
    int local_first; /* world PE of my local rank 0 when my node's PEs are consecutive, else -1 */
    int *node_of;    /* [npes] node index of each PE */
    int *local_of;   /* [npes] local rank of each PE on its node */
    int *local_pes;  /* [local_size] world PE of each local rank of my node */
    unsigned long long job_id;  /* random, the same on every PE of my node: names its objects */
    unsigned long long job_key; /* random, the same on every PE of the job, and secret: every
                                   message of the data-server protocol carries it */
};

extern struct pg_world pg_world;

/* The local rank of world PE pe when it is on my node, else -1. Consecutive node PEs (the
 * launchers' usual placement) take one comparison, on the path of every load/store RMA. */
static inline int pg_local_rank_of(int pe)
{
    if (pg_world.local_first >= 0) {
        unsigned l = (unsigned)(pe - pg_world.local_first);
        return l < (unsigned)pg_world.local_size ? (int)l : -1;
    }
    return (unsigned)pe < (unsigned)pg_world.npes && pg_world.node_of[pe] == pg_world.node
               ? pg_world.local_of[pe]
               : -1;
}

/* Brings MPI up if the program has not (remembering that we did), fills pg_world from one
 * MPI_Allgather over MPI_COMM_WORLD, and maps the node's board (board.h), through which the
 * exchanges below meet on a node. Returns 0 or -1 with a message printed. */
int pg_startup_init(void);
/* The bytes of pg_world's tables in a job of npes PEs, local_size on this node. */
static inline size_t pg_boot_table_bytes(size_t npes, size_t local_size)
{
    return (2 * npes + local_size) * sizeof(int);
}
/* The runtime spans MPI_COMM_WORLD unless ARMCI was initialized on another communicator
 * first: choose_world, before the runtime comes up, makes comm its world (PE numbers are then
 * comm's ranks, and an OpenSHMEM init after it sees the same world). While the runtime is up,
 * 0 when comm holds the same processes in the same order, else -1. */
int pg_startup_choose_world(MPI_Comm comm);
MPI_Comm pg_startup_world(void);
/* For SHMEM_INFO: who started MPI, and how. */
void pg_startup_print(void *stream);
/* Releases the communicators; MPI itself is finalized at exit if we started it. */
void pg_startup_fini(void);

/* Init-time exchanges, world or node scope: the node's PEs meet on the board and the node
 * leaders over MPI (only when there are several nodes). */
void pg_boot_allgather(const void *mine, void *all, size_t len);
void pg_boot_node_allgather(const void *mine, void *all, size_t len);
/* Local rank 0's len bytes to every PE of its node. */
void pg_boot_node_bcast(void *buf, size_t len);
/* The servers' kind of exchange: node-local rank 0 of each node gives `len` bytes, and every
 * PE receives them all, node by node (nnodes * len bytes). */
void pg_boot_leaders_allgather(const void *mine, void *all, size_t len);
/* The least and greatest of each of n values over all PEs. */
void pg_boot_minmax(const long long *mine, long long *least, long long *most, int n);
void pg_boot_barrier(void);
/* Statistics of one value over the PEs. A PE without a value for an entry gives
 * {INFINITY, -INFINITY, 0, 0}, otherwise {v, v, v, 1}. */
struct pg_boot_stat {
    double min, max, sum, count;
};
/* Combines stat[0..n) of every PE (min, max, sums) into PE 0's array in one reduction; the
 * other PEs' arrays are left as they were. Collective over the world. */
void pg_boot_reduce_stats(struct pg_boot_stat *stat, int n);
void pg_boot_node_barrier(void);
/* The count of the node's waits asleep, shared by its PEs (the runtime's load test); NULL
 * before init and after pg_startup_fini. */
uint32_t *pg_boot_node_asleep(void);
/* A world barrier over MPI if MPI is still up (0), else -1 and nothing done. */
int pg_boot_barrier_if_available(void);
/* Ends the whole job with this status: MPI_Abort when MPI is up (a job of one process
 * finalizes MPI instead, so that hydra reports the status), else exit. */
__attribute__((noreturn)) void pg_boot_abort(int status);

#endif
