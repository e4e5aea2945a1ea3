/* Broadcasts and barriers by the servers (dataserver.h, "Broadcasts by the servers",
 * "Barriers by the servers"): a chunk goes on to the child nodes' servers as soon as it comes,
 * and lands in the dest of the team's members on this node in the team's order of broadcasts;
 * each member is told once its broadcast has landed whole. A barrier's arrivals are counted
 * until every node of the team is in. The team travels in every message, so a server keeps no
 * state per team beyond the words in its members' memory and the chunks that came early. */
#include "ds_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The team of the latest chunk served: its nodes in the tree's order (the root's first) with
 * the first member of each, my node's place among them, and its members on my node in team
 * order. Made again when a chunk of another team, or from another root, comes. */
static struct {
    int valid;
    int32_t start, stride, size, root;
    int count, mine;
    int *nodes, *first; /* [nnodes] */
    int *stamp;         /* [nnodes] when each node was last listed */
    int generation;
    int nmembers, *members; /* [size at most] world PEs */
    int members_room;
} tree;

/* A chunk that came before its broadcast's turn on this node: a copy, kept in arrival order. */
struct early {
    struct early *next;
    size_t len;
    struct pg_ds_header message[]; /* then the descriptor and the data */
};
static struct early *early_first;

static void *grown(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (!q)
        pg_fatal("data server", "out of memory (%zu bytes) for a broadcast's tree", bytes);
    return q;
}

static void shape_tree(const struct pg_ds_forward *f)
{
    if (tree.valid && tree.start == f->start && tree.stride == f->stride && tree.size == f->size &&
        tree.root == f->root)
        return;
    int nnodes = pg_world.nnodes;
    if (!tree.nodes) {
        tree.nodes = grown(NULL, (size_t)nnodes * sizeof *tree.nodes);
        tree.first = grown(NULL, (size_t)nnodes * sizeof *tree.first);
        tree.stamp = calloc((size_t)nnodes, sizeof *tree.stamp);
        if (!tree.stamp)
            pg_fatal("data server", "out of memory for a broadcast's tree");
    }
    if (f->size > tree.members_room) {
        tree.members = grown(tree.members, (size_t)f->size * sizeof *tree.members);
        tree.members_room = f->size;
    }
    tree.generation++;
    int root_pe = f->start + f->root * f->stride;
    tree.nodes[0] = pg_world.node_of[root_pe];
    tree.first[0] = root_pe;
    tree.stamp[tree.nodes[0]] = tree.generation;
    tree.count = 1;
    tree.nmembers = 0;
    for (int i = 0; i < f->size; i++) {
        int pe = f->start + i * f->stride, node = pg_world.node_of[pe];
        if (node == pg_world.node)
            tree.members[tree.nmembers++] = pe;
        if (tree.stamp[node] != tree.generation) {
            tree.stamp[node] = tree.generation;
            tree.nodes[tree.count] = node;
            tree.first[tree.count++] = pe;
        }
    }
    tree.mine = -1;
    for (int k = 0; k < tree.count; k++)
        if (tree.nodes[k] == pg_world.node)
            tree.mine = k;
    tree.start = f->start;
    tree.stride = f->stride;
    tree.size = f->size;
    tree.root = f->root;
    tree.valid = 1;
}

static struct pg_ds_forward descriptor_of(const struct pg_ds_header *h)
{
    struct pg_ds_forward f;
    memcpy(&f, h + 1, sizeof f);
    return f;
}

/* Where bytes [offset, offset + len) of segment seg of pe lie in this process, or NULL when
 * pe has no such range. */
static char *peer_at(int seg, int pe, uint64_t offset, size_t len)
{
    char *base = pg_mem_peer_range(seg, pe, offset, len);
    return base ? base + offset : NULL;
}

static struct pg_ds_forward_words *words_of(int pe, uint64_t offset)
{
    return (struct pg_ds_forward_words *)peer_at(PG_SEG_HEAP, pe, offset,
                                                 sizeof(struct pg_ds_forward_words));
}

/* Sends the chunk on down the binomial tree over the team's nodes: position p's children are
 * p + 2^k for every 2^k > p. */
static void send_on(const struct pg_ds_header *h, size_t len)
{
    int top = 1;
    while (top < tree.count)
        top <<= 1;
    for (int bit = top >> 1; bit > tree.mine; bit >>= 1)
        if (tree.mine + bit < tree.count)
            ds_forward_send(tree.nodes[tree.mine + bit], (uint32_t)tree.first[tree.mine + bit], h,
                            len);
}

/* Adds 1 to the word at `field` of every member's words (at `words`) and rings its doorbell. */
static void tell_members(uint64_t words, size_t field)
{
    const char *at = pg_segments[PG_SEG_HEAP].base + words + field;
    for (int m = 0; m < tree.nmembers; m++) {
        __atomic_fetch_add((uint64_t *)((char *)words_of(tree.members[m], words) + field), 1,
                           __ATOMIC_RELEASE);
        pg_mem_ring(tree.members[m], at);
    }
}

/* Writes the chunk into every member's dest but the root's; once the broadcast's every byte
 * has landed, tells every member. Returns whether it completed the broadcast. */
static int land(const struct pg_ds_header *h, const struct pg_ds_forward *f)
{
    const char *data = (const char *)(h + 1) + sizeof *f;
    int root_pe = f->start + f->root * f->stride;
    for (int m = 0; m < tree.nmembers; m++)
        if (tree.members[m] != root_pe)
            memcpy(peer_at(h->segment, tree.members[m], h->offset + h->position, h->length), data,
                   h->length);
    struct pg_ds_forward_words *head = words_of(tree.members[0], f->words);
    uint64_t landed = __atomic_load_n(&head->bytes, __ATOMIC_RELAXED) + h->length;
    if (landed < f->total) {
        __atomic_store_n(&head->bytes, landed, __ATOMIC_RELAXED);
        return 0;
    }
    __atomic_store_n(&head->bytes, 0, __ATOMIC_RELAXED);
    tell_members(f->words, offsetof(struct pg_ds_forward_words, done));
    return 1;
}

/* The chunks kept for the team whose words are at `words` whose turn has come, in order: a
 * broadcast completed lets the next one's land. */
static void land_early(uint64_t words)
{
    struct early **at = &early_first;
    while (*at) {
        struct early *e = *at;
        struct pg_ds_forward f = descriptor_of(e->message);
        if (f.words == words) {
            shape_tree(&f);
            if (__atomic_load_n(&words_of(tree.members[0], words)->done, __ATOMIC_RELAXED) ==
                f.number) {
                *at = e->next;
                int completed = land(e->message, &f);
                free(e);
                if (completed)
                    at = &early_first;
                continue;
            }
        }
        at = &e->next;
    }
}

static void keep_early(const struct pg_ds_header *h, size_t len)
{
    struct early *e = malloc(sizeof *e + len), **at = &early_first;
    if (!e)
        pg_fatal("data server", "out of memory keeping %zu bytes of a broadcast", len);
    e->next = NULL;
    e->len = len;
    memcpy(e->message, h, len);
    while (*at)
        at = &(*at)->next;
    *at = e;
}

/* The team's members on my node, all of whose words lie in range: 0, or why not. */
static int members_reachable(const struct pg_ds_forward *f)
{
    if (tree.mine < 0 || tree.nmembers == 0)
        return PG_DS_BAD_TARGET;
    for (int m = 0; m < tree.nmembers; m++)
        if (!words_of(tree.members[m], f->words))
            return PG_DS_BAD_RANGE;
    return PG_DS_OK;
}

int ds_forward(const struct pg_ds_header *h, size_t len)
{
    struct pg_ds_forward f = descriptor_of(h);
    shape_tree(&f);
    int status = members_reachable(&f);
    if (status != PG_DS_OK)
        return status;
    for (int m = 0; m < tree.nmembers; m++)
        if (!peer_at(h->segment, tree.members[m], h->offset + h->position, h->length))
            return PG_DS_BAD_RANGE;
    send_on(h, len);
    uint64_t done = __atomic_load_n(&words_of(tree.members[0], f.words)->done, __ATOMIC_RELAXED);
    if (f.number < done)
        return PG_DS_BAD_ORDER;
    if (f.number > done) {
        keep_early(h, len);
        return PG_DS_OK;
    }
    if (land(h, &f))
        land_early(f.words);
    return PG_DS_OK;
}

int ds_arrived(const struct pg_ds_header *h)
{
    struct pg_ds_forward f = descriptor_of(h);
    shape_tree(&f);
    int status = members_reachable(&f);
    if (status != PG_DS_OK)
        return status;
    uint64_t *nodes = &words_of(tree.members[0], f.words)->nodes[f.number % 2];
    uint64_t arrived = __atomic_load_n(nodes, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(nodes, arrived < (uint64_t)tree.count ? arrived : 0, __ATOMIC_RELAXED);
    if (arrived == (uint64_t)tree.count)
        tell_members(f.words, offsetof(struct pg_ds_forward_words, synced));
    return PG_DS_OK;
}

void ds_forward_fini(void)
{
    while (early_first) {
        struct early *e = early_first;
        early_first = e->next;
        free(e);
    }
    free(tree.nodes);
    free(tree.first);
    free(tree.stamp);
    free(tree.members);
    memset(&tree, 0, sizeof tree);
}
