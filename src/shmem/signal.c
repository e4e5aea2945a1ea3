/* Signaling (spec §9.8): put with signal, signal add/set/fetch. */
#include "shmem_internal.h"

static inline void put_signal(const char *call, shmem_ctx_t ctx, void *dest, const void *source,
                              size_t len, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe);
              pg_check_rma(call, dest, "dest", source, "source", len, pe);
              pg_check_symmetric(call, "sig_addr", sig_addr, sizeof *sig_addr);
              if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD) pg_fatal(
                  call, "argument 'sig_op' = %d is neither SHMEM_SIGNAL_SET nor ADD", sig_op));
    pg_put_signal(pg_ctx(ctx), dest, source, len, sig_addr, signal,
                  sig_op == SHMEM_SIGNAL_ADD ? PG_SIGNAL_ADD : PG_SIGNAL_SET, pg_ctx_pe(ctx, pe));
}

#define PG_PUT_SIGNAL(NAME, PTYPE, ELEM)                                                      \
    void pshmem_ctx_##NAME(shmem_ctx_t ctx, PTYPE *dest, const PTYPE *source, size_t nelems,  \
                           uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)           \
    {                                                                                         \
        put_signal("shmem_ctx_" #NAME, ctx, dest, source, nelems *(ELEM), sig_addr, signal,   \
                   sig_op, pe);                                                               \
    }                                                                                         \
    void pshmem_##NAME(PTYPE *dest, const PTYPE *source, size_t nelems, uint64_t *sig_addr,   \
                       uint64_t signal, int sig_op, int pe)                                   \
    {                                                                                         \
        put_signal("shmem_" #NAME, SHMEM_CTX_DEFAULT, dest, source, nelems *(ELEM), sig_addr, \
                   signal, sig_op, pe);                                                       \
    }                                                                                         \
    PG_ALIAS(shmem_ctx_##NAME)                                                                \
    PG_ALIAS(shmem_##NAME)

#define PG_PUT_SIGNAL_TYPED(T, N)               \
    PG_PUT_SIGNAL(N##_put_signal, T, sizeof(T)) \
    PG_PUT_SIGNAL(N##_put_signal_nbi, T, sizeof(T))
PANGEA_T_RMA(PG_PUT_SIGNAL_TYPED)

#define PG_PUT_SIGNAL_SIZED(BITS, BYTES)           \
    PG_PUT_SIGNAL(put##BITS##_signal, void, BYTES) \
    PG_PUT_SIGNAL(put##BITS##_signal_nbi, void, BYTES)
PANGEA_SIZES(PG_PUT_SIGNAL_SIZED)

PG_PUT_SIGNAL(putmem_signal, void, 1)
PG_PUT_SIGNAL(putmem_signal_nbi, void, 1)

static inline void signal_update(const char *call, shmem_ctx_t ctx, uint64_t *sig_addr,
                                 uint64_t signal, enum pg_signal_op op, int pe)
{
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call); pg_check_ctx(call, ctx); pg_check_ctx_pe(call, ctx, pe);
              pg_check_pe(call, "pe", pe);
              pg_check_symmetric(call, "sig_addr", sig_addr, sizeof *sig_addr));
    pg_signal(pg_ctx(ctx), sig_addr, signal, op, pg_ctx_pe(ctx, pe));
}

void pshmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_ctx_signal_add", ctx, sig_addr, signal, PG_SIGNAL_ADD, pe);
}
PG_ALIAS(shmem_ctx_signal_add)

void pshmem_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_add", SHMEM_CTX_DEFAULT, sig_addr, signal, PG_SIGNAL_ADD, pe);
}
PG_ALIAS(shmem_signal_add)

void pshmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_ctx_signal_set", ctx, sig_addr, signal, PG_SIGNAL_SET, pe);
}
PG_ALIAS(shmem_ctx_signal_set)

void pshmem_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    signal_update("shmem_signal_set", SHMEM_CTX_DEFAULT, sig_addr, signal, PG_SIGNAL_SET, pe);
}
PG_ALIAS(shmem_signal_set)

uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    PG_CHECKS(pg_check_init("shmem_signal_fetch");
              pg_check_symmetric("shmem_signal_fetch", "sig_addr", sig_addr, sizeof *sig_addr));
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
PG_ALIAS(shmem_signal_fetch)
