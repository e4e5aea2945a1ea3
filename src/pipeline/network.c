/* Bringing the network path up and down: endpoints, address exchange, the server thread. */
#include "pipe_internal.h"

#include "memory/memory.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdlib.h>
#include <string.h>

static int network_up;
/* Set while the endpoints are closed by pg_pipe_suspend, until pg_pipe_resume. */
static int suspended;

/* A server sizes its pool and grants by its own settings and clients send by theirs, so every
 * PE must run with the same ones (a tuning file applied on some hosts only would break it). */
static void check_same_settings(void)
{
    static const char *const name[] = {"PANGEA_PIPELINE_BUFFERS", "PANGEA_PIPELINE_BUFFER_SIZE",
                                       "PANGEA_SERVER_POOL", "PANGEA_CHECKSUM",
                                       "PANGEA_TEST_DROP_ACKS"};
    long long mine[] = {pg_cfg.pipeline_buffers, pg_cfg.pipeline_buffer_size, pg_cfg.server_pool,
                        pg_cfg.checksum, pg_cfg.test_drop_acks};
    enum { SETTINGS = sizeof mine / sizeof mine[0] };
    long long least[SETTINGS], most[SETTINGS];
    pg_boot_minmax(mine, least, most, SETTINGS);
    for (int i = 0; i < SETTINGS; i++)
        if (least[i] != most[i])
            pg_fatal("shmem_init",
                     "%s is %lld on some PEs and %lld on others: every PE needs the same (check "
                     "the environment and the tuning file's host pattern)",
                     name[i], least[i], most[i]);
}

/* Where my node's server leaves my segments' registrations for me: my internal symmetric
 * area, which it reaches by load/store and a PE of another node by a get, at the same offset
 * on every PE (its offset there). Carved once per init (pg_pipe_restart keeps it). */
static size_t regions_offset;
/* Where my endpoint's name is left for direct signals' senders (pipe_client_open). */
static size_t name_offset;

/* Parts [first, last] of every PE of the node, into the PEs' tables (by part id). */
static void publish_regions(int first, int last)
{
    for (int i = 0; i < pg_world.local_size; i++) {
        int pe = pg_world.local_pes[i];
        struct pg_ds_region *theirs = pg_mem_record_of(pe, regions_offset);
        for (int id = first; id <= last; id++)
            theirs[id] = pg_ds_server_region(pe, id);
    }
}

/* Opens the client endpoint (and the server's on node-local rank 0) sized by the current
 * pg_cfg, exchanges the servers' addresses and starts the servers. Collective. */
static void open_endpoints(void)
{
    if (pg_cfg.pipeline_buffers < 1 || pg_cfg.pipeline_buffer_size < 64)
        pg_fatal("shmem_init", "PANGEA_PIPELINE_BUFFERS must be at least 1 and "
                               "PANGEA_PIPELINE_BUFFER_SIZE at least 64 bytes");
    int leader = pg_world.local_rank == 0;
    char mine[PG_NET_ADDR_MAX] = {0};
    long long name_bytes = 0, shortest, longest;
    if (leader) {
        pg_ds_server_open();
        publish_regions(0, PG_MEM_PARTS - 1);
        if (!(name_bytes = (long long)pg_net_ep_name(pg_ds_server_ep(), mine)))
            pg_fatal("shmem_init", "endpoint address longer than %d bytes", PG_NET_ADDR_MAX);
        pg_phase_end(PG_PHASE_SERVER_OPEN);
    }
    char(*names)[PG_NET_ADDR_MAX] = malloc((size_t)pg_world.nnodes * sizeof *names);
    if (!names)
        pg_fatal("shmem_init", "out of memory for the servers' addresses");
    pg_boot_leaders_allgather(mine, names, sizeof mine);
    pg_phase_end(PG_PHASE_ADDRESS_EXCHANGE);
    pg_net_check_reach((const char(*)[PG_NET_ADDR_MAX])names, pg_world.nnodes, pg_world.node);
    /* A rail can fail only where requests are kept until done: with several rails anywhere,
     * every PE keeps them (a server answers a repeated fetch-add from its kept reply only
     * with retransmission on). */
    long long rails = pg_net_rails(), fewest, most;
    pg_boot_minmax(&rails, &fewest, &most, 1);
    pg_net_set_failover(most > 1);
    /* Each PE keeps the servers' names as long as the job's longest, not PG_NET_ADDR_MAX. */
    pg_boot_minmax(&name_bytes, &shortest, &longest, 1);
    pipe_client_open((const char(*)[PG_NET_ADDR_MAX])names, (size_t)longest, regions_offset,
                     name_offset);
    free(names);
    pg_phase_end(PG_PHASE_NET_OPEN);
    if (leader) {
        size_t kept_bytes;
        const void *kept = pg_pipe_server_name(0, &kept_bytes);
        pg_ds_server_peers(kept, kept_bytes);
        pg_ds_server_start();
        pg_phase_end(PG_PHASE_SERVER_START);
    }
    network_up = 1;
    pg_boot_barrier(); /* every server is listening before anyone sends */
    pg_phase_end(PG_PHASE_NET_BARRIER);
}

/* With SHMEM_INFO and retransmission on, each PE says at finalize what the network did to
 * its messages (a host PE adds what its node's server refused and answered again). */
static void report_faults(void)
{
    if (!pg_cfg.info || !pg_ds_reliable())
        return;
    struct pg_pipe_faults f = pg_pipe_faults();
    char server[160] = "";
    if (pg_world.local_rank == 0) {
        struct pg_ds_server_stats st = pg_ds_server_stats();
        snprintf(server, sizeof server,
                 "; its node's server: %llu corrupt requests refused, %llu repeated ones "
                 "answered",
                 (unsigned long long)st.corrupt, (unsigned long long)st.duplicates);
    }
    fprintf(stderr,
            "pangea: PE %d: network faults: %llu corrupt replies refused, %llu requests sent "
            "again%s\n",
            pg_world.me, (unsigned long long)f.corrupt_replies,
            (unsigned long long)f.retransmissions, server);
}

/* With SHMEM_INFO and several rails, each PE says at finalize what each rail of its endpoint
 * carried and how it fared (a host PE adds its node's server's); tests/netns/rails.sh reads
 * these lines. */
static void report_rails(struct pg_net_ep *ep, const char *who)
{
    struct pg_net_rail_traffic t;
    const char *name;
    if (!pg_cfg.info)
        return;
    for (int r = 0; (name = pg_net_rail_traffic(ep, r, &t)); r++)
        fprintf(stderr,
                "pangea: PE %d: %s rail %s: %llu messages sent (%llu striped), %llu bytes; "
                "taken out %llu times, %llu probes sent, %llu rounds unanswered, back in use "
                "%llu times\n",
                pg_world.me, who, name, t.messages, t.striped, t.bytes, t.outs, t.probes,
                t.unanswered, t.reuses);
}

/* Every PE has closed its links (pipe_client_closing) and passed a barrier: nothing is in
 * flight anywhere. */
static void close_endpoints(void)
{
    if (pg_world.local_rank == 0) {
        struct pg_ds_header stop = {.version = PG_DS_PROTOCOL_VERSION,
                                    .type = PG_DS_STOP,
                                    .source = (uint32_t)pg_world.me,
                                    .key = pg_world.job_key};
        if (pg_cfg.checksum)
            pg_ds_seal(&stop, sizeof stop);
        pg_pipe_send_raw(pg_world.node, &stop, sizeof stop);
        pg_ds_server_stop();
    }
    pipe_client_close();
    network_up = 0;
}

/* The retransmission tunables (docs/reliability.md), checked on one node too. */
static void check_reliability_settings(void)
{
    if (pg_cfg.retransmit_min_us < 1 || pg_cfg.retransmit_min_us > 1000000)
        pg_fatal("shmem_init",
                 "PANGEA_RETRANSMIT_MIN_US is %lld: it must be 1 to 1000000 "
                 "(microseconds)",
                 (long long)pg_cfg.retransmit_min_us);
    if (pg_cfg.test_drop_acks < 0 || pg_cfg.test_drop_acks == 1)
        pg_fatal("shmem_init",
                 "PANGEA_TEST_DROP_ACKS is %lld: it must be 0 (off) or at least 2 "
                 "(1 in N replies dropped)",
                 (long long)pg_cfg.test_drop_acks);
}

int pg_pipe_init(void)
{
    /* Checked on one node too: the same program and settings may run across nodes next. */
    check_same_settings();
    check_reliability_settings();
    pg_ds_check_pool();
    if (pg_world.nnodes == 1)
        return 0; /* every PE is reached by load/store */
    /* Messages up to the largest chunk pangea-tune tries stay eager after a restart. */
    size_t largest = (size_t)pg_cfg.pipeline_buffer_size > PG_DS_LARGEST_TUNED_CHUNK
                         ? (size_t)pg_cfg.pipeline_buffer_size
                         : PG_DS_LARGEST_TUNED_CHUNK;
    if (pg_net_init(pg_ds_message_bytes(largest)) != 0)
        return -1;
    pg_config_check_provider(pg_net_provider());
    regions_offset = pg_mem_record_carve(PG_MEM_PARTS * sizeof(struct pg_ds_region));
    name_offset = pg_mem_record_carve(PIPE_NAME_BYTES);
    open_endpoints();
    return 0;
}

void pg_pipe_fini(void)
{
    if (!network_up)
        return;
    pg_pipe_quiet(NULL);
    pipe_client_closing();
    /* Other PEs' requests may be in my server's queue until every PE has closed its links;
     * only a barrier that does not travel through the servers can tell. Without MPI (the
     * program finalized it first) the servers stay up until the process exits. */
    if (pg_boot_barrier_if_available() != 0)
        return;
    report_faults();
    report_rails(pg_pipe_ep(), "client");
    if (pg_world.local_rank == 0)
        report_rails(pg_ds_server_ep(), "server");
    close_endpoints();
    pg_net_fini();
}

void pg_pipe_heap_grown(void)
{
    if (!network_up)
        return; /* one node: reached by load/store alone */
    if (pg_world.local_rank == 0) {
        pg_ds_server_heap_grown();
        publish_regions(pg_mem_newest_part(), pg_mem_newest_part());
    }
    pipe_client_heap_grown();
    pg_boot_barrier(); /* registered and published everywhere before anyone uses it */
}

void pg_pipe_suspend(void)
{
    if (!network_up)
        return; /* one node: there are no endpoints */
    pg_pipe_quiet(NULL);
    pipe_client_closing();
    pg_boot_barrier();
    close_endpoints();
    suspended = 1;
}

void pg_pipe_resume(void)
{
    if (!suspended)
        return;
    suspended = 0;
    check_same_settings();
    pg_ds_check_pool();
    open_endpoints();
}

int pg_pipe_restart(void)
{
    pg_pipe_suspend();
    pg_pipe_resume();
    return 0;
}
