/* Lifecycle: brings the modules up in dependency order and down in reverse. */
#include "runtime.h"

#include "ckpt/ckpt.h"
#include "coll/coll.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "prof/prof.h"
#include "startup/startup.h"
#include "topo/topo.h"
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int init_count;
static int thread_level;
static int exit_hook_registered;

/* Runs before MPI is finalized at exit (registered after it); the OpenSHMEM front-end's own
 * hook runs before this one and covers its programs. */
static void check_exit(int status, void *unused)
{
    (void)unused;
    pg_crash_exit_check(status, "ARMCI_Finalize");
}

int pg_runtime_initialized(void)
{
    return init_count > 0;
}

int pg_runtime_thread_level(void)
{
    return thread_level;
}

int pg_runtime_init(int requested_thread, int *provided_thread)
{
    if (init_count++ > 0) {
        /* Repeated init: the thread level stays what the first init provided. */
        if (provided_thread)
            *provided_thread = thread_level;
        pg_sync_all();
        pg_phase_end(PG_PHASE_FIRST_BARRIER);
        return 0;
    }
    pg_crash_save_program_handlers();
    int status = pg_config_load();
    pg_phase_end(PG_PHASE_TUNABLES);
    if (status != 0 || pg_startup_init() != 0) {
        init_count = 0;
        return -1;
    }
    pg_topo_init();
    pg_phase_end(PG_PHASE_TOPOLOGY);
    /* After startup, so that only PE 0 warns (the environment is the same on every PE). */
    if (pg_world.me == 0)
        pg_config_warn_unknown(stderr);
    pg_wait_init();
    pg_prof_init(requested_thread == PG_THREAD_MULTIPLE);
    if (pg_memory_init(
            (size_t)pg_cfg.symmetric_size,
            pg_coll_internal_bytes((size_t)pg_world.npes, (size_t)pg_world.max_local_size)) != 0)
        pg_fatal("shmem_init", "could not set up symmetric memory (see the message above)");
    pg_acc_locks_init();
    pg_target_counts_init();
    pg_phase_end(PG_PHASE_ACC_LOCKS);
    if (pg_pipe_init() != 0)
        pg_fatal("shmem_init", "could not set up the network path between nodes (see above)");
    if (pg_coll_init() != 0)
        pg_fatal("shmem_init", "could not set up the world barrier");
    pg_phase_end(PG_PHASE_COLL_INIT);
    /* Every level is supported: the engine takes no locks on the on-node paths and calls MPI
     * only from the initializing thread. */
    thread_level = requested_thread;
    if (provided_thread)
        *provided_thread = thread_level;
    if (pg_world.me == 0 && (pg_cfg.version || pg_cfg.info))
        fprintf(stderr, "Pangea %s (OpenSHMEM 1.6)\n", PG_VERSION_STRING);
    if (pg_world.me == 0 && pg_cfg.info) {
        fprintf(stderr, "job: %d PE%s on %d node%s (up to %d per node); %s\n", pg_world.npes,
                pg_world.npes > 1 ? "s" : "", pg_world.nnodes, pg_world.nnodes > 1 ? "s" : "",
                pg_world.max_local_size,
                pg_world.nnodes > 1 ? "between nodes: libfabric (below)"
                                    : "shared memory only (one node: no network)");
        pg_startup_print(stderr);
        pg_config_print(stderr, 1);
        pg_memory_print(stderr);
        if (pg_world.nnodes > 1)
            pg_net_describe(stderr);
        pg_topo_print(stderr);
    }
    pg_crash_install(); /* last: providers loaded during init installed handlers of their own */
    if (!exit_hook_registered) {
        on_exit(check_exit, NULL);
        exit_hook_registered = 1;
    }
    pg_sync_all();
    pg_phase_end(PG_PHASE_FIRST_BARRIER);
    return 0;
}

void pg_runtime_fini(void)
{
    if (init_count == 0)
        return;
    pg_ckpt_fini();
    pg_quiet(NULL);
    if (init_count > 1) { /* not the last: a barrier, as the spec says */
        pg_sync_all();
        init_count--;
        return;
    }
    pg_coll_depart();
    init_count = 0;
    pg_coll_fini();
    pg_pipe_fini();
    pg_memory_fini();
    pg_prof_fini();
    pg_topo_fini();
    pg_startup_fini();
}
