/* The job key: a process outside the job (tests/engine/intruder.c, spawned by PE 0 while the
 * job runs) opens its own endpoint and sends the last node's data server TEST_WELL_FORMED
 * well-formed puts into a symmetric buffer of the last PE, without the job's key, and
 * TEST_FUZZED random and mutated messages. Every PE's copy of the buffer is filled with a
 * pattern first. Then:
 *  - the last node's server has refused exactly all of them (its count of messages without
 *    the key), and applied none: every byte of the last PE's buffer is still the pattern;
 *  - the server still serves the job: every PE puts a block into the last PE and adds to a
 *    counter there with an AMO, and the last PE checks every byte and the exact count.
 * Needs several nodes (one node has no data server: SKIP) and the ofi transport (an outsider
 * cannot reach the mpi transport's communicator: SKIP). */
#define _GNU_SOURCE
#include "check.h"
#include "dataserver/dataserver.h"
#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "startup/startup.h"
#include "transport/transport.h"

#include <shmem.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUFFER 4096
#define BLOCK 256

extern char **environ;

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 7 + 3);
}

/* PE 0: runs the intruder against the last node's server; the number of messages it sent. */
static long run_intruder(const char *self, unsigned char *buffer, int last)
{
    char dir[4096], intruder[4200], file[64], target[16], segment[16], offset[32];
    snprintf(dir, sizeof dir, "%s", self);
    char *slash = strrchr(dir, '/');
    snprintf(intruder, sizeof intruder, "%.*s/intruder", slash ? (int)(slash - dir) : 1,
             slash ? dir : ".");
    snprintf(file, sizeof file, "/tmp/pangea-job-key-%d", (int)getpid());
    FILE *f = fopen(file, "wb");
    CHECK(f != NULL, "cannot create %s", file);
    if (!f)
        return -1;
    char name[PG_NET_ADDR_MAX] = {0}; /* the intruder reads PG_NET_ADDR_MAX bytes */
    size_t bytes;
    const void *kept = pg_pipe_server_name(pg_world.node_of[last], &bytes);
    memcpy(name, kept, bytes);
    fwrite(name, 1, sizeof name, f);
    fclose(f);
    size_t at = 0;
    int seg = pg_mem_locate(buffer, BUFFER, &at);
    snprintf(target, sizeof target, "%d", last);
    snprintf(segment, sizeof segment, "%d", seg);
    snprintf(offset, sizeof offset, "%zu", at);
    const char *well_formed = getenv("TEST_WELL_FORMED") ? getenv("TEST_WELL_FORMED") : "100";
    const char *fuzzed = getenv("TEST_FUZZED") ? getenv("TEST_FUZZED") : "400";
    char *args[] = {intruder, (char *)pg_net_provider(), file,           target,  segment,
                    offset,   (char *)well_formed,       (char *)fuzzed, "12345", NULL};
    pid_t pid;
    int status = -1;
    if (posix_spawn(&pid, intruder, NULL, NULL, args, environ) == 0)
        waitpid(pid, &status, 0);
    unlink(file);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s failed (status %#x)", intruder,
          status);
    return status == 0 ? atol(well_formed) + atol(fuzzed) : -1;
}

int main(int argc, char **argv)
{
    (void)argc;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    if (pg_world.nnodes == 1) {
        if (me == 0)
            printf("SKIP job_key: one node has no data server\n");
        shmem_finalize();
        return 0;
    }
    if (strcmp(pg_net_provider(), "mpi") == 0) {
        if (me == 0)
            printf("SKIP job_key: no process outside the job can send on the mpi transport's "
                   "communicator\n");
        shmem_finalize();
        return 0;
    }
    unsigned char *buffer = shmem_malloc(BUFFER);
    unsigned char *blocks = shmem_malloc((size_t)npes * BLOCK);
    static long counter;
    for (size_t i = 0; i < BUFFER; i++)
        buffer[i] = pattern(i);
    memset(blocks, 0, (size_t)npes * BLOCK);
    shmem_barrier_all();

    static long sent;
    if (me == 0)
        sent = run_intruder(argv[0], buffer, last);
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &sent, &sent, 1, 0);

    /* The server of the last node counts what it refused. */
    if (pg_world.local_rank == 0 && pg_world.node == pg_world.node_of[last] && sent > 0) {
        for (int tries = 0; tries < 1000 && pg_ds_server_stats().foreign < (uint64_t)sent; tries++)
            test_sleep_us(10000);
        CHECK(pg_ds_server_stats().foreign == (uint64_t)sent,
              "the server refused %llu messages without the key, the intruder sent %ld",
              (unsigned long long)pg_ds_server_stats().foreign, sent);
    }
    shmem_barrier_all();

    /* Nothing applied, and the job goes on exactly. */
    unsigned char mine[BLOCK];
    for (size_t i = 0; i < BLOCK; i++)
        mine[i] = (unsigned char)(me + i);
    shmem_putmem(blocks + (size_t)me * BLOCK, mine, BLOCK, last);
    shmem_long_atomic_add(&counter, me + 1, last);
    shmem_barrier_all();
    if (me == last) {
        size_t bad = 0;
        for (size_t i = 0; i < BUFFER; i++)
            bad += buffer[i] != pattern(i);
        CHECK(bad == 0, "%zu bytes of the target buffer changed", bad);
        for (int pe = 0; pe < npes; pe++)
            for (size_t i = 0; i < BLOCK; i++)
                CHECK(blocks[(size_t)pe * BLOCK + i] == (unsigned char)(pe + i),
                      "block of PE %d, byte %zu: %u", pe, i, blocks[(size_t)pe * BLOCK + i]);
        CHECK(counter == (long)npes * (npes + 1) / 2, "counter %ld, expected %ld", counter,
              (long)npes * (npes + 1) / 2);
    }
    shmem_free(buffer);
    shmem_free(blocks);
    return check_finish();
}
