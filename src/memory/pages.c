/* Huge pages for the symmetric heap: what the node's kernel offers, read from /proc and /sys
 * (the hugetlb pool and the policy for transparent huge pages on shared memory). */
#define _GNU_SOURCE
#include "memory.h"

#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"
#define SHMEM_ENABLED THP_DIR "/shmem_enabled"

/* The first line of a file, without its newline; 0, or -1 when it cannot be read. */
static int read_line(const char *path, char *line, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int ok = fgets(line, (int)size, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    line[strcspn(line, "\n")] = '\0';
    return 0;
}

static long read_long(const char *path)
{
    char line[64];
    return read_line(path, line, sizeof line) == 0 ? atol(line) : 0;
}

void pg_pages_probe(struct pg_page_probe *p)
{
    memset(p, 0, sizeof *p);
    p->page = (size_t)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/proc/meminfo", "r");
    char line[128];
    while (f && fgets(line, sizeof line, f)) {
        long v;
        if (sscanf(line, "HugePages_Total: %ld", &v) == 1)
            p->hugetlb_total = v;
        else if (sscanf(line, "HugePages_Free: %ld", &v) == 1)
            p->hugetlb_free = v;
        else if (sscanf(line, "HugePages_Rsvd: %ld", &v) == 1)
            p->hugetlb_rsvd = v;
        else if (sscanf(line, "HugePages_Surp: %ld", &v) == 1)
            p->hugetlb_surplus = v;
        else if (sscanf(line, "Hugepagesize: %ld kB", &v) == 1)
            p->hugetlb_size = (size_t)v << 10;
    }
    if (f)
        fclose(f);
    p->hugetlb_overcommit = read_long("/proc/sys/vm/nr_overcommit_hugepages");
    p->thp_size = (size_t)read_long(THP_DIR "/hpage_pmd_size");
    /* The selected policy is the bracketed word: "always within_size [advise] never ...". */
    char policy[128];
    const char *open = NULL, *close = NULL;
    if (read_line(SHMEM_ENABLED, policy, sizeof policy) == 0 && (open = strchr(policy, '[')) &&
        (close = strchr(open, ']')))
        snprintf(p->thp_shmem, sizeof p->thp_shmem, "%.*s", (int)(close - open - 1), open + 1);
    p->thp_disabled = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1;
}

long pg_pages_hugetlb_room(const struct pg_page_probe *p)
{
    long surplus_room = p->hugetlb_overcommit - p->hugetlb_surplus;
    return p->hugetlb_free - p->hugetlb_rsvd + (surplus_room > 0 ? surplus_room : 0);
}

size_t pg_pages_size(const struct pg_page_probe *p, int kind)
{
    return kind == PG_HUGE_HUGETLB ? p->hugetlb_size : kind == PG_HUGE_THP ? p->thp_size : p->page;
}

int pg_pages_offered(const struct pg_page_probe *p, int kind, char *why, size_t size)
{
    if (kind == PG_HUGE_HUGETLB) {
        if (p->hugetlb_size == 0)
            snprintf(why, size,
                     "this kernel has no hugetlb pages (no Hugepagesize in "
                     "/proc/meminfo)");
        else if (p->hugetlb_total == 0 && p->hugetlb_overcommit == 0)
            snprintf(why, size,
                     "no hugetlb pages are configured on this node (HugePages_Total 0, "
                     "/proc/sys/vm/nr_overcommit_hugepages 0; /proc/sys/vm/nr_hugepages sets "
                     "the pool)");
        else
            return 1;
        return 0;
    }
    if (kind == PG_HUGE_THP) {
        if (p->thp_size == 0 || !p->thp_shmem[0])
            snprintf(why, size,
                     "this kernel has no transparent huge pages for shared memory "
                     "(no " SHMEM_ENABLED ")");
        else if (strcmp(p->thp_shmem, "never") == 0 || strcmp(p->thp_shmem, "deny") == 0)
            snprintf(why, size,
                     "transparent huge pages for shared memory are '%s' in " SHMEM_ENABLED
                     " (the heap's madvise needs advise, always, within_size or force)",
                     p->thp_shmem);
        else if (p->thp_disabled)
            snprintf(why, size,
                     "transparent huge pages are disabled for this process "
                     "(prctl PR_SET_THP_DISABLE)");
        else
            return 1;
        return 0;
    }
    return 1;
}

void pg_pages_describe(void *stream, int setting, size_t heap_size)
{
    FILE *out = stream;
    struct pg_page_probe p;
    pg_pages_probe(&p);
    const char *const *words = PG_WORDS_HUGE_PAGES;
    fprintf(out, "symmetric heap pages (PANGEA_HUGE_PAGES=%s, a heap of %zu bytes per PE):\n",
            words[setting], heap_size);
    if (p.hugetlb_size) {
        size_t segment = pg_heap_segment_size(heap_size + pg_mem_internal_size(0), p.hugetlb_size);
        fprintf(out,
                "  hugetlb  %zu kB pages: %ld in the pool, %ld free, %ld reserved, %ld more "
                "allowed on demand; a heap takes %zu\n",
                p.hugetlb_size >> 10, p.hugetlb_total, p.hugetlb_free, p.hugetlb_rsvd,
                p.hugetlb_overcommit, segment / p.hugetlb_size);
    } else {
        fprintf(out, "  hugetlb  not in this kernel\n");
    }
    fprintf(out, "  thp      %s: '%s'%s\n", SHMEM_ENABLED, p.thp_shmem[0] ? p.thp_shmem : "absent",
            p.thp_disabled ? " (disabled for this process)" : "");
    /* What shmem_init would pick, for one PE on this node. */
    char why[256];
    int got = PG_HUGE_OFF;
    for (int kind = PG_HUGE_HUGETLB; kind < PG_HUGE_OFF; kind++) {
        if (setting != PG_HUGE_AUTO && setting != kind)
            continue;
        if (!pg_pages_offered(&p, kind, why, sizeof why)) {
            fprintf(out, "  %s: %s\n", words[kind], why);
            continue;
        }
        size_t segment =
            pg_heap_segment_size(heap_size + pg_mem_internal_size(0), pg_pages_size(&p, kind));
        if (kind == PG_HUGE_HUGETLB &&
            (long)(segment / p.hugetlb_size) > pg_pages_hugetlb_room(&p)) {
            fprintf(out, "  hugetlb: %ld pages can be had, fewer than a heap takes\n",
                    pg_pages_hugetlb_room(&p));
            continue;
        }
        got = kind;
        break;
    }
    if (got == PG_HUGE_OFF && setting != PG_HUGE_AUTO && setting != PG_HUGE_OFF)
        fprintf(out, "  a heap here: none, shmem_init stops (PANGEA_HUGE_PAGES=%s cannot be had)\n",
                words[setting]);
    else
        fprintf(out, "  a heap here (one PE on the node): %s, %zu kB pages\n", words[got],
                pg_pages_size(&p, got) >> 10);
}
