/* SOS's performance counters (shmemx.h): the puts and gets a context issued, pending and
 * completed, from the context's counts kept by the onesided module; and the operations other
 * PEs completed on this PE's memory, from its count in the internal area (dataserver.h). */
#include "shmem_internal.h"

#include <shmemx.h>

static void checks(const char *call, const void *out)
{
    PG_CHECKS(pg_check_init(call); if (!out) pg_fatal(call, "the result pointer is NULL"));
    static int told;
    if (!pg_cfg.pcntr && !__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
        pg_warn("%s: counting is off, so the counters read 0: set PANGEA_PCNTR=1", call);
}

static struct pg_ctx_counts counts(const char *call, shmem_ctx_t ctx, const void *out)
{
    PG_CHECKS(pg_check_ctx(call, ctx));
    checks(call, out);
    return pg_ctx_counts(pg_ctx(ctx));
}

void pshmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr)
{
    struct pg_ctx_counts c = counts("shmemx_pcntr_get_all", ctx, pcntr);
    *pcntr = (shmemx_pcntr_t){.pending_put = c.pending_puts,
                              .pending_get = c.pending_gets,
                              .completed_put = c.puts - c.pending_puts,
                              .completed_get = c.gets - c.pending_gets,
                              .target = pg_target_count_mine()};
}
PG_ALIAS(shmemx_pcntr_get_all)

#define PG_PCNTR(NAME, VALUE)                                                        \
    void pshmemx_pcntr_get_##NAME(shmem_ctx_t ctx, uint64_t *cntr_value)             \
    {                                                                                \
        struct pg_ctx_counts c = counts("shmemx_pcntr_get_" #NAME, ctx, cntr_value); \
        *cntr_value = VALUE;                                                         \
    }                                                                                \
    PG_ALIAS(shmemx_pcntr_get_##NAME)
PG_PCNTR(pending_put, c.pending_puts)
PG_PCNTR(pending_get, c.pending_gets)
PG_PCNTR(completed_put, c.puts - c.pending_puts)
PG_PCNTR(completed_get, c.gets - c.pending_gets)

void pshmemx_pcntr_get_completed_target(uint64_t *cntr_value)
{
    checks("shmemx_pcntr_get_completed_target", cntr_value);
    *cntr_value = pg_target_count_mine();
}
PG_ALIAS(shmemx_pcntr_get_completed_target)
