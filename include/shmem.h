/* Pangea: the OpenSHMEM 1.6 C/C++ interface.
 *
 * Interface checklist: shared/spec/openshmem-api.md (section numbers § below refer to it).
 * The function prototypes live in pangea_shmem_decls.h, which this header includes with the
 * shmem_ prefix (pshmem.h includes it again with pshmem_). Typed families expand from the type
 * tables of pangea_shmem_tables.h. Names other than the specification's use the PANGEA_ or
 * pangea_ prefix. */
#ifndef PANGEA_SHMEM_H
#define PANGEA_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#include "pangea_shmem_tables.h"

/* ---- §1.1 Library constants ---------------------------------------------------------------- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define SHMEM_MAX_NAME_LEN 64
#define SHMEM_VENDOR_STRING "Pangea 0.1"

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* Context options (the long options argument of context creation). */
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)

/* Team config_mask bit. */
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Session config_mask bit and session option. */
#define SHMEM_CTX_SESSION_TOTAL_OPS (1L << 0)
#define SHMEM_CTX_SESSION_BATCH (1L << 0)

/* shmem_malloc_with_hints hints (0 means plain shmem_malloc). */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)

/* pSync/pWrk of the active-set collectives (deprecated since 1.5). */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_BARRIER_SYNC_SIZE 4
#define SHMEM_BCAST_SYNC_SIZE 8
#define SHMEM_COLLECT_SYNC_SIZE 8
#define SHMEM_REDUCE_SYNC_SIZE 8
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 4
#define SHMEM_ALLTOALL_SYNC_SIZE 8
#define SHMEM_ALLTOALLS_SYNC_SIZE 8
#define SHMEM_SYNC_SIZE 8 /* the largest of the *_SYNC_SIZE above */

/* Legacy _SHMEM_ aliases (deprecated since 1.3, still required). */
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE

#ifdef __cplusplus
extern "C" {
#endif

/* ---- §0 Types and §1.2 handles ------------------------------------------------------------- */
typedef struct pangea_ctx *shmem_ctx_t;
typedef struct pangea_team *shmem_team_t;

typedef struct {
    int num_contexts;
} shmem_team_config_t;

typedef struct {
    size_t total_ops;
} shmem_ctx_session_config_t;

extern struct pangea_ctx pangea_ctx_default;
extern struct pangea_team pangea_team_world, pangea_team_shared;

#define SHMEM_CTX_DEFAULT (&pangea_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_TEAM_WORLD (&pangea_team_world)
#define SHMEM_TEAM_SHARED (&pangea_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)

/* ---- Prototypes ---------------------------------------------------------------------------- */

/* Two-level paste: the operands are macro-expanded before they are joined. */
#define PANGEA_PASTE(a, b) PANGEA_PASTE_(a, b)
#define PANGEA_PASTE_(a, b) a##b

/* shmem_global_exit never returns (_Noreturn in C11, §3.1). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PANGEA_NORETURN _Noreturn
#elif defined(__GNUC__)
#define PANGEA_NORETURN __attribute__((noreturn))
#else
#define PANGEA_NORETURN
#endif

#define PANGEA_NAME(s) PANGEA_PASTE(shmem_, s)
#include "pangea_shmem_decls.h"
#undef PANGEA_NAME

/* Old codes that still call the cache-management routines removed in 1.5 (shmem_udcflush,
 * shmem_set_cache_inv, ...) define PANGEA_SHMEM_CACHE_ROUTINES before including this header:
 * the library keeps them as the no-ops they always were allowed to be. */

/* ---- §4.1 Deprecated startup, query and allocation names (no shmem_ prefix, no pshmem_ twin) */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
void *shmalloc(size_t size);
void shfree(void *ptr);
void *shrealloc(void *ptr, size_t size);
void *shmemalign(size_t alignment, size_t size);

/* ---- C11 type-generic interfaces ------------------------------------------------------------
 *
 * Each generic name is a macro that picks a typed function with _Generic on its first typed
 * argument (dest, source, fetch or ivar[s]) and calls it with the same arguments. The
 * associations use the distinct C base types (the *_BASE tables), so int32_t, size_t, ... select
 * the function of the base type they name, which has the same representation. Where the
 * prototype takes const TYPE * (g, atomic_fetch, fetch), both TYPE * and const TYPE * select it.
 *
 * A ctx-overloaded name first tests whether its first argument is a shmem_ctx_t: then the typed
 * argument is the second one and a shmem_ctx_ function is called. Both branches must compile for
 * every call, so each inner selection has a default that picks pangea_generic_no_match, which is
 * declared but never defined: calling it with arguments does not compile, so an unsupported type
 * is a compile-time error. Generic names have no pshmem_ form (§3.14). */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L

void pangea_generic_no_match(void);

/* The first and second argument of a list (the ~ keeps ISO C's "..." non-empty). */
#define PANGEA_G_ARG0(...) PANGEA_G_ARG0_(__VA_ARGS__, ~)
#define PANGEA_G_ARG0_(a0, ...) a0
#define PANGEA_G_ARG1(...) PANGEA_G_ARG1_(__VA_ARGS__, ~, ~)
#define PANGEA_G_ARG1_(a0, a1, ...) a1

/* _Generic on e with the associations ASSOC(TYPE, TYPENAME) for every row of the type table
 * of generic name FAM (PANGEA_GT_##FAM, pangea_shmem_tables.h). */
#define PANGEA_G_SELECT(FAM, ASSOC, e) \
    _Generic((e), PANGEA_GT_##FAM(ASSOC) default : pangea_generic_no_match)

/* A generic name without ctx overload: FAM is the family, PANGEA_GA_##FAM its associations. */
#define PANGEA_G_PLAIN(FAM, ...) \
    PANGEA_G_SELECT(FAM, PANGEA_GA_##FAM, PANGEA_G_ARG0(__VA_ARGS__))(__VA_ARGS__)

/* A ctx-overloaded generic name: PANGEA_GA_ctx_##FAM are the associations of the ctx forms. */
/* clang-format off */
#define PANGEA_G_CTX(FAM, ...)                                                                     \
    _Generic((PANGEA_G_ARG0(__VA_ARGS__)),                                                         \
        shmem_ctx_t: PANGEA_G_SELECT(FAM, PANGEA_GA_ctx_##FAM, PANGEA_G_ARG1(__VA_ARGS__)),        \
        default: PANGEA_G_SELECT(FAM, PANGEA_GA_##FAM, PANGEA_G_ARG0(__VA_ARGS__)))(__VA_ARGS__)
/* clang-format on */

/* Dispatch by arity: PANGEA_G_ARITY34(args, F4, F3, ~) is F3 for 3 args and F4 for 4 args. */
#define PANGEA_G_ARITY34(a1, a2, a3, a4, NAME, ...) NAME

/* §3.6 RMA: put, p, iput, ibput, get, g, iget, ibget, put_nbi, get_nbi (T-RMA, ctx-overload) */
#define PANGEA_GA_put(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_put,
#define PANGEA_GA_ctx_put(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_put,
#define shmem_put(...) PANGEA_G_CTX(put, __VA_ARGS__)

#define PANGEA_GA_p(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_p,
#define PANGEA_GA_ctx_p(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_p,
#define shmem_p(...) PANGEA_G_CTX(p, __VA_ARGS__)

#define PANGEA_GA_iput(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_iput,
#define PANGEA_GA_ctx_iput(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_iput,
#define shmem_iput(...) PANGEA_G_CTX(iput, __VA_ARGS__)

#define PANGEA_GA_ibput(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_ibput,
#define PANGEA_GA_ctx_ibput(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_ibput,
#define shmem_ibput(...) PANGEA_G_CTX(ibput, __VA_ARGS__)

#define PANGEA_GA_get(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_get,
#define PANGEA_GA_ctx_get(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_get,
#define shmem_get(...) PANGEA_G_CTX(get, __VA_ARGS__)

#define PANGEA_GA_g(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_g, const TYPE * : shmem_##TYPENAME##_g,
#define PANGEA_GA_ctx_g(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_g, const TYPE * : shmem_ctx_##TYPENAME##_g,
#define shmem_g(...) PANGEA_G_CTX(g, __VA_ARGS__)

#define PANGEA_GA_iget(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_iget,
#define PANGEA_GA_ctx_iget(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_iget,
#define shmem_iget(...) PANGEA_G_CTX(iget, __VA_ARGS__)

#define PANGEA_GA_ibget(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_ibget,
#define PANGEA_GA_ctx_ibget(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_ibget,
#define shmem_ibget(...) PANGEA_G_CTX(ibget, __VA_ARGS__)

#define PANGEA_GA_put_nbi(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_put_nbi,
#define PANGEA_GA_ctx_put_nbi(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_put_nbi,
#define shmem_put_nbi(...) PANGEA_G_CTX(put_nbi, __VA_ARGS__)

#define PANGEA_GA_get_nbi(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_get_nbi,
#define PANGEA_GA_ctx_get_nbi(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_get_nbi,
#define shmem_get_nbi(...) PANGEA_G_CTX(get_nbi, __VA_ARGS__)

/* §3.7 AMO, blocking: shmem_atomic_* (ctx-overload) */
#define PANGEA_GA_atomic_fetch(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch, const TYPE * : shmem_##TYPENAME##_atomic_fetch,
#define PANGEA_GA_ctx_atomic_fetch(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch,  \
             const TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch,
#define shmem_atomic_fetch(...) PANGEA_G_CTX(atomic_fetch, __VA_ARGS__)

#define PANGEA_GA_atomic_set(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_set,
#define PANGEA_GA_ctx_atomic_set(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_set,
#define shmem_atomic_set(...) PANGEA_G_CTX(atomic_set, __VA_ARGS__)

#define PANGEA_GA_atomic_compare_swap(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_compare_swap,
#define PANGEA_GA_ctx_atomic_compare_swap(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_compare_swap,
#define shmem_atomic_compare_swap(...) PANGEA_G_CTX(atomic_compare_swap, __VA_ARGS__)

#define PANGEA_GA_atomic_swap(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_swap,
#define PANGEA_GA_ctx_atomic_swap(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_swap,
#define shmem_atomic_swap(...) PANGEA_G_CTX(atomic_swap, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_inc(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_inc,
#define PANGEA_GA_ctx_atomic_fetch_inc(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_inc,
#define shmem_atomic_fetch_inc(...) PANGEA_G_CTX(atomic_fetch_inc, __VA_ARGS__)

#define PANGEA_GA_atomic_inc(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_inc,
#define PANGEA_GA_ctx_atomic_inc(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_inc,
#define shmem_atomic_inc(...) PANGEA_G_CTX(atomic_inc, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_add(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_add,
#define PANGEA_GA_ctx_atomic_fetch_add(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_add,
#define shmem_atomic_fetch_add(...) PANGEA_G_CTX(atomic_fetch_add, __VA_ARGS__)

#define PANGEA_GA_atomic_add(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_add,
#define PANGEA_GA_ctx_atomic_add(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_add,
#define shmem_atomic_add(...) PANGEA_G_CTX(atomic_add, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_and(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_and,
#define PANGEA_GA_ctx_atomic_fetch_and(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_and,
#define shmem_atomic_fetch_and(...) PANGEA_G_CTX(atomic_fetch_and, __VA_ARGS__)

#define PANGEA_GA_atomic_and(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_and,
#define PANGEA_GA_ctx_atomic_and(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_and,
#define shmem_atomic_and(...) PANGEA_G_CTX(atomic_and, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_or(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_or,
#define PANGEA_GA_ctx_atomic_fetch_or(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_or,
#define shmem_atomic_fetch_or(...) PANGEA_G_CTX(atomic_fetch_or, __VA_ARGS__)

#define PANGEA_GA_atomic_or(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_or,
#define PANGEA_GA_ctx_atomic_or(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_or,
#define shmem_atomic_or(...) PANGEA_G_CTX(atomic_or, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_xor(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_xor,
#define PANGEA_GA_ctx_atomic_fetch_xor(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_xor,
#define shmem_atomic_fetch_xor(...) PANGEA_G_CTX(atomic_fetch_xor, __VA_ARGS__)

#define PANGEA_GA_atomic_xor(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_xor,
#define PANGEA_GA_ctx_atomic_xor(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_atomic_xor,
#define shmem_atomic_xor(...) PANGEA_G_CTX(atomic_xor, __VA_ARGS__)

/* §3.7 AMO, nonblocking fetching: shmem_atomic_*_nbi (ctx-overload; dispatch on fetch) */
#define PANGEA_GA_atomic_fetch_nbi(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_fetch_nbi,
#define PANGEA_GA_ctx_atomic_fetch_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_nbi,
#define shmem_atomic_fetch_nbi(...) PANGEA_G_CTX(atomic_fetch_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_compare_swap_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_compare_swap_nbi,
#define PANGEA_GA_ctx_atomic_compare_swap_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_compare_swap_nbi,
#define shmem_atomic_compare_swap_nbi(...) PANGEA_G_CTX(atomic_compare_swap_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_swap_nbi(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_atomic_swap_nbi,
#define PANGEA_GA_ctx_atomic_swap_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_swap_nbi,
#define shmem_atomic_swap_nbi(...) PANGEA_G_CTX(atomic_swap_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_inc_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch_inc_nbi,
#define PANGEA_GA_ctx_atomic_fetch_inc_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_inc_nbi,
#define shmem_atomic_fetch_inc_nbi(...) PANGEA_G_CTX(atomic_fetch_inc_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_add_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch_add_nbi,
#define PANGEA_GA_ctx_atomic_fetch_add_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_add_nbi,
#define shmem_atomic_fetch_add_nbi(...) PANGEA_G_CTX(atomic_fetch_add_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_and_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch_and_nbi,
#define PANGEA_GA_ctx_atomic_fetch_and_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_and_nbi,
#define shmem_atomic_fetch_and_nbi(...) PANGEA_G_CTX(atomic_fetch_and_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_or_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch_or_nbi,
#define PANGEA_GA_ctx_atomic_fetch_or_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_or_nbi,
#define shmem_atomic_fetch_or_nbi(...) PANGEA_G_CTX(atomic_fetch_or_nbi, __VA_ARGS__)

#define PANGEA_GA_atomic_fetch_xor_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_atomic_fetch_xor_nbi,
#define PANGEA_GA_ctx_atomic_fetch_xor_nbi(TYPE, TYPENAME) \
    TYPE * : shmem_ctx_##TYPENAME##_atomic_fetch_xor_nbi,
#define shmem_atomic_fetch_xor_nbi(...) PANGEA_G_CTX(atomic_fetch_xor_nbi, __VA_ARGS__)

/* §3.8 Signaling: put_signal, put_signal_nbi (T-RMA, ctx-overload) */
#define PANGEA_GA_put_signal(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_put_signal,
#define PANGEA_GA_ctx_put_signal(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_put_signal,
#define shmem_put_signal(...) PANGEA_G_CTX(put_signal, __VA_ARGS__)

#define PANGEA_GA_put_signal_nbi(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_put_signal_nbi,
#define PANGEA_GA_ctx_put_signal_nbi(TYPE, TYPENAME) TYPE * : shmem_ctx_##TYPENAME##_put_signal_nbi,
#define shmem_put_signal_nbi(...) PANGEA_G_CTX(put_signal_nbi, __VA_ARGS__)

/* §3.8 Signaling: signal_add, signal_set (by arity: 3 arguments call the function of the same
 * name, 4 arguments the shmem_ctx_ form; inside its own expansion the name is not a macro) */
#define shmem_signal_add(...) \
    PANGEA_G_ARITY34(__VA_ARGS__, shmem_ctx_signal_add, shmem_signal_add, ~)(__VA_ARGS__)
#define shmem_signal_set(...) \
    PANGEA_G_ARITY34(__VA_ARGS__, shmem_ctx_signal_set, shmem_signal_set, ~)(__VA_ARGS__)

/* §3.11 Point-to-point: wait_until, test (T-P2P; shmem_wait_until(long *, int, long) is also
 * the function declared above, and long * selects the equivalent shmem_long_wait_until) */
#define PANGEA_GA_wait_until(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_wait_until,
#define shmem_wait_until(...) PANGEA_G_PLAIN(wait_until, __VA_ARGS__)

#define PANGEA_GA_test(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test,
#define shmem_test(...) PANGEA_G_PLAIN(test, __VA_ARGS__)

/* §3.11 Point-to-point: wait_until_{all,any,some}[_vector] (T-P2P; dispatch on ivars) */
#define PANGEA_GA_wait_until_all(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_wait_until_all,
#define shmem_wait_until_all(...) PANGEA_G_PLAIN(wait_until_all, __VA_ARGS__)

#define PANGEA_GA_wait_until_any(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_wait_until_any,
#define shmem_wait_until_any(...) PANGEA_G_PLAIN(wait_until_any, __VA_ARGS__)

#define PANGEA_GA_wait_until_some(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_wait_until_some,
#define shmem_wait_until_some(...) PANGEA_G_PLAIN(wait_until_some, __VA_ARGS__)

#define PANGEA_GA_wait_until_all_vector(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_wait_until_all_vector,
#define shmem_wait_until_all_vector(...) PANGEA_G_PLAIN(wait_until_all_vector, __VA_ARGS__)

#define PANGEA_GA_wait_until_any_vector(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_wait_until_any_vector,
#define shmem_wait_until_any_vector(...) PANGEA_G_PLAIN(wait_until_any_vector, __VA_ARGS__)

#define PANGEA_GA_wait_until_some_vector(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_wait_until_some_vector,
#define shmem_wait_until_some_vector(...) PANGEA_G_PLAIN(wait_until_some_vector, __VA_ARGS__)

/* §3.11 Point-to-point: test_{all,any,some}[_vector] (T-P2P; dispatch on ivars) */
#define PANGEA_GA_test_all(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_all,
#define shmem_test_all(...) PANGEA_G_PLAIN(test_all, __VA_ARGS__)

#define PANGEA_GA_test_any(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_any,
#define shmem_test_any(...) PANGEA_G_PLAIN(test_any, __VA_ARGS__)

#define PANGEA_GA_test_some(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_some,
#define shmem_test_some(...) PANGEA_G_PLAIN(test_some, __VA_ARGS__)

#define PANGEA_GA_test_all_vector(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_all_vector,
#define shmem_test_all_vector(...) PANGEA_G_PLAIN(test_all_vector, __VA_ARGS__)

#define PANGEA_GA_test_any_vector(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_any_vector,
#define shmem_test_any_vector(...) PANGEA_G_PLAIN(test_any_vector, __VA_ARGS__)

#define PANGEA_GA_test_some_vector(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_test_some_vector,
#define shmem_test_some_vector(...) PANGEA_G_PLAIN(test_some_vector, __VA_ARGS__)

/* §4.3 Deprecated AMO generics: fetch, set, swap (float, double, int, long, long long) */
#define PANGEA_GA_fetch(TYPE, TYPENAME) \
    TYPE * : shmem_##TYPENAME##_fetch, const TYPE * : shmem_##TYPENAME##_fetch,
#define shmem_fetch(...) PANGEA_G_PLAIN(fetch, __VA_ARGS__)

#define PANGEA_GA_set(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_set,
#define shmem_set(...) PANGEA_G_PLAIN(set, __VA_ARGS__)

#define PANGEA_GA_swap(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_swap,
#define shmem_swap(...) PANGEA_G_PLAIN(swap, __VA_ARGS__)

/* §4.3 Deprecated AMO generics: cswap, finc, inc, fadd, add (int, long, long long) */
#define PANGEA_GA_cswap(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_cswap,
#define shmem_cswap(...) PANGEA_G_PLAIN(cswap, __VA_ARGS__)

#define PANGEA_GA_finc(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_finc,
#define shmem_finc(...) PANGEA_G_PLAIN(finc, __VA_ARGS__)

#define PANGEA_GA_inc(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_inc,
#define shmem_inc(...) PANGEA_G_PLAIN(inc, __VA_ARGS__)

#define PANGEA_GA_fadd(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_fadd,
#define shmem_fadd(...) PANGEA_G_PLAIN(fadd, __VA_ARGS__)

#define PANGEA_GA_add(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_add,
#define shmem_add(...) PANGEA_G_PLAIN(add, __VA_ARGS__)

/* §3.10 Collectives: data collectives on T-RMA, reductions on T-RED-TEAM (dispatch on dest,
 * the second argument) */
#define PANGEA_G_ON_DEST(FAM, ...) \
    PANGEA_G_SELECT(FAM, PANGEA_GA_##FAM, PANGEA_G_ARG1(__VA_ARGS__))(__VA_ARGS__)

#define PANGEA_GA_alltoall(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_alltoall,
#define shmem_alltoall(...) PANGEA_G_ON_DEST(alltoall, __VA_ARGS__)
#define PANGEA_GA_alltoalls(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_alltoalls,
#define shmem_alltoalls(...) PANGEA_G_ON_DEST(alltoalls, __VA_ARGS__)
#define PANGEA_GA_broadcast(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_broadcast,
#define shmem_broadcast(...) PANGEA_G_ON_DEST(broadcast, __VA_ARGS__)
#define PANGEA_GA_collect(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_collect,
#define shmem_collect(...) PANGEA_G_ON_DEST(collect, __VA_ARGS__)
#define PANGEA_GA_fcollect(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_fcollect,
#define shmem_fcollect(...) PANGEA_G_ON_DEST(fcollect, __VA_ARGS__)

#define PANGEA_GA_and_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_and_reduce,
#define shmem_and_reduce(...) PANGEA_G_ON_DEST(and_reduce, __VA_ARGS__)
#define PANGEA_GA_or_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_or_reduce,
#define shmem_or_reduce(...) PANGEA_G_ON_DEST(or_reduce, __VA_ARGS__)
#define PANGEA_GA_xor_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_xor_reduce,
#define shmem_xor_reduce(...) PANGEA_G_ON_DEST(xor_reduce, __VA_ARGS__)
#define PANGEA_GA_max_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_max_reduce,
#define shmem_max_reduce(...) PANGEA_G_ON_DEST(max_reduce, __VA_ARGS__)
#define PANGEA_GA_min_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_min_reduce,
#define shmem_min_reduce(...) PANGEA_G_ON_DEST(min_reduce, __VA_ARGS__)
#define PANGEA_GA_sum_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_sum_reduce,
#define shmem_sum_reduce(...) PANGEA_G_ON_DEST(sum_reduce, __VA_ARGS__)
#define PANGEA_GA_prod_reduce(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_prod_reduce,
#define shmem_prod_reduce(...) PANGEA_G_ON_DEST(prod_reduce, __VA_ARGS__)
#define PANGEA_GA_sum_inscan(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_sum_inscan,
#define shmem_sum_inscan(...) PANGEA_G_ON_DEST(sum_inscan, __VA_ARGS__)
#define PANGEA_GA_sum_exscan(TYPE, TYPENAME) TYPE * : shmem_##TYPENAME##_sum_exscan,
#define shmem_sum_exscan(...) PANGEA_G_ON_DEST(sum_exscan, __VA_ARGS__)

/* shmem_sync(team) is shmem_team_sync; the 4-argument form is the active-set function. */
#define PANGEA_G_ARITY14(a1, a2, a3, a4, NAME, ...) NAME
#define shmem_sync(...) \
    PANGEA_G_ARITY14(__VA_ARGS__, shmem_sync, ~, ~, shmem_team_sync, ~)(__VA_ARGS__)

#endif /* C11 generics */

#ifdef __cplusplus
}
#endif

/* C++: the type-generic names as overloads, from the same type tables. */
#ifdef __cplusplus
#include "pangea_shmem_cxx.h"
#endif

#endif /* PANGEA_SHMEM_H */
