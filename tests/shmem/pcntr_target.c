/* shmemx_pcntr_get_completed_target, exactly: every PE issues a known number of operations to
 * every other PE — small and large puts (a large one goes off-node in several chunks, a large
 * get in several windows), p, nbi puts (small ones batched off-node), strided puts and gets, g,
 * gets and nbi gets, blocking, non-fetching and nbi AMOs, put_signal (a put and a signal) and
 * signal_add — on the default context and on a private one; then, after a quiet and a barrier,
 * each PE's count is the sum over the others, and shmemx_pcntr_get_all's target agrees. What
 * does not count leaves it as it was: operations on my own memory, collectives, locks. The
 * large puts' bytes are checked at their targets. With PANGEA_PCNTR=1 the counts are exact;
 * without it every count reads 0. */
#include "check.h"

#include <shmemx.h>

#define LARGE_PUT (200 * 1024) /* > 3 chunks of the default 64K pipeline buffer */
#define LARGE_NBI (100 * 1024)
#define LARGE_GET (600 * 1024) /* > one get window of the default send region (512K) */
#define SMALL 16
#define STRIDED 8 /* longs, every other one */
#define SLOT (LARGE_PUT + LARGE_NBI + 4096)

static int me, npes;
static char *slots;   /* [npes][SLOT]: what PE i puts here lands in slot i */
static char *source;  /* LARGE_GET bytes others read */
static long *amo;     /* [npes] */
static uint64_t *sig; /* [npes] */

/* The operations one PE issues to another on ctx, each one counted in *ops as the target
 * counts it. */
static void operations(shmem_ctx_t ctx, int to, uint64_t *ops)
{
    static char big[LARGE_PUT + LARGE_NBI], got[LARGE_GET];
    char small[SMALL] = {0}, small_in[2][SMALL];
    char *mine = slots + (size_t)me * SLOT; /* my slot, at every target */
    long strided[2 * STRIDED];
    test_fill_bytes(big, LARGE_PUT + LARGE_NBI, me, 1);
    for (int i = 0; i < 3; i++, ++*ops)
        shmem_ctx_putmem(ctx, mine + LARGE_PUT + LARGE_NBI + i * SMALL, small, SMALL, to);
    shmem_ctx_putmem(ctx, mine, big, LARGE_PUT, to), ++*ops;
    for (int i = 0; i < 2; i++, ++*ops)
        shmem_ctx_long_p(ctx, (long *)(mine + LARGE_PUT + LARGE_NBI + 64) + i, i, to);
    for (int i = 0; i < 5; i++, ++*ops)
        shmem_ctx_putmem_nbi(ctx, mine + LARGE_PUT + LARGE_NBI + 128 + i * SMALL, small, SMALL, to);
    shmem_ctx_putmem_nbi(ctx, mine + LARGE_PUT, big + LARGE_PUT, LARGE_NBI, to), ++*ops;
    for (int i = 0; i < 2 * STRIDED; i++)
        strided[i] = me * 1000 + i;
    shmem_ctx_long_iput(ctx, (long *)(mine + LARGE_PUT + LARGE_NBI + 256), strided, 2, 1, STRIDED,
                        to),
        ++*ops;
    shmem_ctx_long_iget(ctx, strided, (long *)source, 1, 2, STRIDED, to), ++*ops;
    for (int i = 0; i < 2; i++, ++*ops)
        shmem_ctx_getmem(ctx, small_in[i], source + i * SMALL, SMALL, to);
    shmem_ctx_getmem(ctx, got, source, LARGE_GET, to), ++*ops;
    size_t bad = test_bad_byte(got, LARGE_GET, to, 2);
    CHECK(bad == SIZE_MAX, "the large get from PE %d: byte %zu", to, bad);
    (void)shmem_ctx_long_g(ctx, (long *)source, to), ++*ops;
    for (int i = 0; i < 2; i++, ++*ops)
        shmem_ctx_getmem_nbi(ctx, small_in[i], source + 64 + i * SMALL, SMALL, to);
    (void)shmem_ctx_long_atomic_fetch_add(ctx, &amo[me], 1, to), ++*ops;
    for (int i = 0; i < 2; i++, ++*ops)
        shmem_ctx_long_atomic_add(ctx, &amo[me], 1, to);
    (void)shmem_ctx_long_atomic_compare_swap(ctx, &amo[me], -1, 0, to), ++*ops;
    long fetched;
    shmem_ctx_long_atomic_fetch_inc_nbi(ctx, &fetched, &amo[me], to), ++*ops;
    shmem_ctx_putmem_signal(ctx, mine + LARGE_PUT + LARGE_NBI + 512, small, SMALL, &sig[me], 1,
                            SHMEM_SIGNAL_ADD, to);
    *ops += 2; /* a put and a signal */
    shmem_ctx_signal_add(ctx, &sig[me], 1, to), ++*ops;
    shmem_ctx_quiet(ctx);
}

/* Traffic that must not count: my own memory, collectives, a lock. */
static void uncounted(void)
{
    static long lock, bcast[4];
    char small[SMALL] = {0};
    shmem_putmem(slots, small, SMALL, me);
    shmem_getmem(small, source, SMALL, me);
    shmem_long_atomic_inc(&amo[me], me);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, bcast, bcast, sizeof bcast, 0);
    shmem_set_lock(&lock);
    shmem_clear_lock(&lock);
    shmem_barrier_all();
}

static uint64_t target_count(void)
{
    uint64_t n;
    shmemx_pcntr_get_completed_target(&n);
    shmemx_pcntr_t all;
    shmemx_pcntr_get_all(SHMEM_CTX_DEFAULT, &all);
    CHECK(all.target == n, "shmemx_pcntr_get_all's target %llu, get_completed_target %llu",
          (unsigned long long)all.target, (unsigned long long)n);
    return n;
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *env = getenv("PANGEA_PCNTR");
    int counting = env && atoi(env) == 1;
    slots = shmem_calloc((size_t)npes, SLOT);
    source = shmem_malloc(LARGE_GET);
    amo = shmem_calloc((size_t)npes, sizeof *amo);
    sig = shmem_calloc((size_t)npes, sizeof *sig);
    shmem_ctx_t ctx;
    CHECK(slots && source && amo && sig && shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0, "setup");
    if (!slots || !source || !amo || !sig)
        return check_finish();
    test_fill_bytes(source, LARGE_GET, me, 2);
    shmem_barrier_all();
    CHECK(target_count() == 0, "a count before any operation");
    shmem_barrier_all(); /* every PE has read its count before any operation */

    /* Each PE in turn would be slow; all at once, each to every other PE in a rotating order. */
    uint64_t per_target = 0;
    for (int k = 1; k < npes; k++) {
        uint64_t ops = 0;
        operations(k % 2 ? SHMEM_CTX_DEFAULT : ctx, (me + k) % npes, &ops);
        per_target = ops;
    }
    shmem_quiet();
    shmem_barrier_all();
    uint64_t want = counting ? (uint64_t)(npes - 1) * per_target : 0;
    uint64_t got = target_count();
    CHECK(got == want, "completed_target %llu, want %d PEs x %llu operations = %llu",
          (unsigned long long)got, npes - 1, (unsigned long long)per_target,
          (unsigned long long)want);
    for (int p = 0; p < npes; p++) {
        if (p == me)
            continue;
        size_t bad = test_bad_byte(slots + (size_t)p * SLOT, LARGE_PUT + LARGE_NBI, p, 1);
        CHECK(bad == SIZE_MAX, "the large puts of PE %d: byte %zu", p, bad);
        CHECK(amo[p] == 4 && sig[p] == 2, "PE %d's AMOs: %ld (want 4), signal %llu (want 2)", p,
              amo[p], (unsigned long long)sig[p]);
    }

    uncounted();
    got = target_count();
    CHECK(got == want, "completed_target %llu after uncounted traffic, want %llu still",
          (unsigned long long)got, (unsigned long long)want);

    shmem_ctx_destroy(ctx);
    shmem_free(sig);
    shmem_free(amo);
    shmem_free(source);
    shmem_free(slots);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
