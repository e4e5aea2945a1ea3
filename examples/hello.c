/* hello: every PE writes its number into its right neighbour's symmetric buffer, then checks
 * what its left neighbour wrote. Build: oshcc -o hello hello.c; run: oshrun -np 4 ./hello */
#include <shmem.h>
#include <stdio.h>

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int *from_left = shmem_malloc(sizeof *from_left);
    *from_left = -1;
    shmem_barrier_all();

    shmem_int_p(from_left, me, (me + 1) % npes);
    shmem_barrier_all();

    int expected = (me + npes - 1) % npes;
    int ok = *from_left == expected;
    printf("PE %d of %d: left neighbour wrote %d (%s)\n", me, npes, *from_left,
           ok ? "ok" : "WRONG");
    shmem_free(from_left);
    shmem_finalize();
    return ok ? 0 : 1;
}
