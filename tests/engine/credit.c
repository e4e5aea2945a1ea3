/* Receive space on demand (dataserver.h, "Credits"), with TEST_PATTERN:
 *  - ring: every PE sends only to its right neighbour, so a server hands grants to the few PEs
 *    that send to it, and its pool stays as small as they need;
 *  - alltoall: every PE sends to every other, with PANGEA_SERVER_POOL (set in the list) too
 *    small for every source's grant at once, so servers ask grants back and give them again;
 *  - silent: the PEs of other nodes put to PE 0 and then wait outside the library holding
 *    their grants, for the last of them, which puts only once they are there: PE 0's server
 *    must still find it a grant (from grants given back before the holders went quiet, or
 *    lent beyond its pool), or the job hangs. With TEST_EXPECT_LENT=1 (the list's 2 x 3 line:
 *    two holders whose grants grow to fill a pool of two segments while they put) it must
 *    have lent: the holders are silent when the last PE asks.
 * Every round puts a block large enough to need a grant (and to enlarge it), a small put and
 * AMOs to each target; every byte of each block, the bytes around it and every AMO count are
 * checked. Across nodes the memory the server and the client allocated must equal what the
 * footprint model (pangea-info --footprint) computes from their counts. */
#include "check.h"
#include "coll/coll.h"
#include "dataserver/dataserver.h"
#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "startup/startup.h"

#include <shmem.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BLOCK (200 * 1024)
#define ROUNDS 4
#define GUARD 0x5C

static unsigned char pattern(int source, int round, size_t i)
{
    return (unsigned char)(source * 29 + round * 11 + i * 3 + 7);
}

static int sends_to(int ring, int me, int target, int npes)
{
    return target != me && (!ring || target == (me + 1) % npes);
}

/* The silent pattern; checks the blocks at PE 0. Each holder, once its put is issued, leaves
 * a file and waits for the one the last PE writes once its own put is done; the last PE waits
 * for the holders' files. Both wait outside Pangea and MPI alike, as a PE computing or blocked
 * in another library would; the holders keep their grants (their puts need not even be done:
 * they complete at the quiet after). */
static void silent(unsigned char *in, size_t stride, unsigned char *out)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    int remote = pg_world.node_of[me] != pg_world.node_of[0];
    /* The files' names hold PE 0's job id (each node has its own); only the root writes the
     * broadcast's buffer before it, which the others' copies receive. */
    static long job;
    if (me == 0)
        job = (long)pg_world.job_id;
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &job, &job, 1, 0);
    char done[64], mine[80];
    snprintf(done, sizeof done, "/tmp/pangea-credit-silent-%lx", (unsigned long)job);
    snprintf(mine, sizeof mine, "%s-%d", done, me);
    for (size_t i = 0; i < BLOCK; i++)
        out[i] = pattern(me, 0, i);
    const struct timespec ms = {.tv_nsec = 1000000};
    if (remote && me != last) {
        shmem_putmem(in + (size_t)me * stride, out, BLOCK, 0);
        FILE *f = fopen(mine, "w");
        CHECK(f != NULL, "cannot create %s", mine);
        if (f)
            fclose(f);
        while (access(done, F_OK) != 0)
            nanosleep(&ms, NULL);
        shmem_quiet();
    }
    if (remote && me == last) {
        for (int pe = 0; pe < last; pe++) {
            char theirs[80];
            snprintf(theirs, sizeof theirs, "%s-%d", done, pe);
            while (pg_world.node_of[pe] != pg_world.node_of[0] && access(theirs, F_OK) != 0)
                nanosleep(&ms, NULL);
        }
        shmem_putmem(in + (size_t)me * stride, out, BLOCK, 0);
        shmem_quiet();
        FILE *f = fopen(done, "w");
        CHECK(f != NULL, "cannot create %s", done);
        if (f)
            fclose(f);
    }
    shmem_barrier_all();
    if (remote)
        unlink(me == last ? done : mine);
    if (me == 0)
        for (int s = 0; s < npes; s++) {
            if (pg_world.node_of[s] == pg_world.node_of[0])
                continue;
            size_t bad = 0;
            for (size_t i = 0; i < BLOCK; i++)
                bad += in[(size_t)s * stride + i] != pattern(s, 0, i);
            CHECK(bad == 0, "%zu wrong bytes in the block from PE %d", bad, s);
        }
    /* How many holders still hold a grant when the last PE asks depends on the reclaims
     * among them while they put: the proof is that the job ends, with every byte right. */
    if (me != 0 || pg_world.nnodes == 1)
        return;
    struct pg_ds_server_stats st = pg_ds_server_stats();
    printf("PE 0 server: grants %llu, reclaimed %llu, lent %llu\n", (unsigned long long)st.grants,
           (unsigned long long)st.reclaims, (unsigned long long)st.lent);
    if (getenv("TEST_EXPECT_LENT"))
        CHECK(st.lent >= 1,
              "the server lent nothing beyond its pool while the holders were silent");
}

static int ceil_log2(int n)
{
    int k = 0;
    while ((1 << k) < n)
        k++;
    return k;
}

static void check_model(int ring)
{
    struct pg_pipe_bytes client;
    struct pg_pipe_counts cn = pg_pipe_memory(&client);
    struct pg_pipe_bytes model = pg_pipe_model(&cn);
    CHECK(model.total == client.total && model.replies == client.replies &&
              model.sent == client.sent && model.batches == client.batches,
          "client memory %zu (replies %zu, records %zu, batches %zu), model %zu (%zu, %zu, %zu)",
          client.total, client.replies, client.sent, client.batches, model.total, model.replies,
          model.sent, model.batches);
    /* The collectives' channels fill the internal area as the model sizes them; the other
     * modules' words fit in the base. */
    size_t channels =
        pg_coll_internal_bytes((size_t)pg_world.npes, (size_t)pg_world.max_local_size);
    size_t used = pg_mem_internal_used();
    CHECK(used >= channels && used <= channels + PG_INTERNAL_BASE,
          "internal area: %zu bytes used, the collectives' model %zu (+ %zu base)", used, channels,
          PG_INTERNAL_BASE);
    if (pg_world.local_rank != 0)
        return;
    struct pg_ds_server_bytes server;
    struct pg_ds_server_counts sn = pg_ds_server_memory(&server);
    struct pg_ds_server_bytes expect = pg_ds_server_model(&sn);
    CHECK(expect.total == server.total && expect.pool == server.pool &&
              expect.sources == server.sources && expect.tables == server.tables,
          "server memory %zu (pool %zu, sources %zu, tables %zu), model %zu (%zu, %zu, %zu)",
          server.total, server.pool, server.sources, server.tables, expect.total, expect.pool,
          expect.sources, expect.tables);
    /* The pool grew only as far as grants needed: a full grant for every source at most. */
    CHECK(sn.segments == 2 || pg_ds_pool_capacity(sn.segments - 1) <
                                  sn.sources * pg_ds_full_grant() + pg_ds_small_reserve(),
          "pool of %zu segments for %zu sources", sn.segments, sn.sources);
    if (ring) /* the neighbour, and the leaders of a dissemination barrier */
        CHECK(sn.sources <= 1 + (size_t)ceil_log2(pg_world.nnodes),
              "%zu sources in a ring of %d nodes", sn.sources, pg_world.nnodes);
    struct pg_ds_server_stats st = pg_ds_server_stats();
    size_t remote = (size_t)(pg_world.npes - pg_world.local_size);
    size_t room = pg_ds_pool_capacity(pg_ds_pool_max_segments()) / pg_ds_min_grant();
    if (!ring && remote > room)
        CHECK(st.reclaims > 0, "%zu remote senders, room for %zu grants, but no reclaim", remote,
              room);
    printf("PE %d server: %zu sources, %zu segments (%zu bytes), grants %llu, enlarged %llu, "
           "reclaimed %llu\n",
           pg_world.me, sn.sources, sn.segments, server.pool, (unsigned long long)st.grants,
           (unsigned long long)st.enlargements, (unsigned long long)st.reclaims);
}

int main(void)
{
    shmem_init();
    const char *env = getenv("TEST_PATTERN");
    int ring = env && strcmp(env, "ring") == 0;
    int quiet_holders = env && strcmp(env, "silent") == 0;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* [source][BLOCK] with a guard of 64 bytes after each block */
    size_t stride = BLOCK + 64;
    unsigned char *in = shmem_malloc((size_t)npes * stride);
    long *small = shmem_malloc((size_t)npes * sizeof(long));
    long *counter = shmem_malloc(sizeof(long));
    long *fetched = malloc(sizeof(long) * (size_t)npes);
    unsigned char *out = malloc(BLOCK);
    memset(in, GUARD, (size_t)npes * stride);
    memset(small, 0, (size_t)npes * sizeof(long));
    *counter = 0;
    shmem_barrier_all();

    int senders = 0;
    for (int s = 0; s < npes; s++)
        senders += sends_to(ring, s, me, npes);
    for (int round = 0; round < ROUNDS && !quiet_holders; round++) {
        for (size_t i = 0; i < BLOCK; i++)
            out[i] = pattern(me, round, i);
        for (int k = 1; k < npes; k++) {
            int t = (me + k) % npes;
            if (!sends_to(ring, me, t, npes))
                continue;
            shmem_putmem(in + (size_t)me * stride, out, BLOCK, t);
            shmem_long_p(&small[me], (long)round * 1000 + me, t);
            fetched[t] = shmem_long_atomic_fetch_add(counter, 1, t);
            shmem_long_atomic_add(counter, 2, t);
        }
        shmem_quiet();
        shmem_barrier_all();
        for (int s = 0; s < npes; s++) {
            if (!sends_to(ring, s, me, npes))
                continue;
            const unsigned char *b = in + (size_t)s * stride;
            size_t bad = 0;
            for (size_t i = 0; i < BLOCK; i++)
                bad += b[i] != pattern(s, round, i);
            for (size_t i = BLOCK; i < stride; i++)
                bad += b[i] != GUARD;
            CHECK(bad == 0, "round %d: %zu wrong bytes in the block from PE %d", round, bad, s);
            CHECK(small[s] == (long)round * 1000 + s, "round %d: small put from PE %d is %ld",
                  round, s, small[s]);
        }
        CHECK(*counter == (long)(round + 1) * 3 * senders, "round %d: counter %ld, want %ld", round,
              *counter, (long)(round + 1) * 3 * senders);
        for (int t = 0; t < npes; t++)
            if (sends_to(ring, me, t, npes))
                CHECK(fetched[t] >= (long)round * 3 && fetched[t] < (long)(round + 1) * 3 * npes,
                      "round %d: fetch-add on PE %d returned %ld", round, t, fetched[t]);
        shmem_barrier_all();
    }
    if (quiet_holders)
        silent(in, stride, out);
    else if (pg_world.nnodes > 1)
        check_model(ring);
    free(out);
    free(fetched);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
