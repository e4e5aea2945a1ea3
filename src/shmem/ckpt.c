/* Checkpoint/restart (shmemx.h): argument checks over the ckpt module. The calls work in ARMCI
 * programs too (ARMCI_Init brings up the same runtime), so they ask for the runtime, not for
 * shmem_init. */
#include "shmem_internal.h"

#include "ckpt/ckpt.h"

#include <shmemx.h>

static void check_ready(const char *call)
{
    if (!pg_runtime_initialized())
        pg_fatal(call, "Pangea is not initialized: call shmem_init (or ARMCI_Init) first");
}

int pshmemx_ckpt_register(void *addr, size_t bytes)
{
    const char *call = "shmemx_ckpt_register";
    PG_API_CALL(call);
    check_ready(call);
    if (!addr && bytes)
        pg_fatal(call, "argument 'addr' is NULL (with 'bytes' = %zu)", bytes);
    return pg_ckpt_register(addr, bytes);
}
PG_ALIAS(shmemx_ckpt_register)

static void check_dir(const char *call, const char *dir)
{
    check_ready(call);
    if (!dir || !*dir)
        pg_fatal(call, "argument 'dir' is %s", dir ? "empty" : "NULL");
}

int pshmemx_checkpoint(const char *dir)
{
    const char *call = "shmemx_checkpoint";
    PG_API_CALL(call);
    check_dir(call, dir);
    return pg_ckpt_save(call, dir);
}
PG_ALIAS(shmemx_checkpoint)

int pshmemx_restart(const char *dir)
{
    const char *call = "shmemx_restart";
    PG_API_CALL(call);
    check_dir(call, dir);
    return pg_ckpt_restore(call, dir);
}
PG_ALIAS(shmemx_restart)

void pshmemx_ckpt_quiesce(void)
{
    const char *call = "shmemx_ckpt_quiesce";
    PG_API_CALL(call);
    check_ready(call);
    pg_ckpt_quiesce(call);
}
PG_ALIAS(shmemx_ckpt_quiesce)

void pshmemx_ckpt_resume(void)
{
    const char *call = "shmemx_ckpt_resume";
    PG_API_CALL(call);
    check_ready(call);
    pg_ckpt_resume(call);
}
PG_ALIAS(shmemx_ckpt_resume)
