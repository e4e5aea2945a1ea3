/* Helpers shared by the multi-PE OpenSHMEM tests (header-only).
 *
 * - CHECK(cond, fmt, ...) records a failure (PE, file, line, condition, message) and continues.
 * - check_finish() aggregates the failure counts of all PEs on PE 0 (a symmetric counter and an
 *   atomic add), prints "PASS name" or "FAIL name (k failures)" on PE 0 and returns the exit
 *   code, non-zero on every PE when any PE failed. It is collective and must be called before
 *   the last shmem_finalize.
 * - Value patterns (TEST_VAL, test_fill_bytes/test_bad_byte), guard regions (test_fill_guard,
 *   test_bad_guard), a seeded PRNG, timing helpers, and (spec_types.h) the type tables of the
 *   specification as X-macros (TEST_T_RMA, TEST_T_AMO_STD, ...), each entry X(TYPE, TYPENAME).
 *
 * It compiles as C and as C++ (the C++ tests use it too). Only the standard OpenSHMEM API is
 * used. Programs must not define names starting with
 * "shmem", so everything here is prefixed check_ or test_. */
#ifndef PANGEA_TESTS_CHECK_H
#define PANGEA_TESTS_CHECK_H

/* POSIX calls (clock_gettime, nanosleep, gethostname) under -std=c11: include this header first. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <shmem.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__)
#define TEST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TEST_UNUSED __attribute__((unused))
#else
#define TEST_PRINTF(f, a)
#define TEST_UNUSED
#endif

/* Tests that exercise deprecated calls on purpose put this before their code. */
#define TEST_ALLOW_DEPRECATED _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")

/* ---- Failure recording ----------------------------------------------------------------------- */

#define CHECK_MAX_REPORTS 25 /* messages printed per PE; all failures are counted */

static long check_failures_;

/* The calling PE's number, or -1 when the library is not initialized. */
static inline int check_pe_(void)
{
    int initialized = 0;
    shmem_query_initialized(&initialized);
    return initialized ? shmem_my_pe() : -1;
}

static inline TEST_PRINTF(4, 5) void check_fail_(const char *file, int line, const char *cond,
                                                 const char *fmt, ...)
{
    check_failures_++;
    if (check_failures_ > CHECK_MAX_REPORTS) {
        if (check_failures_ == CHECK_MAX_REPORTS + 1)
            fprintf(stderr, "PE %d: further failures are counted but not shown\n", check_pe_());
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "PE %d: %s:%d: check failed: %s: %s\n", check_pe_(), file, line, cond, msg);
}

#define CHECK(cond, ...) ((cond) ? (void)0 : check_fail_(__FILE__, __LINE__, #cond, __VA_ARGS__))

/* Failures recorded so far on this PE. */
static inline long check_local_failures(void)
{
    return check_failures_;
}

/* Prints the verdict on PE me == 0 (the test's name is its source file's base name) and returns
 * the exit code: 0 when all_failures is 0. */
static inline int check_report(const char *file, int me, long all_failures)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int len = (int)strcspn(base, ".");
    if (check_failures_)
        fprintf(stderr, "PE %d: %ld failure(s)\n", me, check_failures_);
    if (me == 0) {
        if (all_failures == 0)
            printf("PASS %.*s\n", len, base);
        else
            printf("FAIL %.*s (%ld failures)\n", len, base, all_failures);
    }
    fflush(stdout);
    fflush(stderr);
    return all_failures != 0;
}

/* The sum of the failure counts of all PEs (collective). */
static inline long check_total_(void)
{
    long *total = (long *)shmem_malloc(sizeof *total);
    if (!total) {
        fprintf(stderr, "PE %d: check_finish: shmem_malloc failed\n", shmem_my_pe());
        shmem_barrier_all();
        return check_failures_ + 1;
    }
    *total = 0;
    shmem_barrier_all();
    if (check_failures_)
        shmem_long_atomic_add(total, check_failures_, 0);
    shmem_barrier_all();
    long all = shmem_long_atomic_fetch(total, 0);
    shmem_free(total); /* barriers on entry: every PE has read the total */
    return all;
}

#define check_finish() check_report(__FILE__, shmem_my_pe(), check_total_())

/* ---- Time, random numbers -------------------------------------------------------------------- */

static inline double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void test_sleep_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* splitmix64: the same seed gives the same sequence on every PE. */
static inline uint64_t test_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* An iteration count scaled down above 4 PEs (the machine has 2 cores): n * 4 / npes. */
static inline long test_scaled(long n)
{
    int npes = shmem_n_pes();
    return npes > 4 ? n * 4 / npes : n;
}

/* ---- Teams -------------------------------------------------------------------------------------
 */

/* Copies of WORLD split into made[0..most) until a split fails: how many teams one PE can hold
 * at once (the failed split leaves its handle SHMEM_TEAM_INVALID). */
static inline int test_split_until_full(shmem_team_t *made, int most)
{
    int n = 0;
    while (n < most &&
           shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, shmem_n_pes(), NULL, 0, &made[n]) == 0)
        n++;
    return n;
}

/* Each PE's node for test_tree_member: node_of[pe] (symmetric, npes ints) becomes the lowest
 * world PE of pe's node (SHMEM_TEAM_SHARED) on every PE. Collective over WORLD. */
static inline void test_node_table(int *node_of)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int mine = shmem_team_translate_pe(SHMEM_TEAM_SHARED, 0, SHMEM_TEAM_WORLD);
    shmem_barrier_all();
    for (int pe = 0; pe < npes; pe++)
        shmem_int_p(&node_of[me], mine, pe);
    shmem_barrier_all();
}

/* A member of team (team numbering) by its place in a broadcast tree from root, for the skew
 * test and benchmark (issue 27). The library's tree is binomial over the nodes' first members
 * (the root for its own node), under each one over the node's members; in each, the places
 * follow the head in team order, and place p's children are p + 2^k for every 2^k > p (its
 * parent: p without its highest bit).
 *   TEST_TREE_LEAF      the team's last member, or the one before when the root is last: the
 *                       last place has no children.
 *   TEST_TREE_INTERIOR  a member that forwards: the first member of a node other than the
 *                       root's that holds more members of the team (its node's head); on one
 *                       node place 1, the first member after the root, whose subtree is the
 *                       largest (with 4 or more members: 3 is its child). */
enum test_tree_place { TEST_TREE_LEAF, TEST_TREE_INTERIOR };
static inline int test_tree_member(shmem_team_t team, enum test_tree_place place, int root,
                                   const int *node_of)
{
    int n = shmem_team_n_pes(team);
    if (place == TEST_TREE_LEAF)
        return root == n - 1 ? n - 2 : n - 1;
    int root_node = node_of[shmem_team_translate_pe(team, root, SHMEM_TEAM_WORLD)];
    for (int i = 0; i < n; i++) {
        int node = node_of[shmem_team_translate_pe(team, i, SHMEM_TEAM_WORLD)];
        if (node == root_node)
            continue;
        for (int j = i + 1; j < n; j++)
            if (node_of[shmem_team_translate_pe(team, j, SHMEM_TEAM_WORLD)] == node)
                return i;
    }
    return root == 0 ? 1 : 0;
}

/* ---- Value patterns -----------------------------------------------------------------------------
 * TEST_VAL(T, pe, i, salt) is element i of PE pe's data in round salt, exactly representable in
 * every type T of the tables (below 127 for 1-byte types, 32749 for 2-byte types and 2^24
 * otherwise, so float holds it exactly). */
static inline uint64_t test_val_(size_t esize, int pe, size_t i, unsigned salt)
{
    uint64_t x = (uint64_t)pe * 1000003u + (uint64_t)i * 7u + (uint64_t)(i >> 7) * 3u +
                 (uint64_t)salt * 131u;
    uint64_t mod = esize == 1 ? 127 : esize == 2 ? 32749 : 16777213;
    return x % mod;
}

#define TEST_VAL(T, pe, i, salt) ((T)test_val_(sizeof(T), (pe), (i), (salt)))

/* Byte k of PE pe's byte data in round salt. */
static inline unsigned char test_byte(int pe, size_t k, unsigned salt)
{
    return (unsigned char)(k * 131u + (k >> 8) * 7u + (unsigned)pe * 59u + salt * 17u + 1u);
}

static inline void test_fill_bytes(void *buf, size_t n, int pe, unsigned salt)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t k = 0; k < n; k++)
        p[k] = test_byte(pe, k, salt);
}

/* The first k < n where buf differs from test_fill_bytes(pe, salt), or SIZE_MAX. */
static inline size_t test_bad_byte(const void *buf, size_t n, int pe, unsigned salt)
{
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t k = 0; k < n; k++)
        if (p[k] != test_byte(pe, k, salt))
            return k;
    return SIZE_MAX;
}

/* Guard pattern: byte k of a guarded buffer (k counted from the buffer's start). */
static inline unsigned char test_guard_byte(size_t k)
{
    return (unsigned char)(0xA5u ^ (k * 29u) ^ (k >> 8));
}

static inline void test_fill_guard(void *buf, size_t n)
{
    unsigned char *p = (unsigned char *)buf;
    for (size_t k = 0; k < n; k++)
        p[k] = test_guard_byte(k);
}

/* The first offset in [from, to) of a guard-filled buffer that changed, or SIZE_MAX. */
static inline size_t test_bad_guard(const void *buf, size_t from, size_t to)
{
    const unsigned char *p = (const unsigned char *)buf;
    for (size_t k = from; k < to; k++)
        if (p[k] != test_guard_byte(k))
            return k;
    return SIZE_MAX;
}

/* Element-wise patterns for one type X(T, N) of a table (instantiate with TEST_T_RMA(...)):
 *   test_fill_N(buf, n, pe, salt)   writes TEST_VAL(T, pe, i, salt) to elements 0..n-1,
 *   test_bad_N(buf, n, pe, salt)    returns the first element that differs, or SIZE_MAX,
 *   test_eq_N(elem, pe, i, salt)    tells whether *elem is element i of that pattern. */
#define TEST_DEFINE_PATTERN(T, N)                                                            \
    static TEST_UNUSED void test_fill_##N(void *buf, size_t n, int pe, unsigned salt)        \
    {                                                                                        \
        T *p = buf;                                                                          \
        for (size_t i = 0; i < n; i++)                                                       \
            p[i] = TEST_VAL(T, pe, i, salt);                                                 \
    }                                                                                        \
    static TEST_UNUSED size_t test_bad_##N(const void *buf, size_t n, int pe, unsigned salt) \
    {                                                                                        \
        const T *p = buf;                                                                    \
        for (size_t i = 0; i < n; i++)                                                       \
            if (p[i] != TEST_VAL(T, pe, i, salt))                                            \
                return i;                                                                    \
        return SIZE_MAX;                                                                     \
    }                                                                                        \
    static TEST_UNUSED int test_eq_##N(const void *elem, int pe, size_t i, unsigned salt)    \
    {                                                                                        \
        return *(const T *)elem == TEST_VAL(T, pe, i, salt);                                 \
    }

/* The same for the SIZE families (instantiate with TEST_SIZES(...)): test_fill_bitsS,
 * test_bad_bitsS, test_eq_bitsS on elements of S bits made of test_byte() bytes. */
#define TEST_DEFINE_BITS_PATTERN(S)                                                              \
    static TEST_UNUSED void test_fill_bits##S(void *buf, size_t n, int pe, unsigned salt)        \
    {                                                                                            \
        test_fill_bytes(buf, n *(S / 8), pe, salt);                                              \
    }                                                                                            \
    static TEST_UNUSED size_t test_bad_bits##S(const void *buf, size_t n, int pe, unsigned salt) \
    {                                                                                            \
        size_t k = test_bad_byte(buf, n * (S / 8), pe, salt);                                    \
        return k == SIZE_MAX ? k : k / (S / 8);                                                  \
    }                                                                                            \
    static TEST_UNUSED int test_eq_bits##S(const void *elem, int pe, size_t i, unsigned salt)    \
    {                                                                                            \
        for (size_t b = 0; b < S / 8; b++)                                                       \
            if (((const unsigned char *)elem)[b] != test_byte(pe, i * (S / 8) + b, salt))        \
                return 0;                                                                        \
        return 1;                                                                                \
    }

/* A value of integer or floating type T with k in its top and bottom bytes (1 <= k < 128): it
 * uses the full width of T, so an operation on too few bytes changes it. */
#define TEST_WIDE(T, k) ((T)(((uint64_t)(k) << (8 * sizeof(T) - 8)) | (uint64_t)(k)))

#define TEST_IS_SIGNED(T) (!((T)-1 > (T)0)) /* not "< 0": -Wtype-limits */

#include "spec_types.h"

#endif /* PANGEA_TESTS_CHECK_H */
