/* mpi_nodes.c - check that an MPI job really spans several "nodes".
 *
 * Meant to be started by tests/netns/netns-run.sh, which puts groups of PEs into separate
 * network + UTS namespaces:
 *
 *     mpicc.mpich -O2 -o /tmp/mpi_nodes tests/netns/mpi_nodes.c
 *     tests/netns/netns-run.sh 2 2 -- /tmp/mpi_nodes 2
 *
 * Usage: mpi_nodes EXPECTED_NODES
 *
 * Every rank reports its rank, hostname (uname), node-local rank/size from
 * MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) and its IPv4 address (first non-loopback
 * interface); rank 0 prints the table in rank order.  Rank 0 then checks that
 *   - the number of distinct hostnames == the number of shared-memory groups == EXPECTED_NODES,
 *   - every shared-memory group lives on exactly one hostname and no two groups share one;
 * and all ranks check an MPI_Allreduce and a 1 MiB MPI_Sendrecv ring (rank r -> r+1).
 * Exit status 0 when everything holds, 1 otherwise (2 on a usage error).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <mpi.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define NAME_LEN 65 /* like struct utsname.nodename */
#define RING_BYTES (1u << 20)

struct info {
    int rank;
    int local_rank;
    int local_size;
    int leader; /* world rank of node-local rank 0: identifies the shared-memory group */
    char host[NAME_LEN];
    char ifname[IF_NAMESIZE + 1];
    char addr[INET_ADDRSTRLEN];
};

/* First IPv4 address on an interface that is up and not loopback. */
static void find_ipv4(char *ifname, size_t ifname_len, char *addr, size_t addr_len)
{
    struct ifaddrs *list = NULL;
    snprintf(ifname, ifname_len, "-");
    snprintf(addr, addr_len, "-");
    if (getifaddrs(&list) != 0)
        return;
    for (struct ifaddrs *p = list; p; p = p->ifa_next) {
        if (!p->ifa_addr || p->ifa_addr->sa_family != AF_INET)
            continue;
        if ((p->ifa_flags & IFF_LOOPBACK) || !(p->ifa_flags & IFF_UP))
            continue;
        const struct sockaddr_in *sin = (const struct sockaddr_in *)p->ifa_addr;
        inet_ntop(AF_INET, &sin->sin_addr, addr, (socklen_t)addr_len);
        snprintf(ifname, ifname_len, "%s", p->ifa_name);
        break;
    }
    freeifaddrs(list);
}

/* Byte i of the ring message sent by rank r. */
static unsigned char pattern(int r, size_t i)
{
    return (unsigned char)((size_t)r * 131u + i * 7u + (i >> 12));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    int expected = -1;
    if (argc >= 2) {
        char *end;
        long v = strtol(argv[1], &end, 10);
        if (*end == '\0' && v > 0 && v <= 100000)
            expected = (int)v;
    }
    if (expected < 0) {
        if (rank == 0)
            fprintf(stderr, "usage: %s EXPECTED_NODES\n", argv[0]);
        MPI_Finalize();
        return 2;
    }

    int errors = 0;

    /* --- who am I ---------------------------------------------------------------------- */
    struct info me;
    memset(&me, 0, sizeof me);
    me.rank = rank;
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(me.host, sizeof me.host, "%s", u.nodename);
    else
        snprintf(me.host, sizeof me.host, "?");
    find_ipv4(me.ifname, sizeof me.ifname, me.addr, sizeof me.addr);

    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &me.local_rank);
    MPI_Comm_size(node, &me.local_size);
    me.leader = rank;
    MPI_Bcast(&me.leader, 1, MPI_INT, 0, node);

    struct info *all = NULL;
    if (rank == 0)
        all = calloc((size_t)size, sizeof *all);
    MPI_Gather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, 0, MPI_COMM_WORLD);

    if (rank == 0) {
        printf("mpi_nodes: %d ranks, expecting %d node(s)\n", size, expected);
        for (int r = 0; r < size; r++)
            printf("rank %3d  host %-16s  local %d/%d  node-leader %3d  %s %s\n", all[r].rank,
                   all[r].host, all[r].local_rank, all[r].local_size, all[r].leader, all[r].ifname,
                   all[r].addr);

        int nhosts = 0, ngroups = 0;
        for (int r = 0; r < size; r++) {
            int seen_host = 0;
            for (int q = 0; q < r; q++)
                if (strcmp(all[q].host, all[r].host) == 0)
                    seen_host = 1;
            nhosts += !seen_host;
            ngroups += (all[r].leader == r);
            /* group <-> hostname must be one-to-one */
            for (int q = 0; q < r; q++) {
                int same_group = all[q].leader == all[r].leader;
                int same_host = strcmp(all[q].host, all[r].host) == 0;
                if (same_group != same_host) {
                    printf("FAIL: ranks %d and %d: %s shared-memory group but %s hostname "
                           "(%s vs %s)\n",
                           q, r, same_group ? "same" : "different",
                           same_host ? "the same" : "a different", all[q].host, all[r].host);
                    errors++;
                }
            }
            if (all[r].local_size < 1 || all[r].local_rank >= all[r].local_size) {
                printf("FAIL: rank %d: bad node-local rank/size %d/%d\n", r, all[r].local_rank,
                       all[r].local_size);
                errors++;
            }
        }
        printf("distinct hostnames: %d, shared-memory groups: %d, expected nodes: %d\n", nhosts,
               ngroups, expected);
        if (nhosts != expected || ngroups != expected) {
            printf("FAIL: node count mismatch\n");
            errors++;
        }
        free(all);
        fflush(stdout);
    }

    /* --- Allreduce --------------------------------------------------------------------- */
    long contrib[2] = {rank + 1, 1}, sum[2] = {0, 0};
    MPI_Allreduce(contrib, sum, 2, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum[0] != (long)size * (size + 1) / 2 || sum[1] != size) {
        printf("FAIL: rank %d: Allreduce gave {%ld, %ld}, expected {%ld, %d}\n", rank, sum[0],
               sum[1], (long)size * (size + 1) / 2, size);
        errors++;
    }

    /* --- 1 MiB Sendrecv ring ----------------------------------------------------------- */
    unsigned char *sbuf = malloc(RING_BYTES), *rbuf = malloc(RING_BYTES);
    if (!sbuf || !rbuf) {
        printf("FAIL: rank %d: out of memory\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < RING_BYTES; i++)
            sbuf[i] = (unsigned char)(pattern(rank, i) + round);
        memset(rbuf, 0xEE, RING_BYTES);
        MPI_Status st;
        MPI_Sendrecv(sbuf, RING_BYTES, MPI_BYTE, right, 77, rbuf, RING_BYTES, MPI_BYTE, left, 77,
                     MPI_COMM_WORLD, &st);
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        size_t bad = 0, first_bad = 0;
        for (size_t i = 0; i < RING_BYTES; i++)
            if (rbuf[i] != (unsigned char)(pattern(left, i) + round) && bad++ == 0)
                first_bad = i;
        if (count != (int)RING_BYTES || bad) {
            printf("FAIL: rank %d: ring round %d from rank %d: count %d, %zu bad bytes "
                   "(first at %zu)\n",
                   rank, round, left, count, bad, first_bad);
            errors++;
        }
    }
    free(sbuf);
    free(rbuf);

    int total = 0;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total == 0)
            printf("mpi_nodes: OK (%d ranks on %d node(s); Allreduce and 1 MiB Sendrecv ring "
                   "correct)\n",
                   size, expected);
        else
            printf("mpi_nodes: FAILED (%d error(s))\n", total);
        fflush(stdout);
    }
    MPI_Comm_free(&node);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
