/* Teams (spec §9.4), team_ptr (§9.1), teams by topology level (shmemx.h), contexts (§9.5) and
 * sessions (§9.9). */
#include "shmem_internal.h"

#include "topo/topo.h"

#include <shmemx.h>

#include <pthread.h>
#include <stdlib.h>

/* ---- Live handles --------------------------------------------------------------------------- */

/* Teams and contexts are created and destroyed rarely, by any thread; SHMEM_DEBUG compares
 * every handle argument with these before following it. */
static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static shmem_team_t *live_teams;
static size_t nlive_teams, live_teams_room;

void pg_team_handle_add(shmem_team_t team)
{
    pthread_mutex_lock(&handles_lock);
    if (nlive_teams == live_teams_room) {
        size_t room = live_teams_room ? 2 * live_teams_room : 16;
        shmem_team_t *grown = realloc(live_teams, room * sizeof *grown);
        if (!grown)
            pg_fatal("shmem_team_split", "out of memory for the team handles");
        live_teams = grown;
        live_teams_room = room;
    }
    live_teams[nlive_teams++] = team;
    pthread_mutex_unlock(&handles_lock);
}

static void team_handle_remove(shmem_team_t team)
{
    pthread_mutex_lock(&handles_lock);
    for (size_t i = 0; i < nlive_teams; i++)
        if (live_teams[i] == team) {
            live_teams[i] = live_teams[--nlive_teams];
            break;
        }
    pthread_mutex_unlock(&handles_lock);
}

void pg_team_handles_clear(void)
{
    pthread_mutex_lock(&handles_lock);
    free(live_teams);
    live_teams = NULL;
    nlive_teams = live_teams_room = 0;
    pthread_mutex_unlock(&handles_lock);
}

int pg_team_handle_live(shmem_team_t team)
{
    pthread_mutex_lock(&handles_lock);
    int live = 0;
    for (size_t i = 0; i < nlive_teams && !live; i++)
        live = live_teams[i] == team;
    pthread_mutex_unlock(&handles_lock);
    return live;
}

/* ---- Teams ---------------------------------------------------------------------------------- */

int pshmem_team_my_pe(shmem_team_t team)
{
    PG_CHECKS(pg_check_team("shmem_team_my_pe", "team", team));
    return team == SHMEM_TEAM_INVALID ? -1 : team->my_pe;
}
PG_ALIAS(shmem_team_my_pe)

int pshmem_team_n_pes(shmem_team_t team)
{
    PG_CHECKS(pg_check_team("shmem_team_n_pes", "team", team));
    return team == SHMEM_TEAM_INVALID ? -1 : team->size;
}
PG_ALIAS(shmem_team_n_pes)

int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    const char *call = "shmem_team_get_config";
    PG_CHECKS(pg_check_init(call); pg_check_team(call, "team", team);
              if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS) pg_fatal(
                  call, "argument 'config_mask' = %#lx has bits other than SHMEM_TEAM_NUM_CONTEXTS",
                  config_mask));
    if (team == SHMEM_TEAM_INVALID || (config_mask && !config))
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->num_contexts;
    return 0;
}
PG_ALIAS(shmem_team_get_config)

int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    PG_CHECKS(pg_check_team("shmem_team_translate_pe", "src_team", src_team);
              pg_check_team("shmem_team_translate_pe", "dest_team", dest_team));
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID || src_pe < 0 ||
        src_pe >= src_team->size)
        return -1;
    return pg_team_index(dest_team, pg_team_pe(src_team, src_pe));
}
PG_ALIAS(shmem_team_translate_pe)

void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    PG_CHECKS(pg_check_team("shmem_team_ptr", "team", team));
    if (team == SHMEM_TEAM_INVALID || pe < 0 || pe >= team->size)
        return NULL;
    return pg_mem_peer_ptr(dest, pg_team_pe(team, pe));
}
PG_ALIAS(shmem_team_ptr)

/* A strided triplet of parent indices: 0, or -1 after saying why under SHMEM_DEBUG (the
 * arguments are the same on every parent PE, so all of them fail alike). */
static int check_triplet(const char *call, shmem_team_t parent, int start, int stride, int size)
{
    const char *why = NULL;
    long long last = start + (long long)(size - 1) * stride;
    if (size <= 0)
        why = "'size' must be positive";
    else if (stride == 0 && size != 1)
        why = "'stride' = 0 requires 'size' = 1";
    else if (start < 0 || start >= parent->size)
        why = "'start' is not a PE of the parent team";
    else if (last < 0 || last >= parent->size)
        why = "the last PE, start + (size-1)*stride, is outside the parent team";
    if (why && pg_checking())
        pg_fatal(call, "start %d, stride %d, size %d over a parent team of %d PEs: %s", start,
                 stride, size, parent->size, why);
    return why ? -1 : 0;
}

static void apply_config(shmem_team_t team, const shmem_team_config_t *config, long mask)
{
    if (team && config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        team->num_contexts = config->num_contexts;
}

static void check_parent(const char *call, shmem_team_t parent)
{
    pg_check_init(call);
    pg_check_team(call, "parent_team", parent);
    if (parent != SHMEM_TEAM_INVALID && parent->my_pe < 0)
        pg_fatal(call, "the calling PE is not a member of 'parent_team'");
}

int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team)
{
    const char *call = "shmem_team_split_strided";
    PG_SHMEM_CALL(call);
    PG_CHECKS(check_parent(call, parent_team);
              if (!new_team) pg_fatal(call, "argument 'new_team' is NULL"));
    *new_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID ||
        check_triplet(call, parent_team, start, stride, size) != 0)
        return -1;
    struct pangea_team *team;
    if (pg_team_split(parent_team, start, stride, size, &team) != 0)
        return -1;
    apply_config(team, config, config_mask);
    if (team)
        pg_team_handle_add(team);
    *new_team = team;
    return 0;
}
PG_ALIAS(shmem_team_split_strided)

int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *call = "shmem_team_split_2d";
    PG_SHMEM_CALL(call);
    PG_CHECKS(check_parent(call, parent_team); if (!xaxis_team || !yaxis_team)
                  pg_fatal(call, "argument 'xaxis_team' or 'yaxis_team' is NULL"));
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent_team == SHMEM_TEAM_INVALID)
        return -1;
    if (xrange <= 0) {
        PG_CHECKS(pg_fatal(call, "argument 'xrange' = %d must be positive", xrange));
        return -1;
    }
    int n = parent_team->size, me = parent_team->my_pe;
    if (xrange > n)
        xrange = n;
    /* Rows of xrange consecutive parent PEs (the last may be short); columns stride xrange. */
    int row = me / xrange, col = me % xrange;
    int xsize = n - row * xrange < xrange ? n - row * xrange : xrange;
    int ysize = (n - col + xrange - 1) / xrange;
    struct pangea_team *x, *y;
    if (pg_team_split(parent_team, row * xrange, 1, xsize, &x) != 0)
        return -1;
    if (pg_team_split(parent_team, col, xrange, ysize, &y) != 0) {
        pg_team_destroy(x);
        return -1;
    }
    apply_config(x, xaxis_config, xaxis_mask);
    apply_config(y, yaxis_config, yaxis_mask);
    if (x)
        pg_team_handle_add(x);
    if (y)
        pg_team_handle_add(y);
    *xaxis_team = x;
    *yaxis_team = y;
    return 0;
}
PG_ALIAS(shmem_team_split_2d)

/* ---- Teams by topology level (shmemx.h) ------------------------------------------------- */

_Static_assert((int)SHMEMX_LEVEL_CORE == (int)PG_LEVEL_CORE &&
                   (int)SHMEMX_LEVEL_NUMA == (int)PG_LEVEL_NUMA &&
                   (int)SHMEMX_LEVEL_PACKAGE == (int)PG_LEVEL_PACKAGE &&
                   (int)SHMEMX_LEVEL_NODE == (int)PG_LEVEL_NODE &&
                   (int)SHMEMX_LEVEL_SWITCH == (int)PG_LEVEL_SWITCH &&
                   (int)SHMEMX_LEVEL_SYSTEM == (int)PG_LEVEL_SYSTEM,
               "shmemx.h's levels are topo's");

int pshmemx_topo_level(int pe)
{
    const char *call = "shmemx_topo_level";
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call); pg_check_pe(call, "pe", pe));
    return pg_topo_level(pe);
}
PG_ALIAS(shmemx_topo_level)

/* The parent indices of the members that share level with me, as a triplet; size -1 when
 * they are not evenly spaced. */
static void my_group(shmem_team_t parent, int level, int *start, int *stride, int *size)
{
    *start = *stride = *size = 0;
    for (int i = 0; i < parent->size; i++) {
        int shared = pg_topo_level(pg_team_pe(parent, i));
        if (shared < 0 || shared > level)
            continue;
        if (*size == 0)
            *start = i;
        else if (*size == 1)
            *stride = i - *start;
        else if (i != *start + *size * *stride) {
            *size = -1;
            return;
        }
        ++*size;
    }
}

int pshmemx_team_split_level(shmem_team_t parent, int level, const shmem_team_config_t *config,
                             long config_mask, shmem_team_t *new_team)
{
    const char *call = "shmemx_team_split_level";
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call); if (!new_team) pg_fatal(call, "argument 'new_team' is NULL"));
    shmem_team_t made = SHMEM_TEAM_INVALID;
    int status = -1;
    if (parent == SHMEM_TEAM_INVALID || !pg_team_handle_live(parent)) {
        PG_CHECKS(pg_fatal(call,
                           "argument 'parent' = %p is not a team (SHMEM_TEAM_INVALID, never "
                           "created by a split, or destroyed)",
                           (const void *)parent));
    } else if (parent->my_pe < 0) {
        PG_CHECKS(pg_fatal(call, "the calling PE is not a member of 'parent'"));
    } else if (level < SHMEMX_LEVEL_CORE || level > SHMEMX_LEVEL_SYSTEM) {
        PG_CHECKS(pg_fatal(call,
                           "argument 'level' = %d is not a level: SHMEMX_LEVEL_CORE (%d) to "
                           "SHMEMX_LEVEL_SYSTEM (%d)",
                           level, SHMEMX_LEVEL_CORE, SHMEMX_LEVEL_SYSTEM));
    } else {
        int start, stride, size;
        my_group(parent, level, &start, &stride, &size);
        if (size < 0)
            pg_debug("%s: the PEs that share level %d with me are not evenly spaced in the "
                     "parent team; Pangea's teams are strided",
                     call, level);
        struct pangea_team *team;
        if (pg_team_split(parent, start, size == 1 ? 1 : stride, size, &team) == 0) {
            apply_config(team, config, config_mask);
            if (team)
                pg_team_handle_add(team);
            made = team;
            status = 0;
        }
    }
    if (new_team)
        *new_team = made;
    return status;
}
PG_ALIAS(shmemx_team_split_level)

/* ---- Contexts ------------------------------------------------------------------------------- */

/* A context created by the program: the engine's context, linked into the list that team
 * destruction walks. Threads create and destroy contexts concurrently, hence the lock over
 * the list and the teams' context counts. */
struct shmem_context {
    struct pangea_ctx engine; /* first: shmem_ctx_t points here */
    struct shmem_context *next;
};
static struct shmem_context *contexts;
static pthread_mutex_t contexts_lock = PTHREAD_MUTEX_INITIALIZER;

/* Takes c out of the list (lock held). */
static void unlink_context(struct shmem_context *c)
{
    struct shmem_context **link = &contexts;
    while (*link != c)
        link = &(*link)->next;
    *link = c->next;
    c->engine.team->live_contexts--;
}

static void free_context(struct shmem_context *c)
{
    pg_ctx_fini(&c->engine); /* completes what is outstanding on it */
    free(c);
}

void pshmem_team_destroy(shmem_team_t team)
{
    PG_CHECKS(pg_check_team("shmem_team_destroy", "team", team));
    if (team == SHMEM_TEAM_INVALID)
        return;
    if (team->predefined)
        pg_fatal("shmem_team_destroy", "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be "
                                       "destroyed");
    /* The team's contexts go with it (the program must have destroyed its private ones). */
    struct shmem_context *mine = NULL;
    pthread_mutex_lock(&contexts_lock);
    for (struct shmem_context *c = contexts, *next; c; c = next) {
        next = c->next;
        if (c->engine.team == team) {
            unlink_context(c);
            c->next = mine;
            mine = c;
        }
    }
    pthread_mutex_unlock(&contexts_lock);
    for (struct shmem_context *next; mine; mine = next) {
        next = mine->next;
        free_context(mine);
    }
    team_handle_remove(team);
    pg_team_destroy(team);
}
PG_ALIAS(shmem_team_destroy)

#define CTX_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    const char *call = "shmem_team_create_ctx";
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call); pg_check_team(call, "team", team);
              if (!ctx) pg_fatal(call, "argument 'ctx' is NULL"); if (options & ~CTX_OPTIONS)
                  pg_fatal(call, "argument 'options' = %#lx has bits other than SHMEM_CTX_ options",
                           options));
    *ctx = SHMEM_CTX_INVALID;
    if (team == SHMEM_TEAM_INVALID || (options & ~CTX_OPTIONS))
        return -1;
    struct shmem_context *c = malloc(sizeof *c);
    if (!c)
        return -1;
    /* A created team allows as many live contexts as its SHMEM_TEAM_NUM_CONTEXTS asked for
     * (none by default, spec §9.4); the predefined teams have no limit. */
    pthread_mutex_lock(&contexts_lock);
    int allowed = team->predefined || team->live_contexts < team->num_contexts;
    if (allowed) {
        pg_ctx_init(&c->engine, team, options, pg_shmem_counting(options));
        c->next = contexts;
        contexts = c;
        team->live_contexts++;
    }
    pthread_mutex_unlock(&contexts_lock);
    if (!allowed) {
        pg_debug("%s: the team's %d context(s) of SHMEM_TEAM_NUM_CONTEXTS are all in use", call,
                 team->num_contexts);
        free(c);
        return -1;
    }
    *ctx = &c->engine;
    return 0;
}
PG_ALIAS(shmem_team_create_ctx)

int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return pshmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}
PG_ALIAS(shmem_ctx_create)

int pg_ctx_handle_live(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_DEFAULT)
        return 1;
    pthread_mutex_lock(&contexts_lock);
    int live = 0;
    for (const struct shmem_context *c = contexts; c && !live; c = c->next)
        live = &c->engine == ctx;
    pthread_mutex_unlock(&contexts_lock);
    return live;
}

void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    PG_CHECKS(pg_check_ctx("shmem_ctx_destroy", ctx));
    if (ctx == SHMEM_CTX_DEFAULT)
        pg_fatal("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    struct shmem_context *c = (struct shmem_context *)ctx;
    pthread_mutex_lock(&contexts_lock);
    unlink_context(c);
    pthread_mutex_unlock(&contexts_lock);
    free_context(c);
}
PG_ALIAS(shmem_ctx_destroy)

int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    PG_CHECKS(if (ctx != SHMEM_CTX_INVALID) pg_check_ctx("shmem_ctx_get_team", ctx));
    if (!team)
        return -1;
    *team = ctx == SHMEM_CTX_INVALID ? SHMEM_TEAM_INVALID : ctx->team;
    return ctx == SHMEM_CTX_INVALID ? -1 : 0;
}
PG_ALIAS(shmem_ctx_get_team)

/* Sessions are a batching hint (spec §9.9): completion and ordering do not change, and the
 * engine already sends every operation at once, so only the arguments are checked. */
void pshmem_ctx_session_start(shmem_ctx_t ctx, long options,
                              const shmem_ctx_session_config_t *config, long config_mask)
{
    const char *call = "shmem_ctx_session_start";
    PG_CHECKS(
        pg_check_init(call); pg_check_ctx(call, ctx); if (options & ~SHMEM_CTX_SESSION_BATCH)
            pg_fatal(call, "argument 'options' = %#lx has bits other than SHMEM_CTX_SESSION_BATCH",
                     options);
        if (config_mask & ~SHMEM_CTX_SESSION_TOTAL_OPS) pg_fatal(
            call, "argument 'config_mask' = %#lx has bits other than SHMEM_CTX_SESSION_TOTAL_OPS",
            config_mask);
        if (config_mask && !config)
            pg_fatal(call, "argument 'config' is NULL with a non-zero 'config_mask'"));
    (void)ctx;
}
PG_ALIAS(shmem_ctx_session_start)

void pshmem_ctx_session_stop(shmem_ctx_t ctx)
{
    PG_CHECKS(pg_check_ctx("shmem_ctx_session_stop", ctx));
    (void)ctx;
}
PG_ALIAS(shmem_ctx_session_stop)
