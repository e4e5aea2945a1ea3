#include "atomics.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"

#define KERNEL(T)                                                                                \
    static uint64_t amo_##T(T *p, enum pg_amo_op op, T value, T cond)                            \
    {                                                                                            \
        switch (op) {                                                                            \
        case PG_AMO_FETCH:                                                                       \
            return __atomic_load_n(p, __ATOMIC_ACQUIRE);                                         \
        case PG_AMO_SET:                                                                         \
            __atomic_store_n(p, value, __ATOMIC_RELEASE);                                        \
            return 0;                                                                            \
        case PG_AMO_SWAP:                                                                        \
            return __atomic_exchange_n(p, value, __ATOMIC_ACQ_REL);                              \
        case PG_AMO_CSWAP:                                                                       \
            __atomic_compare_exchange_n(p, &cond, value, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); \
            return cond;                                                                         \
        case PG_AMO_ADD:                                                                         \
            return __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);                               \
        case PG_AMO_AND:                                                                         \
            return __atomic_fetch_and(p, value, __ATOMIC_ACQ_REL);                               \
        case PG_AMO_OR:                                                                          \
            return __atomic_fetch_or(p, value, __ATOMIC_ACQ_REL);                                \
        case PG_AMO_XOR:                                                                         \
            return __atomic_fetch_xor(p, value, __ATOMIC_ACQ_REL);                               \
        }                                                                                        \
        return 0;                                                                                \
    }
KERNEL(uint32_t)
KERNEL(uint64_t)

uint64_t pg_amo(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond)
{
    (void)ctx;
    void *p = pg_mem_peer_ptr(dest, pe);
    if (!p)
        pg_fatal("atomic", "address %p is not symmetric memory reachable on PE %d", dest, pe);
    if (width == 4)
        return amo_uint32_t(p, op, (uint32_t)value, (uint32_t)cond);
    return amo_uint64_t(p, op, value, cond);
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
