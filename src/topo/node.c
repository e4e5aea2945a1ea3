/* The node model from hwloc: which core, NUMA domain, package and caches each processor
 * belongs to, the network devices with their locality, and a PE's binding in it. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "topo_internal.h"

#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

static const hwloc_obj_type_t place_type[PLACE_KINDS] = {
    [PLACE_CORE] = HWLOC_OBJ_CORE,       [PLACE_NUMA] = HWLOC_OBJ_NUMANODE,
    [PLACE_PACKAGE] = HWLOC_OBJ_PACKAGE, [PLACE_L1] = HWLOC_OBJ_L1CACHE,
    [PLACE_L2] = HWLOC_OBJ_L2CACHE,      [PLACE_L3] = HWLOC_OBJ_L3CACHE,
};
static const char *const place_name[PLACE_KINDS] = {"core", "NUMA", "package", "L1d", "L2", "L3"};

/* The place of each kind common to every processor of set (-1 where they differ or one is
 * unknown); -1 everywhere for an empty set. */
static void common_places(const struct topo_machine *m, hwloc_const_bitmap_t set,
                          int place[PLACE_KINDS])
{
    int first = 1;
    for (int k = 0; k < PLACE_KINDS; k++)
        place[k] = -1;
    int pu;
    hwloc_bitmap_foreach_begin(pu, set)
    {
        for (int k = 0; k < PLACE_KINDS; k++) {
            int here = pu < m->npus ? m->place_of_pu[pu][k] : -1;
            if (first)
                place[k] = here;
            else if (place[k] != here)
                place[k] = -1;
        }
        first = 0;
    }
    hwloc_bitmap_foreach_end();
}

static void cpus_text(hwloc_const_bitmap_t set, char text[TOPO_CPUS_TEXT])
{
    if (hwloc_bitmap_list_snprintf(text, TOPO_CPUS_TEXT, set) >= TOPO_CPUS_TEXT)
        strcpy(text + TOPO_CPUS_TEXT - 4, "...");
}

static void cpus_of_bitmap(hwloc_const_bitmap_t set, struct pg_cpus *cpus)
{
    memset(cpus, 0, sizeof *cpus);
    int pu;
    hwloc_bitmap_foreach_begin(pu, set)
    {
        if (pu < TOPO_MAX_PUS)
            cpus->bits[pu / 64] |= 1ull << (pu % 64);
    }
    hwloc_bitmap_foreach_end();
}

static int has_cpu(const struct pg_cpus *cpus, int pu)
{
    return (int)(cpus->bits[pu / 64] >> (pu % 64) & 1);
}

static int any_cpu(const struct pg_cpus *cpus)
{
    for (size_t w = 0; w < TOPO_MAX_PUS / 64; w++)
        if (cpus->bits[w])
            return 1;
    return 0;
}

static void find_nics(hwloc_topology_t topology, struct topo_machine *m)
{
    for (hwloc_obj_t dev = hwloc_get_next_osdev(topology, NULL); dev && m->nnics < TOPO_MAX_NICS;
         dev = hwloc_get_next_osdev(topology, dev)) {
        if (dev->attr->osdev.type != HWLOC_OBJ_OSDEV_NETWORK &&
            dev->attr->osdev.type != HWLOC_OBJ_OSDEV_OPENFABRICS)
            continue;
        struct topo_nic *nic = &m->nic[m->nnics++];
        snprintf(nic->name, sizeof nic->name, "%s", dev->name);
        hwloc_obj_t near = hwloc_get_non_io_ancestor_obj(topology, dev);
        common_places(m, near->cpuset, nic->place);
        cpus_text(near->cpuset, nic->cpus);
        cpus_of_bitmap(near->cpuset, &nic->near);
    }
}

int topo_machine_load(struct topo_machine *m, char *why, size_t why_len)
{
    memset(m, 0, sizeof *m);
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) {
        snprintf(why, why_len, "hwloc_topology_init failed");
        return -1;
    }
    hwloc_topology_set_io_types_filter(topology, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topology) != 0) {
        snprintf(why, why_len, "hwloc_topology_load failed");
        hwloc_topology_destroy(topology);
        return -1;
    }
    hwloc_const_bitmap_t all = hwloc_topology_get_complete_cpuset(topology);
    int last = hwloc_bitmap_last(all);
    m->npus = last < 0 ? 0 : last + 1 > TOPO_MAX_PUS ? TOPO_MAX_PUS : last + 1;
    memset(m->place_of_pu, 0xff, sizeof m->place_of_pu); /* -1 */
    for (int k = 0; k < PLACE_KINDS; k++) {
        int n = hwloc_get_nbobjs_by_type(topology, place_type[k]);
        m->count[k] = n;
        for (int i = 0; i < n; i++) {
            hwloc_obj_t obj = hwloc_get_obj_by_type(topology, place_type[k], (unsigned)i);
            int pu;
            hwloc_bitmap_foreach_begin(pu, obj->cpuset)
            {
                if (pu < m->npus)
                    m->place_of_pu[pu][k] = (int16_t)i;
            }
            hwloc_bitmap_foreach_end();
            if (k >= PLACE_L1 && i == 0)
                m->cache_kib[k - PLACE_L1] = (unsigned long)(obj->attr->cache.size / 1024);
        }
    }
    cpus_of_bitmap(hwloc_topology_get_allowed_cpuset(topology), &m->allowed);
    find_nics(topology, m);
    hwloc_topology_destroy(topology);
    return 0;
}

void topo_binding_of_self(const struct topo_machine *m, struct topo_binding *b)
{
    cpu_set_t mask;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (sched_getaffinity(0, sizeof mask, &mask) == 0) {
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
            if (CPU_ISSET(cpu, &mask))
                hwloc_bitmap_set(set, (unsigned)cpu);
    }
    common_places(m, set, b->place);
    int first = hwloc_bitmap_first(set);
    b->first_core = first >= 0 && first < m->npus ? m->place_of_pu[first][PLACE_CORE] : -1;
    cpus_text(set, b->cpus);
    cpus_of_bitmap(set, &b->set);
    hwloc_bitmap_free(set);
}

/* "core 1, NUMA 0, package 0" for the places that are known. */
static void places_text(const int place[PLACE_KINDS], int first, int last, char *text, size_t len)
{
    size_t at = 0;
    text[0] = '\0';
    for (int k = first; k <= last && at < len; k++)
        if (place[k] >= 0)
            at += (size_t)snprintf(text + at, len - at, "%s%s %d", at ? ", " : "", place_name[k],
                                   place[k]);
    if (at == 0)
        snprintf(text, len, "no single core, NUMA domain or package");
}

void topo_binding_text(const struct topo_machine *m, const struct topo_binding *b, char *text,
                       size_t len)
{
    char places[128];
    places_text(b->place, PLACE_CORE, PLACE_PACKAGE, places, sizeof places);
    size_t at = (size_t)snprintf(text, len, "cpus %s (%s)", b->cpus, places);
    for (int k = PLACE_L1, listed = 0; k <= PLACE_L3 && at < len; k++)
        if (b->place[k] >= 0)
            at +=
                (size_t)snprintf(text + at, len - at, "%s %s %lu KiB", listed++ ? "," : "; caches",
                                 place_name[k], m->cache_kib[k - PLACE_L1]);
}

void topo_machine_print(FILE *out, const struct topo_machine *m, const char *indent)
{
    fprintf(out, "%s%d package%s, %d NUMA domain%s, %d core%s, %d processor%s\n", indent,
            m->count[PLACE_PACKAGE], m->count[PLACE_PACKAGE] == 1 ? "" : "s", m->count[PLACE_NUMA],
            m->count[PLACE_NUMA] == 1 ? "" : "s", m->count[PLACE_CORE],
            m->count[PLACE_CORE] == 1 ? "" : "s", m->npus, m->npus == 1 ? "" : "s");
    fprintf(out, "%scaches:", indent);
    int listed = 0;
    for (int k = PLACE_L1; k <= PLACE_L3; k++)
        if (m->count[k])
            fprintf(out, "%s %d x %s %lu KiB", listed++ ? "," : "", m->count[k], place_name[k],
                    m->cache_kib[k - PLACE_L1]);
    fprintf(out, "%s\n", listed ? "" : " none reported");
    for (int n = 0; n < m->count[PLACE_NUMA]; n++) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        for (int pu = 0; pu < m->npus; pu++)
            if (m->place_of_pu[pu][PLACE_NUMA] == n)
                hwloc_bitmap_set(set, (unsigned)pu);
        char cpus[TOPO_CPUS_TEXT];
        cpus_text(set, cpus);
        hwloc_bitmap_free(set);
        fprintf(out, "%sNUMA %d: cpus %s\n", indent, n, cpus);
    }
    if (m->nnics == 0)
        fprintf(out, "%sNICs: none that hwloc reports\n", indent);
    for (int i = 0; i < m->nnics; i++) {
        char places[128];
        places_text(m->nic[i].place, PLACE_NUMA, PLACE_PACKAGE, places, sizeof places);
        fprintf(out, "%sNIC %s: near cpus %s (%s)\n", indent, m->nic[i].name, m->nic[i].cpus,
                places);
    }
}

void topo_server_place(const struct topo_machine *m, const struct topo_binding *pes, int npes,
                       int nic, struct pg_cpus *cpus, char *why, size_t len)
{
    /* The cores of the PEs bound to fewer processors than the job may use: a server on a
     * hyperthread of a bound PE's core would take that PE's cycles. */
    struct pg_cpus taken;
    memset(&taken, 0, sizeof taken);
    for (int p = 0; p < npes; p++) {
        if (memcmp(&pes[p].set, &m->allowed, sizeof m->allowed) == 0)
            continue;
        for (int pu = 0; pu < m->npus; pu++) {
            if (!has_cpu(&pes[p].set, pu))
                continue;
            int core = m->place_of_pu[pu][PLACE_CORE];
            for (int q = 0; q < m->npus; q++)
                if (q == pu || (core >= 0 && m->place_of_pu[q][PLACE_CORE] == core))
                    taken.bits[q / 64] |= 1ull << (q % 64);
        }
    }
    struct pg_cpus free_near, free_any;
    for (size_t w = 0; w < TOPO_MAX_PUS / 64; w++) {
        free_any.bits[w] = m->allowed.bits[w] & ~taken.bits[w];
        free_near.bits[w] = nic >= 0 ? free_any.bits[w] & m->nic[nic].near.bits[w] : 0;
    }
    const char *nic_name = nic >= 0 ? m->nic[nic].name : NULL;
    char reason[96];
    if (any_cpu(&free_near)) {
        *cpus = free_near;
        snprintf(reason, sizeof reason, "near NIC %s, no PE bound there", nic_name);
    } else if (any_cpu(&free_any)) {
        *cpus = free_any;
        if (nic_name)
            snprintf(reason, sizeof reason, "no PE bound there; none such near NIC %s", nic_name);
        else
            snprintf(reason, sizeof reason, "no PE bound there; the NIC's place is unknown");
    } else if (nic >= 0) {
        for (size_t w = 0; w < TOPO_MAX_PUS / 64; w++)
            cpus->bits[w] = m->allowed.bits[w] & m->nic[nic].near.bits[w];
        snprintf(reason, sizeof reason, "near NIC %s; PEs are bound to every core", nic_name);
        if (!any_cpu(cpus))
            *cpus = m->allowed;
    } else {
        *cpus = m->allowed;
        snprintf(reason, sizeof reason,
                 "anywhere: PEs are bound to every core and the NIC's place is unknown");
    }
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    for (int pu = 0; pu < TOPO_MAX_PUS; pu++)
        if (has_cpu(cpus, pu))
            hwloc_bitmap_set(set, (unsigned)pu);
    char list[TOPO_CPUS_TEXT];
    cpus_text(set, list);
    hwloc_bitmap_free(set);
    snprintf(why, len, "cpus %s (%s)", list, reason);
}
