/* shmemx_ckpt_quiesce/resume in the middle of heavy traffic: every PE leaves nbi puts, AMO adds
 * and a large put to every PE outstanding and quiesces without a quiet of its own. After the
 * quiesce every one of them must be applied (checked byte for byte and count for count); after
 * the resume the next round goes through the reopened network. Three rounds, exact totals.
 * With TEST_QUIESCE_MISUSE=1 a PE puts to another node while quiesced: an error naming it. */
#include "check.h"

#include <shmemx.h>

#define ROUNDS 3
#define SMALL 256                 /* nbi puts of 8 bytes to each PE per round */
#define LARGE ((size_t)256 << 10) /* bytes of one large put to each PE per round */

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    uint64_t *small = shmem_calloc((size_t)npes * SMALL, sizeof *small);
    unsigned char *large = shmem_calloc((size_t)npes, LARGE);
    long *adds = shmem_calloc(1, sizeof *adds);
    uint64_t *src = malloc(SMALL * sizeof *src);
    unsigned char *block = malloc(LARGE);
    if (!small || !large || !adds || !src || !block)
        shmem_global_exit(2);

    for (int round = 1; round <= ROUNDS; round++) {
        for (int i = 0; i < SMALL; i++)
            src[i] = ((uint64_t)round << 48) | ((uint64_t)me << 24) | (uint64_t)i;
        test_fill_bytes(block, LARGE, me, (unsigned)round);
        for (int k = 0; k < npes; k++) {
            int pe = (me + k) % npes;
            for (int i = 0; i < SMALL; i++)
                shmem_uint64_put_nbi(&small[(size_t)me * SMALL + (size_t)i], &src[i], 1, pe);
            shmem_putmem_nbi(large + (size_t)me * LARGE, block, LARGE, pe);
            for (int i = 0; i < 16; i++)
                shmem_long_atomic_add(adds, me + 1, pe);
        }
        shmemx_ckpt_quiesce();
        if (getenv("TEST_QUIESCE_MISUSE") && me == 0)
            shmem_long_atomic_add(adds, 1, npes - 1);
        long want = 16L * round * npes * (npes + 1) / 2;
        CHECK(*adds == want, "round %d: after the quiesce %ld adds, want %ld", round, *adds, want);
        for (int p = 0; p < npes; p++) {
            int bad = 0;
            for (int i = 0; i < SMALL; i++)
                bad += small[(size_t)p * SMALL + (size_t)i] !=
                       (((uint64_t)round << 48) | ((uint64_t)p << 24) | (uint64_t)i);
            CHECK(bad == 0, "round %d: %d of PE %d's small puts missing", round, bad, p);
            size_t at = test_bad_byte(large + (size_t)p * LARGE, LARGE, p, (unsigned)round);
            CHECK(at == SIZE_MAX, "round %d: PE %d's large put differs at byte %zu", round, p, at);
        }
        shmemx_ckpt_resume();
        shmem_barrier_all(); /* everybody checked before the next round overwrites */
    }
    free(src);
    free(block);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
