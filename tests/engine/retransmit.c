/* Retransmission and exactly-once (docs/reliability.md), forced by the test hook
 * PANGEA_TEST_DROP_ACKS (the data servers drop 1 in N of the acknowledgements and replies they
 * send, at random), or by corrupted links (tests/netns/corrupt.sh).
 * Every PE, contending with all the others on the same words of PE 0 and of the last PE:
 *  - fetch-adds: the old values all PEs got are exactly 0 .. npes*ROUNDS-1, each once (each
 *    applied once and answered with its own reply, even when that reply was sent again);
 *  - compare-swaps that take turns: PE p swaps v into v+1 only when it reads v with v % npes
 *    == p, so the final value counts the swaps that succeeded, exactly npes*SWAPS;
 *  - non-fetching adds: the total is exact;
 * *  - puts of a block with a pattern to its right neighbour, and gets of it back: every byte
 *    of the block and of the guard bytes around it.
 * Across nodes, some request must have been sent again (summed over the PEs). */
#include "check.h"
#include "pipeline/pipeline.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#define ROUNDS 200
#define SWAPS 40
#define BLOCK (150 * 1000)
#define GUARD 16
#define GUARD_BYTE 0xA5

static long counter, adds, turn;
static long fetched_all[8 * ROUNDS];
static long retransmitted;

static unsigned char pattern(int source, int round, size_t i)
{
    return (unsigned char)(source * 31 + round * 7 + i * 5 + 3);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > 8) {
        if (me == 0)
            printf("SKIP engine/retransmit: at most 8 PEs\n");
        shmem_finalize();
        return 0;
    }
    int last = npes - 1, right = (me + 1) % npes;
    unsigned char *block = shmem_malloc(BLOCK + 2 * GUARD);
    unsigned char *mine = malloc(BLOCK), *back = malloc(BLOCK + 2 * GUARD);
    memset(block, GUARD_BYTE, BLOCK + 2 * GUARD);
    shmem_barrier_all();

    long fetched[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        fetched[r] = shmem_long_atomic_fetch_add(&counter, 1, 0);
        shmem_long_atomic_add(&adds, r + 1, last);
    }
    for (int done = 0; done < SWAPS;) {
        long v = shmem_long_atomic_fetch(&turn, 0);
        if (v % npes == me && shmem_long_atomic_compare_swap(&turn, v, v + 1, 0) == v)
            done++;
    }
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < BLOCK; i++)
            mine[i] = pattern(me, round, i);
        shmem_barrier_all();
        shmem_putmem(block + GUARD, mine, BLOCK, right);
        shmem_barrier_all();
        shmem_getmem(back, block, BLOCK + 2 * GUARD, right);
        int bad = 0;
        for (size_t i = 0; i < BLOCK + 2 * GUARD; i++) {
            int in = i >= GUARD && i < GUARD + BLOCK;
            unsigned char want = in ? pattern(me, round, i - GUARD) : GUARD_BYTE;
            bad += back[i] != want;
            if (bad == 1 && back[i] != want)
                CHECK(0, "round %d byte %zu of the block my right neighbour got: %u, not %u", round,
                      i, back[i], want);
        }
        CHECK(bad == 0, "round %d: %d bytes wrong", round, bad);
    }

    shmem_putmem(&fetched_all[me * ROUNDS], fetched, sizeof fetched, 0);
    retransmitted = (long)pg_pipe_faults().retransmissions;
    shmem_barrier_all();
    if (me == 0) {
        long total = (long)npes * ROUNDS;
        char *seen = calloc((size_t)total, 1);
        int wrong = 0;
        for (long i = 0; i < total; i++) {
            long v = fetched_all[i];
            if (v < 0 || v >= total || seen[v]++)
                wrong++;
        }
        CHECK(wrong == 0, "%d fetch-add results out of range or repeated", wrong);
        CHECK(counter == total, "counter %ld, want %ld", counter, total);
        CHECK(turn == (long)npes * SWAPS, "compare-swap turns %ld, want %d", turn, npes * SWAPS);
        long sum = 0;
        for (int p = 0; p < npes; p++)
            sum += shmem_long_g(&retransmitted, p);
        int nodes_apart = !shmem_ptr(&counter, last);
        if (nodes_apart)
            CHECK(sum > 0, "no request was sent again across nodes");
        free(seen);
    }
    if (me == last)
        CHECK(adds == (long)npes * ROUNDS * (ROUNDS + 1) / 2, "adds %ld, want %ld", adds,
              (long)npes * ROUNDS * (ROUNDS + 1) / 2);
    free(mine);
    free(back);
    shmem_free(block);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
