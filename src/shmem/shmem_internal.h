/* The OpenSHMEM front-end's shared helpers: argument checks, profiling aliases, and the
 * translation of handles to engine objects. Internal to src/shmem. */
#ifndef PG_SHMEM_INTERNAL_H
#define PG_SHMEM_INTERNAL_H

#include <pshmem.h>

#include "atomics/atomics.h"
#include "coll/coll.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "prof/prof.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdint.h>
#include <string.h>

/* Every routine is defined as pshmem_NAME; shmem_NAME is a weak alias (profiling, spec §10). */
#define PG_ALIAS(name) extern __typeof__(p##name) name __attribute__((weak, alias("p" #name)));

/* Opens an entry point: stops a call made before shmem_init or after shmem_finalize, which
 * would otherwise crash on the handles that init sets up (one predictable branch on a global,
 * always on: PG_SHMEM_ENTRY), and names the call for the engine's error messages
 * (PG_API_CALL; PG_SHMEM_CALL does both). Contiguous RMA, AMOs, fence and quiet take only
 * the first: naming costs them a third of an on-node 8-byte put, and the engine's errors on
 * their path already name the operation (put, get, AMO). */
extern int pg_shmem_ready __attribute__((visibility("hidden")));
__attribute__((noreturn, cold)) void pg_shmem_not_ready(const char *call);
#define PG_SHMEM_ENTRY(call)                  \
    if (__builtin_expect(!pg_shmem_ready, 0)) \
    pg_shmem_not_ready(call)
#define PG_SHMEM_CALL(call) \
    PG_API_CALL(call);      \
    PG_SHMEM_ENTRY(call)

/* Argument checks, active under SHMEM_DEBUG / PANGEA_CHECK. Each names the call and the
 * argument and ends the job. */
#define PG_CHECKS(...)       \
    do {                     \
        if (pg_checking()) { \
            __VA_ARGS__;     \
        }                    \
    } while (0)

void pg_check_init(const char *call);
void pg_check_pe(const char *call, const char *arg, int pe);
/* A symmetric range [addr, addr+len) that lies inside one symmetric object. */
void pg_check_symmetric(const char *call, const char *arg, const void *addr, size_t len);
/* A local buffer: not NULL when len > 0. */
void pg_check_buffer(const char *call, const char *arg, const void *addr, size_t len);
/* The usual RMA checks: init, pe, the symmetric side and the local side. */
void pg_check_rma(const char *call, const void *sym, const char *sym_arg, const void *local,
                  const char *local_arg, size_t len, int pe);
/* A context argument: not SHMEM_CTX_INVALID, and a live context (the default one, or one
 * created and not destroyed). */
void pg_check_ctx(const char *call, shmem_ctx_t ctx);
/* A team argument named arg: SHMEM_TEAM_INVALID (which each call treats as the spec says) or a
 * live team (predefined, or split and not destroyed). */
void pg_check_team(const char *call, const char *arg, shmem_team_t team);
/* The live handles (team.c): a handle is compared, never followed, so any value is safe. */
void pg_team_handle_add(shmem_team_t team);
void pg_team_handles_clear(void);
int pg_team_handle_live(shmem_team_t team);
int pg_ctx_handle_live(shmem_ctx_t ctx);

static inline struct pangea_ctx *pg_ctx(shmem_ctx_t ctx)
{
    return (struct pangea_ctx *)ctx;
}

/* The world PE of PE number pe of the context's team (PE arguments are team-relative). */
static inline int pg_ctx_pe(shmem_ctx_t ctx, int pe)
{
    return pg_team_pe(ctx->team, pe);
}
/* pe is a PE of the context's team. */
void pg_check_ctx_pe(const char *call, shmem_ctx_t ctx, int pe);

/* Typed value <-> the bits the AMO engine carries. */
#define PG_TO_BITS(T, v)                \
    __extension__({                     \
        uint64_t bits_ = 0;             \
        T v_ = (v);                     \
        memcpy(&bits_, &v_, sizeof(T)); \
        bits_;                          \
    })
#define PG_FROM_BITS(T, bits)        \
    __extension__({                  \
        uint64_t b_ = (bits);        \
        T v_;                        \
        memcpy(&v_, &b_, sizeof(T)); \
        v_;                          \
    })

/* Comparison of the point-to-point sync calls, in the type's own arithmetic. */
#define PG_COMPARE(cmp, a, b)             \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b) \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b) \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)  \
     : (cmp) == SHMEM_CMP_GE ? (a) >= (b) \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)  \
                             : (a) <= (b))
void pg_check_cmp(const char *call, int cmp);

/* How a context the program uses keeps the shmemx_pcntr counts: only with PANGEA_PCNTR, and
 * atomically only when several threads may issue on it at once (a private or serialized
 * context, or a thread level below MULTIPLE, has one at a time). */
static inline enum pg_ctx_counting pg_shmem_counting(long options)
{
    if (!pg_cfg.pcntr)
        return PG_COUNT_OFF;
    int threads = pg_runtime_thread_level() == SHMEM_THREAD_MULTIPLE &&
                  !(options & (SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED));
    return threads ? PG_COUNT_THREADS : PG_COUNT_ONE_THREAD;
}

#endif
