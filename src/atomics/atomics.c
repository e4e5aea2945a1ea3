#include "atomics.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"

#include <string.h>

/* The segment of an off-node AMO's target, and its offset there. */
static int remote_segment(const void *dest, int pe, size_t width, size_t *offset)
{
    int seg = pg_mem_locate(dest, width, offset);
    if (seg < 0 || (unsigned)pe >= (unsigned)pg_world.npes)
        pg_fatal("atomic", "address %p on PE %d is not symmetric memory", dest, pe);
    return seg;
}

uint64_t pg_amo(void *dest, int pe, enum pg_amo_op op, size_t width, uint64_t value, uint64_t cond)
{
    void *p = pg_mem_peer_ptr(dest, pe);
    if (p) {
        uint64_t old = pg_amo_apply(p, op, width, value, cond);
        if (op != PG_AMO_FETCH)
            pg_mem_ring(pe, dest);
        return old;
    }
    size_t offset;
    int seg = remote_segment(dest, pe, width, &offset);
    return pg_pipe_amo(pe, seg, offset, op, width, value, cond);
}

void pg_amo_nbi(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond, void *fetch)
{
    void *p = pg_mem_peer_ptr(dest, pe);
    if (p) {
        uint64_t old = pg_amo_apply(p, op, width, value, cond);
        if (op != PG_AMO_FETCH)
            pg_mem_ring(pe, dest);
        if (fetch)
            memcpy(fetch, &old, width); /* little-endian: the low bytes are the value */
        return;
    }
    size_t offset;
    int seg = remote_segment(dest, pe, width, &offset);
    pg_pipe_amo_nbi(ctx ? &ctx->completion : NULL, pe, seg, offset, op, width, value, cond, fetch);
}

/* OpenSHMEM locks are MCS queue locks, so a waiter spins on its own memory, never over the
 * network. The symmetric long holds two 32-bit halves (little-endian):
 *   tail (low half, used on LOCK_HOME only): 1 + the PE last in the queue, 0 when free;
 *   node (high half, on every PE): that PE's queue entry, 1 + its successor in the low 31
 *   bits (written once by the successor) and GRANTED, set by its predecessor on release. */
#define LOCK_HOME 0
#define GRANTED 0x80000000u
#define SUCCESSOR_MASK 0x7fffffffu

static uint32_t *tail_of(long *lock)
{
    return (uint32_t *)lock;
}

static uint32_t *node_of(long *lock)
{
    return (uint32_t *)lock + 1;
}

static int granted(const void *node)
{
    return (__atomic_load_n((const uint32_t *)node, __ATOMIC_ACQUIRE) & GRANTED) != 0;
}

static int has_successor(const void *node)
{
    return (__atomic_load_n((const uint32_t *)node, __ATOMIC_ACQUIRE) & SUCCESSOR_MASK) != 0;
}

static void wait_local(const uint32_t *node, int (*done)(const void *))
{
    PG_WAITER(w, pg_mem_doorbell(pg_world.me, node));
    while (!done(node))
        pg_wait_step(&w);
}

void pg_lock_set(long *lock)
{
    uint32_t me = (uint32_t)pg_world.me + 1;
    uint32_t *node = node_of(lock);
    uint32_t pred = (uint32_t)pg_amo(tail_of(lock), LOCK_HOME, PG_AMO_SWAP, 4, me, 0);
    if (pred == 0)
        return;
    pg_amo_nbi(NULL, node, (int)pred - 1, PG_AMO_OR, 4, me, 0, NULL);
    wait_local(node, granted);
    __atomic_fetch_and(node, ~GRANTED, __ATOMIC_RELAXED);
}

int pg_lock_test(long *lock)
{
    uint32_t me = (uint32_t)pg_world.me + 1;
    return pg_amo(tail_of(lock), LOCK_HOME, PG_AMO_CSWAP, 4, me, 0) == 0 ? 0 : 1;
}

void pg_lock_clear(long *lock)
{
    pg_quiet(NULL);
    uint32_t me = (uint32_t)pg_world.me + 1;
    uint32_t *node = node_of(lock);
    if (!has_successor(node)) {
        if (pg_amo(tail_of(lock), LOCK_HOME, PG_AMO_CSWAP, 4, 0, me) == me)
            return;
        wait_local(node, has_successor); /* a successor has swapped itself in: wait for it */
    }
    uint32_t next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & SUCCESSOR_MASK;
    __atomic_store_n(node, 0, __ATOMIC_RELAXED);
    pg_amo_nbi(NULL, node, (int)next - 1, PG_AMO_OR, 4, GRANTED, 0, NULL);
}
