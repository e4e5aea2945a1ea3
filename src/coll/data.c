/* Data collectives: broadcast (a node-aware binomial tree, pipelined in chunks), fcollect
 * (blocks exchanged on each node, then between the node leaders), collect (every member pushes
 * its block to every other), alltoall[s] (pairwise exchange).
 * All of them push: a member reads only its own source and writes the others' dest, which
 * every caller guarantees to be ready on entry, so no sync is needed before the data moves,
 * and each member returns when the blocks it expects have been signalled. */
#include "coll_internal.h"

#include "memory/memory.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <string.h>

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

/* The broadcast tree from root: a binomial tree over one leader per node (the root leads its
 * own node), under each leader a binomial tree over the rest of its node. */
static void broadcast_tree(const struct pangea_team *team, int root, struct tree *tree,
                           int *scratch)
{
    tree->parent = -1;
    tree->nchildren = 0;
    int me = team->my_pe, nl = team->nleaders;
    int root_node = pg_world.node_of[pg_team_pe(team, root)];
    int my_leader = pg_world.node == root_node ? root : team->local[0];
    if (me == my_leader) {
        int first = 0, mine = 0;
        for (int k = 0; k < nl; k++) {
            int node = pg_world.node_of[pg_team_pe(team, team->leaders[k])];
            if (node == root_node)
                first = k;
            if (node == pg_world.node)
                mine = k;
        }
        for (int rel = 0; rel < nl; rel++)
            scratch[rel] = rel == 0 ? root : team->leaders[(first + rel) % nl];
        binomial(scratch, nl, (mine - first + nl) % nl, tree);
    }
    int n = 0, pos = 0;
    scratch[n++] = my_leader;
    for (int l = 0; l < team->nlocal; l++) {
        if (team->local[l] == my_leader)
            continue;
        if (team->local[l] == me)
            pos = n;
        scratch[n++] = team->local[l];
    }
    binomial(scratch, n, pos, tree);
}

void pg_coll_broadcast(struct pangea_team *team, void *dest, const void *source, size_t nbytes,
                       int root, int write_root_dest)
{
    if (nbytes == 0 || team->size <= 1) {
        if (nbytes && write_root_dest && dest != source)
            memmove(dest, source, nbytes);
        return;
    }
    int scratch[team->size];
    struct tree tree;
    broadcast_tree(team, root, &tree, scratch);
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

/* Across nodes, the members of a node exchange their blocks through shared memory; each
 * leader sends its node's blocks to the other leaders and hands the blocks it receives on to
 * its node: a block crosses the network once per node, not once per member. */
void pg_coll_fcollect(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    if (nbytes == 0)
        return;
    char *at = dest;
    char *mine = at + (size_t)team->my_pe * nbytes;
    memmove(mine, source, nbytes);
    if (team->nleaders == 1) {
        push_to_all(team, mine, source, nbytes);
        return;
    }
    for (int l = 0; l < team->nlocal; l++)
        if (team->local[l] != team->my_pe)
            pg_coll_put_notify(team, mine, source, nbytes, pg_team_pe(team, team->local[l]));
    for (int l = 0; l < team->nlocal; l++)
        if (team->local[l] != team->my_pe)
            pg_coll_wait(team, pg_team_pe(team, team->local[l]), 1);
    int leader = pg_team_pe(team, team->local[0]);
    if (team->my_pe != team->local[0]) {
        pg_coll_wait(team, leader, 1); /* the other nodes' blocks */
        return;
    }
    for (int k = 0; k < team->nleaders; k++) {
        int other = pg_team_pe(team, team->leaders[k]);
        if (other == pg_world.me)
            continue;
        for (int l = 0; l < team->nlocal; l++) {
            char *block = at + (size_t)team->local[l] * nbytes;
            pg_put(&pg_coll_ctx, block, block, nbytes, other);
        }
        pg_fence(&pg_coll_ctx); /* the blocks before the signal */
        pg_coll_notify(team, other);
    }
    for (int k = 0; k < team->nleaders; k++)
        if (team->leaders[k] != team->my_pe)
            pg_coll_wait(team, pg_team_pe(team, team->leaders[k]), 1);
    for (int l = 1; l < team->nlocal; l++) {
        int member = pg_team_pe(team, team->local[l]);
        for (int j = 0; j < team->size; j++) {
            if (pg_world.node_of[pg_team_pe(team, j)] == pg_world.node)
                continue;
            char *block = at + (size_t)j * nbytes;
            pg_put(&pg_coll_ctx, block, block, nbytes, member);
        }
        pg_coll_notify(team, member);
    }
}

void pg_coll_collect(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    /* Publish my size, sync, read everyone's to find my offset. */
    uint64_t *word = &pg_coll_channel(team)->word;
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

void pg_coll_alltoall(struct pangea_team *team, void *dest, const void *source, size_t nbytes)
{
    if (nbytes == 0)
        return;
    int n = team->size, me = team->my_pe;
    char *to = (char *)dest + (size_t)me * nbytes;
    const char *from = source;
    for (int s = 1; s < n; s++) {
        int j = (me + s) % n;
        pg_coll_put_notify(team, to, from + (size_t)j * nbytes, nbytes, pg_team_pe(team, j));
    }
    memmove(to, from + (size_t)me * nbytes, nbytes);
    for (int s = 1; s < n; s++)
        pg_coll_wait(team, pg_team_pe(team, (me - s + n) % n), 1);
}

void pg_coll_alltoalls(struct pangea_team *team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t elem, size_t nelems)
{
    if (nelems == 0)
        return;
    int n = team->size, me = team->my_pe;
    struct pg_strided shape = {.levels = 1};
    shape.count[0] = elem;
    shape.count[1] = nelems;
    shape.dst_stride[0] = dst * (ptrdiff_t)elem;
    shape.src_stride[0] = sst * (ptrdiff_t)elem;
    char *to = (char *)dest + (size_t)me * nelems * (size_t)dst * elem;
    for (int s = 0; s < n; s++) {
        int j = (me + s) % n;
        const char *from = (const char *)source + (size_t)j * nelems * (size_t)sst * elem;
        pg_put_strided(&pg_coll_ctx, to, from, &shape, pg_team_pe(team, j));
        if (s > 0) {
            pg_fence(&pg_coll_ctx); /* the elements before the signal */
            pg_coll_notify(team, pg_team_pe(team, j));
        }
    }
    for (int s = 1; s < n; s++)
        pg_coll_wait(team, pg_team_pe(team, (me - s + n) % n), 1);
}
