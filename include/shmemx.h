/* Pangea: OpenSHMEM extensions, all with the shmemx_ / SHMEMX_ prefix (§0: shmemx.h must exist).
 *
 * Most names here are source-compatibility extensions for programs written against Sandia
 * OpenSHMEM (SOS): the shmemx_ spellings SOS used before 1.6 standardized the calls, SOS's node
 * team and allocation hint, and its performance counters. Typed families expand from the type
 * tables of pangea_shmem_tables.h. Pangea's own: checkpoint/restart (docs/checkpoint.md). */
#ifndef PANGEA_SHMEMX_H
#define PANGEA_SHMEMX_H

#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- What 1.6 standardized, under SOS's shmemx_ names: the same calls ---------------------- */

/* shmemx_signal_add, shmemx_signal_set: shmem_signal_add/set (1.6). */
static inline void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_signal_add(sig_addr, signal, pe);
}
static inline void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_signal_set(sig_addr, signal, pe);
}

/* shmemx_TYPENAME_sum_inscan, shmemx_TYPENAME_sum_exscan: shmem_TYPENAME_sum_inscan/exscan
 * (1.6), for every type of the SUM reductions. */
#define PANGEA_X_SCAN(TYPE, TYPENAME)                                                   \
    static inline int shmemx_##TYPENAME##_sum_inscan(shmem_team_t team, TYPE *dest,     \
                                                     const TYPE *source, size_t nelems) \
    {                                                                                   \
        return shmem_##TYPENAME##_sum_inscan(team, dest, source, nelems);               \
    }                                                                                   \
    static inline int shmemx_##TYPENAME##_sum_exscan(shmem_team_t team, TYPE *dest,     \
                                                     const TYPE *source, size_t nelems) \
    {                                                                                   \
        return shmem_##TYPENAME##_sum_exscan(team, dest, source, nelems);               \
    }
PANGEA_T_RED_ARITH(PANGEA_X_SCAN)
#undef PANGEA_X_SCAN

/* shmemx_[ctx_]TYPENAME_ibput/ibget and shmemx_[ctx_]ibput/ibgetSIZE: shmem_ibput/ibget
 * (1.6), block-strided RMA. */
#define PANGEA_X_IB(PREFIX, NAME, CTX_PARAM, CTX_ARG, TYPE)                              \
    static inline void shmemx_##PREFIX##NAME(CTX_PARAM TYPE *dest, const TYPE *source,   \
                                             ptrdiff_t dst, ptrdiff_t sst, size_t bsize, \
                                             size_t nblocks, int pe)                     \
    {                                                                                    \
        shmem_##PREFIX##NAME(CTX_ARG dest, source, dst, sst, bsize, nblocks, pe);        \
    }
#define PANGEA_X_COMMA ,
#define PANGEA_X_IB_TYPED(TYPE, TYPENAME)                                                         \
    PANGEA_X_IB(, TYPENAME##_ibput, , , TYPE)                                                     \
    PANGEA_X_IB(, TYPENAME##_ibget, , , TYPE)                                                     \
    PANGEA_X_IB(ctx_, TYPENAME##_ibput, shmem_ctx_t ctx PANGEA_X_COMMA, ctx PANGEA_X_COMMA, TYPE) \
    PANGEA_X_IB(ctx_, TYPENAME##_ibget, shmem_ctx_t ctx PANGEA_X_COMMA, ctx PANGEA_X_COMMA, TYPE)
#define PANGEA_X_IB_SIZE(BITS, BYTES)                                                        \
    PANGEA_X_IB(, ibput##BITS, , , void)                                                     \
    PANGEA_X_IB(, ibget##BITS, , , void)                                                     \
    PANGEA_X_IB(ctx_, ibput##BITS, shmem_ctx_t ctx PANGEA_X_COMMA, ctx PANGEA_X_COMMA, void) \
    PANGEA_X_IB(ctx_, ibget##BITS, shmem_ctx_t ctx PANGEA_X_COMMA, ctx PANGEA_X_COMMA, void)
PANGEA_T_RMA(PANGEA_X_IB_TYPED)
PANGEA_SIZES(PANGEA_X_IB_SIZE)
#undef PANGEA_X_IB_TYPED
#undef PANGEA_X_IB_SIZE
#undef PANGEA_X_COMMA
#undef PANGEA_X_IB

/* The type-generic names (C11 _Generic, C++ overloads): shmemx_ibput, shmemx_ibget,
 * shmemx_sum_inscan, shmemx_sum_exscan. */
#define shmemx_ibput shmem_ibput
#define shmemx_ibget shmem_ibget
#define shmemx_sum_inscan shmem_sum_inscan
#define shmemx_sum_exscan shmem_sum_exscan

/* ---- SOS's node team and allocation hint ------------------------------------------------- */

/* SHMEMX_TEAM_NODE: the PEs on the calling PE's node. In Pangea those are exactly the PEs
 * that map each other's memory, SHMEM_TEAM_SHARED. */
#define SHMEMX_TEAM_NODE SHMEM_TEAM_SHARED

/* SHMEMX_MALLOC_NO_BARRIER, a shmem_malloc_with_hints hint: the allocation returns without the
 * barrier on exit (the allocator is deterministic, so every PE still gets the same block). The
 * program synchronizes before other PEs access the block. */
#define SHMEMX_MALLOC_NO_BARRIER (1L << 2)

/* shmemx_register_gettid: SOS asks for the caller's thread-id function. Pangea keeps its
 * per-thread state in thread-local storage and needs none: the call is accepted and the
 * function never called. */
static inline void shmemx_register_gettid(uint64_t (*gettid_fn)(void))
{
    (void)gettid_fn;
}

/* ---- Topology: where PEs sit relative to each other (docs/topology.md) -------------------- */

/* The levels two PEs may share, closest first. SWITCH: the same leaf switch of the network
 * (Slurm's tree topology, PANGEA_TOPOLOGY_FILE, or one switch over every node). */
enum {
    SHMEMX_LEVEL_CORE = 0,
    SHMEMX_LEVEL_NUMA,
    SHMEMX_LEVEL_PACKAGE,
    SHMEMX_LEVEL_NODE,
    SHMEMX_LEVEL_SWITCH,
    SHMEMX_LEVEL_SYSTEM
};
/* The closest level the calling PE and pe (in SHMEM_TEAM_WORLD) share: SHMEMX_LEVEL_CORE for
 * the caller itself and for PEs bound to the same core (a PE not bound to one core shares CORE
 * with no other); -1 for a pe outside the world. */
int shmemx_topo_level(int pe);
int pshmemx_topo_level(int pe);
/* Collective over parent: the members that share `level` with each other form one team
 * (SHMEMX_LEVEL_NODE: SHMEM_TEAM_SHARED's members). 0 on success, as
 * shmem_team_split_strided; -1 on every member when a group is not a strided set of parent
 * PEs (Pangea's teams are strided) or cannot be made, or for a bad level or parent team. */
int shmemx_team_split_level(shmem_team_t parent, int level, const shmem_team_config_t *config,
                            long config_mask, shmem_team_t *new_team);
int pshmemx_team_split_level(shmem_team_t parent, int level, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team);

/* ---- Performance counters (SOS's shmemx_pcntr_*) ---------------------------------------- */

/* Counting is on with PANGEA_PCNTR=1 (off, every counter reads 0); it costs each operation of
 * an OpenSHMEM context an increment or two. Per context: puts are put, p, iput, ibput, put_nbi
 * and put_signal (every type and size); gets are get, g, iget, ibget and get_nbi. An operation
 * to a PE of the same node completes when the call returns, and so does a blocking get; the
 * other off-node operations are pending until the context's quiet (shmem_ctx_quiet, or
 * shmem_quiet/shmem_barrier_all for the default context). completed + pending counts every
 * operation issued on the context.
 * target (shmemx_pcntr_get_completed_target): the operations that other PEs completed on the
 * calling PE's memory, from every context of theirs that counts (the target cannot tell their
 * contexts apart: one count per PE, whatever ctx is passed). One each: a put (of any of the
 * forms above, whatever its size, however the network splits it), a get, an AMO (fetching or
 * not, blocking or nbi), a signal (shmem_signal_add/set); put_signal is a put and a signal, 2.
 * The calling PE's own operations on its memory, the library's own traffic (collectives,
 * locks) and ARMCI's operations do not count. An off-node operation counts once the target's
 * node has applied it: by the initiator's quiet for a put or non-fetching AMO, by its return
 * for a get or fetching AMO. */
typedef struct {
    uint64_t pending_put;
    uint64_t pending_get;
    uint64_t completed_put;
    uint64_t completed_get;
    uint64_t target;
} shmemx_pcntr_t;

#define PANGEA_X_PCNTR(NAME)                                             \
    void shmemx_pcntr_get_##NAME(shmem_ctx_t ctx, uint64_t *cntr_value); \
    void pshmemx_pcntr_get_##NAME(shmem_ctx_t ctx, uint64_t *cntr_value);
PANGEA_X_PCNTR(pending_put)
PANGEA_X_PCNTR(pending_get)
PANGEA_X_PCNTR(completed_put)
PANGEA_X_PCNTR(completed_get)
#undef PANGEA_X_PCNTR
void shmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);
void pshmemx_pcntr_get_all(shmem_ctx_t ctx, shmemx_pcntr_t *pcntr);
/* SOS's releases take no context (the count is per PE); its first form took one, still
 * accepted (and ignored) here: shmemx_pcntr_get_completed_target(&v) or (ctx, &v). */
void shmemx_pcntr_get_completed_target(uint64_t *cntr_value);
void pshmemx_pcntr_get_completed_target(uint64_t *cntr_value);
static inline void pangea_pcntr_target_of_ctx(shmem_ctx_t ctx, uint64_t *cntr_value)
{
    (void)ctx;
    shmemx_pcntr_get_completed_target(cntr_value);
}
#define PANGEA_G_ARITY12(a1, a2, NAME, ...) NAME
#define shmemx_pcntr_get_completed_target(...)                                                     \
    PANGEA_G_ARITY12(__VA_ARGS__, pangea_pcntr_target_of_ctx, shmemx_pcntr_get_completed_target, ) \
    (__VA_ARGS__)

/* ---- Checkpoint/restart of the PGAS state (docs/checkpoint.md) --------------------------- */

/* Private (non-symmetric) memory, or static data, to save and restore with the symmetric
 * allocations; regions are matched by the order of registration. Local. 0 on success. */
int shmemx_ckpt_register(void *addr, size_t bytes);
/* Collective over all PEs: saves every live symmetric allocation (the shmem heap and ARMCI
 * memory, group allocations included) and the registered regions as checkpoint N in dir
 * (created if missing; N is one more than the last). Returns 0 once this PE's image is in its
 * memory; a thread writes it to dir while the program goes on, and the next checkpoint,
 * restart, quiesce or finalize commits it. */
int shmemx_checkpoint(const char *dir);
/* Collective, after shmem_init and the same symmetric allocations and registrations as the
 * saving run: restores the newest complete checkpoint of dir and returns its number (1, 2,
 * ...), or 0 when dir holds no complete checkpoint. */
int shmemx_restart(const char *dir);
/* Collective hooks for a transparent process checkpointer: quiesce completes all traffic and
 * closes the network endpoints; resume reopens them. In between only PEs of the same node can
 * be reached. */
void shmemx_ckpt_quiesce(void);
void shmemx_ckpt_resume(void);

int pshmemx_ckpt_register(void *addr, size_t bytes);
int pshmemx_checkpoint(const char *dir);
int pshmemx_restart(const char *dir);
void pshmemx_ckpt_quiesce(void);
void pshmemx_ckpt_resume(void);

#ifdef __cplusplus
}
#endif

#endif /* PANGEA_SHMEMX_H */
