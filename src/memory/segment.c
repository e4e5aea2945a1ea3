/* Segments: shared-memory objects, mapped by every PE of the node and unlinked (or closed) as
 * soon as all have mapped them, so that no object outlives the job, however it ends. Static
 * data and a heap of base pages are POSIX shared-memory objects, named per job, mode 0600. A
 * heap of huge pages is a memfd of the same name and mode, which the node's PEs open through
 * /proc/PID/fd of its creator: hugetlb pages then need no hugetlbfs mount, and transparent
 * huge pages follow the kernel's shmem_enabled policy (a /dev/shm object follows the huge=
 * option of that mount instead, which is rarely set). The owner of a heap keeps its descriptor,
 * to grow the object; every mapping of a heap spans the address range of its maximum, so the
 * grown part is reached through the mappings that exist. Beyond the heap's maximum, each PE has
 * an area of its own, which it grows alone, the same way. */
#define _GNU_SOURCE
#include "memory.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

struct pg_segment pg_segments[PG_SEG_COUNT];

/* [pe * PG_SEG_COUNT + seg]: where each PE has its own copy of each segment. */
struct segment_span {
    char *base;
    size_t size;
};
static struct segment_span *spans;

static size_t internal_used;
static size_t internal_size; /* the internal area at the start of the heap segment */

/* Growth: my heap object (kept open to grow it), the page its size is a multiple of (the
 * largest any PE may take), the most its program part may hold, and where each part ends
 * (part_end[0]: the initial extent; part_end[g]: growth g). */
static int heap_fd = -1;
static size_t heap_rounding;
static size_t heap_most;
static size_t heap_end_most; /* the heap's part of the segment ends here at most */
static size_t part_end[1 + PG_HEAP_GROWTHS];
static int growths;

/* My own area's extent, and where every PE publishes its own in its internal area. */
static size_t area_size;
static size_t area_extent_offset;

static const char *const seg_names[PG_SEG_COUNT] = {"heap", "data"};

/* How the PEs of a node open a PE's object behind a segment: by its name (fd -1), or as
 * descriptor fd of process pid (a memfd). */
struct object_ref {
    size_t size;
    int pid, fd;
    uint64_t name_nonce; /* of a named object (fd -1): the random part of its name */
};

/* The random part of the names of my objects, drawn afresh for each: a name nobody can guess
 * before it exists, so nobody can create it first (and a collision just draws again). */
static uint64_t name_nonce[PG_SEG_COUNT];
#define NAME_DRAWS 8

/* The pages of my heap (PG_HUGE_HUGETLB, _THP or _OFF), why my node did not take better ones
 * (for SHMEM_INFO), and how many PEs of the job got each kind. */
static int heap_pages;
static size_t heap_page_size;
static char heap_note[1024];
static int pes_with[PG_HUGE_OFF + 1];

#define WHY_SIZE 320

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

size_t pg_mem_internal_size(size_t extra)
{
    return PG_INTERNAL_BASE + ((extra + 63) & ~(size_t)63);
}

size_t pg_heap_segment_size(size_t bytes, size_t page_size)
{
    return (bytes + page_size - 1) / page_size * page_size;
}

static void object_name(char *name, size_t len, int pe, int seg, uint64_t nonce)
{
    snprintf(name, len, "/pangea-%llx-%d-%s-%016llx", pg_world.job_id, pe, seg_names[seg],
             (unsigned long long)nonce);
}

/* A named object of size bytes: its descriptor, or -1 and why. */
static int create_object(int seg, size_t size, char *why, size_t len)
{
    char name[96];
    int fd = -1;
    for (int draw = 0; draw < NAME_DRAWS && fd < 0; draw++) {
        if (getrandom(&name_nonce[seg], sizeof name_nonce[seg], 0) != sizeof name_nonce[seg]) {
            snprintf(why, len, "getrandom: %s", strerror(errno));
            return -1;
        }
        object_name(name, sizeof name, pg_world.me, seg, name_nonce[seg]);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        snprintf(why, len, "shm_open(%s): %s", name, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        snprintf(why, len, "cannot size %s to %zu bytes: %s", name, size, strerror(errno));
        close(fd);
        shm_unlink(name);
        return -1;
    }
    return fd;
}

/* A memfd of size bytes for a heap of huge pages (of hugetlb ones when kind says so): its
 * descriptor, or -1 and why. */
static int create_memfd(int kind, size_t size, char *why, size_t len)
{
    char name[96];
    object_name(name, sizeof name, pg_world.me, PG_SEG_HEAP, 0);
    int fd = memfd_create(name + 1, MFD_CLOEXEC | (kind == PG_HUGE_HUGETLB ? MFD_HUGETLB : 0));
    if (fd < 0) {
        snprintf(why, len, "memfd_create: %s", strerror(errno));
        return -1;
    }
    /* /proc lets only the owner's processes reach it; the mode says the same as a named one. */
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)size) != 0) {
        snprintf(why, len, "cannot size a memfd to %zu bytes: %s", size, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* The writable part of the executable that holds .data and .bss, less its RELRO prefix. */
struct data_range {
    uintptr_t start, end;
};

static int find_data_range(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct data_range *range = arg;
    uintptr_t relro_end = 0, lo = 0, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_GNU_RELRO)
            relro_end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && start + ph->p_memsz > hi) {
            lo = start;
            hi = start + ph->p_memsz;
        }
    }
    size_t page = page_size();
    if (relro_end > lo && relro_end <= hi)
        lo = relro_end;
    range->start = lo & ~(page - 1);
    range->end = (hi + page - 1) & ~(page - 1);
    return 1; /* the first object is the executable */
}

/* Replace the executable's data pages by a shared mapping of an object holding the same
 * bytes, so that on-node peers can map them: static variables then behave like the heap. */
static int remap_static_data(int *fd_out)
{
    struct data_range range = {0, 0};
    dl_iterate_phdr(find_data_range, &range);
    size_t size = range.end - range.start;
    if (size == 0)
        return 0;
    char why[WHY_SIZE];
    int fd = create_object(PG_SEG_DATA, size, why, sizeof why);
    if (fd < 0) {
        fprintf(stderr, "pangea: shmem_init: static data: %s\n", why);
        return -1;
    }
    for (size_t done = 0; done < size;) {
        /* The raw system call: sanitizers would flag reading the redzones between globals. */
        ssize_t n = syscall(SYS_pwrite64, fd, (char *)range.start + done, size - done, (off_t)done);
        if (n <= 0) {
            fprintf(stderr, "pangea: shmem_init: copying static data: %s\n", strerror(errno));
            close(fd);
            return -1;
        }
        done += (size_t)n;
    }
    void *at =
        mmap((void *)range.start, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (at == MAP_FAILED) {
        fprintf(stderr, "pangea: shmem_init: mapping static data: %s\n", strerror(errno));
        close(fd);
        return -1;
    }
    pg_segments[PG_SEG_DATA].base = at;
    pg_segments[PG_SEG_DATA].size = pg_segments[PG_SEG_DATA].reserved = size;
    *fd_out = fd;
    return 0;
}

/* -1 when every PE of the node reports status 0, else the lowest PE that did not: every PE of
 * the node takes the same branch. */
static int node_failure(int status)
{
    int *all = calloc((size_t)pg_world.local_size, sizeof(int));
    if (!all)
        return pg_world.me;
    pg_boot_node_allgather(&status, all, sizeof(int));
    int failed = -1;
    for (int l = 0; l < pg_world.local_size && failed < 0; l++)
        if (all[l] != 0)
            failed = pg_world.local_pes[l];
    free(all);
    return failed;
}

/* Maps fd over `range` bytes at an address that is a multiple of align (a power of two), or
 * NULL and why. My heap is placed at a multiple of PG_HEAP_MAX_ALIGN, so that every PE's heap
 * starts at the same residue and an offset aligned on one PE is aligned on all (shmem_align); a
 * peer's heap at a multiple of its page size, so that its huge pages can be mapped whole. The
 * range may exceed the object: the part beyond it becomes usable when the object grows, which
 * is how every mapping of a heap follows its growth without moving. The first `reserve` bytes
 * reserve their hugetlb pages (0: none do). */
static char *map_aligned(size_t range, size_t reserve, size_t align, int fd, char *why, size_t len)
{
    char *reserved =
        mmap(NULL, range + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) {
        snprintf(why, len, "reserving %zu bytes of address space: %s", range + align,
                 strerror(errno));
        return NULL;
    }
    char *base = (char *)(((uintptr_t)reserved + align - 1) & ~(uintptr_t)(align - 1));
    if (base > reserved)
        munmap(reserved, (size_t)(base - reserved));
    munmap(base + range, (size_t)(reserved + range + align - (base + range)));
    int rw = PROT_READ | PROT_WRITE;
    if (mmap(base, range, rw, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0) == MAP_FAILED ||
        (reserve && mmap(base, reserve, rw, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED)) {
        snprintf(why, len, "mapping %zu bytes: %s", reserve ? reserve : range, strerror(errno));
        munmap(base, range);
        return NULL;
    }
    return base;
}

/* Transparent huge pages are allocated when a page is first touched, under the advice of the
 * mapping that touches it: on-node puts touch a peer's heap through the putter's mapping, so
 * every PE's mapping of a heap advises the kernel. 0, or -1 and why. */
static int advise_heap(char *base, size_t size, int kind, char *why, size_t len)
{
    if (kind == PG_HUGE_THP && madvise(base, size, MADV_HUGEPAGE) != 0) {
        snprintf(why, len, "madvise(MADV_HUGEPAGE): %s", strerror(errno));
        return -1;
    }
    /* Off keeps huge pages away even where the shmem policy is always; a kernel without
     * transparent huge pages refuses the advice (EINVAL), which comes to the same. */
    if (kind == PG_HUGE_OFF)
        (void)madvise(base, size, MADV_NOHUGEPAGE);
    return 0;
}

/* Opens pe's object behind seg, as ref describes it: a descriptor, or -1 with errno set. */
static int open_peer_object(int pe, int seg, const struct object_ref *ref)
{
    if (ref->fd < 0) {
        char name[96];
        object_name(name, sizeof name, pe, seg, ref->name_nonce);
        return shm_open(name, O_RDWR, 0);
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", ref->pid, ref->fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

static void unmap_peers(int seg)
{
    struct pg_segment *s = &pg_segments[seg];
    if (!s->peer_base)
        return;
    for (int l = 0; l < pg_world.local_size; l++)
        if (s->peer_base[l] && s->peer_base[l] != s->base)
            munmap(s->peer_base[l], s->reserved);
    free(s->peer_base);
    s->peer_base = NULL;
}

/* Maps every on-node peer's copy of seg, at multiples of align; mine tells the peers how to
 * open my object, kind is the heap's pages. 0, or -1 and why. */
static int map_peers(int seg, const struct object_ref *mine, size_t align, int kind, char *why,
                     size_t len)
{
    struct pg_segment *s = &pg_segments[seg];
    s->peer_base = calloc((size_t)pg_world.local_size, sizeof(char *));
    struct object_ref *refs = calloc((size_t)pg_world.local_size, sizeof *refs);
    if (!s->peer_base || !refs) {
        free(refs);
        snprintf(why, len, "out of memory");
        return -1;
    }
    pg_boot_node_allgather(mine, refs, sizeof *refs);
    int status = 0;
    for (int l = 0; l < pg_world.local_size && status == 0; l++) {
        int pe = pg_world.local_pes[l];
        if (pe == pg_world.me) {
            s->peer_base[l] = s->base;
            continue;
        }
        if (refs[l].size == 0 && s->size == 0)
            continue; /* nobody has this segment (static data not mapped) */
        if (refs[l].size != s->size) {
            /* Not the same executable (MPMD) or a different heap size: leave it unmapped. */
            if (seg == PG_SEG_DATA)
                continue;
            snprintf(why, len,
                     "PE %d has a %s segment of %zu bytes, PE %d of %zu: every PE must use the "
                     "same SHMEM_SYMMETRIC_SIZE",
                     pe, seg_names[seg], refs[l].size, pg_world.me, s->size);
            status = -1;
            break;
        }
        int fd = open_peer_object(pe, seg, &refs[l]);
        char *at = NULL;
        if (fd < 0)
            snprintf(why, len, "opening the %s of PE %d: %s", seg_names[seg], pe, strerror(errno));
        else
            at = map_aligned(s->reserved, 0, align, fd, why, len);
        if (fd >= 0)
            close(fd);
        /* A peer's mapping of a hugetlb heap needs no reservation of its own: it shares the
         * owner's, held by the object. */
        if (!at || (seg == PG_SEG_HEAP && advise_heap(at, s->reserved, kind, why, len) != 0)) {
            if (at)
                munmap(at, s->reserved);
            status = -1;
            break;
        }
        s->peer_base[l] = at;
    }
    free(refs);
    return status;
}

/* Appends to why the state of the hugetlb pool, which size bytes of heap could not have. */
static void add_hugetlb_pool(size_t size, char *why, size_t len)
{
    struct pg_page_probe p;
    pg_pages_probe(&p);
    size_t used = strlen(why);
    snprintf(why + used, len - used,
             "; that takes %zu hugetlb pages of %zu kB, %ld can be had (HugePages_Free %ld, "
             "HugePages_Rsvd %ld, nr_overcommit_hugepages %ld; /proc/sys/vm/nr_hugepages sets "
             "the pool)",
             size / p.hugetlb_size, p.hugetlb_size >> 10, pg_pages_hugetlb_room(&p), p.hugetlb_free,
             p.hugetlb_rsvd, p.hugetlb_overcommit);
}

/* Its last possible kind of pages failed: the heap cannot be set up. */
static void heap_error(int kind, const char *why)
{
    if (kind == PG_HUGE_OFF)
        fprintf(stderr, "pangea: shmem_init: symmetric heap: %s\n", why);
    else
        fprintf(stderr,
                "pangea: shmem_init: PANGEA_HUGE_PAGES=%s cannot be honoured: %s. With "
                "PANGEA_HUGE_PAGES=auto the heap falls back to the pages the node has\n",
                PG_WORDS_HUGE_PAGES[kind], why);
}

/* One attempt, by every PE of my node together, at heaps of this kind: my object and mapping,
 * then the peers' mappings. want: I take part (else I make the attempt fail); final: I have no
 * other kind left, so my failure is an error, printed at once (before the node's other PEs
 * end the job). 0, or -1 with the attempt undone and why. */
static int try_heap(int kind, int want, int final, size_t page, char *why, size_t len)
{
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    struct object_ref mine = {heap->size, (int)getpid(), -1, 0};
    int fd = -1, status = -1;
    if (want) {
        fd = kind == PG_HUGE_OFF ? create_object(PG_SEG_HEAP, heap->size, why, len)
                                 : create_memfd(kind, heap->size, why, len);
        if (fd >= 0) {
            mine.fd = kind == PG_HUGE_OFF ? -1 : fd;
            mine.name_nonce = name_nonce[PG_SEG_HEAP];
            /* Hugetlb pages of the heap in use are reserved by my mapping: too few fail here,
             * not with SIGBUS at a first touch. */
            size_t reserve = kind == PG_HUGE_HUGETLB ? heap->size : 0;
            heap->base = map_aligned(heap->reserved, reserve, PG_HEAP_MAX_ALIGN, fd, why, len);
            if (!heap->base && kind == PG_HUGE_HUGETLB)
                add_hugetlb_pool(heap->size, why, len);
            if (heap->base && advise_heap(heap->base, heap->reserved, kind, why, len) == 0)
                status = 0;
        }
        if (status != 0 && final)
            heap_error(kind, why);
    }
    int failed = node_failure(status);
    if (failed < 0) {
        status = map_peers(PG_SEG_HEAP, &mine, page, kind, why, len);
        if (status != 0 && final)
            heap_error(kind, why);
        failed = node_failure(status);
    }
    /* Mapped by the whole node, or given up: nobody opens my object any more. I keep it open
     * to grow it. */
    if (fd >= 0 && kind == PG_HUGE_OFF) {
        char name[96];
        object_name(name, sizeof name, pg_world.me, PG_SEG_HEAP, name_nonce[PG_SEG_HEAP]);
        shm_unlink(name);
    }
    if (failed < 0) {
        heap_fd = fd;
        return 0;
    }
    if (fd >= 0)
        close(fd);
    if (status == 0 && want) {
        snprintf(why, len, "PE %d of this node could not have them (SHMEM_DEBUG tells why)",
                 failed);
        if (final)
            heap_error(kind, why);
    }
    unmap_peers(PG_SEG_HEAP);
    if (heap->base)
        munmap(heap->base, heap->reserved);
    heap->base = NULL;
    return -1;
}

/* Sets up my heap with the best kind of pages that PANGEA_HUGE_PAGES allows and every PE of my
 * node can have: hugetlb, thp, then base pages. 0, or -1 after printing why. */
static int setup_heap(size_t heap_size, size_t heap_max)
{
    struct pg_page_probe probe;
    pg_pages_probe(&probe);
    int setting = (int)pg_cfg.huge_pages;
    int last = setting == PG_HUGE_AUTO ? PG_HUGE_OFF : setting; /* no fallback after it */
    int want[PG_HUGE_OFF + 1] = {0};
    char why[PG_HUGE_OFF + 1][WHY_SIZE];
    size_t page = probe.page;
    for (int kind = PG_HUGE_HUGETLB; kind <= PG_HUGE_OFF; kind++) {
        why[kind][0] = '\0';
        want[kind] = (setting == PG_HUGE_AUTO || setting == kind) &&
                     pg_pages_offered(&probe, kind, why[kind], WHY_SIZE);
        if (want[kind] && pg_pages_size(&probe, kind) > page)
            page = pg_pages_size(&probe, kind);
    }
    if (!want[last])
        heap_error(last, why[last]);

    /* Heaps in whole pages of the largest kind any PE may take: the same size everywhere keeps
     * the allocator deterministic. */
    long long mine = (long long)page, least, largest;
    pg_boot_minmax(&mine, &least, &largest, 1);
    heap_rounding = (size_t)largest;
    pg_segments[PG_SEG_HEAP].size = pg_heap_segment_size(internal_size + heap_size, heap_rounding);
    heap_end_most = pg_heap_segment_size(internal_size + heap_max, heap_rounding);
    heap_most = heap_end_most - internal_size;
    /* The own area may hold as much as the heap (in whole pages: hugetlb mappings are unmapped
     * in whole pages only). */
    pg_segments[PG_SEG_HEAP].area = heap_end_most;
    pg_segments[PG_SEG_HEAP].reserved =
        heap_end_most + pg_heap_segment_size(heap_most, heap_rounding);

    /* Every PE of the node makes every attempt, until one succeeds on all of them. */
    heap_pages = -1;
    heap_note[0] = '\0';
    for (int kind = PG_HUGE_HUGETLB; kind <= PG_HUGE_OFF && heap_pages < 0; kind++) {
        if (try_heap(kind, want[kind], kind == last, pg_pages_size(&probe, kind), why[kind],
                     WHY_SIZE) == 0) {
            heap_pages = kind;
        } else if (setting == PG_HUGE_AUTO) {
            size_t used = strlen(heap_note);
            snprintf(heap_note + used, sizeof heap_note - used, "%s  not taken: %s: %s",
                     used ? "\n" : "", PG_WORDS_HUGE_PAGES[kind], why[kind]);
            pg_debug("symmetric heap: no %s pages: %s", PG_WORDS_HUGE_PAGES[kind], why[kind]);
        }
    }
    if (heap_pages < 0)
        return -1;
    heap_page_size = pg_pages_size(&probe, heap_pages);
    pg_debug("symmetric heap: %zu bytes, pages: %s (%zu kB)", pg_segments[PG_SEG_HEAP].size,
             PG_WORDS_HUGE_PAGES[heap_pages], heap_page_size >> 10);
    return 0;
}

/* How many PEs of the job got each kind of pages, for PE 0's SHMEM_INFO: one reduction. */
static void count_heap_pages(void)
{
    struct pg_boot_stat stat[PG_HUGE_OFF + 1];
    for (int kind = PG_HUGE_HUGETLB; kind <= PG_HUGE_OFF; kind++) {
        double got = kind == heap_pages;
        stat[kind] = (struct pg_boot_stat){got, got, got, 1};
    }
    pg_boot_reduce_stats(stat, PG_HUGE_OFF + 1);
    for (int kind = PG_HUGE_HUGETLB; kind <= PG_HUGE_OFF; kind++)
        pes_with[kind] = (int)stat[kind].sum;
}

/* Memory this node can give its PEs: its physical memory, or less under a cgroup limit. */
static unsigned long long node_memory(void)
{
    unsigned long long bytes =
        (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE);
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    unsigned long long limit;
    if (f && fscanf(f, "%llu", &limit) == 1 && limit < bytes)
        bytes = limit; /* "max" (no limit) does not scan */
    if (f)
        fclose(f);
    return bytes;
}

/* The node's memory divided by its PEs: a heap's default maximum. */
static size_t memory_share(void)
{
    return (size_t)(node_memory() / (unsigned long long)pg_world.local_size);
}

/* A heap the node cannot back with memory is accepted (its pages are only reserved) but fails
 * far from the cause when touched: say so at init, on PE 0. The heap grows when needed, so a
 * large starting size is seldom the answer. */
static void warn_unbacked_heap(size_t heap_size, size_t share)
{
    if (pg_world.me == 0 && share > 0 && heap_size > share)
        pg_warn("SHMEM_SYMMETRIC_SIZE=%zu bytes per PE is more than this node can back: %llu "
                "bytes of memory for %d PEs, %zu each; the heap's pages will run out when used. "
                "The heap grows when an allocation needs it (up to PANGEA_SYMMETRIC_MAX): a "
                "smaller SHMEM_SYMMETRIC_SIZE is enough",
                heap_size, node_memory(), pg_world.local_size, share);
}

/* The heap's maximum, the same on every PE (the least of theirs): PANGEA_SYMMETRIC_MAX, by
 * default the node's memory share, never less than the starting size. */
static size_t agreed_heap_max(size_t heap_size, size_t share)
{
    size_t most = pg_cfg.symmetric_max ? (size_t)pg_cfg.symmetric_max : share;
    long long mine = (long long)(most > heap_size ? most : heap_size), least, largest;
    pg_boot_minmax(&mine, &least, &largest, 1);
    return (size_t)least;
}

int pg_memory_init(size_t heap_size, size_t internal_extra)
{
    size_t share = memory_share();
    warn_unbacked_heap(heap_size, share);
    internal_size = pg_mem_internal_size(internal_extra);
    if (setup_heap(heap_size, agreed_heap_max(heap_size, share)) != 0)
        return -1;
    pg_phase_end(PG_PHASE_HEAP_SEGMENT);
    int data_fd = -1;
    int status = 0;
    if (pg_cfg.static_map) {
        status = remap_static_data(&data_fd);
        pg_phase_end(PG_PHASE_STATIC_DATA);
    }
    if (node_failure(status) < 0) {
        struct pg_segment *data = &pg_segments[PG_SEG_DATA];
        struct object_ref mine = {data->size, (int)getpid(), -1, name_nonce[PG_SEG_DATA]};
        char why[WHY_SIZE];
        status = map_peers(PG_SEG_DATA, &mine, page_size(), PG_HUGE_OFF, why, sizeof why);
        if (status != 0)
            fprintf(stderr, "pangea: shmem_init: static data: %s\n", why);
        status = node_failure(status) < 0 ? 0 : -1;
    } else {
        status = -1;
    }
    if (data_fd >= 0) {
        char name[96];
        object_name(name, sizeof name, pg_world.me, PG_SEG_DATA, name_nonce[PG_SEG_DATA]);
        shm_unlink(name);
        close(data_fd);
    }
    pg_phase_end(PG_PHASE_PEER_MAPPING);
    if (status != 0)
        return -1;
    count_heap_pages();
    internal_used = 0;
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    pg_heap_setup(heap->base + internal_size, heap->size - internal_size);
    part_end[0] = heap->size;
    growths = 0;
    pg_mem_internal_start = heap->base;
    pg_mem_internal_end = heap->base + internal_size;
    pg_doorbell_offset = pg_mem_record_carve(2 * sizeof(struct pg_doorbell));
    area_size = 0;
    area_extent_offset = pg_mem_record_carve(sizeof(size_t));
    return 0;
}

/* Bytes [old_size, new_size) of my heap object come into use, reserving their hugetlb pages:
 * the object grows to new_size when it is smaller (the heap's part may grow after the own
 * area, which lies beyond it, and then sits in the object already). 0, or -1 and why. */
static int extend_object(size_t old_size, size_t new_size, char *why, size_t len)
{
    struct stat st;
    /* A writable mapping of a hugetlb object beyond its end already extended it. */
    if (fstat(heap_fd, &st) != 0 ||
        ((size_t)st.st_size < new_size && ftruncate(heap_fd, (off_t)new_size) != 0)) {
        snprintf(why, len, "cannot grow the heap object to %zu bytes: %s", new_size,
                 strerror(errno));
        return -1;
    }
    if (heap_pages != PG_HUGE_HUGETLB)
        return 0;
    char *at = pg_segments[PG_SEG_HEAP].base + old_size;
    size_t added = new_size - old_size;
    int rw = PROT_READ | PROT_WRITE;
    if (mmap(at, added, rw, MAP_SHARED | MAP_FIXED, heap_fd, (off_t)old_size) != MAP_FAILED)
        return 0;
    snprintf(why, len, "reserving %zu bytes of hugetlb pages: %s", added, strerror(errno));
    add_hugetlb_pool(added, why, len);
    /* A failed MAP_FIXED may have removed the old mapping: the range stays mapped, unreserved. */
    if (mmap(at, added, rw, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, heap_fd, (off_t)old_size) ==
        MAP_FAILED)
        pg_fatal("shmem_malloc", "cannot map the symmetric heap's reserved range back: %s",
                 strerror(errno));
    return -1;
}

int pg_mem_heap_grow(size_t alignment, size_t size, char *why, size_t len)
{
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    size_t now = pg_heap_capacity(), short_by = pg_heap_shortfall(alignment, size);
    /* Every PE decides alike from the same state: only the object's growth needs agreeing. */
    if (alignment > PG_HEAP_MAX_ALIGN) {
        snprintf(why, len, "no heap honours an alignment beyond %zu bytes", PG_HEAP_MAX_ALIGN);
        return -1;
    }
    if (short_by > heap_most - now) {
        snprintf(why, len,
                 "growing the heap to fit it would take it beyond its maximum of %zu bytes "
                 "(raise PANGEA_SYMMETRIC_MAX)",
                 heap_most);
        return -1;
    }
    if (growths == PG_HEAP_GROWTHS) {
        snprintf(why, len, "the heap has grown %d times already, the most it can", growths);
        return -1;
    }
    size_t want = now + short_by > 2 * now ? now + short_by : 2 * now;
    size_t new_size = pg_heap_segment_size(internal_size + want, heap_rounding);
    if (new_size > heap_end_most)
        new_size = heap_end_most;
    int status = extend_object(heap->size, new_size, why, len);
    long long mine = status == 0 ? pg_world.npes : pg_world.me, first_failed, most;
    pg_boot_minmax(&mine, &first_failed, &most, 1);
    if (first_failed < pg_world.npes) {
        if (status == 0)
            snprintf(why, len,
                     "PE %lld could not grow its heap to %zu bytes (SHMEM_DEBUG "
                     "tells why)",
                     first_failed, new_size);
        pg_debug("symmetric heap: growth to %zu bytes failed: %s", new_size, why);
        return -1;
    }
    part_end[growths + 1] = new_size;
    __atomic_store_n(&growths, growths + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&heap->size, new_size, __ATOMIC_RELEASE);
    pg_heap_extend(new_size - internal_size);
    for (int pe = 0; spans && pe < pg_world.npes; pe++)
        spans[pe * PG_SEG_COUNT + PG_SEG_HEAP].size = new_size;
    pg_debug("symmetric heap: grown to %zu bytes", new_size);
    return 0;
}

size_t pg_heap_max(void)
{
    return heap_most;
}

char *pg_mem_area_base(void)
{
    return pg_segments[PG_SEG_HEAP].base + pg_segments[PG_SEG_HEAP].area;
}

size_t pg_mem_area_size(void)
{
    return area_size;
}

int pg_mem_area_grow(size_t size, char *why, size_t len)
{
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    if (size > heap->reserved - heap->area) {
        snprintf(why, len,
                 "growing it to fit would take it beyond its maximum of %zu bytes (raise "
                 "PANGEA_SYMMETRIC_MAX)",
                 heap->reserved - heap->area);
        return -1;
    }
    size_t from = pg_heap_segment_size(heap->area + area_size, heap_rounding);
    size_t to = pg_heap_segment_size(heap->area + size, heap_rounding);
    if (to > from && extend_object(from, to, why, len) != 0)
        return -1;
    area_size = size;
    __atomic_store_n((size_t *)pg_mem_record_mine(area_extent_offset), size, __ATOMIC_RELEASE);
    pg_debug("own area: grown to %zu bytes", size);
    return 0;
}

char *pg_mem_peer_range(int seg, int pe, size_t offset, size_t len)
{
    const struct pg_segment *s = &pg_segments[seg];
    char *base = pg_mem_peer_base(seg, pe);
    /* The heap's size grows under another thread of the process. */
    size_t size = __atomic_load_n(&s->size, __ATOMIC_ACQUIRE);
    if (!base || (offset <= size && len <= size - offset))
        return base;
    if (!s->area || offset < s->area)
        return NULL;
    size_t extent = __atomic_load_n((size_t *)(base + area_extent_offset), __ATOMIC_ACQUIRE);
    size_t within = offset - s->area;
    return within <= extent && len <= extent - within ? base : NULL;
}

int pg_mem_part(int id, int *seg, size_t *start, size_t *len)
{
    int g = id < PG_SEG_COUNT ? 0 : id - PG_SEG_COUNT + 1;
    if (id < 0 || id >= PG_MEM_PARTS || g > __atomic_load_n(&growths, __ATOMIC_ACQUIRE))
        return -1;
    *seg = id < PG_SEG_COUNT ? id : PG_SEG_HEAP;
    *start = g ? part_end[g - 1] : 0;
    *len = *seg == PG_SEG_HEAP ? part_end[g] - *start : pg_segments[*seg].size;
    return *len ? 0 : -1;
}

int pg_mem_part_of(int seg, size_t offset, size_t len, size_t *start)
{
    if (seg != PG_SEG_HEAP) {
        *start = 0;
        return offset + len <= pg_segments[seg].size ? seg : -1;
    }
    int last = __atomic_load_n(&growths, __ATOMIC_ACQUIRE);
    int g = 0;
    while (g <= last && part_end[g] <= offset)
        g++;
    if (g > last || len > part_end[g] - offset)
        return -1;
    *start = g ? part_end[g - 1] : 0;
    return g ? PG_SEG_COUNT + g - 1 : PG_SEG_HEAP;
}

int pg_mem_newest_part(void)
{
    return growths ? PG_SEG_COUNT + growths - 1 : PG_SEG_HEAP;
}

void pg_mem_exchange_bases(void)
{
    if (spans)
        return; /* done by an earlier ARMCI_Init of this runtime: the bases have not moved */
    struct segment_span mine[PG_SEG_COUNT];
    for (int seg = 0; seg < PG_SEG_COUNT; seg++)
        mine[seg] = (struct segment_span){pg_segments[seg].base, pg_segments[seg].size};
    spans = malloc((size_t)pg_world.npes * sizeof mine);
    if (!spans)
        pg_fatal("ARMCI_Init", "out of memory for the segment addresses of %d PEs", pg_world.npes);
    pg_boot_allgather(mine, spans, sizeof mine);
}

void pg_memory_print(void *stream)
{
    FILE *out = stream;
    fprintf(out,
            "symmetric heap: %zu bytes per PE (and %zu internal), growing up to %zu, "
            "PANGEA_HUGE_PAGES=%s:",
            pg_segments[PG_SEG_HEAP].size - internal_size, internal_size, heap_most,
            PG_WORDS_HUGE_PAGES[pg_cfg.huge_pages]);
    const char *sep = " ";
    for (int kind = PG_HUGE_HUGETLB; kind <= PG_HUGE_OFF; kind++) {
        if (pes_with[kind] == 0)
            continue;
        fprintf(out, "%s%s on %s%d PE%s", sep, PG_WORDS_HUGE_PAGES[kind],
                pes_with[kind] == pg_world.npes ? "all " : "", pes_with[kind],
                pes_with[kind] > 1 ? "s" : "");
        sep = ", ";
    }
    fprintf(out, " (PE %d: %s, %zu kB pages)\n%s%s", pg_world.me, PG_WORDS_HUGE_PAGES[heap_pages],
            heap_page_size >> 10, heap_note, heap_note[0] ? "\n" : "");
}

void pg_memory_fini(void)
{
    free(spans);
    spans = NULL;
    for (int seg = 0; seg < PG_SEG_COUNT; seg++) {
        struct pg_segment *s = &pg_segments[seg];
        unmap_peers(seg);
        /* The data segment stays mapped in place: it *is* the program's static data. */
        if (seg == PG_SEG_HEAP && s->base)
            munmap(s->base, s->reserved);
        memset(s, 0, sizeof *s);
    }
    if (heap_fd >= 0)
        close(heap_fd);
    heap_fd = -1;
}

size_t pg_mem_table_bytes(size_t npes, size_t local_size)
{
    return PG_SEG_COUNT * (local_size * sizeof(char *) + npes * sizeof(struct segment_span));
}

size_t pg_doorbell_offset;
const char *pg_mem_internal_start, *pg_mem_internal_end;

void *pg_mem_internal_alloc(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    if (internal_used + size > internal_size)
        pg_fatal("shmem_init", "internal symmetric area exhausted (%zu bytes)", internal_size);
    void *p = pg_segments[PG_SEG_HEAP].base + internal_used;
    internal_used += size;
    return p;
}

size_t pg_mem_record_carve(size_t size)
{
    return (size_t)((char *)pg_mem_internal_alloc(size) - pg_segments[PG_SEG_HEAP].base);
}

size_t pg_mem_internal_used(void)
{
    return internal_used;
}

void *pg_mem_from_peer(int pe, const void *addr, size_t len)
{
    if ((unsigned)pe >= (unsigned)pg_world.npes || !spans)
        return NULL;
    for (int seg = 0; seg < PG_SEG_COUNT; seg++) {
        const struct segment_span *s = &spans[pe * PG_SEG_COUNT + seg];
        size_t off = (size_t)((const char *)addr - s->base);
        /* My copy of a segment may be smaller (static data of another executable). */
        size_t size = s->size < pg_segments[seg].size ? s->size : pg_segments[seg].size;
        if (off < size && len <= size - off)
            return pg_segments[seg].base + off;
        /* pe's own area: an on-node pe's extent is checked here, before a load or store
         * reaches beyond its object; an off-node one's by its node's data server. */
        size_t area = pg_segments[seg].area, end = pg_segments[seg].reserved;
        if (area && off >= area && off < end && len <= end - off &&
            (pg_local_rank_of(pe) < 0 || pg_mem_peer_range(seg, pe, off, len)))
            return pg_segments[seg].base + off;
    }
    return NULL;
}

void *pg_mem_to_peer(int pe, const void *addr)
{
    size_t off;
    int seg = pg_mem_locate(addr, 1, &off);
    if (seg < 0 || (unsigned)pe >= (unsigned)pg_world.npes || !spans)
        return NULL;
    return spans[pe * PG_SEG_COUNT + seg].base + off;
}
