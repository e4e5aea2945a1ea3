/* The job's topology: one card per node (its host, its path in the switch tree), the node
 * model and the bindings of the node's PEs, the levels between PEs, and SHMEM_INFO's view. */
#include "topo.h"

#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo_internal.h"
#include "transport/transport.h"

#include <ctype.h>
#include <hwloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What each node leader gives to the one exchange between nodes. */
struct node_card {
    char host[64];
    struct topo_path path;
    int32_t source; /* enum topo_source */
    char error[TOPO_ERROR_TEXT];
};

struct topo_switch {
    char *name;
    int parent; /* -1 at the top */
    uint32_t speed;
};

static struct topo_machine *machine;       /* my node's */
static struct topo_binding *local_binding; /* [local_size] */
static struct topo_binding *world_binding; /* [npes], with SHMEM_INFO only */
static struct node_card *cards;            /* [nnodes] */
static int *leaf_of_node;                  /* [nnodes] */
static struct topo_switch *switches;
static int nswitches;

static void *alloc_or_die(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        pg_fatal("shmem_init", "out of memory for the topology (%zu bytes)", bytes);
    return p;
}

/* The switch called name[0, len) below parent, added when new. -1 when the nodes' paths
 * disagree about its parent. */
static int switch_index(const char *name, size_t len, int parent, uint32_t speed)
{
    for (int i = 0; i < nswitches; i++)
        if (strlen(switches[i].name) == len && strncmp(switches[i].name, name, len) == 0)
            return switches[i].parent == parent ? i : -1;
    switches = realloc(switches, (size_t)(nswitches + 1) * sizeof *switches);
    char *copy = strndup(name, len);
    if (!switches || !copy)
        pg_fatal("shmem_init", "out of memory for the switch tree");
    switches[nswitches] = (struct topo_switch){copy, parent, speed};
    return nswitches++;
}

/* The first error of any node, or of the tree the nodes' paths make together; NULL when none. */
static const char *build_tree(char *error)
{
    for (int n = 0; n < pg_world.nnodes; n++)
        if (cards[n].error[0])
            return cards[n].error;
    leaf_of_node = alloc_or_die((size_t)pg_world.nnodes * sizeof *leaf_of_node);
    for (int n = 0; n < pg_world.nnodes; n++) {
        if (cards[n].source != cards[0].source) {
            snprintf(error, TOPO_ERROR_TEXT,
                     "nodes %s and %s read the switch tree from different sources (Slurm's "
                     "SLURM_TOPOLOGY_ADDR is set on some nodes only?)",
                     cards[0].host, cards[n].host);
            return error;
        }
        int at = -1, depth = 0;
        for (const char *c = cards[n].path.names; *c; depth++) {
            size_t len = strcspn(c, ".");
            int parent = at;
            at = switch_index(c, len, parent, cards[n].path.speed[depth]);
            if (at < 0) {
                snprintf(error, TOPO_ERROR_TEXT,
                         "switch '%.*s' is under different switches in the paths of different "
                         "nodes (node %s: '%s')",
                         (int)len, c, cards[n].host, cards[n].path.names);
                return error;
            }
            c += len + (c[len] == '.');
        }
        leaf_of_node[n] = at;
    }
    return NULL;
}

void pg_topo_init(void)
{
    machine = alloc_or_die(sizeof *machine);
    struct node_card mine;
    memset(&mine, 0, sizeof mine);
    if (pg_world.local_rank == 0) {
        char why[160];
        if (topo_machine_load(machine, why, sizeof why) != 0)
            pg_warn("topology: %s: this node's cores, NUMA domains and NICs are unknown", why);
        if (gethostname(mine.host, sizeof mine.host) != 0)
            snprintf(mine.host, sizeof mine.host, "unknown");
        mine.host[sizeof mine.host - 1] = '\0';
        enum topo_source source;
        topo_path_of_host(mine.host, &mine.path, &source, mine.error);
        mine.source = (int32_t)source;
    }
    pg_boot_node_bcast(machine, sizeof *machine);
    struct topo_binding me;
    topo_binding_of_self(machine, &me);
    local_binding = alloc_or_die((size_t)pg_world.local_size * sizeof *local_binding);
    pg_boot_node_allgather(&me, local_binding, sizeof me);
    cards = alloc_or_die((size_t)pg_world.nnodes * sizeof *cards);
    pg_boot_leaders_allgather(&mine, cards, sizeof mine);
    char error[TOPO_ERROR_TEXT];
    const char *failed = build_tree(error);
    if (failed) {
        /* Every PE found the same error: PE 0 alone reports it, and its abort ends the rest. */
        if (pg_world.me == 0)
            pg_fatal("shmem_init", "topology: %s", failed);
        for (;;)
            pause();
    }
    if (pg_cfg.info || pg_cfg.profile) {
        world_binding = alloc_or_die((size_t)pg_world.npes * sizeof *world_binding);
        pg_boot_allgather(&me, world_binding, sizeof me);
    }
}

void pg_topo_fini(void)
{
    for (int i = 0; i < nswitches; i++)
        free(switches[i].name);
    free(switches);
    switches = NULL;
    nswitches = 0;
    free(machine);
    free(local_binding);
    free(world_binding);
    free(cards);
    free(leaf_of_node);
    machine = NULL;
    local_binding = world_binding = NULL;
    cards = NULL;
    leaf_of_node = NULL;
}

int pg_topo_level(int pe)
{
    if (pe < 0 || pe >= pg_world.npes)
        return -1;
    if (pe == pg_world.me)
        return PG_LEVEL_CORE;
    int local = pg_local_rank_of(pe);
    if (local >= 0) {
        const int *a = local_binding[pg_world.local_rank].place, *b = local_binding[local].place;
        static const enum topo_place shared[] = {PLACE_CORE, PLACE_NUMA, PLACE_PACKAGE};
        for (int level = PG_LEVEL_CORE; level < PG_LEVEL_NODE; level++)
            if (a[shared[level]] >= 0 && a[shared[level]] == b[shared[level]])
                return level;
        return PG_LEVEL_NODE;
    }
    return leaf_of_node[pg_world.node_of[pe]] == leaf_of_node[pg_world.node] ? PG_LEVEL_SWITCH
                                                                             : PG_LEVEL_SYSTEM;
}

int pg_topo_leaf_switch(int node)
{
    return leaf_of_node[node];
}

int pg_topo_switch_count(void)
{
    return nswitches;
}

int pg_topo_numa_of(int pe)
{
    int local = pg_local_rank_of(pe);
    return local < 0 ? -1 : local_binding[local].place[PLACE_NUMA];
}

uint32_t pg_topo_switch_speed(int sw)
{
    return sw >= 0 && sw < nswitches ? switches[sw].speed : 0;
}

/* The NIC of my node that the network's domain is, or -1. */
static int network_nic(void)
{
    const char *domain = pg_net_domain();
    /* Providers name a domain after its device, sometimes with a suffix ("mlx5_0-dgram"). */
    for (int i = 0; domain && i < machine->nnics; i++) {
        size_t len = strlen(machine->nic[i].name);
        if (strncmp(machine->nic[i].name, domain, len) == 0 && !isalnum((unsigned char)domain[len]))
            return i;
    }
    return -1;
}

int pg_topo_server_cpus(struct pg_cpus *cpus, char *why, size_t len)
{
    if (machine->npus == 0)
        return -1;
    topo_server_place(machine, local_binding, pg_world.local_size, network_nic(), cpus, why, len);
    return 0;
}

void pg_topo_place(int pe, struct pg_topo_place *out)
{
    int node = pg_world.node_of[pe];
    const struct topo_binding *b = world_binding ? &world_binding[pe] : NULL;
    *out = (struct pg_topo_place){.node = node,
                                  .host = cards[node].host,
                                  .package = b ? b->place[PLACE_PACKAGE] : -1,
                                  .numa = b ? b->place[PLACE_NUMA] : -1,
                                  .core = b ? b->first_core : -1};
    if (cards[0].source == SOURCE_DEFAULT)
        return;
    size_t at = 0;
    for (int s = leaf_of_node[node]; s >= 0 && at < sizeof out->switches; s = switches[s].parent)
        at += (size_t)snprintf(out->switches + at, sizeof out->switches - at, "%s%s", at ? "/" : "",
                               switches[s].name);
}

/* "0-3,8" for the PEs of node (at most len characters, "..." when cut). */
static void node_pes_text(int node, char *text, size_t len)
{
    size_t at = 0;
    text[0] = '\0';
    for (int pe = 0; pe < pg_world.npes && at < len; pe++) {
        if (pg_world.node_of[pe] != node)
            continue;
        int last = pe;
        while (last + 1 < pg_world.npes && pg_world.node_of[last + 1] == node)
            last++;
        if (last == pe)
            at += (size_t)snprintf(text + at, len - at, "%s%d", at ? "," : "", pe);
        else
            at += (size_t)snprintf(text + at, len - at, "%s%d-%d", at ? "," : "", pe, last);
        pe = last;
    }
    if (at >= len && len > 4)
        strcpy(text + len - 4, "...");
}

static void print_switch(FILE *out, int s, int depth)
{
    fprintf(out, "%*sswitch %s", 2 + 2 * depth, "", switches[s].name);
    if (switches[s].speed)
        fprintf(out, " (LinkSpeed %u)", (unsigned)switches[s].speed);
    fprintf(out, "\n");
    for (int c = 0; c < nswitches; c++)
        if (switches[c].parent == s)
            print_switch(out, c, depth + 1);
    for (int n = 0; n < pg_world.nnodes; n++)
        if (leaf_of_node[n] == s) {
            char pes[96];
            node_pes_text(n, pes, sizeof pes);
            fprintf(out, "%*snode %d %s: PEs %s\n", 4 + 2 * depth, "", n, cards[n].host, pes);
        }
}

void pg_topo_print(FILE *out)
{
    static const char *const from[] = {
        [SOURCE_DEFAULT] = "the default, one switch over every node",
        [SOURCE_SLURM] = "SLURM_TOPOLOGY_ADDR",
        [SOURCE_FILE] = "PANGEA_TOPOLOGY_FILE",
    };
    int source = cards[0].source;
    fprintf(out, "topology: switch tree from %s%s%s\n", from[source],
            source == SOURCE_FILE ? " " : "",
            source == SOURCE_FILE ? getenv("PANGEA_TOPOLOGY_FILE") : "");
    for (int s = 0; s < nswitches; s++)
        if (switches[s].parent < 0)
            print_switch(out, s, 0);
    for (int pe = 0; world_binding && pe < pg_world.npes; pe++) {
        char text[256];
        topo_binding_text(machine, &world_binding[pe], text, sizeof text);
        fprintf(out, "  PE %d on node %d: %s\n", pe, pg_world.node_of[pe], text);
    }
    fprintf(out, "  node %d (%s), from hwloc:\n", pg_world.node, cards[pg_world.node].host);
    topo_machine_print(out, machine, "    ");
    const char *domain = pg_world.nnodes > 1 ? pg_net_domain() : NULL;
    if (!domain)
        return;
    int nic = network_nic();
    if (nic >= 0)
        fprintf(out, "    network: libfabric domain '%s' is NIC %s, near cpus %s\n", domain,
                machine->nic[nic].name, machine->nic[nic].cpus);
    else
        fprintf(out, "    network: libfabric domain '%s' is none of the NICs hwloc reports\n",
                domain);
    char server[200];
    if (pg_topo_server_cpus(&(struct pg_cpus){{0}}, server, sizeof server) == 0)
        fprintf(out, "    data server: %s\n", server);
}

int pg_topo_describe_machine(FILE *out)
{
    struct topo_machine *m = malloc(sizeof *m);
    char why[160];
    if (!m || topo_machine_load(m, why, sizeof why) != 0) {
        fprintf(out, "topology: %s\n", m ? why : "out of memory");
        free(m);
        return -1;
    }
    fprintf(out, "topology of this machine (hwloc %s):\n", HWLOC_VERSION);
    topo_machine_print(out, m, "  ");
    free(m);
    return 0;
}
