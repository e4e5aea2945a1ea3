/* prof: the communication profile (PANGEA_PROFILE=DIR, docs/profile.md). Each PE counts, per
 * target PE, the operations and bytes it issued by kind, the collectives' own traffic per
 * collective, and the time it spent waiting; at finalize it writes DIR/pe-<PE>.csv (PE 0 also
 * DIR/topology.csv).
 *
 * Below the front-ends, onesided, atomics and coll, which call it where each kind of traffic
 * passes: the cost when profiling is off is one predictable branch on pg_prof_counting.
 * Counters are the PE's own (no locks): plain adds at thread levels below SHMEM_THREAD_MULTIPLE,
 * relaxed atomic adds at it. */
#ifndef PG_PROF_H
#define PG_PROF_H

#include <stddef.h>
#include <stdint.h>

/* The kinds of operation (the `op` rows), then the collectives (the `coll` rows). An operation
 * issued inside a collective is counted as that collective's traffic, never as an op. */
/* clang-format off */
#define PG_PROF_OPS(X) \
    X(PUT, "put") X(GET, "get") X(AMO, "amo") X(ACC, "acc") X(SIGNAL, "signal")
#define PG_PROF_COLLS(X) \
    X(BARRIER, "barrier") X(SYNC, "sync") X(BROADCAST, "broadcast") X(REDUCE, "reduce") \
    X(COLLECT, "collect") X(FCOLLECT, "fcollect") X(ALLTOALL, "alltoall") \
    X(ALLTOALLS, "alltoalls") X(SCAN, "scan") X(ARMCI_MSG, "armci_msg")
#define PG_PROF_WAITS(X) \
    X(QUIET, "quiet") X(SYNC, "sync") X(WAIT_UNTIL, "wait_until") X(LOCK, "lock")
/* clang-format on */

enum pg_prof_kind {
#define PG_PROF_OP_ID(id, name) PG_PROF_##id,
    PG_PROF_OPS(PG_PROF_OP_ID)
#undef PG_PROF_OP_ID
        PG_PROF_OP_KINDS,
#define PG_PROF_COLL_ID(id, name) PG_PROF_COLL_##id,
    PG_PROF_COLL_FIRST = PG_PROF_OP_KINDS - 1,
    PG_PROF_COLLS(PG_PROF_COLL_ID)
#undef PG_PROF_COLL_ID
        PG_PROF_KINDS
};

enum pg_prof_wait {
#define PG_PROF_WAIT_ID(id, name) PG_PROF_WAIT_##id,
    PG_PROF_WAITS(PG_PROF_WAIT_ID)
#undef PG_PROF_WAIT_ID
        PG_PROF_WAIT_KINDS
};

/* A collective's or a wait's counters (for a wait, bytes holds the nanoseconds). */
struct pg_prof_cell {
    uint64_t count, bytes;
};
/* The operations' counters: one row per target PE, indexed by kind, so that an operation's
 * counters are at constant offsets in its target's row; counts and bytes apart, so that
 * counting is two memory-destination adds (adjacent ones the compiler merges into a vector
 * load-add-store, which costs more on the put path). */
struct pg_prof_row {
    uint64_t count[PG_PROF_OP_KINDS], bytes[PG_PROF_OP_KINDS];
};

/* What counting does now, in one word so that the operation path tests one load: 0, off;
 * PG_PROF_BY_CALL, counting through pg_prof_note — at SHMEM_THREAD_MULTIPLE (atomic adds, each
 * thread's collective its own), and below it while the one thread in the library is inside a
 * collective; otherwise the address of the rows (npes of them), counted inline with plain adds. */
#define PG_PROF_BY_CALL ((uintptr_t)1)
extern uintptr_t pg_prof_counting __attribute__((visibility("hidden")));

/* Checks that DIR (PANGEA_PROFILE) can be made and written (ends the job naming the variable
 * and the path when not) and allocates this PE's counters; nothing when the variable is unset.
 * After startup and topology. */
void pg_prof_init(int thread_multiple);
/* Counting starts (called by a front-end once its init is done, so that the init's own traffic
 * is not counted). */
void pg_prof_start(void);
/* Writes this PE's file, and PE 0 the topology, counting on: at the top of every front-end's
 * finalize (before its own fences and syncs) and at exit without one. At a global exit
 * (exiting) the calling PE writes the topology too, since PE 0 may be ended before it can. */
void pg_prof_write(int exiting);
/* Stops counting and frees the counters (the last finalize). */
void pg_prof_fini(void);

/* The collective the calling thread is in (see PG_PROF_COLL below). */
extern __thread int pg_prof_coll_now
    __attribute__((tls_model("initial-exec"), visibility("hidden")));

/* One operation of `bytes` bytes to world PE pe, which the caller has validated (a PE of the
 * job: the counters are indexed by it, so count after the check that ends the job). */
void pg_prof_note(enum pg_prof_kind kind, int pe, size_t bytes);
static inline void pg_prof_op(enum pg_prof_kind kind, int pe, size_t bytes)
{
    uintptr_t counting = pg_prof_counting;
    if (__builtin_expect(counting != 0, 0)) {
        if (__builtin_expect(counting != PG_PROF_BY_CALL, 1)) {
            struct pg_prof_row *row = (struct pg_prof_row *)counting + pe;
            row->count[kind]++;
            row->bytes[kind] += bytes;
        } else {
            pg_prof_note(kind, pe, bytes);
        }
    }
}

/* The collective the calling thread is in (a PG_PROF_COLL_* kind, or -1), named by
 * PG_PROF_COLL(kind) at the top of a collective until its scope ends; a collective inside
 * another one counts as the outer one. A barrier's or sync's whole time is a `sync` wait.
 * PG_PROF_WAIT(kind) counts a wait from there to the end of its scope, unless it is part of a
 * collective. */
/* Kept to two ints and the time: the compiler stores the ints as one 8-byte word, and a
 * 4-byte store there makes the `lock or` that gcc emits at the same stack address for
 * pg_quiet's fence wait on a failed store forwarding (5 ns on every quiet, perf/README.md). */
struct pg_prof_scope {
    int kind;           /* -1: nothing to do at the end */
    int counted_inline; /* counting was inline (and is by call until the end) */
    uint64_t began_ns;
};
struct pg_prof_scope pg_prof_coll_enter(enum pg_prof_kind kind);
/* timed 0: counted with no time (a wait that cannot block, not worth two clock reads). */
struct pg_prof_scope pg_prof_wait_enter(enum pg_prof_wait kind, int timed);
void pg_prof_coll_leave(const struct pg_prof_scope *scope);
void pg_prof_wait_leave(const struct pg_prof_scope *scope);
static inline struct pg_prof_scope pg_prof_coll_begin(enum pg_prof_kind kind)
{
    if (__builtin_expect(pg_prof_counting != 0, 0))
        return pg_prof_coll_enter(kind);
    return (struct pg_prof_scope){-1, 0, 0};
}
static inline struct pg_prof_scope pg_prof_wait_begin(enum pg_prof_wait kind, int timed)
{
    if (__builtin_expect(pg_prof_counting != 0, 0))
        return pg_prof_wait_enter(kind, timed);
    return (struct pg_prof_scope){-1, 0, 0};
}
static inline void pg_prof_coll_end(const struct pg_prof_scope *scope)
{
    if (__builtin_expect(scope->kind >= 0, 0))
        pg_prof_coll_leave(scope);
}
static inline void pg_prof_wait_end(const struct pg_prof_scope *scope)
{
    if (__builtin_expect(scope->kind >= 0, 0))
        pg_prof_wait_leave(scope);
}
#define PG_PROF_COLL(kind)                                   \
    const struct pg_prof_scope pg_prof_coll_scope_           \
        __attribute__((cleanup(pg_prof_coll_end), unused)) = \
            pg_prof_coll_begin(PG_PROF_COLL_##kind)
#define PG_PROF_WAIT_TIMED(kind, timed)                      \
    const struct pg_prof_scope pg_prof_wait_scope_           \
        __attribute__((cleanup(pg_prof_wait_end), unused)) = \
            pg_prof_wait_begin(PG_PROF_WAIT_##kind, timed)
#define PG_PROF_WAIT(kind) PG_PROF_WAIT_TIMED(kind, 1)

#endif
