/* The world sync: a dissemination barrier over flags in internal symmetric memory. In round
 * r each PE raises a flag on PE me+2^r and waits for its own; ceil(log2 n) rounds. Flags hold
 * the barrier's sequence number, so they never need resetting. */
#include "coll.h"

#include "dataserver/dataserver.h"
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
/* Round r's partner: my mapping of its flag, or NULL when it is on another node. */
static struct flag *partner_flag[MAX_ROUNDS];
static int partner_pe[MAX_ROUNDS];

int pg_coll_init(void)
{
    /* A new segment is zero-filled, so the flags start at 0 without a racy reset. */
    flags = pg_mem_internal_alloc(MAX_ROUNDS * sizeof *flags);
    sequence = 0;
    rounds = 0;
    while ((1 << rounds) < pg_world.npes)
        rounds++;
    for (int r = 0; r < rounds; r++) {
        partner_pe[r] = (pg_world.me + (1 << r)) % pg_world.npes;
        partner_flag[r] = pg_mem_peer_ptr(&flags[r], partner_pe[r]);
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
        if (partner_flag[r]) {
            __atomic_store_n(&partner_flag[r]->seq, seq, __ATOMIC_RELEASE);
        } else {
            size_t offset = 0;
            int seg = pg_mem_locate(&flags[r], sizeof flags[r], &offset);
            pg_ds_amo(NULL, partner_pe[r], seg, offset, PG_AMO_SET, sizeof flags[r].seq, seq, 0, 0);
        }
        struct pg_waiter w = {0};
        while (__atomic_load_n(&flags[r].seq, __ATOMIC_ACQUIRE) < seq)
            pg_wait_step(&w);
    }
}
