/* Multicast broadcast between node leaders (docs/multicast.md;
 * papers 000 ch5 and 004). Each node's leader (the team's first member there) joins a group of
 * the team, lazily at its first broadcast; the root node's leader sends every fragment once to
 * the group, the other leaders receive them straight into their dest and hand them on to their
 * node's members by the on-node tree. Reliability as 000 ch5: fragments numbered in a window of
 * WINDOW channels, a CRC32C on each, ACKs (to the group) that free channels for reuse, a NACK
 * on a gap, retransmission by the root's leader when a NACK comes or the window stops moving.
 * The end of a broadcast is a point-to-point signal from each leader to the root's, which
 * cannot be lost: the root's leader never waits for a datagram that will not come. */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"
#include "transport/transport.h"

#include <rdma/fi_errno.h>
#include <stdlib.h>
#include <string.h>

/* Fragments in flight: the receivers' socket buffers (about 200 KB by default on Linux) hold
 * this many MTU-sized datagrams without dropping. */
#define WINDOW 32
/* How long a window may stand still (no ACK moved it) before its fragments go again, and how
 * long a receiver hears nothing before it says where it stands. */
#define RESEND_MS 10
/* Groups: 239.192.0.0/14 (organisation-local scope), ports from 20000 on. */
#define GROUP_BASE 0xefc00000u
#define PORT_BASE 20000
#define PORT_RANGE 20000

enum { MCAST_UNDECIDED, MCAST_JOINED, MCAST_TREE };
enum datagram_kind { DATA = 1, ACK, NACK };

struct datagram_head {
    uint32_t job;    /* a hash of the job's key: other jobs' groups are ignored */
    uint32_t team;   /* the team's tag: teams sharing a group or port are told apart */
    uint32_t seq;    /* the team's broadcast number */
    uint32_t frag;   /* DATA: its number; ACK: fragments held contiguously; NACK: first gap */
    uint32_t nfrags; /* of the broadcast */
    uint32_t len;    /* payload bytes (DATA) */
    uint16_t kind;
    uint16_t node; /* the sender's node (world numbering) */
    uint32_t crc;  /* CRC32C of the head (this field 0) and the payload */
};

struct pg_coll_mcast {
    int state;
    struct pg_mcast *channel; /* a node leader's, once joined */
    size_t payload;           /* data bytes per fragment */
    char *datagram;           /* [pg_mcast_max_msg] */
    uint32_t tag, seq;
};

static uint32_t job_tag;
/* Counted for SHMEM_INFO; teams may broadcast in several threads at once. */
static long long broadcasts_sent, fragments_resent, fragments_corrupt;
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

void pg_coll_mcast_init(void)
{
    uint64_t key = pg_world.job_key;
    job_tag = pg_crc32c(0, &key, sizeof key);
    broadcasts_sent = fragments_resent = fragments_corrupt = 0;
    if (pg_cfg.mcast_min_nodes < 2)
        pg_fatal("shmem_init",
                 "PANGEA_MCAST_MIN_NODES is %lld; it must be 2 or more (the fewest nodes a team "
                 "spans to broadcast by multicast)",
                 pg_cfg.mcast_min_nodes);
    /* On one node nothing goes between nodes, and no transport is open to name. */
    char provider[64];
    if (pg_cfg.mcast == PG_MCAST_ON && pg_world.nnodes > 1 &&
        !pg_mcast_offered(provider, sizeof provider))
        pg_fatal("shmem_init",
                 "PANGEA_MCAST=on, but no libfabric provider offers multicast datagrams "
                 "(FI_MULTICAST, FI_EP_DGRAM); the transport's provider is %s",
                 pg_net_provider());
}

void pg_coll_mcast_fini(void)
{
    if (pg_cfg.info && broadcasts_sent + fragments_resent + fragments_corrupt > 0)
        fprintf(stderr,
                "pangea: PE %d: multicast broadcast: %lld sent, %lld fragments retransmitted, "
                "%lld corrupt dropped\n",
                pg_world.me, broadcasts_sent, fragments_resent, fragments_corrupt);
}

void pg_coll_mcast_close(struct pangea_team *team)
{
    if (!team->mcast)
        return;
    pg_mcast_close(team->mcast->channel);
    free(team->mcast->datagram);
    free(team->mcast);
    team->mcast = NULL;
}

PG_DEF_COMBINE(uint64_t, u64, min)

/* The team's tag: its members and its place in the split arena (two live teams of one PE
 * differ in one of them). */
static uint32_t team_tag(const struct pangea_team *team)
{
    int32_t shape[5] = {team->start, team->stride, team->size, (int32_t)team->arena_at,
                        team->predefined * 2 + team->channel_by_world};
    return pg_crc32c(job_tag, shape, sizeof shape);
}

/* Every node leader opens the team's channel; all use it only when all could. Collective. */
static void decide(struct pangea_team *team, struct pg_coll_mcast *mc)
{
    mc->tag = team_tag(team);
    uint32_t group = GROUP_BASE | (mc->tag & 0x3ffff);
    uint16_t port = (uint16_t)(PORT_BASE + (mc->tag >> 18) % PORT_RANGE);
    char why[256] = "";
    uint64_t joined = 1;
    if (team->my_local == 0) {
        mc->channel = pg_mcast_open(group, port, why, sizeof why);
        if (mc->channel && pg_mcast_max_msg(mc->channel) <= sizeof(struct datagram_head)) {
            snprintf(why, sizeof why, "datagrams of %zu bytes are too small (provider %s)",
                     pg_mcast_max_msg(mc->channel), pg_mcast_provider(mc->channel));
            pg_mcast_close(mc->channel);
            mc->channel = NULL;
        }
        if (mc->channel) {
            mc->payload = pg_mcast_max_msg(mc->channel) - sizeof(struct datagram_head);
            mc->datagram = malloc(pg_mcast_max_msg(mc->channel));
            if (!mc->datagram)
                pg_fatal("shmem_broadcast", "out of memory for a multicast datagram");
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
    /* The reduction needs symmetric memory: the team's published word, free inside a call. */
    uint64_t *word = &team->channel->word[0];
    __atomic_store_n(word, joined, __ATOMIC_RELAXED);
    pg_coll_reduce(team, word, word, 1, sizeof *word, combine_u64_min);
    joined = __atomic_load_n(word, __ATOMIC_RELAXED);
    mc->state = joined ? MCAST_JOINED : MCAST_TREE;
    if (!joined) {
        pg_mcast_close(mc->channel);
        mc->channel = NULL;
    }
    if (pg_cfg.info && team->my_pe == 0)
        fprintf(stderr, "pangea: PE %d: broadcasts of the team of %d PEs on %d nodes: %s\n",
                pg_world.me, team->size, team->nleaders,
                joined ? "multicast between nodes"
                       : "fall back to the point-to-point tree (a node could not join)");
}

int pg_coll_mcast_usable(struct pangea_team *team)
{
    /* Not the legacy active sets: a PE remakes its one set whenever it calls with another, so
     * the members of a set would not agree on when it was joined nor on its broadcast count. */
    if (pg_cfg.mcast == PG_MCAST_OFF || team->channel_by_world || team->nleaders < 2 ||
        team->nleaders < pg_cfg.mcast_min_nodes)
        return 0;
    struct pg_coll_mcast *mc = state_of(team);
    if (mc->state == MCAST_UNDECIDED)
        decide(team, mc);
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

static void send_datagram(struct pg_coll_mcast *mc, struct datagram_head *h, const void *payload)
{
    h->job = job_tag;
    h->team = mc->tag;
    h->seq = mc->seq;
    h->node = (uint16_t)pg_world.node;
    h->crc = datagram_crc(h, payload, h->len);
    struct iovec iov[2] = {{h, sizeof *h}, {(void *)payload, h->len}};
    int rc = pg_mcast_send(mc->channel, iov, h->len ? 2 : 1);
    if (rc)
        pg_fatal("shmem_broadcast", "multicast send failed: %s (provider %s)", fi_strerror(-rc),
                 pg_mcast_provider(mc->channel));
}

static void send_control(struct pg_coll_mcast *mc, int kind, uint32_t frag, uint32_t nfrags)
{
    struct datagram_head h = {.kind = (uint16_t)kind, .frag = frag, .nfrags = nfrags};
    send_datagram(mc, &h, NULL);
}

static void send_fragment(struct pg_coll_mcast *mc, const char *from, size_t nbytes, uint32_t f,
                          uint32_t nfrags)
{
    size_t off = (size_t)f * mc->payload;
    struct datagram_head h = {.kind = DATA, .frag = f, .nfrags = nfrags};
    h.len = (uint32_t)(nbytes - off < mc->payload ? nbytes - off : mc->payload);
    send_datagram(mc, &h, from + off);
}

/* The next datagram of this broadcast of the kind wanted (DATA, or ACK and NACK), checked;
 * NULL when the one that came was not (*heard set), or after timeout_ms without one. */
static const struct datagram_head *next_datagram(struct pg_coll_mcast *mc, int data,
                                                 uint32_t nfrags, int timeout_ms, int *heard)
{
    size_t n = pg_mcast_recv(mc->channel, mc->datagram, pg_mcast_max_msg(mc->channel), timeout_ms);
    struct datagram_head *h = (struct datagram_head *)mc->datagram;
    *heard = n > 0;
    if (n < sizeof *h || h->job != job_tag || h->team != mc->tag || h->seq != mc->seq ||
        (h->kind == DATA) != data || h->nfrags != nfrags || h->node == pg_world.node)
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

static void resend(struct pg_coll_mcast *mc, const char *from, size_t nbytes, uint32_t first,
                   uint32_t end, uint32_t nfrags)
{
    for (uint32_t f = first; f < end; f++)
        send_fragment(mc, from, nbytes, f, nfrags);
    count(&fragments_resent, end - first);
}

void pg_coll_mcast_send(struct pangea_team *team, const void *from, size_t nbytes)
{
    struct pg_coll_mcast *mc = team->mcast;
    uint32_t nfrags = fragments(mc, nbytes), next = 0, base = 0;
    int n = team->nleaders, remaining = n - 1;
    uint32_t *acked = calloc((size_t)n, sizeof *acked);
    char *done = calloc((size_t)n, 1);
    if (!acked || !done)
        pg_fatal("shmem_broadcast", "out of memory for %d nodes' acknowledgements", n);
    uint64_t moved = pg_now_ns(), resent = 0;
    const uint64_t resend_ns = RESEND_MS * 1000000ull;
    int heard = 0;
    while (remaining > 0) {
        while (next < nfrags && next < base + WINDOW)
            send_fragment(mc, from, nbytes, next++, nfrags);
        /* My own fragments come back to me too: take what is there before sleeping, or they
         * fill the socket's buffer and the ACKs behind them are dropped. */
        const struct datagram_head *h = next_datagram(mc, 0, nfrags, heard ? 0 : RESEND_MS, &heard);
        for (int p = 0; p < n; p++) {
            int pe = pg_team_pe(team, team->leaders[p]);
            if (h && pg_world.node_of[pe] == h->node && h->frag > acked[p] && h->frag <= next)
                acked[p] = h->frag;
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
        uint64_t now = pg_now_ns();
        if (low > base) {
            base = low;
            moved = now;
        }
        if (base == nfrags) {
            /* Every leader has said it holds everything, after its signal left: wait for it. */
            for (int p = 0; p < n; p++)
                if (p != team->my_leader && !done[p])
                    pg_coll_wait(team, pg_team_pe(team, team->leaders[p]), 1);
            break;
        }
        if (h && h->kind == NACK && h->frag < next)
            resend(mc, from, nbytes, h->frag, h->frag + 1, nfrags);
        else if (base < next && now - moved > resend_ns && now - resent > resend_ns) {
            resend(mc, from, nbytes, base, next, nfrags);
            resent = now;
        }
    }
    count(&broadcasts_sent, 1);
    free(acked);
    free(done);
}

void pg_coll_mcast_receive(struct pangea_team *team, void *dest, size_t nbytes, int sender_pe)
{
    struct pg_coll_mcast *mc = team->mcast;
    uint32_t nfrags = fragments(mc, nbytes), have = 0, reported = 0;
    char *held = calloc(nfrags, 1);
    if (!held)
        pg_fatal("shmem_broadcast", "out of memory for %u fragments' marks", nfrags);
    uint64_t nacked = 0;
    const uint64_t nack_ns = RESEND_MS * 500000ull;
    int heard;
    while (have < nfrags) {
        const struct datagram_head *h = next_datagram(mc, 1, nfrags, RESEND_MS, &heard);
        if (!heard) {
            /* Quiet (or not ours): say where I stand, in case my ACKs were lost. */
            send_control(mc, ACK, have, nfrags);
            continue;
        }
        if (!h)
            continue;
        size_t off = (size_t)h->frag * mc->payload;
        size_t expect = nbytes - off < mc->payload ? nbytes - off : mc->payload;
        if (h->frag >= nfrags || h->len != expect)
            continue;
        if (!held[h->frag]) {
            memcpy((char *)dest + off, h + 1, h->len);
            held[h->frag] = 1;
        }
        uint32_t f = h->frag;
        while (have < nfrags && held[have])
            have++;
        uint64_t now = pg_now_ns();
        if (have < nfrags && f > have && now - nacked > nack_ns) {
            send_control(mc, NACK, have, nfrags);
            nacked = now;
        } else if (have - reported >= WINDOW / 2 && have < nfrags) {
            send_control(mc, ACK, have, nfrags);
            reported = have;
        }
    }
    free(held);
    /* The signal first: on the final ACK the root's leader waits for the signal. */
    pg_coll_notify(team, sender_pe);
    send_control(mc, ACK, nfrags, nfrags);
}
