/* The deprecated active-set collectives with pSync/pWrk, on subsets of the PEs: the even PEs
 * (logPE_stride 1) and PEs 1..npes-1. shmem_barrier and shmem_sync reuse one pSync back to
 * back; the other collectives alternate two pSync arrays, as old codes do, without a barrier
 * in between; every pSync must be back at SHMEM_SYNC_VALUE after each call. Every element of
 * every result is checked, for every type and operator of T-RED-ASET. */
#include "check.h"

TEST_ALLOW_DEPRECATED

#define NE 23
#define ROUNDS 3

static long psync[2][SHMEM_SYNC_SIZE];
static long barrier_sync[SHMEM_BARRIER_SYNC_SIZE];
static long long pwrk_space[NE / 2 + 1 + SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static int use; /* which pSync the next call takes */

struct set {
    const char *name;
    int start, log_stride, size;
    int me; /* my index in the set, -1 outside */
};

static long *next_psync(void)
{
    return psync[use++ % 2];
}

static void check_psync(const char *what)
{
    long bad = 0;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
            bad += psync[k][i] != SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        bad += barrier_sync[i] != SHMEM_SYNC_VALUE;
    CHECK(bad == 0, "%s: %ld pSync elements changed", what, bad);
}

#define ARGS(s) (s)->start, (s)->log_stride, (s)->size

/* ---- barrier, sync, data collectives -------------------------------------------------------- */

static void data(const struct set *s, uint32_t *s32, uint32_t *d32, uint64_t *s64, uint64_t *d64)
{
    int p = s->me, n = s->size;
    for (int r = 0; r < ROUNDS; r++) {
        shmem_barrier(ARGS(s), barrier_sync); /* same pSync back to back */
        shmem_sync(ARGS(s), barrier_sync);
    }
    int root = n > 1 ? 1 : 0;
    for (size_t i = 0; i < NE; i++) {
        s32[i] = (uint32_t)(p * 1000 + (int)i);
        s64[i] = ((uint64_t)p << 40) + i;
        d32[i] = 7;
        d64[i] = 7;
    }
    shmem_barrier(ARGS(s), barrier_sync);
    shmem_broadcast32(d32, s32, NE, root, ARGS(s), next_psync());
    shmem_broadcast64(d64, s64, NE, root, ARGS(s), next_psync());
    long bad = 0;
    for (size_t i = 0; i < NE; i++) {
        bad += d32[i] != (p == root ? 7u : (uint32_t)(root * 1000 + (int)i));
        bad += d64[i] != (p == root ? 7u : ((uint64_t)root << 40) + i);
    }
    CHECK(bad == 0, "%s broadcast32/64: %ld wrong (the root's dest must stay)", s->name, bad);

    shmem_barrier(ARGS(s), barrier_sync);
    shmem_fcollect32(d32, s32, NE, ARGS(s), next_psync());
    shmem_fcollect64(d64, s64, NE, ARGS(s), next_psync());
    bad = 0;
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < NE; i++) {
            bad += d32[(size_t)j * NE + i] != (uint32_t)(j * 1000 + (int)i);
            bad += d64[(size_t)j * NE + i] != ((uint64_t)j << 40) + i;
        }
    CHECK(bad == 0, "%s fcollect32/64: %ld wrong", s->name, bad);

    shmem_barrier(ARGS(s), barrier_sync);
    shmem_collect32(d32, s32, (size_t)(p % 3 + 1), ARGS(s), next_psync());
    shmem_collect64(d64, s64, (size_t)(p % 3), ARGS(s), next_psync());
    bad = 0;
    size_t at32 = 0, at64 = 0;
    for (int j = 0; j < n; j++) {
        for (int i = 0; i < j % 3 + 1; i++)
            bad += d32[at32++] != (uint32_t)(j * 1000 + i);
        for (int i = 0; i < j % 3; i++)
            bad += d64[at64++] != ((uint64_t)j << 40) + (uint64_t)i;
    }
    CHECK(bad == 0, "%s collect32/64: %ld wrong", s->name, bad);

    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < 3; i++) {
            s32[(size_t)j * 3 + i] = (uint32_t)(p * 100 + j * 10 + (int)i);
            s64[(size_t)j * 3 * 2 + i * 2] = ((uint64_t)p << 40) + (uint64_t)(j * 10) + i;
        }
    shmem_barrier(ARGS(s), barrier_sync);
    shmem_alltoall32(d32, s32, 3, ARGS(s), next_psync());
    shmem_alltoalls64(d64, s64, 1, 2, 3, ARGS(s), next_psync());
    bad = 0;
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < 3; i++) {
            bad += d32[(size_t)j * 3 + i] != (uint32_t)(j * 100 + p * 10 + (int)i);
            bad += d64[(size_t)j * 3 + i] != ((uint64_t)j << 40) + (uint64_t)(p * 10) + i;
        }
    CHECK(bad == 0, "%s alltoall32/alltoalls64: %ld wrong", s->name, bad);
    shmem_barrier(ARGS(s), barrier_sync);
    check_psync(s->name);
}

/* ---- TYPE_OP_to_all ------------------------------------------------------------------------- */

#define V_BIT(p, i) ((1 << (((p) + (int)(i)) % 6)) | (((int)(i)&1) << 6))
#define V_MINMAX(p, i) (((p)*7 + (int)(i)*3) % 11 + 1)
#define V_SUM(p, i) (((p) + (int)(i)) % 5 + 1)
#define V_PROD(p, i) (((p) + (int)(i)) % 4 == 0 ? 2 : 1)
#define F_and(a, b) ((a) & (b))
#define F_or(a, b) ((a) | (b))
#define F_xor(a, b) ((a) ^ (b))
#define F_max(a, b) ((a) > (b) ? (a) : (b))
#define F_min(a, b) ((a) < (b) ? (a) : (b))
#define F_sum(a, b) ((a) + (b))
#define F_prod(a, b) ((a) * (b))

#define TO_ALL_TEST(TYPE, NAME, OP, V)                                                  \
    static void to_all_##NAME##_##OP(const struct set *s, void *sbuf, void *dbuf)       \
    {                                                                                   \
        TYPE *src = sbuf, *dst = dbuf;                                                  \
        for (size_t i = 0; i < NE; i++) {                                               \
            src[i] = (TYPE)V(s->me, i);                                                 \
            dst[i] = (TYPE)0;                                                           \
        }                                                                               \
        shmem_barrier(ARGS(s), barrier_sync);                                           \
        shmem_##NAME##_##OP##_to_all(dst, src, NE, ARGS(s), (TYPE *)(void *)pwrk_space, \
                                     next_psync());                                     \
        /* in place, on the other pSync, right away */                                  \
        shmem_##NAME##_##OP##_to_all(src, src, NE, ARGS(s), (TYPE *)(void *)pwrk_space, \
                                     next_psync());                                     \
        long bad = 0;                                                                   \
        for (size_t i = 0; i < NE; i++) {                                               \
            TYPE want = (TYPE)V(0, i);                                                  \
            for (int j = 1; j < s->size; j++)                                           \
                want = (TYPE)F_##OP(want, (TYPE)V(j, i));                               \
            bad += dst[i] != want;                                                      \
            bad += src[i] != want;                                                      \
        }                                                                               \
        CHECK(bad == 0, "%s " #NAME "_" #OP "_to_all: %ld wrong", s->name, bad);        \
    }
#define TO_ALL_BIT(TYPE, NAME)          \
    TO_ALL_TEST(TYPE, NAME, and, V_BIT) \
    TO_ALL_TEST(TYPE, NAME, or, V_BIT)  \
    TO_ALL_TEST(TYPE, NAME, xor, V_BIT)
#define TO_ALL_MINMAX(TYPE, NAME)          \
    TO_ALL_TEST(TYPE, NAME, max, V_MINMAX) \
    TO_ALL_TEST(TYPE, NAME, min, V_MINMAX)
#define TO_ALL_ARITH(TYPE, NAME)        \
    TO_ALL_TEST(TYPE, NAME, sum, V_SUM) \
    TO_ALL_TEST(TYPE, NAME, prod, V_PROD)
TEST_T_ASET_BIT(TO_ALL_BIT)
TEST_T_ASET_MINMAX(TO_ALL_MINMAX)
TEST_T_ASET_ARITH(TO_ALL_ARITH)

static void reductions(const struct set *s, void *sbuf, void *dbuf)
{
#define CALL_BIT(TYPE, NAME)            \
    to_all_##NAME##_and(s, sbuf, dbuf); \
    to_all_##NAME##_or(s, sbuf, dbuf);  \
    to_all_##NAME##_xor(s, sbuf, dbuf);
#define CALL_MINMAX(TYPE, NAME)         \
    to_all_##NAME##_max(s, sbuf, dbuf); \
    to_all_##NAME##_min(s, sbuf, dbuf);
#define CALL_ARITH(TYPE, NAME)          \
    to_all_##NAME##_sum(s, sbuf, dbuf); \
    to_all_##NAME##_prod(s, sbuf, dbuf);
    TEST_T_ASET_BIT(CALL_BIT)
    TEST_T_ASET_MINMAX(CALL_MINMAX)
    TEST_T_ASET_ARITH(CALL_ARITH)
    shmem_barrier(ARGS(s), barrier_sync);
    check_psync(s->name);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
            psync[k][i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        barrier_sync[i] = SHMEM_SYNC_VALUE;
    size_t bytes = (size_t)npes * NE * 16;
    void *s1 = shmem_malloc(bytes), *d1 = shmem_malloc(bytes);
    void *s2 = shmem_malloc(bytes), *d2 = shmem_malloc(bytes);
    shmem_barrier_all(); /* pSync initialized everywhere */

    struct set sets[2] = {{"even PEs", 0, 1, (npes + 1) / 2, me % 2 ? -1 : me / 2},
                          {"PEs 1..n-1", 1, 0, npes - 1, me >= 1 ? me - 1 : -1}};
    for (int k = 0; k < 2; k++) {
        const struct set *s = &sets[k];
        if (s->size > 0 && s->me >= 0) {
            data(s, s1, d1, s2, d2);
            reductions(s, s1, d1);
        }
        shmem_barrier_all();
    }
    /* The whole world, through the same calls. */
    struct set world = {"world", 0, 0, npes, me};
    data(&world, s1, d1, s2, d2);
    reductions(&world, s1, d1);

    shmem_free(d2);
    shmem_free(s2);
    shmem_free(d1);
    shmem_free(s1);
    int status = check_finish();
    shmem_finalize();
    return status;
}
