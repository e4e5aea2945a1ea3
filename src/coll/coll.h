/* coll: teams and collective operations — sync, broadcast, collect, fcollect, alltoall[s],
 * reductions and scans — over any team, including the active sets of the legacy API.
 *
 * Every collective is built on one primitive, a signal channel per team: member a's signals
 * to member b add 1 to b's flag for a in the team's channel (a load/store on the node, an AMO
 * through the data server off the node), and b waits until that flag holds the count it
 * expects, then takes them off. Each team has a channel of its own, sized by the team and at
 * the same place on every member, so threads may run collectives on different teams at the
 * same time (SHMEM_THREAD_MULTIPLE); the active sets of the legacy API share one, indexed by
 * world PE, so their collectives interleave freely with any pSync as long as each pair of PEs
 * issues them in the same order (and from one thread at a time). */
#ifndef PG_COLL_H
#define PG_COLL_H

#include <stddef.h>
#include <stdint.h>

struct pangea_team {
    int start, stride, size; /* members: world PEs start + i*stride, i < size */
    int my_pe;               /* my index in the team, -1 when not a member */
    int num_contexts;        /* contexts requested at creation (SHMEM_TEAM_NUM_CONTEXTS) */
    int live_contexts;       /* contexts created from it and not destroyed */
    int predefined;          /* WORLD or SHARED: not destroyable */
    /* Its signal channel (internal symmetric memory): flags, collect sizes and reduction slots
     * (slot_size bytes each) for channel_capacity senders, indexed by team index, or by world
     * PE when channel_by_world. */
    struct pg_coll_channel *channel;
    size_t channel_capacity;
    int channel_by_world;
    char *slots;
    size_t slot_size;
    size_t arena_at; /* a split team's place in the split arena */
    /* Node layout for the two-level algorithms, as team indices in ascending order. */
    int nlocal, *local;     /* the members on my node; local[0] is my node's leader */
    int nleaders, *leaders; /* the first member of every node the team spans */
    int my_local;           /* my place in local[] (-1 when not a member) */
    int my_leader;          /* my place in leaders[] (-1 unless I lead my node) */
    /* The switch level, when the team spans several leaf switches (topo.h) and
     * PANGEA_COLL_SWITCHES is on, else nswitches = 0: the first node leader of every switch
     * the team spans, and the node leaders of my switch (switch_local[0] leads it). */
    int nswitches, *switches;
    int nswitch_local, *switch_local;
    int my_switch;       /* my place in switches[] (-1 unless I lead my switch) */
    int my_switch_local; /* my place in switch_local[] (-1 unless I lead my node) */
    /* With the switch level, the order in which the alltoall sends to the other nodes (places
     * in leaders[]): my node's row of the exchange schedule, made at the first alltoall. */
    int nexchange_nodes, *exchange_nodes;
    /* The NUMA level within my node (topo.h): the members bound within my NUMA domain
     * (numa_local[0] leads it), and the leader of each domain of the node's members
     * (numa_heads[0] = local[0]). With one domain, numa_local is local's members. */
    int nnuma_local, *numa_local;
    int nnuma_heads, *numa_heads;
    /* Multicast broadcast (coll/mcast.c): whether the team uses it, its node's channel. */
    struct pg_coll_mcast *mcast;
};

/* The channels allocated at init: the world (SHMEM_TEAM_WORLD, ARMCI's and the library's own
 * syncs), SHARED, the legacy active sets. Teams created by a split take theirs from the split
 * arena, which holds up to PG_MAX_TEAMS live teams per PE (and members to about the job's size
 * in all: docs/scaling.md). */
enum pg_channel { PG_CHANNEL_WORLD, PG_CHANNEL_SHARED, PG_CHANNEL_ACTIVE_SET, PG_CHANNEL_FIXED };
#define PG_MAX_TEAMS 64

/* Allocates the channels (internal symmetric memory). Collective over the world. */
int pg_coll_init(void);
/* What the channels of a job of npes PEs, at most max_local on a node, take in the internal
 * symmetric area, and the private memory of the world-wide teams' node layouts, per PE
 * (pangea-info --footprint; the runtime sizes the internal area with the first). */
size_t pg_coll_internal_bytes(size_t npes, size_t max_local);
size_t pg_coll_table_bytes(size_t npes, size_t max_local);
void pg_coll_fini(void);

/* Describes the team of world PEs start + i*stride, i < size (strides may be negative), as
 * seen by the calling PE, on the world channel. Local only. 0, or -1 when out of memory. */
int pg_team_init(struct pangea_team *team, int start, int stride, int size);
/* Puts the team on one of the channels allocated at init (it must fit). */
void pg_team_use_channel(struct pangea_team *team, enum pg_channel which);
void pg_team_fini(struct pangea_team *team);
/* Leaves the team's multicast group (pg_team_fini does it). */
void pg_coll_mcast_close(struct pangea_team *team);

static inline int pg_team_pe(const struct pangea_team *team, int index)
{
    return team->start + index * team->stride;
}
/* Index of a world PE in the team, or -1 when it is not a member. */
int pg_team_index(const struct pangea_team *team, int world_pe);

/* Collective over parent. Each member names the team it joins by a triplet of parent indices
 * (size 0: none; size -1: the split must fail on every member; the triplets of different
 * callers are identical or disjoint). Returns 0 on
 * every parent member with *team the new team (NULL for a PE outside it), or -1 on every parent
 * member when any of them could not create it (the per-PE limit of PG_MAX_TEAMS live teams,
 * no room in the split arena, or memory). Splits of different parents may run in different threads
 * at once. */
int pg_team_split(struct pangea_team *parent, int start, int stride, int size,
                  struct pangea_team **team);
/* Collective over the team, after its last collective: frees it. */
void pg_team_destroy(struct pangea_team *team);

/* All members arrive before any leaves; stores made before are visible after. Completes no
 * RMA by itself (barrier = quiet + sync). */
void pg_team_sync(struct pangea_team *team);
void pg_sync_all(void);
/* The sync of the last finalize: this PE is gone for good. It pairs only with the others'
 * departures; a PE waiting for this one in a collective, or this one for a PE in a collective,
 * ends the job with a message naming the other, and the hang watch counts this PE as gone. */
void pg_coll_depart(void);

/* Data collectives. dest (and source, where a peer reads it) are symmetric. Sizes in bytes.
 * broadcast: root's source to every member's dest; the root's own dest too when
 * write_root_dest (the team API; the legacy active-set broadcast leaves it). */
void pg_coll_broadcast(struct pangea_team *team, void *dest, const void *source, size_t nbytes,
                       int root, int write_root_dest);
/* Member i's nbytes at dest + i*nbytes on every member. */
void pg_coll_fcollect(struct pangea_team *team, void *dest, const void *source, size_t nbytes);
/* Like fcollect, but nbytes may differ per member: blocks are packed in team order. */
void pg_coll_collect(struct pangea_team *team, void *dest, const void *source, size_t nbytes);
/* Block j of member i's source (j*nbytes) to block i of member j's dest. */
void pg_coll_alltoall(struct pangea_team *team, void *dest, const void *source, size_t nbytes);
/* Strided: nelems elements of elem bytes; strides dst and sst in elements; block j of the
 * source starts at element j*nelems*sst, block i of the dest at element i*nelems*dst. */
void pg_coll_alltoalls(struct pangea_team *team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t elem, size_t nelems);

/* What the collectives sent between leaf switches (across the top of a two-level switch
 * tree), per kind of collective, since init: the counters a profiler reads. A message is one
 * put, signal, put-with-signal or get to a PE under another leaf switch. Within a node,
 * numa_messages and numa_bytes count the copies (puts and puts-with-signal) to a PE of another
 * NUMA domain (topo.h: a PE not bound within one domain counts as a domain of its own). */
enum pg_coll_kind {
    PG_COLL_SYNC,
    PG_COLL_BROADCAST,
    PG_COLL_FCOLLECT,
    PG_COLL_COLLECT,
    PG_COLL_ALLTOALL,
    PG_COLL_REDUCE,
    PG_COLL_SCAN,
    PG_COLL_KINDS
};
struct pg_coll_traffic {
    uint64_t messages, bytes;
    uint64_t numa_messages, numa_bytes;
};
void pg_coll_traffic(enum pg_coll_kind kind, struct pg_coll_traffic *out);
const char *pg_coll_kind_name(enum pg_coll_kind kind);

/* acc[k] = acc[k] OP in[k] for k < count, in the type and operation of the reduction. */
typedef void (*pg_combine_fn)(void *acc, const void *in, size_t count);
/* PG_DEF_COMBINE(TYPE, TYPENAME, OP) defines the static pg_combine_fn combine_TYPENAME_OP, for
 * a front-end to instantiate for the types and operators it offers (OP: and, or, xor, max,
 * min, sum, prod). */
#define PG_OP_and(a, b) ((a) & (b))
#define PG_OP_or(a, b) ((a) | (b))
#define PG_OP_xor(a, b) ((a) ^ (b))
#define PG_OP_max(a, b) ((a) > (b) ? (a) : (b))
#define PG_OP_min(a, b) ((a) < (b) ? (a) : (b))
#define PG_OP_sum(a, b) ((a) + (b))
#define PG_OP_prod(a, b) ((a) * (b))
#define PG_DEF_COMBINE(TYPE, TYPENAME, OP)                                         \
    static void combine_##TYPENAME##_##OP(void *acc, const void *in, size_t count) \
    {                                                                              \
        TYPE *a = acc;                                                             \
        const TYPE *b = in;                                                        \
        for (size_t i = 0; i < count; i++)                                         \
            a[i] = (TYPE)PG_OP_##OP(a[i], b[i]);                                   \
    }
/* Element-wise reduction of every member's source into every member's dest; dest == source
 * (in place) is allowed. Each element is combined once (by one member, or along one tree) and
 * sent to all, so floating point results are identical on all members. */
void pg_coll_reduce(struct pangea_team *team, void *dest, const void *source, size_t count,
                    size_t elem, pg_combine_fn combine);
/* Prefix reduction in team order: members 0..me (inclusive) or 0..me-1 (exclusive; member 0
 * gets zero bytes). In place allowed. Across switches each change of leaf switch in team order
 * passes the prefix across once. */
void pg_coll_scan(struct pangea_team *team, void *dest, const void *source, size_t count,
                  size_t elem, pg_combine_fn combine, int inclusive);

#endif
