/* profile: reads a Pangea communication profile (PANGEA_PROFILE=DIR, format v1 in
 * docs/profile.md) for pangea-prof and pangea-map, and the distances between places that
 * both tools measure traffic with: the topology levels of include/shmemx.h and the network
 * hops of the switch tree. */
#ifndef PANGEA_TOOLS_PROFILE_H
#define PANGEA_TOOLS_PROFILE_H

#include "prof/prof.h"

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define PROF_HOST_TEXT 64
#define PROF_SWITCHES_TEXT 256
#define PROF_ERROR_TEXT 512

/* The levels, closest first: include/shmemx.h's SHMEMX_LEVEL_* values. */
enum prof_level { LEVEL_CORE, LEVEL_NUMA, LEVEL_PACKAGE, LEVEL_NODE, LEVEL_SWITCH, LEVEL_SYSTEM };
#define PROF_LEVELS 6
extern const char *const prof_level_names[PROF_LEVELS];

/* Where a PE runs: its node, its place on the node (-1 when unknown) and its node's switch
 * path, leaf switch first, joined by '/' ("" when every node is under one switch). */
struct prof_place {
    int node;
    int package, numa, core;
    char host[PROF_HOST_TEXT];
    char switches[PROF_SWITCHES_TEXT];
};

/* The kinds the profile's rows name: the engine's own tables (src/prof/prof.h). */
#define PROF_OP_KINDS PG_PROF_OP_KINDS
#define PROF_WAIT_KINDS PG_PROF_WAIT_KINDS
extern const char *const prof_op_names[PROF_OP_KINDS];
extern const char *const prof_wait_names[PROF_WAIT_KINDS];

struct prof_pe {
    uint64_t op_bytes[PROF_OP_KINDS], op_count[PROF_OP_KINDS];
    uint64_t coll_bytes, coll_count;
    uint64_t wait_ns[PROF_WAIT_KINDS], wait_count[PROF_WAIT_KINDS];
    uint64_t elapsed_ns;
};

/* A collective's own traffic, summed over the PEs. */
struct prof_coll {
    char name[32];
    uint64_t bytes, count;
};

struct profile {
    int npes, nnodes;
    struct prof_place *place; /* [npes] */
    struct prof_pe *pe;       /* [npes] */
    uint64_t *bytes;          /* [npes * npes]: issuer row, target column; ops and collectives */
    uint64_t *count;          /* [npes * npes]: operations and collective messages */
    struct prof_coll *coll;
    int ncoll;
};

/* The tools' start once their options are parsed: the one argument left, argv[next], is the
 * profile's directory, read into p. A usage error prints usage to stderr and exits with 2; a
 * profile that cannot be read, the reason after "TOOL: " and exits with 1. Returns the
 * directory. */
const char *prof_load_argument(const char *tool, int argc, char **argv, int next,
                               void (*usage)(FILE *), struct profile *p);

/* -h (c == 'h': usage on stdout, exit 0) or an unknown option (usage on stderr, exit 2). */
void prof_usage_exit(int c, void (*usage)(FILE *)) __attribute__((noreturn));

/* Reads DIR/topology.csv and DIR/pe-N.csv. 0, or -1 with the reason (naming the file and line)
 * in error. */
int prof_read(const char *dir, struct profile *p, char error[PROF_ERROR_TEXT]);
void prof_free(struct profile *p);

/* The closest level two places share (same_pe: they are one PE). */
enum prof_level prof_level_of(const struct prof_place *a, const struct prof_place *b, int same_pe);
/* Network links between two nodes' switch paths: 0 on one node, 2 under the same leaf switch,
 * 2 more for each level further up to their common switch (an implied top over paths that
 * share none). */
int prof_hops(const struct prof_place *a, const struct prof_place *b);
/* The node's switch path split into names, leaf first; the count. */
int prof_switch_names(const char *switches, char names[][PROF_SWITCHES_TEXT], int max);

/* "1.5 MiB", "12 B": a byte count for people. */
const char *prof_bytes_text(uint64_t bytes, char *text, size_t len);

#endif
