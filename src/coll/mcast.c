/* Multicast broadcast between node leaders (docs/multicast.md;
 * papers 000 ch5 and 004). Each node's leader (the team's first member there) joins a group of
 * the team, lazily at its first broadcast; the root node's leader sends every fragment once to
 * the group, the other leaders receive them straight into their dest and hand them on to their
 * node's members by the on-node tree. Reliability as 000 ch5: fragments numbered in a window of
 * PANGEA_MCAST_WINDOW channels, a CRC32C on each, status reports (point to point to the root's
 * leader: what a receiver holds, as a count and a bitmap) that free channels for reuse and name
 * the fragments missing,
 * which the root's leader resends once a round trip has passed since it last sent them: to the
 * one node that named it, point to point, or to the group when a second node misses it. The
 * end of a broadcast is a point-to-point signal from each leader to the root's, which cannot be
 * lost: the root's leader never waits for a datagram that will not come. */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"
#include "transport/transport.h"

#include <rdma/fi_errno.h>
#include <stdlib.h>
#include <string.h>

/* The resend timeout before a round trip has been measured, its bounds, and a receiver's
 * wait for data before it says where it stands, in resend timeouts. */
#define FIRST_RTO_NS 10000000ull
#define MIN_RTO_NS 1000000ull
#define MAX_RTO_NS 50000000ull
#define QUIET_RTOS 2
/* Groups: 239.192.0.0/14 (organisation-local scope), ports from 20000 on. */
#define GROUP_BASE 0xefc00000u
#define PORT_BASE 20000
#define PORT_RANGE 20000
/* The largest datagram asked for: an IPv4 UDP datagram's most. */
#define MAX_DATAGRAM 65507
/* The losses are checked at these broadcasts of a team, then every LOSS_CHECK_EVERY, by the
 * leaders that received at least LOSS_SAMPLE fragments since they last counted. */
#define FIRST_LOSS_CHECK 8
#define LOSS_CHECK_EVERY 64
#define LOSS_SAMPLE 256
/* A broadcast by multicast takes two trips (the data, then the receivers' statuses and end
 * signals back); the tree takes one per level, ceil(log2 nodes). Up to this many nodes the
 * tree takes at most two, and small broadcasts are left to it (PANGEA_MCAST_MIN_SIZE). */
#define TREE_TWO_TRIPS_NODES 4

enum { MCAST_UNDECIDED, MCAST_JOINED, MCAST_TREE };
enum datagram_kind { DATA = 1, STATUS };
/* Why a receiver reports: it moved half a window on (or ended), it heard nothing new for a
 * while, or a fragment came beyond a gap. */
enum status_reason { PROGRESS, QUIET, GAP };

struct datagram_head {
    uint32_t job;    /* a hash of the job's key: other jobs' groups are ignored */
    uint32_t team;   /* the team's tag: teams sharing a group or port are told apart */
    uint32_t seq;    /* the team's broadcast number */
    uint32_t frag;   /* DATA: its number; STATUS: fragments held contiguously */
    uint32_t nfrags; /* of the broadcast */
    uint16_t len;    /* payload bytes: DATA's data, STATUS's bitmap */
    uint16_t hint;   /* DATA: how long a receiver waits before it reports, in 100 us;
                        STATUS: its status_reason */
    uint16_t kind;
    uint16_t node; /* the sender's node (world numbering) */
    uint32_t crc;  /* CRC32C of the head (this field 0) and the payload */
};

struct pg_coll_mcast {
    int state;
    struct pg_mcast *channel; /* a node leader's, once joined */
    size_t payload;           /* data bytes per fragment */
    uint32_t window;          /* fragments in flight: PANGEA_MCAST_WINDOW, or fewer */
    char *datagram;           /* [pg_mcast_max_msg] */
    uint32_t tag, seq, next_check;
    /* The sender's round trip: a fragment a receiver misses goes again once a resend
     * timeout, srtt + 4 rttvar, has passed since it last left. */
    struct pg_rtt rtt;
    /* Fragments this leader received since the last loss check, and how many of them came
     * only after a later one (lost, then resent). */
    uint64_t received, missed;
    /* Each node's leader as an address of the channel, for resends to it alone: 0 until the
     * first, then the address + 1, or NO_PEER where there is none. */
    uint64_t *peer;
};

#define NO_PEER UINT64_MAX

static uint32_t job_tag;
/* Every node's address as its team leaders' channels listen on it point to point (0: none),
 * gathered at init. */
static uint32_t *node_addr;
/* Counted for SHMEM_INFO; teams may broadcast in several threads at once. */
static long long broadcasts_sent, fragments_resent, fragments_unicast, fragments_corrupt,
    broadcasts_small;
static void count(long long *counter, long long n)
{
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
}

static struct pg_coll_mcast *state_of(struct pangea_team *team)
{
    if (!team->mcast) {
        team->mcast = calloc(1, sizeof *team->mcast);
        if (!team->mcast)
            pg_fatal("shmem_broadcast", "out of memory for the multicast state");
    }
    return team->mcast;
}

/* A team's group and port from its tag. */
static uint32_t group_of(uint32_t tag)
{
    return GROUP_BASE | (tag & 0x3ffff);
}

static uint16_t port_of(uint32_t tag)
{
    return (uint16_t)(PORT_BASE + (tag >> 18) % PORT_RANGE);
}

void pg_coll_mcast_init(void)
{
    uint64_t key = pg_world.job_key;
    job_tag = pg_crc32c(0, &key, sizeof key);
    broadcasts_sent = fragments_resent = fragments_unicast = fragments_corrupt = 0;
    broadcasts_small = 0;
    if (pg_cfg.mcast_min_nodes < 2)
        pg_fatal("shmem_init",
                 "PANGEA_MCAST_MIN_NODES is %lld; it must be 2 or more (the fewest nodes a team "
                 "spans to broadcast by multicast)",
                 pg_cfg.mcast_min_nodes);
    if (pg_cfg.mcast_window < 2 || pg_cfg.mcast_window > 1024)
        pg_fatal("shmem_init",
                 "PANGEA_MCAST_WINDOW is %lld; it must be 2 to 1024 (multicast fragments in "
                 "flight)",
                 pg_cfg.mcast_window);
    if (pg_cfg.mcast_datagram != 0 &&
        (pg_cfg.mcast_datagram < 64 || pg_cfg.mcast_datagram > MAX_DATAGRAM))
        pg_fatal("shmem_init",
                 "PANGEA_MCAST_DATAGRAM is %lld; it must be 0 (the provider's largest) or 64 to "
                 "%d (bytes per multicast datagram)",
                 (long long)pg_cfg.mcast_datagram, MAX_DATAGRAM);
    if (pg_cfg.mcast_max_loss < 0 || pg_cfg.mcast_max_loss > 100)
        pg_fatal("shmem_init",
                 "PANGEA_MCAST_MAX_LOSS is %lld; it must be 0 to 100 (percent of multicast "
                 "fragments resent before a team falls back to the tree)",
                 pg_cfg.mcast_max_loss);
    if (pg_cfg.mcast == PG_MCAST_OFF || pg_world.nnodes < 2)
        return;
    /* The address each node sends to the groups from (they share one route) is where its
     * leaders take a resend meant for them alone. */
    uint32_t mine = pg_world.local_rank == 0 ? pg_mcast_source_addr(GROUP_BASE) : 0;
    node_addr = calloc((size_t)pg_world.nnodes, sizeof *node_addr);
    if (!node_addr)
        pg_fatal("shmem_init", "out of memory for %d nodes' addresses", pg_world.nnodes);
    pg_boot_leaders_allgather(&mine, node_addr, sizeof mine);
    /* On one node nothing goes between nodes, and no transport is open to name. */
    if (pg_cfg.mcast != PG_MCAST_ON)
        return;
    char provider[64];
    if (!pg_mcast_offered(provider, sizeof provider))
        pg_fatal("shmem_init",
                 "PANGEA_MCAST=on, but no libfabric provider offers multicast datagrams "
                 "(FI_MULTICAST, FI_EP_DGRAM); the transport's provider is %s",
                 pg_net_provider());
    /* Where the network cannot carry multicast, stop now rather than at a first broadcast:
     * each node's first PE joins a group of the job's once (one process per node: a port
     * binds once). */
    if (pg_world.local_rank == 0) {
        char why[256];
        struct pg_mcast *probe =
            pg_mcast_open(group_of(job_tag), port_of(job_tag), 0, why, sizeof why);
        if (!probe)
            pg_fatal("shmem_init",
                     "PANGEA_MCAST=on, but this node cannot join a multicast group: %s", why);
        pg_mcast_close(probe);
    }
}

void pg_coll_mcast_fini(void)
{
    if (pg_cfg.info && broadcasts_sent + fragments_resent + fragments_corrupt + broadcasts_small)
        fprintf(stderr,
                "pangea: PE %d: multicast broadcast: %lld sent, %lld fragments retransmitted "
                "(%lld point to point), %lld corrupt dropped, %lld below PANGEA_MCAST_MIN_SIZE "
                "by the tree\n",
                pg_world.me, broadcasts_sent, fragments_resent, fragments_unicast,
                fragments_corrupt, broadcasts_small);
    free(node_addr);
    node_addr = NULL;
}

void pg_coll_mcast_close(struct pangea_team *team)
{
    if (!team->mcast)
        return;
    pg_mcast_close(team->mcast->channel);
    free(team->mcast->datagram);
    free(team->mcast->peer);
    free(team->mcast);
    team->mcast = NULL;
}

PG_DEF_COMBINE(uint64_t, u64, min)
PG_DEF_COMBINE(uint64_t, u64, max)

/* The team's tag: its members and its place in the split arena (two live teams of one PE
 * differ in one of them). */
static uint32_t team_tag(const struct pangea_team *team)
{
    int32_t shape[5] = {team->start, team->stride, team->size, (int32_t)team->arena_at,
                        team->predefined * 2 + team->channel_by_world};
    return pg_crc32c(job_tag, shape, sizeof shape);
}

/* One word reduced over the team (its published word: free inside a call). Collective. */
static uint64_t team_reduce(struct pangea_team *team, uint64_t mine, pg_combine_fn combine)
{
    uint64_t *word = &team->channel->word[0];
    __atomic_store_n(word, mine, __ATOMIC_RELAXED);
    pg_coll_reduce(team, word, word, 1, sizeof *word, combine);
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static void use_tree(struct pangea_team *team, struct pg_coll_mcast *mc, const char *why)
{
    mc->state = MCAST_TREE;
    pg_mcast_close(mc->channel);
    mc->channel = NULL;
    if (pg_cfg.info && team->my_pe == 0)
        fprintf(stderr,
                "pangea: PE %d: broadcasts of the team of %d PEs on %d nodes: fall back to the "
                "point-to-point tree (%s)\n",
                pg_world.me, team->size, team->nleaders, why);
}

/* Every node leader opens the team's channel; all use it only when all could. Collective. */
static void decide(struct pangea_team *team, struct pg_coll_mcast *mc)
{
    mc->tag = team_tag(team);
    char why[256] = "";
    uint64_t joined = 1, buffer = UINT64_MAX;
    if (team->my_local == 0) {
        mc->channel = pg_mcast_open(group_of(mc->tag), port_of(mc->tag),
                                    (size_t)pg_cfg.mcast_datagram, why, sizeof why);
        if (mc->channel && pg_mcast_max_msg(mc->channel) <=
                               sizeof(struct datagram_head) + (size_t)pg_cfg.mcast_window / 8) {
            snprintf(why, sizeof why, "datagrams of %zu bytes are too small (provider %s)",
                     pg_mcast_max_msg(mc->channel), pg_mcast_provider(mc->channel));
            pg_mcast_close(mc->channel);
            mc->channel = NULL;
        }
        if (mc->channel) {
            size_t most = pg_mcast_max_msg(mc->channel) - sizeof(struct datagram_head);
            mc->payload = most < UINT16_MAX ? most : UINT16_MAX;
            mc->datagram = malloc(pg_mcast_max_msg(mc->channel));
            mc->peer = calloc((size_t)pg_world.nnodes, sizeof *mc->peer);
            if (!mc->datagram || !mc->peer)
                pg_fatal("shmem_broadcast", "out of memory for a multicast datagram");
            if (pg_mcast_recv_buffer(mc->channel))
                buffer = pg_mcast_recv_buffer(mc->channel);
        } else {
            joined = 0;
        }
    }
    if (!joined && pg_cfg.mcast == PG_MCAST_ON)
        pg_fatal("shmem_broadcast",
                 "PANGEA_MCAST=on, but this node cannot join the team's "
                 "multicast group: %s",
                 why);
    if (!joined && pg_cfg.info)
        fprintf(stderr, "pangea: PE %d: multicast broadcast: %s\n", pg_world.me, why);
    mc->next_check = FIRST_LOSS_CHECK;
    if (!team_reduce(team, joined, combine_u64_min)) {
        use_tree(team, mc, "a node could not join");
        return;
    }
    /* A window beyond the smallest receive buffer would be dropped on arrival whenever a
     * receiver is slow to run: at most half the buffer (the kernel counts its own overhead
     * in it, about as much again per datagram). The leaders compute the same. */
    buffer = team_reduce(team, buffer, combine_u64_min);
    mc->window = (uint32_t)pg_cfg.mcast_window;
    uint64_t fit = buffer / 2 / (sizeof(struct datagram_head) + mc->payload);
    if (fit < mc->window)
        mc->window = fit < 2 ? 2 : (uint32_t)fit;
    mc->state = MCAST_JOINED;
    if (pg_cfg.info && team->my_pe == 0)
        fprintf(stderr,
                "pangea: PE %d: broadcasts of the team of %d PEs on %d nodes: multicast between "
                "nodes (window of %u fragments, smallest receive buffer %llu bytes)\n",
                pg_world.me, team->size, team->nleaders, mc->window,
                buffer == UINT64_MAX ? 0ull : (unsigned long long)buffer);
}

/* At the team's broadcasts FIRST_LOSS_CHECK, twice that, ... and then every LOSS_CHECK_EVERY,
 * the members agree on the highest share of fragments a node's leader lost over the last
 * LOSS_SAMPLE or more it received; above PANGEA_MCAST_MAX_LOSS percent the team falls back to
 * the tree. Collective: every member counts the team's broadcasts. */
static void check_losses(struct pangea_team *team, struct pg_coll_mcast *mc)
{
    mc->next_check = mc->seq < LOSS_CHECK_EVERY ? mc->seq * 2 : mc->seq + LOSS_CHECK_EVERY;
    uint64_t percent = 0;
    if (mc->received >= LOSS_SAMPLE) {
        percent = mc->missed * 100 / mc->received;
        mc->received = mc->missed = 0;
    }
    uint64_t worst = team_reduce(team, percent, combine_u64_max);
    if (worst > (uint64_t)pg_cfg.mcast_max_loss) {
        char why[128];
        snprintf(why, sizeof why,
                 "a node lost %llu%% of the fragments, above PANGEA_MCAST_MAX_LOSS %lld%%",
                 (unsigned long long)worst, pg_cfg.mcast_max_loss);
        use_tree(team, mc, why);
    }
}

int pg_coll_mcast_usable(struct pangea_team *team, size_t nbytes)
{
    /* Not the legacy active sets: a PE remakes its one set whenever it calls with another, so
     * the members of a set would not agree on when it was joined nor on its broadcast count. */
    if (pg_cfg.mcast == PG_MCAST_OFF || team->channel_by_world || team->nleaders < 2 ||
        team->nleaders < pg_cfg.mcast_min_nodes)
        return 0;
    struct pg_coll_mcast *mc = state_of(team);
    /* Small: as many trips by the tree or fewer. Every member sees the same size: the team's
     * count stays agreed, and a team that broadcasts only small messages never joins. Counted
     * once, by member 0. */
    if (nbytes < (size_t)pg_cfg.mcast_min_size && team->nleaders <= TREE_TWO_TRIPS_NODES) {
        if (team->my_pe == 0 && mc->state != MCAST_TREE)
            count(&broadcasts_small, 1);
        return 0;
    }
    if (mc->state == MCAST_UNDECIDED)
        decide(team, mc);
    if (mc->state == MCAST_JOINED && mc->seq == mc->next_check)
        check_losses(team, mc);
    if (mc->state == MCAST_JOINED)
        mc->seq++;
    return mc->state == MCAST_JOINED;
}

static uint32_t datagram_crc(struct datagram_head *h, const void *payload, size_t len)
{
    uint32_t kept = h->crc;
    h->crc = 0;
    uint32_t crc = pg_crc32c(pg_crc32c(0, h, sizeof *h), payload, len);
    h->crc = kept;
    return crc;
}

/* Node's leader as the channel's address; 0 where it has none (no address, or the provider
 * cannot send to it): the datagram then goes to the group. */
static int unicast_peer(struct pg_coll_mcast *mc, int node, uint64_t *peer)
{
    if (!mc->peer[node]) {
        uint64_t got = 0;
        int known =
            node_addr && node_addr[node] && !pg_mcast_peer(mc->channel, node_addr[node], &got);
        mc->peer[node] = known ? got + 1 : NO_PEER;
    }
    *peer = mc->peer[node] - 1;
    return mc->peer[node] != NO_PEER;
}

/* To the group, or to one node's leader alone (node >= 0, where it can be reached so). */
static void send_datagram(struct pg_coll_mcast *mc, struct datagram_head *h, const void *payload,
                          int node)
{
    h->job = job_tag;
    h->team = mc->tag;
    h->seq = mc->seq;
    h->node = (uint16_t)pg_world.node;
    h->crc = datagram_crc(h, payload, h->len);
    struct iovec iov[2] = {{h, sizeof *h}, {(void *)payload, h->len}};
    uint64_t peer;
    int rc = node >= 0 && unicast_peer(mc, node, &peer)
                 ? pg_mcast_send_to(mc->channel, peer, iov, h->len ? 2 : 1)
                 : pg_mcast_send(mc->channel, iov, h->len ? 2 : 1);
    if (rc)
        pg_fatal("shmem_broadcast", "multicast send failed: %s (provider %s)", fi_strerror(-rc),
                 pg_mcast_provider(mc->channel));
}

/* A receiver's status: `have` fragments held from the first, and a bitmap of the window
 * beyond (bit k: fragment have + k). To the root node's leader alone: no other leader reads
 * statuses, and on the group every one would cost every node a receive and buffer space. */
static void send_status(struct pg_coll_mcast *mc, uint32_t have, uint32_t nfrags, const char *held,
                        enum status_reason why, int root_node)
{
    uint32_t window = mc->window;
    uint8_t bits[1024 / 8] = {0};
    for (uint32_t k = 0; k < window && have + k < nfrags; k++)
        if (held[have + k])
            bits[k / 8] |= (uint8_t)(1u << k % 8);
    struct datagram_head h = {.kind = STATUS,
                              .frag = have,
                              .nfrags = nfrags,
                              .len = (uint16_t)((window + 7) / 8),
                              .hint = (uint16_t)why};
    send_datagram(mc, &h, bits, root_node);
}

static uint64_t rto_ns(const struct pg_coll_mcast *mc)
{
    if (!mc->rtt.srtt)
        return FIRST_RTO_NS;
    uint64_t rto = mc->rtt.srtt + 4 * mc->rtt.rttvar;
    return rto < MIN_RTO_NS ? MIN_RTO_NS : rto > MAX_RTO_NS ? MAX_RTO_NS : rto;
}

/* The sender's record of the window: when each fragment last left, whether it left more than
 * once (its round trip is then not measured, as Karn's rule) and to which node alone (-1: the
 * group). Fragment f is slot f % window: the window never holds two fragments of one slot. */
struct window {
    uint64_t *sent_at;
    uint32_t *frag; /* in the slot */
    int *to;
    char *resent;
    uint32_t size;
};

static void send_fragment(struct pg_coll_mcast *mc, struct window *w, const char *from,
                          size_t nbytes, uint32_t f, uint32_t nfrags, int node)
{
    size_t off = (size_t)f * mc->payload;
    uint64_t quiet = QUIET_RTOS * rto_ns(mc) / 100000;
    struct datagram_head h = {.kind = DATA, .frag = f, .nfrags = nfrags};
    h.len = (uint16_t)(nbytes - off < mc->payload ? nbytes - off : mc->payload);
    h.hint = (uint16_t)(quiet < UINT16_MAX ? quiet : UINT16_MAX);
    send_datagram(mc, &h, from + off, node);
    uint64_t now = pg_now_ns();
    uint32_t slot = f % w->size;
    w->resent[slot] = w->sent_at[slot] && w->frag[slot] == f;
    w->sent_at[slot] = now;
    w->frag[slot] = f;
    w->to[slot] = node;
}

/* The next datagram of this broadcast of the kind wanted, checked; NULL when the one that
 * came was not, or after timeout_ms without one. */
static const struct datagram_head *next_datagram(struct pg_coll_mcast *mc, int kind,
                                                 uint32_t nfrags, int timeout_ms)
{
    size_t n = pg_mcast_recv(mc->channel, mc->datagram, pg_mcast_max_msg(mc->channel), timeout_ms);
    struct datagram_head *h = (struct datagram_head *)mc->datagram;
    if (n < sizeof *h || h->job != job_tag || h->team != mc->tag || h->seq != mc->seq ||
        h->kind != kind || h->nfrags != nfrags || h->node == pg_world.node)
        return NULL;
    if (n != sizeof *h + h->len || h->crc != datagram_crc(h, h + 1, h->len)) {
        count(&fragments_corrupt, 1);
        return NULL;
    }
    return h;
}

static uint32_t fragments(const struct pg_coll_mcast *mc, size_t nbytes)
{
    return (uint32_t)((nbytes + mc->payload - 1) / mc->payload);
}

/* A status from a receiver: the fragments it names as missing go again. Those below the
 * highest it holds are lost (the links keep the order): they go at once, unless they were
 * resent to it less than a resend timeout ago (for another receiver's status). After a quiet
 * wait those above go too, when they left more than a resend timeout ago. A fragment goes to
 * the node that named it alone, point to point: with losses independent per node, most are
 * missing at one node only, and the others need not receive it again. One that a second node
 * names missing within a resend timeout of its resend to another goes to the group. Every
 * receiver holds the fragments below base. */
static void resend_missing(struct pg_coll_mcast *mc, struct window *w,
                           const struct datagram_head *h, const char *from, size_t nbytes,
                           uint32_t base, uint32_t next, uint32_t nfrags)
{
    const uint8_t *bits = (const uint8_t *)(h + 1);
    uint32_t end = h->frag + w->size < next ? h->frag + w->size : next, top = h->frag;
    for (uint32_t k = 0; h->frag + k < end; k++)
        if (bits[k / 8] >> k % 8 & 1)
            top = h->frag + k;
    if (h->hint != QUIET)
        end = top;
    uint64_t now = pg_now_ns(), rto = rto_ns(mc);
    for (uint32_t f = h->frag > base ? h->frag : base; f < end; f++) {
        uint32_t k = f - h->frag, slot = f % w->size;
        int recent = now - w->sent_at[slot] < rto && (w->resent[slot] || f > top);
        int reached_it = w->to[slot] < 0 || w->to[slot] == h->node;
        if (bits[k / 8] >> k % 8 & 1 || (recent && reached_it))
            continue;
        int to = recent ? -1 : h->node;
        send_fragment(mc, w, from, nbytes, f, nfrags, to);
        count(&fragments_resent, 1);
        if (to >= 0)
            count(&fragments_unicast, 1);
    }
}

void pg_coll_mcast_send(struct pangea_team *team, const void *from, size_t nbytes)
{
    struct pg_coll_mcast *mc = team->mcast;
    uint32_t nfrags = fragments(mc, nbytes), next = 0, base = 0;
    int n = team->nleaders, remaining = n - 1;
    struct window w = {.size = mc->window};
    w.sent_at = calloc(w.size, sizeof *w.sent_at);
    w.frag = calloc(w.size, sizeof *w.frag);
    w.to = calloc(w.size, sizeof *w.to);
    w.resent = calloc(w.size, 1);
    uint32_t *acked = calloc((size_t)n, sizeof *acked);
    char *done = calloc((size_t)n, 1);
    if (!acked || !done || !w.sent_at || !w.frag || !w.to || !w.resent)
        pg_fatal("shmem_broadcast", "out of memory for %d nodes' acknowledgements", n);
    while (remaining > 0) {
        /* One fragment, then one datagram taken: statuses, and my own fragments where the
         * provider loops them back; taken as they come they never fill the socket's buffer,
         * where the statuses behind them would be dropped. */
        int more = next < nfrags && next < base + w.size;
        if (more)
            send_fragment(mc, &w, from, nbytes, next++, nfrags, -1);
        const struct datagram_head *h =
            next_datagram(mc, STATUS, nfrags, more ? 0 : (int)(rto_ns(mc) / 1000000) + 1);
        int from_node = -1;
        if (h && h->len == (w.size + 7) / 8 && h->frag <= next)
            from_node = h->node;
        else
            h = NULL;
        for (int p = 0; p < n; p++) {
            int pe = pg_team_pe(team, team->leaders[p]);
            if (pg_world.node_of[pe] == from_node && h->frag > acked[p]) {
                uint32_t slot = (h->frag - 1) % w.size;
                /* A round trip: from a fragment's only send (Karn's rule) to the status
                 * that first counts it, when that is a progress report (it follows at once
                 * the fragment it counts last). */
                if (h->hint == PROGRESS && !w.resent[slot])
                    pg_rtt_sample(&mc->rtt, pg_now_ns() - w.sent_at[slot]);
                acked[p] = h->frag;
            }
            if (p != team->my_leader && !done[p] && pg_coll_take(team, pe, 1)) {
                done[p] = 1;
                acked[p] = nfrags;
                remaining--;
            }
        }
        uint32_t low = nfrags;
        for (int p = 0; p < n; p++)
            if (p != team->my_leader && acked[p] < low)
                low = acked[p];
        base = low > base ? low : base;
        if (base == nfrags) {
            /* Every leader has said it holds everything, after its signal left: wait for it. */
            for (int p = 0; p < n; p++)
                if (p != team->my_leader && !done[p])
                    pg_coll_wait(team, pg_team_pe(team, team->leaders[p]), 1);
            break;
        }
        if (h && h->frag < nfrags)
            resend_missing(mc, &w, h, from, nbytes, base, next, nfrags);
    }
    count(&broadcasts_sent, 1);
    free(w.sent_at);
    free(w.frag);
    free(w.to);
    free(w.resent);
    free(acked);
    free(done);
}

void pg_coll_mcast_receive(struct pangea_team *team, void *dest, size_t nbytes, int sender_pe)
{
    struct pg_coll_mcast *mc = team->mcast;
    uint32_t nfrags = fragments(mc, nbytes), have = 0, reported = 0, top = 0;
    uint32_t window = mc->window;
    int root_node = pg_world.node_of[sender_pe];
    char *held = calloc(nfrags, 1);
    if (!held)
        pg_fatal("shmem_broadcast", "out of memory for %u fragments' marks", nfrags);
    /* Until the sender says how long a round trip takes, its first resend timeout. */
    uint64_t quiet_ns = QUIET_RTOS * FIRST_RTO_NS, last = pg_now_ns();
    while (have < nfrags) {
        uint64_t now = pg_now_ns();
        if (now - last >= quiet_ns) {
            /* Nothing new for a while: say where I stand (lost fragments at the end, or my
             * statuses lost). */
            send_status(mc, have, nfrags, held, QUIET, root_node);
            last = now;
        }
        int timeout_ms = (int)((quiet_ns - (now - last)) / 1000000) + 1;
        const struct datagram_head *h = next_datagram(mc, DATA, nfrags, timeout_ms);
        if (!h)
            continue;
        size_t off = (size_t)h->frag * mc->payload;
        size_t expect = nbytes - off < mc->payload ? nbytes - off : mc->payload;
        if (h->frag >= nfrags || h->len != expect || held[h->frag])
            continue;
        memcpy((char *)dest + off, h + 1, h->len);
        held[h->frag] = 1;
        mc->missed += h->frag < top;
        last = pg_now_ns();
        if (h->hint)
            quiet_ns = h->hint * 100000ull;
        uint32_t f = h->frag;
        while (have < nfrags && held[have])
            have++;
        if (have < nfrags && f > top) {
            /* A gap opened before this fragment: name what is missing at once. */
            send_status(mc, have, nfrags, held, GAP, root_node);
            reported = have;
        } else if (have - reported >= window / 2 && have < nfrags) {
            send_status(mc, have, nfrags, held, PROGRESS, root_node);
            reported = have;
        }
        top = f + 1 > top ? f + 1 : top;
    }
    mc->received += nfrags;
    /* The signal first: on the final status the root's leader waits for the signal. */
    pg_coll_notify(team, sender_pe);
    send_status(mc, nfrags, nfrags, held, PROGRESS, root_node);
    free(held);
}
