#include "startup.h"

#include "board.h"
#include "runtime/runtime.h"

#include <errno.h>
#include <sys/random.h>

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_world pg_world;

/* The node leaders' communicator (MPI_COMM_NULL on the other PEs): the only one Pangea
 * makes, so that a world-wide collective is not paid at init to duplicate MPI_COMM_WORLD. */
static MPI_Comm leaders_comm = MPI_COMM_NULL;
#define LEADERS_TAG 0x5047 /* MPI_Comm_create_group's tag */
/* The processes the runtime spans, PE numbers being their ranks: MPI_COMM_WORLD, or the
 * communicator ARMCI was initialized on (pg_startup_choose_world); NULL while down. */
static MPI_Comm world = MPI_COMM_NULL;
static int we_started_mpi;
static int started_lean; /* lean_init_wanted() held when we started MPI */
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

/* What each PE gives to the one world exchange of the startup. */
struct pe_card {
    unsigned long long host;   /* host_key */
    unsigned long long nonce;  /* random: a node leader's names the node's shared objects */
    unsigned long long secret; /* random: PE 0's is the job key (never in a name) */
};

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

static unsigned long long random_nonce(void)
{
    unsigned long long nonce;
    if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
        pg_fatal("startup", "getrandom failed: %s", strerror(errno));
    return nonce;
}

/* Fills node_of, local_of, local_pes, nnodes, node, local_rank, local_size, max_local_size,
 * local_first and job_id from every PE's card, in O(npes log npes). A node's first PE leads
 * it and its nonce is the node's job id; nodes are numbered in their leaders' order. 0, or -1
 * when out of memory. */
static int node_tables(const struct pe_card *cards)
{
    int npes = pg_world.npes;
    struct keyed_pe *sorted = malloc((size_t)npes * sizeof *sorted);
    int *leader_of = malloc((size_t)npes * sizeof(int));
    int *next_local = calloc((size_t)npes, sizeof(int)); /* by node */
    pg_world.node_of = malloc((size_t)npes * sizeof(int));
    pg_world.local_of = malloc((size_t)npes * sizeof(int));
    int status = -1;
    if (sorted && leader_of && next_local && pg_world.node_of && pg_world.local_of) {
        for (int pe = 0; pe < npes; pe++)
            sorted[pe] = (struct keyed_pe){cards[pe].host, pe};
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
        pg_world.job_id = cards[leader_of[pg_world.me]].nonce;
        pg_world.job_key = cards[0].secret;
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
    free(sorted);
    free(leader_of);
    free(next_local);
    return status;
}

/* The leaders' communicator, made by the leaders alone (MPI_Comm_create_group): a world-wide
 * collective here would cost what the board saves. */
static void open_leaders_comm(void)
{
    if (pg_world.local_rank != 0)
        return;
    int *leaders = malloc((size_t)pg_world.nnodes * sizeof(int));
    if (!leaders)
        pg_fatal("startup", "out of memory for the node leaders (%d nodes)", pg_world.nnodes);
    for (int pe = 0, n = 0; pe < pg_world.npes; pe++)
        if (pg_world.local_of[pe] == 0)
            leaders[n++] = pe;
    MPI_Group world_group, group;
    MPI_Comm_group(world, &world_group);
    MPI_Group_incl(world_group, pg_world.nnodes, leaders, &group);
    check_mpi(MPI_Comm_create_group(world, group, LEADERS_TAG, &leaders_comm),
              "MPI_Comm_create_group");
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    free(leaders);
}

/* Finds the PEs of each node from one world exchange of 24 bytes per PE (a hash of the host
 * name and two random numbers; MPI_Comm_split_type costs MPICH seconds at a few tens of PEs per
 * core), maps the node's board and checks that the host names of the node are equal, not just their
 * hashes. */
static void discover_nodes(void)
{
    char host[256];
    struct pe_card mine = {host_key(host, sizeof host), random_nonce(), random_nonce()};
    struct pe_card *cards = malloc((size_t)pg_world.npes * sizeof *cards);
    if (!cards)
        pg_fatal("startup", "out of memory for the PE tables (%d PEs)", pg_world.npes);
    check_mpi(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards, sizeof mine, MPI_BYTE, world),
              "MPI_Allgather");
    int status = node_tables(cards);
    free(cards);
    if (status != 0)
        pg_fatal("startup", "out of memory for the PE tables (%d PEs)", pg_world.npes);
    char why[160];
    if (pg_board_attach(pg_world.job_id, pg_world.local_size, pg_world.local_rank, why,
                        sizeof why) != 0)
        pg_fatal("startup", "the node's startup board: %s", why);
    char leader_host[sizeof host];
    memcpy(leader_host, host, sizeof host);
    pg_board_bcast(leader_host, sizeof leader_host);
    if (strcmp(leader_host, host) != 0)
        pg_fatal("startup",
                 "hosts '%s' and '%s' have the same name hash: PEs cannot be grouped "
                 "by node",
                 host, leader_host);
    open_leaders_comm();
}

/* MPICH sets up shared memory between every pair of a node's ranks in MPI_Init (half its time
 * at 32 ranks on a node), for MPI's own messages. When we start MPI for a program that sends
 * none, that is waste: its MPI calls still work without it (through the network module's
 * on-node transports), only slower. */
static int lean_init_wanted(void)
{
    static const char *const mpi_prefixes[] = {"MPI_", "MPIX_", "PMPI_", "mpi_", "pmpi_", NULL};
    return pg_cfg.mpi_lean_init && !getenv("MPIR_CVAR_NOLOCAL") &&
           pg_program_imports(mpi_prefixes) == 0;
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
        int lean = lean_init_wanted();
        if (lean)
            setenv("MPIR_CVAR_NOLOCAL", "1", 1);
        /* We call MPI only at init, finalize and global exit, always from the initializing
         * thread, so FUNNELED is all we need whatever level the program asked of us; but the
         * mpi transport's data server thread sends and receives beside the PE. */
        int level =
            pg_cfg.transport == PG_TRANSPORT_MPI ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
        int provided;
        int rc = MPI_Init_thread(NULL, NULL, level, &provided);
        if (lean)
            unsetenv("MPIR_CVAR_NOLOCAL"); /* the program's child processes do not inherit it */
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "pangea: shmem_init: MPI_Init_thread failed\n");
            return -1;
        }
        started_lean = lean;
        we_started_mpi = 1;
        if (!mpi_finalize_registered) {
            /* MPI cannot be initialized twice, so keep it up for a later re-init and
             * finalize it when the program exits. */
            atexit(finalize_mpi_at_exit);
            mpi_finalize_registered = 1;
        }
        pg_phase_end(PG_PHASE_MPI_INIT);
    }
    if (world == MPI_COMM_NULL)
        world = MPI_COMM_WORLD;
    MPI_Comm_rank(world, &pg_world.me);
    MPI_Comm_size(world, &pg_world.npes);
    discover_nodes();
    pg_phase_end(PG_PHASE_NODE_DISCOVERY);
    return 0;
}

void pg_startup_print(void *stream)
{
    fprintf(stream, "MPI: %s%s\n",
            we_started_mpi ? "started by shmem_init" : "started by the program",
            started_lean ? ", without its on-node shared memory (PANGEA_MPI_LEAN_INIT)" : "");
}

int pg_startup_choose_world(MPI_Comm comm)
{
    if (world == MPI_COMM_NULL) {
        world = comm;
        return 0;
    }
    int result;
    MPI_Comm_compare(comm, world, &result);
    return result == MPI_IDENT || result == MPI_CONGRUENT ? 0 : -1;
}

MPI_Comm pg_startup_world(void)
{
    return world == MPI_COMM_NULL ? MPI_COMM_WORLD : world;
}

void pg_startup_fini(void)
{
    world = MPI_COMM_NULL;
    if (mpi_up() && leaders_comm != MPI_COMM_NULL)
        MPI_Comm_free(&leaders_comm);
    leaders_comm = MPI_COMM_NULL;
    pg_board_detach();
    free(pg_world.node_of);
    free(pg_world.local_of);
    free(pg_world.local_pes);
    memset(&pg_world, 0, sizeof pg_world);
}

/* Every exchange below is hierarchical: the node's PEs meet on the board, their leaders over
 * MPI when there are several nodes, and the board carries the result back. */
static int leading(void)
{
    return pg_world.local_rank == 0 && pg_world.nnodes > 1;
}

void pg_boot_allgather(const void *mine, void *all, size_t len)
{
    size_t npes = (size_t)pg_world.npes;
    char *node_block = malloc((size_t)pg_world.local_size * len);
    char *by_node = leading() ? malloc(npes * len) : NULL;
    int *counts = leading() ? malloc((size_t)pg_world.nnodes * 2 * sizeof(int)) : NULL;
    if (!node_block || (leading() && (!by_node || !counts)))
        pg_fatal("startup", "out of memory for an exchange of %zu bytes per PE", len);
    pg_board_allgather(mine, node_block, len);
    if (leading()) {
        /* Node blocks arrive in node order; a PE's place in them is its node's start plus its
         * local rank. */
        int *displs = counts + pg_world.nnodes;
        memset(counts, 0, (size_t)pg_world.nnodes * sizeof(int));
        for (size_t pe = 0; pe < npes; pe++)
            counts[pg_world.node_of[pe]] += (int)len;
        for (int node = 0, at = 0; node < pg_world.nnodes; at += counts[node++])
            displs[node] = at;
        check_mpi(MPI_Allgatherv(node_block, pg_world.local_size * (int)len, MPI_BYTE, by_node,
                                 counts, displs, MPI_BYTE, leaders_comm),
                  "MPI_Allgatherv");
        for (size_t pe = 0; pe < npes; pe++)
            memcpy((char *)all + pe * len,
                   by_node + displs[pg_world.node_of[pe]] + (size_t)pg_world.local_of[pe] * len,
                   len);
    } else if (pg_world.local_rank == 0) {
        for (int l = 0; l < pg_world.local_size; l++)
            memcpy((char *)all + (size_t)pg_world.local_pes[l] * len, node_block + l * len, len);
    }
    free(node_block);
    free(by_node);
    free(counts);
    pg_board_bcast(all, npes * len);
}

void pg_boot_node_allgather(const void *mine, void *all, size_t len)
{
    pg_board_allgather(mine, all, len);
}

void pg_boot_node_bcast(void *buf, size_t len)
{
    pg_board_bcast(buf, len);
}

void pg_boot_leaders_allgather(const void *mine, void *all, size_t len)
{
    if (leading())
        check_mpi(MPI_Allgather(mine, (int)len, MPI_BYTE, all, (int)len, MPI_BYTE, leaders_comm),
                  "MPI_Allgather");
    else if (pg_world.local_rank == 0)
        memcpy(all, mine, len);
    pg_board_bcast(all, len * (size_t)pg_world.nnodes);
}

void pg_boot_minmax(const long long *mine, long long *least, long long *most, int n)
{
    long long *node = malloc((size_t)pg_world.local_size * (size_t)n * sizeof *node);
    long long *both = malloc(2 * (size_t)n * sizeof *both);
    if (!node || !both)
        pg_fatal("startup", "out of memory for a reduction of %d values", n);
    pg_board_allgather(mine, node, (size_t)n * sizeof *node);
    for (int i = 0; i < n; i++) {
        both[i] = both[n + i] = node[i];
        for (int l = 1; l < pg_world.local_size; l++) {
            long long v = node[(size_t)l * (size_t)n + (size_t)i];
            both[i] = v < both[i] ? v : both[i];
            both[n + i] = v > both[n + i] ? v : both[n + i];
        }
    }
    if (pg_world.nnodes > 1) {
        if (leading()) {
            check_mpi(MPI_Allreduce(MPI_IN_PLACE, both, n, MPI_LONG_LONG, MPI_MIN, leaders_comm),
                      "MPI_Allreduce");
            check_mpi(
                MPI_Allreduce(MPI_IN_PLACE, both + n, n, MPI_LONG_LONG, MPI_MAX, leaders_comm),
                "MPI_Allreduce");
        }
        pg_board_bcast(both, 2 * (size_t)n * sizeof *both);
    }
    memcpy(least, both, (size_t)n * sizeof *both);
    memcpy(most, both + n, (size_t)n * sizeof *both);
    free(node);
    free(both);
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
    size_t bytes = (size_t)n * sizeof *stat;
    struct pg_boot_stat *node = malloc((size_t)pg_world.local_size * bytes);
    if (!node)
        pg_fatal("startup", "out of memory for a reduction of %d statistics", n);
    pg_board_allgather(stat, node, bytes);
    if (pg_world.local_rank == 0) {
        for (int l = 1; l < pg_world.local_size; l++)
            combine_stats(node + (size_t)l * (size_t)n, node, &n, NULL);
        if (leading()) {
            /* PE 0 leads node 0, so it is rank 0 among the leaders. */
            MPI_Datatype type;
            MPI_Op op;
            MPI_Type_contiguous(sizeof *stat / sizeof(double), MPI_DOUBLE, &type);
            MPI_Type_commit(&type);
            MPI_Op_create(combine_stats, 1, &op);
            int rc = MPI_Reduce(pg_world.me == 0 ? MPI_IN_PLACE : node, node, n, type, op, 0,
                                leaders_comm);
            MPI_Op_free(&op);
            MPI_Type_free(&type);
            check_mpi(rc, "MPI_Reduce");
        }
        if (pg_world.me == 0)
            memcpy(stat, node, bytes);
    }
    free(node);
}

void pg_boot_barrier(void)
{
    pg_board_barrier();
    if (pg_world.nnodes > 1) {
        if (leading())
            check_mpi(MPI_Barrier(leaders_comm), "MPI_Barrier");
        pg_board_barrier();
    }
}

int pg_boot_barrier_if_available(void)
{
    if (!pg_board_attached() || (pg_world.nnodes > 1 && !mpi_up()))
        return -1;
    pg_boot_barrier();
    return 0;
}

void pg_boot_node_barrier(void)
{
    pg_board_barrier();
}

uint32_t *pg_boot_node_asleep(void)
{
    return pg_board_asleep();
}

/* A job of one process that MPI_Finalize may end here. MPICH's MPI_Abort on one process exits
 * without telling the process manager; hydra then reports either that status or a "killed by
 * signal 1", depending on whether it reaps the process before it sees the process's PMI socket
 * close. A finalized process's exit status is reported as it is. Only where no other thread
 * can be in MPI: MPI started by us, on the initializing thread, no mpi transport. */
static int alone_and_finalizable(void)
{
    int size = 0, main_thread = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Is_thread_main(&main_thread);
    return size == 1 && main_thread && we_started_mpi && pg_cfg.transport != PG_TRANSPORT_MPI;
}

void pg_boot_abort(int status)
{
    /* MPICH's MPI_Abort may end a process by exit(), whose hooks land here again; a second
     * MPI_Abort at MPI_THREAD_MULTIPLE fails an assertion and ends with status 1. */
    static int aborting;
    if (__atomic_exchange_n(&aborting, 1, __ATOMIC_SEQ_CST))
        _exit(status);
    /* Hydra tears the job down as soon as it hears of the abort; give its proxy a moment to
     * forward what this PE just wrote (the error message, flushed stdio). */
    usleep(100 * 1000);
    if (mpi_up()) {
        if (alone_and_finalizable())
            MPI_Finalize();
        else
            MPI_Abort(MPI_COMM_WORLD, status);
    }
    _exit(status);
}
