/* Data collectives: broadcast (a node-aware binomial tree, pipelined in chunks), fcollect
 * and collect (blocks exchanged on each node, then between the node leaders), alltoall[s]
 * (pairwise exchange; across nodes each leader sends its node's blocks for a member at once;
 * on a node, blocks that would overflow the cache are stored around it).
 * All of them push: a member reads only its own source and writes the others' dest, which
 * every caller guarantees to be ready on entry, so no sync is needed before the data moves,
 * and each member returns when the blocks it expects have been signalled. */
#include "coll_internal.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

/* A put of the collectives, counted when it leaves my leaf switch. */
static void counted_put(void *dest, const void *source, size_t len, int pe)
{
    pg_coll_count(pe, len);
    pg_put(&pg_coll_ctx, dest, source, len, pe);
}

static void counted_put_strided(void *dest, const void *source, const struct pg_strided *shape,
                                int pe)
{
    pg_coll_count(pe, shape->count[0] * shape->count[1]);
    pg_put_strided(&pg_coll_ctx, dest, source, shape, pe);
}

/* Up to 31 children in each of the two levels. */
#define MAX_CHILDREN 64

struct tree {
    int parent; /* team index, -1 at the root */
    int nchildren;
    int children[MAX_CHILDREN]; /* team indices, the largest subtree first */
};

/* Binomial tree over group[0..n-1] (group[0] its root), from position pos's point of view:
 * the children pos | 2^k for every 2^k > pos, the parent pos without its highest bit. */
static void binomial(const int *group, int n, int pos, struct tree *tree)
{
    int top = 1;
    while (top < n)
        top <<= 1;
    for (int bit = top >> 1; bit > pos; bit >>= 1)
        if (pos + bit < n)
            tree->children[tree->nchildren++] = group[pos + bit];
    if (pos > 0) {
        int high = 1;
        while (high << 1 <= pos)
            high <<= 1;
        tree->parent = group[pos - high];
    }
}

void pg_coll_fast_links_first(int *group, uint32_t *speed, int n)
{
    int differ = 0;
    for (int i = 2; i < n; i++)
        differ |= speed[i] != speed[1];
    if (!differ)
        return;
    /* Members by speed, fastest first (insertion sort: stable, and n is a team's nodes). */
    int member[n];
    uint32_t fast[n];
    for (int i = 1; i < n; i++) {
        int j = i - 1;
        while (j > 0 && fast[j - 1] < speed[i]) {
            member[j] = member[j - 1];
            fast[j] = fast[j - 1];
            j--;
        }
        member[j] = group[i];
        fast[j] = speed[i];
    }
    /* Each position's subtree (binomial: the parent of p is p without its highest bit), then
     * the positions by subtree, largest first (stable again). */
    int size[n], position[n];
    for (int p = 0; p < n; p++)
        size[p] = 1;
    for (int p = n - 1; p > 0; p--) {
        int high = 1;
        while (high << 1 <= p)
            high <<= 1;
        size[p - high] += size[p];
    }
    for (int i = 1; i < n; i++) {
        int j = i - 1;
        while (j > 0 && size[position[j - 1]] < size[i]) {
            position[j] = position[j - 1];
            j--;
        }
        position[j] = i;
    }
    int placed[n];
    uint32_t placed_speed[n];
    for (int k = 0; k < n - 1; k++) {
        placed[position[k]] = member[k];
        placed_speed[position[k]] = fast[k];
    }
    for (int i = 1; i < n; i++) {
        group[i] = placed[i];
        speed[i] = placed_speed[i];
    }
}

/* The shape of one level of the broadcast tree: binomial between nodes (members with faster
 * links head larger subtrees) or on a node, or flat: the head writes to every other member
 * itself, so that none waits for another, maybe late, member to forward (on a node, for small
 * broadcasts: a few stores and doorbells more for the head). */
enum level_shape { BINOMIAL_NODES, BINOMIAL, FLAT };

/* Adds to tree my place in a level over group[0..n) rooted at head; in a group of
 * representatives (of nodes, of switches) head stands in for `replaced`, the representative of
 * its own node or switch (-1: none). Between nodes, members whose leaf switch has faster links
 * (LinkSpeed) head larger subtrees. Nothing when I am not in the group. */
static void add_level(const struct pangea_team *team, const int *group, int n, int replaced,
                      int head, enum level_shape shape, struct tree *tree, int *scratch)
{
    int m = 0;
    scratch[m++] = head;
    for (int k = 0; k < n; k++)
        if (group[k] != replaced && group[k] != head)
            scratch[m++] = group[k];
    if (shape == BINOMIAL_NODES) {
        uint32_t speed[m];
        for (int k = 0; k < m; k++)
            speed[k] = pg_topo_switch_speed(
                pg_topo_leaf_switch(pg_world.node_of[pg_team_pe(team, scratch[k])]));
        pg_coll_fast_links_first(scratch, speed, m);
    }
    for (int pos = 0; pos < m; pos++) {
        if (scratch[pos] != team->my_pe)
            continue;
        if (shape != FLAT)
            binomial(scratch, m, pos, tree);
        else if (pos > 0)
            tree->parent = head;
        else
            for (int k = 1; k < m; k++)
                tree->children[tree->nchildren++] = scratch[k];
        return;
    }
}

/* The first of the team indices in group[0..n) whose node, or whose node's leaf switch, is the
 * given one. */
static int first_on(const struct pangea_team *team, const int *group, int n, int node, int sw)
{
    for (int k = 0; k < n; k++) {
        int other = pg_world.node_of[pg_team_pe(team, group[k])];
        if (node >= 0 ? other == node : pg_topo_leaf_switch(other) == sw)
            return group[k];
    }
    return -1;
}

/* A node of more members takes the binomial levels even for small broadcasts: a flat level's
 * children must fit the tree beside those of the levels between nodes. */
#define FLAT_MOST (MAX_CHILDREN / 2)

/* Adds to tree the levels within my node under node_head (the root on its own node): one copy
 * to each NUMA domain's leader (the root leads its own), then within each domain: the data
 * crosses between domains once per domain. Broadcasts of at most PANGEA_COLL_FLAT_NODE bytes
 * take flat levels (issue 27: a late member then delays nobody of its domain, a late domain
 * leader only its domain), larger ones binomial levels (the copies spread over the members). */
static void node_levels(const struct pangea_team *team, int root, int node_head, size_t nbytes,
                        struct tree *tree, int *scratch)
{
    int me = team->my_pe, root_pe = pg_team_pe(team, root);
    enum level_shape shape =
        (long long)nbytes <= pg_cfg.coll_flat_node && team->nlocal <= FLAT_MOST ? FLAT : BINOMIAL;
    int mine = pg_world.node == pg_world.node_of[root_pe];
    int root_domain = mine ? pg_topo_numa_of(root_pe) : -2, root_domain_head = -1;
    for (int k = 0; k < team->nnuma_heads && root_domain_head < 0; k++)
        if (pg_topo_numa_of(pg_team_pe(team, team->numa_heads[k])) == root_domain)
            root_domain_head = team->numa_heads[k];
    int numa_head = root_domain == pg_topo_numa_of(pg_world.me) ? root : team->numa_local[0];
    if (me == numa_head)
        add_level(team, team->numa_heads, team->nnuma_heads, root_domain_head, node_head, shape,
                  tree, scratch);
    add_level(team, team->numa_local, team->nnuma_local, -1, numa_head, shape, tree, scratch);
}

/* The broadcast tree from root: a binomial tree over one leader per leaf switch when the team
 * spans several (the root leads its own), under each a binomial tree over the leaders of the
 * switch's nodes (else over every node's leader), under each leader a binomial tree over the
 * leaders of its node's NUMA domains, under each of those one over the rest of its domain. A
 * member's parent is in the highest level it does not head. */
static void broadcast_tree(const struct pangea_team *team, int root, size_t nbytes,
                           struct tree *tree, int *scratch)
{
    tree->parent = -1;
    tree->nchildren = 0;
    int me = team->my_pe;
    int root_pe = pg_team_pe(team, root), root_node = pg_world.node_of[root_pe];
    int root_first = first_on(team, team->leaders, team->nleaders, root_node, -1);
    int mine = pg_world.node == root_node;
    int node_head = mine ? root : team->local[0];
    if (me == node_head && team->nswitches) {
        int root_switch = pg_topo_leaf_switch(root_node);
        int same = pg_topo_leaf_switch(pg_world.node) == root_switch;
        int switch_head = same ? root : team->switch_local[0];
        if (me == switch_head)
            add_level(team, team->switches, team->nswitches,
                      first_on(team, team->switches, team->nswitches, -1, root_switch), root,
                      BINOMIAL_NODES, tree, scratch);
        add_level(team, team->switch_local, team->nswitch_local, same ? root_first : -1,
                  switch_head, BINOMIAL_NODES, tree, scratch);
    } else if (me == node_head) {
        add_level(team, team->leaders, team->nleaders, root_first, root, BINOMIAL_NODES, tree,
                  scratch);
    }
    node_levels(team, root, node_head, nbytes, tree, scratch);
}

/* By the data servers (dataserver.h, "Broadcasts by the servers"): the root hands its message
 * to its own node's server and leaves; every other member waits only for its own word, which
 * its node's server counts up once the whole message lies in its dest. */
static void broadcast_by_servers(struct pangea_team *team, void *dest, const void *source,
                                 size_t nbytes, int root, int write_root_dest)
{
    struct pg_ds_forward_words *words = &team->channel->forward;
    uint64_t number = __atomic_load_n(&words->taken, __ATOMIC_RELAXED);
    __atomic_store_n(&words->taken, number + 1, __ATOMIC_RELAXED);
    if (team->my_pe == root) {
        size_t dest_offset;
        int seg = pg_mem_locate(dest, nbytes, &dest_offset);
        if (seg < 0)
            pg_fatal("broadcast", "dest %p (%zu bytes) is not symmetric", dest, nbytes);
        struct pg_ds_forward f = pg_coll_server_team(team, root, number, nbytes);
        pg_pipe_forward(pg_world.me, seg, dest_offset, source, nbytes, &f);
        if (write_root_dest && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, &words->done),
                      pg_api_call ? pg_api_call : "broadcast");
    while (__atomic_load_n(&words->done, __ATOMIC_ACQUIRE) <= number)
        pg_wait_step(&w);
}

void pg_coll_broadcast(struct pangea_team *team, void *dest, const void *source, size_t nbytes,
                       int root, int write_root_dest)
{
    PG_COLL_KIND(PG_COLL_BROADCAST);
    PG_PROF_COLL(BROADCAST);
    if (nbytes == 0 || team->size <= 1) {
        if (nbytes && write_root_dest && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    if (pg_cfg.coll_server_bcast && pg_coll_by_servers(team)) {
        broadcast_by_servers(team, dest, source, nbytes, root, write_root_dest);
        return;
    }
    int scratch[team->size];
    struct tree tree;
    int root_pe = pg_team_pe(team, root), root_node = pg_world.node_of[root_pe];
    int leads = team->my_local == 0, on_root_node = pg_world.node == root_node;
    int mcast = pg_coll_mcast_usable(team, nbytes);
    if (mcast) {
        /* Between nodes by multicast (mcast.c), then the on-node tree under the node's head
         * (the root on its own node): a receiving leader holds the whole message first. */
        tree.parent = -1;
        tree.nchildren = 0;
        node_levels(team, root, on_root_node ? root : team->local[0], nbytes, &tree, scratch);
        if (leads && !on_root_node)
            pg_coll_mcast_receive(
                team, dest, nbytes,
                pg_team_pe(team, first_on(team, team->leaders, team->nleaders, root_node, -1)));
    } else {
        broadcast_tree(team, root, nbytes, &tree, scratch);
    }
    const char *from = team->my_pe == root ? source : dest;
    size_t chunk = pg_cfg.coll_chunk > 0 ? (size_t)pg_cfg.coll_chunk : nbytes;
    for (size_t off = 0; off < nbytes; off += chunk) {
        size_t len = nbytes - off < chunk ? nbytes - off : chunk;
        if (tree.parent >= 0)
            pg_coll_wait(team, pg_team_pe(team, tree.parent), 1);
        for (int c = 0; c < tree.nchildren; c++)
            pg_coll_put_notify(team, (char *)dest + off, from + off, len,
                               pg_team_pe(team, tree.children[c]));
    }
    if (mcast && leads && on_root_node)
        pg_coll_mcast_send(team, from, nbytes);
    if (team->my_pe == root && write_root_dest && dest != source)
        memmove(dest, source, nbytes);
}

/* Sends my block to every other member, starting with my right neighbour so that the
 * members do not all write to the same one at once; then waits for theirs. */
static void push_to_all(struct pangea_team *team, char *dest_at, const void *block, size_t len)
{
    int n = team->size, me = team->my_pe;
    for (int s = 1; s < n; s++)
        pg_coll_put_notify(team, dest_at, block, len, pg_team_pe(team, (me + s) % n));
    for (int s = 1; s < n; s++)
        pg_coll_wait(team, pg_team_pe(team, (me - s + n) % n), 1);
}

/* Two-level algorithms apply when the team spans nodes with more than one member on some. */
static int two_level(const struct pangea_team *team)
{
    return team->nleaders > 1 && team->size > team->nleaders;
}

/* The end of the run of consecutive team indices in team->local that starts at local[l]. */
static int run_end(const struct pangea_team *team, int l)
{
    while (l + 1 < team->nlocal && team->local[l + 1] == team->local[l] + 1)
        l++;
    return l;
}

/* Sends my block (len bytes at dest + offset on every member) to the other members of my node,
 * then waits for theirs; from my node's leader also for `extra` more signals. */
static void exchange_on_node(struct pangea_team *team, char *at, const void *block, size_t len,
                             uint64_t extra)
{
    int me = team->my_pe, pos = team->my_local;
    for (int s = 1; s < team->nlocal; s++)
        pg_coll_put_notify(team, at, block, len,
                           pg_team_pe(team, team->local[(pos + s) % team->nlocal]));
    for (int l = 0; l < team->nlocal; l++)
        if (team->local[l] != me)
            pg_coll_wait(team, pg_team_pe(team, team->local[l]), 1 + (l == 0 ? extra : 0));
}

/* The members a leader passes on in fcollect and collect. */
enum member_set { MY_NODE, NOT_MY_NODE, MY_SWITCH, OTHER_SWITCHES, MEMBER_SETS };

static int in_set(const struct pangea_team *team, int j, enum member_set set)
{
    int node = pg_world.node_of[pg_team_pe(team, j)];
    switch (set) {
    case MY_NODE:
        return node == pg_world.node;
    case NOT_MY_NODE:
        return node != pg_world.node;
    case MY_SWITCH:
        return pg_topo_leaf_switch(node) == pg_topo_leaf_switch(pg_world.node);
    default:
        return pg_topo_leaf_switch(node) != pg_topo_leaf_switch(pg_world.node);
    }
}

/* What the leaders of an fcollect or a collect move: each member's block at dest + offset[j]
 * (offset[j + 1] its end), or, in a collect's first pass (offset NULL), its entry in the
 * sizes table; in runs of consecutive members, run r of a set being members runs[set][2r] to
 * runs[set][2r + 1]. */
struct leader_pass {
    char *dest;
    const size_t *offset;
    uint64_t *table;
    int nruns[MEMBER_SETS], *runs[MEMBER_SETS];
};

/* The runs of every set (for a leader: runs[set] has room for size + 1 pairs each). */
static void find_runs(const struct pangea_team *team, struct leader_pass *pass, int *room)
{
    for (int set = 0; set < MEMBER_SETS; set++) {
        int *runs = room + (size_t)set * 2 * (size_t)(team->size + 1), count = 0;
        for (int j = 0; j < team->size; j++) {
            if (!in_set(team, j, set))
                continue;
            if (count && runs[2 * count - 1] == j - 1) {
                runs[2 * count - 1] = j;
            } else {
                runs[2 * count] = runs[2 * count + 1] = j;
                count++;
            }
        }
        pass->runs[set] = runs;
        pass->nruns[set] = count;
    }
}

/* The members of set (their sizes, or their blocks) to world PE pe, one put per run, then a
 * signal after them. */
static void send_members(struct pangea_team *team, const struct leader_pass *pass,
                         enum member_set set, int pe)
{
    for (int r = 0; r < pass->nruns[set]; r++) {
        int a = pass->runs[set][2 * r], b = pass->runs[set][2 * r + 1];
        if (pass->offset) {
            size_t from = pass->offset[a], to = pass->offset[b + 1];
            if (to > from)
                counted_put(pass->dest + from, pass->dest + from, to - from, pe);
            continue;
        }
        /* A run's entries are every step-th from the lower place on. */
        size_t first = pg_coll_index(team, pg_team_pe(team, a));
        size_t last = pg_coll_index(team, pg_team_pe(team, b));
        uint64_t *run = &pass->table[first < last ? first : last];
        struct pg_strided shape = {.levels = 1};
        shape.count[0] = sizeof *run;
        shape.count[1] = (size_t)(b - a + 1);
        shape.dst_stride[0] = shape.src_stride[0] =
            (ptrdiff_t)(sizeof *run * pg_coll_index_step(team));
        counted_put_strided(run, run, &shape, pe);
    }
    if (pg_world.node_of[pe] != pg_world.node)
        pg_fence(&pg_coll_ctx); /* the data before the signal (on the node, stores are) */
    pg_coll_notify(team, pe);
}

/* The leaders' part of a pass: each sends its node's members to the other node leaders; with
 * the switch level only within its switch, and each switch's leader sends the switch's members
 * to the other switches' leaders and hands on theirs to its node leaders, so that a member's
 * data crosses the top of the tree once per other switch. */
static void exchange_leaders(struct pangea_team *team, const struct leader_pass *pass)
{
    int nl = team->nleaders, rank = team->my_leader;
    if (!team->nswitches) {
        for (int k = 1; k < nl; k++)
            send_members(team, pass, MY_NODE, pg_team_pe(team, team->leaders[(rank + k) % nl]));
        for (int k = 1; k < nl; k++)
            pg_coll_wait(team, pg_team_pe(team, team->leaders[(rank + k) % nl]), 1);
        return;
    }
    for (int k = 0; k < team->nswitch_local; k++)
        if (team->switch_local[k] != team->my_pe)
            send_members(team, pass, MY_NODE, pg_team_pe(team, team->switch_local[k]));
    if (team->my_switch < 0) {
        for (int k = 0; k < team->nswitch_local; k++) /* the switch's leader sends twice */
            if (team->switch_local[k] != team->my_pe)
                pg_coll_wait(team, pg_team_pe(team, team->switch_local[k]), k == 0 ? 2 : 1);
        return;
    }
    for (int k = 1; k < team->nswitch_local; k++)
        pg_coll_wait(team, pg_team_pe(team, team->switch_local[k]), 1);
    for (int k = 0; k < team->nswitches; k++)
        if (team->switches[k] != team->my_pe)
            send_members(team, pass, MY_SWITCH, pg_team_pe(team, team->switches[k]));
    for (int k = 0; k < team->nswitches; k++)
        if (team->switches[k] != team->my_pe)
            pg_coll_wait(team, pg_team_pe(team, team->switches[k]), 1);
    for (int k = 1; k < team->nswitch_local; k++)
        send_members(team, pass, OTHER_SWITCHES, pg_team_pe(team, team->switch_local[k]));
}

/* A leader's part of a pass once its node's data is in place: the leaders' exchange, then
 * the other nodes' data to its node's members. */
static void gather_through_leaders(struct pangea_team *team, const struct leader_pass *pass)
{
    exchange_leaders(team, pass);
    for (int l = 1; l < team->nlocal; l++)
        send_members(team, pass, NOT_MY_NODE, pg_team_pe(team, team->local[l]));
}

/* A leader's runs, for the size of the team. */
static int *runs_room(const struct pangea_team *team, const char *call)
{
    size_t ints = (size_t)MEMBER_SETS * 2 * (size_t)(team->size + 1);
    int *room = malloc(ints * sizeof *room);
    if (!room)
        pg_fatal(call, "out of memory for %zu bytes", ints * sizeof *room);
    return room;
}

void pg_coll_allgather(struct pangea_team *team, char *dest, const size_t *offset, const char *call)
{
    int me = team->my_pe;
    char *mine = dest + offset[me];
    size_t len = offset[me + 1] - offset[me];
    if (team->nleaders == 1) {
        push_to_all(team, mine, mine, len);
        return;
    }
    int leader = me == team->local[0];
    exchange_on_node(team, mine, mine, len, !leader); /* + the other nodes' blocks */
    if (!leader)
        return;
    struct leader_pass pass = {.dest = dest, .offset = offset};
    int *room = runs_room(team, call);
    find_runs(team, &pass, room);
    gather_through_leaders(team, &pass);
    free(room);
}

void pg_coll_fcollect(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    PG_COLL_KIND(PG_COLL_FCOLLECT);
    PG_PROF_COLL(FCOLLECT);
    if (nbytes == 0)
        return;
    size_t offset[team->size + 1];
    for (int j = 0; j <= team->size; j++)
        offset[j] = (size_t)j * nbytes;
    memmove((char *)dest + offset[team->my_pe], source, nbytes);
    pg_coll_allgather(team, dest, offset, "fcollect");
}

/* Two-level collect. The members of a node store their sizes in the leader's table and wait
 * for their offsets; the leaders exchange the sizes as fcollect's leaders do the blocks; then
 * the blocks move like fcollect's: on the node member to member, between the leaders (in
 * runs of consecutive members), and each leader hands on the other nodes' blocks. The table
 * is read into offsets before any block leaves a leader, and a PE's entry (at its place, by
 * world PE for the active sets, which share a channel, so that they do not overlap) is written
 * for its next collect only after it has received those blocks. */
static void collect_nodes(struct pangea_team *team, char *dest, const void *source, size_t nbytes)
{
    int me = team->my_pe, n = team->size;
    int leader = pg_team_pe(team, team->local[0]);
    uint64_t *word = team->channel->word;
    if (me != team->local[0]) {
        uint64_t *table = pg_mem_peer_ptr(pg_coll_sizes(team), leader);
        __atomic_store_n(&table[pg_coll_index(team, pg_world.me)], (uint64_t)nbytes,
                         __ATOMIC_RELAXED);
        pg_coll_notify(team, leader);
        pg_coll_wait(team, leader, 1); /* my offset, in my word */
        char *mine = dest + __atomic_load_n(word, __ATOMIC_RELAXED);
        memmove(mine, source, nbytes);
        exchange_on_node(team, mine, source, nbytes, 1); /* + the other nodes' blocks */
        return;
    }
    uint64_t *table = pg_coll_sizes(team);
    table[pg_coll_index(team, pg_world.me)] = nbytes;
    for (int l = 1; l < team->nlocal; l++)
        pg_coll_wait(team, pg_team_pe(team, team->local[l]), 1);
    struct leader_pass pass = {.dest = dest, .table = table};
    int *room = runs_room(team, "collect");
    find_runs(team, &pass, room);
    exchange_leaders(team, &pass); /* the sizes */
    size_t offset[n + 1];
    offset[0] = 0;
    for (int j = 0; j < n; j++)
        offset[j + 1] =
            offset[j] +
            __atomic_load_n(&table[pg_coll_index(team, pg_team_pe(team, j))], __ATOMIC_RELAXED);
    for (int l = 1; l < team->nlocal; l++) {
        int member = pg_team_pe(team, team->local[l]);
        __atomic_store_n((uint64_t *)pg_mem_peer_ptr(word, member),
                         (uint64_t)offset[team->local[l]], __ATOMIC_RELAXED);
        pg_coll_notify(team, member);
    }
    char *mine = dest + offset[me];
    memmove(mine, source, nbytes);
    exchange_on_node(team, mine, source, nbytes, 0);
    pass.offset = offset;
    gather_through_leaders(team, &pass); /* the blocks */
    free(room);
}

void pg_coll_collect(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    PG_COLL_KIND(PG_COLL_COLLECT);
    PG_PROF_COLL(COLLECT);
    if (two_level(team) || team->nswitches) {
        collect_nodes(team, dest, source, nbytes);
        return;
    }
    /* Publish my size, sync, read everyone's to find my offset. */
    uint64_t *word = team->channel->word;
    __atomic_store_n(word, (uint64_t)nbytes, __ATOMIC_RELAXED);
    pg_team_sync(team);
    size_t offset = 0;
    for (int j = 0; j < team->my_pe; j++) {
        uint64_t size;
        memcpy(&size, pg_coll_fetch(word, sizeof size, pg_team_pe(team, j), &size), sizeof size);
        offset += size;
    }
    char *mine = (char *)dest + offset;
    memmove(mine, source, nbytes);
    /* Everyone signals everyone, also with nothing to send: the signal also tells the
     * receiver that the sender has read its size, so the next collect may overwrite it. */
    push_to_all(team, mine, source, nbytes);
}

/* The blocks of an alltoall[s]: nelems elements of elem bytes each; block j of a source starts
 * at element j*nelems*sst, block i of a dest at element i*nelems*dst. alltoall is the case of
 * one element of nbytes. */
struct blocks {
    char *dest;
    const char *source;
    size_t elem, nelems;
    ptrdiff_t dst, sst;
    int stream; /* contiguous blocks to on-node members are stored around the cache */
};

/* Copies len bytes with stores that bypass the cache and makes them visible before any later
 * store (the signal). */
static void copy_streaming(char *to, const char *from, size_t len)
{
#if defined(__x86_64__)
    size_t head = (size_t)(-(uintptr_t)to & 15);
    if (head > len)
        head = len;
    memcpy(to, from, head);
    to += head;
    from += head;
    len -= head;
    for (; len >= 64; to += 64, from += 64, len -= 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)from);
        __m128i b = _mm_loadu_si128((const __m128i *)(from + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(from + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(from + 48));
        _mm_stream_si128((__m128i *)to, a);
        _mm_stream_si128((__m128i *)(to + 16), b);
        _mm_stream_si128((__m128i *)(to + 32), c);
        _mm_stream_si128((__m128i *)(to + 48), d);
    }
    memcpy(to, from, len);
    _mm_sfence();
#else
    memcpy(to, from, len);
#endif
}

static char *dest_block(const struct blocks *b, int i)
{
    return b->dest + (size_t)i * b->nelems * (size_t)b->dst * b->elem;
}

static const char *source_block(const struct blocks *b, int j)
{
    return b->source + (size_t)j * b->nelems * (size_t)b->sst * b->elem;
}

/* count elements from local `from` (stride from_stride elements) to `to` (stride dst) on world
 * PE pe; then, when signal is set, a signal that the receiver sees after them. */
static void put_elements(struct pangea_team *team, const struct blocks *b, char *to,
                         const char *from, ptrdiff_t from_stride, size_t count, int pe, int signal)
{
    if (b->dst == 1 && from_stride == 1) {
        char *peer = b->stream ? pg_mem_peer_ptr(to, pe) : NULL;
        if (peer) {
            pg_prof_op(PG_PROF_PUT, pe, count * b->elem);
            copy_streaming(peer, from, count * b->elem);
            if (signal)
                pg_coll_notify(team, pe);
            return;
        }
        if (signal)
            pg_coll_put_notify(team, to, from, count * b->elem, pe);
        else
            counted_put(to, from, count * b->elem, pe);
        return;
    }
    struct pg_strided shape = {.levels = 1};
    shape.count[0] = b->elem;
    shape.count[1] = count;
    shape.dst_stride[0] = b->dst * (ptrdiff_t)b->elem;
    shape.src_stride[0] = from_stride * (ptrdiff_t)b->elem;
    counted_put_strided(to, from, &shape, pe);
    if (signal) {
        pg_fence(&pg_coll_ctx); /* the elements before the signal */
        pg_coll_notify(team, pe);
    }
}

/* My node's place in leaders[]. */
static int my_node_place(const struct pangea_team *team)
{
    int k = 0;
    while (team->leaders[k] != team->local[0])
        k++;
    return k;
}

int *pg_coll_send_order(struct pangea_team *team)
{
    int n = team->size, nl = team->nleaders, count = n - team->nlocal;
    int *order = malloc((size_t)(count > 0 ? count : 1) * sizeof *order);
    if (!order)
        pg_fatal("alltoall", "out of memory for the order of %d members", count);
    if (!team->nswitches) {
        int k = 0;
        for (int s = 1; s < n; s++) {
            int j = (team->my_pe + s) % n;
            if (pg_world.node_of[pg_team_pe(team, j)] != pg_world.node)
                order[k++] = j;
        }
        return order;
    }
    if (!team->exchange_nodes) {
        int *switch_of = malloc((size_t)nl * sizeof *switch_of);
        int *nodes = malloc((size_t)nl * sizeof *nodes);
        if (!switch_of || !nodes)
            pg_fatal("alltoall", "out of memory for the schedule of %d nodes", nl);
        for (int k = 0; k < nl; k++)
            switch_of[k] =
                pg_topo_leaf_switch(pg_world.node_of[pg_team_pe(team, team->leaders[k])]);
        if (pg_coll_exchange_order(nl, switch_of, my_node_place(team), nodes, NULL) < 0)
            pg_fatal("alltoall", "out of memory for the schedule of %d nodes", nl);
        free(switch_of);
        team->exchange_nodes = nodes;
        team->nexchange_nodes = nl - 1;
    }
    /* The members by their node's place in the order (a counting sort, stable). */
    int *rank = calloc((size_t)pg_world.nnodes, sizeof *rank),
        *start = calloc((size_t)nl, sizeof *start);
    if (!rank || !start)
        pg_fatal("alltoall", "out of memory for the order of %d members", count);
    for (int r = 0; r < team->nexchange_nodes; r++)
        rank[pg_world.node_of[pg_team_pe(team, team->leaders[team->exchange_nodes[r]])]] = r + 1;
    for (int j = 0; j < n; j++) {
        int r = rank[pg_world.node_of[pg_team_pe(team, j)]];
        if (r > 0 && r < nl - 1)
            start[r]++;
    }
    for (int r = 1; r < nl - 1; r++)
        start[r] += start[r - 1];
    for (int j = 0; j < n; j++) {
        int r = rank[pg_world.node_of[pg_team_pe(team, j)]];
        if (r > 0)
            order[start[r - 1]++] = j;
    }
    free(rank);
    free(start);
    return order;
}

/* Pairwise exchange: every member puts its blocks straight into the others' dest. */
static void alltoall_flat(struct pangea_team *team, const struct blocks *b)
{
    int n = team->size, me = team->my_pe;
    put_elements(team, b, dest_block(b, me), source_block(b, me), b->sst, b->nelems,
                 pg_team_pe(team, me), 0);
    if (team->nleaders == 1) {
        for (int s = 1; s < n; s++) {
            int j = (me + s) % n;
            put_elements(team, b, dest_block(b, me), source_block(b, j), b->sst, b->nelems,
                         pg_team_pe(team, j), 1);
        }
    } else {
        int *order = pg_coll_send_order(team); /* one member per node: every other member */
        for (int k = 0; k < n - 1; k++)
            put_elements(team, b, dest_block(b, me), source_block(b, order[k]), b->sst, b->nelems,
                         pg_team_pe(team, order[k]), 1);
        free(order);
    }
    for (int s = 1; s < n; s++)
        pg_coll_wait(team, pg_team_pe(team, (me - s + n) % n), 1);
}

/* Two-level: the members of a node put their blocks for each other straight into dest; the
 * leader reads its node's sources in place and sends every member of another node the blocks
 * of all its node's members at once (packed, one put per run of consecutive members), then
 * tells its members it is done with their sources. */
static void alltoall_nodes(struct pangea_team *team, const struct blocks *b)
{
    int me = team->my_pe, n = team->size, nlocal = team->nlocal, pos = team->my_local;
    for (int s = 0; s < nlocal; s++) {
        int j = team->local[(pos + s) % nlocal];
        put_elements(team, b, dest_block(b, me), source_block(b, j), b->sst, b->nelems,
                     pg_team_pe(team, j), s > 0);
    }
    if (me == team->local[0]) {
        for (int l = 1; l < nlocal; l++) /* their sources are ready */
            pg_coll_wait(team, pg_team_pe(team, team->local[l]), 1);
        size_t block = b->nelems * b->elem;
        size_t extent = ((b->nelems - 1) * (size_t)b->sst + 1) * b->elem;
        char *pack = malloc((size_t)nlocal * block);
        if (!pack)
            pg_fatal("alltoall", "out of memory for %zu bytes", (size_t)nlocal * block);
        int *order = pg_coll_send_order(team);
        for (int k = 0; k < n - nlocal; k++) {
            int j = order[k];
            for (int l = 0; l < nlocal; l++) {
                const char *from = pg_coll_fetch(source_block(b, j), extent,
                                                 pg_team_pe(team, team->local[l]), NULL);
                char *to = pack + (size_t)l * block;
                if (b->sst == 1)
                    memcpy(to, from, block);
                else
                    for (size_t e = 0; e < b->nelems; e++)
                        memcpy(to + e * b->elem, from + e * (size_t)b->sst * b->elem, b->elem);
            }
            for (int l = 0; l < nlocal; l = run_end(team, l) + 1) {
                int end = run_end(team, l);
                put_elements(team, b, dest_block(b, team->local[l]), pack + (size_t)l * block, 1,
                             (size_t)(end - l + 1) * b->nelems, pg_team_pe(team, j),
                             end == nlocal - 1);
            }
        }
        free(pack);
        free(order);
        for (int l = 1; l < nlocal; l++)
            pg_coll_notify(team, pg_team_pe(team, team->local[l]));
    } else {
        for (int l = 0; l < nlocal; l++) /* from the leader also: done with my source */
            if (team->local[l] != me)
                pg_coll_wait(team, pg_team_pe(team, team->local[l]), l == 0 ? 2 : 1);
    }
    for (int k = 0; k < team->nleaders; k++) {
        int other = pg_team_pe(team, team->leaders[k]);
        if (pg_world.node_of[other] != pg_world.node)
            pg_coll_wait(team, other, 1);
    }
}

void pg_coll_alltoall(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    pg_coll_alltoalls(team, dest, source, 1, 1, nbytes, 1);
}

void pg_coll_alltoalls(struct pangea_team *team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t elem, size_t nelems)
{
    PG_COLL_KIND(PG_COLL_ALLTOALL);
    PG_PROF_COLL(ALLTOALL);
    if (nelems == 0 || elem == 0)
        return;
    struct blocks b = {
        .dest = dest, .source = source, .elem = elem, .nelems = nelems, .dst = dst, .sst = sst};
    if (dst == 1 && sst == 1) { /* contiguous blocks: one element each */
        b.elem *= nelems;
        b.nelems = 1;
        /* When the node's members together write more than the cache holds, stores that
         * allocate in it only evict the sources still to be read, and cost a read of every
         * dest line first: at 8 PEs on 2 cores with 32 MiB, from 512 KiB blocks on. */
        size_t node_writes = (size_t)team->nlocal * (size_t)team->size * b.elem;
        b.stream = pg_coll_stream_bytes > 0 && node_writes >= pg_coll_stream_bytes;
    }
    if (two_level(team))
        alltoall_nodes(team, &b);
    else
        alltoall_flat(team, &b);
}
