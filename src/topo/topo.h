/* topo: where each PE sits — core, NUMA domain, package (hwloc, on every node), node, leaf
 * switch (the switch tree of Slurm or of a topology.conf file) — the closest level two PEs
 * share, and the node's network devices with their locality. Below the collectives: uses
 * startup's init-time exchanges only, and reads the transport's domain name to find its NIC.
 *
 * Node data is gathered once per node: each node's first PE loads hwloc and reads the switch
 * tree, the node's PEs learn the machine from it on the node board, and the node leaders
 * exchange one card per node. */
#ifndef PG_TOPO_H
#define PG_TOPO_H

#include <stdint.h>
#include <stdio.h>

/* The levels, closest first (the values of include/shmemx.h's SHMEMX_LEVEL_*). */
enum pg_topo_level {
    PG_LEVEL_CORE,
    PG_LEVEL_NUMA,
    PG_LEVEL_PACKAGE,
    PG_LEVEL_NODE,
    PG_LEVEL_SWITCH, /* the same leaf switch */
    PG_LEVEL_SYSTEM,
    PG_LEVEL_COUNT
};

/* Learns the node model and the switch tree (SLURM_TOPOLOGY_ADDR and _PATTERN under Slurm's
 * tree topology, else the file PANGEA_TOPOLOGY_FILE names, else one switch over every node).
 * Collective over the world, after startup. A malformed file or a job node missing from it
 * ends the job with one message (from PE 0). */
void pg_topo_init(void);
void pg_topo_fini(void);

/* The closest level the calling PE and world PE pe share: PG_LEVEL_CORE for the caller itself
 * and for PEs bound to the same core (a PE not bound to one core shares CORE with no other);
 * -1 for a pe outside the world. */
int pg_topo_level(int pe);
/* The leaf switch of node (0..nnodes-1) and the number of switches of the job's tree (leaf
 * switches and those above them). */
int pg_topo_leaf_switch(int node);
int pg_topo_switch_count(void);
/* The NUMA domain world PE pe (on my node) is bound within; -1 when it may run on several, when
 * hwloc does not know, or for a PE of another node. */
int pg_topo_numa_of(int pe);
/* The LinkSpeed of switch sw (topology file), 0 when not given. */
uint32_t pg_topo_switch_speed(int sw);

/* A set of processors, by the operating system's numbers: bit c%64 of bits[c/64] is c. */
#define PG_TOPO_MAX_CPUS 1024 /* CPU_SETSIZE */
struct pg_cpus {
    uint64_t bits[PG_TOPO_MAX_CPUS / 64];
};
/* Where this node's data server thread runs: near the NIC the network uses (hwloc locality), on
 * cores no PE of the node is bound to; when none is free there, on any free core; when none is
 * free, near the NIC; else anywhere the job may run. After the network is open. Returns 0 with
 * the processors and the reason in why ("cpus 1: near NIC eth0, no PE bound there"), or -1 when
 * hwloc could not read the node (then the server may run anywhere). */
int pg_topo_server_cpus(struct pg_cpus *cpus, char *why, size_t len);

/* Where world PE pe sits, for the profile's topology file (when SHMEM_INFO or PANGEA_PROFILE
 * is set; otherwise only its node and host are known): node index, host, package, NUMA domain
 * and first core of its binding on its node (-1 when unknown or spanning several), and the
 * switch path from its leaf switch upward joined by '/' ("" when the default tree, one switch
 * over every node, is in use). */
struct pg_topo_place {
    int node;
    const char *host;
    int package, numa, core;
    char switches[256];
};
void pg_topo_place(int pe, struct pg_topo_place *out);
/* The switch path of host in a file of Slurm's topology.conf syntax (docs/topology.md), read
 * as PANGEA_TOPOLOGY_FILE is: the leaf switch first, names joined by '/' (a profile's
 * topology.csv column). Needs no job: pangea-map calls it. 0, or -1 with the message (naming
 * the file and line) in error. */
#define PG_TOPO_ERROR_TEXT 300
int pg_topo_file_switches(const char *file, const char *host, char *switches, size_t len,
                          char error[PG_TOPO_ERROR_TEXT]);

/* SHMEM_INFO (PE 0): where the tree came from, the tree with each node and its PEs, each PE's
 * binding, and the node's NICs with the one the network uses. */
void pg_topo_print(FILE *out);
/* pangea-info --topology: this machine's hwloc summary (packages, NUMA domains, cores, caches,
 * NICs and their locality). 0, or -1 when hwloc cannot read the machine. */
int pg_topo_describe_machine(FILE *out);

#endif
