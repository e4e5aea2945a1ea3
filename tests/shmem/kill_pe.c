/* A PE dies: after init and a barrier, PE 1 kills itself with SIGKILL while the others wait in
 * shmem_barrier_all. The job must end promptly with a non-zero status (list line: expect=fail)
 * and leave no shared-memory objects behind (the runner checks /dev/shm right after it). */
#include "check.h"

#include <signal.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned char *heap = shmem_malloc((size_t)1 << 20);
    if (heap) /* touch the heap so that its segment is really in use */
        memset(heap, me, (size_t)1 << 20);
    shmem_barrier_all();
    if (npes < 2) {
        fprintf(stderr, "kill_pe needs at least 2 PEs\n");
        return 2;
    }
    if (me == 1) {
        test_sleep_us(200000); /* the others are in the barrier by now */
        raise(SIGKILL);
    }
    shmem_barrier_all();
    fprintf(stderr, "PE %d: shmem_barrier_all completed although PE 1 was killed\n", me);
    return 1;
}
