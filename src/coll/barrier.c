/* The world sync: a dissemination barrier over flags in internal symmetric memory. In round
 * r each PE raises a flag on PE me+2^r and waits for its own; ceil(log2 n) rounds. Flags hold
 * the barrier's sequence number, so they never need resetting. */
#include "coll.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdint.h>

#define MAX_ROUNDS 32

struct flag {
    uint64_t seq;
    char pad[64 - sizeof(uint64_t)];
};

static struct flag *flags; /* [MAX_ROUNDS], symmetric */
static uint64_t sequence;
static int rounds;
static struct flag **partner_flags; /* [rounds]: my mapping of my partner's flag array */

int pg_coll_init(void)
{
    /* A new segment is zero-filled, so the flags start at 0 without a racy reset. */
    flags = pg_mem_internal_alloc(MAX_ROUNDS * sizeof *flags);
    sequence = 0;
    rounds = 0;
    while ((1 << rounds) < pg_world.npes)
        rounds++;
    static struct flag *partners[MAX_ROUNDS];
    partner_flags = partners;
    for (int r = 0; r < rounds; r++) {
        int partner = (pg_world.me + (1 << r)) % pg_world.npes;
        partners[r] = pg_mem_peer_ptr(&flags[r], partner);
        if (!partners[r])
            return -1;
    }
    return 0;
}

void pg_coll_fini(void)
{
    flags = NULL;
}

void pg_sync_all(void)
{
    uint64_t seq = ++sequence;
    for (int r = 0; r < rounds; r++) {
        __atomic_store_n(&partner_flags[r]->seq, seq, __ATOMIC_RELEASE);
        struct pg_waiter w = {0};
        while (__atomic_load_n(&flags[r].seq, __ATOMIC_ACQUIRE) < seq)
            pg_wait_step(&w);
    }
}
