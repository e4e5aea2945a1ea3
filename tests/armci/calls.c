/* The calls the other tests do not reach: initialization through ARMCI_Init_mpi_comm (with
 * ARMCI_Init_thread and repeated init), ARMCI_Initialized before and after, the memdev
 * allocation forms, ARMCI_Set_shm_limit, armci_msg_reduce_scope, ARMCI_Cleanup, and
 * ARMCI_Finalize twice. (ARMCI_Error and armci_msg_abort end the job: bad_input has them.) */
#include "armci_check.h"

#include <armcix.h>
#include <message.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    int me, nproc;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(!ARMCI_Initialized(), "ARMCI_Initialized before init");
    CHECK(ARMCI_Init_mpi_comm(MPI_COMM_WORLD) == 0, "ARMCI_Init_mpi_comm");
    CHECK(ARMCI_Init_thread(MPI_THREAD_MULTIPLE) == 0 && ARMCI_Init() == 0, "repeated init");
    CHECK(ARMCI_Initialized(), "ARMCI_Initialized after init");

    /* memdev forms: any device name, ordinary ARMCI memory. */
    void **ptrs = malloc(nproc * sizeof(void *));
    CHECK(ARMCI_Malloc_memdev(ptrs, 64, "DDR") == 0, "ARMCI_Malloc_memdev");
    ARMCI_PutValueInt(me, (char *)ptrs[(me + 1) % nproc] + 4, (me + 1) % nproc);
    ARMCI_Barrier();
    CHECK(*(int *)((char *)ptrs[me] + 4) == (me + nproc - 1) % nproc, "memdev memory");
    ARMCI_Free_memdev(ptrs[me]);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    CHECK(ARMCI_Malloc_group_memdev(ptrs, 32, &world, "HBM") == 0, "ARMCI_Malloc_group_memdev");
    ARMCI_Free_group(ptrs[me], &world);

    /* The shared-memory limit: a larger request fails everywhere, nothing is allocated. */
    ARMCI_Set_shm_limit(1000);
    CHECK(ARMCI_Malloc(ptrs, 2000) != 0, "ARMCI_Malloc over the limit succeeded");
    CHECK(ARMCI_Malloc(ptrs, 500) == 0, "ARMCI_Malloc under the limit failed");
    ARMCI_Free(ptrs[me]);
    ARMCI_Set_shm_limit(0);

    /* Reductions to process 0 within a scope. */
    long x = me + 1;
    armci_msg_reduce_scope(SCOPE_ALL, &x, 1, "+", ARMCI_LONG);
    if (me == 0)
        CHECK(x == (long)nproc * (nproc + 1) / 2, "reduce_scope ALL %ld", x);
    double y = me + 1.0;
    armci_msg_reduce_scope(SCOPE_NODE, &y, 1, "max", ARMCI_DOUBLE);
    if (armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, armci_domain_my_id(ARMCI_DOMAIN_SMP), 0) ==
        me) {
        int last = armci_domain_glob_proc_id(
            ARMCI_DOMAIN_SMP, armci_domain_my_id(ARMCI_DOMAIN_SMP),
            armci_domain_nprocs(ARMCI_DOMAIN_SMP, armci_domain_my_id(ARMCI_DOMAIN_SMP)) - 1);
        CHECK(y == last + 1.0, "reduce_scope NODE %g, want %d", y, last + 1);
    }

    ARMCIX_Progress();
    ARMCI_Cleanup();
    free(ptrs);
    int rc = check_finish();
    CHECK(ARMCI_Finalize() == 0 && ARMCI_Finalize() == 0, "ARMCI_Finalize twice");
    CHECK(!ARMCI_Initialized(), "ARMCI_Initialized after finalize");
    MPI_Finalize();
    return rc || check_failures_;
}
