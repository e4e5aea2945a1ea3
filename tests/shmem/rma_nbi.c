/* Nonblocking RMA: put_nbi/get_nbi for every T-RMA type, every SIZE and mem.
 *
 * Each round splits a buffer into 128 small chunks and one 16 KiB chunk and issues one nbi call
 * per chunk to every PE (self included) before a single quiet, so hundreds of operations are
 * outstanding at once. Puts are then announced with an atomic increment of a flag on each
 * target: the target waits for the flag, not for a barrier, so it is the quiet that must have
 * completed the data. Gets are checked right after their quiet. Calls rotate through the typed,
 * ctx (SHMEM_CTX_DEFAULT) and C11 generic forms, quiet through shmem_quiet and
 * shmem_ctx_quiet(SHMEM_CTX_DEFAULT). */
#include "check.h"

#define GUARD 64
#define NCHUNK 128
#define BIG_CHUNK_BYTES 16384
#define NVARIANTS 4 /* typed, ctx, C11 generic, C11 generic with ctx */

typedef void (*xfer_fn)(int variant, void *dest, const void *source, size_t n, int pe);

struct kind {
    const char *name;
    size_t esize;
    xfer_fn put_nbi, get_nbi;
    void (*fill)(void *buf, size_t n, int pe, unsigned salt);
    size_t (*bad)(const void *buf, size_t n, int pe, unsigned salt);
};

static int me, npes;
static char *dst_sym, *src_sym; /* symmetric: put destination (npes slots), get source */
static char *dst_loc, *src_loc; /* private: get destination (npes slots), put source */
static long *flag;              /* symmetric: puts announced to this PE so far */
static long flag_expected;
static size_t small_elems; /* elements in the NCHUNK small chunks */

TEST_T_RMA(TEST_DEFINE_PATTERN)
TEST_SIZES(TEST_DEFINE_BITS_PATTERN)

/* ---- Calls ---------------------------------------------------------------------------------- */
#define DEFINE_TYPED(T, N)                                                 \
    static void put_##N(int v, void *d, const void *s, size_t n, int pe)   \
    {                                                                      \
        switch (v) {                                                       \
        case 0:                                                            \
            shmem_##N##_put_nbi(d, s, n, pe);                              \
            break;                                                         \
        case 1:                                                            \
            shmem_ctx_##N##_put_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);       \
            break;                                                         \
        case 2:                                                            \
            shmem_put_nbi((T *)d, (const T *)s, n, pe);                    \
            break;                                                         \
        default:                                                           \
            shmem_put_nbi(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n, pe); \
            break;                                                         \
        }                                                                  \
    }                                                                      \
    static void get_##N(int v, void *d, const void *s, size_t n, int pe)   \
    {                                                                      \
        switch (v) {                                                       \
        case 0:                                                            \
            shmem_##N##_get_nbi(d, s, n, pe);                              \
            break;                                                         \
        case 1:                                                            \
            shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);       \
            break;                                                         \
        case 2:                                                            \
            shmem_get_nbi((T *)d, (const T *)s, n, pe);                    \
            break;                                                         \
        default:                                                           \
            shmem_get_nbi(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n, pe); \
            break;                                                         \
        }                                                                  \
    }
TEST_T_RMA(DEFINE_TYPED)

#define DEFINE_SIZED(S)                                                  \
    static void put_##S(int v, void *d, const void *s, size_t n, int pe) \
    {                                                                    \
        if (v & 1)                                                       \
            shmem_ctx_put##S##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);      \
        else                                                             \
            shmem_put##S##_nbi(d, s, n, pe);                             \
    }                                                                    \
    static void get_##S(int v, void *d, const void *s, size_t n, int pe) \
    {                                                                    \
        if (v & 1)                                                       \
            shmem_ctx_get##S##_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);      \
        else                                                             \
            shmem_get##S##_nbi(d, s, n, pe);                             \
    }
TEST_SIZES(DEFINE_SIZED)

static void put_mem(int v, void *d, const void *s, size_t n, int pe)
{
    if (v & 1)
        shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_putmem_nbi(d, s, n, pe);
}

static void get_mem(int v, void *d, const void *s, size_t n, int pe)
{
    if (v & 1)
        shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_getmem_nbi(d, s, n, pe);
}

#define KIND_TYPED(T, N) {#N, sizeof(T), put_##N, get_##N, test_fill_##N, test_bad_##N},
#define KIND_SIZED(S) {"SIZE " #S, S / 8, put_##S, get_##S, test_fill_bits##S, test_bad_bits##S},
// clang-format off
static const struct kind kinds[] = {
    TEST_T_RMA(KIND_TYPED)
    TEST_SIZES(KIND_SIZED)
    {"mem", 1, put_mem, get_mem, test_fill_bits8, test_bad_bits8},
};
// clang-format on

/* ---- Rounds ---------------------------------------------------------------------------------- */
static size_t chunk_elems(size_t c)
{
    return 1 + (c * 37) % 61;
}

static size_t total_elems(const struct kind *k)
{
    return small_elems + BIG_CHUNK_BYTES / k->esize;
}

static size_t slot_bytes(const struct kind *k)
{
    return (2 * GUARD + total_elems(k) * k->esize + 63) & ~(size_t)63;
}

/* Issues the chunks of [0, total_elems) as one nbi call each from src to dest on PE t. */
static void issue_chunks(const struct kind *k, xfer_fn fn, char *dest, const char *src, int t)
{
    size_t off = 0;
    for (size_t c = 0; c <= NCHUNK; c++) {
        size_t n = c < NCHUNK ? chunk_elems(c) : BIG_CHUNK_BYTES / k->esize;
        int v = (int)((c + (size_t)t) % NVARIANTS);
        fn(v, dest + off * k->esize, src + off * k->esize, n, t);
        off += n;
    }
}

static void complete(int round)
{
    if (round % 2 == 0)
        shmem_quiet();
    else
        shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
}

static void check_slot(const struct kind *k, const char *op, const char *base, size_t i, int src,
                       unsigned salt)
{
    size_t slot = slot_bytes(k), data = i * slot + GUARD, end = data + total_elems(k) * k->esize;
    size_t bad = k->bad(base + data, total_elems(k), src, salt);
    CHECK(bad == SIZE_MAX, "%s %s PE %d: element %zu of %zu wrong", op, k->name, src, bad,
          total_elems(k));
    CHECK(test_bad_guard(base, i * slot, data) == SIZE_MAX, "%s %s PE %d: guard before changed", op,
          k->name, src);
    CHECK(test_bad_guard(base, end, (i + 1) * slot) == SIZE_MAX, "%s %s PE %d: guard after changed",
          op, k->name, src);
}

static void run_put(const struct kind *k, int round, unsigned salt)
{
    size_t slot = slot_bytes(k);
    test_fill_guard(dst_sym, (size_t)npes * slot);
    k->fill(src_loc, total_elems(k), me, salt);
    shmem_barrier_all();
    for (int s = 0; s < npes; s++) {
        int t = (me + s) % npes;
        issue_chunks(k, k->put_nbi, dst_sym + (size_t)me * slot + GUARD, src_loc, t);
    }
    complete(round);
    for (int t = 0; t < npes; t++)
        shmem_long_atomic_inc(flag, t);
    flag_expected += npes;
    shmem_long_wait_until(flag, SHMEM_CMP_GE, flag_expected);
    CHECK(shmem_long_atomic_fetch(flag, me) == flag_expected, "put_nbi %s: flag overshoot",
          k->name);
    for (int i = 0; i < npes; i++)
        check_slot(k, "put_nbi", dst_sym, (size_t)i, i, salt);
    shmem_barrier_all(); /* all checks done before the next round's puts */
}

static void run_get(const struct kind *k, int round, unsigned salt)
{
    size_t slot = slot_bytes(k);
    k->fill(src_sym, total_elems(k), me, salt);
    test_fill_guard(dst_loc, (size_t)npes * slot);
    shmem_barrier_all();
    for (int s = 0; s < npes; s++) {
        int t = (me + s) % npes;
        issue_chunks(k, k->get_nbi, dst_loc + (size_t)t * slot + GUARD, src_sym, t);
    }
    complete(round);
    for (int t = 0; t < npes; t++)
        check_slot(k, "get_nbi", dst_loc, (size_t)t, t, salt);
    shmem_barrier_all(); /* nobody refills src_sym while others read it */
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    for (size_t c = 0; c < NCHUNK; c++)
        small_elems += chunk_elems(c);
    size_t max_slot = (2 * GUARD + (small_elems + BIG_CHUNK_BYTES) * 16 + 63) & ~(size_t)63;

    dst_sym = shmem_align(64, (size_t)npes * max_slot);
    src_sym = shmem_align(64, max_slot);
    flag = shmem_calloc(1, sizeof *flag);
    dst_loc = aligned_alloc(64, (size_t)npes * max_slot);
    src_loc = aligned_alloc(64, max_slot);
    CHECK(dst_sym && src_sym && flag && dst_loc && src_loc, "allocation failed");
    if (!(dst_sym && src_sym && flag && dst_loc && src_loc))
        return check_finish();

    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        run_put(&kinds[ki], (int)ki, (unsigned)ki * 2);
        run_get(&kinds[ki], (int)ki + 1, (unsigned)ki * 2 + 1);
    }

    free(dst_loc);
    free(src_loc);
    shmem_free(flag);
    shmem_free(src_sym);
    shmem_free(dst_sym);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
