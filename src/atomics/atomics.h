/* atomics: atomic memory operations on symmetric memory, and distributed locks.
 * Every AMO type of OpenSHMEM is 4 or 8 bytes wide, and integer add/and/or/xor are the same
 * bit operations for signed and unsigned types, so one kernel per (width, op) serves all. */
#ifndef PG_ATOMICS_H
#define PG_ATOMICS_H

#include "dataserver/dataserver.h"

#include <stddef.h>
#include <stdint.h>

struct pangea_ctx;

/* Applies op to the width-byte (4 or 8) object at symmetric address dest on pe and returns
 * the previous value, zero-extended. cond is the compare-and-swap comparand. ctx: the
 * program's context, whose counting says whether the AMO counts at its target (shmemx_pcntr);
 * NULL for the engine's own AMOs (locks, mutexes), which never count. */
uint64_t pg_amo(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond);
/* The same without waiting: returns once issued, and the previous value (width bytes) lands in
 * fetch, unless fetch is NULL (an update only). Off-node it is complete, fetch filled, when
 * ctx's quiet returns (NULL ctx: a quiet of all); it is applied after my earlier operations
 * to the target's node. */
void pg_amo_nbi(struct pangea_ctx *ctx, void *dest, int pe, enum pg_amo_op op, size_t width,
                uint64_t value, uint64_t cond, void *fetch);

/* OpenSHMEM locks on a symmetric long: FIFO (an MCS queue; waiters spin on their own
 * memory), not reentrant. */
void pg_lock_set(long *lock);
int pg_lock_test(long *lock); /* 0: acquired, 1: held by another */
void pg_lock_clear(long *lock);

/* The locks and mutexes this PE holds (OpenSHMEM locks, ARMCI mutexes): every acquire notes +1
 * naming its call, every release -1 (NULL call). pg_locks_held returns the count and the call
 * that took the last one; a checkpoint refuses to save while the count is not 0. */
void pg_lock_held_note(const char *call, int delta);
long pg_locks_held(const char **taken_by);

#endif
