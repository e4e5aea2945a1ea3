/* Ordering and synchronization: barrier_all, sync_all, fence, quiet.
 *
 * - barrier_all completes puts: 1000 iterations, each PE puts new values into its right
 *   neighbour, barrier, the neighbour checks them (double-buffered).
 * - sync_all publishes local stores: each PE stores new values into its own symmetric buffer,
 *   synchronizes, and gets its right neighbour's; atomic increments completed by quiet before
 *   the sync must all be visible.
 * - fence orders a put (blocking, nbi, ctx) before the atomic_set of a flag to the same PE: the
 *   receiver waits for the flag and must find the whole payload; quiet likewise.
 * - team_sync between every pair of PEs (a team of two per pair): each stores a word for its
 *   partner, syncs the pair, and gets the partner's word for it. Across nodes each pair's sync
 *   is a direct signal to the partner, so a PE signals every PE of the other nodes and its
 *   table of their addresses grows (2 nodes x 4 PEs and more). */
#include "check.h"

#define ITERS 1000
#define SYNC_ITERS 300
#define FENCE_ITERS 300
#define NWORDS 16
#define FENCE_BYTES (32 * 1024)

static int me, npes, left, right;

static long value(int pe, long it, int k)
{
    return it * 100003 + pe * 131 + k;
}

static void barrier_orders_puts(void)
{
    long *buf = shmem_calloc(2 * NWORDS, sizeof(long));
    long src[NWORDS];
    long wrong = 0;
    for (long it = 0; it < ITERS; it++) {
        long *slot = buf + (it % 2) * NWORDS;
        for (int k = 0; k < NWORDS; k++)
            src[k] = value(me, it, k);
        if (it % 2)
            shmem_long_put(slot, src, NWORDS, right);
        else
            for (int k = 0; k < NWORDS; k++)
                shmem_long_p(&slot[k], src[k], right);
        shmem_barrier_all();
        for (int k = 0; k < NWORDS; k++)
            wrong += slot[k] != value(left, it, k);
    }
    CHECK(wrong == 0, "barrier_all: %ld words from PE %d missing after the barrier", wrong, left);
    shmem_barrier_all();
    shmem_free(buf);
}

static void sync_publishes_stores(void)
{
    long *buf = shmem_calloc(2 * NWORDS, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    long got[NWORDS], wrong = 0;
    shmem_barrier_all();
    for (long it = 0; it < SYNC_ITERS; it++) {
        long *mine = buf + (it % 2) * NWORDS;
        for (int k = 0; k < NWORDS; k++)
            mine[k] = value(me, it, k);
        shmem_long_atomic_inc(counter, 0);
        shmem_quiet(); /* sync_all completes no AMO; quiet does */
        shmem_sync_all();
        shmem_long_get(got, mine, NWORDS, right);
        for (int k = 0; k < NWORDS; k++)
            wrong += got[k] != value(right, it, k);
        if (me == 0) {
            long c = shmem_long_atomic_fetch(counter, 0);
            CHECK(c >= npes * (it + 1) && c < npes * (it + 2),
                  "iteration %ld: %ld increments seen after the sync, want %ld", it, c,
                  npes * (it + 1));
        }
    }
    CHECK(wrong == 0, "sync: %ld stored words of PE %d not visible after the sync", wrong, right);
    shmem_barrier_all();
    shmem_free(counter);
    shmem_free(buf);
}

static void fence_orders_put_and_flag(void)
{
    unsigned char *data = shmem_malloc(FENCE_BYTES);
    long *flags = shmem_calloc(2, sizeof(long)); /* [0] data ready, [1] data consumed */
    unsigned char *src = malloc(FENCE_BYTES);
    shmem_barrier_all();
    for (long it = 1; it <= FENCE_ITERS; it++) {
        const char *how[] = {"put + fence", "put_nbi + fence", "put + quiet",
                             "ctx put_nbi + ctx_fence"};
        int mode = (int)(it % 4);
        size_t bytes = it % 5 ? FENCE_BYTES : 8;
        /* Send once the right neighbour has consumed the previous payload. */
        shmem_long_wait_until(&flags[1], SHMEM_CMP_GE, it - 1);
        shmem_quiet(); /* the previous nbi source may be reused */
        test_fill_bytes(src, bytes, me, (unsigned)it);
        switch (mode) {
        case 0:
            shmem_putmem(data, src, bytes, right);
            shmem_fence();
            break;
        case 1:
            shmem_putmem_nbi(data, src, bytes, right);
            shmem_fence();
            break;
        case 2:
            shmem_putmem(data, src, bytes, right);
            shmem_quiet();
            break;
        default:
            shmem_ctx_putmem_nbi(SHMEM_CTX_DEFAULT, data, src, bytes, right);
            shmem_ctx_fence(SHMEM_CTX_DEFAULT);
            break;
        }
        shmem_long_atomic_set(&flags[0], it, right);

        /* Receive from the left neighbour. */
        shmem_long_wait_until(&flags[0], SHMEM_CMP_GE, it);
        CHECK(flags[0] == it, "%s: flag %ld, want %ld", how[mode], flags[0], it);
        size_t bad = test_bad_byte(data, bytes, left, (unsigned)it);
        CHECK(bad == SIZE_MAX, "%s, iteration %ld: byte %zu of %zu not there with the flag",
              how[mode], it, bad, bytes);
        shmem_long_atomic_set(&flags[1], it, left);
    }
    shmem_barrier_all();
    free(src);
    shmem_free(flags);
    shmem_free(data);
}

#define PAIR_ROUNDS 4

/* Each PE syncs its pairs in one global order (pair (i, j), i < j, lexicographic): the first
 * pair not done always has both members ready, so no cycle of waits forms. */
static void pair_syncs(void)
{
    shmem_team_t *pair = malloc((size_t)npes * sizeof *pair);
    long *word = shmem_calloc(2 * (size_t)npes, sizeof(long));
    long wrong = 0, syncs = 0;
    for (int i = 0; i < npes; i++)
        for (int j = i + 1; j < npes; j++) {
            shmem_team_t t = SHMEM_TEAM_INVALID;
            int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, i, j - i, 2, NULL, 0, &t);
            CHECK(rc == 0, "team_split_strided(%d, %d, 2) returned %d", i, j - i, rc);
            if (me == i || me == j)
                pair[me == i ? j : i] = t;
        }
    for (int round = 0; round < PAIR_ROUNDS; round++) {
        long *slot = word + (round % 2) * npes; /* slot[p]: my word for partner p */
        for (int i = 0; i < npes; i++)
            for (int j = i + 1; j < npes; j++) {
                if (me != i && me != j)
                    continue;
                int partner = me == i ? j : i;
                slot[partner] = value(me, round, partner);
                shmem_team_sync(pair[partner]);
                wrong += shmem_long_g(&slot[me], partner) != value(partner, round, me);
                syncs++;
            }
    }
    CHECK(wrong == 0, "pair syncs: %ld partners' words not visible after the sync", wrong);
    CHECK(syncs == (long)PAIR_ROUNDS * (npes - 1), "pair syncs: %ld syncs, want %ld", syncs,
          (long)PAIR_ROUNDS * (npes - 1));
    for (int i = 0; i < npes; i++)
        for (int j = i + 1; j < npes; j++)
            if (me == i || me == j)
                shmem_team_destroy(pair[me == i ? j : i]);
    shmem_barrier_all();
    shmem_free(word);
    free(pair);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    barrier_orders_puts();
    sync_publishes_stores();
    fence_orders_put_and_flag();
    pair_syncs();

    int rc = check_finish();
    shmem_finalize();
    return rc;
}
