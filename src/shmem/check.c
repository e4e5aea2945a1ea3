/* Argument checks for SHMEM_DEBUG. */
#include "shmem_internal.h"

void pg_check_init(const char *call)
{
    if (!pg_runtime_initialized())
        pg_fatal(call, "called before shmem_init");
}

void pg_check_pe(const char *call, const char *arg, int pe)
{
    if (pe < 0 || pe >= pg_world.npes)
        pg_fatal(call, "argument '%s' = %d is out of range [0, %d)", arg, pe, pg_world.npes);
}

void pg_check_symmetric(const char *call, const char *arg, const void *addr, size_t len)
{
    if (!addr)
        pg_fatal(call, "argument '%s' is NULL", arg);
    size_t off;
    int seg = pg_mem_locate(addr, 1, &off);
    if (seg < 0)
        pg_fatal(call,
                 "argument '%s' = %p is not a symmetric address (neither the symmetric "
                 "heap nor static data)",
                 arg, addr);
    if (seg == PG_SEG_HEAP) {
        char *start;
        size_t size;
        if (pg_heap_object(addr, &start, &size) != 0)
            pg_fatal(call, "argument '%s' = %p is not inside a live symmetric heap object", arg,
                     addr);
        size_t at = (size_t)((const char *)addr - start);
        if (at + len > size)
            pg_fatal(call,
                     "argument '%s': %zu bytes at offset %zu run past the end of its "
                     "%zu-byte symmetric object",
                     arg, len, at, size);
    } else if (len > pg_segments[seg].size - off) {
        pg_fatal(call, "argument '%s': %zu bytes at %p run past the end of static data", arg, len,
                 addr);
    } else {
        char *start;
        size_t size;
        if (pg_program_object(addr, &start, &size) == 0 &&
            (size_t)((const char *)addr - start) + len > size)
            pg_fatal(call,
                     "argument '%s': %zu bytes at offset %zu run past the end of its %zu-byte "
                     "static object",
                     arg, len, (size_t)((const char *)addr - start), size);
    }
}

void pg_check_buffer(const char *call, const char *arg, const void *addr, size_t len)
{
    if (!addr && len > 0)
        pg_fatal(call, "argument '%s' is NULL with a length of %zu bytes", arg, len);
}

void pg_check_rma(const char *call, const void *sym, const char *sym_arg, const void *local,
                  const char *local_arg, size_t len, int pe)
{
    pg_check_init(call);
    pg_check_pe(call, "pe", pe);
    if (len == 0)
        return;
    pg_check_symmetric(call, sym_arg, sym, len);
    pg_check_buffer(call, local_arg, local, len);
}

void pg_check_ctx(const char *call, shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        pg_fatal(call, "argument 'ctx' is SHMEM_CTX_INVALID");
    if (!pg_ctx_handle_live(ctx))
        pg_fatal(call, "argument 'ctx' = %p is not a context (never created, or destroyed)",
                 (const void *)ctx);
}

void pg_check_team(const char *call, const char *arg, shmem_team_t team)
{
    if (team != SHMEM_TEAM_INVALID && !pg_team_handle_live(team))
        pg_fatal(call, "argument '%s' = %p is not a team (never created by a split, or destroyed)",
                 arg, (const void *)team);
}

void pg_check_ctx_pe(const char *call, shmem_ctx_t ctx, int pe)
{
    if (pe < 0 || pe >= ctx->team->size)
        pg_fatal(call, "argument 'pe' = %d is out of range [0, %d) of the context's team", pe,
                 ctx->team->size);
}

void pg_check_cmp(const char *call, int cmp)
{
    switch (cmp) {
    case SHMEM_CMP_EQ:
    case SHMEM_CMP_NE:
    case SHMEM_CMP_GT:
    case SHMEM_CMP_GE:
    case SHMEM_CMP_LT:
    case SHMEM_CMP_LE:
        return;
    }
    pg_fatal(call, "argument 'cmp' = %d is not a SHMEM_CMP_ constant", cmp);
}
