/* A PE that leaves while others still wait for it, or a job whose PEs all wait for each other,
 * ends the job with a message instead of hanging; a job that is only slow is left alone.
 * TEST_CAUSE:
 *  - exit0: PE 1 calls exit(0) (an implicit shmem_finalize) while the others are in
 *    shmem_barrier_all: its finalize must not pass for their barrier;
 *  - finalize: every PE but 0 calls shmem_finalize while PE 0 waits in shmem_wait_until for a
 *    flag nobody will set;
 *  - team: PE 1 exits while PEs 0 and 2 sync on a team that holds it (the rest finalize);
 *  - deadlock: every PE waits in shmem_wait_until for a flag nobody will set;
 *  - cut (2 PEs on 2 emulated nodes, one rail, retransmission on): PE 0 takes its node's link
 *    TEST_LINK down, adds to PE 1's flag and waits for its own: its add goes again and again,
 *    unanswered, and the hang watch must end the job saying so (PANGEA_HANG_SILENT);
 *  - slow (must pass): PE 1 computes for 3 s, then sets PE 0's flag, which PE 0 waits for while
 *    the others wait in shmem_barrier_all;
 *  - slow_finalize (must pass): PE 1 finalizes at once, the others compute for 3 s first. */
#include "check.h"

#include <unistd.h>

static long flag;

int main(void)
{
    const char *cause = getenv("TEST_CAUSE") ? getenv("TEST_CAUSE") : "exit0";
    shmem_init();
    int me = shmem_my_pe(); /* at least 3 PEs */
    shmem_barrier_all();
    if (strcmp(cause, "exit0") == 0) {
        if (me == 1) {
            test_sleep_us(200000);
            exit(0);
        }
        shmem_barrier_all();
    } else if (strcmp(cause, "finalize") == 0) {
        if (me != 0) {
            shmem_finalize();
            return 0;
        }
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    } else if (strcmp(cause, "team") == 0) {
        shmem_team_t team;
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 3, NULL, 0, &team);
        if (me == 1) {
            test_sleep_us(200000);
            exit(0);
        }
        if (team == SHMEM_TEAM_INVALID) {
            shmem_finalize();
            return 0;
        }
        shmem_team_sync(team);
    } else if (strcmp(cause, "deadlock") == 0) {
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    } else if (strcmp(cause, "cut") == 0) {
        if (me == 0) {
            char command[128];
            snprintf(command, sizeof command, "ip link set dev %s down",
                     getenv("TEST_LINK") ? getenv("TEST_LINK") : "pgeth1");
            CHECK(system(command) == 0, "%s failed", command);
            shmem_long_atomic_add(&flag, 1, 1);
        }
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
    } else if (strcmp(cause, "slow") == 0) {
        if (me == 1) {
            sleep(3);
            shmem_long_p(&flag, 1, 0);
        } else if (me == 0) {
            shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        }
        shmem_barrier_all();
        CHECK(me != 0 || flag == 1, "flag %ld", flag);
        return check_finish();
    } else if (strcmp(cause, "slow_finalize") == 0) {
        int failures = check_finish();
        if (me != 1)
            sleep(3);
        shmem_finalize();
        return failures;
    }
    fprintf(stderr, "PE %d: went on past TEST_CAUSE=%s\n", me, cause);
    return 1;
}
