/* Reductions and scans.
 *
 * Small reductions (up to a landing slot): every member sends its source to its node's
 * leader, the leaders send their node's partial result to the first leader (across switches:
 * to their switch's leader, which send theirs to the first), which combines them and sends the
 * result back down the same way — the steps of a barrier.
 *
 * Larger ones: members sync (every source is ready), read each other's sources — in place on
 * the node, fetched from off the node — and combine them in team order, sync again (every
 * source has been read, so dest may be written even when it is the source), and write dest.
 * Large reductions, and every larger one across switches, split the elements: each member
 * reduces its share, then the shares go to all as fcollect's blocks do (reduce-scatter +
 * allgather: through the node leaders, and the switches' leaders across switches). Across
 * switches the reduce-scatter runs per switch first, so that each switch's partial result for
 * the others' shares crosses the top once.
 *
 * Scans combine within runs of members under one switch and pass the prefix from run to run. */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <stdlib.h>
#include <string.h>

/* acc = the combination of source[0..count) of members[0..nmembers) (team indices; NULL: the
 * members 0..nmembers-1), in that order. */
static void combine_members(struct pangea_team *team, const int *members, int nmembers, char *acc,
                            const char *source, size_t count, size_t elem, pg_combine_fn combine,
                            char *tmp)
{
    size_t len = count * elem;
    for (int k = 0; k < nmembers; k++) {
        int j = members ? members[k] : k;
        const void *in = pg_coll_fetch(source, len, pg_team_pe(team, j), tmp);
        if (k == 0)
            memcpy(acc, in, len);
        else
            combine(acc, in, count);
    }
}

/* acc (holding my contribution) combined with what each of the members senders[0..n-1]
 * (team indices) has sent to my slots. */
static void combine_slots(struct pangea_team *team, const int *senders, int n, char *acc,
                          size_t count, pg_combine_fn combine)
{
    for (int k = 0; k < n; k++) {
        int pe = pg_team_pe(team, senders[k]);
        pg_coll_wait(team, pe, 1);
        combine(acc, pg_coll_slot(team, pe), count);
    }
}

/* One level up: group[0] combines what the others send into acc and returns 1; the others
 * send their acc and return 0 once group[0] has put the result into their dest. */
static int gather_up(struct pangea_team *team, const int *group, int n, char *acc, size_t count,
                     size_t len, pg_combine_fn combine)
{
    int head = pg_team_pe(team, group[0]);
    if (pg_world.me != head) {
        pg_coll_put_notify(team, pg_coll_slot(team, pg_world.me), acc, len, head);
        pg_coll_wait(team, head, 1);
        return 0;
    }
    combine_slots(team, group + 1, n - 1, acc, count, combine);
    return 1;
}

/* group[0] puts the result in its dest into the others'. */
static void send_down(struct pangea_team *team, const int *group, int n, void *dest, size_t len)
{
    if (pg_world.me == pg_team_pe(team, group[0]))
        for (int k = 1; k < n; k++)
            pg_coll_put_notify(team, dest, dest, len, pg_team_pe(team, group[k]));
}

static void reduce_gathered(struct pangea_team *team, void *dest, const void *source, size_t count,
                            size_t elem, pg_combine_fn combine)
{
    size_t len = count * elem;
    char *acc = malloc(len);
    if (!acc)
        pg_fatal("reduction", "out of memory for %zu bytes of partial results", len);
    memcpy(acc, source, len);
    /* Within the node, partials meet at each NUMA domain's leader first: one partial per
     * domain crosses between domains each way. */
    if (!gather_up(team, team->numa_local, team->nnuma_local, acc, count, len, combine)) {
        free(acc);
        return;
    }
    if (gather_up(team, team->numa_heads, team->nnuma_heads, acc, count, len, combine)) {
        /* Across switches the node leaders' partials meet at their switch's leader first, so
         * one partial per switch crosses the top of the tree each way. */
        if (team->nswitches) {
            if (gather_up(team, team->switch_local, team->nswitch_local, acc, count, len,
                          combine)) {
                if (gather_up(team, team->switches, team->nswitches, acc, count, len, combine))
                    memcpy(dest, acc, len);
                send_down(team, team->switches, team->nswitches, dest, len);
                send_down(team, team->switch_local, team->nswitch_local, dest, len);
            }
        } else {
            if (gather_up(team, team->leaders, team->nleaders, acc, count, len, combine))
                memcpy(dest, acc, len);
            send_down(team, team->leaders, team->nleaders, dest, len);
        }
        send_down(team, team->numa_heads, team->nnuma_heads, dest, len);
    }
    send_down(team, team->numa_local, team->nnuma_local, dest, len);
    free(acc);
}

/* The leaf switch of member j. */
static int switch_of_member(const struct pangea_team *team, int j)
{
    return pg_topo_leaf_switch(pg_world.node_of[pg_team_pe(team, j)]);
}

/* The first half of a split reduction across leaf switches: the members of each switch reduce
 * the switch's sources in slices (slice q of a switch of k members: elements count*q/k to
 * count*(q+1)/k), fetched within the switch, and leave their slice in dest; then each member
 * combines, for its share lo..hi, the pieces of every switch's slices that overlap it. Only
 * those pieces cross the top of the tree: each switch receives the other switches' partial
 * results for the elements its members own, once — the least any reduce-scatter can move
 * there. mine (hi - lo elements) gets the result. */
static void reduce_scatter_switches(struct pangea_team *team, char *dest, const char *source,
                                    size_t count, size_t lo, size_t hi, size_t elem,
                                    pg_combine_fn combine, char *mine)
{
    int n = team->size, m = team->nswitches;
    int sw[n], pos[n], size[m], members[n];
    for (int t = 0; t < m; t++)
        size[t] = 0;
    for (int j = 0; j < n; j++) {
        int leaf = switch_of_member(team, j);
        sw[j] = 0;
        while (switch_of_member(team, team->switches[sw[j]]) != leaf)
            sw[j]++;
        pos[j] = size[sw[j]]++;
    }
    int mine_sw = sw[team->my_pe], k = 0;
    for (int j = 0; j < n; j++)
        if (sw[j] == mine_sw)
            members[k++] = j;
    size_t slo = count * (size_t)pos[team->my_pe] / (size_t)k;
    size_t shi = count * (size_t)(pos[team->my_pe] + 1) / (size_t)k;
    size_t slice = (shi - slo) * elem, share = (hi - lo) * elem;
    char *acc = malloc(2 * (slice > share ? slice : share) + 1);
    if (!acc)
        pg_fatal("reduction", "out of memory for %zu bytes of partial results", 2 * slice);
    char *tmp = acc + (slice > share ? slice : share);
    pg_team_sync(team); /* every source is ready */
    combine_members(team, members, k, acc, source + slo * elem, shi - slo, elem, combine, tmp);
    pg_team_sync(team); /* every source has been read: dest may be written */
    memcpy(dest + slo * elem, acc, slice);
    pg_team_sync(team); /* every switch's slices are in dest */
    for (int t = 0; t < m; t++)
        for (int j = 0; j < n; j++) {
            if (sw[j] != t)
                continue;
            size_t a = count * (size_t)pos[j] / (size_t)size[t];
            size_t b = count * (size_t)(pos[j] + 1) / (size_t)size[t];
            a = a > lo ? a : lo;
            b = b < hi ? b : hi;
            if (a >= b)
                continue;
            const void *in =
                pg_coll_fetch(dest + a * elem, (b - a) * elem, pg_team_pe(team, j), tmp);
            if (t == 0)
                memcpy(mine + (a - lo) * elem, in, (b - a) * elem);
            else
                combine(mine + (a - lo) * elem, in, b - a);
        }
    /* Member j reads the slices only in its own share, which no one writes before j has sent
     * its result: the shares may go to all at once. */
    free(acc);
}

void pg_coll_reduce(struct pangea_team *team, void *dest, const void *source, size_t count,
                    size_t elem, pg_combine_fn combine)
{
    PG_COLL_KIND(PG_COLL_REDUCE);
    PG_PROF_COLL(REDUCE);
    size_t bytes = count * elem;
    int n = team->size, me = team->my_pe;
    if (bytes == 0)
        return;
    if (n == 1) {
        memmove(dest, source, bytes);
        return;
    }
    if (bytes <= team->slot_size) {
        reduce_gathered(team, dest, source, count, elem, combine);
        return;
    }
    /* Across switches always split: unsplit, every member would fetch every source. */
    int split = (bytes > (size_t)pg_cfg.coll_reduce_split || team->nswitches) && count >= (size_t)n;
    size_t lo = split ? count * (size_t)me / (size_t)n : 0;
    size_t hi = split ? count * (size_t)(me + 1) / (size_t)n : count;
    size_t len = (hi - lo) * elem;
    char *mine = (char *)dest + lo * elem;
    if (split && team->nswitches) {
        char *result = malloc(len + 1);
        if (!result)
            pg_fatal("reduction", "out of memory for %zu bytes of partial results", len);
        reduce_scatter_switches(team, dest, source, count, lo, hi, elem, combine, result);
        memcpy(mine, result, len);
        free(result);
    } else {
        char *acc = malloc(2 * len + 1);
        if (!acc)
            pg_fatal("reduction", "out of memory for %zu bytes of partial results", 2 * len);
        pg_team_sync(team);
        combine_members(team, NULL, n, acc, (const char *)source + lo * elem, hi - lo, elem,
                        combine, acc + len);
        pg_team_sync(team);
        memcpy(mine, acc, len);
        free(acc);
    }
    if (split) {
        size_t offset[n + 1];
        for (int j = 0; j <= n; j++)
            offset[j] = count * (size_t)j / (size_t)n * elem;
        pg_coll_allgather(team, dest, offset, "reduction");
    }
}

/* Scans run in segments: maximal runs of consecutive members under one leaf switch (without
 * the switch level, the whole team). A member combines its segment's sources up to its own,
 * fetched within the switch; the prefix of the segments before arrives at the segment's first
 * member from the last member of the segment before (one message across the top of the tree
 * per change of switch in team order: the least, as each segment depends on the ones before),
 * and the first member hands it on within the segment. */
void pg_coll_scan(struct pangea_team *team, void *dest, const void *source, size_t count,
                  size_t elem, pg_combine_fn combine, int inclusive)
{
    PG_COLL_KIND(PG_COLL_SCAN);
    PG_PROF_COLL(SCAN);
    size_t bytes = count * elem;
    if (bytes == 0)
        return;
    int n = team->size, me = team->my_pe, first = 0, end = n - 1;
    if (team->nswitches) {
        int leaf = switch_of_member(team, me);
        for (first = me; first > 0 && switch_of_member(team, first - 1) == leaf; first--)
            ;
        for (end = me; end < n - 1 && switch_of_member(team, end + 1) == leaf; end++)
            ;
    }
    int last = inclusive ? me : me - 1, have = last >= first;
    int segment[end - first + 1];
    for (int j = first; j <= end; j++)
        segment[j - first] = j;
    char *acc = malloc(2 * bytes);
    if (!acc)
        pg_fatal("scan", "out of memory for %zu bytes of partial results", 2 * bytes);
    pg_team_sync(team);
    if (have)
        combine_members(team, segment, last - first + 1, acc, source, count, elem, combine,
                        acc + bytes);
    pg_team_sync(team); /* every source has been read: dest may be written */
    if (first > 0) {    /* the segments before, in dest */
        if (me == first) {
            pg_coll_wait(team, pg_team_pe(team, first - 1), 1);
            for (int j = first + 1; j <= end; j++)
                pg_coll_put_notify(team, dest, dest, bytes, pg_team_pe(team, j));
        } else {
            pg_coll_wait(team, pg_team_pe(team, first), 1);
        }
        if (have)
            combine(acc, dest, count);
        else
            memcpy(acc, dest, bytes);
        have = 1;
    }
    if (me == end && end < n - 1) { /* the prefix up to and with me, to the next segment */
        char *next = acc + bytes;
        if (!have)
            memcpy(next, source, bytes);
        else if (inclusive)
            memcpy(next, acc, bytes);
        else {
            memcpy(next, acc, bytes);
            combine(next, source, count);
        }
        pg_coll_put_notify(team, dest, next, bytes, pg_team_pe(team, end + 1));
    }
    if (!have)
        memset(acc, 0, bytes);
    memcpy(dest, acc, bytes);
    free(acc);
}
