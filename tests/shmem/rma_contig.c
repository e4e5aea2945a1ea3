/* Contiguous RMA: put/get for every T-RMA type, putSIZE/getSIZE, putmem/getmem, and p/g.
 *
 * Each transfer kind runs with 0, 1, 7, 64 and 4099 elements from every PE to every PE (self
 * included), and with 1 MiB around the ring. Each form is called as the typed function, its ctx
 * twin on SHMEM_CTX_DEFAULT and (for typed kinds) the C11 generic with and without ctx. Every
 * destination element must carry the value of its source PE and index, and the guard bytes
 * before and after the destination region must be untouched. A zero count passes NULL for the
 * local buffer. putmem/getmem also run at odd byte offsets. */
#include "check.h"

#define GUARD 64
#define BIG_BYTES ((size_t)1 << 20)
#define MAX_SMALL 4099
#define NVARIANTS 4 /* typed, ctx, C11 generic, C11 generic with ctx */

typedef void (*xfer_fn)(int variant, void *dest, const void *source, size_t n, int pe);
typedef void (*fill_fn)(void *buf, size_t n, int pe, unsigned salt);
typedef size_t (*bad_fn)(const void *buf, size_t n, int pe, unsigned salt);
typedef void (*pg_fn)(unsigned salt);

struct kind {
    const char *name;
    size_t esize;
    xfer_fn put, get;
    fill_fn fill;
    bad_fn bad;    /* first wrong element or SIZE_MAX */
    pg_fn pg;      /* p/g test, typed kinds only */
    int unaligned; /* also run at odd byte offsets */
};

static int me, npes;
static char *dst_sym; /* put destination: npes slots (or one big slot), guarded */
static char *src_sym; /* get source */
static char *src_loc; /* put source (private memory) */
static char *dst_loc; /* get destination (private memory), guarded */
static char *pg_buf;  /* p/g: npes slots written by p, npes values read by g */
static size_t slot_bytes, big_slot_bytes;

TEST_T_RMA(TEST_DEFINE_PATTERN)
TEST_SIZES(TEST_DEFINE_BITS_PATTERN)

/* ---- Typed kinds ----------------------------------------------------------------------------- */
#define DEFINE_TYPED(T, N)                                                                      \
    static void put_##N(int v, void *d, const void *s, size_t n, int pe)                        \
    {                                                                                           \
        switch (v) {                                                                            \
        case 0:                                                                                 \
            shmem_##N##_put(d, s, n, pe);                                                       \
            break;                                                                              \
        case 1:                                                                                 \
            shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, d, s, n, pe);                                \
            break;                                                                              \
        case 2:                                                                                 \
            shmem_put((T *)d, (const T *)s, n, pe);                                             \
            break;                                                                              \
        default:                                                                                \
            shmem_put(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n, pe);                          \
            break;                                                                              \
        }                                                                                       \
    }                                                                                           \
    static void get_##N(int v, void *d, const void *s, size_t n, int pe)                        \
    {                                                                                           \
        switch (v) {                                                                            \
        case 0:                                                                                 \
            shmem_##N##_get(d, s, n, pe);                                                       \
            break;                                                                              \
        case 1:                                                                                 \
            shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, d, s, n, pe);                                \
            break;                                                                              \
        case 2:                                                                                 \
            shmem_get((T *)d, (const T *)s, n, pe);                                             \
            break;                                                                              \
        default:                                                                                \
            shmem_get(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, n, pe);                          \
            break;                                                                              \
        }                                                                                       \
    }                                                                                           \
    /* Every PE p's a value into its slot on every PE and g's its slot of every PE's array. */  \
    static void pg_##N(unsigned salt)                                                           \
    {                                                                                           \
        T *slots = (T *)pg_buf, *gsrc = slots + npes;                                           \
        for (int i = 0; i < npes; i++) {                                                        \
            slots[i] = (T)0;                                                                    \
            gsrc[i] = TEST_VAL(T, me, i, salt);                                                 \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        for (int t = 0; t < npes; t++) {                                                        \
            T val = TEST_VAL(T, me, t, salt + 1), got;                                          \
            switch (t % NVARIANTS) {                                                            \
            case 0:                                                                             \
                shmem_##N##_p(&slots[me], val, t);                                              \
                got = shmem_##N##_g(&gsrc[me], t);                                              \
                break;                                                                          \
            case 1:                                                                             \
                shmem_ctx_##N##_p(SHMEM_CTX_DEFAULT, &slots[me], val, t);                       \
                got = shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, &gsrc[me], t);                       \
                break;                                                                          \
            case 2:                                                                             \
                shmem_p(&slots[me], val, t);                                                    \
                got = shmem_g(&gsrc[me], t);                                                    \
                break;                                                                          \
            default:                                                                            \
                shmem_p(SHMEM_CTX_DEFAULT, &slots[me], val, t);                                 \
                got = shmem_g(SHMEM_CTX_DEFAULT, &gsrc[me], t);                                 \
                break;                                                                          \
            }                                                                                   \
            CHECK(got == TEST_VAL(T, t, me, salt), "%s_g from PE %d: wrong value", #N, t);      \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        for (int src = 0; src < npes; src++)                                                    \
            CHECK(slots[src] == TEST_VAL(T, src, me, salt + 1), "%s_p from PE %d: wrong value", \
                  #N, src);                                                                     \
        shmem_barrier_all();                                                                    \
    }
TEST_T_RMA(DEFINE_TYPED)

/* ---- SIZE and mem kinds (no C11 generic) ----------------------------------------------------- */
#define DEFINE_SIZED(S)                                                  \
    static void put_##S(int v, void *d, const void *s, size_t n, int pe) \
    {                                                                    \
        if (v & 1)                                                       \
            shmem_ctx_put##S(SHMEM_CTX_DEFAULT, d, s, n, pe);            \
        else                                                             \
            shmem_put##S(d, s, n, pe);                                   \
    }                                                                    \
    static void get_##S(int v, void *d, const void *s, size_t n, int pe) \
    {                                                                    \
        if (v & 1)                                                       \
            shmem_ctx_get##S(SHMEM_CTX_DEFAULT, d, s, n, pe);            \
        else                                                             \
            shmem_get##S(d, s, n, pe);                                   \
    }
TEST_SIZES(DEFINE_SIZED)

static void put_mem(int v, void *d, const void *s, size_t n, int pe)
{
    if (v & 1)
        shmem_ctx_putmem(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_putmem(d, s, n, pe);
}

static void get_mem(int v, void *d, const void *s, size_t n, int pe)
{
    if (v & 1)
        shmem_ctx_getmem(SHMEM_CTX_DEFAULT, d, s, n, pe);
    else
        shmem_getmem(d, s, n, pe);
}

#define KIND_TYPED(T, N) {#N, sizeof(T), put_##N, get_##N, test_fill_##N, test_bad_##N, pg_##N, 0},
#define KIND_SIZED(S) \
    {"SIZE " #S, S / 8, put_##S, get_##S, test_fill_bits##S, test_bad_bits##S, NULL, 0},
// clang-format off
static const struct kind kinds[] = {
    TEST_T_RMA(KIND_TYPED)
    TEST_SIZES(KIND_SIZED)
    {"mem", 1, put_mem, get_mem, test_fill_bits8, test_bad_bits8, NULL, 1},
};
// clang-format on

/* Checks the destination region [GUARD + off, + n elements) of a guarded slot at base + from. */
static void check_region(const struct kind *k, const char *op, const char *base, size_t from,
                         size_t to, size_t off, size_t n, int src, unsigned salt)
{
    size_t data = from + GUARD + off, end = data + n * k->esize;
    size_t bad = k->bad(base + data, n, src, salt);
    CHECK(bad == SIZE_MAX, "%s %s n=%zu off=%zu from/to PE %d: element %zu wrong", op, k->name, n,
          off, src, bad);
    size_t g = test_bad_guard(base, from, data);
    CHECK(g == SIZE_MAX, "%s %s n=%zu off=%zu PE %d: guard byte %td before the data changed", op,
          k->name, n, off, src, (ptrdiff_t)(g - data));
    g = test_bad_guard(base, end, to);
    CHECK(g == SIZE_MAX, "%s %s n=%zu off=%zu PE %d: guard byte %zu after the data changed", op,
          k->name, n, off, src, g - end);
}

/* The shifts s of a round (target = me + s): all of them, or around the ring 1 (0 on one PE). */
static int shift_first(int ring)
{
    return ring && npes > 1 ? 1 : 0;
}

static int shift_end(int ring)
{
    return ring ? shift_first(ring) + 1 : npes;
}

/* All to all (ring == 0: every PE puts into its own slot on every PE) or around the ring. */
static void run_put(const struct kind *k, size_t n, size_t doff, size_t soff, unsigned salt,
                    int variant, int ring)
{
    size_t slot = ring ? big_slot_bytes : slot_bytes;
    int nslots = ring ? 1 : npes;
    test_fill_guard(dst_sym, (size_t)nslots * slot);
    k->fill(src_loc + soff, n, me, salt);
    shmem_barrier_all();
    for (int s = shift_first(ring); s < shift_end(ring); s++) {
        int t = (me + s) % npes;
        char *dest = dst_sym + (ring ? 0 : (size_t)me * slot) + GUARD + doff;
        k->put((variant + s) % NVARIANTS, dest, n ? src_loc + soff : NULL, n, t);
    }
    shmem_barrier_all();
    for (int i = 0; i < nslots; i++) {
        int src = ring ? (me + npes - shift_first(ring)) % npes : i;
        check_region(k, "put", dst_sym, (size_t)i * slot, (size_t)(i + 1) * slot, doff, n, src,
                     salt);
    }
}

/* Gets from every PE (ring == 0) or from the right neighbour. */
static void run_get(const struct kind *k, size_t n, size_t doff, size_t soff, unsigned salt,
                    int variant, int ring)
{
    size_t region = 2 * GUARD + doff + n * k->esize;
    k->fill(src_sym + soff, n, me, salt);
    shmem_barrier_all();
    for (int s = shift_first(ring); s < shift_end(ring); s++) {
        int t = (me + s) % npes;
        test_fill_guard(dst_loc, region);
        k->get((variant + s) % NVARIANTS, n ? dst_loc + GUARD + doff : NULL, src_sym + soff, n, t);
        check_region(k, "get", dst_loc, 0, region, doff, n, t, salt);
    }
    shmem_barrier_all(); /* nobody refills src_sym while others read it */
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();

    slot_bytes = (2 * GUARD + 8 + MAX_SMALL * 16 + 63) & ~(size_t)63;
    big_slot_bytes = 2 * GUARD + 8 + BIG_BYTES;
    size_t dst_bytes = (size_t)npes * slot_bytes;
    if (dst_bytes < big_slot_bytes)
        dst_bytes = big_slot_bytes;
    dst_sym = shmem_align(64, dst_bytes);
    src_sym = shmem_align(64, BIG_BYTES + 64);
    pg_buf = shmem_align(64, 2 * (size_t)npes * 16);
    src_loc = aligned_alloc(64, BIG_BYTES + 64);
    /* aligned_alloc wants a size that is a multiple of the alignment */
    dst_loc = aligned_alloc(64, (big_slot_bytes + 64 + 63) / 64 * 64);
    CHECK(dst_sym && src_sym && pg_buf && src_loc && dst_loc, "allocation failed");
    if (!(dst_sym && src_sym && pg_buf && src_loc && dst_loc))
        return check_finish();

    const size_t counts[] = {0, 1, 7, 64, MAX_SMALL};
    const size_t ncounts = sizeof counts / sizeof counts[0];
    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        const struct kind *k = &kinds[ki];
        for (size_t ci = 0; ci <= ncounts; ci++) {
            int ring = ci == ncounts;
            size_t n = ring ? BIG_BYTES / k->esize : counts[ci];
            unsigned salt = (unsigned)(ki * 16 + ci);
            int variant = (int)((ki + ci) % NVARIANTS);
            run_put(k, n, 0, 0, salt, variant, ring);
            run_get(k, n, 0, 0, salt, variant, ring);
            if (k->unaligned) {
                run_put(k, n, 3, 5, salt + 7, variant + 1, ring);
                run_get(k, n, 5, 3, salt + 7, variant + 1, ring);
            }
        }
        if (k->pg)
            k->pg((unsigned)ki);
    }

    free(src_loc);
    free(dst_loc);
    shmem_free(pg_buf);
    shmem_free(src_sym);
    shmem_free(dst_sym);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
