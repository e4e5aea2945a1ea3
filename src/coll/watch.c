/* The hang watch: a job that can go no further ends with a message instead of hanging.
 *
 * Each node keeps a record at its leader (internal symmetric memory): how many of its PEs have
 * left (their last finalize) and how many are blocked — in a wait the program made, for longer
 * than PANGEA_HANG_CHECK seconds, with nothing of their own in flight (no request sent and not
 * done, a blocking get's or AMO's, a grant's, too). One blocked PE per node
 * (the node's scanner) then reads every node's record, once a period. When two scans in a row
 * find every PE of the job blocked or gone, and no blocked PE was woken between them, there was
 * an instant at which nothing could change any more: no PE was running and nothing was in
 * flight. The scanner ends the job, saying who left first, or that every PE waits (a deadlock
 * of the program's own).
 *
 * A PE that waits while a request of its own goes again and again to a node whose server has
 * sent it nothing for PANGEA_HANG_SILENT seconds ends the job itself, saying so: the network
 * to that node has failed, and the scan, which reads the other nodes' records over it, could
 * not end it.
 *
 * Only at SHMEM_THREAD_SINGLE: another thread of a PE could still wake a blocked one. */
#define _GNU_SOURCE /* CLOCK_MONOTONIC_COARSE */
#include "coll_internal.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <time.h>

struct node_record {
    uint64_t pes;      /* the node's PEs, written by its leader at init */
    uint64_t departed; /* PEs in (or past) their last finalize */
    uint64_t blocked;  /* PEs blocked in a wait */
    uint64_t woken;    /* times a blocked PE's wait ended: a scan that sees it move restarts */
    uint64_t first_departed; /* 1 + the lowest PE that left, 0 for none */
    uint64_t scanner;        /* 1 + the blocked PE that scans for the node, 0 for none */
};

static struct node_record *record;  /* symmetric: the copy at each node's leader counts */
static struct node_record *on_node; /* my node's record (at my leader) */
static long long period_ns;
/* The last scan found the whole job blocked or gone, with this sum of wake-ups. */
static int quiet_before;
static uint64_t woken_before;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int leader_of_node(int node)
{
    const struct pangea_team *world = pg_coll_world();
    return pg_team_pe(world, world->leaders[node]);
}

__attribute__((noreturn)) static void report(const char *call, uint64_t departed,
                                             uint64_t first_departed)
{
    if (departed)
        pg_fatal(call,
                 "the job can go no further: %llu PE%s left (PE %llu first: shmem_finalize or "
                 "ARMCI_Finalize, or an exit without it) and every other PE waits, this one "
                 "here, with nothing in flight; ending the job",
                 (unsigned long long)departed, departed > 1 ? "s have" : " has",
                 (unsigned long long)first_departed - 1);
    pg_fatal(call, "the job can go no further: every PE waits, this one here, with nothing in "
                   "flight (a deadlock); ending the job");
}

/* I wait, and my request to a node went again and again while its server stayed silent. */
__attribute__((noreturn)) static void report_silent(const char *call,
                                                    const struct pg_pipe_in_flight *f)
{
    pg_fatal(call,
             "the job can go no further: this PE waits, and its request to the data server of "
             "node %d went %u times unanswered, nothing from that node for %llu s (the network "
             "to it has failed); ending the job",
             f->resent_node, f->sends, (unsigned long long)(f->silent_ns / 1000000000u));
}

/* One node's record: mine by loads, another's by a get from its leader. */
static void read_record(int node, struct node_record *seen)
{
    if (node != pg_world.node) {
        pg_get(&pg_coll_ctx, seen, record, sizeof *seen, leader_of_node(node));
        return;
    }
    *seen = (struct node_record){
        .pes = __atomic_load_n(&on_node->pes, __ATOMIC_ACQUIRE),
        .departed = __atomic_load_n(&on_node->departed, __ATOMIC_ACQUIRE),
        .blocked = __atomic_load_n(&on_node->blocked, __ATOMIC_ACQUIRE),
        .woken = __atomic_load_n(&on_node->woken, __ATOMIC_ACQUIRE),
        .first_departed = __atomic_load_n(&on_node->first_departed, __ATOMIC_ACQUIRE),
    };
}

/* Reads my node's record, then the others' from the one last seen running: while some node
 * runs, a scan costs my loads and one get. */
static void scan(const char *call)
{
    static int running_hint = -1;
    uint64_t departed = 0, woken = 0, first = 0;
    int start = running_hint >= 0 ? running_hint : pg_world.node + 1;
    for (int k = -1; k < pg_world.nnodes; k++) {
        int node = k < 0 ? pg_world.node : (start + k) % pg_world.nnodes;
        if (k >= 0 && node == pg_world.node)
            continue;
        struct node_record seen;
        read_record(node, &seen);
        if (seen.departed + seen.blocked < seen.pes) {
            running_hint = node;
            quiet_before = 0;
            return; /* someone runs */
        }
        departed += seen.departed;
        woken += seen.woken;
        if (seen.first_departed && (!first || seen.first_departed < first))
            first = seen.first_departed;
    }
    if (quiet_before && woken == woken_before)
        report(call, departed, first);
    quiet_before = 1;
    woken_before = woken;
}

static void watch(struct pg_waiter *w)
{
    if (pg_runtime_thread_level() != PG_THREAD_SINGLE)
        return;
    long long now = now_ns();
    if (!w->watch_since_ns) {
        w->watch_since_ns = now;
        return;
    }
    if (now - w->watch_since_ns < period_ns)
        return;
    if (!w->blocked) {
        struct pg_pipe_in_flight f;
        if (!pg_pipe_in_flight(&f))
            return; /* cannot tell now */
        if (f.requests && f.resent_node >= 0 &&
            f.silent_ns / 1000000000u >= (uint64_t)pg_cfg.hang_silent)
            report_silent(w->watch, &f);
        if (f.requests)
            return; /* what it sent may still wake someone */
        __atomic_fetch_add(&on_node->blocked, 1, __ATOMIC_SEQ_CST);
        w->blocked = 1;
        w->next_scan_ns = now;
    }
    if (now < w->next_scan_ns)
        return;
    w->next_scan_ns = now + period_ns;
    uint64_t none = 0, me = (uint64_t)pg_world.me + 1;
    if (__atomic_load_n(&on_node->scanner, __ATOMIC_RELAXED) == me ||
        __atomic_compare_exchange_n(&on_node->scanner, &none, me, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_RELAXED))
        scan(w->watch);
}

static void watch_end(struct pg_waiter *w)
{
    __atomic_fetch_add(&on_node->woken, 1, __ATOMIC_SEQ_CST); /* before it stops counting */
    __atomic_fetch_sub(&on_node->blocked, 1, __ATOMIC_SEQ_CST);
    uint64_t me = (uint64_t)pg_world.me + 1;
    __atomic_compare_exchange_n(&on_node->scanner, &me, 0, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
    w->blocked = 0;
    quiet_before = 0;
}

size_t pg_watch_bytes(void)
{
    return sizeof(struct node_record);
}

void pg_watch_init(void)
{
    record = pg_mem_internal_alloc(sizeof *record);
    on_node = pg_mem_peer_ptr(record, pg_world.local_pes[0]);
    if (pg_world.local_rank == 0)
        __atomic_store_n(&record->pes, (uint64_t)pg_world.local_size, __ATOMIC_RELEASE);
    quiet_before = 0;
    period_ns = pg_cfg.hang_check * 1000000000LL;
    if (period_ns > 0) {
        pg_wait_watch = watch;
        pg_wait_watch_end = watch_end;
    }
}

void pg_watch_fini(void)
{
    pg_wait_watch = NULL;
    pg_wait_watch_end = NULL;
}

void pg_watch_depart(void)
{
    __atomic_fetch_add(&on_node->departed, 1, __ATOMIC_SEQ_CST);
    uint64_t first = __atomic_load_n(&on_node->first_departed, __ATOMIC_RELAXED);
    uint64_t me = (uint64_t)pg_world.me + 1;
    while ((!first || me < first) &&
           !__atomic_compare_exchange_n(&on_node->first_departed, &first, me, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_RELAXED))
        ;
}
