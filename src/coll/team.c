/* Teams: the description of a strided set of world PEs with its node layout, team creation
 * by agreement over the parent, and the team sync. */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdlib.h>

static int live_teams; /* teams this PE created and has not destroyed */

int pg_team_index(const struct pangea_team *team, int world_pe)
{
    int d = world_pe - team->start;
    if (team->stride == 0)
        return d == 0 && team->size > 0 ? 0 : -1;
    if (d % team->stride)
        return -1;
    int i = d / team->stride;
    return i >= 0 && i < team->size ? i : -1;
}

static int node_of(const struct pangea_team *team, int index)
{
    return pg_world.node_of[pg_team_pe(team, index)];
}

int pg_team_init(struct pangea_team *team, int start, int stride, int size)
{
    *team = (struct pangea_team){.start = start, .stride = stride, .size = size};
    team->my_pe = pg_team_index(team, pg_world.me);
    if (team->my_pe < 0)
        return 0;
    team->local = malloc((size_t)size * sizeof *team->local);
    team->leaders = malloc((size_t)size * sizeof *team->leaders);
    char *seen = calloc((size_t)pg_world.nnodes, 1);
    if (!team->local || !team->leaders || !seen) {
        free(seen);
        pg_team_fini(team);
        return -1;
    }
    for (int i = 0; i < size; i++) {
        int node = node_of(team, i);
        if (node == pg_world.node)
            team->local[team->nlocal++] = i;
        if (!seen[node]) {
            seen[node] = 1;
            team->leaders[team->nleaders++] = i;
        }
    }
    free(seen);
    return 0;
}

void pg_team_fini(struct pangea_team *team)
{
    free(team->local);
    free(team->leaders);
    team->local = team->leaders = NULL;
    team->nlocal = team->nleaders = 0;
}

static void and_u64(void *acc, const void *in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        ((uint64_t *)acc)[i] &= ((const uint64_t *)in)[i];
}

int pg_team_split(struct pangea_team *parent, int start, int stride, int size,
                  struct pangea_team **out)
{
    struct pangea_team *team = NULL;
    uint64_t ok = 1;
    int p = parent->my_pe - start;
    int member =
        size > 0 && (stride ? p % stride == 0 && p / stride >= 0 && p / stride < size : p == 0);
    if (member) {
        team = live_teams < PG_MAX_TEAMS ? malloc(sizeof *team) : NULL;
        if (!team ||
            pg_team_init(team, pg_team_pe(parent, start), stride * parent->stride, size) != 0) {
            free(team);
            team = NULL;
            ok = 0;
        }
    }
    /* Everyone in the parent learns whether every new member succeeded. */
    uint64_t *word = &pg_coll_state->word;
    __atomic_store_n(word, ok, __ATOMIC_RELAXED);
    pg_coll_reduce(parent, word, word, 1, sizeof *word, and_u64);
    uint64_t all_ok = *word;
    if (!all_ok) {
        if (team)
            pg_team_fini(team);
        free(team);
        *out = NULL;
        return -1;
    }
    live_teams += team != NULL;
    *out = team;
    return 0;
}

void pg_team_destroy(struct pangea_team *team)
{
    /* A team owns no symmetric state (the signal channels are per pair of PEs), so nothing
     * needs to be agreed or drained. */
    pg_team_fini(team);
    free(team);
    live_teams--;
}

void pg_team_sync(struct pangea_team *team)
{
    if (team->size <= 1)
        return;
    /* Two levels: the node's members check in with their leader, the leaders run a
     * dissemination barrier among themselves, and each leader releases its node. */
    int leader = pg_team_pe(team, team->local[0]);
    if (team->my_pe != team->local[0]) {
        pg_coll_notify(leader);
        pg_coll_wait(leader, 1);
        return;
    }
    for (int l = 1; l < team->nlocal; l++)
        pg_coll_wait(pg_team_pe(team, team->local[l]), 1);
    int nl = team->nleaders, rank = 0;
    while (team->leaders[rank] != team->my_pe)
        rank++;
    for (int d = 1; d < nl; d <<= 1) {
        pg_coll_notify(pg_team_pe(team, team->leaders[(rank + d) % nl]));
        pg_coll_wait(pg_team_pe(team, team->leaders[(rank - d + nl) % nl]), 1);
    }
    for (int l = 1; l < team->nlocal; l++)
        pg_coll_notify(pg_team_pe(team, team->local[l]));
}
