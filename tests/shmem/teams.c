/* Team management and contexts: queries and translation on WORLD, SHARED and split teams,
 * SHMEM_TEAM_INVALID handling, configuration, team_ptr, the limit on live teams, the reuse of
 * destroyed teams' places by teams of other shapes, contexts on WORLD and on a team
 * (team-relative PE numbers), options and sessions.
 *
 * With TEST_BAD set (and SHMEM_DEBUG=1), every PE makes a bad call and the job must stop with
 * a message naming it (list lines: expect=fail:REGEX):
 *   stride0        split_strided with stride 0 and size 2
 *   wraps          split_strided whose last PE is outside the parent
 *   destroy_world  shmem_team_destroy(SHMEM_TEAM_WORLD)
 *   ctx_pe         shmem_ctx_long_p on a team context to a PE outside the team
 *   root           shmem_long_broadcast with PE_root outside the team
 *   bogus_team     shmem_team_sync on a handle that was never a team
 *   destroyed_team shmem_team_n_pes on a split team after its destruction
 *   bogus_ctx      shmem_ctx_long_p on a handle that was never a context
 *   destroyed_ctx  shmem_ctx_quiet on a context after its destruction */
#include "check.h"

static int bad_call(const char *mode, long *sym)
{
    int npes = shmem_n_pes();
    shmem_team_t t;
    if (strcmp(mode, "stride0") == 0)
        return shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 0, 2, NULL, 0, &t);
    if (strcmp(mode, "wraps") == 0)
        return shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, npes, NULL, 0, &t);
    if (strcmp(mode, "destroy_world") == 0) {
        shmem_team_destroy(SHMEM_TEAM_WORLD);
        return 0;
    }
    if (strcmp(mode, "ctx_pe") == 0) {
        shmem_team_config_t one = {1};
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, &one, SHMEM_TEAM_NUM_CONTEXTS, &t);
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        if (t != SHMEM_TEAM_INVALID && shmem_team_create_ctx(t, 0, &ctx) == 0)
            shmem_ctx_long_p(ctx, sym, 1, 1);
        shmem_barrier_all();
        return 0;
    }
    if (strcmp(mode, "pe_quiet") == 0) {
        /* On a team of one PE, team PE 1 does not exist (world PE 1 does). */
        shmem_team_config_t one = {1};
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, &one, SHMEM_TEAM_NUM_CONTEXTS, &t);
        shmem_ctx_t ctx = SHMEM_CTX_INVALID;
        int pes[] = {0, 1};
        if (t != SHMEM_TEAM_INVALID && shmem_team_create_ctx(t, 0, &ctx) == 0)
            shmem_ctx_pe_quiet(ctx, pes, 2);
        shmem_barrier_all();
        return 0;
    }
    if (strcmp(mode, "root") == 0)
        return shmem_long_broadcast(SHMEM_TEAM_WORLD, sym, sym + 1, 1, npes);
    if (strcmp(mode, "bogus_team") == 0)
        return shmem_team_sync((shmem_team_t)(uintptr_t)12345);
    if (strcmp(mode, "destroyed_team") == 0) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t);
        shmem_team_destroy(t);
        return shmem_team_n_pes(t);
    }
    if (strcmp(mode, "bogus_ctx") == 0) {
        shmem_ctx_long_p((shmem_ctx_t)(uintptr_t)4096, sym, 1, 0);
        return 0;
    }
    if (strcmp(mode, "destroyed_ctx") == 0) {
        shmem_ctx_t ctx;
        shmem_ctx_create(0, &ctx);
        shmem_ctx_destroy(ctx);
        shmem_ctx_quiet(ctx);
        return 0;
    }
    return 0;
}

static void invalid_team(long *sym)
{
    shmem_team_config_t config = {5};
    shmem_team_t t = SHMEM_TEAM_WORLD;
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1, "team_my_pe(INVALID) != -1");
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1, "team_n_pes(INVALID) != -1");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD) == -1,
          "translate_pe from INVALID");
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID) == -1,
          "translate_pe to INVALID");
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0,
          "get_config(INVALID) succeeded");
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0 && ctx == SHMEM_CTX_INVALID,
          "create_ctx(INVALID) succeeded or left ctx valid");
    CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 &&
              t == SHMEM_TEAM_INVALID,
          "split of INVALID succeeded or left the team valid");
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, sym, 0) == NULL, "team_ptr(INVALID) not NULL");
    shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
    shmem_ctx_destroy(SHMEM_CTX_INVALID);   /* no-op */
    shmem_team_t got = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &got) != 0 && got == SHMEM_TEAM_INVALID,
          "ctx_get_team(INVALID)");
}

static void queries(long *sym)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me && shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes,
          "WORLD: my_pe %d n_pes %d", shmem_team_my_pe(SHMEM_TEAM_WORLD),
          shmem_team_n_pes(SHMEM_TEAM_WORLD));
    int shared_n = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(shared_n >= 1 && shmem_team_my_pe(SHMEM_TEAM_SHARED) >= 0, "SHARED: %d PEs", shared_n);
    for (int i = 0; i < shared_n; i++) {
        int w = shmem_team_translate_pe(SHMEM_TEAM_SHARED, i, SHMEM_TEAM_WORLD);
        CHECK(w >= 0 && shmem_team_ptr(SHMEM_TEAM_SHARED, sym, i) != NULL,
              "SHARED member %d (world %d): no load/store pointer", i, w);
    }
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, sym, pe) == shmem_ptr(sym, pe),
              "team_ptr(WORLD) differs from shmem_ptr for PE %d", pe);

    shmem_team_config_t config = {3}, got = {-7};
    shmem_team_t even;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, &config,
                                      SHMEM_TEAM_NUM_CONTEXTS, &even);
    CHECK(rc == 0, "split evens: rc %d", rc);
    if (me % 2) {
        CHECK(even == SHMEM_TEAM_INVALID, "odd PE got a handle to the even team");
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, SHMEM_TEAM_SHARED) >= 0 ||
                  shared_n == 1,
              "translate to SHARED");
    } else {
        CHECK(shmem_team_my_pe(even) == me / 2 && shmem_team_n_pes(even) == (npes + 1) / 2,
              "even team: my_pe %d n_pes %d", shmem_team_my_pe(even), shmem_team_n_pes(even));
        CHECK(shmem_team_get_config(even, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
                  got.num_contexts == 3,
              "get_config num_contexts %d", got.num_contexts);
        CHECK(shmem_team_get_config(even, 0, NULL) == 0, "get_config with mask 0");
        for (int i = 0; i < shmem_team_n_pes(even); i++)
            CHECK(shmem_team_translate_pe(even, i, SHMEM_TEAM_WORLD) == 2 * i,
                  "translate even %d -> %d", i, shmem_team_translate_pe(even, i, SHMEM_TEAM_WORLD));
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 1, even) == -1 || npes == 1,
              "world PE 1 is not in the even team");
        CHECK(shmem_team_translate_pe(even, shmem_team_n_pes(even), SHMEM_TEAM_WORLD) == -1,
              "translate of an out-of-range PE");
    }
    shmem_team_destroy(even);
}

/* Live teams are limited; the limit is reported on every parent PE alike, and destroying
 * teams frees their places. */
static void team_limit(void)
{
    enum { TRY = 100 };
    shmem_team_t made[TRY];
    int n = test_split_until_full(made, TRY);
    CHECK(n > 8 && n < TRY, "created %d teams before the limit", n);
    CHECK(n == TRY || made[n] == SHMEM_TEAM_INVALID, "failed split left a valid team");
    for (int i = 0; i < n; i++)
        shmem_team_destroy(made[i]);
    shmem_team_t again;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &again) == 0,
          "split after destroying fails");
    shmem_team_destroy(again);
}

/* A destroyed team's channel serves the next team, whatever its shape and wherever it starts
 * (a team of PE 0 alone, made first in odd rounds, moves the next one up by its size, so that
 * the new flags lie where the last team's slots were): far more teams than fit at once are
 * created and destroyed, next to one that lives throughout, each checked with an exact sum, a
 * collect of sizes that differ by member and a barrier. */
static void team_reuse(void)
{
    enum { ROUNDS = 150, SUMS = 32 }; /* sums fill a slot past where the next flags may lie */
    int me = shmem_my_pe(), npes = shmem_n_pes();
    size_t most = (size_t)npes * (npes + 1) / 2;
    long *src = shmem_malloc((size_t)npes * sizeof(long));
    long *dst = shmem_malloc(most * sizeof(long));
    long *sum = shmem_malloc(2 * SUMS * sizeof(long)), *contribution = sum + SUMS;
    shmem_team_t lasting;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &lasting);
    for (int r = 0; r < ROUNDS; r++) {
        /* WORLD again, the even PEs, all but PE 0 (one PE when alone). */
        int shape = r % 3, start = shape == 2 && npes > 1, stride = shape == 1 ? 2 : 1;
        int size = shape == 1 ? (npes + 1) / 2 : npes - start;
        shmem_team_t t, first = SHMEM_TEAM_INVALID;
        if (r % 2)
            CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1, NULL, 0, &first) == 0,
                  "round %d: split of PE 0 failed", r);
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, NULL, 0, &t) == 0,
              "round %d: split failed", r);
        int mine = shmem_team_my_pe(t);
        if (mine >= 0) {
            int n = shmem_team_n_pes(t);
            for (int k = 0; k <= mine; k++)
                src[k] = 1000L * mine + k + r;
            for (int k = 0; k < SUMS; k++) {
                sum[k] = 0;
                contribution[k] = me + r + k;
            }
            shmem_long_sum_reduce(t, sum, contribution, SUMS);
            for (int k = 0; k < SUMS; k++) {
                long want = 0;
                for (int i = 0; i < n; i++)
                    want += start + (long)i * stride + r + k;
                CHECK(sum[k] == want, "round %d: sum[%d] %ld, want %ld", r, k, sum[k], want);
            }
            for (size_t k = 0; k < most; k++)
                dst[k] = -1;
            shmem_long_collect(t, dst, src, (size_t)mine + 1);
            size_t at = 0;
            for (int i = 0; i < n; i++)
                for (int k = 0; k <= i; k++, at++)
                    CHECK(dst[at] == 1000L * i + k + r, "round %d: collect[%zu] %ld", r, at,
                          dst[at]);
            for (; at < most; at++)
                CHECK(dst[at] == -1, "round %d: collect wrote past its end at %zu", r, at);
            shmem_team_sync(t);
            shmem_team_destroy(t);
        }
        shmem_team_destroy(first);
        if (r % 50 == 49) {
            *sum = 0;
            *contribution = 1;
            shmem_long_sum_reduce(lasting, sum, contribution, 1);
            CHECK(*sum == npes, "round %d: the lasting team counts %ld members", r, *sum);
        }
    }
    shmem_team_destroy(lasting);
    shmem_free(sum);
    shmem_free(dst);
    shmem_free(src);
}

/* SHMEM_TEAM_NUM_CONTEXTS: a created team gives out as many live contexts as it asked for
 * (none without the mask), a failed create leaves SHMEM_CTX_INVALID, destroying a context frees
 * its place; WORLD has no limit; destroying a team frees its remaining contexts. */
static void context_limit(void)
{
    int npes = shmem_n_pes();
    shmem_team_config_t two = {2};
    shmem_team_t plain, limited, masked_out;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &plain);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &two, SHMEM_TEAM_NUM_CONTEXTS, &limited);
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, &two, 0, &masked_out);
    shmem_ctx_t ctx[3];
    CHECK(shmem_team_create_ctx(plain, 0, &ctx[0]) != 0 && ctx[0] == SHMEM_CTX_INVALID,
          "a context on a team created without SHMEM_TEAM_NUM_CONTEXTS");
    CHECK(shmem_team_create_ctx(masked_out, 0, &ctx[0]) != 0 && ctx[0] == SHMEM_CTX_INVALID,
          "a context on a team whose config was masked out");
    CHECK(shmem_team_create_ctx(limited, 0, &ctx[0]) == 0, "first of 2 contexts");
    CHECK(shmem_team_create_ctx(limited, SHMEM_CTX_PRIVATE, &ctx[1]) == 0, "second of 2 contexts");
    CHECK(shmem_team_create_ctx(limited, 0, &ctx[2]) != 0 && ctx[2] == SHMEM_CTX_INVALID,
          "a third context on a team of 2");
    shmem_ctx_destroy(ctx[1]);
    CHECK(shmem_team_create_ctx(limited, 0, &ctx[1]) == 0, "a context after one was destroyed");
    shmem_team_config_t got;
    CHECK(shmem_team_get_config(limited, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 2,
          "get_config num_contexts %d", got.num_contexts);
    shmem_team_destroy(limited); /* frees ctx[0] and ctx[1] */
    shmem_team_destroy(masked_out);
    shmem_team_destroy(plain);
    shmem_ctx_t world[5];
    for (int i = 0; i < 5; i++)
        CHECK(shmem_ctx_create(0, &world[i]) == 0, "context %d on WORLD", i);
    for (int i = 0; i < 5; i++)
        shmem_ctx_destroy(world[i]);
}

/* Contexts on WORLD and on a reversed team: a put through a team context to team PE k lands
 * on world PE npes-1-k (completed by ctx_pe_quiet on team PE k); the context's team is reported;
 * every option is accepted. */
static void contexts(long *sym)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long options[] = {0, SHMEM_CTX_PRIVATE, SHMEM_CTX_SERIALIZED, SHMEM_CTX_NOSTORE,
                      SHMEM_CTX_PRIVATE | SHMEM_CTX_SERIALIZED | SHMEM_CTX_NOSTORE};
    for (size_t o = 0; o < sizeof options / sizeof options[0]; o++) {
        shmem_ctx_t ctx;
        shmem_team_t team = SHMEM_TEAM_INVALID;
        CHECK(shmem_ctx_create(options[o], &ctx) == 0 && ctx != SHMEM_CTX_INVALID,
              "ctx_create(%#lx)", options[o]);
        CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD,
              "ctx_get_team of a ctx_create context is not WORLD");
        shmem_ctx_session_start(ctx, SHMEM_CTX_SESSION_BATCH, NULL, 0);
        shmem_ctx_long_p(ctx, &sym[0], 100 + me, (me + 1) % npes);
        shmem_ctx_session_stop(ctx);
        shmem_ctx_session_stop(ctx); /* idempotent */
        shmem_ctx_destroy(ctx);      /* completes the put */
        shmem_barrier_all();
        CHECK(sym[0] == 100 + (me + npes - 1) % npes, "ctx put: %ld", sym[0]);
        shmem_barrier_all();
    }
    shmem_team_t team = SHMEM_TEAM_INVALID;
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &team) == 0 && team == SHMEM_TEAM_WORLD,
          "ctx_get_team(DEFAULT)");

    shmem_team_t reversed;
    shmem_team_config_t config = {1};
    shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, &config, SHMEM_TEAM_NUM_CONTEXTS,
                             &reversed);
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(reversed, SHMEM_CTX_PRIVATE, &ctx) == 0, "team_create_ctx");
    shmem_team_t got;
    CHECK(shmem_ctx_get_team(ctx, &got) == 0 && got == reversed, "ctx_get_team of team ctx");
    int my = shmem_team_my_pe(reversed), right = (my + 1) % npes;
    shmem_ctx_long_p(ctx, &sym[1], 1000 + me, right); /* team PE right = world npes-1-right */
    long fetched = shmem_ctx_long_atomic_fetch_add(ctx, &sym[2], 1, 0);
    (void)fetched;
    shmem_ctx_pe_quiet(ctx, &right, 1); /* a team PE: checked and translated */
    shmem_barrier_all();
    int from_world = npes - 1 - ((my - 1 + npes) % npes);
    CHECK(sym[1] == 1000 + from_world, "team ctx put: %ld, want %d", sym[1], 1000 + from_world);
    if (me == npes - 1) /* team PE 0 */
        CHECK(sym[2] == npes, "team ctx fetch_add on team PE 0: %ld", sym[2]);
    shmem_ctx_destroy(ctx);
    shmem_team_destroy(reversed);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    long *sym = shmem_calloc(4, sizeof(long));
    const char *mode = getenv("TEST_BAD");
    if (mode) {
        int rc = bad_call(mode, sym);
        printf("PE %d: bad call '%s' returned %d\n", shmem_my_pe(), mode, rc);
        shmem_finalize();
        return 0;
    }
    invalid_team(sym);
    queries(sym);
    team_limit();
    team_reuse();
    context_limit();
    contexts(sym);
    shmem_free(sym);
    int status = check_finish();
    shmem_finalize();
    return status;
}
