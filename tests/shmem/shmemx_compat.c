/* Every shmemx_ source-compatibility name of shmemx.h (Sandia OpenSHMEM's spellings), with
 * exact values:
 * - shmemx_signal_add/set;
 * - shmemx_TYPENAME_sum_inscan/exscan for every SUM type (complex included) and the generic
 *   shmemx_sum_inscan/exscan;
 * - shmemx_[ctx_]TYPENAME_ibput/ibget for every RMA type, shmemx_[ctx_]ibput/ibgetSIZE, and the
 *   generic shmemx_ibput/ibget;
 * - SHMEMX_TEAM_NODE: exactly the PEs whose memory the calling PE maps;
 * - SHMEMX_MALLOC_NO_BARRIER: PE 0 allocates before the others enter (with a barrier it would
 *   wait for them forever), and the block is the same on every PE;
 * - shmemx_register_gettid;
 * - shmemx_pcntr_*: a context's puts and gets, pending and completed, before and after its
 *   quiet, and the operations my left neighbour completed on my memory, read with both
 *   spellings of shmemx_pcntr_get_completed_target (the list runs it with PANGEA_PCNTR=1,
 *   which turns the counting on; tests/shmem/pcntr_target.c tests the target count in full). */
#include "check.h"

#include <shmemx.h>

static int me, npes, right, left;
static unsigned char *sym;

/* Block-strided transfers to the right neighbour: blocks of 2 elements, a stride of 3. */
#define TEST_IB(T, N)                                                                           \
    static void ib_##N(shmem_ctx_t ctx)                                                         \
    {                                                                                           \
        T *dst = (T *)sym, *src = (T *)(sym + 1024), got[8];                                    \
        for (int i = 0; i < 8; i++) {                                                           \
            src[i] = (T)(me * 10 + i + 1);                                                      \
            dst[i] = (T)0;                                                                      \
        }                                                                                       \
        shmem_barrier_all();                                                                    \
        shmemx_##N##_ibput(dst, src, 3, 2, 2, 2, right); /* dst[0,1,3,4] = src[0..3] */         \
        shmemx_ctx_##N##_ibput(ctx, dst + 6, src + 4, 1, 1, 1, 2, right); /* dst[6,7] */        \
        shmem_ctx_quiet(ctx);                                                                   \
        shmem_barrier_all();                                                                    \
        CHECK(dst[0] == (T)(left * 10 + 1) && dst[1] == (T)(left * 10 + 2) && dst[2] == (T)0 && \
                  dst[3] == (T)(left * 10 + 3) && dst[4] == (T)(left * 10 + 4) &&               \
                  dst[6] == (T)(left * 10 + 5) && dst[7] == (T)(left * 10 + 6),                 \
              "shmemx_" #N "_ibput");                                                           \
        shmemx_##N##_ibget(got, dst, 2, 3, 2, 2, right); /* got[0..3] = right's dst[0,1,3,4] */ \
        for (int i = 0; i < 4; i++)                                                             \
            CHECK(got[i] == (T)(me * 10 + i + 1), "shmemx_" #N "_ibget: element %d", i);        \
        shmemx_ctx_##N##_ibget(ctx, got, dst + 6, 1, 1, 1, 2, right);                           \
        CHECK(got[0] == (T)(me * 10 + 5) && got[1] == (T)(me * 10 + 6),                         \
              "shmemx_ctx_" #N "_ibget");                                                       \
        shmemx_ibget(got, dst, 2, 3, 2, 2, right); /* the generic name */                       \
        CHECK(got[3] == (T)(me * 10 + 4), "shmemx_ibget on " #N);                               \
        shmemx_ibput(ctx, dst, src, 3, 2, 2, 2, right);                                         \
        shmem_ctx_quiet(ctx);                                                                   \
        shmem_barrier_all();                                                                    \
    }
TEST_T_RMA(TEST_IB)

#define TEST_IB_SIZE(BITS)                                                                        \
    static void ib##BITS(shmem_ctx_t ctx)                                                         \
    {                                                                                             \
        enum { B = BITS / 8 };                                                                    \
        unsigned char *dst = sym, *src = sym + 1024, got[4 * B];                                  \
        test_fill_bytes(src, 8 * B, me, BITS);                                                    \
        memset(dst, 0, 8 * B);                                                                    \
        shmem_barrier_all();                                                                      \
        shmemx_ibput##BITS(dst, src, 4, 2, 2, 2, right); /* elements 0,1,4,5 = src 0..3 */        \
        shmemx_ctx_ibput##BITS(ctx, dst + 2 * B, src + 4 * B, 1, 1, 1, 2, right);                 \
        shmem_ctx_quiet(ctx);                                                                     \
        shmem_barrier_all();                                                                      \
        unsigned char from_left[8 * B];                                                           \
        test_fill_bytes(from_left, 8 * B, left, BITS);                                            \
        CHECK(!memcmp(dst, from_left, 2 * B) && !memcmp(dst + 2 * B, from_left + 4 * B, 2 * B) && \
                  !memcmp(dst + 4 * B, from_left + 2 * B, 2 * B),                                 \
              "shmemx_[ctx_]ibput%d", BITS);                                                      \
        shmemx_ibget##BITS(got, dst, 2, 4, 2, 2, right); /* my src 0..3 */                        \
        CHECK(test_bad_byte(got, 4 * B, me, BITS) == SIZE_MAX, "shmemx_ibget%d", BITS);           \
        shmemx_ctx_ibget##BITS(ctx, got, dst + 2 * B, 1, 1, 1, 2, right); /* my src 4,5 */        \
        unsigned char want[8 * B];                                                                \
        test_fill_bytes(want, 8 * B, me, BITS);                                                   \
        CHECK(!memcmp(got, want + 4 * B, 2 * B), "shmemx_ctx_ibget%d", BITS);                     \
        shmem_barrier_all();                                                                      \
    }
TEST_SIZES(TEST_IB_SIZE)

/* Sums of (p + 1) over the PEs before me (exscan) and up to me (inscan). */
#define TEST_SCAN(T, N)                                                                   \
    static void scan_##N(void)                                                            \
    {                                                                                     \
        T *dst = (T *)sym, *src = (T *)(sym + 1024);                                      \
        long before = (long)me * (me + 1) / 2;                                            \
        for (int i = 0; i < 4; i++)                                                       \
            src[i] = (T)(me + 1);                                                         \
        CHECK(shmemx_##N##_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 4) == 0, #N " inscan"); \
        CHECK(dst[3] == (T)(before + me + 1), "shmemx_" #N "_sum_inscan");                \
        shmem_barrier_all();                                                              \
        CHECK(shmemx_##N##_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 4) == 0, #N " exscan"); \
        CHECK(dst[3] == (T)before, "shmemx_" #N "_sum_exscan");                           \
        shmem_barrier_all();                                                              \
        shmemx_sum_inscan(SHMEM_TEAM_WORLD, dst, src, 4); /* the generic names */         \
        CHECK(dst[0] == (T)(before + me + 1), "shmemx_sum_inscan on " #N);                \
        shmem_barrier_all();                                                              \
        shmemx_sum_exscan(SHMEM_TEAM_WORLD, dst, src, 4);                                 \
        CHECK(dst[0] == (T)before, "shmemx_sum_exscan on " #N);                           \
        shmem_barrier_all();                                                              \
    }
TEST_T_RED_ARITH(TEST_SCAN)

static void signals(void)
{
    uint64_t *sig = (uint64_t *)sym;
    *sig = 0;
    shmem_barrier_all();
    shmemx_signal_add(sig, 3, right);
    shmemx_signal_add(sig, 4, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 7);
    shmem_barrier_all();
    shmemx_signal_set(sig, 42, right);
    CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_NE, 7) == 42, "shmemx_signal_set");
    shmem_barrier_all();
}

static void node_team(void)
{
    int mapped = 0;
    for (int p = 0; p < npes; p++)
        mapped += shmem_ptr(sym, p) != NULL;
    CHECK(shmem_team_n_pes(SHMEMX_TEAM_NODE) == mapped, "SHMEMX_TEAM_NODE has %d PEs, want %d",
          shmem_team_n_pes(SHMEMX_TEAM_NODE), mapped);
    int mine = shmem_team_my_pe(SHMEMX_TEAM_NODE);
    CHECK(mine >= 0 && shmem_team_translate_pe(SHMEMX_TEAM_NODE, mine, SHMEM_TEAM_WORLD) == me,
          "SHMEMX_TEAM_NODE: my number %d", mine);
    CHECK(shmem_team_sync(SHMEMX_TEAM_NODE) == 0, "sync on SHMEMX_TEAM_NODE");
}

static void no_barrier(void)
{
    long *flag = (long *)sym;
    *flag = 0;
    shmem_barrier_all();
    long *block;
    if (me == 0) { /* returns before the others have called */
        block = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
        for (int p = 1; p < npes; p++)
            shmem_long_atomic_inc(flag, p);
    } else {
        shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
        block = shmem_malloc_with_hints(64 * sizeof(long), SHMEMX_MALLOC_NO_BARRIER);
    }
    CHECK(block != NULL, "shmem_malloc_with_hints(SHMEMX_MALLOC_NO_BARRIER) is NULL");
    shmem_barrier_all(); /* the program's own synchronization before remote access */
    if (block) {
        shmem_long_p(&block[me], 1000 + me, right);
        shmem_barrier_all();
        CHECK(block[left] == 1000 + left, "the no-barrier block is not the same on every PE");
        shmem_free(block);
    }
}

static void counters(shmem_ctx_t ctx)
{
    static long remote[4];
    long local[4] = {1, 2, 3, 4};
    shmemx_pcntr_t c0, c;
    shmemx_pcntr_get_all(ctx, &c0);
    shmem_barrier_all(); /* my neighbours' operations so far are counted in c0.target */
    shmem_ctx_long_put(ctx, remote, local, 4, right);        /* put 1 */
    shmem_ctx_long_p(ctx, remote, 5, right);                 /* put 2 */
    shmem_ctx_long_put_nbi(ctx, remote, local, 2, right);    /* put 3 */
    shmem_ctx_long_iput(ctx, remote, local, 2, 1, 2, right); /* put 4 */
    (void)shmem_ctx_long_g(ctx, remote, right);              /* get 1 */
    shmem_ctx_long_get_nbi(ctx, local, remote, 4, right);    /* get 2 */
    shmemx_pcntr_get_all(ctx, &c);
    CHECK(c.completed_put + c.pending_put == c0.completed_put + c0.pending_put + 4,
          "pcntr: %llu + %llu puts, want 4 more than %llu + %llu",
          (unsigned long long)c.completed_put, (unsigned long long)c.pending_put,
          (unsigned long long)c0.completed_put, (unsigned long long)c0.pending_put);
    CHECK(c.completed_get + c.pending_get == c0.completed_get + c0.pending_get + 2,
          "pcntr: gets issued");
    shmem_ctx_quiet(ctx);
    shmem_barrier_all(); /* my left neighbour's 6 operations are complete */
    uint64_t pp, pg, cp, cg, target, target_of_ctx;
    shmemx_pcntr_get_pending_put(ctx, &pp);
    shmemx_pcntr_get_pending_get(ctx, &pg);
    shmemx_pcntr_get_completed_put(ctx, &cp);
    shmemx_pcntr_get_completed_get(ctx, &cg);
    shmemx_pcntr_get_completed_target(&target);
    shmemx_pcntr_get_completed_target(ctx, &target_of_ctx); /* SOS's first spelling */
    CHECK(pp == 0 && pg == 0, "pcntr: %llu puts and %llu gets pending after the quiet",
          (unsigned long long)pp, (unsigned long long)pg);
    CHECK(
        cp == c0.completed_put + c0.pending_put + 4 && cg == c0.completed_get + c0.pending_get + 2,
        "pcntr: completed %llu puts and %llu gets", (unsigned long long)cp, (unsigned long long)cg);
    uint64_t from_left = left == me ? 0 : 6;
    CHECK(target == c0.target + from_left && target_of_ctx == target,
          "pcntr: target %llu (%llu with ctx), want %llu + %llu", (unsigned long long)target,
          (unsigned long long)target_of_ctx, (unsigned long long)c0.target,
          (unsigned long long)from_left);
    shmem_barrier_all();
}

static uint64_t my_gettid(void)
{
    return 7;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sym = shmem_malloc(4096);
    shmem_ctx_t ctx;
    CHECK(sym != NULL && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "setup");
    if (!sym)
        return check_finish();
    shmemx_register_gettid(my_gettid);

    signals();
#define RUN_IB(T, N) ib_##N(ctx);
    TEST_T_RMA(RUN_IB)
#define RUN_IB_SIZE(BITS) ib##BITS(ctx);
    TEST_SIZES(RUN_IB_SIZE)
#define RUN_SCAN(T, N) scan_##N();
    TEST_T_RED_ARITH(RUN_SCAN)
    node_team();
    no_barrier();
    counters(ctx);
    counters(SHMEM_CTX_DEFAULT);

    shmem_ctx_destroy(ctx);
    shmem_free(sym);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
