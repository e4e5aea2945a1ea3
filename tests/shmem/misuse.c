/* Mistakes a program makes without SHMEM_DEBUG, which must stop the job with a message naming
 * the program's call rather than crash or name an internal step (list lines: expect=fail:REGEX).
 * TEST_MISUSE picks the mistake:
 *
 *   before_init     shmem_long_p before shmem_init (shmem_my_pe and shmem_n_pes answer -1)
 *   after_finalize  shmem_barrier_all after shmem_finalize
 *   coll_dest       shmem_double_alltoall into a stack array (dest is not symmetric)
 *
 * If the call returns, the test says so and exits 0, which the list counts as a failure. */
#include "check.h"

static long target;

int main(void)
{
    const char *mode = getenv("TEST_MISUSE");
    if (!mode)
        mode = "(unset)";
    if (strcmp(mode, "before_init") == 0) {
        if (shmem_my_pe() != -1 || shmem_n_pes() != -1)
            printf("FAIL misuse: shmem_my_pe/shmem_n_pes before shmem_init are not -1\n");
        else
            shmem_long_p(&target, 1, 0);
    } else if (strcmp(mode, "after_finalize") == 0) {
        shmem_init();
        shmem_finalize();
        shmem_barrier_all();
    } else if (strcmp(mode, "coll_dest") == 0) {
        shmem_init();
        double dest[64];
        double *source = shmem_calloc(64, sizeof *source);
        shmem_double_alltoall(SHMEM_TEAM_WORLD, dest, source, 1);
        shmem_finalize();
    } else {
        fprintf(stderr, "TEST_MISUSE=%s: unknown mode\n", mode);
        return 1;
    }
    printf("misuse %s: the call returned\n", mode);
    return 0;
}
