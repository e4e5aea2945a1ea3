/* ARMCI setup and exit, synchronization, locality, and the argument checks of the front-end.
 * ARMCI shares the runtime with OpenSHMEM: either may come up first, and the runtime stays up
 * until both have finalized. */
#include "armci_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pangea_ctx pg_armci_ctx;
static struct pangea_team armci_team;
static int armci_up;

int PARMCI_Init_thread_comm(int armci_requested, MPI_Comm comm)
{
    const char *call = "ARMCI_Init";
    if (armci_up)
        return 0; /* repeated initialization is allowed and changes nothing */
    if (armci_requested < MPI_THREAD_SINGLE || armci_requested > MPI_THREAD_MULTIPLE)
        pg_fatal(call, "argument 'armci_requested' = %d is not an MPI thread level",
                 armci_requested);
    if (comm == MPI_COMM_NULL)
        pg_fatal(call, "argument 'comm' is MPI_COMM_NULL");
    /* ARMCI on a communicator of some of the processes: they alone make the runtime's world
     * (GA_Initialize_comm), unless OpenSHMEM brought it up first over others. */
    if (pg_startup_choose_world(comm) != 0)
        pg_fatal(call, "argument 'comm' holds other processes than the running OpenSHMEM world: "
                       "initialize ARMCI on that communicator first, or on the same processes");
    pg_phases_begin();
    if (pg_runtime_init(armci_requested, NULL) != 0)
        pg_fatal(call, "the runtime could not start (see the message above)");
    if (pg_team_init(&armci_team, 0, 1, pg_world.npes) != 0)
        pg_fatal(call, "out of memory for the ARMCI process group");
    pg_ctx_init(&pg_armci_ctx, &armci_team, 0, PG_COUNT_OFF); /* ARMCI has no counters */
    pg_mpi_interop_init();
    pg_phase_end(PG_PHASE_ARMCI_GROUPS);
    pg_mem_exchange_bases(); /* ARMCI names remote memory by each process's own addresses */
    pg_phase_end(PG_PHASE_BASE_EXCHANGE);
    pg_armci_memory_init();
    pg_phase_end(PG_PHASE_ARMCI_MEMORY);
    pg_sync_all(); /* every process's counters are cleared before anybody uses them */
    pg_phase_end(PG_PHASE_ARMCI_BARRIER);
    armci_up = 1;
    pg_phases_report("ARMCI_Init");
    pg_prof_start();
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Init_thread_comm)

int PARMCI_Init_thread(int armci_requested)
{
    return PARMCI_Init_thread_comm(armci_requested, MPI_COMM_WORLD);
}
PG_ARMCI_ALIAS(ARMCI_Init_thread)

int PARMCI_Init(void)
{
    return PARMCI_Init_thread_comm(MPI_THREAD_SINGLE, MPI_COMM_WORLD);
}
PG_ARMCI_ALIAS(ARMCI_Init)

/* MPICH needs no arguments: the runtime brings MPI up if the program has not, and then also
 * finalizes it at exit. */
int PARMCI_Init_args(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return PARMCI_Init();
}
PG_ARMCI_ALIAS(ARMCI_Init_args)

int ARMCI_Init_mpi_comm(MPI_Comm comm)
{
    return PARMCI_Init_thread_comm(MPI_THREAD_SINGLE, comm);
}

int PARMCI_Initialized(void)
{
    return armci_up;
}
PG_ARMCI_ALIAS(ARMCI_Initialized)

int PARMCI_Finalize(void)
{
    if (!armci_up)
        return 0;
    pg_prof_write(0); /* before finalize's own fence and sync */
    pg_armci_all_fence();
    pg_sync_all();
    pg_armci_mutex_fini();
    pg_armci_memory_fini();
    pg_mpi_interop_fini();
    pg_ctx_fini(&pg_armci_ctx);
    pg_team_fini(&armci_team);
    armci_up = 0;
    pg_runtime_fini();
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Finalize)

/* Called on error paths (Global Arrays' GA_Error): completes this process's transfers and
 * does not synchronize with anybody, so it cannot hang when others have stopped. */
void ARMCI_Cleanup(void)
{
    if (armci_up)
        pg_armci_all_fence();
}

void ARMCI_Error(const char *msg, int code)
{
    pg_fatal("ARMCI_Error", "%s (code %d)", msg ? msg : "", code);
}

/* ---- Synchronization ------------------------------------------------------------------------ */

void pg_armci_fence_procs(const int *procs, size_t n)
{
    pg_pe_quiet(&pg_armci_ctx, procs, n);
}

void pg_armci_fence(int proc)
{
    pg_armci_fence_procs(&proc, 1);
}

void pg_armci_all_fence(void)
{
    pg_quiet(&pg_armci_ctx);
}

void PARMCI_Fence(int proc)
{
    pg_armci_check_init("ARMCI_Fence");
    pg_armci_check_proc("ARMCI_Fence", "proc", proc);
    pg_armci_fence(proc);
}
PG_ARMCI_ALIAS(ARMCI_Fence)

void PARMCI_AllFence(void)
{
    pg_armci_check_init("ARMCI_AllFence");
    pg_armci_all_fence();
}
PG_ARMCI_ALIAS(ARMCI_AllFence)

void PARMCI_Barrier(void)
{
    pg_armci_check_init("ARMCI_Barrier");
    PG_PROF_COLL(BARRIER);
    pg_armci_all_fence();
    /* Everything else the process has in flight too (OpenSHMEM's contexts in a program that
     * uses both): the sync's signals between nodes go straight to the waiting PE and may
     * overtake requests that no quiet has waited for. */
    pg_quiet(NULL);
    pg_sync_all();
}
PG_ARMCI_ALIAS(ARMCI_Barrier)

void ARMCI_GroupFence(ARMCI_Group *group)
{
    if (!group)
        group = pg_armci_default_group();
    pg_armci_check_init("ARMCI_GroupFence");
    pg_group_check_member("ARMCI_GroupFence", group);
    pg_armci_fence_procs(group->grp_to_abs, (size_t)group->size);
}

/* Direct load/store on my own ARMCI memory: the epoch orders my accesses after the updates
 * that completed before it began, and others' later accesses after mine. */
void PARMCI_Access_begin(void *ptr)
{
    pg_armci_check_init("ARMCI_Access_begin");
    pg_armci_remote("ARMCI_Access_begin", "ptr", pg_world.me, ptr, 1);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
}
PG_ARMCI_ALIAS(ARMCI_Access_begin)

void PARMCI_Access_end(void *ptr)
{
    pg_armci_check_init("ARMCI_Access_end");
    pg_armci_remote("ARMCI_Access_end", "ptr", pg_world.me, ptr, 1);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
PG_ARMCI_ALIAS(ARMCI_Access_end)

void ARMCIX_Progress(void)
{
    if (pg_wait_progress)
        pg_wait_progress();
}

/* ---- Locality: the SMP domain is the node ---------------------------------------------------- */

static void check_domain(const char *call, armci_domain_t domain)
{
    if (domain != ARMCI_DOMAIN_SMP)
        pg_fatal(call, "argument 'domain' = %d is not ARMCI_DOMAIN_SMP", domain);
}

static void check_node(const char *call, int id)
{
    if (id < 0 || id >= pg_world.nnodes)
        pg_fatal(call, "argument 'id' = %d is not a node (0..%d)", id, pg_world.nnodes - 1);
}

int armci_domain_nprocs(armci_domain_t domain, int id)
{
    check_domain("armci_domain_nprocs", domain);
    check_node("armci_domain_nprocs", id);
    int n = 0;
    for (int p = 0; p < pg_world.npes; p++)
        n += pg_world.node_of[p] == id;
    return n;
}

int armci_domain_id(armci_domain_t domain, int glob_proc_id)
{
    check_domain("armci_domain_id", domain);
    pg_armci_check_proc("armci_domain_id", "glob_proc_id", glob_proc_id);
    return pg_world.node_of[glob_proc_id];
}

int armci_domain_glob_proc_id(armci_domain_t domain, int id, int loc_proc_id)
{
    check_domain("armci_domain_glob_proc_id", domain);
    check_node("armci_domain_glob_proc_id", id);
    for (int p = 0; p < pg_world.npes; p++)
        if (pg_world.node_of[p] == id && pg_world.local_of[p] == loc_proc_id)
            return p;
    pg_fatal("armci_domain_glob_proc_id", "argument 'loc_proc_id' = %d is not a process of node %d",
             loc_proc_id, id);
}

int armci_domain_my_id(armci_domain_t domain)
{
    check_domain("armci_domain_my_id", domain);
    return pg_world.node;
}

int armci_domain_count(armci_domain_t domain)
{
    check_domain("armci_domain_count", domain);
    return pg_world.nnodes;
}

int armci_domain_same_id(armci_domain_t domain, int proc)
{
    check_domain("armci_domain_same_id", domain);
    return ARMCI_Same_node(proc);
}

int ARMCI_Same_node(int proc)
{
    pg_armci_check_proc("ARMCI_Same_node", "proc", proc);
    return pg_world.node_of[proc] == pg_world.node;
}

int armci_sameclusnode(int proc)
{
    return ARMCI_Same_node(proc);
}

/* ARMCI-MPI's answer, on which Global Arrays relies: the addresses ARMCI_Malloc returns for
 * other processes are theirs, not loadable here, so callers must not access them directly
 * (Pangea maps node peers' memory, but at other addresses; the transfers use that mapping). */
int ARMCI_Uses_shm(void)
{
    return 0;
}

int ARMCI_Uses_shm_grp(ARMCI_Group *group)
{
    pg_group_check_member("ARMCI_Uses_shm_grp", group);
    return 0;
}

/* ---- Argument checks ------------------------------------------------------------------------ */

void pg_armci_check_init(const char *call)
{
    if (!armci_up)
        pg_fatal(call, "called before ARMCI_Init");
}

void pg_armci_check_proc(const char *call, const char *arg, int proc)
{
    if (proc < 0 || proc >= pg_world.npes)
        pg_fatal(call, "argument '%s' = %d is not a process (0..%d)", arg, proc, pg_world.npes - 1);
}

void pg_armci_check_count(const char *call, const char *arg, long count)
{
    if (count < 0)
        pg_fatal(call, "argument '%s' = %ld is negative", arg, count);
}

void pg_armci_check_local(const char *call, const char *arg, const void *addr, long bytes)
{
    if (!addr && bytes > 0)
        pg_fatal(call, "argument '%s' is NULL with %ld bytes to transfer", arg, bytes);
}

/* In the heap, a range must lie inside one allocation: ARMCI_Malloc over the world and
 * shmem_malloc allocate alike on every process, so my heap's block table stands for the
 * target's (group allocations, in the target's own area, are checked against its extent). */
static int inside_one_allocation(char *mine, size_t len)
{
    size_t offset, area = pg_segments[PG_SEG_HEAP].area;
    char *start;
    size_t size;
    if (pg_mem_locate(mine, 1, &offset) != PG_SEG_HEAP || (area && offset >= area))
        return 1;
    return pg_heap_object(mine, &start, &size) == 0 && len <= size - (size_t)(mine - start);
}

void *pg_armci_remote(const char *call, const char *arg, int proc, const void *addr, size_t len)
{
    pg_armci_check_proc(call, "proc", proc);
    char *mine = pg_mem_from_peer(proc, addr, len ? len : 1);
    if (!mine || !inside_one_allocation(mine, len ? len : 1))
        pg_fatal(call,
                 "argument '%s' = %p (%zu bytes) is not in the ARMCI memory of process %d "
                 "(use addresses ARMCI_Malloc returned for that process)",
                 arg, addr, len, proc);
    return mine;
}

enum pg_acc_type pg_armci_acc_type(const char *call, int datatype)
{
    static const enum pg_acc_type types[] = {
        [ARMCI_ACC_INT] = PG_ACC_INT,     [ARMCI_ACC_LNG] = PG_ACC_LONG,
        [ARMCI_ACC_FLT] = PG_ACC_FLOAT,   [ARMCI_ACC_DBL] = PG_ACC_DOUBLE,
        [ARMCI_ACC_CPL] = PG_ACC_COMPLEX, [ARMCI_ACC_DCP] = PG_ACC_DCOMPLEX,
    };
    if (datatype < 0 || datatype > ARMCI_ACC_DCP)
        pg_fatal(call, "argument 'datatype' = %d is not an ARMCI_ACC_ type (%d..%d)", datatype,
                 ARMCI_ACC_INT, ARMCI_ACC_DCP);
    return types[datatype];
}
