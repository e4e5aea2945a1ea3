/* pangea-info: what this Pangea build is and how it is tuned: version, build options, the
 * transports it can use, every tunable with its current value and meaning, and the pages a
 * symmetric heap would get on this node.
 * pangea-info --footprint NPES PES_PER_NODE: the library's memory in a job of that size, from
 * the formulas the library sizes its buffers and tables with (docs/scaling.md). */
#include "coll/coll.h"
#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "transport/transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int positive(const char *text, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    *out = (size_t)v;
    return *text && !*end && v > 0;
}

/* One PE at its largest sends to every node; the node's server at its largest has every PE of
 * the other nodes as a source and its pool at PANGEA_SERVER_POOL. */
static int footprint(const char *npes_text, const char *ppn_text)
{
    size_t npes, ppn;
    if (!positive(npes_text, &npes) || !positive(ppn_text, &ppn)) {
        fprintf(stderr,
                "pangea-info: --footprint NPES PES_PER_NODE: two positive whole numbers (got "
                "'%s' '%s')\n",
                npes_text, ppn_text);
        return 2;
    }
    ppn = ppn < npes ? ppn : npes;
    /* On one node every PE is reached by load/store: no client, no server. */
    struct pg_pipe_counts pn = pg_pipe_worst(npes, ppn);
    struct pg_pipe_bytes client = pn.nnodes > 1 ? pg_pipe_model(&pn) : (struct pg_pipe_bytes){0};
    size_t tables = pg_boot_table_bytes(npes, ppn) + pg_mem_table_bytes(npes, ppn) +
                    pg_coll_table_bytes(npes, ppn);
    struct pg_ds_server_counts sn = pg_ds_server_worst(npes, ppn);
    struct pg_ds_server_bytes server =
        pn.nnodes > 1 ? pg_ds_server_model(&sn) : (struct pg_ds_server_bytes){0};
    size_t internal = pg_mem_internal_size(pg_coll_internal_bytes(npes, ppn));
    printf("npes %zu\npes_per_node %zu\nnodes %zu\n", npes, ppn, pn.nnodes);
    printf("per_pe_bytes %zu\n", client.total + tables + internal);
    printf("per_pe_client_bytes %zu\n", client.total);
    printf("per_pe_client_send_region_bytes %zu\n", client.send_region);
    printf("per_pe_client_reply_bytes %zu\n", client.replies);
    printf("per_pe_client_pending_bytes %zu\n", client.pending);
    printf("per_pe_client_per_node_bytes %zu\n", client.links);
    printf("per_pe_client_request_records_bytes %zu\n", client.sent);
    printf("per_pe_client_batch_bytes %zu\n", client.batches);
    printf("per_pe_client_direct_rma_regions_bytes %zu\n", client.regions);
    printf("per_pe_tables_bytes %zu\n", tables);
    printf("per_pe_world_table_bytes %zu\n", pg_boot_table_bytes(npes, ppn));
    printf("per_pe_segment_table_bytes %zu\n", pg_mem_table_bytes(npes, ppn));
    printf("per_pe_collective_table_bytes %zu\n", pg_coll_table_bytes(npes, ppn));
    printf("per_pe_internal_area_bytes %zu\n", internal);
    printf("per_pe_collective_channel_bytes %zu\n", pg_coll_internal_bytes(npes, ppn));
    printf("per_node_server_bytes %zu\n", server.total);
    printf("server_pool_bytes %zu\n", server.pool);
    printf("server_pool_start_bytes %zu\n", pn.nnodes > 1 ? 2 * pg_ds_segment_bytes() : 0);
    printf("server_reply_bytes %zu\n", server.replies);
    printf("server_table_bytes %zu\n", server.tables);
    printf("server_source_records_bytes %zu\n", server.sources);
    printf("server_arrivals_bytes %zu\n", server.arrivals);
    return 0;
}

int main(int argc, char **argv)
{
    int status = pg_config_load();
    if (argc >= 2 && strcmp(argv[1], "--footprint") == 0) {
        if (argc != 4) {
            fprintf(stderr, "usage: pangea-info [--footprint NPES PES_PER_NODE]\n");
            return 2;
        }
        return status == 0 ? footprint(argv[2], argv[3]) : 1;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: pangea-info [--footprint NPES PES_PER_NODE]\n");
        return 2;
    }
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
    printf("\n");
    pg_pages_describe(stdout, (int)pg_cfg.huge_pages, (size_t)pg_cfg.symmetric_size);
    return status == 0 ? 0 : 1;
}
