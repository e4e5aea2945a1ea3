/* Alltoall, collect and fcollect across leaf switches (PANGEA_TOPOLOGY_FILE), on teams of
 * every arrangement: the world (node leaders, and the switch level when the tree has several
 * leaf switches), a team of one PE per node (pairwise between nodes), every other PE, the
 * last three nodes, the members of a switch and of a node (shmemx_team_split_level).
 * - shmem_alltoall and shmem_alltoalls (strided) are exact in every element, and the elements
 *   between and after the blocks keep their guard; every block between two switches crosses
 *   the top once (the traffic counters' bytes, exact); where the team spans switches, the order
 *   the alltoall sends its node's exchanges in is that node's row of the exchange schedule
 *   (pg_coll_exchange_order), whose steps, over all the team's nodes, load no switch's uplink
 *   above its share (ceil(k(n-k)/(n-1)) for a switch of k of the team's n nodes). Without the
 *   switch level (PANGEA_COLL_SWITCHES=0) no schedule is made.
 * - collect (blocks of 0, 1 and 2 rows, by member) and fcollect are exact, with a guard after;
 *   with the switch level each switch's sizes and blocks cross the top once per other switch
 *   (bytes, exact).
 * - a reduction large enough to be split (reduce-scatter, then the shares gathered like
 *   fcollect's blocks) and the sum scans (of 3 and of 8192 elements, inclusive and exclusive)
 *   are exact, with a guard after; with the switch level, the reduction's bytes across the top
 *   are its syncs', all the elements once per other switch and the shares once to each other
 *   switch; a scan's are its syncs' and the prefix once at each change of switch in team
 *   order (exact).
 * Needs 4 nodes with the same PEs each. */
#include "check.h"
#include "coll/coll.h"
#include "coll/coll_internal.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <shmem.h>
#include <shmemx.h>

#define NELEMS 5 /* elements per block */
#define GUARD 0x5a5a5a5a5a5a5a5aULL
#define DST_STRIDE 2 /* alltoalls: elements */
#define SRC_STRIDE 3

static long long *sums; /* symmetric */

static long long job_sum(long long mine)
{
    static long long in;
    in = mine;
    shmem_barrier_all();
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, sums, &in, 1);
    return sums[0];
}

static int switch_of_pe(int pe)
{
    return pg_topo_leaf_switch(pg_world.node_of[pe]);
}

static uint64_t value(int from, int to, size_t k)
{
    return (uint64_t)from * 1000003 + (uint64_t)to * 1009 + k + 1;
}

/* The team's bytes across the top: each ordered pair of members under different switches,
 * one block of `block` bytes; when strided, also a signal (8 bytes) from each node's sender to
 * each member under another switch (contiguous blocks carry it with the data). */
static long long bytes_across(shmem_team_t team, size_t block, int strided)
{
    struct pangea_team *t = (struct pangea_team *)team;
    long long pairs = 0, signals = 0;
    for (int i = 0; i < t->size; i++)
        for (int j = 0; j < t->size; j++)
            pairs += switch_of_pe(pg_team_pe(t, i)) != switch_of_pe(pg_team_pe(t, j));
    for (int k = 0; k < t->nleaders && strided; k++)
        for (int j = 0; j < t->size; j++)
            signals += switch_of_pe(pg_team_pe(t, t->leaders[k])) != switch_of_pe(pg_team_pe(t, j));
    return pairs * (long long)block + signals * 8;
}

/* The order the alltoall sends in from this PE's node (pg_coll_send_order): the members of
 * the other nodes, node by node in the schedule's order across switches (each node's members
 * in team order), else round the team from this PE on; and the schedule's per-step load on
 * every switch of the team. */
static void check_schedule(const char *name, struct pangea_team *t, int switch_level)
{
    int nl = t->nleaders, n = t->size, count = n - t->nlocal;
    int switch_of[nl], partner[nl], step[nl], want[n];
    for (int k = 0; k < nl; k++)
        switch_of[k] = switch_of_pe(pg_team_pe(t, t->leaders[k]));
    int mine = 0;
    while (t->leaders[mine] != t->local[0])
        mine++;
    int nsteps = 0, at = 0;
    if (switch_level && t->nswitches) {
        nsteps = pg_coll_exchange_order(nl, switch_of, mine, partner, step);
        CHECK(nsteps >= nl - 1, "%s: %d steps for %d nodes", name, nsteps, nl);
        for (int k = 0; k < nl - 1 && nsteps >= nl - 1; k++)
            for (int j = 0; j < n; j++)
                if (pg_world.node_of[pg_team_pe(t, j)] ==
                    pg_world.node_of[pg_team_pe(t, t->leaders[partner[k]])])
                    want[at++] = j;
    } else {
        for (int s = 1; s < n; s++) {
            int j = (t->my_pe + s) % n;
            if (pg_world.node_of[pg_team_pe(t, j)] != pg_world.node)
                want[at++] = j;
        }
    }
    int *order = pg_coll_send_order(t);
    CHECK(at == count && memcmp(order, want, (size_t)count * sizeof *order) == 0,
          "%s: the alltoall's order of the other nodes' %d members is not the %s", name, count,
          nsteps ? "schedule's" : "rotation");
    free(order);
    CHECK(!nsteps == !t->exchange_nodes, "%s: %s schedule", name,
          nsteps ? "no" : "a switch level's");
    if (!nsteps || nsteps < nl - 1)
        return;
    /* Every node's exchanges by step; the loads of each switch. */
    int up[nsteps][nl], down[nsteps][nl];
    memset(up, 0, sizeof up);
    memset(down, 0, sizeof down);
    for (int i = 0; i < nl; i++) {
        pg_coll_exchange_order(nl, switch_of, i, partner, step);
        for (int k = 0; k < nl - 1; k++)
            if (switch_of[i] != switch_of[partner[k]]) {
                up[step[k]][i]++;
                down[step[k]][partner[k]]++;
            }
    }
    for (int s = 0; s < nl; s++) {
        int k = 0, first = 1;
        for (int j = 0; j < nl; j++)
            if (switch_of[j] == switch_of[s]) {
                k++;
                first &= j >= s;
            }
        if (!first)
            continue;
        int share = (k * (nl - k) + nl - 2) / (nl - 1);
        for (int at = 0; at < nsteps; at++) {
            int out = 0, in = 0;
            for (int j = 0; j < nl; j++)
                if (switch_of[j] == switch_of[s]) {
                    out += up[at][j];
                    in += down[at][j];
                }
            CHECK(out <= share && in <= share,
                  "%s: step %d: switch %d carries %d out, %d in (share %d)", name, at, switch_of[s],
                  out, in, share);
        }
    }
}

/* The team's switches' members and collect bytes (member i: i % 3 rows of `row` bytes), for
 * the bytes across the top of the switch level's fcollect (blocks of `block` bytes) and
 * collect: each switch's data once to each other switch, with a signal after each put of
 * sizes or blocks. */
static long long switch_level_bytes(struct pangea_team *t, size_t block, size_t row, int collect)
{
    long long total = 0;
    for (int s = 0; s < t->nswitches; s++) {
        int sw = switch_of_pe(pg_team_pe(t, t->switches[s]));
        long long members = 0, bytes = 0;
        for (int j = 0; j < t->size; j++)
            if (switch_of_pe(pg_team_pe(t, j)) == sw) {
                members++;
                bytes += (long long)(j % 3) * (long long)row;
            }
        if (collect)
            total += members * 8 + 8 + bytes + 8;
        else
            total += members * (long long)block + 8;
    }
    return total * (t->nswitches - 1);
}

static void run_collects(const char *name, shmem_team_t team, uint64_t *src, uint64_t *dst,
                         size_t extent)
{
    int member = team != SHMEM_TEAM_INVALID;
    struct pangea_team *t = (struct pangea_team *)team;
    int n = member ? shmem_team_n_pes(team) : 0, me = member ? shmem_team_my_pe(team) : -1;
    for (int fixed = 0; fixed < 2; fixed++) {
        enum pg_coll_kind kind = fixed ? PG_COLL_FCOLLECT : PG_COLL_COLLECT;
        size_t mine = !member ? 0 : fixed ? NELEMS : (size_t)(me % 3) * NELEMS, total = 0;
        for (int j = 0; j < n; j++)
            total += fixed ? NELEMS : (size_t)(j % 3) * NELEMS;
        for (size_t k = 0; k < extent; k++)
            dst[k] = GUARD;
        for (size_t k = 0; k < mine; k++)
            src[k] = value(me, 0, k);
        struct pg_coll_traffic before, after;
        pg_coll_traffic(kind, &before);
        shmem_barrier_all();
        if (member && fixed)
            shmem_uint64_fcollect(team, dst, src, NELEMS);
        else if (member)
            shmem_uint64_collect(team, dst, src, mine);
        pg_coll_traffic(kind, &after);
        long long across = job_sum((long long)(after.bytes - before.bytes));
        int bad = 0;
        size_t at = 0;
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < (fixed ? NELEMS : (size_t)(j % 3) * NELEMS); k++, at++)
                bad += dst[at] != value(j, 0, k);
        for (; at < extent; at++)
            bad += dst[at] != GUARD;
        CHECK(bad == 0, "%s: %s: %d elements wrong (of %zu and the guard)", name,
              fixed ? "fcollect" : "collect", bad, total);
        long long want = 0;
        if (member && me == 0 && t->nswitches)
            want = switch_level_bytes(t, NELEMS * sizeof *src, NELEMS * sizeof *src, !fixed);
        int counted = member && t->nswitches;
        want = job_sum(want);
        if (job_sum(counted))
            CHECK(across == want, "%s: %s: %lld bytes across the top, want %lld", name,
                  fixed ? "fcollect" : "collect", across, want);
    }
}

#define REDUCE_COUNT 8192           /* 64 KiB: above any team's reduction slot, so split */
static uint64_t *big_src, *big_dst; /* symmetric, REDUCE_COUNT + 8 */

/* The job's bytes across the top in one team sync (0 from a non-member). */
static long long sync_bytes(shmem_team_t team)
{
    struct pg_coll_traffic before, after;
    shmem_barrier_all(); /* a sync itself: before the count starts */
    pg_coll_traffic(PG_COLL_SYNC, &before);
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_sync(team);
    pg_coll_traffic(PG_COLL_SYNC, &after);
    return job_sum((long long)(after.bytes - before.bytes));
}

/* The job's bytes across the top of kind since before (mine). */
static long long across_since(enum pg_coll_kind kind, const struct pg_coll_traffic *before)
{
    struct pg_coll_traffic after;
    pg_coll_traffic(kind, &after);
    return job_sum((long long)(after.bytes - before->bytes));
}

/* A split reduction (count elements) and the sum scans (count elements: 3, and REDUCE_COUNT)
 * are exact, with a guard after. With the switch level, the bytes across the top, exact: the
 * reduction's three syncs, each member's share from each other switch's slices (all the
 * elements once per other switch), and the shares to the other switches, each switch's with a
 * signal; a scan's two syncs and, at each change of switch in team order, the prefix once. */
static void run_reduce(const char *name, shmem_team_t team)
{
    int member = team != SHMEM_TEAM_INVALID;
    struct pangea_team *t = (struct pangea_team *)team;
    int n = member ? shmem_team_n_pes(team) : 0, me = member ? shmem_team_my_pe(team) : 0;
    int counted = member && t->nswitches, m = counted ? t->nswitches : 0, changes = 0;
    for (int j = 1; j < n && counted; j++)
        changes += switch_of_pe(pg_team_pe(t, j)) != switch_of_pe(pg_team_pe(t, j - 1));
    long long sync = sync_bytes(team);
    counted = job_sum(counted && me == 0) > 0;
    for (size_t k = 0; k < REDUCE_COUNT + 8; k++) {
        big_src[k] = (uint64_t)me * 7 + k;
        big_dst[k] = GUARD;
    }
    struct pg_coll_traffic before;
    pg_coll_traffic(PG_COLL_REDUCE, &before);
    shmem_barrier_all();
    if (member)
        shmem_uint64_sum_reduce(team, big_dst, big_src, REDUCE_COUNT);
    long long across = across_since(PG_COLL_REDUCE, &before);
    int bad = 0;
    for (size_t k = 0; k < REDUCE_COUNT + 8 && member; k++) {
        uint64_t want =
            k < REDUCE_COUNT ? (uint64_t)n * (uint64_t)(n - 1) / 2 * 7 + (uint64_t)n * k : GUARD;
        bad += big_dst[k] != want;
    }
    CHECK(bad == 0, "%s: split reduction: %d elements wrong", name, bad);
    long long bytes = REDUCE_COUNT * (long long)sizeof *big_src;
    long long want = job_sum(me == 0 && m ? (m - 1) * (2 * bytes + 8LL * m) : 0) + 3 * sync;
    if (counted)
        CHECK(across == want, "%s: split reduction: %lld bytes across the top, want %lld", name,
              across, want);
    static const size_t scan_counts[] = {3, REDUCE_COUNT};
    for (size_t c = 0; c < 2 * sizeof scan_counts / sizeof *scan_counts; c++) {
        size_t count = scan_counts[c / 2];
        int exclusive = c % 2;
        for (size_t k = 0; k < count + 8; k++) {
            big_src[k] = (uint64_t)me * 5 + k * 3 + 1;
            big_dst[k] = GUARD;
        }
        pg_coll_traffic(PG_COLL_SCAN, &before);
        shmem_barrier_all();
        if (member && exclusive)
            shmem_uint64_sum_exscan(team, big_dst, big_src, count);
        else if (member)
            shmem_uint64_sum_inscan(team, big_dst, big_src, count);
        across = across_since(PG_COLL_SCAN, &before);
        bad = 0;
        uint64_t upto = (uint64_t)me + !exclusive; /* members combined */
        for (size_t k = 0; k < count + 8 && member; k++) {
            uint64_t w = k < count ? upto * (upto - 1) / 2 * 5 + upto * (k * 3 + 1) : GUARD;
            bad += big_dst[k] != w;
        }
        CHECK(bad == 0, "%s: %s of %zu: %d elements wrong", name, exclusive ? "exscan" : "inscan",
              count, bad);
        want = job_sum(me == 0 ? changes * (long long)(count * sizeof *big_src) : 0) + 2 * sync;
        if (counted)
            CHECK(across == want, "%s: %s of %zu: %lld bytes across the top, want %lld", name,
                  exclusive ? "exscan" : "inscan", count, across, want);
    }
}

static void run(const char *name, shmem_team_t team, uint64_t *src, uint64_t *dst, int npes,
                int switch_level)
{
    int member = team != SHMEM_TEAM_INVALID;
    int n = member ? shmem_team_n_pes(team) : 0, me = member ? shmem_team_my_pe(team) : -1;
    size_t extent = (size_t)npes * NELEMS * SRC_STRIDE + 8;
    for (int strided = 0; strided < 2; strided++) {
        ptrdiff_t dst_stride = strided ? DST_STRIDE : 1, src_stride = strided ? SRC_STRIDE : 1;
        for (size_t k = 0; k < extent; k++) {
            dst[k] = GUARD;
            src[k] = GUARD;
        }
        for (int j = 0; j < n; j++)
            for (size_t k = 0; k < NELEMS; k++)
                src[((size_t)j * NELEMS + k) * (size_t)src_stride] = value(me, j, k);
        struct pg_coll_traffic before;
        pg_coll_traffic(PG_COLL_ALLTOALL, &before);
        shmem_barrier_all();
        if (member && strided)
            shmem_uint64_alltoalls(team, dst, src, DST_STRIDE, SRC_STRIDE, NELEMS);
        else if (member)
            shmem_uint64_alltoall(team, dst, src, NELEMS);
        struct pg_coll_traffic after;
        pg_coll_traffic(PG_COLL_ALLTOALL, &after);
        long long across = job_sum((long long)(after.bytes - before.bytes));
        int bad = 0;
        size_t covered = (size_t)n * NELEMS * (size_t)dst_stride;
        for (size_t k = 0; k < extent; k++) {
            uint64_t want = GUARD;
            size_t e = k / (size_t)dst_stride;
            if (k < covered && k % (size_t)dst_stride == 0)
                want = value((int)(e / NELEMS), me, e % NELEMS);
            if (dst[k] != want && bad++ < 3)
                CHECK(0, "%s%s: dest[%zu] = %llx, want %llx", name, strided ? " (strided)" : "", k,
                      (unsigned long long)dst[k], (unsigned long long)want);
        }
        CHECK(bad == 0, "%s%s: %d elements wrong", name, strided ? " (strided)" : "", bad);
        /* Every member's view of the team agrees; the job's total is counted once per team. */
        long long want = member && me == 0 ? bytes_across(team, NELEMS * sizeof *dst, strided) : 0;
        want = job_sum(want);
        CHECK(across == want, "%s%s: %lld bytes across the top, want %lld", name,
              strided ? " (strided)" : "", across, want);
        if (member)
            check_schedule(name, (struct pangea_team *)team, switch_level);
    }
    run_collects(name, team, src, dst, extent);
    run_reduce(name, team);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int p = pg_world.local_size, nodes = pg_world.nnodes;
    if (nodes != 4 || p * nodes != npes || pg_world.max_local_size != p) {
        if (me == 0)
            printf("SKIP coll_switches: needs 4 nodes with the same PEs each\n");
        shmem_finalize();
        return 0;
    }
    int switch_level = pg_cfg.coll_switches;
    sums = shmem_malloc(sizeof *sums);
    size_t extent = (size_t)npes * NELEMS * SRC_STRIDE + 8;
    uint64_t *src = shmem_malloc(extent * sizeof *src);
    uint64_t *dst = shmem_malloc(extent * sizeof *dst);
    big_src = shmem_malloc((REDUCE_COUNT + 8) * sizeof *big_src);
    big_dst = shmem_malloc((REDUCE_COUNT + 8) * sizeof *big_dst);

    run("world", SHMEM_TEAM_WORLD, src, dst, npes, switch_level);
    shmem_team_t team;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, p, nodes, NULL, 0, &team);
    run("one per node", team, src, dst, npes, switch_level);
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team);
    if (npes > 2) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &team);
        run("every other", team, src, dst, npes, switch_level);
        if (team != SHMEM_TEAM_INVALID)
            shmem_team_destroy(team);
    }
    shmem_team_split_strided(SHMEM_TEAM_WORLD, p, 1, 3 * p, NULL, 0, &team);
    run("last three nodes", team, src, dst, npes, switch_level);
    if (team != SHMEM_TEAM_INVALID)
        shmem_team_destroy(team);
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"switch", SHMEMX_LEVEL_SWITCH}, {"node", SHMEMX_LEVEL_NODE}};
    for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
        int rc = shmemx_team_split_level(SHMEM_TEAM_WORLD, levels[l].level, NULL, 0, &team);
        /* Teams are strided: a switch whose PEs are not evenly spaced cannot be one (every
         * PE's split fails, docs/topology.md). */
        int strided = 1;
        for (int pe = 0, prev = -1, step = 0; pe < npes; pe++) {
            if (levels[l].level != SHMEMX_LEVEL_SWITCH || switch_of_pe(pe) != switch_of_pe(0))
                continue;
            strided &= prev < 0 || step == 0 || pe - prev == step;
            step = prev < 0 ? 0 : pe - prev;
            prev = pe;
        }
        CHECK(rc == (strided ? 0 : -1), "split at the %s level: %d", levels[l].name, rc);
        if (rc != 0)
            continue;
        run(levels[l].name, team, src, dst, npes, switch_level);
        shmem_team_destroy(team);
    }

    shmem_free(big_dst);
    shmem_free(big_src);
    shmem_free(dst);
    shmem_free(src);
    shmem_free(sums);
    int status = check_finish();
    shmem_finalize();
    return status;
}
