#include "atomics.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "prof/prof.h"
#include "runtime/runtime.h"

#include <string.h>

/* The segment of an off-node AMO's target, and its offset there. */
static int remote_segment(const void *dest, int pe, size_t width, size_t *offset)
{
    if ((unsigned)pe >= (unsigned)pg_world.npes)
        pg_fatal("atomic", "PE %d is out of range [0, %d)", pe, pg_world.npes);
    int seg = pg_mem_locate(dest, width, offset);
    if (seg < 0)
        pg_fatal("atomic", "address %p on PE %d is not symmetric memory", dest, pe);
    return seg;
}

static int counting(const struct pangea_ctx *ctx)
{
    return ctx && ctx->counting != PG_COUNT_OFF;
}

uint64_t pg_amo(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond)
{
    void *p = pg_mem_peer_ptr(dest, pe);
    if (p) {
        pg_prof_op(PG_PROF_AMO, pe, width);
        uint64_t old = pg_amo_apply(p, op, width, value, cond);
        if (op != PG_AMO_FETCH)
            pg_mem_ring(pe, dest);
        if (counting(ctx))
            pg_ctx_target_done(pe, 1);
        return old;
    }
    size_t offset;
    int seg = remote_segment(dest, pe, width, &offset);
    pg_prof_op(PG_PROF_AMO, pe, width);
    return pg_pipe_amo(counting(ctx), pe, seg, offset, op, width, value, cond);
}

void pg_amo_nbi(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond, void *fetch)
{
    void *p = pg_mem_peer_ptr(dest, pe);
    if (p) {
        pg_prof_op(PG_PROF_AMO, pe, width);
        uint64_t old = pg_amo_apply(p, op, width, value, cond);
        if (op != PG_AMO_FETCH)
            pg_mem_ring(pe, dest);
        if (fetch)
            memcpy(fetch, &old, width); /* little-endian: the low bytes are the value */
        if (counting(ctx))
            pg_ctx_target_done(pe, 1);
        return;
    }
    size_t offset;
    int seg = remote_segment(dest, pe, width, &offset);
    pg_prof_op(PG_PROF_AMO, pe, width);
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
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, node), pg_api_call ? pg_api_call : "lock");
    while (!done(node))
        pg_wait_step(&w);
}

void pg_lock_set(long *lock)
{
    PG_PROF_WAIT(LOCK);
    uint32_t me = (uint32_t)pg_world.me + 1;
    uint32_t *node = node_of(lock);
    uint32_t pred = (uint32_t)pg_amo(NULL, tail_of(lock), LOCK_HOME, PG_AMO_SWAP, 4, me, 0);
    pg_lock_held_note("shmem_set_lock", 1);
    if (pred == 0)
        return;
    pg_amo_nbi(NULL, node, (int)pred - 1, PG_AMO_OR, 4, me, 0, NULL);
    wait_local(node, granted);
    __atomic_fetch_and(node, ~GRANTED, __ATOMIC_RELAXED);
}

int pg_lock_test(long *lock)
{
    uint32_t me = (uint32_t)pg_world.me + 1;
    if (pg_amo(NULL, tail_of(lock), LOCK_HOME, PG_AMO_CSWAP, 4, me, 0) != 0)
        return 1;
    pg_lock_held_note("shmem_test_lock", 1);
    return 0;
}

void pg_lock_clear(long *lock)
{
    pg_quiet(NULL);
    pg_lock_held_note(NULL, -1);
    uint32_t me = (uint32_t)pg_world.me + 1;
    uint32_t *node = node_of(lock);
    if (!has_successor(node)) {
        if (pg_amo(NULL, tail_of(lock), LOCK_HOME, PG_AMO_CSWAP, 4, 0, me) == me)
            return;
        wait_local(node, has_successor); /* a successor has swapped itself in: wait for it */
    }
    uint32_t next = __atomic_load_n(node, __ATOMIC_ACQUIRE) & SUCCESSOR_MASK;
    __atomic_store_n(node, 0, __ATOMIC_RELAXED);
    pg_amo_nbi(NULL, node, (int)next - 1, PG_AMO_OR, 4, GRANTED, 0, NULL);
}

/* Held locks, counted for the checkpoint's check (one atomic add per acquire and release). */
static long locks_held;
static const char *last_taken_by;

void pg_lock_held_note(const char *call, int delta)
{
    if (call)
        __atomic_store_n(&last_taken_by, call, __ATOMIC_RELAXED);
    __atomic_fetch_add(&locks_held, delta, __ATOMIC_RELAXED);
}

long pg_locks_held(const char **taken_by)
{
    *taken_by = __atomic_load_n(&last_taken_by, __ATOMIC_RELAXED);
    return __atomic_load_n(&locks_held, __ATOMIC_RELAXED);
}
