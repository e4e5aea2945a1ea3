/* Teams: the description of a strided set of world PEs with its node layout, team creation
 * by agreement over the parent, and the team sync. */
#include "coll_internal.h"

#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

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

static int switch_of(const struct pangea_team *team, int index)
{
    return pg_topo_leaf_switch(node_of(team, index));
}

/* The switch level above the node leaders, when the team spans several leaf switches. 0, or -1
 * when out of memory. */
static int switch_layout(struct pangea_team *team)
{
    int nl = team->nleaders, mine = pg_topo_leaf_switch(pg_world.node);
    char *seen = calloc((size_t)pg_topo_switch_count(), 1);
    team->switches = malloc((size_t)nl * sizeof *team->switches);
    team->switch_local = malloc((size_t)nl * sizeof *team->switch_local);
    if (!seen || !team->switches || !team->switch_local) {
        free(seen);
        return -1;
    }
    for (int k = 0; k < nl; k++) {
        int leader = team->leaders[k], sw = switch_of(team, leader);
        if (!seen[sw]) {
            seen[sw] = 1;
            if (leader == team->my_pe)
                team->my_switch = team->nswitches;
            team->switches[team->nswitches++] = leader;
        }
        if (sw == mine) {
            if (leader == team->my_pe)
                team->my_switch_local = team->nswitch_local;
            team->switch_local[team->nswitch_local++] = leader;
        }
    }
    free(seen);
    if (team->nswitches < 2 || !pg_cfg.coll_switches) {
        free(team->switches);
        free(team->switch_local);
        team->switches = team->switch_local = NULL;
        team->nswitches = team->nswitch_local = 0;
        team->my_switch = team->my_switch_local = -1;
    }
    return 0;
}

/* The NUMA level of my node's members (coll.h). 0, or -1 when out of memory. */
static int numa_layout(struct pangea_team *team)
{
    int n = team->nlocal;
    team->numa_local = malloc((size_t)n * sizeof *team->numa_local);
    team->numa_heads = malloc((size_t)n * sizeof *team->numa_heads);
    int *domain = malloc((size_t)n * sizeof *domain);
    if (!team->numa_local || !team->numa_heads || !domain) {
        free(domain);
        return -1;
    }
    int mine = pg_topo_numa_of(pg_world.me);
    for (int l = 0; l < n; l++) {
        domain[l] = pg_topo_numa_of(pg_team_pe(team, team->local[l]));
        int first = 1;
        for (int k = 0; k < l && first; k++)
            first = domain[k] != domain[l];
        if (first)
            team->numa_heads[team->nnuma_heads++] = team->local[l];
        if (domain[l] == mine)
            team->numa_local[team->nnuma_local++] = team->local[l];
    }
    free(domain);
    return 0;
}

int pg_team_init(struct pangea_team *team, int start, int stride, int size)
{
    *team = (struct pangea_team){.start = start,
                                 .stride = stride,
                                 .size = size,
                                 .my_local = -1,
                                 .my_leader = -1,
                                 .my_switch = -1,
                                 .my_switch_local = -1};
    team->my_pe = pg_team_index(team, pg_world.me);
    pg_team_use_channel(team, PG_CHANNEL_WORLD);
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
        if (node == pg_world.node) {
            if (i == team->my_pe)
                team->my_local = team->nlocal;
            team->local[team->nlocal++] = i;
        }
        if (!seen[node]) {
            seen[node] = 1;
            if (i == team->my_pe)
                team->my_leader = team->nleaders;
            team->leaders[team->nleaders++] = i;
        }
    }
    free(seen);
    /* Kept at their used length: a world-wide team's leaders are one per node, not per PE. */
    int *local = realloc(team->local, (size_t)team->nlocal * sizeof *local);
    int *leaders = realloc(team->leaders, (size_t)team->nleaders * sizeof *leaders);
    team->local = local ? local : team->local;
    team->leaders = leaders ? leaders : team->leaders;
    if (switch_layout(team) != 0 || numa_layout(team) != 0) {
        pg_team_fini(team);
        return -1;
    }
    return 0;
}

void pg_team_fini(struct pangea_team *team)
{
    pg_coll_mcast_close(team);
    free(team->local);
    free(team->leaders);
    free(team->switches);
    free(team->switch_local);
    free(team->numa_local);
    free(team->numa_heads);
    free(team->exchange_nodes);
    team->local = team->leaders = team->switches = team->switch_local = NULL;
    team->numa_local = team->numa_heads = team->exchange_nodes = NULL;
    team->nlocal = team->nleaders = team->nswitches = team->nswitch_local = 0;
    team->nnuma_local = team->nnuma_heads = team->nexchange_nodes = 0;
}

static void and_u64(void *acc, const void *in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        ((uint64_t *)acc)[i] &= ((const uint64_t *)in)[i];
}

static void max_u64(void *acc, const void *in, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (((const uint64_t *)in)[i] > ((uint64_t *)acc)[i])
            ((uint64_t *)acc)[i] = ((const uint64_t *)in)[i];
}

/* The element-wise combination of every parent member's two values. */
static void agree(struct pangea_team *parent, uint64_t value[2], pg_combine_fn combine)
{
    uint64_t *word = parent->channel->word;
    __atomic_store_n(&word[0], value[0], __ATOMIC_RELAXED);
    __atomic_store_n(&word[1], value[1], __ATOMIC_RELAXED);
    pg_coll_reduce(parent, word, word, 2, sizeof *word, combine);
    value[0] = __atomic_load_n(&word[0], __ATOMIC_RELAXED);
    value[1] = __atomic_load_n(&word[1], __ATOMIC_RELAXED);
}

/* The split arena ranges of this PE's live split teams. A new team goes above all of them on
 * every parent member, so its flags are zero on all of them. Splits of different parents may
 * run in different threads, hence the lock. */
struct arena_range {
    size_t at, len;
};
static struct arena_range held[PG_MAX_TEAMS];
static int nheld;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

/* Where the highest held range ends; UINT64_MAX when no more teams may be held. */
static uint64_t high_water(void)
{
    pthread_mutex_lock(&held_lock);
    uint64_t end = nheld == PG_MAX_TEAMS ? UINT64_MAX : 0;
    for (int i = 0; i < nheld && end != UINT64_MAX; i++)
        if (held[i].at + held[i].len > end)
            end = held[i].at + held[i].len;
    pthread_mutex_unlock(&held_lock);
    return end;
}

/* Takes [at, at+len) unless a split in another thread took part of it since. */
static int hold(size_t at, size_t len)
{
    pthread_mutex_lock(&held_lock);
    int free_range = nheld < PG_MAX_TEAMS;
    for (int i = 0; i < nheld && free_range; i++)
        free_range = held[i].at + held[i].len <= at || at + len <= held[i].at;
    if (free_range)
        held[nheld++] = (struct arena_range){at, len};
    pthread_mutex_unlock(&held_lock);
    return free_range;
}

void pg_coll_arena_reset(void)
{
    pthread_mutex_lock(&held_lock);
    nheld = 0;
    pthread_mutex_unlock(&held_lock);
}

static void release_range(size_t at)
{
    pthread_mutex_lock(&held_lock);
    for (int i = 0; i < nheld; i++)
        if (held[i].at == at) {
            held[i] = held[--nheld];
            break;
        }
    pthread_mutex_unlock(&held_lock);
}

int pg_team_split(struct pangea_team *parent, int start, int stride, int size,
                  struct pangea_team **out)
{
    *out = NULL;
    struct pangea_team *team = NULL;
    int p = parent->my_pe - start;
    int member =
        size > 0 && (stride ? p % stride == 0 && p / stride >= 0 && p / stride < size : p == 0);
    if (member) {
        team = malloc(sizeof *team);
        if (team &&
            pg_team_init(team, pg_team_pe(parent, start), stride * parent->stride, size) != 0) {
            free(team);
            team = NULL;
        }
    }
    /* The new teams go at the highest end of any parent member's held ranges, with room for
     * the largest of them (disjoint teams may share a range: their pairs of PEs differ). A
     * split of another parent running in another thread may take part of it first on some
     * member; then all try again, above it. */
    int placed = 0;
    uint64_t at = 0;
    for (;;) {
        uint64_t want[2] = {0, 0};
        if (member) {
            want[0] = team ? high_water() : UINT64_MAX;
            want[1] = team ? pg_coll_split_bytes(size) : UINT64_MAX;
        } else if (size < 0) {
            want[0] = want[1] = UINT64_MAX; /* as a member that cannot be placed: all fail */
        }
        agree(parent, want, max_u64);
        at = want[0];
        uint64_t len = want[1], room = pg_coll_arena_size();
        if (len > room || at > room - len)
            break; /* PG_MAX_TEAMS live teams or no room on some member, or out of memory */
        int mine = team && hold(at, len);
        uint64_t everywhere[2] = {!team || mine, 1};
        agree(parent, everywhere, and_u64);
        if (everywhere[0]) {
            placed = 1;
            break;
        }
        if (mine)
            release_range(at);
    }
    if (!placed) {
        if (team)
            pg_team_fini(team);
        free(team);
        return -1;
    }
    if (team) {
        team->arena_at = at;
        pg_coll_split_attach(team, at);
    }
    *out = team;
    return 0;
}

void pg_team_destroy(struct pangea_team *team)
{
    /* Every signal of the team has been taken by the collective it belongs to and nothing
     * more lands in my range, so clearing it leaves it ready for the next team. */
    pg_coll_split_clear(team);
    release_range(team->arena_at);
    pg_team_fini(team);
    free(team);
}

/* Members group[1..n) check in with group[0], which returns when all have; the others return
 * when group[0] releases them (release). Signals in `unit`s (see pg_coll_depart). */
static void check_in(const struct pangea_team *team, const int *group, int n, uint64_t unit)
{
    if (team->my_pe != group[0]) {
        pg_coll_notify_units(team, pg_team_pe(team, group[0]), unit);
        return;
    }
    for (int k = 1; k < n; k++)
        pg_coll_wait_units(team, pg_team_pe(team, group[k]), 1, unit);
}

static void release(const struct pangea_team *team, const int *group, int n, uint64_t unit)
{
    if (team->my_pe != group[0]) {
        pg_coll_wait_units(team, pg_team_pe(team, group[0]), 1, unit);
        return;
    }
    for (int k = 1; k < n; k++)
        pg_coll_notify_units(team, pg_team_pe(team, group[k]), unit);
}

static void dissemination(const struct pangea_team *team, const int *group, int n, int rank,
                          uint64_t unit)
{
    for (int d = 1; d < n; d <<= 1) {
        pg_coll_notify_units(team, pg_team_pe(team, group[(rank + d) % n]), unit);
        pg_coll_wait_units(team, pg_team_pe(team, group[(rank - d + n) % n]), 1, unit);
    }
}

/* By the data servers (dataserver.h, "Barriers by the servers"): the member that completes its
 * node tells every node's server, and each member waits only for its own word, which its
 * node's server counts up once every node is in. */
static void sync_by_servers(const struct pangea_team *team)
{
    struct pg_ds_forward_words *words = &team->channel->forward;
    struct pg_ds_forward_words *first = pg_mem_peer_ptr(words, pg_team_pe(team, team->local[0]));
    uint64_t number = __atomic_load_n(&words->entered, __ATOMIC_RELAXED);
    __atomic_store_n(&words->entered, number + 1, __ATOMIC_RELAXED);
    /* Nobody of the node comes again before its servers hear of it: the count may restart. */
    if (__atomic_add_fetch(&first->here, 1, __ATOMIC_ACQ_REL) == (uint64_t)team->nlocal) {
        __atomic_store_n(&first->here, 0, __ATOMIC_RELAXED);
        struct pg_ds_forward f = pg_coll_server_team(team, 0, number, 0);
        for (int k = 0; k < team->nleaders; k++)
            pg_pipe_arrived(pg_team_pe(team, team->leaders[k]), &f);
    }
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, &words->synced),
                      pg_api_call ? pg_api_call : "barrier");
    while (__atomic_load_n(&words->synced, __ATOMIC_ACQUIRE) <= number)
        pg_wait_step(&w);
}

void pg_team_sync_units(const struct pangea_team *team, uint64_t unit)
{
    if (team->size <= 1)
        return;
    PG_COLL_KIND(PG_COLL_SYNC);
    if (unit == 1 && pg_cfg.coll_server_sync && pg_coll_by_servers(team)) {
        sync_by_servers(team);
        return;
    }
    /* The node's members check in with their leader; the leaders run a dissemination barrier
     * among themselves — or, across switches, check in with their switch's leader, which run
     * it among themselves and release their switches — and each leader releases its node. */
    check_in(team, team->local, team->nlocal, unit);
    if (team->my_pe == team->local[0]) {
        if (team->nswitches) {
            check_in(team, team->switch_local, team->nswitch_local, unit);
            if (team->my_switch >= 0)
                dissemination(team, team->switches, team->nswitches, team->my_switch, unit);
            release(team, team->switch_local, team->nswitch_local, unit);
        } else {
            dissemination(team, team->leaders, team->nleaders, team->my_leader, unit);
        }
    }
    release(team, team->local, team->nlocal, unit);
}

void pg_team_sync(struct pangea_team *team)
{
    PG_PROF_COLL(SYNC);
    pg_team_sync_units(team, 1);
}

void pg_coll_depart(void)
{
    pg_watch_depart();
    pg_team_sync_units(pg_coll_world(), PG_COLL_DEPART_UNIT);
}
