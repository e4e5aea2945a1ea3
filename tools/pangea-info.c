/* pangea-info: what this Pangea installation is and how it is tuned: version, install prefix,
 * library file, the MPICH and libfabric it runs on, the transports it can use, every tunable
 * with its current value (and meaning with --all), and the pages a symmetric heap would get on
 * this node. Options: --help, --version, --all, --param NAME, --doc (the environment-variable
 * table of docs/user-guide.md), --footprint NPES PES_PER_NODE (the library's memory in a job of
 * that size, from the formulas the library sizes its buffers and tables with: docs/scaling.md),
 * --topology (this machine as hwloc sees it: docs/topology.md).
 * Lines are at most 100 characters. */
#define _GNU_SOURCE /* open_memstream */
#include "coll/coll.h"
#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"
#include "transport/transport.h"

#include <limits.h>
#include <mpi.h>
#include <rdma/fabric.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    printf("per_pe_client_peer_addresses_bytes %zu\n", client.peers);
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

static const char usage[] =
    "usage: pangea-info [--all | --param NAME | --doc | --topology |\n"
    "                    --footprint NPES PES_PER_NODE]\n"
    "       pangea-info --help | --version\n"
    "  (none)        version, installation, transports, every tunable's value, heap pages\n"
    "  --all         the same with each tunable's meaning\n"
    "  --param NAME  one tunable: value, where it came from, default and meaning\n"
    "  --doc         the environment-variable table of the user guide (Markdown)\n"
    "  --topology    this machine from hwloc: packages, NUMA domains, cores, caches, NICs\n"
    "  --footprint NPES PES_PER_NODE\n"
    "                the library's memory per PE and per node's server in a job of that size\n";

/* The install prefix is the parent of this tool's bin/ (the build directory in a build tree),
 * and the library the one in its lib/. */
static void print_installation(FILE *out)
{
    char exe[PATH_MAX], path[PATH_MAX + 32], real[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    *slash = '\0';
    snprintf(path, sizeof path, "%s/..", exe);
    fprintf(out, "prefix: %s\n", realpath(path, real) ? real : path);
    snprintf(path, sizeof path, "%s/../lib/libpangea.so", exe);
    fprintf(out, "library: %s\n",
            realpath(path, real) ? real : "libpangea.so not found next to this tool");
}

static void print_versions(FILE *out)
{
    char mpi[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(mpi, &len);
    mpi[strcspn(mpi, "\n")] = '\0'; /* MPICH's first line: its version */
    for (char *tab = strchr(mpi, '\t'); tab; tab = strchr(tab, '\t'))
        *tab = ' ';
    uint32_t fi = fi_version();
    fprintf(out, "MPI: %s\nlibfabric: %u.%u\n", mpi, FI_MAJOR(fi), FI_MINOR(fi));
}

static void report(FILE *out, int meanings)
{
    fprintf(out, "Pangea %s (OpenSHMEM 1.6, ARMCI)\n", PG_VERSION_STRING);
    print_installation(out);
    fprintf(out, "build: %s %s\n", PG_BUILD_CC, PG_BUILD_FLAGS);
    print_versions(out);
    fprintf(out, "\ntransports:\n");
    fprintf(out,
            "  shm   PEs on the same node: mapped symmetric heap and static data, CPU atomics\n");
    if (pg_net_init(0) == 0) {
        pg_config_check_provider(pg_net_provider());
        pg_net_describe(out);
        pg_net_fini();
    } else if (pg_cfg.transport == PG_TRANSPORT_MPI) {
        fprintf(out, "  mpi   MPI messages between nodes, opened by shmem_init once MPI runs "
                     "(MPI_THREAD_MULTIPLE)\n");
    } else {
        fprintf(out, "  ofi   no usable libfabric provider: jobs must stay on one node\n");
    }
    fprintf(out,
            "\ntunables (environment variables; SMA_ spellings of SHMEM_ ones are accepted%s):\n",
            meanings ? "" : "; --all shows their meanings");
    pg_config_print(out, meanings);
    fprintf(out, "\n");
    pg_pages_describe(out, (int)pg_cfg.huge_pages, (size_t)pg_cfg.symmetric_size);
}

/* Prints text with every line longer than 100 characters wrapped at its indentation. */
static void print_narrow(char *text)
{
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        *end = '\0';
        int indent = (int)strspn(line, " ");
        if (line[indent] == '\0')
            putchar('\n');
        else
            pg_print_wrapped(stdout, indent, line + indent);
    }
}

int main(int argc, char **argv)
{
    int status = pg_config_load();
    const char *option = argc >= 2 ? argv[1] : "";
    if (strcmp(option, "--help") == 0 || strcmp(option, "-h") == 0) {
        fputs(usage, stdout);
        return 0;
    }
    if (strcmp(option, "--version") == 0) {
        printf("pangea-info (Pangea) %s\n", PG_VERSION_STRING);
        return 0;
    }
    if (strcmp(option, "--footprint") == 0 && argc == 4)
        return status == 0 ? footprint(argv[2], argv[3]) : 1;
    if (strcmp(option, "--param") == 0 && argc == 3) {
        if (pg_config_print_one(stdout, argv[2]) == 0)
            return status == 0 ? 0 : 1;
        fprintf(stderr, "pangea-info: %s is not a tunable (pangea-info --all lists them)\n",
                argv[2]);
        return 1;
    }
    if (strcmp(option, "--topology") == 0 && argc == 2)
        return pg_topo_describe_machine(stdout) == 0 ? 0 : 1;
    if (strcmp(option, "--doc") == 0 && argc == 2) {
        pg_config_print_doc(stdout);
        return 0;
    }
    if (argc > 2 || (argc == 2 && strcmp(option, "--all") != 0)) {
        fputs(usage, stderr);
        return 2;
    }
    char *text = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&text, &size);
    if (!out)
        return 1;
    report(out, argc == 2);
    fclose(out);
    print_narrow(text);
    free(text);
    pg_config_warn_unknown(stderr);
    return status == 0 ? 0 : 1;
}
