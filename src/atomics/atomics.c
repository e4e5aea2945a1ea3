#include "atomics.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"

uint64_t pg_amo(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond)
{
    void *p = pg_mem_peer_ptr(dest, pe);
    if (p)
        return pg_amo_apply(p, op, width, value, cond);
    size_t offset;
    int seg = pg_mem_locate(dest, width, &offset);
    if (seg < 0 || (unsigned)pe >= (unsigned)pg_world.npes)
        pg_fatal("atomic", "address %p on PE %d is not symmetric memory", dest, pe);
    return pg_ds_amo(ctx ? &ctx->completion : NULL, pe, seg, offset, op, width, value, cond,
                     op != PG_AMO_SET);
}

/* The lock word on PE 0 holds two 32-bit counters: the next ticket to hand out (high half)
 * and the ticket now served (low half). */
#define LOCK_HOME 0
#define TICKET_ONE ((uint64_t)1 << 32)

static uint32_t serving(uint64_t word)
{
    return (uint32_t)word;
}

void pg_lock_set(long *lock)
{
    uint64_t word = pg_amo(NULL, lock, LOCK_HOME, PG_AMO_ADD, 8, TICKET_ONE, 0);
    uint32_t ticket = (uint32_t)(word >> 32);
    struct pg_waiter w = {0};
    while (serving(word) != ticket) {
        pg_wait_step(&w);
        word = pg_amo(NULL, lock, LOCK_HOME, PG_AMO_FETCH, 8, 0, 0);
    }
}

int pg_lock_test(long *lock)
{
    uint64_t word = pg_amo(NULL, lock, LOCK_HOME, PG_AMO_FETCH, 8, 0, 0);
    uint32_t ticket = (uint32_t)(word >> 32);
    if (serving(word) != ticket)
        return 1;
    uint64_t taken = word + TICKET_ONE;
    return pg_amo(NULL, lock, LOCK_HOME, PG_AMO_CSWAP, 8, taken, word) == word ? 0 : 1;
}

void pg_lock_clear(long *lock)
{
    pg_quiet(NULL);
    /* Only the holder moves the low half; add within 32 bits so it never carries. */
    uint64_t word = pg_amo(NULL, lock, LOCK_HOME, PG_AMO_FETCH, 8, 0, 0);
    for (;;) {
        uint64_t next = (word & ~(uint64_t)0xffffffffu) | (uint32_t)(serving(word) + 1);
        uint64_t seen = pg_amo(NULL, lock, LOCK_HOME, PG_AMO_CSWAP, 8, next, word);
        if (seen == word)
            return;
        word = seen;
    }
}
