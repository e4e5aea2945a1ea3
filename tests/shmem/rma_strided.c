/* Strided RMA: iput/iget and ibput/ibget (1.6) for every T-RMA type and every SIZE.
 *
 * iput/iget run with strides dst, sst in {1, 2, 3, 7} and nelems in {0, 1, 5, 100}; ibput/ibget
 * with bsize in {1, 2, 5}, block strides in {bsize, bsize + 1, 2 * bsize + 3} and nblocks in
 * {0, 1, 5, 20}. Every case writes its own guarded region of one destination buffer that was
 * filled with a guard pattern first; afterwards every destination element must hold the source
 * element it maps to (PE- and index-dependent values), and every byte between the strided
 * elements and around the region must be untouched. Puts go to the PE itself and to the right
 * neighbour, gets come from the same PEs. Calls rotate through the typed, ctx and (for typed
 * kinds) C11 generic forms. */
#include "check.h"

#define GUARD 64
#define SRC_ELEMS 704 /* the largest source extent: 99 * 7 + 1 */
#define NVARIANTS 4   /* typed, ctx, C11 generic, C11 generic with ctx */

typedef void (*strided_fn)(int variant, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t nelems, int pe);
typedef void (*blocked_fn)(int variant, void *dest, const void *source, ptrdiff_t dst,
                           ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);

struct kind {
    const char *name;
    size_t esize;
    strided_fn iput, iget;
    blocked_fn ibput, ibget;
    void (*fill)(void *buf, size_t n, int pe, unsigned salt);
    int (*eq)(const void *elem, int pe, size_t i, unsigned salt);
};

/* One call: iput/iget (blocked == 0, bsize 1) or ibput/ibget. */
struct scase {
    int blocked;
    ptrdiff_t dst, sst;
    size_t bsize, nblocks;
};

#define MAX_CASES 256
static struct scase cases[MAX_CASES];
static size_t ncases;

static int me, npes;
static char *dst_sym, *src_sym; /* symmetric: put destination, get source */
static char *dst_loc, *src_loc; /* private: get destination, put source */
static size_t region_max;       /* bytes of all case regions at the largest element size */

TEST_T_RMA(TEST_DEFINE_PATTERN)
TEST_SIZES(TEST_DEFINE_BITS_PATTERN)

/* ---- Calls ----------------------------------------------------------------------------------- */
#define DEFINE_TYPED(T, N)                                                                       \
    static void iput_##N(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                         int pe)                                                                 \
    {                                                                                            \
        switch (v) {                                                                             \
        case 0:                                                                                  \
            shmem_##N##_iput(d, s, dst, sst, n, pe);                                             \
            break;                                                                               \
        case 1:                                                                                  \
            shmem_ctx_##N##_iput(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);                      \
            break;                                                                               \
        case 2:                                                                                  \
            shmem_iput((T *)d, (const T *)s, dst, sst, n, pe);                                   \
            break;                                                                               \
        default:                                                                                 \
            shmem_iput(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, dst, sst, n, pe);                \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
    static void iget_##N(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                         int pe)                                                                 \
    {                                                                                            \
        switch (v) {                                                                             \
        case 0:                                                                                  \
            shmem_##N##_iget(d, s, dst, sst, n, pe);                                             \
            break;                                                                               \
        case 1:                                                                                  \
            shmem_ctx_##N##_iget(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);                      \
            break;                                                                               \
        case 2:                                                                                  \
            shmem_iget((T *)d, (const T *)s, dst, sst, n, pe);                                   \
            break;                                                                               \
        default:                                                                                 \
            shmem_iget(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, dst, sst, n, pe);                \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
    static void ibput_##N(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, \
                          size_t nb, int pe)                                                     \
    {                                                                                            \
        switch (v) {                                                                             \
        case 0:                                                                                  \
            shmem_##N##_ibput(d, s, dst, sst, b, nb, pe);                                        \
            break;                                                                               \
        case 1:                                                                                  \
            shmem_ctx_##N##_ibput(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, nb, pe);                 \
            break;                                                                               \
        case 2:                                                                                  \
            shmem_ibput((T *)d, (const T *)s, dst, sst, b, nb, pe);                              \
            break;                                                                               \
        default:                                                                                 \
            shmem_ibput(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, dst, sst, b, nb, pe);           \
            break;                                                                               \
        }                                                                                        \
    }                                                                                            \
    static void ibget_##N(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, \
                          size_t nb, int pe)                                                     \
    {                                                                                            \
        switch (v) {                                                                             \
        case 0:                                                                                  \
            shmem_##N##_ibget(d, s, dst, sst, b, nb, pe);                                        \
            break;                                                                               \
        case 1:                                                                                  \
            shmem_ctx_##N##_ibget(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, nb, pe);                 \
            break;                                                                               \
        case 2:                                                                                  \
            shmem_ibget((T *)d, (const T *)s, dst, sst, b, nb, pe);                              \
            break;                                                                               \
        default:                                                                                 \
            shmem_ibget(SHMEM_CTX_DEFAULT, (T *)d, (const T *)s, dst, sst, b, nb, pe);           \
            break;                                                                               \
        }                                                                                        \
    }
TEST_T_RMA(DEFINE_TYPED)

#define DEFINE_SIZED(S)                                                                          \
    static void iput_##S(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                         int pe)                                                                 \
    {                                                                                            \
        if (v & 1)                                                                               \
            shmem_ctx_iput##S(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);                         \
        else                                                                                     \
            shmem_iput##S(d, s, dst, sst, n, pe);                                                \
    }                                                                                            \
    static void iget_##S(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t n,  \
                         int pe)                                                                 \
    {                                                                                            \
        if (v & 1)                                                                               \
            shmem_ctx_iget##S(SHMEM_CTX_DEFAULT, d, s, dst, sst, n, pe);                         \
        else                                                                                     \
            shmem_iget##S(d, s, dst, sst, n, pe);                                                \
    }                                                                                            \
    static void ibput_##S(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, \
                          size_t nb, int pe)                                                     \
    {                                                                                            \
        if (v & 1)                                                                               \
            shmem_ctx_ibput##S(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, nb, pe);                    \
        else                                                                                     \
            shmem_ibput##S(d, s, dst, sst, b, nb, pe);                                           \
    }                                                                                            \
    static void ibget_##S(int v, void *d, const void *s, ptrdiff_t dst, ptrdiff_t sst, size_t b, \
                          size_t nb, int pe)                                                     \
    {                                                                                            \
        if (v & 1)                                                                               \
            shmem_ctx_ibget##S(SHMEM_CTX_DEFAULT, d, s, dst, sst, b, nb, pe);                    \
        else                                                                                     \
            shmem_ibget##S(d, s, dst, sst, b, nb, pe);                                           \
    }
TEST_SIZES(DEFINE_SIZED)

#define KIND_TYPED(T, N) \
    {#N, sizeof(T), iput_##N, iget_##N, ibput_##N, ibget_##N, test_fill_##N, test_eq_##N},
#define KIND_SIZED(S)                                    \
    {"SIZE " #S, S / 8,     iput_##S,          iget_##S, \
     ibput_##S,  ibget_##S, test_fill_bits##S, test_eq_bits##S},
// clang-format off
static const struct kind kinds[] = {
    TEST_T_RMA(KIND_TYPED)
    TEST_SIZES(KIND_SIZED)
};
// clang-format on

/* ---- Cases and their regions --------------------------------------------------------------------
 */
static void add_case(int blocked, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks)
{
    if (ncases < MAX_CASES)
        cases[ncases++] = (struct scase){blocked, dst, sst, bsize, nblocks};
}

static void make_cases(void)
{
    const ptrdiff_t strides[] = {1, 2, 3, 7};
    const size_t nelems[] = {0, 1, 5, 100};
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            for (int n = 0; n < 4; n++)
                add_case(0, strides[a], strides[b], 1, nelems[n]);
    const size_t bsizes[] = {1, 2, 5}, nblocks[] = {0, 1, 5, 20};
    for (int k = 0; k < 3; k++) {
        size_t bs = bsizes[k];
        const ptrdiff_t bstrides[] = {(ptrdiff_t)bs, (ptrdiff_t)bs + 1, 2 * (ptrdiff_t)bs + 3};
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                for (int n = 0; n < 4; n++)
                    add_case(1, bstrides[a], bstrides[b], bs, nblocks[n]);
    }
}

/* Elements spanned in the destination. */
static size_t extent(const struct scase *c)
{
    return c->nblocks ? (c->nblocks - 1) * (size_t)c->dst + c->bsize : 0;
}

/* Bytes of a case's guarded region: guard, extent, guard, rounded up to 64. */
static size_t region_bytes(const struct scase *c, size_t esize)
{
    return (2 * GUARD + extent(c) * esize + 63) & ~(size_t)63;
}

/* Checks one case's region at base + off: mapped elements, gaps, guards. */
static void check_case(const struct kind *k, const char *op, const struct scase *c,
                       const char *base, size_t off, int src, unsigned salt)
{
    size_t esize = k->esize, ext = extent(c), data = off + GUARD;
    size_t nbad = 0, first = SIZE_MAX;
    for (size_t j = 0; j < ext; j++) {
        size_t b = j / (size_t)c->dst, e = j % (size_t)c->dst, at = data + j * esize;
        int ok = e < c->bsize && b < c->nblocks
                     ? k->eq(base + at, src, b * (size_t)c->sst + e, salt)
                     : test_bad_guard(base, at, at + esize) == SIZE_MAX;
        if (!ok && nbad++ == 0)
            first = j;
    }
    CHECK(nbad == 0,
          "%s %s dst=%td sst=%td bsize=%zu n=%zu PE %d: %zu of %zu elements wrong, first %zu", op,
          k->name, c->dst, c->sst, c->bsize, c->nblocks, src, nbad, ext, first);
    size_t g = test_bad_guard(base, off, data);
    CHECK(g == SIZE_MAX, "%s %s dst=%td sst=%td bsize=%zu n=%zu PE %d: guard before changed", op,
          k->name, c->dst, c->sst, c->bsize, c->nblocks, src);
    g = test_bad_guard(base, data + ext * esize, off + region_bytes(c, esize));
    CHECK(g == SIZE_MAX, "%s %s dst=%td sst=%td bsize=%zu n=%zu PE %d: guard after changed", op,
          k->name, c->dst, c->sst, c->bsize, c->nblocks, src);
}

static void check_all(const struct kind *k, const char *base, int src, unsigned salt,
                      const char *op_strided, const char *op_blocked)
{
    size_t off = 0;
    for (size_t i = 0; i < ncases; i++) {
        check_case(k, cases[i].blocked ? op_blocked : op_strided, &cases[i], base, off, src, salt);
        off += region_bytes(&cases[i], k->esize);
    }
}

/* Every PE iputs/ibputs every case into PE me + shift. */
static void run_put(const struct kind *k, int shift, unsigned salt)
{
    int t = (me + shift) % npes, src = (me - shift + npes) % npes;
    test_fill_guard(dst_sym, region_max);
    k->fill(src_loc, SRC_ELEMS, me, salt);
    shmem_barrier_all();
    size_t off = 0;
    for (size_t i = 0; i < ncases; i++) {
        const struct scase *c = &cases[i];
        char *dest = dst_sym + off + GUARD;
        int v = (int)(i % NVARIANTS);
        if (c->blocked)
            k->ibput(v, dest, src_loc, c->dst, c->sst, c->bsize, c->nblocks, t);
        else
            k->iput(v, dest, src_loc, c->dst, c->sst, c->nblocks, t);
        off += region_bytes(c, k->esize);
    }
    shmem_barrier_all();
    check_all(k, dst_sym, src, salt, "iput", "ibput");
}

/* Every PE igets/ibgets every case from PE me + shift. */
static void run_get(const struct kind *k, int shift, unsigned salt)
{
    int t = (me + shift) % npes;
    k->fill(src_sym, SRC_ELEMS, me, salt);
    test_fill_guard(dst_loc, region_max);
    shmem_barrier_all();
    size_t off = 0;
    for (size_t i = 0; i < ncases; i++) {
        const struct scase *c = &cases[i];
        char *dest = dst_loc + off + GUARD;
        int v = (int)((i + 1) % NVARIANTS);
        if (c->blocked)
            k->ibget(v, dest, src_sym, c->dst, c->sst, c->bsize, c->nblocks, t);
        else
            k->iget(v, dest, src_sym, c->dst, c->sst, c->nblocks, t);
        off += region_bytes(c, k->esize);
    }
    check_all(k, dst_loc, t, salt, "iget", "ibget");
    shmem_barrier_all(); /* nobody refills src_sym while others read it */
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    make_cases();
    for (size_t i = 0; i < ncases; i++)
        region_max += region_bytes(&cases[i], 16);

    dst_sym = shmem_align(64, region_max);
    src_sym = shmem_align(64, SRC_ELEMS * 16);
    dst_loc = aligned_alloc(64, region_max);
    src_loc = aligned_alloc(64, SRC_ELEMS * 16);
    CHECK(dst_sym && src_sym && dst_loc && src_loc, "allocation failed");
    if (!(dst_sym && src_sym && dst_loc && src_loc))
        return check_finish();

    for (size_t ki = 0; ki < sizeof kinds / sizeof kinds[0]; ki++) {
        for (int shift = 0; shift < (npes > 1 ? 2 : 1); shift++) {
            unsigned salt = (unsigned)(ki * 4 + (size_t)shift);
            run_put(&kinds[ki], shift, salt);
            run_get(&kinds[ki], shift, salt + 2);
        }
    }

    free(dst_loc);
    free(src_loc);
    shmem_free(src_sym);
    shmem_free(dst_sym);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
