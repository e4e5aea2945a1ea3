/* topo's own: the node model a node leader reads from hwloc, a PE's binding in it, and the
 * switch path of a node. Internal to src/topo. */
#ifndef PG_TOPO_INTERNAL_H
#define PG_TOPO_INTERNAL_H

#include "topo.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The places a set of processors may share, closest first. */
enum topo_place {
    PLACE_CORE,
    PLACE_NUMA,
    PLACE_PACKAGE,
    PLACE_L1,
    PLACE_L2,
    PLACE_L3,
    PLACE_KINDS
};

#define TOPO_MAX_PUS PG_TOPO_MAX_CPUS
#define TOPO_MAX_NICS 8
#define TOPO_CPUS_TEXT 64

struct topo_nic {
    char name[32];             /* hwloc's OS device name: "eth0", "mlx5_0" */
    int place[PLACE_KINDS];    /* the places its locality lies within (-1: none) */
    char cpus[TOPO_CPUS_TEXT]; /* the processors near it, as a list "0-15" */
    struct pg_cpus near;       /* the same processors */
};

/* A node as hwloc sees it, indexed by operating-system processor number. Plain data: the node
 * leader fills it and copies it to the node's PEs. */
struct topo_machine {
    int npus;                   /* highest processor number + 1 */
    struct pg_cpus allowed;     /* the processors the job may use (its cgroup's) */
    int count[PLACE_KINDS];     /* objects of each kind */
    unsigned long cache_kib[3]; /* L1d, L2, L3 size (of the first of each) */
    int nnics;
    struct topo_nic nic[TOPO_MAX_NICS];
    int16_t place_of_pu[TOPO_MAX_PUS][PLACE_KINDS]; /* logical index, -1 when none */
};

/* A PE's binding: the place of each kind that holds every processor it may run on (-1 when
 * they span several), and the processors themselves. */
struct topo_binding {
    int place[PLACE_KINDS];
    int first_core; /* the core of its lowest processor (-1 when unknown) */
    char cpus[TOPO_CPUS_TEXT];
    struct pg_cpus set;
};

/* Loads hwloc's view of this machine (HWLOC_XMLFILE / HWLOC_SYNTHETIC are honoured). 0, or -1
 * with why. */
int topo_machine_load(struct topo_machine *m, char *why, size_t why_len);
/* The calling thread's binding in m, from its affinity mask. */
void topo_binding_of_self(const struct topo_machine *m, struct topo_binding *b);
void topo_machine_print(FILE *out, const struct topo_machine *m, const char *indent);
/* Where a node's data server runs (see pg_topo_server_cpus), given the bindings of the node's
 * PEs and the NIC the network uses (-1: not known): the processors, and why them in why. */
void topo_server_place(const struct topo_machine *m, const struct topo_binding *pes, int npes,
                       int nic, struct pg_cpus *cpus, char *why, size_t len);
/* "core 3, NUMA 0, package 0; L1d 32 KiB ..." */
void topo_binding_text(const struct topo_machine *m, const struct topo_binding *b, char *text,
                       size_t len);

/* A node's place in the switch tree: the switch names from the top down to its leaf switch,
 * separated by '.', and the LinkSpeed of each (0 when not given). */
#define TOPO_MAX_DEPTH 16
#define TOPO_PATH_TEXT 256
#define TOPO_ERROR_TEXT PG_TOPO_ERROR_TEXT
struct topo_path {
    char names[TOPO_PATH_TEXT];
    uint32_t speed[TOPO_MAX_DEPTH];
};
enum topo_source { SOURCE_DEFAULT, SOURCE_SLURM, SOURCE_FILE };
/* The path of host (this node's name) from Slurm's variables, else from the file, else the
 * default; the source used. On an error (malformed variables or file, host missing from the
 * file) returns -1 with the message, naming the file and line, in error. */
int topo_path_of_host(const char *host, struct topo_path *path, enum topo_source *source,
                      char error[TOPO_ERROR_TEXT]);

#endif
