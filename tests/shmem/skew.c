/* Process skew (issue 27): in each of 20 rounds one PE sleeps 50 ms (TEST_SKEW_MS) before a
 * barrier and again before a broadcast, and the results stay exact.
 *
 * - The late PE is, in turn, the broadcast's root, an interior PE of its tree (one that
 *   forwards to others) and a leaf (check.h, test_tree_member).
 * - The team is, in turn, WORLD and a split team of the odd PEs (which spans the nodes too).
 * - The broadcast is, in turn, small (13 B) and large (300 KiB + 5 B: several chunks of the
 *   pipelined tree, and by multicast under PANGEA_MCAST=auto).
 * Barrier: after its sleep the late PE puts a word of the round's to every member, then enters
 * the barrier (barrier_all, or quiet and team_sync); every member must find it after the barrier:
 * nobody left before the late PE arrived. Broadcast: every byte of every member's dest, and 64
 * guard bytes either side, exact. */
#include "check.h"

#define ROUNDS 20
#define SMALL 13
#define LARGE (300 * 1024 + 5)
#define GUARD 64

enum role { LATE_ROOT, LATE_INTERIOR, LATE_LEAF, NROLES };
static const char *role_names[NROLES] = {"root", "interior", "leaf"};

static int me, npes;
static int *node_of;  /* [npes] symmetric: the lowest world PE of each PE's node */
static long *arrived; /* [ROUNDS]: 1 once the round's late PE has entered its barrier (a word
                       * per round: a split team's round and WORLD's next may overlap) */
static unsigned char *region; /* GUARD + LARGE + GUARD bytes: the broadcast's dest */
static unsigned char *source;

static int world_pe(shmem_team_t team, int pe)
{
    return shmem_team_translate_pe(team, pe, SHMEM_TEAM_WORLD);
}

/* The member of team (team numbering) that the round makes late, for a broadcast from root. */
static int late_member(shmem_team_t team, enum role role, int root)
{
    if (role == LATE_ROOT)
        return root;
    return test_tree_member(team, role == LATE_LEAF ? TEST_TREE_LEAF : TEST_TREE_INTERIOR, root,
                            node_of);
}

static void sleep_if(int late)
{
    if (late)
        test_sleep_us(atol(getenv("TEST_SKEW_MS") ? getenv("TEST_SKEW_MS") : "50") * 1000);
}

static void round_of(int r, shmem_team_t split)
{
    shmem_team_t team = r % 2 ? split : SHMEM_TEAM_WORLD;
    size_t len = (r / 2) % 2 ? LARGE : SMALL;
    enum role role = (enum role)(r % NROLES);
    if (team == SHMEM_TEAM_INVALID)
        return;
    int n = shmem_team_n_pes(team), my = shmem_team_my_pe(team);
    if (n < 2)
        return;
    int root = (r / 4) % n;
    int late = late_member(team, role, root);

    sleep_if(my == late);
    if (my == late) {
        for (int i = 0; i < n; i++)
            shmem_long_p(&arrived[r], 1, world_pe(team, i));
    }
    if (team == SHMEM_TEAM_WORLD) {
        shmem_barrier_all();
    } else {
        shmem_quiet();
        shmem_team_sync(team);
    }
    CHECK(arrived[r] == 1, "round %d (%s late, member %d): barrier left before the late PE came", r,
          role_names[role], late);

    test_fill_guard(region, GUARD + LARGE + GUARD);
    test_fill_bytes(source, len, root, (unsigned)r);
    /* Every member's dest is ready before anyone broadcasts into it. */
    if (team == SHMEM_TEAM_WORLD)
        shmem_barrier_all();
    else
        shmem_team_sync(team);
    sleep_if(my == late);
    shmem_broadcastmem(team, region + GUARD, source, len, root);
    size_t bad = test_bad_byte(region + GUARD, len, root, (unsigned)r);
    CHECK(bad == SIZE_MAX, "round %d (%s late, member %d, root %d, %zu B): byte %zu wrong", r,
          role_names[role], late, root, len, bad);
    size_t below = test_bad_guard(region, 0, GUARD);
    size_t above = test_bad_guard(region, GUARD + len, GUARD + len + GUARD);
    CHECK(below == SIZE_MAX, "round %d (%zu B): guard byte %zu before dest changed", r, len,
          GUARD - below);
    CHECK(above == SIZE_MAX, "round %d (%zu B): guard byte %zu after dest changed", r, len,
          above - GUARD - len);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    node_of = shmem_calloc((size_t)npes, sizeof *node_of);
    arrived = shmem_calloc(ROUNDS, sizeof *arrived);
    region = shmem_malloc(GUARD + LARGE + GUARD);
    source = shmem_malloc(LARGE);
    test_node_table(node_of);

    shmem_team_t split = SHMEM_TEAM_INVALID;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &split);
    for (int r = 0; r < ROUNDS; r++)
        round_of(r, split);

    shmem_barrier_all();
    if (split != SHMEM_TEAM_INVALID)
        shmem_team_destroy(split);
    int status = check_finish();
    shmem_free(source);
    shmem_free(region);
    shmem_free(arrived);
    shmem_free(node_of);
    shmem_finalize();
    return status;
}
