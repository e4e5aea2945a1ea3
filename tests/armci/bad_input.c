/* Bad arguments stop the job with a message naming the call and the argument. TEST_BAD picks
 * the mistake (tests.list checks the message); process 0 makes it, the others wait in a
 * barrier that never completes (the job must still end promptly). */
#include "armci_check.h"

#include <message.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    int me, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    void **base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, 1024);
    const char *bad = getenv("TEST_BAD");
    if (!bad)
        bad = "";
    /* group_area: the last process allocates over a group of itself; process 0 addresses its
     * own area past the extent it grew to (on its node or at its data server). */
    char *group_object = NULL;
    if (!strcmp(bad, "group_area")) {
        int last = nproc - 1;
        ARMCI_Group alone;
        ARMCI_Group_create(1, &last, &alone);
        if (me == last)
            ARMCI_Malloc_group((void **)&group_object, 4096, &alone);
        MPI_Bcast(&group_object, sizeof group_object, MPI_BYTE, last, MPI_COMM_WORLD);
    }
    if (me == 0) {
        char local[1024];
        int stride[9] = {8, 8, 8, 8, 8, 8, 8, 8, 8}, count[10] = {8, 1, 1, 1, 1, 1, 1, 1, 1, 1};
        double one = 1;
        if (!strcmp(bad, "proc"))
            ARMCI_Put(local, base[0], 8, nproc); /* unknown process */
        else if (!strcmp(bad, "address"))
            ARMCI_Get(local, local + 8, 8, 0); /* src is not ARMCI memory */
        else if (!strcmp(bad, "bounds"))
            ARMCI_Put(local, (char *)base[0] + 1000, 1024 * 1024 * 1024, 0); /* runs past */
        else if (!strcmp(bad, "levels"))
            ARMCI_PutS(local, stride, base[0], stride, count, 9, 0); /* stride level 9 */
        else if (!strcmp(bad, "bytes"))
            ARMCI_Put(local, base[0], -1, 0);    /* negative count */
        else if (!strcmp(bad, "strided_bounds")) /* the last row runs past the block */
            ARMCI_PutS(local, (int[]){1024}, base[0], (int[]){1024}, (int[]){8, 4}, 1, 0);
        else if (!strcmp(bad, "iov_len"))
            ARMCI_PutV(NULL, -2, 0);
        else if (!strcmp(bad, "msg_len"))
            armci_msg_snd(1, local, -1, nproc - 1);
        else if (!strcmp(bad, "count"))
            ARMCI_GetS(base[0], stride, local, stride, (int[]){8, -3}, 1, 0);
        else if (!strcmp(bad, "acc_type"))
            ARMCI_Acc(42, &one, local, base[0], 8, 0);
        else if (!strcmp(bad, "rmw_op"))
            ARMCI_Rmw(9, local, base[0], 1, 0);
        else if (!strcmp(bad, "gop_op"))
            armci_msg_igop((int *)local, 1, "xor");
        else if (!strcmp(bad, "gop_bitwise_double")) /* bitwise operators take integers */
            armci_msg_dgop((double *)local, 1, "|");
        else if (!strcmp(bad, "gop_bitwise_float"))
            armci_msg_gop_scope(SCOPE_ALL, local, 1, "band", ARMCI_FLOAT);
        else if (!strcmp(bad, "error"))
            ARMCI_Error("the program gives up", 42);
        else if (!strcmp(bad, "abort"))
            armci_msg_abort(7);
        else if (!strcmp(bad, "group_area")) /* 1 GiB on: past the area's extent */
            ARMCI_Put(local, group_object + ((size_t)1 << 30), 8, nproc - 1);
        else if (!strcmp(bad, "lock"))
            ARMCI_Lock(0, 0); /* no mutexes were created */
        printf("no error for '%s'\n", bad);
    }
    return test_end(base);
}
