/* Settings that every PE must share: PEs of odd rank (PMI_RANK, set by the launcher before
 * shmem_init) run with TEST_ODD_POOL as PANGEA_SERVER_POOL, so shmem_init must stop the job
 * naming the variable and both values (the list checks the message). */
#include "check.h"

#include <shmem.h>
#include <stdlib.h>

int main(void)
{
    const char *rank = getenv("PMI_RANK"), *odd = getenv("TEST_ODD_POOL");
    if (rank && odd && atoi(rank) % 2)
        setenv("PANGEA_SERVER_POOL", odd, 1);
    shmem_init();
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
