/* Library setup, exit and query (spec §9.1, §9.2), the legacy startup calls and the removed
 * cache-management calls. */
#define PANGEA_SHMEM_CACHE_ROUTINES /* define them, for old codes that still call them */
#include "shmem_internal.h"

#include <stdio.h>
#include <stdlib.h>

struct pangea_team pangea_team_world, pangea_team_shared;
struct pangea_ctx pangea_ctx_default;

static int exit_hook_registered;

int pg_shmem_ready;

void pg_shmem_not_ready(const char *call)
{
    pg_fatal(call, "OpenSHMEM is not initialized (%s)",
             exit_hook_registered ? "shmem_finalize was called" : "call shmem_init first");
}

/* start_pes, and any program that never calls shmem_finalize: finalize collectively at exit.
 * Not after a non-zero exit status: the other PEs may be waiting for this one anywhere, and the
 * job ends with that status instead. */
static void finalize_at_exit(int status, void *unused)
{
    (void)unused;
    pg_crash_exit_check(status, "shmem_finalize");
    pg_prof_write(0);
    while (pg_runtime_initialized())
        pg_runtime_fini();
}

static void setup_handles(void)
{
    /* PEs of my node; on-node PEs reach each other's heap by load/store. Node PEs are
     * contiguous in the world only when the launcher places them so; otherwise SHARED holds
     * just this PE, which the spec allows (it is defined by mutual reachability). */
    int first = pg_world.local_pes[0], contiguous = 1;
    for (int l = 0; l < pg_world.local_size; l++)
        contiguous &= pg_world.local_pes[l] == first + l;
    pg_team_fini(&pangea_team_world); /* a previous init's layout */
    pg_team_fini(&pangea_team_shared);
    if (pg_team_init(&pangea_team_world, 0, 1, pg_world.npes) != 0 ||
        pg_team_init(&pangea_team_shared, contiguous ? first : pg_world.me, 1,
                     contiguous ? pg_world.local_size : 1) != 0)
        pg_fatal("shmem_init", "out of memory for the predefined teams");
    pangea_team_world.predefined = pangea_team_shared.predefined = 1;
    pg_team_handles_clear();
    pg_team_handle_add(SHMEM_TEAM_WORLD);
    pg_team_handle_add(SHMEM_TEAM_SHARED);
    pg_team_use_channel(&pangea_team_shared, PG_CHANNEL_SHARED);
    pg_ctx_init(&pangea_ctx_default, &pangea_team_world, 0, pg_shmem_counting(0));
}

int pshmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        fprintf(stderr,
                "pangea: shmem_init_thread: argument 'requested' = %d is not a "
                "SHMEM_THREAD_ level\n",
                requested);
        return -1;
    }
    int first = !pg_runtime_initialized();
    pg_phases_begin();
    if (pg_runtime_init(requested, provided) != 0)
        return -1;
    /* The runtime may already be up for ARMCI, which does not set up the OpenSHMEM handles. */
    if (first || !pangea_ctx_default.team) {
        setup_handles();
        if (!exit_hook_registered) {
            on_exit(finalize_at_exit, NULL);
            exit_hook_registered = 1;
        }
        pg_phase_end(PG_PHASE_TEAMS);
    }
    pg_shmem_ready = 1;
    pg_phases_report("shmem_init");
    pg_prof_start();
    return 0;
}
PG_ALIAS(shmem_init_thread)

void pshmem_init(void)
{
    if (pshmem_init_thread(SHMEM_THREAD_SINGLE, NULL) != 0)
        pg_boot_abort(1);
}
PG_ALIAS(shmem_init)

void pshmem_finalize(void)
{
    PG_SHMEM_CALL("shmem_finalize");
    pg_prof_write(0);
    pg_runtime_fini();
    /* ARMCI may still hold the runtime, and with it the handles. */
    pg_shmem_ready = pg_runtime_initialized();
}
PG_ALIAS(shmem_finalize)

void pshmem_query_initialized(int *initialized)
{
    *initialized = pg_runtime_initialized();
}
PG_ALIAS(shmem_query_initialized)

void pshmem_query_thread(int *provided)
{
    *provided = pg_runtime_thread_level();
}
PG_ALIAS(shmem_query_thread)

int pshmem_my_pe(void)
{
    return pg_runtime_initialized() ? pg_world.me : -1;
}
PG_ALIAS(shmem_my_pe)

int pshmem_n_pes(void)
{
    return pg_runtime_initialized() ? pg_world.npes : -1;
}
PG_ALIAS(shmem_n_pes)

void pshmem_global_exit(int status)
{
    pg_global_exit(status);
}
PG_ALIAS(shmem_global_exit)

int pshmem_pe_accessible(int pe)
{
    return pg_runtime_initialized() && pe >= 0 && pe < pg_world.npes;
}
PG_ALIAS(shmem_pe_accessible)

int pshmem_addr_accessible(const void *addr, int pe)
{
    size_t off;
    return pshmem_pe_accessible(pe) && pg_mem_locate(addr, 1, &off) >= 0;
}
PG_ALIAS(shmem_addr_accessible)

void *pshmem_ptr(const void *dest, int pe)
{
    PG_SHMEM_CALL("shmem_ptr");
    PG_CHECKS(pg_check_pe("shmem_ptr", "pe", pe));
    return pg_mem_peer_ptr(dest, pe);
}
PG_ALIAS(shmem_ptr)

void pshmem_info_get_version(int *major, int *minor)
{
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}
PG_ALIAS(shmem_info_get_version)

void pshmem_info_get_name(char *name)
{
    snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}
PG_ALIAS(shmem_info_get_name)

void pshmem_pcontrol(int level, ...)
{
    (void)level; /* the library's own version does nothing (spec §10) */
}
PG_ALIAS(shmem_pcontrol)

/* Legacy 1.0 startup (deprecated since 1.2, still required). */
void start_pes(int npes)
{
    (void)npes;
    if (!pg_runtime_initialized())
        pshmem_init();
}

int _my_pe(void)
{
    return pshmem_my_pe();
}

int _num_pes(void)
{
    return pshmem_n_pes();
}

/* Cache management, removed in 1.5: no-ops, as the spec always allowed (memory is coherent). */
void pshmem_clear_cache_inv(void) {}
PG_ALIAS(shmem_clear_cache_inv)
void pshmem_set_cache_inv(void) {}
PG_ALIAS(shmem_set_cache_inv)
void pshmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
PG_ALIAS(shmem_clear_cache_line_inv)
void pshmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
PG_ALIAS(shmem_set_cache_line_inv)
void pshmem_udcflush(void) {}
PG_ALIAS(shmem_udcflush)
void pshmem_udcflush_line(void *dest)
{
    (void)dest;
}
PG_ALIAS(shmem_udcflush_line)
