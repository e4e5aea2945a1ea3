/* The collectives' traffic across the top of the switch tree (coll.h's counters), exact, on 4
 * nodes of P PEs each under two leaf switches (tests/topo/two-switches.conf), summed over the
 * PEs. With the switch level (TEST_EXPECT=switches): a sync sends one signal each way between
 * the two switch leaders; a broadcast one copy of the data; a small reduction one partial each
 * way; a large (split) one its gets and then each share once; an fcollect one copy of every block
 * (and one signal each way); a collect (of blocks of different sizes) one copy of every member's
 * size and of every block; an alltoall one copy of every block that crosses. With node leaders only
 * (TEST_EXPECT=nodes, PANGEA_COLL_SWITCHES=0), an fcollect and a collect send every block to both
 * nodes of the other switch. Every result is checked too. Other layouts: SKIP. */
#include "check.h"
#include "coll/coll.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <shmem.h>
#include <stdio.h>

#define BLOCK 1000

static long long *sums; /* symmetric: [2] messages, bytes summed over the PEs */

static void add_u64(void *acc, const void *in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        ((uint64_t *)acc)[i] += ((const uint64_t *)in)[i];
}

static struct pg_coll_traffic snapshot(enum pg_coll_kind kind)
{
    struct pg_coll_traffic t;
    pg_coll_traffic(kind, &t);
    return t;
}

/* The job's total of kind's traffic since `before` (mine). */
static void total_since(enum pg_coll_kind kind, struct pg_coll_traffic before, long long *messages,
                        long long *bytes)
{
    struct pg_coll_traffic now = snapshot(kind);
    static long long mine[2];
    mine[0] = (long long)(now.messages - before.messages);
    mine[1] = (long long)(now.bytes - before.bytes);
    shmem_barrier_all();
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, sums, mine, 2);
    *messages = sums[0];
    *bytes = sums[1];
}

/* The leaf switch of PE pe, and its place among the PEs under that switch. */
static int switch_of(int pe)
{
    return pg_topo_leaf_switch(pg_world.node_of[pe]);
}

static int place_under_switch(int pe, int *size)
{
    int place = 0;
    *size = 0;
    for (int k = 0; k < shmem_n_pes(); k++)
        if (switch_of(k) == switch_of(pe)) {
            place += k < pe;
            (*size)++;
        }
    return place;
}

/* A reduction of count elements of elem bytes over the world, with the switch level: what
 * crosses the top (reduce.c). Gathered (up to the landing slot): one partial each way. Split:
 * three syncs (a signal each way each); each member's share fetched from every member under the
 * other switch whose slice (elements count*q/k to count*(q+1)/k, for the q-th of the switch's k
 * PEs) overlaps it, one get each; then the shares once to the other switch (a run and a signal
 * each way). */
static void reduce_across(size_t count, size_t elem, long long *messages, long long *bytes)
{
    int npes = shmem_n_pes();
    const struct pangea_team *world = (const struct pangea_team *)SHMEM_TEAM_WORLD;
    if (count * elem <= world->slot_size) {
        *messages = 2;
        *bytes = 2 * (long long)(count * elem);
        return;
    }
    *messages = 3 * 2 + 4;
    *bytes = 3 * 16 + (long long)(count * elem) + 16;
    for (int j = 0; j < npes; j++) {
        size_t lo = count * (size_t)j / (size_t)npes, hi = count * (size_t)(j + 1) / (size_t)npes;
        for (int k = 0; k < npes; k++) {
            if (switch_of(k) == switch_of(j))
                continue;
            int size, q = place_under_switch(k, &size);
            size_t a = count * (size_t)q / (size_t)size, b = count * (size_t)(q + 1) / (size_t)size;
            a = a > lo ? a : lo;
            b = b < hi ? b : hi;
            if (a < b) {
                (*messages)++;
                *bytes += (long long)((b - a) * elem);
            }
        }
    }
}

/* A scan over the world, with the switch level: two syncs (a signal each way each) and, at
 * each change of switch in PE order, the prefix of the PEs before, once. */
static void scan_across(size_t count, size_t elem, long long *messages, long long *bytes)
{
    int changes = 0;
    for (int pe = 1; pe < shmem_n_pes(); pe++)
        changes += switch_of(pe) != switch_of(pe - 1);
    *messages = 2 * 2 + changes;
    *bytes = 2 * 16 + changes * (long long)(count * elem);
}

/* Every operator of the typed reductions on one type of each kind the tests cover (a signed and
 * a floating type: sum, prod, min, max; an unsigned type: and, or, xor), and both sum scans, at
 * three sizes: one element (gathered), a few hundred (split across switches: the shares do not
 * line up with the slices) and more than any slot (split). Every element of every result
 * exact, the element after it untouched; with the switch level, the messages and bytes across
 * the top exact. */
#define SIZES 3
#define OPS_SIGNED(X, T, NAME) X(T, NAME, sum) X(T, NAME, prod) X(T, NAME, min) X(T, NAME, max)
#define OPS_BITS(X, T, NAME) X(T, NAME, and) X(T, NAME, or) X(T, NAME, xor)
#define TYPED_REDUCTIONS(X)       \
    OPS_SIGNED(X, long, long)     \
    OPS_SIGNED(X, double, double) \
    OPS_BITS(X, uint32_t, uint32)
#define TYPED_SCANS(X) X(long, long) X(double, double)

/* PE pe's element i: small, so that products of every PE's stay exact. */
#define SRC_VAL(T, pe, i) ((T)(((pe) + (i)) % 3 + 1 + 3 * (((pe)*5 + (i)) % 7 == 0)))
#define COMBINE_sum(a, b) ((a) + (b))
#define COMBINE_prod(a, b) ((a) * (b))
#define COMBINE_min(a, b) ((b) < (a) ? (b) : (a))
#define COMBINE_max(a, b) ((b) > (a) ? (b) : (a))
#define COMBINE_and(a, b) ((a) & (b))
#define COMBINE_or(a, b) ((a) | (b))
#define COMBINE_xor(a, b) ((a) ^ (b))
#define GUARD_VAL(T) ((T)12345)

static void *tsrc, *tdst; /* symmetric */

static void check_traffic(const char *what, enum pg_coll_kind kind, struct pg_coll_traffic t0,
                          int aware, long long want_m, long long want_b)
{
    long long m, b;
    total_since(kind, t0, &m, &b);
    if (aware)
        CHECK(m == want_m && b == want_b, "%s: %lld messages, %lld bytes across (want %lld, %lld)",
              what, m, b, want_m, want_b);
}

#define REDUCE_CASE(T, NAME, OP)                                               \
    {                                                                          \
        T *s = tsrc, *d = tdst;                                                \
        for (size_t i = 0; i < count; i++)                                     \
            s[i] = SRC_VAL(T, me, i);                                          \
        d[count] = GUARD_VAL(T);                                               \
        shmem_barrier_all();                                                   \
        struct pg_coll_traffic t0 = snapshot(PG_COLL_REDUCE);                  \
        int rc = shmem_##NAME##_##OP##_reduce(SHMEM_TEAM_WORLD, d, s, count);  \
        long long want_m, want_b;                                              \
        reduce_across(count, sizeof(T), &want_m, &want_b);                     \
        snprintf(what, sizeof what, "%s_%s_reduce of %zu", #NAME, #OP, count); \
        check_traffic(what, PG_COLL_REDUCE, t0, aware, want_m, want_b);        \
        long bad = rc != 0;                                                    \
        for (size_t i = 0; i < count; i++) {                                   \
            T want = SRC_VAL(T, 0, i);                                         \
            for (int pe = 1; pe < npes; pe++)                                  \
                want = (T)COMBINE_##OP(want, SRC_VAL(T, pe, i));               \
            bad += d[i] != want;                                               \
        }                                                                      \
        bad += d[count] != GUARD_VAL(T);                                       \
        CHECK(bad == 0, "%s: %ld wrong", what, bad);                           \
    }

#define SCAN_CASE(T, NAME)                                                                      \
    for (int exclusive = 0; exclusive < 2; exclusive++) {                                       \
        T *s = tsrc, *d = tdst;                                                                 \
        for (size_t i = 0; i < count; i++)                                                      \
            s[i] = SRC_VAL(T, me, i);                                                           \
        d[count] = GUARD_VAL(T);                                                                \
        shmem_barrier_all();                                                                    \
        struct pg_coll_traffic t0 = snapshot(PG_COLL_SCAN);                                     \
        int rc = exclusive ? shmem_##NAME##_sum_exscan(SHMEM_TEAM_WORLD, d, s, count)           \
                           : shmem_##NAME##_sum_inscan(SHMEM_TEAM_WORLD, d, s, count);          \
        long long want_m, want_b;                                                               \
        scan_across(count, sizeof(T), &want_m, &want_b);                                        \
        snprintf(what, sizeof what, "%s_sum_%s of %zu", #NAME, exclusive ? "exscan" : "inscan", \
                 count);                                                                        \
        check_traffic(what, PG_COLL_SCAN, t0, aware, want_m, want_b);                           \
        long bad = rc != 0;                                                                     \
        for (size_t i = 0; i < count; i++) {                                                    \
            T want = 0;                                                                         \
            for (int pe = 0; pe < me + !exclusive; pe++)                                        \
                want += SRC_VAL(T, pe, i);                                                      \
            bad += d[i] != want;                                                                \
        }                                                                                       \
        bad += d[count] != GUARD_VAL(T);                                                        \
        CHECK(bad == 0, "%s: %ld wrong", what, bad);                                            \
    }

static void run_typed(int npes, int aware)
{
    int me = shmem_my_pe();
    const struct pangea_team *world = (const struct pangea_team *)SHMEM_TEAM_WORLD;
    size_t sizes[SIZES] = {1, 301, world->slot_size / sizeof(uint32_t) + (size_t)npes * 7 + 1};
    char what[96];
    tsrc = shmem_malloc((sizes[SIZES - 1] + 1) * sizeof(double));
    tdst = shmem_malloc((sizes[SIZES - 1] + 1) * sizeof(double));
    CHECK(tsrc && tdst, "shmem_malloc of %zu elements", sizes[SIZES - 1] + 1);
    for (int z = 0; z < SIZES && tsrc && tdst; z++) {
        size_t count = sizes[z];
        TYPED_REDUCTIONS(REDUCE_CASE)
        TYPED_SCANS(SCAN_CASE)
    }
    shmem_free(tdst);
    shmem_free(tsrc);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int p = pg_world.local_size, nodes = pg_world.nnodes;
    const char *expect = getenv("TEST_EXPECT");
    if (nodes != 4 || p * nodes != npes || pg_world.max_local_size != p || !expect) {
        if (me == 0)
            printf("SKIP coll_traffic: needs 4 nodes with the same PEs each and TEST_EXPECT\n");
        shmem_finalize();
        return 0;
    }
    int aware = strcmp(expect, "switches") == 0;
    sums = shmem_malloc(2 * sizeof *sums);
    uint64_t *src = shmem_malloc((size_t)npes * BLOCK * sizeof *src);
    uint64_t *dst = shmem_malloc((size_t)npes * BLOCK * sizeof *dst);
    long long m, b;
    long long half = 2LL * p; /* PEs under one switch */

    struct pg_coll_traffic t0 = snapshot(PG_COLL_SYNC);
    pg_team_sync(SHMEM_TEAM_WORLD);
    total_since(PG_COLL_SYNC, t0, &m, &b);
    if (aware)
        CHECK(m == 2 && b == 16, "sync: %lld messages, %lld bytes across (want 2, 16)", m, b);
    else
        CHECK(m >= 2, "sync: %lld messages across", m);

    for (int i = 0; i < BLOCK; i++)
        src[i] = (uint64_t)i * 7 + 1;
    shmem_barrier_all(); /* everyone is done reading dest before a peer writes it */
    t0 = snapshot(PG_COLL_BROADCAST);
    pg_coll_broadcast(SHMEM_TEAM_WORLD, dst, src, BLOCK * sizeof *src, npes - 1, 1);
    total_since(PG_COLL_BROADCAST, t0, &m, &b);
    int bad = 0;
    for (int i = 0; i < BLOCK; i++)
        bad += dst[i] != (uint64_t)i * 7 + 1;
    CHECK(bad == 0, "broadcast: %d wrong", bad);
    CHECK(b >= (long long)(BLOCK * sizeof *src), "broadcast: %lld bytes across", b);
    if (aware)
        CHECK(m == 1 && b == BLOCK * sizeof *src,
              "broadcast: %lld messages, %lld bytes across (want one copy: 1, %zu)", m, b,
              BLOCK * sizeof *src);

    src[0] = (uint64_t)me + 1;
    shmem_barrier_all();
    t0 = snapshot(PG_COLL_REDUCE);
    pg_coll_reduce(SHMEM_TEAM_WORLD, dst, src, 1, sizeof *src, add_u64);
    total_since(PG_COLL_REDUCE, t0, &m, &b);
    CHECK(dst[0] == (uint64_t)npes * (npes + 1) / 2, "reduce: %llu", (unsigned long long)dst[0]);
    if (aware)
        CHECK(m == 2 && b == 16, "reduce: %lld messages, %lld bytes across (want 2, 16)", m, b);

    /* A large reduction, split: three syncs (a signal each way each); each member's share
     * fetched from the member under the other switch whose slice overlaps it (the shares line
     * up with the slices here: one get each, and each switch's half of the elements once each
     * way); then the shares go to all as fcollect's blocks do: each switch's shares once to the
     * other (one run, a signal). */
    size_t count = (size_t)npes * BLOCK;
    const struct pangea_team *world = (const struct pangea_team *)SHMEM_TEAM_WORLD;
    CHECK(count * sizeof *src > world->slot_size &&
              count * sizeof *src > (size_t)pg_cfg.coll_reduce_split,
          "reduce: %zu bytes would not be split", count * sizeof *src);
    for (size_t i = 0; i < count; i++)
        src[i] = (uint64_t)me * 3 + i;
    shmem_barrier_all();
    t0 = snapshot(PG_COLL_REDUCE);
    pg_coll_reduce(SHMEM_TEAM_WORLD, dst, src, count, sizeof *src, add_u64);
    total_since(PG_COLL_REDUCE, t0, &m, &b);
    bad = 0;
    for (size_t i = 0; i < count; i++)
        bad += dst[i] != (uint64_t)npes * (npes - 1) / 2 * 3 + (uint64_t)npes * i;
    CHECK(bad == 0, "split reduce: %d wrong", bad);
    long long total = (long long)(count * sizeof *src);
    if (aware)
        CHECK(m == npes + 10 && b == 48 + total + total + 16,
              "split reduce: %lld messages, %lld bytes across (want %lld, %lld)", m, b,
              (long long)npes + 10, 48 + 2 * total + 16);

    run_typed(npes, aware);

    for (int i = 0; i < BLOCK; i++)
        src[i] = (uint64_t)me * BLOCK + (uint64_t)i;
    shmem_barrier_all();
    t0 = snapshot(PG_COLL_FCOLLECT);
    pg_coll_fcollect(SHMEM_TEAM_WORLD, dst, src, BLOCK * sizeof *src);
    total_since(PG_COLL_FCOLLECT, t0, &m, &b);
    bad = 0;
    for (int i = 0; i < npes * BLOCK; i++)
        bad += dst[i] != (uint64_t)i;
    CHECK(bad == 0, "fcollect: %d wrong", bad);
    long long block_bytes = BLOCK * (long long)sizeof *src;
    if (aware) /* each switch's 2P blocks once to the other (one run), and a signal */
        CHECK(m == 2 * 2 && b == 2 * (half * block_bytes + 8),
              "fcollect: %lld messages, %lld bytes across (want 4, %lld)", m, b,
              2 * (half * block_bytes + 8));
    else /* each node's P blocks to both nodes of the other switch */
        CHECK(m == 4 * 2 * 2 && b == 4 * 2 * (p * block_bytes + 8),
              "fcollect: %lld messages, %lld bytes across (want 16, %lld)", m, b,
              4 * 2 * (p * block_bytes + 8));

    /* Member i contributes i % 3 + 1 rows of ROW elements. */
    const size_t row = 100;
    size_t rows_before = 0, rows_total = 0;
    for (int i = 0; i < npes; i++) {
        if (i < me)
            rows_before += (size_t)(i % 3 + 1);
        rows_total += (size_t)(i % 3 + 1);
    }
    size_t mine = (size_t)(me % 3 + 1) * row;
    for (size_t i = 0; i < mine; i++)
        src[i] = (uint64_t)me * 1000000 + i;
    for (size_t i = 0; i < rows_total * row + 8; i++)
        dst[i] = ~0ULL;
    shmem_barrier_all();
    t0 = snapshot(PG_COLL_COLLECT);
    shmem_uint64_collect(SHMEM_TEAM_WORLD, dst, src, mine);
    total_since(PG_COLL_COLLECT, t0, &m, &b);
    bad = 0;
    for (int i = 0, at = 0; i < npes; i++)
        for (size_t k = 0; k < (size_t)(i % 3 + 1) * row; k++, at++)
            bad += dst[at] != (uint64_t)i * 1000000 + k;
    for (size_t k = rows_total * row; k < rows_total * row + 8; k++)
        bad += dst[k] != ~0ULL;
    CHECK(bad == 0, "collect: %d wrong (before me: %zu rows)", bad, rows_before);
    long long all_bytes = (long long)(rows_total * row * sizeof *src);
    if (aware) /* each switch's 2P sizes and then its blocks once to the other, each a run and a
                  signal */
        CHECK(m == 2 * 4 && b == 2 * (half * 8 + 8 + 8) + all_bytes,
              "collect: %lld messages, %lld bytes across (want 8, %lld)", m, b,
              2 * (half * 8 + 16) + all_bytes);
    else /* each node's P sizes and blocks to both nodes of the other switch */
        CHECK(m == 4 * 2 * 4 && b == 4 * 2 * ((long long)p * 8 + 16) + 2 * all_bytes,
              "collect: %lld messages, %lld bytes across (want 32, %lld)", m, b,
              4 * 2 * ((long long)p * 8 + 16) + 2 * all_bytes);

    size_t ablock = 64; /* elements per pair */
    for (int j = 0; j < npes; j++)
        for (size_t i = 0; i < ablock; i++)
            src[(size_t)j * ablock + i] = (uint64_t)me * 1000000 + (uint64_t)j * 1000 + i;
    shmem_barrier_all();
    t0 = snapshot(PG_COLL_ALLTOALL);
    pg_coll_alltoall(SHMEM_TEAM_WORLD, dst, src, ablock * sizeof *src);
    total_since(PG_COLL_ALLTOALL, t0, &m, &b);
    bad = 0;
    for (int i = 0; i < npes; i++)
        for (size_t k = 0; k < ablock; k++)
            bad += dst[(size_t)i * ablock + k] != (uint64_t)i * 1000000 + (uint64_t)me * 1000 + k;
    CHECK(bad == 0, "alltoall: %d wrong", bad);
    /* Every block between the two switches, once: 2 * (2P)^2 of them. */
    long long want = 2 * half * half * (long long)(ablock * sizeof *src);
    CHECK(b == want, "alltoall: %lld bytes across, want %lld", b, want);

    shmem_free(dst);
    shmem_free(src);
    shmem_free(sums);
    int status = check_finish();
    shmem_finalize();
    return status;
}
