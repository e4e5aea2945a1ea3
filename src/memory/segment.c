/* Segments: POSIX shared-memory objects, mapped by every PE of the node and unlinked as soon
 * as all have mapped them, so that no object outlives the job, however it ends. */
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
#include <sys/syscall.h>
#include <unistd.h>

struct pg_segment pg_segments[PG_SEG_COUNT];

/* [pe * PG_SEG_COUNT + seg]: where each PE has its own copy of each segment. */
struct segment_span {
    char *base;
    size_t size;
};
static struct segment_span *spans;

/* Library-internal symmetric area at the end of the heap segment. */
#define PG_INTERNAL_SIZE ((size_t)4 << 20)
static size_t internal_used;

static const char *const seg_names[PG_SEG_COUNT] = {"heap", "data"};

static size_t page_size(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

static void object_name(char *name, size_t len, int pe, int seg)
{
    snprintf(name, len, "/pangea-%lx-%d-%s", pg_world.job_id, pe, seg_names[seg]);
}

static int create_object(int seg, size_t size)
{
    char name[96];
    object_name(name, sizeof name, pg_world.me, seg);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        fprintf(stderr, "pangea: shmem_init: shm_open(%s): %s\n", name, strerror(errno));
        return -1;
    }
    if (ftruncate(fd, (off_t)size) != 0) {
        fprintf(stderr, "pangea: shmem_init: cannot size %s to %zu bytes: %s\n", name, size,
                strerror(errno));
        close(fd);
        shm_unlink(name);
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
    int fd = create_object(PG_SEG_DATA, size);
    if (fd < 0)
        return -1;
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
    pg_segments[PG_SEG_DATA].size = size;
    *fd_out = fd;
    return 0;
}

/* 0 when every PE of the node reports 0, so that all take the same branch. */
static int node_agree(int status)
{
    int *all = calloc((size_t)pg_world.local_size, sizeof(int));
    if (!all)
        return -1;
    pg_boot_node_allgather(&status, all, sizeof(int));
    for (int l = 0; l < pg_world.local_size; l++)
        status |= all[l];
    free(all);
    return status;
}

/* What a PE tells the others of its node before they map its segments. */
struct node_entry {
    size_t size[PG_SEG_COUNT];
    int status;
};

/* One exchange over the node: every PE's segment sizes ([local rank]), and *status becomes 0
 * only when every PE of the node reports 0, so that all take the same branch. */
static struct node_entry *node_exchange(int *status)
{
    struct node_entry mine;
    memset(&mine, 0, sizeof mine); /* padding too: it is sent */
    for (int seg = 0; seg < PG_SEG_COUNT; seg++)
        mine.size[seg] = pg_segments[seg].size;
    mine.status = *status;
    struct node_entry *all = malloc((size_t)pg_world.local_size * sizeof *all);
    if (!all)
        pg_fatal("shmem_init", "out of memory for the table of the node's %d segments",
                 pg_world.local_size);
    pg_boot_node_allgather(&mine, all, sizeof mine);
    for (int l = 0; l < pg_world.local_size; l++)
        *status |= all[l].status;
    return all;
}

static int map_peers(int seg, const struct node_entry *node)
{
    struct pg_segment *s = &pg_segments[seg];
    s->peer_base = calloc((size_t)pg_world.npes, sizeof(char *));
    if (!s->peer_base)
        return -1;
    int status = 0;
    for (int l = 0; l < pg_world.local_size; l++) {
        int pe = pg_world.local_pes[l];
        size_t size = node[l].size[seg];
        if (pe == pg_world.me) {
            s->peer_base[pe] = s->base;
            continue;
        }
        if (size == 0 && s->size == 0)
            continue; /* nobody has this segment (static data not mapped) */
        if (size != s->size) {
            /* Not the same executable (MPMD) or a different heap size: leave it unmapped. */
            if (seg == PG_SEG_DATA)
                continue;
            fprintf(stderr,
                    "pangea: shmem_init: PE %d has a %s segment of %zu bytes, PE %d of "
                    "%zu: every PE must use the same SHMEM_SYMMETRIC_SIZE\n",
                    pe, seg_names[seg], size, pg_world.me, s->size);
            status = -1;
            continue;
        }
        char name[96];
        object_name(name, sizeof name, pe, seg);
        int peer_fd = shm_open(name, O_RDWR, 0);
        void *at = peer_fd < 0 ? MAP_FAILED
                               : mmap(NULL, s->size, PROT_READ | PROT_WRITE,
                                      MAP_SHARED | MAP_NORESERVE, peer_fd, 0);
        if (at == MAP_FAILED) {
            fprintf(stderr, "pangea: shmem_init: mapping %s of PE %d: %s\n", seg_names[seg], pe,
                    strerror(errno));
            status = -1;
        } else {
            s->peer_base[pe] = at;
        }
        if (peer_fd >= 0)
            close(peer_fd);
    }
    return status;
}

/* Maps the object at an address that is a multiple of align: every PE's heap then starts at
 * the same residue, so an offset aligned on one PE is aligned on all (shmem_align). */
static char *map_aligned(size_t size, size_t align, int fd)
{
    char *reserved =
        mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) {
        fprintf(stderr, "pangea: shmem_init: reserving %zu bytes of address space: %s\n",
                size + align, strerror(errno));
        return NULL;
    }
    char *base = (char *)(((uintptr_t)reserved + align - 1) & ~(uintptr_t)(align - 1));
    if (base > reserved)
        munmap(reserved, (size_t)(base - reserved));
    munmap(base + size, (size_t)(reserved + size + align - (base + size)));
    void *at =
        mmap(base, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, fd, 0);
    if (at == MAP_FAILED) {
        fprintf(stderr, "pangea: shmem_init: mapping a %zu-byte heap: %s\n", size, strerror(errno));
        munmap(base, size);
        return NULL;
    }
    return base;
}

int pg_memory_init(size_t heap_size)
{
    size_t page = page_size();
    size_t user = (heap_size + page - 1) & ~(page - 1);
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    heap->size = PG_INTERNAL_SIZE + user;
    int fds[PG_SEG_COUNT] = {-1, -1};
    int status = 0;

    fds[PG_SEG_HEAP] = create_object(PG_SEG_HEAP, heap->size);
    if (fds[PG_SEG_HEAP] < 0) {
        status = -1;
    } else {
        heap->base = map_aligned(heap->size, PG_HEAP_MAX_ALIGN, fds[PG_SEG_HEAP]);
        if (!heap->base)
            status = -1;
    }
    pg_phase_end(PG_PHASE_HEAP_SEGMENT);
    if (status == 0 && pg_cfg.static_map) {
        if (remap_static_data(&fds[PG_SEG_DATA]) != 0)
            status = -1;
        pg_phase_end(PG_PHASE_STATIC_DATA);
    }

    /* Every PE of the node has created its objects; map the peers', then unlink ours. */
    struct node_entry *node = node_exchange(&status);
    for (int seg = 0; seg < PG_SEG_COUNT && status == 0; seg++)
        if (map_peers(seg, node) != 0)
            status = -1;
    free(node);
    status = node_agree(status);
    for (int seg = 0; seg < PG_SEG_COUNT; seg++) {
        if (fds[seg] >= 0) {
            char name[96];
            object_name(name, sizeof name, pg_world.me, seg);
            shm_unlink(name);
            close(fds[seg]);
        }
    }
    pg_phase_end(PG_PHASE_PEER_MAPPING);
    if (status != 0)
        return -1;
    internal_used = 0;
    pg_heap_setup(heap->base, user);
    return 0;
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

void pg_memory_fini(void)
{
    free(spans);
    spans = NULL;
    for (int seg = 0; seg < PG_SEG_COUNT; seg++) {
        struct pg_segment *s = &pg_segments[seg];
        if (s->peer_base) {
            for (int pe = 0; pe < pg_world.npes; pe++)
                if (s->peer_base[pe] && s->peer_base[pe] != s->base)
                    munmap(s->peer_base[pe], s->size);
            free(s->peer_base);
        }
        /* The data segment stays mapped in place: it *is* the program's static data. */
        if (seg == PG_SEG_HEAP && s->base)
            munmap(s->base, s->size);
        memset(s, 0, sizeof *s);
    }
}

size_t pg_mem_internal_size(void)
{
    return PG_INTERNAL_SIZE;
}

size_t pg_mem_table_bytes(size_t npes)
{
    return npes * PG_SEG_COUNT * (sizeof(char *) + sizeof(struct segment_span));
}

void *pg_mem_internal_alloc(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    if (internal_used + size > PG_INTERNAL_SIZE)
        pg_fatal("shmem_init", "internal symmetric area exhausted (%zu bytes)", PG_INTERNAL_SIZE);
    struct pg_segment *heap = &pg_segments[PG_SEG_HEAP];
    void *p = heap->base + heap->size - PG_INTERNAL_SIZE + internal_used;
    internal_used += size;
    return p;
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
