#include "startup.h"

#include "runtime/runtime.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct pg_world pg_world;

static MPI_Comm world_comm = MPI_COMM_NULL;
static MPI_Comm node_comm = MPI_COMM_NULL;
static int we_started_mpi;
static int mpi_finalize_registered;

static void finalize_mpi_at_exit(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
}

static int mpi_up(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

static void check_mpi(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        pg_fatal("startup", "%s failed: %s", what, text);
    }
}

/* Fills node_of, local_of, local_pes, nnodes, node and max_local_size with one world exchange of 4
 * bytes per PE, in O(npes). node_comm ranks its PEs in world order (the split key), so my node's
 * PEs are its group translated to world ranks, a local call, and the first of them leads the node.
 * Nodes are numbered in their leaders' order. 0, or -1 when out of memory. */
static int node_tables(void)
{
    int npes = pg_world.npes, local_size = pg_world.local_size;
    pg_world.node_of = malloc((size_t)npes * sizeof(int));
    pg_world.local_of = malloc((size_t)npes * sizeof(int));
    pg_world.local_pes = malloc((size_t)local_size * sizeof(int));
    int *leader_of = malloc((size_t)npes * sizeof(int));
    int *next_local = calloc((size_t)npes, sizeof(int)); /* by node */
    int *local_ranks = malloc((size_t)local_size * sizeof(int));
    int status = -1;
    if (pg_world.node_of && pg_world.local_of && pg_world.local_pes && leader_of && next_local &&
        local_ranks) {
        MPI_Group node_group, world_group;
        MPI_Comm_group(node_comm, &node_group);
        MPI_Comm_group(world_comm, &world_group);
        for (int l = 0; l < local_size; l++)
            local_ranks[l] = l;
        MPI_Group_translate_ranks(node_group, local_size, local_ranks, world_group,
                                  pg_world.local_pes);
        MPI_Group_free(&node_group);
        MPI_Group_free(&world_group);
        check_mpi(
            MPI_Allgather(&pg_world.local_pes[0], 1, MPI_INT, leader_of, 1, MPI_INT, world_comm),
            "MPI_Allgather");
        /* A PE's leader comes before it (or is it), so one pass in PE order numbers both. */
        int nnodes = 0;
        for (int pe = 0; pe < npes; pe++) {
            int node = leader_of[pe] == pe ? nnodes++ : pg_world.node_of[leader_of[pe]];
            pg_world.node_of[pe] = node;
            pg_world.local_of[pe] = next_local[node]++;
        }
        pg_world.nnodes = nnodes;
        pg_world.max_local_size = 0;
        for (int node = 0; node < nnodes; node++)
            if (next_local[node] > pg_world.max_local_size)
                pg_world.max_local_size = next_local[node];
        pg_world.node = pg_world.node_of[pg_world.me];
        pg_world.local_first =
            pg_world.local_pes[local_size - 1] - pg_world.local_pes[0] == local_size - 1
                ? pg_world.local_pes[0]
                : -1;
        if (pg_world.local_of[pg_world.me] != pg_world.local_rank)
            pg_fatal("startup",
                     "PE %d has node-local rank %d, not %d: MPI_Comm_split_type did not rank "
                     "the node's PEs in world order",
                     pg_world.me, pg_world.local_rank, pg_world.local_of[pg_world.me]);
        status = 0;
    }
    free(leader_of);
    free(next_local);
    free(local_ranks);
    return status;
}

int pg_startup_init(void)
{
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized) {
        fprintf(stderr, "pangea: shmem_init: MPI was already finalized; initialize OpenSHMEM "
                        "before MPI_Finalize\n");
        return -1;
    }
    if (!initialized) {
        /* We call MPI only at init, finalize and global exit, always from the initializing
         * thread, so FUNNELED is all we need whatever level the program asked of us. */
        int provided;
        if (MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
            fprintf(stderr, "pangea: shmem_init: MPI_Init_thread failed\n");
            return -1;
        }
        we_started_mpi = 1;
        if (!mpi_finalize_registered) {
            /* MPI cannot be initialized twice, so keep it up for a later re-init and
             * finalize it when the program exits. */
            atexit(finalize_mpi_at_exit);
            mpi_finalize_registered = 1;
        }
        pg_phase_end(PG_PHASE_MPI_INIT);
    }
    check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &world_comm), "MPI_Comm_dup");
    MPI_Comm_rank(world_comm, &pg_world.me);
    MPI_Comm_size(world_comm, &pg_world.npes);
    check_mpi(MPI_Comm_split_type(world_comm, MPI_COMM_TYPE_SHARED, pg_world.me, MPI_INFO_NULL,
                                  &node_comm),
              "MPI_Comm_split_type");
    MPI_Comm_rank(node_comm, &pg_world.local_rank);
    MPI_Comm_size(node_comm, &pg_world.local_size);

    if (node_tables() != 0)
        pg_fatal("startup", "out of memory for the PE tables (%d PEs)", pg_world.npes);

    /* Shared-memory object names are the only use of the job id, and only the PEs of a node
     * share them: the node leader's id tells this job from others running on the node. */
    unsigned long job_id = 0;
    if (pg_world.local_rank == 0)
        job_id = ((unsigned long)getpid() << 20) ^ (unsigned long)time(NULL) ^
                 ((unsigned long)clock() << 40);
    check_mpi(MPI_Bcast(&job_id, 1, MPI_UNSIGNED_LONG, 0, node_comm), "MPI_Bcast");
    pg_world.job_id = job_id;
    pg_phase_end(PG_PHASE_NODE_DISCOVERY);
    return 0;
}

void pg_startup_fini(void)
{
    if (mpi_up()) {
        if (node_comm != MPI_COMM_NULL)
            MPI_Comm_free(&node_comm);
        if (world_comm != MPI_COMM_NULL)
            MPI_Comm_free(&world_comm);
    }
    node_comm = world_comm = MPI_COMM_NULL;
    free(pg_world.node_of);
    free(pg_world.local_of);
    free(pg_world.local_pes);
    memset(&pg_world, 0, sizeof pg_world);
}

void pg_boot_allgather(const void *mine, void *all, size_t len)
{
    check_mpi(MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, world_comm),
              "MPI_Allgather");
}

void pg_boot_node_allgather(const void *mine, void *all, size_t len)
{
    check_mpi(MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, node_comm),
              "MPI_Allgather");
}

void pg_boot_leaders_allgather(const void *mine, void *all, size_t len)
{
    MPI_Comm leaders;
    check_mpi(MPI_Comm_split(world_comm, pg_world.local_rank == 0 ? 0 : MPI_UNDEFINED, pg_world.me,
                             &leaders),
              "MPI_Comm_split");
    if (leaders != MPI_COMM_NULL) {
        check_mpi(MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, leaders),
                  "MPI_Allgather");
        MPI_Comm_free(&leaders);
    }
    check_mpi(MPI_Bcast(all, (int)(len * (size_t)pg_world.nnodes), MPI_BYTE, 0, node_comm),
              "MPI_Bcast");
}

void pg_boot_minmax(const long long *mine, long long *least, long long *most, int n)
{
    check_mpi(MPI_Allreduce(mine, least, n, MPI_LONG_LONG, MPI_MIN, world_comm), "MPI_Allreduce");
    check_mpi(MPI_Allreduce(mine, most, n, MPI_LONG_LONG, MPI_MAX, world_comm), "MPI_Allreduce");
}

static void combine_stats(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const struct pg_boot_stat *a = in;
    struct pg_boot_stat *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i].min = a[i].min < b[i].min ? a[i].min : b[i].min;
        b[i].max = a[i].max > b[i].max ? a[i].max : b[i].max;
        b[i].sum += a[i].sum;
        b[i].count += a[i].count;
    }
}

void pg_boot_reduce_stats(struct pg_boot_stat *stat, int n)
{
    MPI_Datatype type;
    MPI_Op op;
    MPI_Type_contiguous(sizeof *stat / sizeof(double), MPI_DOUBLE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(combine_stats, 1, &op);
    int rc = MPI_Reduce(pg_world.me == 0 ? MPI_IN_PLACE : stat, stat, n, type, op, 0, world_comm);
    MPI_Op_free(&op);
    MPI_Type_free(&type);
    check_mpi(rc, "MPI_Reduce");
}

void pg_boot_barrier(void)
{
    check_mpi(MPI_Barrier(world_comm), "MPI_Barrier");
}

int pg_boot_barrier_if_available(void)
{
    if (!mpi_up() || world_comm == MPI_COMM_NULL)
        return -1;
    pg_boot_barrier();
    return 0;
}

void pg_boot_node_barrier(void)
{
    check_mpi(MPI_Barrier(node_comm), "MPI_Barrier");
}

void pg_boot_abort(int status)
{
    /* Hydra tears the job down as soon as it hears of the abort; give its proxy a moment to
     * forward what this PE just wrote (the error message, flushed stdio). */
    usleep(100 * 1000);
    if (mpi_up())
        MPI_Abort(MPI_COMM_WORLD, status);
    _exit(status);
}
