/* Accumulate: the element kernels and the per-PE accumulate lock in shared memory. */
#include "dataserver.h"

#include "memory/memory.h"
#include "runtime/runtime.h"

#include <complex.h>
#include <string.h>

size_t pg_acc_type_size(enum pg_acc_type type)
{
    static const size_t size[] = {
        [PG_ACC_INT] = sizeof(int),
        [PG_ACC_LONG] = sizeof(long),
        [PG_ACC_FLOAT] = sizeof(float),
        [PG_ACC_DOUBLE] = sizeof(double),
        [PG_ACC_COMPLEX] = sizeof(float _Complex),
        [PG_ACC_DCOMPLEX] = sizeof(double _Complex),
    };
    return (unsigned)type <= PG_ACC_LAST ? size[type] : 0;
}

/* Elements are moved with memcpy: ARMCI buffers need not be aligned to the element type, and
 * the compiler turns the fixed-size copies into plain loads and stores. */
#define ACC_KERNEL(NAME, T)                                                           \
    static void acc_##NAME(const void *scale_p, char *dst, const char *src, size_t n) \
    {                                                                                 \
        T scale;                                                                      \
        memcpy(&scale, scale_p, sizeof scale);                                        \
        for (size_t i = 0; i < n; i++) {                                              \
            T d, s;                                                                   \
            memcpy(&d, dst + i * sizeof(T), sizeof d);                                \
            memcpy(&s, src + i * sizeof(T), sizeof s);                                \
            d += scale * s;                                                           \
            memcpy(dst + i * sizeof(T), &d, sizeof d);                                \
        }                                                                             \
    }
ACC_KERNEL(int, int)
ACC_KERNEL(long, long)
ACC_KERNEL(float, float)
ACC_KERNEL(double, double)
ACC_KERNEL(complex, float _Complex)
ACC_KERNEL(dcomplex, double _Complex)

void pg_acc_apply(enum pg_acc_type type, const void *scale, void *dst, const void *src,
                  size_t bytes)
{
    size_t n = bytes / pg_acc_type_size(type);
    switch (type) {
    case PG_ACC_INT:
        acc_int(scale, dst, src, n);
        break;
    case PG_ACC_LONG:
        acc_long(scale, dst, src, n);
        break;
    case PG_ACC_FLOAT:
        acc_float(scale, dst, src, n);
        break;
    case PG_ACC_DOUBLE:
        acc_double(scale, dst, src, n);
        break;
    case PG_ACC_COMPLEX:
        acc_complex(scale, dst, src, n);
        break;
    case PG_ACC_DCOMPLEX:
        acc_dcomplex(scale, dst, src, n);
        break;
    }
}

/* The lock is taken by whoever finds it free, so a waiter that is running gets it at once
 * even when others are descheduled (PEs outnumber cores here, and a strict FIFO hand-off would
 * wait for the scheduler to run the one next in line, a time slice per accumulate). A waiter
 * that has tried ACC_LOCK_PATIENCE times without luck queues instead, in ticket order: while
 * anybody is queued, only the head of the queue may take the lock, so nobody (PE or data
 * server) starves. */
struct acc_lock {
    uint32_t held;
    uint32_t next;    /* the ticket the next queued waiter draws */
    uint32_t serving; /* the queued ticket allowed to take the lock; == next: nobody queued */
};

/* Failed attempts past the spinning phase (each one a yield) before a waiter queues. */
#define ACC_LOCK_PATIENCE 64

static size_t lock_offset; /* of every PE's lock in its internal area */

void pg_acc_locks_init(void)
{
    lock_offset = pg_mem_record_carve(sizeof(struct acc_lock));
    memset(pg_mem_record_mine(lock_offset), 0, sizeof(struct acc_lock));
}

/* My own lock, at my symmetric address (whose doorbell guards every PE's). */
static const void *my_lock(void)
{
    return pg_mem_record_mine(lock_offset);
}

static struct acc_lock *lock_of(int pe)
{
    return pg_mem_record_of(pe, lock_offset);
}

static int try_take(struct acc_lock *l)
{
    uint32_t free_lock = 0;
    return __atomic_load_n(&l->held, __ATOMIC_RELAXED) == 0 &&
           __atomic_compare_exchange_n(&l->held, &free_lock, 1, 0, __ATOMIC_ACQUIRE,
                                       __ATOMIC_RELAXED);
}

void pg_acc_lock(int pe)
{
    struct acc_lock *l = lock_of(pe);
    PG_WAITER(w, pg_mem_doorbell(pe, my_lock()));
    long long patience = pg_wait_spin_polls + ACC_LOCK_PATIENCE;
    while (w.polls < patience) {
        if (__atomic_load_n(&l->serving, __ATOMIC_RELAXED) ==
                __atomic_load_n(&l->next, __ATOMIC_RELAXED) &&
            try_take(l))
            return;
        pg_wait_step(&w);
    }
    uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
        pg_wait_step(&w);
    while (!try_take(l))
        pg_wait_step(&w);
    __atomic_store_n(&l->serving, ticket + 1, __ATOMIC_RELEASE); /* the next in line may go */
    pg_mem_ring(pe, my_lock());
}

void pg_acc_unlock(int pe)
{
    __atomic_store_n(&lock_of(pe)->held, 0, __ATOMIC_RELEASE);
    pg_mem_ring(pe, my_lock());
}
