/* shmem_global_exit: the last PE calls shmem_global_exit(7) while the other PEs block, half of
 * them in shmem_barrier_all and half in a wait that is never satisfied. The whole job must end
 * with exit status 7 (list line: expect=status:7), and the text the exiting PE printed without a
 * newline or fflush must appear: shmem_global_exit flushes stdio. */
#include "check.h"

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *never = shmem_calloc(1, sizeof(long));
    shmem_barrier_all();
    if (me == npes - 1) {
        test_sleep_us(200000); /* the others are blocked by now */
        printf("global-exit-flushed-stdout-of-PE-%d", me);
        shmem_global_exit(7);
    }
    if (me % 2)
        shmem_long_wait_until(never, SHMEM_CMP_NE, 0);
    else
        shmem_barrier_all();
    fprintf(stderr, "PE %d: still running after another PE called shmem_global_exit\n", me);
    return 1;
}
