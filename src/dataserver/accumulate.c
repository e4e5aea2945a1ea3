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

/* A ticket lock: FIFO, so neither the data server nor a PE can be starved. */
struct acc_lock {
    uint32_t next;
    uint32_t serving;
};

static size_t lock_offset; /* of every PE's lock in its heap segment */

void pg_acc_locks_init(void)
{
    struct acc_lock *mine = pg_mem_internal_alloc(sizeof *mine);
    memset(mine, 0, sizeof *mine);
    lock_offset = (size_t)((char *)mine - pg_segments[PG_SEG_HEAP].base);
}

static struct acc_lock *lock_of(int pe)
{
    return (struct acc_lock *)(pg_segments[PG_SEG_HEAP].peer_base[pe] + lock_offset);
}

void pg_acc_lock(int pe)
{
    struct acc_lock *l = lock_of(pe);
    uint32_t ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
    struct pg_waiter w = {0};
    while (__atomic_load_n(&l->serving, __ATOMIC_ACQUIRE) != ticket)
        pg_wait_step(&w);
}

void pg_acc_unlock(int pe)
{
    struct acc_lock *l = lock_of(pe);
    __atomic_store_n(&l->serving, l->serving + 1, __ATOMIC_RELEASE);
}
