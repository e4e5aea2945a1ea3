/* Ordering (spec §9.12), the world barrier and sync (§9.10) and locks (§9.13). */
#include "shmem_internal.h"

#include <stdlib.h>

void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    PG_SHMEM_ENTRY("shmem_ctx_fence");
    PG_CHECKS(if (ctx != SHMEM_CTX_INVALID) pg_check_ctx("shmem_ctx_fence", ctx));
    if (ctx != SHMEM_CTX_INVALID)
        pg_fence(pg_ctx(ctx));
}
PG_ALIAS(shmem_ctx_fence)

void pshmem_fence(void)
{
    PG_SHMEM_ENTRY("shmem_fence");
    pg_fence(pg_ctx(SHMEM_CTX_DEFAULT));
}
PG_ALIAS(shmem_fence)

void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    PG_SHMEM_ENTRY("shmem_ctx_quiet");
    PG_CHECKS(if (ctx != SHMEM_CTX_INVALID) pg_check_ctx("shmem_ctx_quiet", ctx));
    if (ctx != SHMEM_CTX_INVALID)
        pg_quiet(pg_ctx(ctx));
}
PG_ALIAS(shmem_ctx_quiet)

void pshmem_quiet(void)
{
    PG_SHMEM_ENTRY("shmem_quiet");
    pg_quiet(pg_ctx(SHMEM_CTX_DEFAULT));
}
PG_ALIAS(shmem_quiet)

/* target_pes are PE numbers of the context's team; the engine takes world PEs. */
static void pe_quiet(const char *call, shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call); pg_check_buffer(call, "target_pes", target_pes, npes);
              if (ctx != SHMEM_CTX_INVALID) pg_check_ctx(call, ctx));
    if (ctx == SHMEM_CTX_INVALID || npes == 0)
        return;
    int size = ctx->team->size;
    PG_CHECKS(for (size_t i = 0; i < npes; i++) if (target_pes[i] < 0 || target_pes[i] >= size)
                  pg_fatal(call,
                           "argument 'target_pes[%zu]' = %d is out of range [0, %d) of the "
                           "context's team",
                           i, target_pes[i], size));
    int local[64];
    int *world = npes <= 64 ? local : malloc(npes * sizeof *world);
    if (!world)
        pg_fatal(call, "out of memory for %zu PE numbers", npes);
    for (size_t i = 0; i < npes; i++)
        world[i] = pg_ctx_pe(ctx, target_pes[i]);
    pg_pe_quiet(pg_ctx(ctx), world, npes);
    if (world != local)
        free(world);
}

void pshmem_ctx_pe_quiet(shmem_ctx_t ctx, const int *target_pes, size_t npes)
{
    pe_quiet("shmem_ctx_pe_quiet", ctx, target_pes, npes);
}
PG_ALIAS(shmem_ctx_pe_quiet)

void pshmem_pe_quiet(const int *target_pes, size_t npes)
{
    pe_quiet("shmem_pe_quiet", SHMEM_CTX_DEFAULT, target_pes, npes);
}
PG_ALIAS(shmem_pe_quiet)

void pshmem_barrier_all(void)
{
    PG_SHMEM_CALL("shmem_barrier_all");
    PG_PROF_COLL(BARRIER);
    pg_quiet(pg_ctx(SHMEM_CTX_DEFAULT));
    pg_sync_all();
}
PG_ALIAS(shmem_barrier_all)

void pshmem_sync_all(void)
{
    PG_SHMEM_CALL("shmem_sync_all");
    pg_sync_all();
}
PG_ALIAS(shmem_sync_all)

static void check_lock(const char *call, long *lock)
{
    pg_check_init(call);
    pg_check_symmetric(call, "lock", lock, sizeof *lock);
    if ((uintptr_t)lock % sizeof *lock)
        pg_fatal(call, "argument 'lock' = %p is not aligned to a long", (void *)lock);
}

void pshmem_set_lock(long *lock)
{
    PG_SHMEM_CALL("shmem_set_lock");
    PG_CHECKS(check_lock("shmem_set_lock", lock));
    pg_lock_set(lock);
}
PG_ALIAS(shmem_set_lock)

int pshmem_test_lock(long *lock)
{
    PG_SHMEM_CALL("shmem_test_lock");
    PG_CHECKS(check_lock("shmem_test_lock", lock));
    return pg_lock_test(lock);
}
PG_ALIAS(shmem_test_lock)

void pshmem_clear_lock(long *lock)
{
    PG_SHMEM_CALL("shmem_clear_lock");
    PG_CHECKS(check_lock("shmem_clear_lock", lock));
    pg_lock_clear(lock);
}
PG_ALIAS(shmem_clear_lock)
