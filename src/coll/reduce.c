/* Reductions and scans.
 *
 * Small reductions (up to a landing slot): every member sends its source to its node's
 * leader, the leaders send their node's partial result to the first leader (across switches:
 * to their switch's leader, which send theirs to the first), which combines them and sends the
 * result back down the same way — the steps of a barrier.
 *
 * Larger ones, and scans: members sync (every source is ready), read each other's sources — in
 * place on the node, fetched from off the node — and combine them in team order, sync again
 * (every source has been read, so dest may be written even when it is the source), and write
 * dest. Large reductions split the elements: each member reduces its share, then the shares
 * go to all as fcollect's blocks do (reduce-scatter + allgather: through the node leaders, and
 * the switches' leaders across switches). */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdlib.h>
#include <string.h>

/* acc = the combination of members first..last's source[lo..lo+count), in team order. */
static void combine_range(struct pangea_team *team, int first, int last, char *acc,
                          const char *source, size_t count, size_t elem, pg_combine_fn combine,
                          char *tmp)
{
    size_t len = count * elem;
    for (int j = first; j <= last; j++) {
        const void *in = pg_coll_fetch(source, len, pg_team_pe(team, j), tmp);
        if (j == first)
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
    int split = bytes > (size_t)pg_cfg.coll_reduce_split && count >= (size_t)n;
    size_t lo = split ? count * (size_t)me / (size_t)n : 0;
    size_t hi = split ? count * (size_t)(me + 1) / (size_t)n : count;
    size_t len = (hi - lo) * elem;
    char *acc = malloc(2 * len + 1);
    if (!acc)
        pg_fatal("reduction", "out of memory for %zu bytes of partial results", 2 * len);
    pg_team_sync(team);
    combine_range(team, 0, n - 1, acc, (const char *)source + lo * elem, hi - lo, elem, combine,
                  acc + len);
    pg_team_sync(team);
    char *mine = (char *)dest + lo * elem;
    memcpy(mine, acc, len);
    if (split) {
        size_t offset[n + 1];
        for (int j = 0; j <= n; j++)
            offset[j] = count * (size_t)j / (size_t)n * elem;
        pg_coll_allgather(team, dest, offset, "reduction");
    }
    free(acc);
}

void pg_coll_scan(struct pangea_team *team, void *dest, const void *source, size_t count,
                  size_t elem, pg_combine_fn combine, int inclusive)
{
    PG_COLL_KIND(PG_COLL_SCAN);
    PG_PROF_COLL(SCAN);
    size_t bytes = count * elem;
    if (bytes == 0)
        return;
    char *acc = malloc(2 * bytes);
    if (!acc)
        pg_fatal("scan", "out of memory for %zu bytes of partial results", 2 * bytes);
    int last = inclusive ? team->my_pe : team->my_pe - 1;
    pg_team_sync(team);
    if (last < 0)
        memset(acc, 0, bytes);
    else
        combine_range(team, 0, last, acc, source, count, elem, combine, acc + bytes);
    pg_team_sync(team);
    memcpy(dest, acc, bytes);
    free(acc);
}
