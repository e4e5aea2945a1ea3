/* The symmetric heap's pages (PANGEA_HUGE_PAGES; docs/huge-pages.md).
 *
 * Data: every byte of puts into freshly allocated heap memory (first touched by the putter,
 * through its mapping of the target's heap), of an unaligned put over it, of gets, and of a get
 * from fresh memory (zeros); a shmem_align of a huge page is aligned.
 *
 * Pages, read from /proc/self/smaps independently of the library, for my heap and my mapping of
 * my right neighbour's heap: hugetlb pages have KernelPageSize = Hugepagesize; transparent ones
 * show as ShmemPmdMapped/FilePmdMapped; base pages as neither. The kind must be what
 * PANGEA_HUGE_PAGES asked for; under auto it is hugetlb when the node has room for the heaps of
 * all its PEs, else thp when shmem_enabled allows it, else base pages. The heap mapping is
 * the internal area (its base and the collectives' channels for this job's size, memory.h and
 * coll.h) plus PANGEA_SYMMETRIC_MAX, the range reserved for growth, in whole pages of the
 * largest kind the setting may take; under hugetlb the first SHMEM_SYMMETRIC_SIZE of it is a
 * mapping of its own, the one that reserves its pages.
 *
 * Growth: an allocation of 3 x SHMEM_SYMMETRIC_SIZE grows the heap; the data checks run again
 * in the grown part, whose pages must be of the same kind, in my mapping and my neighbour's.
 *
 * A kind the node does not offer (no hugetlb pool with room for the heaps of this machine's PEs,
 * or a shmem_enabled policy that ignores madvise) cannot be asked for explicitly (shmem_init
 * stops, see init_query's lines in tests.list): the run prints "SKIP huge_pages: why". The
 * decision is taken over MPI before shmem_init, so that no PE has reserved pages yet. */
#define _GNU_SOURCE /* prctl's PR_GET_THP_DISABLE */
#include "check.h"
#include "coll/coll.h"
#include "memory/memory.h"
#include "runtime/runtime.h"

#include <mpi.h>
#include <strings.h>
#include <sys/prctl.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)
#define NBYTES (8 * MIB + 12345) /* several huge pages and a part of one */

/* The kinds of pages; AUTO, the setting that picks one (or a value shmem_init rejects); and
 * what a mapping may show besides a kind. */
enum kind { HUGETLB, THP, OFF, AUTO, SOME_THP, NO_MAPPING };
static const char *const kind_names[] = {
    "hugetlb", "thp", "off", "auto", "transparent huge pages on too little of it", "no mapping"};

/* What this machine offers, read before shmem_init. */
struct machine {
    long hugetlb_kb, total, free, rsvd, surplus, overcommit;
    size_t thp_size;
    char shmem_enabled[32];
    int thp_disabled;
};

static long read_long(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = 0;
    if (f) {
        if (fscanf(f, "%ld", &v) != 1)
            v = 0;
        fclose(f);
    }
    return v;
}

static void probe(struct machine *h)
{
    memset(h, 0, sizeof *h);
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "Hugepagesize: %ld", &h->hugetlb_kb);
        sscanf(line, "HugePages_Total: %ld", &h->total);
        sscanf(line, "HugePages_Free: %ld", &h->free);
        sscanf(line, "HugePages_Rsvd: %ld", &h->rsvd);
        sscanf(line, "HugePages_Surp: %ld", &h->surplus);
    }
    if (f)
        fclose(f);
    h->overcommit = read_long("/proc/sys/vm/nr_overcommit_hugepages");
    h->thp_size = (size_t)read_long("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
    f = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "r");
    if (f && fgets(line, sizeof line, f)) {
        char *open = strchr(line, '['), *close = open ? strchr(open, ']') : NULL;
        if (close)
            snprintf(h->shmem_enabled, sizeof h->shmem_enabled, "%.*s", (int)(close - open - 1),
                     open + 1);
    }
    if (f)
        fclose(f);
    h->thp_disabled = prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) == 1;
}

static int thp_offered(const struct machine *h)
{
    static const char *const allow[] = {"always", "within_size", "advise", "force"};
    for (int i = 0; i < 4; i++)
        if (strcmp(h->shmem_enabled, allow[i]) == 0)
            return !h->thp_disabled;
    return 0;
}

static int hugetlb_offered(const struct machine *h)
{
    return h->hugetlb_kb > 0 && (h->total > 0 || h->overcommit > 0);
}

/* Hugetlb pages a new heap can still reserve. */
static long hugetlb_room(const struct machine *h)
{
    long surplus_room = h->overcommit - h->surplus;
    return h->free - h->rsvd + (surplus_room > 0 ? surplus_room : 0);
}

static size_t round_up(size_t n, size_t to)
{
    return (n + to - 1) / to * to;
}

/* The smaps entry of the mapping that holds addr. */
struct mapping {
    int found;
    size_t size_kb, kernel_page_kb, pmd_kb;
    char name[256];
};

static struct mapping smaps_of(const void *addr)
{
    struct mapping m = {0};
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int inside = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char name[256] = "";
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, name) >= 2 &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (m.found)
                break;
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            if (inside) {
                m.found = 1;
                snprintf(m.name, sizeof m.name, "%s", name);
            }
            continue;
        }
        size_t kb;
        if (!inside)
            continue;
        if (sscanf(line, "Size: %zu kB", &kb) == 1)
            m.size_kb = kb;
        else if (sscanf(line, "KernelPageSize: %zu kB", &kb) == 1)
            m.kernel_page_kb = kb;
        else if (sscanf(line, "ShmemPmdMapped: %zu kB", &kb) == 1 ||
                 sscanf(line, "FilePmdMapped: %zu kB", &kb) == 1)
            m.pmd_kb += kb;
    }
    if (f)
        fclose(f);
    return m;
}

/* The pages of a heap mapping through which the whole of buf was touched: transparent huge
 * pages must map at least buf's whole huge pages (more were touched: a few may have been denied
 * one, as THP is best effort), not just the odd one that another mapping's touch allocated. */
static enum kind kind_of(const struct mapping *m, const struct machine *h, const void *buf)
{
    if (!m->found)
        return NO_MAPPING;
    if (h->hugetlb_kb && m->kernel_page_kb == (size_t)h->hugetlb_kb)
        return HUGETLB;
    if (m->pmd_kb == 0)
        return OFF;
    size_t block = h->thp_size ? h->thp_size : 2 * MIB;
    size_t first = ((uintptr_t)buf + block - 1) / block, end = ((uintptr_t)buf + NBYTES) / block;
    return m->pmd_kb * 1024 >= (end - first) * block ? THP : SOME_THP;
}

static enum kind setting_kind(const char *setting)
{
    for (int k = HUGETLB; k <= OFF; k++)
        if (strcasecmp(setting, kind_names[k]) == 0)
            return (enum kind)k;
    return AUTO;
}

/* Heap size from SHMEM_SYMMETRIC_SIZE in the K/M suffixes the list uses (256M when unset). */
static size_t heap_size(void)
{
    const char *s = getenv("SHMEM_SYMMETRIC_SIZE");
    if (!s)
        return 256 * MIB;
    char *end;
    size_t n = strtoull(s, &end, 10);
    return *end == 'K' || *end == 'k' ? n << 10 : *end == 'M' || *end == 'm' ? n << 20 : n;
}

/* PEs of the job on this machine: they share its kernel's hugetlb pool (emulated nodes, in
 * network and UTS namespaces, too). */
static int pes_on_my_kernel(void)
{
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char mine[64] = {0};
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(mine, sizeof mine, f))
        gethostname(mine, sizeof mine - 1);
    if (f)
        fclose(f);
    char *all = malloc((size_t)size * sizeof mine);
    MPI_Allgather(mine, sizeof mine, MPI_CHAR, all, sizeof mine, MPI_CHAR, MPI_COMM_WORLD);
    int n = 0;
    for (int r = 0; r < size; r++)
        n += strncmp(all + (size_t)r * sizeof mine, mine, sizeof mine) == 0;
    free(all);
    return n;
}

/* buf[from, to) carries PE pe's pattern of round salt (test_fill_bytes). */
static void expect_bytes(const unsigned char *buf, size_t from, size_t to, int pe, unsigned salt,
                         const char *what)
{
    for (size_t k = from; k < to; k++) {
        if (buf[k] != test_byte(pe, k, salt)) {
            CHECK(0, "%s: byte %zu is %u, want %u (PE %d's round %u)", what, k, buf[k],
                  test_byte(pe, k, salt), pe, salt);
            return;
        }
    }
}

static void check_data(unsigned char *buf, unsigned char *fresh, int me, int npes)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    unsigned char *src = malloc(NBYTES), *dst = malloc(NBYTES);

    /* Round 1: the whole buffer, into memory nobody has touched yet. */
    test_fill_bytes(src, NBYTES, me, 1);
    shmem_putmem(buf, src, NBYTES, right);
    shmem_barrier_all();
    expect_bytes(buf, 0, NBYTES, left, 1, "first put into fresh memory");
    shmem_barrier_all(); /* checked everywhere before round 2 overwrites it */

    /* Round 2: an unaligned put over it, leaving its first and last byte. */
    test_fill_bytes(src, NBYTES, me, 2);
    shmem_putmem(buf + 1, src + 1, NBYTES - 2, right);
    shmem_barrier_all();
    expect_bytes(buf, 1, NBYTES - 1, left, 2, "unaligned put");
    expect_bytes(buf, 0, 1, left, 1, "byte before the unaligned put");
    expect_bytes(buf, NBYTES - 1, NBYTES, left, 1, "byte after the unaligned put");

    /* Gets: my right neighbour's buffer, and fresh memory, which reads as zeros. */
    shmem_getmem(dst, buf, NBYTES, right);
    expect_bytes(dst, 1, NBYTES - 1, me, 2, "get");
    shmem_getmem(dst, fresh, NBYTES, right);
    size_t nonzero = 0;
    while (nonzero < NBYTES && dst[nonzero] == 0)
        nonzero++;
    CHECK(nonzero == NBYTES, "get from fresh memory: byte %zu is not zero", nonzero);
    shmem_barrier_all();
    free(src);
    free(dst);
}

/* The internal area the library adds to the heap at this job's size: the PEs and the most on
 * one node, from MPI before shmem_init (the tunables loaded, which size the slots). */
static size_t internal_bytes(void)
{
    int npes, local, most;
    MPI_Comm node;
    MPI_Comm_size(MPI_COMM_WORLD, &npes);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    MPI_Allreduce(&local, &most, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    pg_config_load();
    return pg_mem_internal_size(pg_coll_internal_bytes((size_t)npes, (size_t)most));
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *setting = getenv("PANGEA_HUGE_PAGES") ? getenv("PANGEA_HUGE_PAGES") : "auto";
    enum kind asked = setting_kind(setting);
    struct machine h;
    probe(&h);
    size_t heap = heap_size(), internal = internal_bytes();
    size_t most = (size_t)pg_cfg.symmetric_max > heap ? (size_t)pg_cfg.symmetric_max : heap;
    /* The grown heap: at least twice the program's part, enough for the allocation below. */
    long heap_pages = h.hugetlb_kb
                          ? (long)(round_up(4 * heap + internal, (size_t)h.hugetlb_kb << 10) /
                                   ((size_t)h.hugetlb_kb << 10))
                          : 0;
    /* Room for every PE on this machine: then no PE can miss out (the probes precede any init). */
    int machine_pes = pes_on_my_kernel();
    int room_for_all = hugetlb_offered(&h) && hugetlb_room(&h) >= machine_pes * heap_pages;
    int lacking = (asked == HUGETLB && !room_for_all) || (asked == THP && !thp_offered(&h));
    int any_lacking = 0;
    MPI_Allreduce(&lacking, &any_lacking, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any_lacking) {
        if (rank == 0 && asked == THP)
            printf("SKIP huge_pages: PANGEA_HUGE_PAGES=thp: shmem_enabled is '%s'%s\n",
                   h.shmem_enabled, h.thp_disabled ? ", THP disabled for this process" : "");
        else if (rank == 0)
            printf("SKIP huge_pages: PANGEA_HUGE_PAGES=hugetlb: the pool has room for %ld pages "
                   "of %ld kB, the heaps of this machine's %d PEs take %ld\n",
                   hugetlb_room(&h), h.hugetlb_kb, machine_pes, machine_pes * heap_pages);
        MPI_Finalize();
        return 0;
    }

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), right = (me + 1) % npes;
    unsigned char *buf = shmem_malloc(NBYTES), *fresh = shmem_malloc(NBYTES);
    unsigned char *aligned = shmem_align(2 * MIB, 4096);
    CHECK(buf && fresh && aligned, "shmem_malloc/shmem_align failed");
    if (!buf || !fresh || !aligned)
        return check_finish();
    CHECK((uintptr_t)aligned % (2 * MIB) == 0, "shmem_align(2 MiB) gave %p", (void *)aligned);
    check_data(buf, fresh, me, npes);

    /* The kind the setting asks for, or auto's choice. */
    enum kind fallback = thp_offered(&h) ? THP : OFF;
    enum kind want = asked != AUTO ? asked : room_for_all ? HUGETLB : fallback;
    /* The heap is in whole pages of the largest kind the setting may take here. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if ((asked == THP || (asked == AUTO && thp_offered(&h))) && h.thp_size > page)
        page = h.thp_size;
    if ((asked == HUGETLB || (asked == AUTO && hugetlb_offered(&h))) &&
        ((size_t)h.hugetlb_kb << 10) > page)
        page = (size_t)h.hugetlb_kb << 10;

    struct mapping mine = smaps_of(buf);
    enum kind got = kind_of(&mine, &h, buf);
    /* Under auto, a pool without room for the machine's heaps at the probe may have had room
     * for this node's at init: the pages of a job that just ended come back with a delay, and
     * emulated nodes on one machine compete for its pool. */
    int ok = got == want || (asked == AUTO && hugetlb_offered(&h) && !room_for_all &&
                             (got == HUGETLB || got == fallback));
    /* shmem_enabled=force gives transparent huge pages to every shmem mapping. */
    if (want == OFF && got == THP && strcmp(h.shmem_enabled, "force") == 0)
        ok = 1;
    CHECK(ok,
          "PANGEA_HUGE_PAGES=%s: my heap (%s) shows %s (KernelPageSize %zu kB, %zu kB "
          "PMD-mapped), want %s",
          setting, mine.name, kind_names[got], mine.kernel_page_kb, mine.pmd_kb, kind_names[want]);
    /* Hugetlb: the reserved part, the heap in use. Else the whole range: the heap to its
     * maximum, then the PE's own area (ARMCI's group allocations), which may hold as much. */
    size_t to_max = round_up(most + internal, page);
    size_t mapped =
        got == HUGETLB ? round_up(heap + internal, page) : round_up(2 * to_max - internal, page);
    CHECK(mine.size_kb * 1024 == mapped,
          "heap mapping of %zu kB, want %zu kB (%s + %zu kB internal in pages of %zu kB%s)",
          mine.size_kb, mapped >> 10,
          got == HUGETLB ? "SHMEM_SYMMETRIC_SIZE" : "PANGEA_SYMMETRIC_MAX", internal >> 10,
          page >> 10, got == HUGETLB ? "" : ", and as much again for the own area");
    /* My mapping of my right neighbour's heap, through which my puts touched it first. */
    unsigned char *peer = shmem_ptr(buf, right);
    if (peer && right != me) {
        struct mapping theirs = smaps_of(peer);
        enum kind peer_got = kind_of(&theirs, &h, peer);
        CHECK(peer_got == got, "my mapping of PE %d's heap (%s) shows %s, mine %s", right,
              theirs.name, kind_names[peer_got], kind_names[got]);
    }
    if (me == 0)
        printf("PANGEA_HUGE_PAGES=%s: PE 0's heap shows %s (%s, %zu kB)\n", setting,
               kind_names[got], mine.name, mine.size_kb);

    /* The grown part: its objects lie past the initial heap. */
    unsigned char *grown = shmem_malloc(3 * heap);
    CHECK(grown, "shmem_malloc(%zu), 3 x SHMEM_SYMMETRIC_SIZE, failed", 3 * heap);
    if (grown) {
        unsigned char *gbuf = grown + 2 * heap, *gfresh = gbuf + NBYTES + 4096;
        check_data(gbuf, gfresh, me, npes);
        struct mapping grown_map = smaps_of(gbuf);
        enum kind grown_got = kind_of(&grown_map, &h, gbuf);
        CHECK(grown_got == got, "the grown part of my heap shows %s, the initial part %s",
              kind_names[grown_got], kind_names[got]);
        unsigned char *grown_peer = shmem_ptr(gbuf, right);
        if (grown_peer && right != me) {
            struct mapping theirs = smaps_of(grown_peer);
            CHECK(kind_of(&theirs, &h, grown_peer) == got,
                  "my mapping of the grown part of PE %d's heap shows %s, want %s", right,
                  kind_names[kind_of(&theirs, &h, grown_peer)], kind_names[got]);
        }
        shmem_free(grown);
    }

    shmem_free(aligned);
    shmem_free(fresh);
    shmem_free(buf);
    int status = check_finish();
    shmem_finalize();
    MPI_Finalize();
    return status;
}
