/* Pangea: every OpenSHMEM 1.6 function prototype declared so far, with a pluggable prefix.
 *
 * No include guard: shmem.h includes this file with PANGEA_NAME(s) pasting shmem_ in front of s,
 * pshmem.h includes it again with pshmem_. The includer defines PANGEA_NAME (and provides the
 * shmem.h types and PANGEA_NORETURN) and #undefs PANGEA_NAME afterwards.
 *
 * Typed families expand from the X-macro tables of pangea_shmem_tables.h. The helper macros
 * below are named PANGEA_D_* and are #undef'd at the end of the file. Section numbers (§) are
 * those of shared/spec/openshmem-api.md. The 7 legacy names without the shmem_ prefix
 * (start_pes, _my_pe, ...) are declared in shmem.h, not here: they have no pshmem_ twin. */

#ifndef PANGEA_NAME
#error "pangea_shmem_decls.h: define PANGEA_NAME(suffix) before including this file"
#endif

/* ---- §3.1 Library setup, exit, query ------------------------------------------------------- */
void PANGEA_NAME(init)(void);
void PANGEA_NAME(finalize)(void);
void PANGEA_NAME(query_initialized)(int *initialized);
int PANGEA_NAME(my_pe)(void);
int PANGEA_NAME(n_pes)(void);
PANGEA_NORETURN void PANGEA_NAME(global_exit)(int status);
int PANGEA_NAME(pe_accessible)(int pe);
int PANGEA_NAME(addr_accessible)(const void *addr, int pe);
void *PANGEA_NAME(ptr)(const void *dest, int pe);
void *PANGEA_NAME(team_ptr)(shmem_team_t team, const void *dest, int pe);
void PANGEA_NAME(info_get_version)(int *major, int *minor);
void PANGEA_NAME(info_get_name)(char *name);

/* ---- §3.2 Thread support ------------------------------------------------------------------- */
int PANGEA_NAME(init_thread)(int requested, int *provided);
void PANGEA_NAME(query_thread)(int *provided);

/* ---- §3.3 Memory management ---------------------------------------------------------------- */
void *PANGEA_NAME(malloc)(size_t size);
void PANGEA_NAME(free)(void *ptr);
void *PANGEA_NAME(realloc)(void *ptr, size_t size);
void *PANGEA_NAME(align)(size_t alignment, size_t size);
void *PANGEA_NAME(malloc_with_hints)(size_t size, long hints);
void *PANGEA_NAME(calloc)(size_t count, size_t size);

/* ---- §3.4 Team management ----------------------------------------------------------------- */
int PANGEA_NAME(team_my_pe)(shmem_team_t team);
int PANGEA_NAME(team_n_pes)(shmem_team_t team);
int PANGEA_NAME(team_get_config)(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int PANGEA_NAME(team_translate_pe)(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int PANGEA_NAME(team_split_strided)(shmem_team_t parent_team, int start, int stride, int size,
                                    const shmem_team_config_t *config, long config_mask,
                                    shmem_team_t *new_team);
int PANGEA_NAME(team_split_2d)(shmem_team_t parent_team, int xrange,
                               const shmem_team_config_t *xaxis_config, long xaxis_mask,
                               shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                               long yaxis_mask, shmem_team_t *yaxis_team);
void PANGEA_NAME(team_destroy)(shmem_team_t team);

/* ---- §3.5 Contexts and sessions ------------------------------------------------------------ */
int PANGEA_NAME(ctx_create)(long options, shmem_ctx_t *ctx);
int PANGEA_NAME(team_create_ctx)(shmem_team_t team, long options, shmem_ctx_t *ctx);
void PANGEA_NAME(ctx_destroy)(shmem_ctx_t ctx);
int PANGEA_NAME(ctx_get_team)(shmem_ctx_t ctx, shmem_team_t *team);
void PANGEA_NAME(ctx_session_start)(shmem_ctx_t ctx, long options,
                                    const shmem_ctx_session_config_t *config, long config_mask);
void PANGEA_NAME(ctx_session_stop)(shmem_ctx_t ctx);

/* ---- §3.6 RMA: typed (T-RMA), SIZE and mem forms, each with its ctx twin ------------------- */

/* put, get, put_nbi, get_nbi */
#define PANGEA_D_PUT(TYPE, TYPENAME)                                                          \
    void PANGEA_NAME(TYPENAME##_put)(TYPE * dest, const TYPE *source, size_t nelems, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_put)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source,  \
                                           size_t nelems, int pe);
#define PANGEA_D_GET(TYPE, TYPENAME)                                                          \
    void PANGEA_NAME(TYPENAME##_get)(TYPE * dest, const TYPE *source, size_t nelems, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_get)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source,  \
                                           size_t nelems, int pe);
#define PANGEA_D_PUT_NBI(TYPE, TYPENAME)                                                          \
    void PANGEA_NAME(TYPENAME##_put_nbi)(TYPE * dest, const TYPE *source, size_t nelems, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_put_nbi)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source,  \
                                               size_t nelems, int pe);
#define PANGEA_D_GET_NBI(TYPE, TYPENAME)                                                          \
    void PANGEA_NAME(TYPENAME##_get_nbi)(TYPE * dest, const TYPE *source, size_t nelems, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_get_nbi)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source,  \
                                               size_t nelems, int pe);
/* p, g */
#define PANGEA_D_P(TYPE, TYPENAME)                                   \
    void PANGEA_NAME(TYPENAME##_p)(TYPE * dest, TYPE value, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_p)(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe);
#define PANGEA_D_G(TYPE, TYPENAME)                              \
    TYPE PANGEA_NAME(TYPENAME##_g)(const TYPE *source, int pe); \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_g)(shmem_ctx_t ctx, const TYPE *source, int pe);
/* iput, iget */
#define PANGEA_D_IPUT(TYPE, TYPENAME)                                                         \
    void PANGEA_NAME(TYPENAME##_iput)(TYPE * dest, const TYPE *source, ptrdiff_t dst,         \
                                      ptrdiff_t sst, size_t nelems, int pe);                  \
    void PANGEA_NAME(ctx_##TYPENAME##_iput)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source, \
                                            ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
#define PANGEA_D_IGET(TYPE, TYPENAME)                                                         \
    void PANGEA_NAME(TYPENAME##_iget)(TYPE * dest, const TYPE *source, ptrdiff_t dst,         \
                                      ptrdiff_t sst, size_t nelems, int pe);                  \
    void PANGEA_NAME(ctx_##TYPENAME##_iget)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source, \
                                            ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);
/* ibput, ibget (1.6) */
#define PANGEA_D_IBPUT(TYPE, TYPENAME)                                                         \
    void PANGEA_NAME(TYPENAME##_ibput)(TYPE * dest, const TYPE *source, ptrdiff_t dst,         \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);   \
    void PANGEA_NAME(ctx_##TYPENAME##_ibput)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source, \
                                             ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                                             size_t nblocks, int pe);
#define PANGEA_D_IBGET(TYPE, TYPENAME)                                                         \
    void PANGEA_NAME(TYPENAME##_ibget)(TYPE * dest, const TYPE *source, ptrdiff_t dst,         \
                                       ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);   \
    void PANGEA_NAME(ctx_##TYPENAME##_ibget)(shmem_ctx_t ctx, TYPE * dest, const TYPE *source, \
                                             ptrdiff_t dst, ptrdiff_t sst, size_t bsize,       \
                                             size_t nblocks, int pe);
/* SIZE forms of all of the above except p and g: X(BITS, BYTES) */
#define PANGEA_D_RMA_SIZE(BITS, BYTES)                                                            \
    void PANGEA_NAME(put##BITS)(void *dest, const void *source, size_t nelems, int pe);           \
    void PANGEA_NAME(ctx_put##BITS)(shmem_ctx_t ctx, void *dest, const void *source,              \
                                    size_t nelems, int pe);                                       \
    void PANGEA_NAME(get##BITS)(void *dest, const void *source, size_t nelems, int pe);           \
    void PANGEA_NAME(ctx_get##BITS)(shmem_ctx_t ctx, void *dest, const void *source,              \
                                    size_t nelems, int pe);                                       \
    void PANGEA_NAME(put##BITS##_nbi)(void *dest, const void *source, size_t nelems, int pe);     \
    void PANGEA_NAME(ctx_put##BITS##_nbi)(shmem_ctx_t ctx, void *dest, const void *source,        \
                                          size_t nelems, int pe);                                 \
    void PANGEA_NAME(get##BITS##_nbi)(void *dest, const void *source, size_t nelems, int pe);     \
    void PANGEA_NAME(ctx_get##BITS##_nbi)(shmem_ctx_t ctx, void *dest, const void *source,        \
                                          size_t nelems, int pe);                                 \
    void PANGEA_NAME(iput##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                 size_t nelems, int pe);                                          \
    void PANGEA_NAME(ctx_iput##BITS)(shmem_ctx_t ctx, void *dest, const void *source,             \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void PANGEA_NAME(iget##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,    \
                                 size_t nelems, int pe);                                          \
    void PANGEA_NAME(ctx_iget##BITS)(shmem_ctx_t ctx, void *dest, const void *source,             \
                                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);        \
    void PANGEA_NAME(ibput##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                  size_t bsize, size_t nblocks, int pe);                          \
    void PANGEA_NAME(ctx_ibput##BITS)(shmem_ctx_t ctx, void *dest, const void *source,            \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                      int pe);                                                    \
    void PANGEA_NAME(ibget##BITS)(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                                  size_t bsize, size_t nblocks, int pe);                          \
    void PANGEA_NAME(ctx_ibget##BITS)(shmem_ctx_t ctx, void *dest, const void *source,            \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks, \
                                      int pe);

PANGEA_T_RMA(PANGEA_D_PUT)
PANGEA_T_RMA(PANGEA_D_P)
PANGEA_T_RMA(PANGEA_D_IPUT)
PANGEA_T_RMA(PANGEA_D_IBPUT)
PANGEA_T_RMA(PANGEA_D_GET)
PANGEA_T_RMA(PANGEA_D_G)
PANGEA_T_RMA(PANGEA_D_IGET)
PANGEA_T_RMA(PANGEA_D_IBGET)
PANGEA_T_RMA(PANGEA_D_PUT_NBI)
PANGEA_T_RMA(PANGEA_D_GET_NBI)
PANGEA_SIZES(PANGEA_D_RMA_SIZE)
/* mem forms (there is no iputmem, igetmem, ibputmem or ibgetmem) */
void PANGEA_NAME(putmem)(void *dest, const void *source, size_t nelems, int pe);
void PANGEA_NAME(ctx_putmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             int pe);
void PANGEA_NAME(getmem)(void *dest, const void *source, size_t nelems, int pe);
void PANGEA_NAME(ctx_getmem)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             int pe);
void PANGEA_NAME(putmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
void PANGEA_NAME(ctx_putmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 int pe);
void PANGEA_NAME(getmem_nbi)(void *dest, const void *source, size_t nelems, int pe);
void PANGEA_NAME(ctx_getmem_nbi)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 int pe);

/* ---- §3.7 AMO, blocking (shmem_[ctx_]TYPENAME_atomic_*) ------------------------------------ */
#define PANGEA_D_ATOMIC_FETCH(TYPE, TYPENAME)                              \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch)(const TYPE *source, int pe); \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch)(shmem_ctx_t ctx, const TYPE *source, int pe);
#define PANGEA_D_ATOMIC_SET(TYPE, TYPENAME)                                   \
    void PANGEA_NAME(TYPENAME##_atomic_set)(TYPE * dest, TYPE value, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_set)(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe);
#define PANGEA_D_ATOMIC_COMPARE_SWAP(TYPE, TYPENAME)                                              \
    TYPE PANGEA_NAME(TYPENAME##_atomic_compare_swap)(TYPE * dest, TYPE cond, TYPE value, int pe); \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_compare_swap)(shmem_ctx_t ctx, TYPE * dest,          \
                                                           TYPE cond, TYPE value, int pe);
#define PANGEA_D_ATOMIC_SWAP(TYPE, TYPENAME)                                                 \
    TYPE PANGEA_NAME(TYPENAME##_atomic_swap)(TYPE * dest, TYPE value, int pe);               \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_swap)(shmem_ctx_t ctx, TYPE * dest, TYPE value, \
                                                   int pe);
#define PANGEA_D_ATOMIC_FETCH_INC(TYPE, TYPENAME)                       \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch_inc)(TYPE * dest, int pe); \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_inc)(shmem_ctx_t ctx, TYPE * dest, int pe);
#define PANGEA_D_ATOMIC_INC(TYPE, TYPENAME)                       \
    void PANGEA_NAME(TYPENAME##_atomic_inc)(TYPE * dest, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_inc)(shmem_ctx_t ctx, TYPE * dest, int pe);
#define PANGEA_D_ATOMIC_FETCH_ADD(TYPE, TYPENAME)                                                 \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch_add)(TYPE * dest, TYPE value, int pe);               \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_add)(shmem_ctx_t ctx, TYPE * dest, TYPE value, \
                                                        int pe);
#define PANGEA_D_ATOMIC_ADD(TYPE, TYPENAME)                                   \
    void PANGEA_NAME(TYPENAME##_atomic_add)(TYPE * dest, TYPE value, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_add)(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe);
/* bitwise: fetch_and, and, fetch_or, or, fetch_xor, xor */
#define PANGEA_D_ATOMIC_BITWISE(TYPE, TYPENAME)                                                   \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch_and)(TYPE * dest, TYPE value, int pe);               \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_and)(shmem_ctx_t ctx, TYPE * dest, TYPE value, \
                                                        int pe);                                  \
    void PANGEA_NAME(TYPENAME##_atomic_and)(TYPE * dest, TYPE value, int pe);                     \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_and)(shmem_ctx_t ctx, TYPE * dest, TYPE value,       \
                                                  int pe);                                        \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch_or)(TYPE * dest, TYPE value, int pe);                \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_or)(shmem_ctx_t ctx, TYPE * dest, TYPE value,  \
                                                       int pe);                                   \
    void PANGEA_NAME(TYPENAME##_atomic_or)(TYPE * dest, TYPE value, int pe);                      \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_or)(shmem_ctx_t ctx, TYPE * dest, TYPE value,        \
                                                 int pe);                                         \
    TYPE PANGEA_NAME(TYPENAME##_atomic_fetch_xor)(TYPE * dest, TYPE value, int pe);               \
    TYPE PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_xor)(shmem_ctx_t ctx, TYPE * dest, TYPE value, \
                                                        int pe);                                  \
    void PANGEA_NAME(TYPENAME##_atomic_xor)(TYPE * dest, TYPE value, int pe);                     \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_xor)(shmem_ctx_t ctx, TYPE * dest, TYPE value, int pe);

PANGEA_T_AMO_EXT(PANGEA_D_ATOMIC_FETCH)
PANGEA_T_AMO_EXT(PANGEA_D_ATOMIC_SET)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_COMPARE_SWAP)
PANGEA_T_AMO_EXT(PANGEA_D_ATOMIC_SWAP)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_FETCH_INC)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_INC)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_FETCH_ADD)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_ADD)
PANGEA_T_AMO_BIT(PANGEA_D_ATOMIC_BITWISE)

/* ---- §3.7 AMO, nonblocking fetching (*_nbi, 1.5) ------------------------------------------- */
#define PANGEA_D_ATOMIC_FETCH_NBI(TYPE, TYPENAME)                                            \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_nbi)(TYPE * fetch, const TYPE *source, int pe); \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_nbi)(shmem_ctx_t ctx, TYPE * fetch,       \
                                                        const TYPE *source, int pe);
#define PANGEA_D_ATOMIC_COMPARE_SWAP_NBI(TYPE, TYPENAME)                                       \
    void PANGEA_NAME(TYPENAME##_atomic_compare_swap_nbi)(TYPE * fetch, TYPE * dest, TYPE cond, \
                                                         TYPE value, int pe);                  \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_compare_swap_nbi)(                                \
        shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, TYPE cond, TYPE value, int pe);
#define PANGEA_D_ATOMIC_SWAP_NBI(TYPE, TYPENAME)                                                   \
    void PANGEA_NAME(TYPENAME##_atomic_swap_nbi)(TYPE * fetch, TYPE * dest, TYPE value, int pe);   \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_swap_nbi)(shmem_ctx_t ctx, TYPE * fetch, TYPE * dest, \
                                                       TYPE value, int pe);
#define PANGEA_D_ATOMIC_FETCH_INC_NBI(TYPE, TYPENAME)                                      \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_inc_nbi)(TYPE * fetch, TYPE * dest, int pe);  \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_inc_nbi)(shmem_ctx_t ctx, TYPE * fetch, \
                                                            TYPE * dest, int pe);
#define PANGEA_D_ATOMIC_FETCH_ADD_NBI(TYPE, TYPENAME)                                        \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_add_nbi)(TYPE * fetch, TYPE * dest, TYPE value, \
                                                      int pe);                               \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_add_nbi)(shmem_ctx_t ctx, TYPE * fetch,   \
                                                            TYPE * dest, TYPE value, int pe);
/* bitwise: fetch_and_nbi, fetch_or_nbi, fetch_xor_nbi */
#define PANGEA_D_ATOMIC_BITWISE_NBI(TYPE, TYPENAME)                                           \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_and_nbi)(TYPE * fetch, TYPE * dest, TYPE value,  \
                                                      int pe);                                \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_and_nbi)(shmem_ctx_t ctx, TYPE * fetch,    \
                                                            TYPE * dest, TYPE value, int pe); \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_or_nbi)(TYPE * fetch, TYPE * dest, TYPE value,   \
                                                     int pe);                                 \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_or_nbi)(shmem_ctx_t ctx, TYPE * fetch,     \
                                                           TYPE * dest, TYPE value, int pe);  \
    void PANGEA_NAME(TYPENAME##_atomic_fetch_xor_nbi)(TYPE * fetch, TYPE * dest, TYPE value,  \
                                                      int pe);                                \
    void PANGEA_NAME(ctx_##TYPENAME##_atomic_fetch_xor_nbi)(shmem_ctx_t ctx, TYPE * fetch,    \
                                                            TYPE * dest, TYPE value, int pe);

PANGEA_T_AMO_EXT(PANGEA_D_ATOMIC_FETCH_NBI)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_COMPARE_SWAP_NBI)
PANGEA_T_AMO_EXT(PANGEA_D_ATOMIC_SWAP_NBI)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_FETCH_INC_NBI)
PANGEA_T_AMO_STD(PANGEA_D_ATOMIC_FETCH_ADD_NBI)
PANGEA_T_AMO_BIT(PANGEA_D_ATOMIC_BITWISE_NBI)

/* ---- §3.8 Signaling: put_signal[_nbi] (T-RMA, SIZE, mem) and signal-only operations -------- */
#define PANGEA_D_PUT_SIGNAL(TYPE, TYPENAME)                                                      \
    void PANGEA_NAME(TYPENAME##_put_signal)(TYPE * dest, const TYPE *source, size_t nelems,      \
                                            uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                            int pe);                                             \
    void PANGEA_NAME(ctx_##TYPENAME##_put_signal)(                                               \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,     \
        uint64_t signal, int sig_op, int pe);                                                    \
    void PANGEA_NAME(TYPENAME##_put_signal_nbi)(TYPE * dest, const TYPE *source, size_t nelems,  \
                                                uint64_t *sig_addr, uint64_t signal, int sig_op, \
                                                int pe);                                         \
    void PANGEA_NAME(ctx_##TYPENAME##_put_signal_nbi)(                                           \
        shmem_ctx_t ctx, TYPE * dest, const TYPE *source, size_t nelems, uint64_t *sig_addr,     \
        uint64_t signal, int sig_op, int pe);
#define PANGEA_D_PUT_SIGNAL_SIZE(BITS, BYTES)                                                      \
    void PANGEA_NAME(put##BITS##_signal)(void *dest, const void *source, size_t nelems,            \
                                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void PANGEA_NAME(ctx_put##BITS##_signal)(shmem_ctx_t ctx, void *dest, const void *source,      \
                                             size_t nelems, uint64_t *sig_addr, uint64_t signal,   \
                                             int sig_op, int pe);                                  \
    void PANGEA_NAME(put##BITS##_signal_nbi)(void *dest, const void *source, size_t nelems,        \
                                             uint64_t *sig_addr, uint64_t signal, int sig_op,      \
                                             int pe);                                              \
    void PANGEA_NAME(ctx_put##BITS##_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source,  \
                                                 size_t nelems, uint64_t *sig_addr,                \
                                                 uint64_t signal, int sig_op, int pe);

PANGEA_T_RMA(PANGEA_D_PUT_SIGNAL)
PANGEA_SIZES(PANGEA_D_PUT_SIGNAL_SIZE)
void PANGEA_NAME(putmem_signal)(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                                uint64_t signal, int sig_op, int pe);
void PANGEA_NAME(ctx_putmem_signal)(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void PANGEA_NAME(putmem_signal_nbi)(void *dest, const void *source, size_t nelems,
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void PANGEA_NAME(ctx_putmem_signal_nbi)(shmem_ctx_t ctx, void *dest, const void *source,
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,
                                        int sig_op, int pe);
void PANGEA_NAME(signal_add)(uint64_t *sig_addr, uint64_t signal, int pe);
void PANGEA_NAME(ctx_signal_add)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
void PANGEA_NAME(signal_set)(uint64_t *sig_addr, uint64_t signal, int pe);
void PANGEA_NAME(ctx_signal_set)(shmem_ctx_t ctx, uint64_t *sig_addr, uint64_t signal, int pe);
uint64_t PANGEA_NAME(signal_fetch)(const uint64_t *sig_addr);

/* ---- §3.10 Collectives --------------------------------------------------------------------- */
void PANGEA_NAME(barrier_all)(void);
void PANGEA_NAME(sync_all)(void);
int PANGEA_NAME(team_sync)(shmem_team_t team);

/* alltoall, alltoalls, broadcast, collect, fcollect: T-RMA and mem */
#define PANGEA_D_DATA_COLL(TYPE, TYPENAME)                                                    \
    int PANGEA_NAME(TYPENAME##_alltoall)(shmem_team_t team, TYPE * dest, const TYPE *source,  \
                                         size_t nelems);                                      \
    int PANGEA_NAME(TYPENAME##_alltoalls)(shmem_team_t team, TYPE * dest, const TYPE *source, \
                                          ptrdiff_t dst, ptrdiff_t sst, size_t nelems);       \
    int PANGEA_NAME(TYPENAME##_broadcast)(shmem_team_t team, TYPE * dest, const TYPE *source, \
                                          size_t nelems, int PE_root);                        \
    int PANGEA_NAME(TYPENAME##_collect)(shmem_team_t team, TYPE * dest, const TYPE *source,   \
                                        size_t nelems);                                       \
    int PANGEA_NAME(TYPENAME##_fcollect)(shmem_team_t team, TYPE * dest, const TYPE *source,  \
                                         size_t nelems);
PANGEA_T_RMA(PANGEA_D_DATA_COLL)
int PANGEA_NAME(alltoallmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int PANGEA_NAME(alltoallsmem)(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                              ptrdiff_t sst, size_t nelems);
int PANGEA_NAME(broadcastmem)(shmem_team_t team, void *dest, const void *source, size_t nelems,
                              int PE_root);
int PANGEA_NAME(collectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);
int PANGEA_NAME(fcollectmem)(shmem_team_t team, void *dest, const void *source, size_t nelems);

/* Reductions (T-RED-TEAM by operator) and scans (the SUM types) */
#define PANGEA_D_REDUCE(TYPE, TYPENAME, OP)                                                       \
    int PANGEA_NAME(TYPENAME##_##OP##_reduce)(shmem_team_t team, TYPE * dest, const TYPE *source, \
                                              size_t nreduce);
#define PANGEA_D_REDUCE_BIT(TYPE, TYPENAME) PANGEA_OPS_BIT(PANGEA_D_REDUCE, TYPE, TYPENAME)
#define PANGEA_D_REDUCE_MINMAX(TYPE, TYPENAME) PANGEA_OPS_MINMAX(PANGEA_D_REDUCE, TYPE, TYPENAME)
#define PANGEA_D_REDUCE_ARITH(TYPE, TYPENAME)                                                  \
    PANGEA_D_REDUCE(TYPE, TYPENAME, sum)                                                       \
    PANGEA_D_REDUCE(TYPE, TYPENAME, prod)                                                      \
    int PANGEA_NAME(TYPENAME##_sum_inscan)(shmem_team_t team, TYPE * dest, const TYPE *source, \
                                           size_t nelems);                                     \
    int PANGEA_NAME(TYPENAME##_sum_exscan)(shmem_team_t team, TYPE * dest, const TYPE *source, \
                                           size_t nelems);
PANGEA_T_RED_BIT(PANGEA_D_REDUCE_BIT)
PANGEA_T_RED_MINMAX(PANGEA_D_REDUCE_MINMAX)
PANGEA_T_RED_ARITH(PANGEA_D_REDUCE_ARITH)

/* ---- §3.11 Point-to-point synchronization -------------------------------------------------- */
/* wait_until, test: T-P2P (the short and ushort rows are deprecated since 1.5) */
#define PANGEA_D_WAIT_UNTIL_TEST(TYPE, TYPENAME)                                   \
    void PANGEA_NAME(TYPENAME##_wait_until)(TYPE * ivar, int cmp, TYPE cmp_value); \
    int PANGEA_NAME(TYPENAME##_test)(TYPE * ivar, int cmp, TYPE cmp_value);
/* multi-element forms (1.5): T-P2P as well */
#define PANGEA_D_WAIT_UNTIL_MULTI(TYPE, TYPENAME)                                                 \
    void PANGEA_NAME(TYPENAME##_wait_until_all)(TYPE * ivars, size_t nelems, const int *status,   \
                                                int cmp, TYPE cmp_value);                         \
    size_t PANGEA_NAME(TYPENAME##_wait_until_any)(TYPE * ivars, size_t nelems, const int *status, \
                                                  int cmp, TYPE cmp_value);                       \
    size_t PANGEA_NAME(TYPENAME##_wait_until_some)(TYPE * ivars, size_t nelems, size_t * indices, \
                                                   const int *status, int cmp, TYPE cmp_value);   \
    void PANGEA_NAME(TYPENAME##_wait_until_all_vector)(                                           \
        TYPE * ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values);         \
    size_t PANGEA_NAME(TYPENAME##_wait_until_any_vector)(                                         \
        TYPE * ivars, size_t nelems, const int *status, int cmp, const TYPE *cmp_values);         \
    size_t PANGEA_NAME(TYPENAME##_wait_until_some_vector)(TYPE * ivars, size_t nelems,            \
                                                          size_t * indices, const int *status,    \
                                                          int cmp, const TYPE *cmp_values);
#define PANGEA_D_TEST_MULTI(TYPE, TYPENAME)                                                        \
    int PANGEA_NAME(TYPENAME##_test_all)(TYPE * ivars, size_t nelems, const int *status, int cmp,  \
                                         TYPE cmp_value);                                          \
    size_t PANGEA_NAME(TYPENAME##_test_any)(TYPE * ivars, size_t nelems, const int *status,        \
                                            int cmp, TYPE cmp_value);                              \
    size_t PANGEA_NAME(TYPENAME##_test_some)(TYPE * ivars, size_t nelems, size_t * indices,        \
                                             const int *status, int cmp, TYPE cmp_value);          \
    int PANGEA_NAME(TYPENAME##_test_all_vector)(TYPE * ivars, size_t nelems, const int *status,    \
                                                int cmp, const TYPE *cmp_values);                  \
    size_t PANGEA_NAME(TYPENAME##_test_any_vector)(TYPE * ivars, size_t nelems, const int *status, \
                                                   int cmp, const TYPE *cmp_values);               \
    size_t PANGEA_NAME(TYPENAME##_test_some_vector)(TYPE * ivars, size_t nelems, size_t * indices, \
                                                    const int *status, int cmp,                    \
                                                    const TYPE *cmp_values);

PANGEA_T_P2P(PANGEA_D_WAIT_UNTIL_TEST)
PANGEA_T_P2P(PANGEA_D_WAIT_UNTIL_MULTI)
PANGEA_T_P2P(PANGEA_D_TEST_MULTI)
uint64_t PANGEA_NAME(signal_wait_until)(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- §3.12 Memory ordering ----------------------------------------------------------------- */
void PANGEA_NAME(fence)(void);
void PANGEA_NAME(ctx_fence)(shmem_ctx_t ctx);
void PANGEA_NAME(quiet)(void);
void PANGEA_NAME(ctx_quiet)(shmem_ctx_t ctx);
void PANGEA_NAME(pe_quiet)(const int *target_pes, size_t npes);
void PANGEA_NAME(ctx_pe_quiet)(shmem_ctx_t ctx, const int *target_pes, size_t npes);

/* ---- §3.13 Distributed locking ------------------------------------------------------------- */
void PANGEA_NAME(set_lock)(long *lock);
int PANGEA_NAME(test_lock)(long *lock);
void PANGEA_NAME(clear_lock)(long *lock);

/* ---- §3.14 Profiling control --------------------------------------------------------------- */
void PANGEA_NAME(pcontrol)(int level, ...);

/* ---- §4.2 Deprecated active-set collectives (pSync, pWrk) --------------------------------- */
void PANGEA_NAME(barrier)(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* Also the name of the C11 generic shmem_sync(team) (shmem.h dispatches on the arity). */
void PANGEA_NAME(sync)(int PE_start, int logPE_stride, int PE_size, long *pSync);
#define PANGEA_D_ASET_DATA(BITS, BYTES)                                                           \
    void PANGEA_NAME(broadcast##BITS)(void *dest, const void *source, size_t nelems, int PE_root, \
                                      int PE_start, int logPE_stride, int PE_size, long *pSync);  \
    void PANGEA_NAME(collect##BITS)(void *dest, const void *source, size_t nelems, int PE_start,  \
                                    int logPE_stride, int PE_size, long *pSync);                  \
    void PANGEA_NAME(fcollect##BITS)(void *dest, const void *source, size_t nelems, int PE_start, \
                                     int logPE_stride, int PE_size, long *pSync);                 \
    void PANGEA_NAME(alltoall##BITS)(void *dest, const void *source, size_t nelems, int PE_start, \
                                     int logPE_stride, int PE_size, long *pSync);                 \
    void PANGEA_NAME(alltoalls##BITS)(void *dest, const void *source, ptrdiff_t dst,              \
                                      ptrdiff_t sst, size_t nelems, int PE_start,                 \
                                      int logPE_stride, int PE_size, long *pSync);
PANGEA_ASET_SIZES(PANGEA_D_ASET_DATA)
#define PANGEA_D_TO_ALL(TYPE, TYPENAME, OP)                                                  \
    void PANGEA_NAME(TYPENAME##_##OP##_to_all)(TYPE * dest, const TYPE *source, int nreduce, \
                                               int PE_start, int logPE_stride, int PE_size,  \
                                               TYPE *pWrk, long *pSync);
#define PANGEA_D_TO_ALL_BIT(TYPE, TYPENAME) PANGEA_OPS_BIT(PANGEA_D_TO_ALL, TYPE, TYPENAME)
#define PANGEA_D_TO_ALL_MINMAX(TYPE, TYPENAME) PANGEA_OPS_MINMAX(PANGEA_D_TO_ALL, TYPE, TYPENAME)
#define PANGEA_D_TO_ALL_ARITH(TYPE, TYPENAME) PANGEA_OPS_ARITH(PANGEA_D_TO_ALL, TYPE, TYPENAME)
PANGEA_T_ASET_BIT(PANGEA_D_TO_ALL_BIT)
PANGEA_T_ASET_MINMAX(PANGEA_D_TO_ALL_MINMAX)
PANGEA_T_ASET_ARITH(PANGEA_D_TO_ALL_ARITH)

/* ---- §4.5 Cache management (removed in 1.5): no-ops, declared only on request --------------- */
#ifdef PANGEA_SHMEM_CACHE_ROUTINES
void PANGEA_NAME(clear_cache_inv)(void);
void PANGEA_NAME(set_cache_inv)(void);
void PANGEA_NAME(clear_cache_line_inv)(void *dest);
void PANGEA_NAME(set_cache_line_inv)(void *dest);
void PANGEA_NAME(udcflush)(void);
void PANGEA_NAME(udcflush_line)(void *dest);
#endif

/* ---- §4.3 Deprecated AMO names (no ctx form) ----------------------------------------------- */
/* fetch, set, swap: float, double, int, long, longlong */
#define PANGEA_D_DEP_AMO_EXT(TYPE, TYPENAME)                           \
    TYPE PANGEA_NAME(TYPENAME##_fetch)(const TYPE *source, int pe);    \
    void PANGEA_NAME(TYPENAME##_set)(TYPE * dest, TYPE value, int pe); \
    TYPE PANGEA_NAME(TYPENAME##_swap)(TYPE * dest, TYPE value, int pe);
/* cswap, finc, inc, fadd, add: int, long, longlong */
#define PANGEA_D_DEP_AMO(TYPE, TYPENAME)                                            \
    TYPE PANGEA_NAME(TYPENAME##_cswap)(TYPE * dest, TYPE cond, TYPE value, int pe); \
    TYPE PANGEA_NAME(TYPENAME##_finc)(TYPE * dest, int pe);                         \
    void PANGEA_NAME(TYPENAME##_inc)(TYPE * dest, int pe);                          \
    TYPE PANGEA_NAME(TYPENAME##_fadd)(TYPE * dest, TYPE value, int pe);             \
    void PANGEA_NAME(TYPENAME##_add)(TYPE * dest, TYPE value, int pe);

PANGEA_T_DEP_AMO_EXT(PANGEA_D_DEP_AMO_EXT)
PANGEA_T_DEP_AMO(PANGEA_D_DEP_AMO)

/* ---- §4.4 Deprecated waits ----------------------------------------------------------------- */
#define PANGEA_D_DEP_WAIT(TYPE, TYPENAME) \
    void PANGEA_NAME(TYPENAME##_wait)(TYPE * ivar, TYPE cmp_value);

void PANGEA_NAME(wait)(long *ivar, long cmp_value);
PANGEA_T_DEP_WAIT(PANGEA_D_DEP_WAIT)
/* Also the name of the C11 generic (shmem.h defines that macro after this declaration). */
void PANGEA_NAME(wait_until)(long *ivar, int cmp, long cmp_value);

#undef PANGEA_D_PUT
#undef PANGEA_D_GET
#undef PANGEA_D_PUT_NBI
#undef PANGEA_D_GET_NBI
#undef PANGEA_D_P
#undef PANGEA_D_G
#undef PANGEA_D_IPUT
#undef PANGEA_D_IGET
#undef PANGEA_D_IBPUT
#undef PANGEA_D_IBGET
#undef PANGEA_D_RMA_SIZE
#undef PANGEA_D_ATOMIC_FETCH
#undef PANGEA_D_ATOMIC_SET
#undef PANGEA_D_ATOMIC_COMPARE_SWAP
#undef PANGEA_D_ATOMIC_SWAP
#undef PANGEA_D_ATOMIC_FETCH_INC
#undef PANGEA_D_ATOMIC_INC
#undef PANGEA_D_ATOMIC_FETCH_ADD
#undef PANGEA_D_ATOMIC_ADD
#undef PANGEA_D_ATOMIC_BITWISE
#undef PANGEA_D_ATOMIC_FETCH_NBI
#undef PANGEA_D_ATOMIC_COMPARE_SWAP_NBI
#undef PANGEA_D_ATOMIC_SWAP_NBI
#undef PANGEA_D_ATOMIC_FETCH_INC_NBI
#undef PANGEA_D_ATOMIC_FETCH_ADD_NBI
#undef PANGEA_D_ATOMIC_BITWISE_NBI
#undef PANGEA_D_PUT_SIGNAL
#undef PANGEA_D_PUT_SIGNAL_SIZE
#undef PANGEA_D_WAIT_UNTIL_TEST
#undef PANGEA_D_WAIT_UNTIL_MULTI
#undef PANGEA_D_TEST_MULTI
#undef PANGEA_D_DEP_AMO_EXT
#undef PANGEA_D_DEP_AMO
#undef PANGEA_D_DEP_WAIT
#undef PANGEA_D_DATA_COLL
#undef PANGEA_D_REDUCE
#undef PANGEA_D_REDUCE_BIT
#undef PANGEA_D_REDUCE_MINMAX
#undef PANGEA_D_REDUCE_ARITH
#undef PANGEA_D_ASET_DATA
#undef PANGEA_D_TO_ALL
#undef PANGEA_D_TO_ALL_BIT
#undef PANGEA_D_TO_ALL_MINMAX
#undef PANGEA_D_TO_ALL_ARITH
