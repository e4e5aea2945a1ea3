/* Atomic memory operations.
 *
 * Exact results: every standard (T-AMO-STD), extended (T-AMO-EXT) and bitwise (T-AMO-BIT) family
 * for every type of its table, blocking and _nbi, each called as the typed function, its ctx twin
 * on SHMEM_CTX_DEFAULT, the C11 generic and the generic with ctx. Each PE works on its own word
 * on the right neighbour, checks every fetched value, and the neighbour checks that no byte
 * around the word changed (values use the full width of the type). The deprecated names
 * (shmem_int_fadd, shmem_long_finc, shmem_longlong_cswap, shmem_double_swap, ... and their C11
 * generics) are checked the same way.
 *
 * Contention on PE 0: fetch_add of 1 by all PEs (long, int, uint64; every fetched value must be
 * distinct, marked in a bitmap with fetch_or), increments through compare_swap loops, a chain
 * of swaps in which every deposited value must come out exactly once, and bit ownership with
 * fetch_or/fetch_and/fetch_xor on one word. */
#include "check.h"

TEST_ALLOW_DEPRECATED

#define NVARIANTS 4
static const char *const vnames[NVARIANTS] = {"typed", "ctx", "generic", "generic+ctx"};

static int me, npes, left, right;
static unsigned char *amo_buf; /* symmetric: word of PE src at (2 * src + 1) * 16, guards around */
static size_t amo_bytes;
static uint64_t *bitmap; /* symmetric: contention bitmaps, used on PE 0 */
static size_t bitmap_words;
static uint64_t *words; /* symmetric: contended words on PE 0 */

/* op through variant v: typed, ctx twin, C11 generic, C11 generic with ctx. */
#define AMO(v, N, op, ...)                                                    \
    ((v) == 0   ? shmem_##N##_atomic_##op(__VA_ARGS__)                        \
     : (v) == 1 ? shmem_ctx_##N##_atomic_##op(SHMEM_CTX_DEFAULT, __VA_ARGS__) \
     : (v) == 2 ? shmem_atomic_##op(__VA_ARGS__)                              \
                : shmem_atomic_##op(SHMEM_CTX_DEFAULT, __VA_ARGS__))

/* Completes non-fetching and _nbi AMOs of variant v. */
static void complete(int v)
{
    if (v & 1)
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
    else
        shmem_quiet();
}

#define EXPECT(got, want, what) \
    CHECK((got) == (want), "%s %s (%s): %s", tname, vnames[v], #got, what)

/* ---- Exact sequences on one remote word ------------------------------------------------------ */

/* fetch, set, swap, fetch_nbi, swap_nbi */
#define DEFINE_EXT(T, N)                                                                        \
    static void ext_##N(int v, void *vslot, int t)                                              \
    {                                                                                           \
        const char *tname = #N;                                                                 \
        T *slot = vslot, f = 0, got;                                                            \
        T a = TEST_WIDE(T, 1 + me % 50), b = TEST_WIDE(T, 60 + me % 50), c = TEST_WIDE(T, 120); \
        AMO(v, N, set, slot, a, t);                                                             \
        complete(v);                                                                            \
        got = AMO(v, N, fetch, slot, t);                                                        \
        EXPECT(got, a, "fetch after set");                                                      \
        got = AMO(v, N, swap, slot, b, t);                                                      \
        EXPECT(got, a, "swap returns the old value");                                           \
        got = AMO(v, N, fetch, slot, t);                                                        \
        EXPECT(got, b, "fetch after swap");                                                     \
        AMO(v, N, fetch_nbi, &f, slot, t);                                                      \
        complete(v);                                                                            \
        EXPECT(f, b, "fetch_nbi");                                                              \
        AMO(v, N, swap_nbi, &f, slot, c, t);                                                    \
        complete(v);                                                                            \
        EXPECT(f, b, "swap_nbi returns the old value");                                         \
        got = AMO(v, N, fetch, slot, t);                                                        \
        EXPECT(got, c, "fetch after swap_nbi");                                                 \
    }
TEST_T_AMO_EXT(DEFINE_EXT)

/* compare_swap, fetch_inc, inc, fetch_add, add and their _nbi forms */
#define DEFINE_STD(T, N)                                                         \
    static void std_##N(int v, void *vslot, int t)                               \
    {                                                                            \
        const char *tname = #N;                                                  \
        T *slot = vslot, f = 0, got;                                             \
        T a = TEST_WIDE(T, 1 + me % 40), d = TEST_WIDE(T, 41 + me % 20), cur;    \
        AMO(v, N, set, slot, a, t);                                              \
        complete(v);                                                             \
        got = AMO(v, N, fetch_add, slot, d, t);                                  \
        EXPECT(got, a, "fetch_add returns the old value");                       \
        cur = (T)(a + d);                                                        \
        AMO(v, N, add, slot, (T)3, t);                                           \
        complete(v);                                                             \
        cur = (T)(cur + 3);                                                      \
        got = AMO(v, N, fetch_inc, slot, t);                                     \
        EXPECT(got, cur, "fetch_inc returns the value after fetch_add and add"); \
        AMO(v, N, inc, slot, t);                                                 \
        complete(v);                                                             \
        cur = (T)(cur + 2);                                                      \
        got = AMO(v, N, fetch, slot, t);                                         \
        EXPECT(got, cur, "fetch after fetch_inc and inc");                       \
        got = AMO(v, N, compare_swap, slot, (T)(cur + 1), a, t);                 \
        EXPECT(got, cur, "failing compare_swap returns the value");              \
        got = AMO(v, N, fetch, slot, t);                                         \
        EXPECT(got, cur, "failing compare_swap must not write");                 \
        got = AMO(v, N, compare_swap, slot, cur, a, t);                          \
        EXPECT(got, cur, "compare_swap returns the old value");                  \
        AMO(v, N, fetch_add_nbi, &f, slot, d, t);                                \
        complete(v);                                                             \
        EXPECT(f, a, "fetch_add_nbi after a successful compare_swap");           \
        cur = (T)(a + d);                                                        \
        AMO(v, N, fetch_inc_nbi, &f, slot, t);                                   \
        complete(v);                                                             \
        EXPECT(f, cur, "fetch_inc_nbi");                                         \
        cur = (T)(cur + 1);                                                      \
        AMO(v, N, compare_swap_nbi, &f, slot, cur, d, t);                        \
        complete(v);                                                             \
        EXPECT(f, cur, "compare_swap_nbi returns the old value");                \
        AMO(v, N, compare_swap_nbi, &f, slot, a, cur, t);                        \
        complete(v);                                                             \
        EXPECT(f, d, "failing compare_swap_nbi returns the value");              \
        got = AMO(v, N, fetch, slot, t);                                         \
        EXPECT(got, d, "fetch after compare_swap_nbi");                          \
        if (!TEST_IS_SIGNED(T)) { /* wraps around at the full width */           \
            AMO(v, N, set, slot, (T)((T) ~(T)0 - 1), t);                         \
            complete(v);                                                         \
            got = AMO(v, N, fetch_add, slot, (T)3, t);                           \
            EXPECT(got, (T)((T) ~(T)0 - 1), "fetch_add before wrapping");        \
            got = AMO(v, N, fetch, slot, t);                                     \
            EXPECT(got, (T)1, "fetch_add wraps around");                         \
        } else { /* negative values */                                           \
            AMO(v, N, set, slot, (T)-5, t);                                      \
            complete(v);                                                         \
            got = AMO(v, N, fetch_add, slot, (T)-7, t);                          \
            EXPECT(got, (T)-5, "fetch_add of a negative value");                 \
            got = AMO(v, N, fetch, slot, t);                                     \
            EXPECT(got, (T)-12, "negative sum");                                 \
        }                                                                        \
    }
TEST_T_AMO_STD(DEFINE_STD)

/* fetch_and, and, fetch_or, or, fetch_xor, xor and the fetch_*_nbi forms */
#define DEFINE_BIT(T, N)                                                                \
    static void bit_##N(int v, void *vslot, int t)                                      \
    {                                                                                   \
        const char *tname = #N;                                                         \
        T *slot = vslot, f = 0, got;                                                    \
        T p = (T)(0xF0F0F0F0F0F0F0F0ull ^ (uint64_t)me), m1 = (T)0x0FF00FF00FF00FF0ull; \
        T m2 = (T)0x00FFFF0000FFFF00ull, m3 = (T)0x1234567812345678ull;                 \
        T m4 = (T)0x8000000180000001ull, m5 = (T)0xFFFFFFFFFFFFFFFFull,                 \
          m6 = (T)0x0F0F0F0F0F0F0F0Full;                                                \
        T cur = p;                                                                      \
        AMO(v, N, set, slot, p, t);                                                     \
        complete(v);                                                                    \
        got = AMO(v, N, fetch_and, slot, m1, t);                                        \
        EXPECT(got, cur, "fetch_and returns the old value");                            \
        cur = (T)(cur & m1);                                                            \
        AMO(v, N, and, slot, m2, t);                                                    \
        complete(v);                                                                    \
        cur = (T)(cur & m2);                                                            \
        got = AMO(v, N, fetch_or, slot, m3, t);                                         \
        EXPECT(got, cur, "fetch_or returns the value after fetch_and and and");         \
        cur = (T)(cur | m3);                                                            \
        AMO(v, N, or, slot, m4, t);                                                     \
        complete(v);                                                                    \
        cur = (T)(cur | m4);                                                            \
        got = AMO(v, N, fetch_xor, slot, m5, t);                                        \
        EXPECT(got, cur, "fetch_xor returns the value after fetch_or and or");          \
        cur = (T)(cur ^ m5);                                                            \
        AMO(v, N, xor, slot, m6, t);                                                    \
        complete(v);                                                                    \
        cur = (T)(cur ^ m6);                                                            \
        got = AMO(v, N, fetch, slot, t);                                                \
        EXPECT(got, cur, "fetch after fetch_xor and xor");                              \
        AMO(v, N, fetch_and_nbi, &f, slot, m2, t);                                      \
        complete(v);                                                                    \
        EXPECT(f, cur, "fetch_and_nbi");                                                \
        cur = (T)(cur & m2);                                                            \
        AMO(v, N, fetch_or_nbi, &f, slot, m1, t);                                       \
        complete(v);                                                                    \
        EXPECT(f, cur, "fetch_or_nbi");                                                 \
        cur = (T)(cur | m1);                                                            \
        AMO(v, N, fetch_xor_nbi, &f, slot, m3, t);                                      \
        complete(v);                                                                    \
        EXPECT(f, cur, "fetch_xor_nbi");                                                \
        cur = (T)(cur ^ m3);                                                            \
        got = AMO(v, N, fetch, slot, t);                                                \
        EXPECT(got, cur, "fetch after the _nbi bitwise operations");                    \
    }
TEST_T_AMO_BIT(DEFINE_BIT)

/* Deprecated names; odd variants use their C11 generics. */
#define DEP(v, N, op, ...) ((v)&1 ? shmem_##op(__VA_ARGS__) : shmem_##N##_##op(__VA_ARGS__))

#define DEFINE_DEP_EXT(T, N)                                        \
    static void dep_ext_##N(int v, void *vslot, int t)              \
    {                                                               \
        const char *tname = #N " (deprecated)";                     \
        T *slot = vslot, got, a = (T)(100 + me), b = (T)(200 + me); \
        DEP(v, N, set, slot, a, t);                                 \
        shmem_quiet();                                              \
        got = DEP(v, N, fetch, slot, t);                            \
        EXPECT(got, a, "fetch after set");                          \
        got = DEP(v, N, swap, slot, b, t);                          \
        EXPECT(got, a, "swap returns the old value");               \
        got = DEP(v, N, fetch, slot, t);                            \
        EXPECT(got, b, "fetch after swap");                         \
    }
#define TEST_T_DEP_EXT(X) X(float, float) X(double, double) TEST_T_DEP_STD(X)
#define TEST_T_DEP_STD(X) X(int, int) X(long, long) X(long long, longlong)
TEST_T_DEP_EXT(DEFINE_DEP_EXT)

#define DEFINE_DEP_STD(T, N)                                 \
    static void dep_std_##N(int v, void *vslot, int t)       \
    {                                                        \
        const char *tname = #N " (deprecated)";              \
        T *slot = vslot, got, a = (T)(1000 + me), cur;       \
        DEP(v, N, set, slot, a, t);                          \
        shmem_quiet();                                       \
        got = DEP(v, N, fadd, slot, (T)5, t);                \
        EXPECT(got, a, "fadd returns the old value");        \
        DEP(v, N, add, slot, (T)2, t);                       \
        shmem_quiet();                                       \
        cur = (T)(a + 7);                                    \
        got = DEP(v, N, finc, slot, t);                      \
        EXPECT(got, cur, "finc after fadd and add");         \
        DEP(v, N, inc, slot, t);                             \
        shmem_quiet();                                       \
        cur = (T)(cur + 2);                                  \
        got = DEP(v, N, cswap, slot, (T)(cur + 1), (T)0, t); \
        EXPECT(got, cur, "failing cswap returns the value"); \
        got = DEP(v, N, cswap, slot, cur, (T)-3, t);         \
        EXPECT(got, cur, "cswap returns the old value");     \
        got = DEP(v, N, fetch, slot, t);                     \
        EXPECT(got, (T)-3, "fetch after cswap");             \
    }
TEST_T_DEP_STD(DEFINE_DEP_STD)

/* Runs seq with every variant on this PE's word on the right neighbour; the neighbour checks
 * the bytes around the word it received. */
static void run_family(const char *family, const char *tname, size_t esize,
                       void (*seq)(int v, void *slot, int t))
{
    test_fill_guard(amo_buf, amo_bytes);
    shmem_barrier_all();
    for (int v = 0; v < NVARIANTS; v++)
        seq(v, amo_buf + (2 * (size_t)me + 1) * 16, right);
    shmem_barrier_all();
    size_t word = (2 * (size_t)left + 1) * 16;
    CHECK(test_bad_guard(amo_buf, 0, word) == SIZE_MAX &&
              test_bad_guard(amo_buf, word + esize, amo_bytes) == SIZE_MAX,
          "%s %s: bytes around the word of PE %d changed", family, tname, left);
}

/* ---- Contention on PE 0 ---------------------------------------------------------------------- */

/* Marks value v in PE 0's bitmap; v must not have been marked before. */
static void mark(uint64_t v, const char *what)
{
    uint64_t bit = (uint64_t)1 << (v % 64);
    uint64_t old = shmem_uint64_atomic_fetch_or(&bitmap[v / 64], bit, 0);
    CHECK(!(old & bit), "%s: value %llu seen twice", what, (unsigned long long)v);
}

/* On PE 0: bits 0..n-1 all set (collective; clears the bitmap afterwards). */
static void check_marks(uint64_t n, const char *what)
{
    shmem_barrier_all();
    if (me == 0) {
        uint64_t missing = 0, first = 0;
        for (uint64_t v = 0; v < n; v++)
            if (!(bitmap[v / 64] & ((uint64_t)1 << (v % 64))) && missing++ == 0)
                first = v;
        CHECK(missing == 0, "%s: %llu of %llu values never seen, first %llu", what,
              (unsigned long long)missing, (unsigned long long)n, (unsigned long long)first);
    }
    memset(bitmap, 0, bitmap_words * sizeof(uint64_t));
    shmem_barrier_all();
}

/* Every PE does m fetch_add(1) on PE 0's counter: the total is exact and every fetched value
 * 0 .. npes * m - 1 comes out exactly once. */
#define DEFINE_CONTEND(T, N)                                                                       \
    static void contend_##N(long m)                                                                \
    {                                                                                              \
        T *ctr = (T *)words;                                                                       \
        uint64_t total = (uint64_t)npes * (uint64_t)m;                                             \
        *ctr = 0;                                                                                  \
        shmem_barrier_all();                                                                       \
        for (long i = 0; i < m; i++) {                                                             \
            T old = AMO((int)(i % NVARIANTS), N, fetch_add, ctr, (T)1, 0);                         \
            CHECK((uint64_t)old < total, "fetch_add contention (%s): fetched %lld", #N,            \
                  (long long)old);                                                                 \
            if ((uint64_t)old < total)                                                             \
                mark((uint64_t)old, "fetch_add contention (" #N ")");                              \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        if (me == 0)                                                                               \
            CHECK((uint64_t)*ctr == total, "fetch_add contention (%s): total %llu, want %llu", #N, \
                  (unsigned long long)*ctr, (unsigned long long)total);                            \
        check_marks(total, "fetch_add contention (" #N ")");                                       \
    }
DEFINE_CONTEND(long, long)
DEFINE_CONTEND(int, int)
DEFINE_CONTEND(uint64_t, uint64)

/* Every PE issues m fetch_add_nbi(1) on PE 0's words[0], each into its own slot, and m
 * non-fetching add(3) on words[1], then one quiet: every fetched value 0 .. npes * m - 1 comes
 * out exactly once and both totals are exact. */
static void contend_nbi(long m)
{
    long *fetched = malloc((size_t)m * sizeof *fetched);
    CHECK(fetched != NULL, "allocation failed");
    if (!fetched)
        return;
    long *ctr = (long *)words;
    uint64_t total = (uint64_t)npes * (uint64_t)m;
    ctr[0] = ctr[1] = 0;
    shmem_barrier_all();
    for (long i = 0; i < m; i++) {
        fetched[i] = -1;
        int v = (int)(i % NVARIANTS);
        AMO(v, long, fetch_add_nbi, &fetched[i], &ctr[0], 1L, 0);
        AMO(v, long, add, &ctr[1], 3L, 0);
    }
    shmem_quiet();
    for (long i = 0; i < m; i++) {
        CHECK(fetched[i] >= 0 && (uint64_t)fetched[i] < total,
              "fetch_add_nbi contention: slot %ld fetched %ld after quiet", i, fetched[i]);
        if (fetched[i] >= 0 && (uint64_t)fetched[i] < total)
            mark((uint64_t)fetched[i], "fetch_add_nbi contention");
    }
    shmem_barrier_all();
    if (me == 0) {
        CHECK((uint64_t)ctr[0] == total, "fetch_add_nbi contention: total %ld, want %llu", ctr[0],
              (unsigned long long)total);
        CHECK((uint64_t)ctr[1] == 3 * total, "add contention: total %ld, want %llu", ctr[1],
              (unsigned long long)(3 * total));
    }
    check_marks(total, "fetch_add_nbi contention");
    free(fetched);
}

/* Increments through compare_swap loops. */
static void contend_cswap(long m)
{
    long *ctr = (long *)words;
    *ctr = 0;
    shmem_barrier_all();
    for (long i = 0; i < m; i++) {
        long cur = shmem_long_atomic_fetch(ctr, 0), prev;
        while ((prev = shmem_long_atomic_compare_swap(ctr, cur, cur + 1, 0)) != cur)
            cur = prev;
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(*ctr == npes * m, "compare_swap increments: %ld, want %ld", *ctr, npes * m);
    shmem_barrier_all();
}

/* A chain of swaps on one word: every deposited value (and the initial one) comes out exactly
 * once, either from a swap or as the final value. */
static void swap_chain(long k)
{
    long *word = (long *)words;
    *word = -1;
    shmem_barrier_all();
    for (long i = 0; i < k; i++) {
        long old = shmem_long_atomic_swap(word, me * k + i, 0);
        CHECK(old >= -1 && old < npes * k, "swap chain: got %ld", old);
        if (old >= -1 && old < npes * k)
            mark((uint64_t)(old + 1), "swap chain");
    }
    shmem_barrier_all();
    if (me == 0)
        mark((uint64_t)(*word + 1), "swap chain (final value)");
    check_marks((uint64_t)(npes * k + 1), "swap chain");
}

/* Each PE owns bit my_pe of one word and flips it with fetch_or/fetch_and/fetch_xor; the others'
 * bits never disturb what it sees of its own. */
#define DEFINE_BITS_OWNED(T, N)                                                   \
    static void bits_owned_##N(long r)                                            \
    {                                                                             \
        T *w = (T *)words, mine = (T)((T)1 << me);                                \
        w[0] = 0;                                                                 \
        w[1] = 0;                                                                 \
        shmem_barrier_all();                                                      \
        for (long i = 0; i < r; i++) {                                            \
            T old = shmem_##N##_atomic_fetch_or(&w[0], mine, 0);                  \
            CHECK(!(old & mine), "%s fetch_or: my bit was already set", #N);      \
            old = shmem_##N##_atomic_fetch_and(&w[0], (T)~mine, 0);               \
            CHECK(old &mine, "%s fetch_and: my bit was not set", #N);             \
            old = shmem_##N##_atomic_fetch_xor(&w[0], mine, 0);                   \
            CHECK(!(old & mine), "%s fetch_xor: my bit was already set", #N);     \
            old = shmem_##N##_atomic_fetch_xor(&w[0], mine, 0);                   \
            CHECK(old &mine, "%s fetch_xor: my bit was not set", #N);             \
        }                                                                         \
        shmem_##N##_atomic_or(&w[1], mine, 0);                                    \
        shmem_barrier_all();                                                      \
        T all = (T)(npes == 8 * (int)sizeof(T) ? ~(T)0 : ((T)1 << npes) - 1);     \
        if (me == 0) {                                                            \
            CHECK(w[0] == 0, "%s bit ownership: word is %llx at the end", #N,     \
                  (unsigned long long)w[0]);                                      \
            CHECK(w[1] == all, "%s: or of every PE's bit gives %llx", #N,         \
                  (unsigned long long)w[1]);                                      \
        }                                                                         \
        shmem_barrier_all();                                                      \
        shmem_##N##_atomic_and(&w[1], (T)~mine, 0);                               \
        shmem_##N##_atomic_xor(&w[0], mine, 0);                                   \
        shmem_barrier_all();                                                      \
        if (me == 0) {                                                            \
            CHECK(w[1] == 0, "%s: and of every PE's inverted bit gives %llx", #N, \
                  (unsigned long long)w[1]);                                      \
            CHECK(w[0] == all, "%s: xor of every PE's bit gives %llx", #N,        \
                  (unsigned long long)w[0]);                                      \
        }                                                                         \
        shmem_barrier_all();                                                      \
    }
DEFINE_BITS_OWNED(unsigned int, uint)
DEFINE_BITS_OWNED(unsigned long, ulong)
DEFINE_BITS_OWNED(uint64_t, uint64)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    long m = test_scaled(2000);
    amo_bytes = (2 * (size_t)npes + 2) * 16;
    bitmap_words = ((size_t)npes * (size_t)m + 64) / 64 + 1;
    amo_buf = shmem_align(64, amo_bytes);
    bitmap = shmem_calloc(bitmap_words, sizeof(uint64_t));
    words = shmem_calloc(4, sizeof(uint64_t));
    CHECK(amo_buf && bitmap && words, "allocation failed");
    if (!amo_buf || !bitmap || !words)
        return check_finish();

#define RUN_EXT(T, N) run_family("ext", #N, sizeof(T), ext_##N);
#define RUN_STD(T, N) run_family("std", #N, sizeof(T), std_##N);
#define RUN_BIT(T, N) run_family("bit", #N, sizeof(T), bit_##N);
#define RUN_DEP_EXT(T, N) run_family("deprecated ext", #N, sizeof(T), dep_ext_##N);
#define RUN_DEP_STD(T, N) run_family("deprecated std", #N, sizeof(T), dep_std_##N);
    TEST_T_AMO_EXT(RUN_EXT)
    TEST_T_AMO_STD(RUN_STD)
    TEST_T_AMO_BIT(RUN_BIT)
    TEST_T_DEP_EXT(RUN_DEP_EXT)
    TEST_T_DEP_STD(RUN_DEP_STD)

    contend_long(m);
    contend_int(m);
    contend_uint64(m);
    contend_nbi(m);
    contend_cswap(test_scaled(500));
    swap_chain(test_scaled(500));
    if (npes <= 32) {
        bits_owned_uint(test_scaled(200));
        bits_owned_ulong(test_scaled(200));
        bits_owned_uint64(test_scaled(200));
    }

    shmem_free(words);
    shmem_free(bitmap);
    shmem_free(amo_buf);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
