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

/* My host's name, and its 64-bit FNV-1a hash: the key that groups the PEs of a node. */
static unsigned long long host_key(char *name, size_t len)
{
    if (gethostname(name, len) != 0)
        snprintf(name, len, "unknown");
    name[len - 1] = '\0';
    unsigned long long hash = 14695981039346656037ull;
    for (const char *c = name; *c; c++)
        hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
    return hash;
}

struct keyed_pe {
    unsigned long long key;
    int pe;
};

static int by_key_then_pe(const void *a, const void *b)
{
    const struct keyed_pe *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->pe > y->pe) - (x->pe < y->pe);
}

/* Finds the PEs of each node from one world exchange of 8 bytes per PE (a hash of the host
 * name: MPI_Comm_split_type costs MPICH seconds at a few tens of PEs per core), and fills
 * node_comm, node_of, local_of, local_pes, nnodes, node, max_local_size and local_first, in
 * O(npes log npes). A node's first PE leads it; nodes are numbered in their leaders' order.
 * Within the node, the host names must be equal (not just their hashes). 0, or -1 when out of
 * memory. */
static int node_tables(void)
{
    int npes = pg_world.npes;
    char host[256];
    unsigned long long mine = host_key(host, sizeof host);
    unsigned long long *keys = malloc((size_t)npes * sizeof *keys);
    struct keyed_pe *sorted = malloc((size_t)npes * sizeof *sorted);
    int *leader_of = malloc((size_t)npes * sizeof(int));
    int *next_local = calloc((size_t)npes, sizeof(int)); /* by node */
    pg_world.node_of = malloc((size_t)npes * sizeof(int));
    pg_world.local_of = malloc((size_t)npes * sizeof(int));
    int status = -1;
    if (keys && sorted && leader_of && next_local && pg_world.node_of && pg_world.local_of) {
        check_mpi(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, keys, 1, MPI_UNSIGNED_LONG_LONG,
                                world_comm),
                  "MPI_Allgather");
        for (int pe = 0; pe < npes; pe++)
            sorted[pe] = (struct keyed_pe){keys[pe], pe};
        qsort(sorted, (size_t)npes, sizeof *sorted, by_key_then_pe);
        for (int i = 0, leader = 0; i < npes; i++) {
            if (i == 0 || sorted[i].key != sorted[i - 1].key)
                leader = sorted[i].pe;
            leader_of[sorted[i].pe] = leader;
        }
        /* A PE's leader comes before it (or is it), so one pass in PE order numbers both. */
        int nnodes = 0;
        for (int pe = 0; pe < npes; pe++) {
            int node = leader_of[pe] == pe ? nnodes++ : pg_world.node_of[leader_of[pe]];
            pg_world.node_of[pe] = node;
            pg_world.local_of[pe] = next_local[node]++;
        }
        pg_world.nnodes = nnodes;
        pg_world.node = pg_world.node_of[pg_world.me];
        pg_world.local_rank = pg_world.local_of[pg_world.me];
        pg_world.local_size = next_local[pg_world.node];
        pg_world.max_local_size = 0;
        for (int node = 0; node < nnodes; node++)
            if (next_local[node] > pg_world.max_local_size)
                pg_world.max_local_size = next_local[node];
        pg_world.local_pes = malloc((size_t)pg_world.local_size * sizeof(int));
        if (pg_world.local_pes) {
            for (int pe = 0, l = 0; pe < npes; pe++)
                if (pg_world.node_of[pe] == pg_world.node)
                    pg_world.local_pes[l++] = pe;
            pg_world.local_first =
                pg_world.local_pes[pg_world.local_size - 1] - pg_world.local_pes[0] ==
                        pg_world.local_size - 1
                    ? pg_world.local_pes[0]
                    : -1;
            status = 0;
        }
    }
    free(keys);
    free(sorted);
    free(leader_of);
    free(next_local);
    if (status != 0)
        return -1;
    check_mpi(MPI_Comm_split(world_comm, pg_world.node, pg_world.local_rank, &node_comm),
              "MPI_Comm_split");
    /* Two hosts whose names hash alike would share a node here: the names must match. */
    char leader_host[sizeof host];
    memcpy(leader_host, host, sizeof host);
    check_mpi(MPI_Bcast(leader_host, sizeof leader_host, MPI_CHAR, 0, node_comm), "MPI_Bcast");
    if (strcmp(leader_host, host) != 0)
        pg_fatal("startup",
                 "hosts '%s' and '%s' have the same name hash: PEs cannot be grouped "
                 "by node",
                 host, leader_host);
    return 0;
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
