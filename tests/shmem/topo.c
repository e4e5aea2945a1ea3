/* Topology queries: shmemx_topo_level for every pair of PEs against what the test knows of
 * where they sit, and the teams of shmemx_team_split_level (members, order, a reduction over
 * each), from the world and from a split team.
 *
 * TEST_BIND=1: each PE binds itself to processor (rank mod 2) before shmem_init, so PEs on the
 * same processor share CORE. TEST_OTHER_CORE: the level two PEs of a node bound to different
 * processors share (1 NUMA, 2 PACKAGE, 3 NODE; lines fake the machine with HWLOC_XMLFILE);
 * unset: anything from NUMA to NODE, the same both ways. TEST_LEAF_OF=a,b,...: the leaf switch
 * (a number) of emulated node pgnodeK is the K-th entry; unset: one switch for all.
 * TEST_TOPO=bad_pe | bad_level | bad_parent: the bad arguments give -1 (under SHMEM_DEBUG the
 * job stops naming the call and argument). */
#define _GNU_SOURCE /* sched_setaffinity */
#include "check.h"

#include <sched.h>
#include <shmemx.h>
#include <unistd.h>

#define HOST_LEN 64

static int me, npes;
static char *hosts;   /* [npes][HOST_LEN], symmetric */
static int *cpus;     /* [npes]: the processor each PE is bound to, -1 when not bound */
static int *levels;   /* [npes][npes]: shmemx_topo_level as each PE saw it */
static int *expected; /* [npes][npes] */

static int env_int(const char *name, int otherwise)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : otherwise;
}

/* The K-th number of TEST_LEAF_OF for host pgnodeK; 0 for any other host or when unset. */
static int leaf_of(const char *host)
{
    const char *list = getenv("TEST_LEAF_OF");
    int k;
    if (!list || sscanf(host, "pgnode%d", &k) != 1)
        return 0;
    for (; k > 0 && list; k--) {
        list = strchr(list, ',');
        list = list ? list + 1 : NULL;
    }
    return list ? atoi(list) : -1;
}

static int bind_self(void)
{
    const char *rank = getenv("PMI_RANK");
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (!rank || ncpu < 2)
        return -1;
    int cpu = atoi(rank) % 2;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? cpu : -1;
}

/* Every PE's n bytes at mine to table + pe*n on every PE. */
static void share(void *table, const void *mine, size_t n)
{
    for (int pe = 0; pe < npes; pe++)
        shmem_putmem((char *)table + (size_t)me * n, mine, n, pe);
    shmem_barrier_all();
}

static void check_levels(void)
{
    int other_core = env_int("TEST_OTHER_CORE", -1);
    int *row = malloc((size_t)npes * sizeof *row);
    for (int j = 0; j < npes; j++)
        row[j] = shmemx_topo_level(j);
    share(levels, row, (size_t)npes * sizeof *row);
    free(row);
    for (int i = 0; i < npes; i++)
        for (int j = 0; j < npes; j++) {
            int got = levels[i * npes + j], want;
            const char *hi = hosts + (size_t)i * HOST_LEN, *hj = hosts + (size_t)j * HOST_LEN;
            if (i == j)
                want = SHMEMX_LEVEL_CORE;
            else if (strcmp(hi, hj) != 0)
                want = leaf_of(hi) == leaf_of(hj) ? SHMEMX_LEVEL_SWITCH : SHMEMX_LEVEL_SYSTEM;
            else if (cpus[i] >= 0 && cpus[i] == cpus[j])
                want = SHMEMX_LEVEL_CORE;
            else if (other_core >= 0)
                want = other_core;
            else {
                CHECK(got >= SHMEMX_LEVEL_NUMA && got <= SHMEMX_LEVEL_NODE &&
                          got == levels[j * npes + i],
                      "PEs %d and %d on one node share level %d, and %d the other way", i, j, got,
                      levels[j * npes + i]);
                want = got;
            }
            CHECK(got == want, "PE %d sees level %d to PE %d, want %d", i, got, j, want);
            expected[i * npes + j] = want;
        }
    CHECK(shmemx_topo_level(-1) == -1 && shmemx_topo_level(npes) == -1,
          "a PE outside the world gives -1");
}

/* The team split at level from parent holds exactly the parent's PEs that share it with me,
 * in parent order, and reduces over them. */
static void check_split(shmem_team_t parent, int level)
{
    static int sum_src, sum_dst;
    shmem_team_t team = SHMEM_TEAM_INVALID;
    int rc = shmemx_team_split_level(parent, level, NULL, 0, &team);
    CHECK(rc == 0 && team != SHMEM_TEAM_INVALID, "split at level %d: rc %d", level, rc);
    if (rc != 0 || team == SHMEM_TEAM_INVALID)
        return;
    int n = 0, sum = 0, order_ok = 1;
    for (int k = 0; k < shmem_team_n_pes(parent); k++) {
        int pe = shmem_team_translate_pe(parent, k, SHMEM_TEAM_WORLD);
        if (expected[me * npes + pe] > level)
            continue;
        order_ok &= shmem_team_translate_pe(team, n, SHMEM_TEAM_WORLD) == pe;
        sum += pe;
        n++;
    }
    CHECK(shmem_team_n_pes(team) == n && order_ok,
          "split at level %d: %d members (want %d), in parent order: %d", level,
          shmem_team_n_pes(team), n, order_ok);
    if (level == SHMEMX_LEVEL_NODE)
        CHECK(n == shmem_team_n_pes(SHMEM_TEAM_SHARED), "the NODE team is SHMEM_TEAM_SHARED");
    sum_src = me;
    shmem_int_sum_reduce(team, &sum_dst, &sum_src, 1);
    CHECK(sum_dst == sum, "split at level %d: sum of members %d, want %d", level, sum_dst, sum);
    shmem_team_destroy(team);
}

static void check_bad_arguments(const char *which)
{
    shmem_team_t team = SHMEM_TEAM_WORLD;
    if (strcmp(which, "bad_pe") == 0) {
        CHECK(shmemx_topo_level(npes) == -1, "pe = npes gives -1");
        CHECK(shmemx_topo_level(-1) == -1, "pe = -1 gives -1");
    } else if (strcmp(which, "bad_level") == 0) {
        CHECK(shmemx_team_split_level(SHMEM_TEAM_WORLD, SHMEMX_LEVEL_SYSTEM + 1, NULL, 0, &team) ==
                      -1 &&
                  team == SHMEM_TEAM_INVALID,
              "a level above SYSTEM gives -1 and SHMEM_TEAM_INVALID");
        team = SHMEM_TEAM_WORLD;
        CHECK(shmemx_team_split_level(SHMEM_TEAM_WORLD, -1, NULL, 0, &team) == -1 &&
                  team == SHMEM_TEAM_INVALID,
              "level -1 gives -1 and SHMEM_TEAM_INVALID");
    } else if (strcmp(which, "bad_parent") == 0) {
        CHECK(shmemx_team_split_level(SHMEM_TEAM_INVALID, SHMEMX_LEVEL_NODE, NULL, 0, &team) ==
                      -1 &&
                  team == SHMEM_TEAM_INVALID,
              "SHMEM_TEAM_INVALID as the parent gives -1");
        shmem_team_t gone;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &gone);
        shmem_team_destroy(gone);
        CHECK(shmemx_team_split_level(gone, SHMEMX_LEVEL_NODE, NULL, 0, &team) == -1,
              "a destroyed parent gives -1");
    }
}

int main(void)
{
    int bound = getenv("TEST_BIND") && atoi(getenv("TEST_BIND")) ? bind_self() : -1;
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    const char *mode = getenv("TEST_TOPO");
    if (mode) {
        check_bad_arguments(mode);
        int status = check_finish();
        shmem_finalize();
        return status;
    }
    hosts = shmem_calloc((size_t)npes, HOST_LEN);
    cpus = shmem_calloc((size_t)npes, sizeof *cpus);
    levels = shmem_calloc((size_t)npes * (size_t)npes, sizeof *levels);
    expected = malloc((size_t)npes * (size_t)npes * sizeof *expected);
    char host[HOST_LEN] = "";
    gethostname(host, sizeof host - 1);
    share(hosts, host, HOST_LEN);
    share(cpus, &bound, sizeof bound);
    check_levels();
    for (int level = SHMEMX_LEVEL_CORE; level <= SHMEMX_LEVEL_SYSTEM; level++)
        check_split(SHMEM_TEAM_WORLD, level);
    /* From a split team: the CORE groups within my node's team, the SWITCH group of the odd
     * world PEs (a strided parent). */
    shmem_team_t node = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    shmemx_team_split_level(SHMEM_TEAM_WORLD, SHMEMX_LEVEL_NODE, NULL, 0, &node);
    check_split(node, SHMEMX_LEVEL_CORE);
    shmem_team_destroy(node);
    if (npes > 1) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        if (odd != SHMEM_TEAM_INVALID) {
            check_split(odd, SHMEMX_LEVEL_SWITCH);
            shmem_team_destroy(odd);
        }
    }
    int status = check_finish();
    shmem_finalize();
    return status;
}
