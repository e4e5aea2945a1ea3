/* Signal channels: a team's signals from member a to member b add 1 to b's flag for a in the
 * team's channel, and b takes them off again (an atomic subtraction) when it waits for them.
 * Adding keeps counts exact even when off-node AMOs complete out of order; taking them off
 * leaves the flags of a finished collective at zero, so a channel needs no private count per
 * sender and a destroyed team's channel is zero, ready for the next team.
 *
 * A channel sized for `capacity` senders is the published words, the flags, the collect sizes,
 * the sync's flags (capacity words each) and the reduction slots (capacity slots). The sync
 * has flags of its own so that its signals between nodes, which go straight to the waiting PE
 * (pg_pipe_signal) and may overtake the sender's earlier requests, are never taken for the
 * signal of a put that has not landed yet. The world and SHARED
 * channels are indexed by team index, the active sets' by world PE; split teams take theirs
 * from the split arena, sized by the team. All of it is internal symmetric memory. */
#include "coll_internal.h"

#include "atomics/atomics.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pangea_ctx pg_coll_ctx;
size_t pg_coll_stream_bytes;
static char *fixed[PG_CHANNEL_FIXED]; /* the world, SHARED and active-set channels */
static size_t fixed_capacity[PG_CHANNEL_FIXED];
static char *arena;
static size_t arena_size;
static struct pangea_team world;

/* The reduction slots of a channel take at most this much: the fixed channels', and a split
 * team's. Past it the slots shrink, and reductions larger than a slot take the path without
 * them. */
#define FIXED_SLOT_BUDGET ((size_t)256 << 10)
#define SPLIT_SLOT_BUDGET ((size_t)64 << 10)
/* The split arena holds live split teams of this many members in all (or of npes, when that
 * is more), and this much of their reduction slots. */
#define ARENA_MIN_MEMBERS 4096
#define ARENA_SLOT_ROOM ((size_t)1 << 20)

/* From sysfs, which describes the caches this machine (or VM) has; glibc's sysconf reports
 * the host's in some VMs (384 MiB of L3 for a VM given 32 MiB). */
static size_t largest_cache(void)
{
    size_t largest = 0;
    for (int index = 0;; index++) {
        char path[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        unsigned long size;
        char unit = 0;
        if (fscanf(f, "%lu%c", &size, &unit) >= 1) {
            size_t bytes = (size_t)size << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
            if (bytes > largest)
                largest = bytes;
        }
        fclose(f);
    }
    if (largest == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        largest = l3 > 0 ? (size_t)l3 : 0;
    }
    return largest;
}

static size_t round64(size_t bytes)
{
    return (bytes + 63) & ~(size_t)63;
}

/* One word per sender, whole cache lines. */
static size_t table_bytes(size_t capacity)
{
    return round64(capacity * sizeof(uint64_t));
}

static size_t slot_bytes(size_t capacity, size_t budget)
{
    size_t cap = budget / capacity;
    size_t size = (size_t)pg_cfg.coll_reduce_gather < cap ? (size_t)pg_cfg.coll_reduce_gather : cap;
    return size & ~(size_t)63;
}

/* Tables of a channel: the flags, the sizes and the sync's flags. */
#define TABLES 3

/* The words and tables of a channel, then its slots. */
static size_t channel_bytes(size_t capacity, size_t budget)
{
    return sizeof(struct pg_coll_channel) + TABLES * table_bytes(capacity) +
           capacity * slot_bytes(capacity, budget);
}

static size_t arena_bytes(size_t npes)
{
    size_t members = npes > ARENA_MIN_MEMBERS ? npes : ARENA_MIN_MEMBERS;
    /* Each team rounds its words and its tables up to whole lines. */
    return round64(PG_MAX_TEAMS * (sizeof(struct pg_coll_channel) + TABLES * 64) +
                   TABLES * members * sizeof(uint64_t) + ARENA_SLOT_ROOM);
}

size_t pg_coll_internal_bytes(size_t npes, size_t max_local)
{
    return 2 * channel_bytes(npes, FIXED_SLOT_BUDGET) +
           channel_bytes(max_local, FIXED_SLOT_BUDGET) + arena_bytes(npes) +
           round64(pg_watch_bytes());
}

size_t pg_coll_table_bytes(size_t npes, size_t max_local)
{
    /* The node layout of the world-wide teams (the library's, SHMEM_TEAM_WORLD, ARMCI's and
     * an active set at its largest): my node's members, those of my NUMA domain and the
     * domains' leaders (room for the node's members each), one leader per node and, across
     * leaf switches, the alltoall's order of the nodes. */
    size_t nodes = (npes + max_local - 1) / max_local;
    return 4 * (3 * max_local + 2 * nodes) * sizeof(int);
}

static void attach(struct pangea_team *team, char *at, size_t capacity, size_t budget, int by_world)
{
    team->channel = (struct pg_coll_channel *)at;
    team->channel_capacity = capacity;
    team->channel_by_world = by_world;
    team->slot_size = slot_bytes(capacity, budget);
    team->slots = at + sizeof(struct pg_coll_channel) + TABLES * table_bytes(capacity);
}

void pg_team_use_channel(struct pangea_team *team, enum pg_channel which)
{
    if (team->size > (int)fixed_capacity[which])
        pg_fatal("teams", "a team of %d PEs on a channel for %zu", team->size,
                 fixed_capacity[which]);
    attach(team, fixed[which], fixed_capacity[which], FIXED_SLOT_BUDGET,
           which == PG_CHANNEL_ACTIVE_SET);
}

size_t pg_coll_split_bytes(int size)
{
    return channel_bytes((size_t)size, SPLIT_SLOT_BUDGET);
}

size_t pg_coll_arena_size(void)
{
    return arena_size;
}

void pg_coll_split_attach(struct pangea_team *team, size_t at)
{
    attach(team, arena + at, (size_t)team->size, SPLIT_SLOT_BUDGET, 0);
}

void pg_coll_split_clear(struct pangea_team *team)
{
    memset(team->channel, 0, pg_coll_split_bytes(team->size));
}

int pg_coll_init(void)
{
    pg_coll_stream_bytes = pg_cfg.coll_stream ? (size_t)pg_cfg.coll_stream : largest_cache();
    fixed_capacity[PG_CHANNEL_WORLD] = fixed_capacity[PG_CHANNEL_ACTIVE_SET] =
        (size_t)pg_world.npes;
    fixed_capacity[PG_CHANNEL_SHARED] = (size_t)pg_world.max_local_size;
    /* A new segment is zero-filled, so the flags start at 0 without a racy reset. */
    for (int c = 0; c < PG_CHANNEL_FIXED; c++)
        fixed[c] = pg_mem_internal_alloc(channel_bytes(fixed_capacity[c], FIXED_SLOT_BUDGET));
    arena_size = arena_bytes((size_t)pg_world.npes);
    arena = pg_mem_internal_alloc(arena_size);
    pg_coll_arena_reset();
    if (pg_team_init(&world, 0, 1, pg_world.npes) != 0)
        return -1;
    pg_ctx_init(&pg_coll_ctx, &world, 0, PG_COUNT_OFF);
    pg_watch_init();
    pg_coll_mcast_init();
    return 0;
}

void pg_coll_fini(void)
{
    pg_watch_fini();
    pg_coll_mcast_fini();
    pg_ctx_fini(&pg_coll_ctx);
    pg_team_fini(&world);
    memset(fixed, 0, sizeof fixed);
    arena = NULL;
}

void pg_sync_all(void)
{
    pg_team_sync(&world);
}

const struct pangea_team *pg_coll_world(void)
{
    return &world;
}

size_t pg_coll_index(const struct pangea_team *team, int pe)
{
    return (size_t)(team->channel_by_world ? pe : pg_team_index(team, pe));
}

size_t pg_coll_index_step(const struct pangea_team *team)
{
    return team->channel_by_world ? (size_t)abs(team->stride) : 1;
}

uint64_t *pg_coll_sizes(const struct pangea_team *team)
{
    return (uint64_t *)((char *)team->channel->flag + table_bytes(team->channel_capacity));
}

/* The sync's flag for signals from world PE pe. */
static uint64_t *sync_flag(const struct pangea_team *team, int pe)
{
    return (uint64_t *)((char *)team->channel->flag + 2 * table_bytes(team->channel_capacity)) +
           pg_coll_index(team, pe);
}

char *pg_coll_slot(const struct pangea_team *team, int sender)
{
    return team->slots + pg_coll_index(team, sender) * team->slot_size;
}

__thread int pg_coll_kind_now = -1;
static struct pg_coll_traffic traffic[PG_COLL_KINDS];

void pg_coll_count(int pe, size_t len)
{
    int node = pg_world.node_of[pe];
    if (pg_coll_kind_now < 0)
        return;
    struct pg_coll_traffic *t = &traffic[pg_coll_kind_now];
    if (node == pg_world.node) {
        if (pg_topo_numa_of(pe) != pg_topo_numa_of(pg_world.me)) {
            __atomic_fetch_add(&t->numa_messages, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&t->numa_bytes, len, __ATOMIC_RELAXED);
        }
        return;
    }
    if (pg_topo_leaf_switch(node) == pg_topo_leaf_switch(pg_world.node))
        return;
    __atomic_fetch_add(&t->messages, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&t->bytes, len, __ATOMIC_RELAXED);
}

void pg_coll_traffic(enum pg_coll_kind kind, struct pg_coll_traffic *out)
{
    out->messages = __atomic_load_n(&traffic[kind].messages, __ATOMIC_RELAXED);
    out->bytes = __atomic_load_n(&traffic[kind].bytes, __ATOMIC_RELAXED);
    out->numa_messages = __atomic_load_n(&traffic[kind].numa_messages, __ATOMIC_RELAXED);
    out->numa_bytes = __atomic_load_n(&traffic[kind].numa_bytes, __ATOMIC_RELAXED);
}

const char *pg_coll_kind_name(enum pg_coll_kind kind)
{
    static const char *const names[PG_COLL_KINDS] = {
        [PG_COLL_SYNC] = "sync",         [PG_COLL_BROADCAST] = "broadcast",
        [PG_COLL_FCOLLECT] = "fcollect", [PG_COLL_COLLECT] = "collect",
        [PG_COLL_ALLTOALL] = "alltoall", [PG_COLL_REDUCE] = "reduce",
        [PG_COLL_SCAN] = "scan",
    };
    return names[kind];
}

static uint64_t *my_flag_at(const struct pangea_team *team)
{
    return &team->channel->flag[pg_coll_index(team, pg_world.me)];
}

/* Adds unit to my word (at my symmetric address mine) at pe: on the node by a store; across
 * nodes as a direct signal with `straight` (ordered after my requests to pe's node with
 * `ordered`), else by an AMO through pe's server, after my requests there. */
static void add_at(uint64_t *mine, int pe, uint64_t unit, int straight, int ordered)
{
    uint64_t *peer = pg_mem_peer_ptr(mine, pe);
    if (peer) {
        pg_prof_op(PG_PROF_SIGNAL, pe, sizeof *mine);
        __atomic_fetch_add(peer, unit, __ATOMIC_RELEASE);
        pg_mem_ring(pe, mine);
        return;
    }
    pg_coll_count(pe, sizeof *mine);
    if (straight)
        pg_pipe_signal(pe, PG_SEG_HEAP, (size_t)((char *)mine - pg_segments[PG_SEG_HEAP].base),
                       unit, ordered);
    else
        pg_amo_nbi(&pg_coll_ctx, mine, pe, PG_AMO_ADD, sizeof *mine, unit, 0, NULL);
}

/* A sync's signals between nodes go straight to the waiting PE's endpoint (pg_pipe_signal):
 * one message per hop, which wakes the waiter itself instead of its node's server and then
 * the waiter (perf/README.md, "Direct signals"). The sync's own may overtake my earlier
 * requests (a sync completes no RMA); a departure may not: a PE still waiting for my last
 * collective's data would take it for a PE that has left. Messages between two endpoints keep
 * their order, so no departure overtakes my last sync signal either. A PE that waits in
 * another collective, asleep on its doorbell, reads a departure when its sleep times out. */
void pg_coll_notify_units(const struct pangea_team *team, int pe, uint64_t unit)
{
    add_at(sync_flag(team, pg_world.me), pe, unit, pg_pipe_direct_signals(), unit != 1);
}

void pg_coll_notify(const struct pangea_team *team, int pe)
{
    add_at(my_flag_at(team), pe, 1, 0, 1);
}

void pg_coll_put_notify(const struct pangea_team *team, void *dest, const void *src, size_t len,
                        int pe)
{
    pg_coll_count(pe, len);
    pg_put_signal(&pg_coll_ctx, dest, src, len, my_flag_at(team), 1, PG_SIGNAL_ADD, pe);
}

/* The other kind of signal arrived from pe: it is in a collective this PE will never join (or
 * has left one this PE waits in). Both ends of the mismatch see it and say so. */
static void mismatch(int pe, uint64_t unit)
{
    const char *call = pg_api_call ? pg_api_call : "collective";
    if (unit == 1)
        pg_fatal(call,
                 "PE %d has left (shmem_finalize or ARMCI_Finalize, or an exit without it) "
                 "while this PE waits for it in a collective; ending the job",
                 pe);
    pg_fatal(call,
             "PE %d is in a collective over all PEs that this PE, finalizing, will never "
             "join; ending the job",
             pe);
}

/* Whether a PE's signals show a mismatch for a wait of `unit` (sync: in the sync's flags),
 * from its words in the sync's flags and in the collectives': a departure while a collective
 * waits, a collective's signal while a departure does. */
static int mismatched(const uint64_t *syncs, const uint64_t *data, uint64_t unit, int sync)
{
    uint64_t seen = __atomic_load_n(syncs, __ATOMIC_ACQUIRE);
    if (unit == 1)
        return seen / PG_COLL_DEPART_UNIT != 0;
    return seen % PG_COLL_DEPART_UNIT != 0 ||
           (sync && __atomic_load_n(data, __ATOMIC_ACQUIRE) != 0);
}

/* Waits for count signals of the kind `unit` from pe in the sync's flags (sync) or the
 * collectives' (data); `straight`: they come as direct signals when pe is on another node. */
static void await_signals(const struct pangea_team *team, int pe, uint64_t count, uint64_t unit,
                          int sync, int straight)
{
    uint64_t *syncs = sync_flag(team, pe), *data = &team->channel->flag[pg_coll_index(team, pe)];
    uint64_t *flag = sync ? syncs : data;
    /* A departing PE does not count as blocked: it is gone. */
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, flag),
                      unit != 1     ? NULL
                      : pg_api_call ? pg_api_call
                                    : "collective");
    w.net = (unsigned char)(straight && pg_world.node_of[pe] != pg_world.node);
    for (;;) {
        uint64_t seen = __atomic_load_n(flag, __ATOMIC_ACQUIRE);
        if ((unit == 1 ? seen % PG_COLL_DEPART_UNIT : seen / PG_COLL_DEPART_UNIT) >= count)
            break;
        if (mismatched(syncs, data, unit, sync))
            mismatch(pe, unit);
        pg_wait_step(&w);
    }
    __atomic_fetch_sub(flag, count * unit, __ATOMIC_RELAXED);
}

void pg_coll_wait_units(const struct pangea_team *team, int pe, uint64_t count, uint64_t unit)
{
    await_signals(team, pe, count, unit, 1, pg_pipe_direct_signals());
}

int pg_coll_take(const struct pangea_team *team, int pe, uint64_t count)
{
    uint64_t *flag = &team->channel->flag[pg_coll_index(team, pe)];
    uint64_t seen = __atomic_load_n(flag, __ATOMIC_ACQUIRE);
    if (mismatched(sync_flag(team, pe), flag, 1, 0))
        mismatch(pe, 1);
    if (seen < count)
        return 0;
    __atomic_fetch_sub(flag, count, __ATOMIC_RELAXED);
    return 1;
}

void pg_coll_wait(const struct pangea_team *team, int pe, uint64_t count)
{
    await_signals(team, pe, count, 1, 0, 0);
}

int pg_coll_by_servers(const struct pangea_team *team)
{
    return !team->channel_by_world && team->nleaders > 1 && pg_pipe_forwarding();
}

struct pg_ds_forward pg_coll_server_team(const struct pangea_team *team, int root, uint64_t number,
                                         uint64_t total)
{
    size_t words = 0; /* the channel lies in the heap segment's internal area */
    pg_mem_locate(&team->channel->forward, sizeof team->channel->forward, &words);
    return (struct pg_ds_forward){.start = team->start,
                                  .stride = team->stride,
                                  .size = team->size,
                                  .root = root,
                                  .number = number,
                                  .total = total,
                                  .words = words};
}

const void *pg_coll_fetch(const void *addr, size_t len, int pe, void *tmp)
{
    if (pe == pg_world.me)
        return addr;
    const void *peer = pg_mem_peer_ptr(addr, pe);
    if (peer) {
        pg_prof_op(PG_PROF_GET, pe, len);
        return peer;
    }
    pg_coll_count(pe, len);
    pg_get(&pg_coll_ctx, tmp, addr, len, pe);
    return tmp;
}
