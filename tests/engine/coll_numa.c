/* Broadcasts and small reductions fan out per NUMA domain within a node (coll.h's NUMA
 * counters), exact. The machine is faked with HWLOC_XMLFILE=tests/topo/two-numa.xml (processor
 * 0 in NUMA 0, processor 1 in NUMA 1); with TEST_BIND=1 each PE binds itself before shmem_init,
 * the first half of its node's PEs (MPI_LOCALRANKID) to processor 0, the rest to 1. Then a
 * broadcast copies the data across domains once per node whatever the root (a binomial tree
 * over the node's PEs would cross twice with 4 PEs), and a small reduction sends one partial
 * up and the result down across them. Unbound PEs (TEST_BIND=0) share one domain: no copy
 * crosses. Every value is checked. */
#define _GNU_SOURCE /* sched_setaffinity */
#include "check.h"
#include "coll/coll.h"
#include "startup/startup.h"

#include <sched.h>
#include <shmem.h>

#define COUNT 1000

static long long *sums; /* symmetric: messages, bytes summed over the PEs */

/* The job's total of kind's NUMA-crossing copies since `before` (mine). */
static void crossings_since(enum pg_coll_kind kind, struct pg_coll_traffic before,
                            long long *messages, long long *bytes)
{
    static long long mine[2];
    struct pg_coll_traffic now;
    pg_coll_traffic(kind, &now);
    mine[0] = (long long)(now.numa_messages - before.numa_messages);
    mine[1] = (long long)(now.numa_bytes - before.numa_bytes);
    shmem_barrier_all();
    shmem_longlong_sum_reduce(SHMEM_TEAM_WORLD, sums, mine, 2);
    *messages = sums[0];
    *bytes = sums[1];
}

static struct pg_coll_traffic snapshot(enum pg_coll_kind kind)
{
    struct pg_coll_traffic t;
    pg_coll_traffic(kind, &t);
    return t;
}

int main(void)
{
    const char *bind_text = getenv("TEST_BIND"), *local_text = getenv("MPI_LOCALRANKID"),
               *local_n_text = getenv("MPI_LOCALNRANKS");
    int bind = bind_text && atoi(bind_text);
    if (bind) {
        int local = local_text ? atoi(local_text) : 0,
            local_n = local_n_text ? atoi(local_n_text) : 1;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(2 * local < local_n ? 0 : 1, &one);
        CHECK(sched_setaffinity(0, sizeof one, &one) == 0, "cannot bind to a processor");
    }
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    /* Nodes whose PEs sit in both domains: each crosses once per broadcast, twice per reduction. */
    long long split_nodes = 0;
    if (bind)
        for (int n = 0; n < pg_world.nnodes; n++) {
            int pes = 0;
            for (int pe = 0; pe < npes; pe++)
                pes += pg_world.node_of[pe] == n;
            split_nodes += pes > 1;
        }
    sums = shmem_malloc(2 * sizeof *sums);
    long *data = shmem_malloc(COUNT * sizeof *data);
    long *in = shmem_malloc(4 * sizeof *in), *out = shmem_malloc(4 * sizeof *out);
    for (int root = 0; root < npes; root++) {
        for (int i = 0; i < COUNT; i++)
            data[i] = me == root ? root * 100000L + i : -1;
        shmem_barrier_all();
        struct pg_coll_traffic before = snapshot(PG_COLL_BROADCAST);
        shmem_long_broadcast(SHMEM_TEAM_WORLD, data, data, COUNT, root);
        long long messages, bytes;
        crossings_since(PG_COLL_BROADCAST, before, &messages, &bytes);
        int bad = 0;
        for (int i = 0; i < COUNT; i++)
            bad += data[i] != root * 100000L + i;
        CHECK(bad == 0, "broadcast from %d: %d of %d elements wrong", root, bad, COUNT);
        CHECK(messages == split_nodes && bytes == split_nodes * (long long)sizeof data[0] * COUNT,
              "broadcast from %d: %lld copies (%lld bytes) crossed NUMA domains, want %lld", root,
              messages, bytes, split_nodes);
    }
    for (int k = 0; k < 4; k++)
        in[k] = (me + 1) * (k + 1);
    shmem_barrier_all();
    struct pg_coll_traffic before = snapshot(PG_COLL_REDUCE);
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, out, in, 4);
    long long messages, bytes;
    crossings_since(PG_COLL_REDUCE, before, &messages, &bytes);
    for (int k = 0; k < 4; k++)
        CHECK(out[k] == (long)npes * (npes + 1) / 2 * (k + 1), "sum[%d] = %ld", k, out[k]);
    CHECK(messages == 2 * split_nodes, "a reduction crossed NUMA domains %lld times, want %lld",
          messages, 2 * split_nodes);
    shmem_free(out);
    shmem_free(in);
    shmem_free(data);
    shmem_free(sums);
    int status = check_finish();
    shmem_finalize();
    return status;
}
