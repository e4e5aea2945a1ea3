/* pangea-info: what this Pangea build is and how it is tuned: version, build options, the
 * transports it can use, and every tunable with its current value and meaning. */
#include "runtime/runtime.h"
#include "transport/transport.h"

#include <stdio.h>

int main(void)
{
    int status = pg_config_load();
    printf("Pangea %s — OpenSHMEM 1.6\n", PG_VERSION_STRING);
    printf("build: %s %s\n", PG_BUILD_CC, PG_BUILD_FLAGS);
    printf("transports:\n");
    printf("  shm   PEs on the same node: mapped symmetric heap and static data, CPU atomics\n");
    if (pg_net_init(0) == 0) {
        pg_config_check_provider(pg_net_provider());
        pg_net_describe(stdout);
        pg_net_fini();
    } else {
        printf("  ofi   no usable libfabric provider: jobs must stay on one node\n");
    }
    printf("\ntunables (environment variables; SMA_ spellings of SHMEM_ ones are accepted):\n");
    pg_config_print(stdout);
    return status == 0 ? 0 : 1;
}
