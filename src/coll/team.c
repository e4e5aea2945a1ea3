/* Teams: the description of a strided set of world PEs with its node layout, team creation
 * by agreement over the parent, and the team sync. */
#include "coll_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <pthread.h>
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

int pg_team_init(struct pangea_team *team, int start, int stride, int size)
{
    *team = (struct pangea_team){
        .start = start, .stride = stride, .size = size, .my_local = -1, .my_leader = -1};
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

/* The AND of every parent member's value. */
static uint64_t and_over(struct pangea_team *parent, uint64_t value)
{
    uint64_t *word = &pg_coll_channel(parent)->word;
    __atomic_store_n(word, value, __ATOMIC_RELAXED);
    pg_coll_reduce(parent, word, word, 1, sizeof *word, and_u64);
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

/* Bit k: channel set PG_CHANNEL_FIRST_SPLIT + k belongs to a live team of this PE. Splits of
 * different parents may run in different threads, hence the lock. */
static uint64_t channels_taken;
static pthread_mutex_t channels_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t free_channels(void)
{
    pthread_mutex_lock(&channels_lock);
    uint64_t free_bits = ~channels_taken;
    pthread_mutex_unlock(&channels_lock);
    return free_bits;
}

static int claim_channel(int k)
{
    pthread_mutex_lock(&channels_lock);
    int claimed = !(channels_taken >> k & 1);
    channels_taken |= (uint64_t)claimed << k;
    pthread_mutex_unlock(&channels_lock);
    return claimed;
}

static void release_channel(int k)
{
    pthread_mutex_lock(&channels_lock);
    channels_taken &= ~((uint64_t)1 << k);
    pthread_mutex_unlock(&channels_lock);
}

/* The first set bit of bits at or after position `from`, cyclically. */
static int first_bit_from(uint64_t bits, int from)
{
    uint64_t rotated = bits >> from | (from ? bits << (64 - from) : 0);
    return (__builtin_ctzll(rotated) + from) % 64;
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
    /* The new teams take a channel set that is free on every parent member (disjoint teams
     * may share one: their pairs of PEs differ). A split of another parent running in
     * another thread may claim the same set first on some member; then all try again. Splits
     * of different parents start looking at different sets, which makes that rare. */
    int k = -1;
    for (;;) {
        uint64_t common = and_over(parent, !member ? ~(uint64_t)0 : team ? free_channels() : 0);
        if (common == 0)
            break; /* PG_MAX_TEAMS live teams on some member, or out of memory */
        int candidate = first_bit_from(common, parent->channel * 17 % 64);
        int claimed = !member || claim_channel(candidate);
        if (and_over(parent, (uint64_t)claimed)) {
            k = candidate;
            break;
        }
        if (member && claimed)
            release_channel(candidate);
    }
    if (k < 0) {
        if (team)
            pg_team_fini(team);
        free(team);
        return -1;
    }
    if (team)
        team->channel = PG_CHANNEL_FIRST_SPLIT + k;
    *out = team;
    return 0;
}

void pg_team_destroy(struct pangea_team *team)
{
    /* Every signal of the team has been consumed by the collective that sent it, so the
     * channel set is ready for the next team as it is (its flags and counts only grow). */
    release_channel(team->channel - PG_CHANNEL_FIRST_SPLIT);
    pg_team_fini(team);
    free(team);
}

void pg_team_sync(struct pangea_team *team)
{
    if (team->size <= 1)
        return;
    /* Two levels: the node's members check in with their leader, the leaders run a
     * dissemination barrier among themselves, and each leader releases its node. */
    int leader = pg_team_pe(team, team->local[0]);
    if (team->my_pe != team->local[0]) {
        pg_coll_notify(team, leader);
        pg_coll_wait(team, leader, 1);
        return;
    }
    for (int l = 1; l < team->nlocal; l++)
        pg_coll_wait(team, pg_team_pe(team, team->local[l]), 1);
    int nl = team->nleaders, rank = team->my_leader;
    for (int d = 1; d < nl; d <<= 1) {
        pg_coll_notify(team, pg_team_pe(team, team->leaders[(rank + d) % nl]));
        pg_coll_wait(team, pg_team_pe(team, team->leaders[(rank - d + nl) % nl]), 1);
    }
    for (int l = 1; l < team->nlocal; l++)
        pg_coll_notify(team, pg_team_pe(team, team->local[l]));
}
