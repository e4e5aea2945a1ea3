/* SHMEM_THREAD_MULTIPLE: NTHREADS threads per PE work at the same time, each on a team of its
 * own (a duplicate of WORLD, WORLD reversed, a duplicate of SHARED, and a reversal of the
 * reversed team) through a private context of that team. Every round each thread
 *   - puts a block (nbi) to its team's right neighbour, quiets its context, syncs its team and
 *     checks the block it received from the left, guard bytes included;
 *   - gets (blocking and nbi) the right neighbour's fixed block and checks every byte;
 *   - adds to a counter on world PE 0 through the default context (fetching and not, with
 *     shmem_quiet) and to its team's counter on team PE 0 through its own context;
 *   - runs broadcast, fcollect, a sum reduction and alltoall on its team, small and large
 *     in alternate rounds, checking every element.
 * The fetch_add values each thread sees must increase, and the counters must end at the exact
 * totals. At the end each thread splits its own team (splits of different parents at once),
 * reduces over the new team and destroys it. */
#include "check.h"

#include <pthread.h>

#define NTHREADS 4
#define BLOCK 1000
#define GUARD 24
#define SMALL 16   /* elements of the small collectives: a gathered reduction */
#define LARGE 1536 /* large ones: split reduction, several alltoall chunks */

static int me, npes;
static long *global_counter; /* symmetric, on world PE 0 */

struct worker {
    int id;
    shmem_team_t team;
    shmem_ctx_t ctx;
    int my, n, left, right; /* team-relative */
    /* symmetric buffers of this thread */
    unsigned char *rma; /* GUARD + BLOCK + GUARD: the left neighbour's puts */
    unsigned char *src; /* BLOCK: fixed pattern that the left neighbour gets */
    long *counter;      /* on team PE 0 */
    long *coll_src;     /* LARGE * npes */
    long *coll_dst;     /* LARGE * npes */
    long failures;
    long rounds;
    long amo_rounds;
};

static int world_of(struct worker *w, int team_pe)
{
    return shmem_team_translate_pe(w->team, team_pe, SHMEM_TEAM_WORLD);
}

static TEST_PRINTF(2, 3) void fail(struct worker *w, const char *fmt, ...)
{
    if (w->failures++ >= 10)
        return;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "PE %d thread %d: %s\n", me, w->id, msg);
}

static unsigned salt_of(struct worker *w, long round)
{
    return (unsigned)(w->id * 1000 + round);
}

static void rma_round(struct worker *w, long round)
{
    unsigned char block[BLOCK];
    test_fill_bytes(block, BLOCK, me, salt_of(w, round));
    shmem_ctx_putmem_nbi(w->ctx, w->rma + GUARD, block, BLOCK, w->right);
    shmem_ctx_quiet(w->ctx);
    shmem_team_sync(w->team);
    size_t bad = test_bad_byte(w->rma + GUARD, BLOCK, world_of(w, w->left), salt_of(w, round));
    if (bad != SIZE_MAX)
        fail(w, "round %ld: byte %zu of the put from the left is wrong", round, bad);
    bad = test_bad_guard(w->rma, 0, GUARD);
    if (bad == SIZE_MAX)
        bad = test_bad_guard(w->rma, GUARD + BLOCK, 2 * GUARD + BLOCK);
    if (bad != SIZE_MAX)
        fail(w, "round %ld: guard byte %zu changed", round, bad);

    unsigned char got[BLOCK + 1];
    got[BLOCK] = 0x5a;
    shmem_ctx_getmem(w->ctx, got, w->src, BLOCK, w->right);
    bad = test_bad_byte(got, BLOCK, world_of(w, w->right), (unsigned)w->id);
    if (bad != SIZE_MAX || got[BLOCK] != 0x5a)
        fail(w, "round %ld: get: byte %zu wrong (or the byte after it changed)", round, bad);
    memset(got, 0, BLOCK);
    shmem_ctx_getmem_nbi(w->ctx, got, w->src, BLOCK, w->right);
    shmem_ctx_quiet(w->ctx);
    bad = test_bad_byte(got, BLOCK, world_of(w, w->right), (unsigned)w->id);
    if (bad != SIZE_MAX)
        fail(w, "round %ld: get_nbi: byte %zu wrong", round, bad);
}

#define AMO_PER_ROUND 25

static void amo_round(struct worker *w, long *last_fetched)
{
    for (int k = 0; k < AMO_PER_ROUND; k++) {
        if (k % 2) {
            shmem_long_atomic_add(global_counter, 1, 0);
        } else {
            long old = shmem_long_atomic_fetch_add(global_counter, 1, 0);
            if (old <= *last_fetched)
                fail(w, "fetch_add returned %ld after %ld", old, *last_fetched);
            *last_fetched = old;
        }
        shmem_ctx_long_atomic_add(w->ctx, w->counter, 1, 0);
    }
    shmem_quiet();
    shmem_ctx_quiet(w->ctx);
    w->amo_rounds++;
}

static long elem(int world_pe, size_t i, unsigned salt)
{
    return TEST_VAL(long, world_pe, i, salt);
}

static void coll_round(struct worker *w, long round)
{
    size_t count = round % 2 ? LARGE : SMALL;
    unsigned salt = salt_of(w, round);
    long *src = w->coll_src, *dst = w->coll_dst;
    int root = (int)(round % w->n);

    for (size_t i = 0; i < count; i++)
        src[i] = elem(me, i, salt);
    shmem_long_broadcast(w->team, dst, src, count, root);
    for (size_t i = 0; i < count; i++)
        if (dst[i] != elem(world_of(w, root), i, salt)) {
            fail(w, "round %ld: broadcast element %zu = %ld", round, i, dst[i]);
            break;
        }
    shmem_team_sync(w->team); /* checked before the next collective writes dst */

    shmem_long_fcollect(w->team, dst, src, count);
    for (int j = 0; j < w->n; j++)
        for (size_t i = 0; i < count; i++)
            if (dst[(size_t)j * count + i] != elem(world_of(w, j), i, salt)) {
                fail(w, "round %ld: fcollect block %d element %zu", round, j, i);
                j = w->n;
                break;
            }
    shmem_team_sync(w->team);

    shmem_long_sum_reduce(w->team, dst, src, count);
    for (size_t i = 0; i < count; i++) {
        long want = 0;
        for (int j = 0; j < w->n; j++)
            want += elem(world_of(w, j), i, salt);
        if (dst[i] != want) {
            fail(w, "round %ld: sum element %zu = %ld, want %ld", round, i, dst[i], want);
            break;
        }
    }
    shmem_team_sync(w->team);

    for (size_t i = 0; i < count * (size_t)w->n; i++)
        src[i] = elem(me, i, salt);
    shmem_long_alltoall(w->team, dst, src, count);
    for (int j = 0; j < w->n; j++)
        for (size_t i = 0; i < count; i++)
            if (dst[(size_t)j * count + i] !=
                elem(world_of(w, j), (size_t)w->my * count + i, salt)) {
                fail(w, "round %ld: alltoall block %d element %zu", round, j, i);
                j = w->n;
                break;
            }
    shmem_team_sync(w->team);
}

/* A split of the thread's own team, while the other threads split theirs. */
static void split_own_team(struct worker *w)
{
    shmem_team_t dup;
    if (shmem_team_split_strided(w->team, 0, 1, w->n, NULL, 0, &dup) != 0) {
        fail(w, "split of its team failed");
        return;
    }
    long *src = w->coll_src, *dst = w->coll_dst;
    for (size_t i = 0; i < SMALL; i++)
        src[i] = (long)me + (long)i;
    shmem_long_max_reduce(dup, dst, src, SMALL);
    long top = 0;
    for (int j = 0; j < w->n; j++)
        top = world_of(w, j) > top ? world_of(w, j) : top;
    for (size_t i = 0; i < SMALL; i++)
        if (dst[i] != top + (long)i) {
            fail(w, "max over the split team: element %zu = %ld", i, dst[i]);
            break;
        }
    shmem_team_destroy(dup);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    long last_fetched = -1;
    for (long round = 0; round < w->rounds; round++) {
        rma_round(w, round);
        amo_round(w, &last_fetched);
        coll_round(w, round);
    }
    split_own_team(w);
    return NULL;
}

static void make_team(int t, shmem_team_t teams[])
{
    shmem_team_config_t config = {1};
    long mask = SHMEM_TEAM_NUM_CONTEXTS;
    int rc = -1;
    int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    switch (t) {
    case 0:
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &config, mask, &teams[t]);
        break;
    case 1:
        rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &config, mask,
                                      &teams[t]);
        break;
    case 2:
        rc = shmem_team_split_strided(SHMEM_TEAM_SHARED, 0, 1, shared_n, &config, mask, &teams[t]);
        break;
    default:
        rc = shmem_team_split_strided(teams[1], npes - 1, -1, npes, &config, mask, &teams[t]);
    }
    CHECK(rc == 0 && teams[t] != SHMEM_TEAM_INVALID, "team %d: split failed (%d)", t, rc);
}

int main(void)
{
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread failed");
    CHECK(provided == SHMEM_THREAD_MULTIPLE, "provided %d", provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    long rounds = test_scaled(16);

    global_counter = shmem_calloc(1, sizeof *global_counter);
    shmem_team_t teams[NTHREADS];
    struct worker workers[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        make_team(t, teams);
        struct worker *w = &workers[t];
        *w = (struct worker){.id = t, .team = teams[t], .rounds = rounds};
        w->my = shmem_team_my_pe(w->team);
        w->n = shmem_team_n_pes(w->team);
        w->left = (w->my + w->n - 1) % w->n;
        w->right = (w->my + 1) % w->n;
        CHECK(shmem_team_create_ctx(w->team, SHMEM_CTX_PRIVATE, &w->ctx) == 0,
              "thread %d: team_create_ctx", t);
        w->rma = shmem_malloc(2 * GUARD + BLOCK);
        w->src = shmem_malloc(BLOCK);
        w->counter = shmem_calloc(1, sizeof(long));
        w->coll_src = shmem_malloc(LARGE * (size_t)npes * sizeof(long));
        w->coll_dst = shmem_malloc(LARGE * (size_t)npes * sizeof(long));
        test_fill_guard(w->rma, 2 * GUARD + BLOCK);
        test_fill_bytes(w->src, BLOCK, me, (unsigned)t);
    }
    shmem_barrier_all();

    pthread_t threads[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        CHECK(pthread_create(&threads[t], NULL, work, &workers[t]) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(threads[t], NULL);
    shmem_barrier_all(); /* every thread of every PE has quieted its AMOs */

    long total = shmem_long_atomic_fetch(global_counter, 0);
    CHECK(total == (long)npes * NTHREADS * rounds * AMO_PER_ROUND, "global counter %ld, want %ld",
          total, (long)npes * NTHREADS * rounds * AMO_PER_ROUND);
    for (int t = 0; t < NTHREADS; t++) {
        struct worker *w = &workers[t];
        CHECK(w->failures == 0, "thread %d: %ld failure(s), see above", t, w->failures);
        CHECK(w->amo_rounds == rounds, "thread %d ran %ld AMO rounds", t, w->amo_rounds);
        long count = shmem_long_atomic_fetch(w->counter, me);
        if (w->my == 0)
            CHECK(count == (long)w->n * rounds * AMO_PER_ROUND,
                  "thread %d: team counter %ld, want %ld", t, count,
                  (long)w->n * rounds * AMO_PER_ROUND);
        shmem_ctx_destroy(w->ctx);
    }
    for (int t = NTHREADS - 1; t >= 0; t--) {
        shmem_team_destroy(teams[t]);
        shmem_free(workers[t].coll_dst);
        shmem_free(workers[t].coll_src);
        shmem_free(workers[t].counter);
        shmem_free(workers[t].src);
        shmem_free(workers[t].rma);
    }
    shmem_free(global_counter);
    int status = check_finish();
    shmem_finalize();
    return status;
}
