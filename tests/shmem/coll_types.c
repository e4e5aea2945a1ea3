/* Every team collective for every type of the specification's tables, checked element by
 * element, on WORLD, the even PEs and the rows and columns of a 2-D split; and one type of each
 * table on SHARED, WORLD in reverse order (negative stride) and a team split from the even
 * team. Also the
 * large-message paths: a pipelined broadcastmem, fcollectmem and a split sum reduction; an
 * alltoallmem whose blocks bypass the cache; and
 * collectmem and alltoallmem back to back with sizes changing every round. The
 * data collectives use the C11 generic names, the reductions the typed ones. */
#include "check.h"

#define NE 37 /* elements per PE: odd, so blocks do not line up with anything */
#define NS 5  /* alltoalls elements per PE pair */
#define BUF (64 * 1024)
#define BIG (1024 * 1024 + 3)
#define BIG_REDUCE 5000

static void *sbuf, *dbuf;

/* ---- Data collectives (T-RMA) --------------------------------------------------------------- */

#define VAL(T, pe, i) TEST_VAL(T, pe, i, 1)
#define SENTINEL(T, i) TEST_VAL(T, 99991, i, 2)

#define DATA_TEST(TYPE, NAME)                                                                     \
    static void data_##NAME(shmem_team_t t, const char *tname)                                    \
    {                                                                                             \
        int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);                                     \
        TYPE *src = sbuf, *dst = dbuf;                                                            \
        long bad;                                                                                 \
        for (int root = 0; root<n; root += n> 1 ? n - 1 : 1) {                                    \
            for (size_t i = 0; i < NE; i++) {                                                     \
                src[i] = VAL(TYPE, p, i);                                                         \
                dst[i] = SENTINEL(TYPE, i);                                                       \
            }                                                                                     \
            shmem_team_sync(t);                                                                   \
            int rc = shmem_broadcast(t, dst, src, NE, root);                                      \
            bad = 0;                                                                              \
            for (size_t i = 0; i < NE; i++)                                                       \
                bad += dst[i] != VAL(TYPE, root, i);                                              \
            CHECK(rc == 0 && bad == 0, "%s " #NAME "_broadcast root %d: rc %d, %ld wrong", tname, \
                  root, rc, bad);                                                                 \
        }                                                                                         \
        for (size_t i = 0; i < NE; i++)                                                           \
            src[i] = VAL(TYPE, p, i);                                                             \
        for (size_t i = 0; i < (size_t)n * NE; i++)                                               \
            dst[i] = SENTINEL(TYPE, i);                                                           \
        shmem_team_sync(t);                                                                       \
        int rc = shmem_fcollect(t, dst, src, NE);                                                 \
        bad = 0;                                                                                  \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t i = 0; i < NE; i++)                                                       \
                bad += dst[(size_t)j * NE + i] != VAL(TYPE, j, i);                                \
        CHECK(rc == 0 && bad == 0, "%s " #NAME "_fcollect: rc %d, %ld wrong", tname, rc, bad);    \
        /* collect: member j contributes j % 4 elements (none for j = 0 mod 4) */                 \
        for (size_t i = 0; i < (size_t)n * NE; i++)                                               \
            dst[i] = SENTINEL(TYPE, i);                                                           \
        shmem_team_sync(t);                                                                       \
        rc = shmem_collect(t, dst, src, (size_t)(p % 4));                                         \
        bad = 0;                                                                                  \
        size_t at = 0;                                                                            \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t i = 0; i < (size_t)(j % 4); i++)                                          \
                bad += dst[at++] != VAL(TYPE, j, i);                                              \
        bad += dst[at] != SENTINEL(TYPE, at);                                                     \
        CHECK(rc == 0 && bad == 0, "%s " #NAME "_collect: rc %d, %ld wrong", tname, rc, bad);     \
        /* alltoall: block j of member p holds (p, j) */                                          \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t i = 0; i < NE; i++) {                                                     \
                src[(size_t)j * NE + i] = VAL(TYPE, p * 64 + j, i);                               \
                dst[(size_t)j * NE + i] = SENTINEL(TYPE, i);                                      \
            }                                                                                     \
        shmem_team_sync(t);                                                                       \
        rc = shmem_alltoall(t, dst, src, NE);                                                     \
        bad = 0;                                                                                  \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t i = 0; i < NE; i++)                                                       \
                bad += dst[(size_t)j * NE + i] != VAL(TYPE, j * 64 + p, i);                       \
        CHECK(rc == 0 && bad == 0, "%s " #NAME "_alltoall: rc %d, %ld wrong", tname, rc, bad);    \
        /* alltoalls: source stride 3, dest stride 2; the gaps in dest stay untouched */          \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t k = 0; k < NS; k++)                                                       \
                src[((size_t)j * NS + k) * 3] = VAL(TYPE, p * 64 + j, k);                         \
        for (size_t i = 0; i < (size_t)n * NS * 2; i++)                                           \
            dst[i] = SENTINEL(TYPE, i);                                                           \
        shmem_team_sync(t);                                                                       \
        rc = shmem_alltoalls(t, dst, src, 2, 3, NS);                                              \
        bad = 0;                                                                                  \
        for (int j = 0; j < n; j++)                                                               \
            for (size_t k = 0; k < NS; k++) {                                                     \
                size_t at2 = ((size_t)j * NS + k) * 2;                                            \
                bad += dst[at2] != VAL(TYPE, j * 64 + p, k);                                      \
                bad += dst[at2 + 1] != SENTINEL(TYPE, at2 + 1);                                   \
            }                                                                                     \
        CHECK(rc == 0 && bad == 0, "%s " #NAME "_alltoalls: rc %d, %ld wrong", tname, rc, bad);   \
        shmem_team_sync(t);                                                                       \
    }
TEST_T_RMA(DATA_TEST)

/* ---- Reductions and scans (T-RED-TEAM) ------------------------------------------------------ */

/* Member p's element i for each operator: small enough that no result overflows a char. */
#define V_BIT(p, i) ((1 << (((p) + (int)(i)) % 6)) | (((int)(i)&1) << 6))
#define V_MINMAX(p, i) (((p)*7 + (int)(i)*3) % 11 + 1)
#define V_SUM(p, i) (((p) + (int)(i)) % 5 + 1)
#define V_PROD(p, i) (((p) + (int)(i)) % 4 == 0 ? 2 : 1)
#define F_AND(a, b) ((a) & (b))
#define F_OR(a, b) ((a) | (b))
#define F_XOR(a, b) ((a) ^ (b))
#define F_MAX(a, b) ((a) > (b) ? (a) : (b))
#define F_MIN(a, b) ((a) < (b) ? (a) : (b))
#define F_SUM(a, b) ((a) + (b))
#define F_PROD(a, b) ((a) * (b))

/* Expected value: the fold of members first..last in team order, in TYPE. */
#define FOLD(TYPE, V, F, first, last, i, out)          \
    do {                                               \
        out = (TYPE)V(first, i);                       \
        for (int j_ = (first) + 1; j_ <= (last); j_++) \
            out = (TYPE)F(out, (TYPE)V(j_, i));        \
    } while (0)

#define RED_TEST(TYPE, NAME, OP, V, F)                                                           \
    static void red_##NAME##_##OP(shmem_team_t t, const char *tname)                             \
    {                                                                                            \
        int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);                                    \
        TYPE *src = sbuf, *dst = dbuf;                                                           \
        for (int in_place = 0; in_place < 2; in_place++) {                                       \
            TYPE *out = in_place ? src : dst;                                                    \
            for (size_t i = 0; i < NE; i++) {                                                    \
                src[i] = (TYPE)V(p, i);                                                          \
                dst[i] = (TYPE)0;                                                                \
            }                                                                                    \
            shmem_team_sync(t);                                                                  \
            int rc = shmem_##NAME##_##OP##_reduce(t, out, src, NE);                              \
            long bad = 0;                                                                        \
            for (size_t i = 0; i < NE; i++) {                                                    \
                TYPE want;                                                                       \
                FOLD(TYPE, V, F, 0, n - 1, i, want);                                             \
                bad += out[i] != want;                                                           \
            }                                                                                    \
            CHECK(rc == 0 && bad == 0, "%s " #NAME "_" #OP "_reduce%s: rc %d, %ld wrong", tname, \
                  in_place ? " in place" : "", rc, bad);                                         \
        }                                                                                        \
    }
#define RED_BIT(TYPE, NAME)                                       \
    RED_TEST(TYPE, NAME, and, V_BIT, F_AND)                       \
    RED_TEST(TYPE, NAME, or, V_BIT, F_OR)                         \
    RED_TEST(TYPE, NAME, xor, V_BIT, F_XOR)                       \
    static void red_bit_##NAME(shmem_team_t t, const char *tname) \
    {                                                             \
        red_##NAME##_and(t, tname);                               \
        red_##NAME##_or(t, tname);                                \
        red_##NAME##_xor(t, tname);                               \
    }
#define RED_MINMAX(TYPE, NAME)                                       \
    RED_TEST(TYPE, NAME, max, V_MINMAX, F_MAX)                       \
    RED_TEST(TYPE, NAME, min, V_MINMAX, F_MIN)                       \
    static void red_minmax_##NAME(shmem_team_t t, const char *tname) \
    {                                                                \
        red_##NAME##_max(t, tname);                                  \
        red_##NAME##_min(t, tname);                                  \
    }
#define SCAN_TEST(TYPE, NAME, KIND, FIRST_EMPTY)                                              \
    static void scan_##NAME##_##KIND(shmem_team_t t, const char *tname)                       \
    {                                                                                         \
        int p = shmem_team_my_pe(t);                                                          \
        TYPE *src = sbuf, *dst = dbuf;                                                        \
        for (size_t i = 0; i < NE; i++) {                                                     \
            src[i] = (TYPE)V_SUM(p, i);                                                       \
            dst[i] = (TYPE)99;                                                                \
        }                                                                                     \
        shmem_team_sync(t);                                                                   \
        int rc = shmem_##NAME##_sum_##KIND(t, dst, src, NE);                                  \
        int last = FIRST_EMPTY ? p - 1 : p;                                                   \
        long bad = 0;                                                                         \
        for (size_t i = 0; i < NE; i++) {                                                     \
            TYPE want = (TYPE)0;                                                              \
            if (last >= 0)                                                                    \
                FOLD(TYPE, V_SUM, F_SUM, 0, last, i, want);                                   \
            bad += dst[i] != want;                                                            \
        }                                                                                     \
        CHECK(rc == 0 && bad == 0, "%s " #NAME "_sum_" #KIND ": rc %d, %ld wrong", tname, rc, \
              bad);                                                                           \
    }
#define RED_ARITH(TYPE, NAME)                                       \
    RED_TEST(TYPE, NAME, sum, V_SUM, F_SUM)                         \
    RED_TEST(TYPE, NAME, prod, V_PROD, F_PROD)                      \
    SCAN_TEST(TYPE, NAME, inscan, 0)                                \
    SCAN_TEST(TYPE, NAME, exscan, 1)                                \
    static void red_arith_##NAME(shmem_team_t t, const char *tname) \
    {                                                               \
        red_##NAME##_sum(t, tname);                                 \
        red_##NAME##_prod(t, tname);                                \
        scan_##NAME##_inscan(t, tname);                             \
        scan_##NAME##_exscan(t, tname);                             \
    }
TEST_T_RED_BIT(RED_BIT)
TEST_T_RED_MINMAX(RED_MINMAX)
TEST_T_RED_ARITH(RED_ARITH)

/* ---- The C11 generic names of the reductions, scans and shmem_sync(team) ------------------- */

static void generics(shmem_team_t t, const char *tname)
{
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    long *ls = sbuf, *ld = ls + 1;
    unsigned *us = (unsigned *)(ls + 2), *ud = us + 1;
    double *ds = (double *)(ls + 4), *dd = ds + 1;
    *ls = p + 1;
    *us = 1u << (p % 31);
    *ds = (double)p;
    CHECK(shmem_sync(t) == 0, "%s: shmem_sync(team)", tname);
    int rc = shmem_sum_reduce(t, ld, ls, 1) | shmem_or_reduce(t, ud, us, 1) |
             shmem_max_reduce(t, dd, ds, 1);
    unsigned want_or = 0;
    for (int j = 0; j < n; j++)
        want_or |= 1u << (j % 31);
    CHECK(rc == 0 && *ld == (long)n * (n + 1) / 2 && *ud == want_or && *dd == n - 1,
          "%s generic reductions: %ld %#x %g", tname, *ld, *ud, *dd);
    rc = shmem_sum_inscan(t, ld, ls, 1);
    CHECK(rc == 0 && *ld == (long)(p + 1) * (p + 2) / 2, "%s shmem_sum_inscan: %ld", tname, *ld);
    rc = shmem_sum_exscan(t, ld, ls, 1);
    CHECK(rc == 0 && *ld == (long)p * (p + 1) / 2, "%s shmem_sum_exscan: %ld", tname, *ld);
    shmem_sync(t);
}

/* ---- Large messages ------------------------------------------------------------------------- */

static void large(shmem_team_t t, const char *tname, unsigned char *big_src, unsigned char *big_dst)
{
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t), root = n / 2;
    test_fill_bytes(big_src, BIG, p, 3);
    memset(big_dst, 0, BIG);
    shmem_team_sync(t);
    int rc = shmem_broadcastmem(t, big_dst, big_src, BIG, root);
    size_t bad = test_bad_byte(big_dst, BIG, root, 3);
    CHECK(rc == 0 && bad == SIZE_MAX, "%s broadcastmem %d bytes: rc %d, first bad byte %zu", tname,
          BIG, rc, bad);
    size_t part = BIG / (size_t)n;
    test_fill_bytes(big_src, part, p, 4);
    shmem_team_sync(t);
    rc = shmem_fcollectmem(t, big_dst, big_src, part);
    for (int j = 0; j < n; j++) {
        bad = test_bad_byte(big_dst + (size_t)j * part, part, j, 4);
        CHECK(rc == 0 && bad == SIZE_MAX, "%s fcollectmem: block of member %d, byte %zu", tname, j,
              bad);
    }
    long *ls = (long *)big_src, *ld = (long *)big_dst;
    for (int in_place = 0; in_place < 2; in_place++) {
        long *out = in_place ? ls : ld;
        for (size_t i = 0; i < BIG_REDUCE; i++)
            ls[i] = (long)(i * 3 + (size_t)p);
        shmem_team_sync(t);
        rc = shmem_long_sum_reduce(t, out, ls, BIG_REDUCE);
        long wrong = 0;
        for (size_t i = 0; i < BIG_REDUCE; i++)
            wrong += out[i] != (long)(i * 3 * (size_t)n) + (long)n * (n - 1) / 2;
        CHECK(rc == 0 && wrong == 0, "%s long_sum_reduce of %d%s: rc %d, %ld wrong", tname,
              BIG_REDUCE, in_place ? " in place" : "", rc, wrong);
    }
    shmem_team_sync(t);
}

/* An alltoallmem in which the members on a node write more than 64 MiB: the library then
 * stores on-node blocks around the cache (it does once the writes exceed the largest cache,
 * so this covers caches of up to 64 MiB). The blocks have an odd size and start 5 bytes
 * into the allocation, so copies begin and end off any alignment; the bytes around dest are
 * guards. Collective over WORLD (it allocates), run on a team of all PEs. */
#define STREAM_BYTES ((size_t)64 << 20)
#define GUARD 64
static void alltoall_streamed(shmem_team_t t, const char *tname)
{
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    size_t block = STREAM_BYTES / ((size_t)n * (size_t)n) + 13, all = block * (size_t)n;
    unsigned char *src = shmem_malloc(all), *guarded = shmem_malloc(all + 2 * GUARD);
    CHECK(src && guarded, "%s: shmem_malloc of 2 x %zu bytes failed", tname, all);
    if (src && guarded) {
        unsigned char *dst = guarded + 5;
        for (int j = 0; j < n; j++)
            test_fill_bytes(src + (size_t)j * block, block, p * 64 + j, 5);
        test_fill_guard(guarded, all + 2 * GUARD);
        shmem_team_sync(t);
        int rc = shmem_alltoallmem(t, dst, src, block);
        size_t bad = SIZE_MAX;
        int who = -1;
        for (int j = 0; j < n && bad == SIZE_MAX; j++) {
            bad = test_bad_byte(dst + (size_t)j * block, block, j * 64 + p, 5);
            who = j;
        }
        CHECK(rc == 0 && bad == SIZE_MAX,
              "%s alltoallmem of %zu-byte blocks: rc %d, block %d "
              "byte %zu",
              tname, block, rc, who, bad);
        size_t before = test_bad_guard(guarded, 0, 5);
        size_t after = test_bad_guard(guarded, 5 + all, all + 2 * GUARD);
        CHECK(before == SIZE_MAX && after == SIZE_MAX,
              "%s alltoallmem of %zu-byte blocks wrote outside dest: guard byte %zu", tname, block,
              before != SIZE_MAX ? before : after);
    }
    shmem_team_sync(t);
    shmem_free(guarded);
    shmem_free(src);
}

/* collectmem and alltoallmem back to back with no sync between them, sizes changing every
 * round (collect: 0 for some members), into two dest halves used in turn: a call only writes a
 * member's dest once that member has entered the call before, so each result can be checked
 * before the next call. Sources are rewritten at once after each call. */
#define ROUNDS 6
static void back_to_back(shmem_team_t t, const char *tname, unsigned char *big_src,
                         unsigned char *big_dst)
{
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);
    shmem_team_sync(t);
    for (int r = 0; r < ROUNDS; r++) {
        unsigned char *dst = big_dst; /* collects in the first half, alltoalls in the second */
        size_t mine = (size_t)((p * 7 + r * 3) % 5) * 997;
        test_fill_bytes(big_src, mine, p, (unsigned)r);
        int rc = shmem_collectmem(t, dst, big_src, mine);
        size_t at = 0, bad = SIZE_MAX;
        int who = -1;
        for (int j = 0; j < n && bad == SIZE_MAX; j++) {
            size_t len = (size_t)((j * 7 + r * 3) % 5) * 997;
            bad = test_bad_byte(dst + at, len, j, (unsigned)r);
            who = j;
            at += len;
        }
        CHECK(rc == 0 && bad == SIZE_MAX, "%s collectmem round %d: rc %d, member %d byte %zu",
              tname, r, rc, who, bad);
        dst = big_dst + BIG / 2;
        size_t block = 1500 + (size_t)r * 13;
        for (int j = 0; j < n; j++)
            test_fill_bytes(big_src + (size_t)j * block, block, p * 64 + j, (unsigned)r + 8);
        rc = shmem_alltoallmem(t, dst, big_src, block);
        bad = SIZE_MAX;
        for (int j = 0; j < n && bad == SIZE_MAX; j++) {
            bad = test_bad_byte(dst + (size_t)j * block, block, j * 64 + p, (unsigned)r + 8);
            who = j;
        }
        CHECK(rc == 0 && bad == SIZE_MAX, "%s alltoallmem round %d: rc %d, block %d byte %zu",
              tname, r, rc, who, bad);
    }
    shmem_team_sync(t);
}

/* Every type on the teams the spec's checklist names (WORLD, strided, 2-D); one type of each
 * table on the others, which test the team layout rather than the types. */
static void run_all(shmem_team_t t, const char *tname, int every_type, unsigned char *big_src,
                    unsigned char *big_dst)
{
    if (t == SHMEM_TEAM_INVALID)
        return;
    CHECK(shmem_team_sync(t) == 0, "%s: team_sync failed", tname);
    generics(t, tname);
    if (every_type) {
#define CALL_DATA(TYPE, NAME) data_##NAME(t, tname);
#define CALL_BIT(TYPE, NAME) red_bit_##NAME(t, tname);
#define CALL_MINMAX(TYPE, NAME) red_minmax_##NAME(t, tname);
#define CALL_ARITH(TYPE, NAME) red_arith_##NAME(t, tname);
        TEST_T_RMA(CALL_DATA)
        TEST_T_RED_BIT(CALL_BIT)
        TEST_T_RED_MINMAX(CALL_MINMAX)
        TEST_T_RED_ARITH(CALL_ARITH)
    } else {
        data_long(t, tname);
        red_bit_uint64(t, tname);
        red_minmax_double(t, tname);
        red_arith_complexd(t, tname);
    }
    large(t, tname, big_src, big_dst);
    back_to_back(t, tname, big_src, big_dst);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    sbuf = shmem_malloc(BUF);
    dbuf = shmem_malloc(BUF);
    unsigned char *big_src = shmem_malloc(BIG), *big_dst = shmem_malloc(BIG);
    CHECK(sbuf && dbuf && big_src && big_dst, "shmem_malloc failed");
    if (!sbuf || !dbuf || !big_src || !big_dst)
        return check_finish();

    shmem_team_t even, reversed, sub, xteam, yteam;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
    CHECK(rc == 0 && (even != SHMEM_TEAM_INVALID) == (me % 2 == 0), "split evens: rc %d", rc);
    rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &reversed);
    CHECK(rc == 0 && shmem_team_my_pe(reversed) == npes - 1 - me, "split reversed: rc %d, me %d",
          rc, shmem_team_my_pe(reversed));
    sub = SHMEM_TEAM_INVALID;
    if (even != SHMEM_TEAM_INVALID && shmem_team_n_pes(even) > 1) {
        rc = shmem_team_split_strided(even, 1, 1, shmem_team_n_pes(even) - 1, NULL, 0, &sub);
        CHECK(rc == 0, "split of the even team: rc %d", rc);
    }
    rc = shmem_team_split_2d(SHMEM_TEAM_WORLD, 3, NULL, 0, &xteam, NULL, 0, &yteam);
    CHECK(rc == 0 && shmem_team_my_pe(xteam) == me % 3 && shmem_team_my_pe(yteam) == me / 3,
          "split_2d: rc %d, x %d, y %d", rc, shmem_team_my_pe(xteam), shmem_team_my_pe(yteam));

    run_all(SHMEM_TEAM_WORLD, "WORLD", 1, big_src, big_dst);
    run_all(even, "even", 1, big_src, big_dst);
    run_all(xteam, "2d-x", 1, big_src, big_dst);
    run_all(yteam, "2d-y", 1, big_src, big_dst);
    run_all(SHMEM_TEAM_SHARED, "SHARED", 0, big_src, big_dst);
    run_all(reversed, "reversed", 0, big_src, big_dst);
    run_all(sub, "even[1:]", 0, big_src, big_dst);
    alltoall_streamed(SHMEM_TEAM_WORLD, "WORLD");
    alltoall_streamed(reversed, "reversed");

    shmem_team_destroy(sub);
    shmem_team_destroy(even);
    shmem_team_destroy(reversed);
    shmem_team_destroy(xteam);
    shmem_team_destroy(yteam);
    shmem_free(big_dst);
    shmem_free(big_src);
    shmem_free(dbuf);
    shmem_free(sbuf);
    int status = check_finish();
    shmem_finalize();
    return status;
}
