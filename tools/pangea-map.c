/* pangea-map: places the PEs of a profiled job on a machine's nodes so that heavy pairs sit
 * close: it minimises hop-bytes (bytes x network links between the two PEs' nodes) with
 * Scotch's graph mapping, then improves the result by exchanging PEs, and writes a hydra
 * machine file (oshrun -f FILE) with one host per rank.
 *
 *   pangea-map [--hosts FILE [--topology FILE]] [-o MACHINEFILE] DIR
 *
 * The machine: --hosts lists host[:slots] per line (hydra's syntax); --topology gives their
 * switch tree in Slurm's topology.conf syntax (read by src/topo); without --hosts, the
 * profiled job's own nodes and switches (DIR/topology.csv), each with as many slots as it had
 * PEs. Slots of one host are taken as equal (cores in the order hydra binds them). */
#include "profile.h"
#include "topo/topo.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <scotch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EDGE_SCALE \
    1000 /* Scotch's integer edge weights: the heaviest pair's bytes (its costs are int) */
#define NODE_LINK 1          /* Scotch's target graph: a slot to its host ... */
#define NETWORK_LINK 64      /* ... and a network link, between hosts and switches */
#define MAX_REFINED_PES 2048 /* the exchange pass is O(PEs^3) */
#define MAX_DEPTH 16

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pangea-map: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        die("out of memory");
    return p;
}

/* The target machine: hosts with slots, each host a node with its switch path. */
struct machine {
    int nhosts, nslots;
    struct prof_place *host; /* [nhosts]: node = index */
    int *slots;              /* [nhosts] */
    int *host_of_slot;       /* [nslots] */
};

static void add_host(struct machine *m, const char *name, int slots, const char *where)
{
    for (int h = 0; h < m->nhosts; h++)
        if (strcmp(m->host[h].host, name) == 0)
            die("%s: host '%s' is listed twice", where, name);
    if (strlen(name) >= PROF_HOST_TEXT)
        die("%s: host name '%s' is longer than %d characters", where, name, PROF_HOST_TEXT - 1);
    m->host = realloc(m->host, (size_t)(m->nhosts + 1) * sizeof *m->host);
    m->slots = realloc(m->slots, (size_t)(m->nhosts + 1) * sizeof *m->slots);
    if (!m->host || !m->slots)
        die("out of memory");
    struct prof_place *pl = &m->host[m->nhosts];
    memset(pl, 0, sizeof *pl);
    pl->node = m->nhosts;
    pl->package = pl->numa = pl->core = -1;
    snprintf(pl->host, sizeof pl->host, "%s", name);
    m->slots[m->nhosts++] = slots;
    m->nslots += slots;
}

/* host[:slots] per line, '#' comments; slots default to 1 as with hydra. */
static void read_hosts(struct machine *m, const char *file)
{
    FILE *in = fopen(file, "r");
    if (!in)
        die("hosts file %s cannot be read: %s", file, strerror(errno));
    char *text = NULL, where[4200];
    size_t room = 0;
    for (int line = 1; getline(&text, &room, in) >= 0; line++) {
        text[strcspn(text, "#\r\n")] = '\0';
        char *name = strtok(text, " \t");
        if (!name)
            continue;
        snprintf(where, sizeof where, "%s:%d", file, line);
        if (strtok(NULL, " \t"))
            die("%s: one host[:slots] per line", where);
        char *colon = strchr(name, ':');
        long slots = 1;
        if (colon) {
            char *end;
            *colon = '\0';
            slots = strtol(colon + 1, &end, 10);
            if (*end || end == colon + 1 || slots < 1 || slots > 1 << 20)
                die("%s: slots '%s' of host '%s' are not a count from 1", where, colon + 1, name);
        }
        if (!*name)
            die("%s: no host name", where);
        add_host(m, name, (int)slots, where);
    }
    free(text);
    fclose(in);
    if (m->nhosts == 0)
        die("hosts file %s names no host", file);
}

/* The profiled job's hosts, in the order of their first PE, with as many slots as they ran
 * PEs (a host hydra started in several runs of ranks is several nodes of the profile). */
static void machine_of_profile(struct machine *m, const struct profile *p)
{
    for (int i = 0; i < p->npes; i++) {
        int seen = 0, slots = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = strcmp(p->place[k].host, p->place[i].host) == 0;
        if (seen)
            continue;
        for (int k = i; k < p->npes; k++)
            slots += strcmp(p->place[k].host, p->place[i].host) == 0;
        add_host(m, p->place[i].host, slots, "the profile's topology.csv");
        snprintf(m->host[m->nhosts - 1].switches, sizeof m->host->switches, "%s",
                 p->place[i].switches);
    }
}

static void finish_machine(struct machine *m)
{
    m->host_of_slot = alloc((size_t)m->nslots, sizeof *m->host_of_slot);
    for (int h = 0, s = 0; h < m->nhosts; h++)
        for (int k = 0; k < m->slots[h]; k++)
            m->host_of_slot[s++] = h;
}

/* ---- cost ------------------------------------------------------------------------------ */

struct cost {
    uint64_t hop_bytes, internode;
};

static struct cost cost_of(const struct profile *p, const struct prof_place *const *where)
{
    struct cost c = {0, 0};
    for (int i = 0; i < p->npes; i++)
        for (int j = 0; j < p->npes; j++) {
            uint64_t b = p->bytes[(size_t)i * (size_t)p->npes + (size_t)j];
            if (!b)
                continue;
            c.hop_bytes += b * (uint64_t)prof_hops(where[i], where[j]);
            if (where[i]->node != where[j]->node)
                c.internode += b;
        }
    return c;
}

/* ---- Scotch ---------------------------------------------------------------------------- */

/* Symmetric source graph of the PEs, edge weights the pairs' bytes scaled into Scotch's
 * integers (at least 1 for a pair that exchanged anything). */
static void source_graph(const struct profile *p, SCOTCH_Graph *g, SCOTCH_Num **verttab,
                         SCOTCH_Num **edgetab, SCOTCH_Num **edlotab)
{
    int n = p->npes;
    uint64_t max = 0;
    size_t edges = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            uint64_t w = p->bytes[(size_t)i * n + j] + p->bytes[(size_t)j * n + i];
            if (i != j && w) {
                edges++;
                max = w > max ? w : max;
            }
        }
    *verttab = alloc((size_t)n + 1, sizeof **verttab);
    *edgetab = alloc(edges, sizeof **edgetab);
    *edlotab = alloc(edges, sizeof **edlotab);
    size_t e = 0;
    for (int i = 0; i < n; i++) {
        (*verttab)[i] = (SCOTCH_Num)e;
        for (int j = 0; j < n; j++) {
            uint64_t w = p->bytes[(size_t)i * n + j] + p->bytes[(size_t)j * n + i];
            if (i == j || !w)
                continue;
            double scaled = (double)w / (double)max * EDGE_SCALE;
            (*edgetab)[e] = j;
            (*edlotab)[e++] = scaled < 1 ? 1 : (SCOTCH_Num)scaled;
        }
    }
    (*verttab)[n] = (SCOTCH_Num)e;
    if (SCOTCH_graphInit(g) != 0 ||
        SCOTCH_graphBuild(g, 0, n, *verttab, NULL, NULL, NULL, (SCOTCH_Num)e, *edgetab, *edlotab) !=
            0 ||
        SCOTCH_graphCheck(g) != 0)
        die("Scotch rejected the communication graph of %d PEs", n);
}

/* The machine as Scotch's tree-leaf architecture: levels of switches from the top, then hosts,
 * then slots, each level as wide as its widest parent; a host with a shorter switch path sits
 * under stand-in switches. The machine's own slots are a sub-architecture of it. A pair whose
 * paths part at level i is 2 x (levels below i) network links apart, as prof_hops counts. */
struct level_key {
    char key[MAX_DEPTH * PROF_SWITCHES_TEXT / 4]; /* the path down to here */
    int parent, index;                            /* the parent's key; index among siblings */
};

static int key_index(struct level_key **keys, int *n, const char *key, int parent, int *width)
{
    for (int k = 0; k < *n; k++)
        if (strcmp((*keys)[k].key, key) == 0)
            return k;
    int siblings = 0;
    for (int k = 0; k < *n; k++)
        siblings += (*keys)[k].parent == parent;
    *keys = realloc(*keys, (size_t)(*n + 1) * sizeof **keys);
    if (!*keys)
        die("out of memory");
    snprintf((*keys)[*n].key, sizeof(*keys)[*n].key, "%s", key);
    (*keys)[*n].parent = parent;
    (*keys)[*n].index = siblings;
    *width = siblings + 1 > *width ? siblings + 1 : *width;
    return (*n)++;
}

static void target_arch(const struct machine *m, SCOTCH_Arch *tleaf, SCOTCH_Arch *sub)
{
    char names[MAX_DEPTH][PROF_SWITCHES_TEXT];
    int depth = 0;
    for (int h = 0; h < m->nhosts; h++) {
        int d = prof_switch_names(m->host[h].switches, names, MAX_DEPTH);
        depth = d > depth ? d : depth;
    }
    /* levels 0..depth-1: switches; depth: hosts; depth + 1: slots */
    SCOTCH_Num width[MAX_DEPTH + 2] = {0}, link[MAX_DEPTH + 2];
    int *coord = alloc((size_t)m->nhosts * (depth + 1), sizeof *coord);
    struct level_key *keys = NULL;
    int nkeys = 0;
    for (int h = 0; h < m->nhosts; h++) {
        int d = prof_switch_names(m->host[h].switches, names, MAX_DEPTH), parent = -1;
        char key[sizeof keys->key] = "";
        for (int level = 0; level <= depth; level++) {
            /* Top down: the path's switches, stand-ins below a short path's leaf, the host. */
            const char *name = level == depth ? m->host[h].host
                               : level < d    ? names[d - 1 - level]
                                              : "";
            size_t at = strlen(key);
            snprintf(key + at, sizeof key - at, "/%s", name);
            int w = (int)width[level];
            parent = key_index(&keys, &nkeys, key, parent, &w);
            width[level] = w;
            coord[h * (depth + 1) + level] = keys[parent].index;
        }
    }
    width[depth + 1] = 0;
    for (int h = 0; h < m->nhosts; h++)
        width[depth + 1] = m->slots[h] > width[depth + 1] ? m->slots[h] : width[depth + 1];
    double terminals = 1;
    for (int level = 0; level <= depth + 1; level++) {
        terminals *= (double)width[level];
        link[level] = level <= depth ? NETWORK_LINK * 2 * (depth + 1 - level) : NODE_LINK;
    }
    if (terminals > (double)(1 << 30))
        die("the switch tree is too irregular for a tree-leaf architecture (%g places)", terminals);
    /* A slot's terminal: its coordinates read as one number, the widths as radices. */
    SCOTCH_Num *terminal = alloc((size_t)m->nslots, sizeof *terminal);
    for (int s = 0, first = 0; s < m->nslots; s++) {
        int h = m->host_of_slot[s];
        if (s > 0 && m->host_of_slot[s - 1] != h)
            first = s;
        SCOTCH_Num t = 0;
        for (int level = 0; level <= depth; level++)
            t = t * width[level] + coord[h * (depth + 1) + level];
        terminal[s] = t * width[depth + 1] + (s - first);
    }
    if (SCOTCH_archInit(tleaf) != 0 || SCOTCH_archTleaf(tleaf, depth + 2, width, link) != 0 ||
        SCOTCH_archInit(sub) != 0 || SCOTCH_archSub(sub, tleaf, m->nslots, terminal) != 0)
        die("Scotch cannot build the target architecture of %d slots on %d hosts", m->nslots,
            m->nhosts);
    free(terminal);
    free(coord);
    free(keys);
}

/* slot_of[pe] from Scotch's mapping of the PEs onto the slots. */
static void scotch_map(const struct profile *p, const struct machine *m, int *slot_of)
{
    SCOTCH_Graph g;
    SCOTCH_Arch tleaf, arch;
    SCOTCH_Strat strat;
    SCOTCH_Num *verttab, *edgetab, *edlotab;
    source_graph(p, &g, &verttab, &edgetab, &edlotab);
    target_arch(m, &tleaf, &arch);
    SCOTCH_Num *part = alloc((size_t)p->npes, sizeof *part);
    if (SCOTCH_stratInit(&strat) != 0 ||
        SCOTCH_stratGraphMapBuild(&strat, SCOTCH_STRATQUALITY, m->nslots, 0.0) != 0 ||
        SCOTCH_graphMap(&g, &arch, &strat, part) != 0)
        die("Scotch could not map the %d PEs onto %d slots", p->npes, m->nslots);
    for (int i = 0; i < p->npes; i++) {
        if (part[i] < 0 || part[i] >= m->nslots)
            die("Scotch mapped PE %d to slot %d of %d", i, (int)part[i], m->nslots);
        slot_of[i] = (int)part[i];
    }
    SCOTCH_stratExit(&strat);
    SCOTCH_archExit(&arch);
    SCOTCH_archExit(&tleaf);
    SCOTCH_graphExit(&g);
    free(part);
    free(verttab);
    free(edgetab);
    free(edlotab);
}

/* ---- one PE per slot, then exchanges -------------------------------------------------- */

/* Hop-bytes of PE i's pairs with i on host h (both directions). */
static uint64_t pe_cost(const struct profile *p, const struct machine *m, const int *slot_of, int i,
                        int h)
{
    uint64_t c = 0;
    for (int j = 0; j < p->npes; j++) {
        if (j == i)
            continue;
        uint64_t b = p->bytes[(size_t)i * p->npes + j] + p->bytes[(size_t)j * p->npes + i];
        if (b)
            c += b * (uint64_t)prof_hops(&m->host[h], &m->host[m->host_of_slot[slot_of[j]]]);
    }
    return c;
}

/* Scotch balances loads but may put two PEs on a slot: the extra ones move to the free slot
 * where they cost least. */
static void one_per_slot(const struct profile *p, const struct machine *m, int *slot_of)
{
    int *used = alloc((size_t)m->nslots, sizeof *used);
    for (int i = 0; i < p->npes; i++)
        used[slot_of[i]]++;
    for (int i = 0; i < p->npes; i++) {
        if (used[slot_of[i]] <= 1)
            continue;
        int best = -1;
        uint64_t best_cost = UINT64_MAX;
        for (int s = 0; s < m->nslots; s++) {
            if (used[s])
                continue;
            uint64_t c = pe_cost(p, m, slot_of, i, m->host_of_slot[s]);
            if (c < best_cost) {
                best_cost = c;
                best = s;
            }
        }
        used[slot_of[i]]--;
        slot_of[i] = best;
        used[best]++;
    }
    free(used);
}

/* Host changes between consecutive ranks next to ranks a and b: hydra starts a proxy for each
 * run of ranks on one host, and MPICH takes each for a node. */
static int breaks_near(const struct machine *m, const int *slot_of, int npes, int a, int b)
{
    int at[4] = {a, a + 1, b, b + 1}, count = 0;
    for (int x = 0; x < 4; x++) {
        int k = at[x], again = 0;
        for (int y = 0; y < x; y++)
            again |= at[y] == k;
        if (!again && k >= 1 && k < npes)
            count += m->host_of_slot[slot_of[k]] != m->host_of_slot[slot_of[k - 1]];
    }
    return count;
}

/* Exchanges of two PEs on different hosts (or a move to a free slot) while one lowers the
 * hop-bytes, or keeps them and leaves fewer runs of ranks per host. */
static int refine(const struct profile *p, const struct machine *m, int *slot_of)
{
    int *pe_at = alloc((size_t)m->nslots, sizeof *pe_at), moves = 0;
    for (int pass = 0, improved = 1; improved && pass < 50; pass++) {
        improved = 0;
        for (int s = 0; s < m->nslots; s++)
            pe_at[s] = -1;
        for (int i = 0; i < p->npes; i++)
            pe_at[slot_of[i]] = i;
        for (int i = 0; i < p->npes; i++)
            for (int s = 0; s < m->nslots; s++) {
                int hi = m->host_of_slot[slot_of[i]], hs = m->host_of_slot[s], j = pe_at[s];
                if (hi == hs)
                    continue;
                uint64_t before = pe_cost(p, m, slot_of, i, hi);
                uint64_t after = pe_cost(p, m, slot_of, i, hs);
                if (j >= 0) {
                    /* The pair's own bytes keep their distance across the exchange. */
                    uint64_t both =
                        p->bytes[(size_t)i * p->npes + j] + p->bytes[(size_t)j * p->npes + i];
                    uint64_t d = both * (uint64_t)prof_hops(&m->host[hi], &m->host[hs]);
                    /* Both costs count the pair at its distance before; after, neither does. */
                    before += pe_cost(p, m, slot_of, j, hs);
                    after += pe_cost(p, m, slot_of, j, hi) + 2 * d;
                }
                if (after > before)
                    continue;
                int from = slot_of[i], other = j >= 0 ? j : i;
                int breaks = after == before ? breaks_near(m, slot_of, p->npes, i, other) : 0;
                slot_of[i] = s;
                if (j >= 0)
                    slot_of[j] = from;
                if (after == before && breaks_near(m, slot_of, p->npes, i, other) >= breaks) {
                    slot_of[i] = from;
                    if (j >= 0)
                        slot_of[j] = s;
                    continue;
                }
                pe_at[s] = i;
                pe_at[from] = j;
                improved = 1;
                moves++;
            }
    }
    free(pe_at);
    return moves;
}

static void usage(FILE *to)
{
    fprintf(to, "usage: pangea-map [--hosts FILE [--topology FILE]] [-o MACHINEFILE] DIR\n"
                "  DIR              a profile written with PANGEA_PROFILE=DIR (docs/profile.md)\n"
                "  --hosts FILE     the machine: host[:slots] per line (hydra's machine file)\n"
                "                   (default: the profiled job's nodes, slots = their PEs)\n"
                "  --topology FILE  the hosts' switch tree, Slurm topology.conf syntax\n"
                "                   (docs/topology.md; default: one switch over every host)\n"
                "  -o MACHINEFILE   where the placement goes (default DIR/machinefile):\n"
                "                   oshrun -f MACHINEFILE -n NPES PROGRAM\n");
}

int main(int argc, char **argv)
{
    const char *hosts = NULL, *topology = NULL, *out = NULL;
    static const struct option longopts[] = {{"hosts", required_argument, NULL, 'H'},
                                             {"topology", required_argument, NULL, 'T'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'H':
            hosts = optarg;
            break;
        case 'T':
            topology = optarg;
            break;
        case 'o':
            out = optarg;
            break;
        default:
            prof_usage_exit(c, usage);
        }
    }
    if (topology && !hosts)
        die("--topology %s needs --hosts FILE: the hosts and their slots", topology);
    struct profile p;
    const char *dir = prof_load_argument("pangea-map", argc, argv, optind, usage, &p);

    struct machine m = {0};
    if (hosts) {
        read_hosts(&m, hosts);
        for (int h = 0; topology && h < m.nhosts; h++) {
            char why[PG_TOPO_ERROR_TEXT];
            if (pg_topo_file_switches(topology, m.host[h].host, m.host[h].switches,
                                      sizeof m.host[h].switches, why) != 0)
                die("%s", why);
        }
    } else {
        machine_of_profile(&m, &p);
    }
    if (m.nslots < p.npes)
        die("the profile %s has %d PEs but %s holds %d (%d host%s): give a machine with at "
            "least %d slots",
            dir, p.npes, hosts ? hosts : "its own topology.csv", m.nslots, m.nhosts,
            m.nhosts == 1 ? "" : "s", p.npes);
    finish_machine(&m);

    const struct prof_place **where = alloc((size_t)p.npes, sizeof *where);
    for (int i = 0; i < p.npes; i++)
        where[i] = &p.place[i];
    struct cost before = cost_of(&p, where);

    int *slot_of = alloc((size_t)p.npes, sizeof *slot_of);
    scotch_map(&p, &m, slot_of);
    one_per_slot(&p, &m, slot_of);
    for (int i = 0; i < p.npes; i++)
        where[i] = &m.host[m.host_of_slot[slot_of[i]]];
    struct cost scotch = cost_of(&p, where);
    int moves = p.npes <= MAX_REFINED_PES ? refine(&p, &m, slot_of) : 0;
    for (int i = 0; i < p.npes; i++)
        where[i] = &m.host[m.host_of_slot[slot_of[i]]];
    struct cost after = cost_of(&p, where);

    printf("pangea-map: %d PEs of %s onto %d slots on %d hosts\n", p.npes, dir, m.nslots, m.nhosts);
    printf("before: inter-node bytes %" PRIu64 ", hop-bytes %" PRIu64 " (the profiled placement)\n",
           before.internode, before.hop_bytes);
    printf("scotch: inter-node bytes %" PRIu64 ", hop-bytes %" PRIu64 " (Scotch's mapping)\n",
           scotch.internode, scotch.hop_bytes);
    printf("after:  inter-node bytes %" PRIu64 ", hop-bytes %" PRIu64
           " (%d exchange%s after Scotch)\n",
           after.internode, after.hop_bytes, moves, moves == 1 ? "" : "s");

    char path[4096];
    if (!out) {
        snprintf(path, sizeof path, "%s/machinefile", dir);
        out = path;
    }
    FILE *f = fopen(out, "w");
    if (!f)
        die("cannot write the machine file %s: %s", out, strerror(errno));
    /* One line per run of ranks on one host: hydra places rank by rank in this order. */
    int scattered = 0;
    for (int i = 0; i < p.npes;) {
        int h = m.host_of_slot[slot_of[i]], run = 1;
        while (i + run < p.npes && m.host_of_slot[slot_of[i + run]] == h)
            run++;
        fprintf(f, "%s:%d\n", m.host[h].host, run);
        for (int k = 0; k < i && !scattered; k++)
            scattered = m.host_of_slot[slot_of[k]] == h;
        i += run;
    }
    if (fclose(f) != 0)
        die("cannot write the machine file %s", out);
    printf("machine file: %s (oshrun -f %s -n %d PROGRAM)\n", out, out, p.npes);
    for (int h = 0; h < m.nhosts; h++) {
        printf("  %s:", m.host[h].host);
        for (int i = 0; i < p.npes; i++)
            if (m.host_of_slot[slot_of[i]] == h)
                printf(" %d", i);
        printf("\n");
    }
    if (scattered)
        printf("note: some host's PEs are not consecutive ranks: hydra starts one proxy per run "
               "of ranks, and MPICH (so Pangea) takes each run for a node of its own\n");
    free(where);
    free(slot_of);
    free(m.host);
    free(m.slots);
    free(m.host_of_slot);
    prof_free(&p);
    return 0;
}
