/* PANGEA_MPI_CREDITS holds under heavy traffic (docs/transport.md, "Shared credits"): every PE
 * at once puts large blocks (pipelined in many chunks) and many small nbi puts to the PE half a
 * job away, gets the blocks back, and fetch-adds a counter on PE 0. Checks: every byte of each
 * block and of the guard bytes around it at the target and in what came back; every small put;
 * the fetched values (0 .. npes*ADDS-1, each once) and the counter. Over PANGEA_TRANSPORT=mpi
 * across nodes, the most each process ever held in flight (pg_net_credit_peak) is above 0 and
 * within the caps: PANGEA_MPI_CREDITS messages to a peer, 4 times as many in all, and
 * PANGEA_MPI_CREDITS x PANGEA_PIPELINE_BUFFER_SIZE bytes while two or more were in flight.
 * Over mpi, UCX_RNDV_THRESH is twice the chunk, as the transport sets it before main when the
 * user did not (tests.list leaves it unset), so that every message goes eagerly. */
#include "check.h"
#include "runtime/runtime.h"
#include "transport/transport.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (600 * 1000) /* several pipeline chunks, not a multiple of their size */
#define ROUNDS 3
#define SMALL 512
#define SMALLS 64
#define ADDS 50
#define GUARD 16
#define GUARD_BYTE 0xC3

static long counter;

static unsigned char pattern(int source, int round, size_t i)
{
    return (unsigned char)(source * 37 + round * 13 + i * 7 + 1);
}

static long small_word(int source, int round, int k)
{
    return (long)source * 1000003L + round * 1009L + k;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int partner = (me + npes / 2) % npes, from = (me + npes - npes / 2) % npes;
    unsigned char *block = shmem_malloc(BLOCK + 2 * GUARD);
    long *smalls = shmem_calloc(SMALLS * SMALL / sizeof(long), sizeof(long));
    unsigned char *mine = malloc(BLOCK), *back = malloc(BLOCK + 2 * GUARD);
    long *small_src = malloc(SMALLS * SMALL), *fetched = malloc(ADDS * sizeof *fetched);
    CHECK(block && smalls && mine && back && small_src && fetched, "allocation failed");
    memset(block, GUARD_BYTE, BLOCK + 2 * GUARD);
    size_t words = SMALL / sizeof(long);
    shmem_barrier_all();

    for (int round = 0; round < ROUNDS; round++) {
        for (size_t i = 0; i < BLOCK; i++)
            mine[i] = pattern(me, round, i);
        for (int k = 0; k < SMALLS; k++)
            for (size_t w = 0; w < words; w++)
                small_src[(size_t)k * words + w] = small_word(me, round, k) + (long)w;
        shmem_putmem(block + GUARD, mine, BLOCK, partner);
        for (int k = 0; k < SMALLS; k++)
            shmem_putmem_nbi(smalls + (size_t)k * words, small_src + (size_t)k * words, SMALL,
                             partner);
        for (int a = 0; a < ADDS / ROUNDS + 1; a++) {
            int at = round * (ADDS / ROUNDS + 1) + a;
            if (at < ADDS)
                fetched[at] = shmem_long_atomic_fetch_add(&counter, 1, 0);
        }
        shmem_quiet();
        shmem_barrier_all();

        shmem_getmem(back, block, BLOCK + 2 * GUARD, partner);
        int bad = 0;
        for (size_t i = 0; i < BLOCK + 2 * GUARD; i++) {
            int in = i >= GUARD && i < GUARD + BLOCK;
            unsigned char want = in ? pattern(me, round, i - GUARD) : GUARD_BYTE;
            if (back[i] != want && bad++ == 0)
                CHECK(0, "round %d: byte %zu of the block at PE %d is %u, not %u", round, i,
                      partner, back[i], want);
        }
        CHECK(bad == 0, "round %d: %d bytes wrong in the block I put", round, bad);
        bad = 0;
        for (int k = 0; k < SMALLS; k++)
            for (size_t w = 0; w < words; w++)
                bad += smalls[(size_t)k * words + w] != small_word(from, round, k) + (long)w;
        CHECK(bad == 0, "round %d: %d words of PE %d's small puts wrong", round, bad, from);
        shmem_barrier_all();
    }

    long *all = shmem_malloc((size_t)npes * ADDS * sizeof *all);
    shmem_putmem(all + (size_t)me * ADDS, fetched, ADDS * sizeof *fetched, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = (long)npes * ADDS;
        char *seen = calloc((size_t)total, 1);
        int wrong = 0;
        for (long i = 0; i < total; i++)
            wrong += all[i] < 0 || all[i] >= total || seen[all[i]]++;
        CHECK(wrong == 0, "%d fetch-add results out of range or repeated", wrong);
        CHECK(counter == total, "counter %ld, want %ld", counter, total);
        free(seen);
    }

    struct pg_net_credit_peak peak = pg_net_credit_peak();
    long long credits = pg_cfg.mpi_credits;
    if (pg_cfg.transport == PG_TRANSPORT_MPI) {
        const char *threshold = getenv("UCX_RNDV_THRESH");
        char want[32];
        snprintf(want, sizeof want, "%lld", 2 * pg_cfg.pipeline_buffer_size);
        CHECK(threshold && strcmp(threshold, want) == 0, "UCX_RNDV_THRESH is %s, want %s",
              threshold ? threshold : "unset", want);
        if (!shmem_ptr(block, partner))
            CHECK(peak.to_peer > 0, "no message in flight to a peer was ever counted");
        CHECK(peak.to_peer <= credits, "%lld messages in flight to one peer, credits %lld",
              peak.to_peer, credits);
        CHECK(peak.messages <= 4 * credits, "%lld messages in flight in all, at most %lld",
              peak.messages, 4 * credits);
        CHECK(peak.bytes <= credits * pg_cfg.pipeline_buffer_size,
              "%lld bytes in flight, at most %lld", peak.bytes,
              credits * pg_cfg.pipeline_buffer_size);
        if (me == 0)
            printf("PE 0: most in flight: %lld to a peer, %lld in all, %lld bytes (credits "
                   "%lld)\n",
                   peak.to_peer, peak.messages, peak.bytes, credits);
    } else {
        CHECK(peak.to_peer == 0 && peak.messages == 0 && peak.bytes == 0,
              "credits counted (%lld, %lld, %lld) over the ofi transport", peak.to_peer,
              peak.messages, peak.bytes);
    }
    shmem_free(all);
    shmem_free(smalls);
    shmem_free(block);
    free(mine);
    free(back);
    free(small_src);
    free(fetched);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
