/* coll's internal services: the signal channels between PEs and the symmetric word a PE
 * publishes for its peers to read. Internal to src/coll. */
#ifndef PG_COLL_INTERNAL_H
#define PG_COLL_INTERNAL_H

#include "coll.h"
#include "dataserver/dataserver.h"
#include "prof/prof.h"

#include <stddef.h>
#include <stdint.h>

/* The head of a channel: the library-internal symmetric memory of one team's collectives. */
struct pg_coll_channel {
    uint64_t word[2]; /* values this PE publishes before a sync (collect sizes, team agreement) */
    struct pg_ds_forward_words forward; /* broadcasts and barriers by the servers */
    char pad[128 - 2 * sizeof(uint64_t) - sizeof(struct pg_ds_forward_words)];
    uint64_t flag[]; /* [channel_capacity]: signals received from each sender, not yet taken */
};
/* A sender's place in the team's channel: its team index, or its world PE for the active sets;
 * and how far apart the places of consecutive team members are. */
size_t pg_coll_index(const struct pangea_team *team, int world_pe);
size_t pg_coll_index_step(const struct pangea_team *team);
/* The channel's [channel_capacity] words after the flags: a leader's table of the members'
 * sizes (by place) in the two-level collect. */
uint64_t *pg_coll_sizes(const struct pangea_team *team);

/* Symmetric landing slots for small reductions: the team's slot for world PE sender
 * (team->slot_size bytes) receives what that PE sends this PE. A sender writes its slot
 * again only after the receiver has answered, so the slots need no other flow control. */
char *pg_coll_slot(const struct pangea_team *team, int sender);

/* The split arena. A split team of `size` members takes pg_coll_split_bytes(size) bytes of it,
 * at an offset agreed by the parent; a free range of it is all zero, and a team clears its
 * range (locally, once its collectives are done) when it is destroyed. */
size_t pg_coll_split_bytes(int size);
size_t pg_coll_arena_size(void);
void pg_coll_split_attach(struct pangea_team *team, size_t at);
void pg_coll_split_clear(struct pangea_team *team);
/* Forgets the ranges held by the teams of an earlier init (the arena is new and zero). */
void pg_coll_arena_reset(void);

/* Alltoall blocks to a node's PEs that add up to this many bytes are copied past the cache
 * (PANGEA_COLL_STREAM, by default the largest cache of this PE's core, normally the last level
 * the node's cores share); 0 when unknown: never. */
extern size_t pg_coll_stream_bytes;

/* The collective the calling thread is in, for the traffic counters: PG_COLL_KIND(kind) at
 * the top of a collective names it until the scope ends (a collective another one runs inside
 * is counted as the outer one). */
extern __thread int pg_coll_kind_now;
static inline int pg_coll_kind_begin(int kind)
{
    int outer = pg_coll_kind_now;
    if (outer < 0)
        pg_coll_kind_now = kind;
    return outer;
}
static inline void pg_coll_kind_end(const int *outer)
{
    if (*outer < 0)
        pg_coll_kind_now = -1;
}
#define PG_COLL_KIND(kind)                                                        \
    const int pg_coll_outer_ __attribute__((cleanup(pg_coll_kind_end), unused)) = \
        pg_coll_kind_begin(kind)
/* Counts one message of len bytes to world PE pe when it leaves my leaf switch. */
void pg_coll_count(int pe, size_t len);

/* Orders a binomial tree's group[1..n) (group[0] its root) so that members with faster links
 * (speed[i] is group[i]'s) head the larger subtrees of data.c's tree (where the parent of
 * position p is p without its highest bit). Stable: equal speeds keep their order, and when
 * every speed is equal nothing moves. speed is reordered alike. */
void pg_coll_fast_links_first(int *group, uint32_t *speed, int n);

/* The schedule of an alltoall's exchanges between n >= 2 nodes, node i under leaf switch
 * switch_of[i] (any numbers; equal means the same switch), in steps: every ordered pair of
 * nodes exchanges in exactly one step; in each step a node sends to at most one node and
 * receives from at most one, and the exchanges leaving (and entering) a switch of k nodes
 * number at most its share, ceil(k*(n-k)/(n-1)): its exchanges across spread evenly over a
 * full exchange's n-1 steps. A pure function (schedule.c). Gives node's n-1 partners in the
 * order it sends to them, in partner[], and when step is not NULL the step of each; returns
 * the schedule's number of steps (n-1 or somewhat more), -1 when out of memory. */
int pg_coll_exchange_order(int n, const int *switch_of, int node, int *partner, int *step);

/* The members of the other nodes (team indices), in the order the alltoall sends to them from
 * my node: across leaf switches node by node as the exchange schedule orders the nodes (the
 * schedule is made at the first call, in team->exchange_nodes), each node's members in team
 * order; else round the team from my right neighbour on, so that the members do not all
 * write to the same one at once. team->size - team->nlocal entries, to free. */
int *pg_coll_send_order(struct pangea_team *team);

/* Member j's block, at dest + offset[j] up to dest + offset[j + 1] (already there on member
 * j), to every member's dest (fcollect; the second half of a split reduction). Across nodes
 * the members of a node exchange their blocks through shared memory and each leader sends its
 * node's blocks to the other leaders, in runs of consecutive members (with the switch level,
 * within its switch, and each switch's leader sends the switch's blocks to the other switches'
 * leaders and hands on theirs), then hands the blocks it received on to its node: a block
 * crosses the network once per node and the top of the tree once per switch. */
void pg_coll_allgather(struct pangea_team *team, char *dest, const size_t *offset,
                       const char *call);

/* The context the collectives' own transfers use. */
extern struct pangea_ctx pg_coll_ctx;

/* One more signal of the team's channel to world PE pe, after the stores made so far. */
void pg_coll_notify(const struct pangea_team *team, int pe);
/* len bytes from local src to symmetric dest on world PE pe, then a signal: the receiver sees
 * the data once it has seen the signal. */
void pg_coll_put_notify(const struct pangea_team *team, void *dest, const void *src, size_t len,
                        int pe);
/* Takes `count` signals of the team's channel from world PE pe when they have come: 1, else 0
 * at once. */
int pg_coll_take(const struct pangea_team *team, int pe, uint64_t count);
/* Waits for `count` more signals of the team's channel from world PE pe, and takes them. */
void pg_coll_wait(const struct pangea_team *team, int pe, uint64_t count);
/* The sync's signals (pg_team_sync_units only), in flags of their own. A PE's last finalize
 * signals in units of PG_COLL_DEPART_UNIT, so that a collective it will never join cannot take
 * its departure for one of the collective's own signals: a waiter that gets the other kind
 * than it waits for ends the job, naming the PE. Between nodes both kinds are direct signals
 * (pg_pipe_signal) when the network offers them, and their waiter sleeps on its endpoint. */
#define PG_COLL_DEPART_UNIT ((uint64_t)1 << 32)
void pg_coll_notify_units(const struct pangea_team *team, int pe, uint64_t unit);
void pg_coll_wait_units(const struct pangea_team *team, int pe, uint64_t count, uint64_t unit);
/* The world team, on the world channel (the library's own syncs). */
const struct pangea_team *pg_coll_world(void);
/* The sync, in signals of `unit` (1, or PG_COLL_DEPART_UNIT). */
void pg_team_sync_units(const struct pangea_team *team, uint64_t unit);

/* The hang watch (watch.c): set up by pg_coll_init once the channels are, stopped by
 * pg_coll_fini; depart counts this PE as gone from its node. */
size_t pg_watch_bytes(void); /* of internal symmetric memory */
void pg_watch_init(void);
void pg_watch_fini(void);
void pg_watch_depart(void);

/* Multicast broadcast between node leaders (mcast.c). init checks PANGEA_MCAST=on against the
 * providers; fini reports (SHMEM_INFO). usable decides at a team's first broadcast of at least
 * PANGEA_MCAST_MIN_SIZE bytes whether its node leaders use a multicast group (collective then)
 * and says whether this broadcast of nbytes does.
 * The root node's leader sends from `from`; every other node's leader receives into dest and
 * signals sender_pe, the sender's world PE. */
void pg_coll_mcast_init(void);
void pg_coll_mcast_fini(void);
int pg_coll_mcast_usable(struct pangea_team *team, size_t nbytes);
void pg_coll_mcast_send(struct pangea_team *team, const void *from, size_t nbytes);
void pg_coll_mcast_receive(struct pangea_team *team, void *dest, size_t nbytes, int sender_pe);

/* Whether the nodes' data servers may carry a team's broadcasts or barriers between nodes
 * (dataserver.h, "Broadcasts by the servers"): a team with a channel of its own (not the
 * active sets', which every set shares) spanning nodes, while the servers' messages to each
 * other are never resent. Every member decides alike. */
int pg_coll_by_servers(const struct pangea_team *team);
/* The team as its servers see it: its members, the root (a team index), the number of its
 * broadcast or barrier, the broadcast's bytes and where its words lie in every member. */
struct pg_ds_forward pg_coll_server_team(const struct pangea_team *team, int root, uint64_t number,
                                         uint64_t total);

/* A member's copy of the symmetric range [addr, addr+len): a pointer into it when the member
 * is on my node (or me), else the bytes fetched into tmp. */
const void *pg_coll_fetch(const void *addr, size_t len, int pe, void *tmp);

#endif
