/* The symmetric heap grows (issue 24): an allocation of 4 x the initial heap succeeds, and
 * every kind of remote access into the grown part is exact, from on-node and off-node PEs.
 *
 * 1. Growth in the middle of traffic: a second thread of every PE puts, gets back and
 *    fetch-adds on an object of the initial heap (on a private context, at its right neighbour
 *    and at a PE of another node) while the main thread's shmem_malloc grows the heap. Right
 *    after it returns, without a barrier, each PE puts a stamp into the grown part of that PE
 *    of another node. Afterwards: the adds' totals exact, every PE's last put in place, the
 *    stamps (and zeros where no stamp was put).
 * 2. In the grown part, each region guarded by bytes that must not change: a window across the
 *    boundary between the initial part and the grown one put to the right neighbour and got
 *    back (two registrations: direct RMA splits there), slots put contiguously and strided
 *    (the server's packing path) by every PE into its right neighbour and its PE of another
 *    node, adds and fetch-adds with exact totals, and compare-and-swap increments under
 *    contention with an exact count.
 * 3. An allocation beyond the maximum (PANGEA_SYMMETRIC_MAX) returns NULL on every PE; the heap
 *    stays usable, and no object moved (the initial heap's contents are intact). */
#include "check.h"
#include "memory/memory.h"

#include <pthread.h>

#define OLD_SLOT 4096                    /* per source, in an object of the initial heap */
#define WINDOW ((size_t)600 * 1000 + 13) /* across the parts' boundary */
#define SLOT ((size_t)70000)             /* per source in the grown part */
#define ROW 1000                         /* a strided slot: rows of ROW bytes, GAP between */
#define GAP 24
#define ROWS 20
#define GUARD ((size_t)64)
#define COUNTERS 16

static int me, npes, right, left, remote; /* remote: a PE of another node (right on one) */
static unsigned char *old;                /* [npes][OLD_SLOT] */
static long *old_adds;                    /* [npes]: adds from each PE */
static volatile int stop;
/* The traffic thread's adds at right and at remote, and its last round. */
static long issued[3];

/* The traffic of part 1, until the main thread's growth is over (and a few rounds at least). */
static void *traffic(void *arg)
{
    (void)arg;
    shmem_ctx_t ctx;
    if (shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) != 0) {
        CHECK(0, "shmem_ctx_create failed");
        return NULL;
    }
    unsigned char mine[OLD_SLOT], back[OLD_SLOT];
    int targets[2] = {right, remote};
    long round;
    for (round = 1; !stop || round < 4; round++) {
        test_fill_bytes(mine, OLD_SLOT, me, (unsigned)round);
        for (int t = 0; t < 2; t++) {
            shmem_ctx_putmem(ctx, old + (size_t)me * OLD_SLOT, mine, OLD_SLOT, targets[t]);
            shmem_ctx_quiet(ctx);
            shmem_ctx_getmem(ctx, back, old + (size_t)me * OLD_SLOT, OLD_SLOT, targets[t]);
            CHECK(memcmp(mine, back, OLD_SLOT) == 0, "round %ld: get from PE %d after a put", round,
                  targets[t]);
            shmem_ctx_long_atomic_fetch_add(ctx, &old_adds[me], 1, targets[t]);
            issued[t]++;
        }
    }
    issued[2] = round - 1;
    shmem_ctx_destroy(ctx);
    return NULL;
}

/* Part 1's results: report[src] = {adds at right, adds at remote, last round, remote}. */
static void check_traffic(long (*report)[4], long *stamps)
{
    for (int src = 0; src < npes; src++) {
        long *r = report[src];
        int src_right = (src + 1) % npes, src_remote = (int)r[3];
        long adds = (me == src_right ? r[0] : 0) + (me == src_remote ? r[1] : 0);
        CHECK(old_adds[src] == adds, "%ld adds from PE %d, want %ld", old_adds[src], src, adds);
        if (me == src_right || me == src_remote) {
            size_t bad = test_bad_byte(old + (size_t)src * OLD_SLOT, OLD_SLOT, src, (unsigned)r[2]);
            CHECK(bad == SIZE_MAX, "PE %d's last put (round %ld): byte %zu", src, r[2], bad);
        }
        long stamp = me == src_remote ? 0x600d0000L + src : 0;
        CHECK(stamps[src] == stamp, "stamp of PE %d in the grown part: %#lx, want %#lx", src,
              stamps[src], stamp);
    }
}

/* Part 2: region's guard pattern must hold over [from, to). */
static void expect_guard(const unsigned char *region, size_t from, size_t to, const char *what)
{
    size_t bad = test_bad_guard(region, from, to);
    CHECK(bad == SIZE_MAX, "%s: guard byte at %zu changed", what, bad);
}

static size_t slot_at(int src)
{
    return GUARD + (size_t)src * (SLOT + GUARD);
}

/* Every PE puts its slot into right's and remote's regions, the first half contiguous, the
 * second strided; each PE checks its region: the slots of the PEs that wrote, guards elsewhere. */
static void grown_slots(unsigned char *region, size_t region_len, const int *remote_of)
{
    test_fill_guard(region, region_len);
    shmem_barrier_all();
    unsigned char *mine = malloc(SLOT);
    test_fill_bytes(mine, SLOT, me, 3);
    size_t half = SLOT - (size_t)ROWS * (ROW + GAP);
    int targets[2] = {right, remote};
    for (int t = 0; t < (right == remote ? 1 : 2); t++) {
        shmem_putmem(region + slot_at(me), mine, half, targets[t]);
        for (int row = 0; row < ROWS; row++)
            shmem_putmem(region + slot_at(me) + half + (size_t)row * (ROW + GAP),
                         mine + half + (size_t)row * (ROW + GAP), ROW, targets[t]);
        /* The same rows once more, as one strided put (the server's packed path). */
        shmem_iput64(region + slot_at(me) + half, mine + half, (ROW + GAP) / 8, (ROW + GAP) / 8,
                     ROWS, targets[t]);
    }
    shmem_barrier_all();
    size_t guarded_from = 0;
    for (int src = 0; src < npes; src++) {
        if (me != (src + 1) % npes && me != remote_of[src])
            continue;
        size_t at = slot_at(src);
        expect_guard(region, guarded_from, at, "before a slot");
        size_t bad = test_bad_byte(region + at, half, src, 3);
        CHECK(bad == SIZE_MAX, "contiguous part of PE %d's slot: byte %zu", src, bad);
        for (int row = 0; row < ROWS; row++) {
            size_t r = at + half + (size_t)row * (ROW + GAP);
            unsigned char want[ROW];
            for (size_t k = 0; k < ROW; k++)
                want[k] = test_byte(src, half + (size_t)row * (ROW + GAP) + k, 3);
            CHECK(memcmp(region + r, want, ROW) == 0, "row %d of PE %d's slot", row, src);
            expect_guard(region, r + ROW, r + ROW + GAP, "a gap between rows");
        }
        guarded_from = at + SLOT;
    }
    expect_guard(region, guarded_from, region_len, "after the last slot");
    free(mine);
    shmem_barrier_all();
}

/* The window across the boundary between the parts: put to right, got back from right. */
static void boundary_window(unsigned char *window)
{
    test_fill_guard(window - GUARD, WINDOW + 2 * GUARD);
    shmem_barrier_all();
    unsigned char *mine = malloc(WINDOW), *back = malloc(WINDOW);
    test_fill_bytes(mine, WINDOW, me, 5);
    shmem_putmem(window, mine, WINDOW, right);
    shmem_barrier_all();
    size_t bad = test_bad_byte(window, WINDOW, left, 5);
    CHECK(bad == SIZE_MAX, "window across the parts from PE %d: byte %zu", left, bad);
    expect_guard(window - GUARD, 0, GUARD, "before the window");
    expect_guard(window - GUARD, GUARD + WINDOW, WINDOW + 2 * GUARD, "after the window");
    shmem_getmem(back, window, WINDOW, right);
    bad = test_bad_byte(back, WINDOW, me, 5);
    CHECK(bad == SIZE_MAX, "window got back from PE %d: byte %zu", right, bad);
    free(mine);
    free(back);
    shmem_barrier_all();
}

/* Adds, fetch-adds and compare-and-swap increments into the grown part of every PE. */
static void grown_atomics(long *counters, long *word)
{
    memset(counters, 0, COUNTERS * sizeof *counters);
    *word = 0;
    shmem_barrier_all();
    for (int k = 0; k < npes; k++) {
        int t = (me + k) % npes;
        for (int c = 0; c < COUNTERS; c++)
            if (c % 2)
                shmem_long_atomic_add(&counters[c], c + 1, t);
            else
                (void)shmem_long_atomic_fetch_add(&counters[c], c + 1, t);
        long seen = shmem_long_atomic_fetch(word, t), was;
        while ((was = shmem_long_atomic_compare_swap(word, seen, seen + 1, t)) != seen)
            seen = was;
    }
    shmem_barrier_all();
    for (int c = 0; c < COUNTERS; c++)
        CHECK(counters[c] == (long)npes * (c + 1), "counter %d: %ld, want %ld", c, counters[c],
              (long)npes * (c + 1));
    CHECK(*word == npes, "compare-and-swap increments: %ld, want %d", *word, npes);
    shmem_barrier_all();
}

int main(void)
{
    int provided;
    shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    old = shmem_calloc((size_t)npes, OLD_SLOT);
    old_adds = shmem_calloc((size_t)npes, sizeof(long));
    long(*report)[4] = shmem_calloc((size_t)npes, sizeof *report);
    CHECK(old && old_adds && report, "allocations in the initial heap");
    if (!old || !old_adds || !report)
        return check_finish();
    remote = right;
    for (int k = 1; k < npes; k++)
        if (!shmem_ptr(old, (me + k) % npes)) {
            remote = (me + k) % npes;
            break;
        }
    size_t initial = pg_heap_capacity(), first_part, start;
    int seg;
    pg_mem_part(PG_SEG_HEAP, &seg, &start, &first_part);
    unsigned char *boundary = (unsigned char *)pg_segments[PG_SEG_HEAP].base + first_part;

    /* 1. */
    pthread_t thread;
    pthread_create(&thread, NULL, traffic, NULL);
    test_sleep_us(20000);
    size_t big_size = 4 * initial;
    unsigned char *big = shmem_malloc(big_size);
    CHECK(big != NULL, "shmem_malloc(%zu), 4 x the initial heap, failed", big_size);
    unsigned char *grown = big ? big + 3 * initial : NULL; /* past the initial part */
    long *stamps = (long *)(void *)grown;
    if (big)
        shmem_long_p(&stamps[me], 0x600d0000L + me, remote);
    stop = 1;
    pthread_join(thread, NULL);
    if (!big)
        return check_finish();
    CHECK(pg_heap_capacity() >= big_size, "heap of %zu bytes after the growth", pg_heap_capacity());
    CHECK(boundary > big && boundary < grown, "the parts' boundary %p is not inside [%p, %p)",
          (void *)boundary, (void *)big, (void *)grown);
    long mine[4] = {issued[0], issued[1], issued[2], remote};
    for (int t = 0; t < npes; t++)
        shmem_long_put(report[me], mine, 4, t);
    shmem_barrier_all();
    check_traffic(report, stamps);
    int *remote_of = malloc((size_t)npes * sizeof *remote_of);
    for (int src = 0; src < npes; src++)
        remote_of[src] = (int)report[src][3];
    shmem_barrier_all();

    /* 2. */
    boundary_window(boundary - WINDOW / 2);
    unsigned char *region = grown + 4096;
    size_t region_len = slot_at(npes);
    grown_slots(region, region_len, remote_of);
    grown_atomics((long *)(void *)(region + region_len + 64), (long *)(void *)(grown + 2048));

    /* 3. */
    void *beyond = shmem_malloc(2 * pg_heap_max());
    CHECK(beyond == NULL, "shmem_malloc(2 x the maximum, %zu bytes) did not fail",
          2 * pg_heap_max());
    long *after = shmem_malloc(4096);
    CHECK(after != NULL, "shmem_malloc(4096) after a refused growth");
    if (after) {
        shmem_long_p(&after[me], 77 + me, right);
        shmem_barrier_all();
        CHECK(after[left] == 77 + left, "object allocated after a refused growth");
        shmem_free(after);
    }
    check_traffic(report, stamps); /* nothing moved */

    free(remote_of);
    shmem_free(big);
    shmem_free(report);
    shmem_free(old_adds);
    shmem_free(old);
    int status = check_finish();
    shmem_finalize();
    return status;
}
