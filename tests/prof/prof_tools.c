/* Writes a profile directory (format v1, docs/profile.md) for a known communication pattern,
 * so that tests/prof/tools.sh can check pangea-prof's and pangea-map's figures exactly:
 *
 *   prof_tools DIR PATTERN NODES PPN [SWITCHES [NODE_OF]]
 *
 * PATTERN: ring (PE i puts 100 bytes to i+1), stencil:PXxPY (each PE puts 100 bytes to each of
 * its up to 4 grid neighbours, PE = y * PX + x), all-to-one (every other PE puts 100 bytes to
 * PE 0, each a put and an 8-byte AMO), alltoall (the collective: 100 bytes to every other PE).
 * NODES x PPN PEs; PE i on node i / PPN, or on NODE_OF's i-th entry ("0,1,0,1,..."). Each node
 * has two packages (the first and second half of its PEs, NUMA = package) and a core per PE.
 * SWITCHES > 1 puts the nodes in that many even groups under leaf switches s0, s1, ... below
 * one switch "top" (path "sK/top"); 0 or 1: no switch tree. PE i waits 1000 * (i + 1) ns in
 * quiet (2 waits) and ran 1000000 * (i + 1) ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BYTES 100

static FILE *open_csv(const char *dir, const char *name, const char *header)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    fprintf(f, "# pangea-profile 1\n%s\n", header);
    return f;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 7) {
        fprintf(stderr, "usage: prof_tools DIR PATTERN NODES PPN [SWITCHES [NODE_OF]]\n");
        return 2;
    }
    const char *dir = argv[1], *pattern = argv[2];
    int nodes = atoi(argv[3]), ppn = atoi(argv[4]), switches = argc > 5 ? atoi(argv[5]) : 0;
    int npes = nodes * ppn, px = 0, py = 0;
    if (nodes < 1 || ppn < 1 || npes > 4096) {
        fprintf(stderr, "prof_tools: NODES and PPN from 1, at most 4096 PEs\n");
        return 2;
    }
    if (strncmp(pattern, "stencil:", 8) == 0 &&
        (sscanf(pattern + 8, "%dx%d", &px, &py) != 2 || px * py != npes)) {
        fprintf(stderr, "prof_tools: %s is not a grid of the %d PEs\n", pattern, npes);
        return 2;
    }
    int *node_of = calloc((size_t)npes, sizeof *node_of);
    for (int i = 0; i < npes; i++)
        node_of[i] = i / ppn;
    if (argc > 6) {
        const char *s = argv[6];
        for (int i = 0; i < npes; i++) {
            node_of[i] = atoi(s);
            s = strchr(s, ',');
            if ((!s && i + 1 < npes) || node_of[i] < 0 || node_of[i] >= nodes) {
                fprintf(stderr, "prof_tools: NODE_OF needs %d nodes below %d\n", npes, nodes);
                return 2;
            }
            s = s ? s + 1 : s;
        }
    }

    FILE *t = open_csv(dir, "topology.csv", "pe,node,host,package,numa,core,switches");
    for (int i = 0; i < npes; i++) {
        int local = 0;
        for (int j = 0; j < i; j++)
            local += node_of[j] == node_of[i];
        int package = local * 2 / ppn;
        char path[64] = "";
        if (switches > 1)
            snprintf(path, sizeof path, "s%d/top", node_of[i] * switches / nodes);
        fprintf(t, "%d,%d,h%d,%d,%d,%d,%s\n", i, node_of[i], node_of[i], package, package, local,
                path);
    }
    fclose(t);

    for (int i = 0; i < npes; i++) {
        char name[64];
        snprintf(name, sizeof name, "pe-%d.csv", i);
        FILE *f = open_csv(dir, name, "kind,name,target,count,bytes,ns");
        fprintf(f, "# PE %d\n", i);
        if (strcmp(pattern, "ring") == 0) {
            fprintf(f, "op,put,%d,1,%d,0\n", (i + 1) % npes, BYTES);
        } else if (px) {
            int x = i % px, y = i / px;
            int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
            for (int k = 0; k < 4; k++)
                if (nx[k] >= 0 && nx[k] < px && ny[k] >= 0 && ny[k] < py)
                    fprintf(f, "op,put,%d,1,%d,0\n", ny[k] * px + nx[k], BYTES);
        } else if (strcmp(pattern, "all-to-one") == 0) {
            if (i != 0)
                fprintf(f, "op,put,0,1,%d,0\nop,amo,0,1,8,0\n", BYTES);
        } else if (strcmp(pattern, "alltoall") == 0) {
            for (int j = 0; j < npes; j++)
                if (j != i)
                    fprintf(f, "coll,alltoall,%d,1,%d,0\n", j, BYTES);
        } else {
            fprintf(stderr, "prof_tools: unknown pattern %s\n", pattern);
            return 2;
        }
        fprintf(f, "wait,quiet,-1,2,0,%d\ninfo,elapsed,-1,0,0,%d\n", 1000 * (i + 1),
                1000000 * (i + 1));
        fclose(f);
    }
    free(node_of);
    return 0;
}
