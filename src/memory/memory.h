/* memory: the segments that hold remotely accessible memory, the symmetric heap allocator,
 * the program's static data, and translation of a symmetric address to a pointer into an
 * on-node peer's copy. */
#ifndef PG_MEMORY_H
#define PG_MEMORY_H

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stddef.h>
#include <stdint.h>

enum pg_seg_id {
    PG_SEG_HEAP, /* the symmetric heap, then the library-internal symmetric area */
    PG_SEG_DATA, /* the executable's .data and .bss, remapped onto a shared object */
    PG_SEG_COUNT
};

struct pg_segment {
    char *base;       /* my own copy */
    size_t size;      /* in use; the heap's grows (pg_mem_heap_grow), never beyond `reserved` */
    size_t reserved;  /* address space kept at base, and at each peer_base, for growth */
    size_t area;      /* the heap's own area (pg_mem_area_grow) starts here; 0: none */
    char **peer_base; /* [local_size]: my mapping of each on-node PE's copy, by local rank */
};

extern struct pg_segment pg_segments[PG_SEG_COUNT];

/* Creates my segments, maps those of every on-node peer, and unlinks the shared objects
 * as soon as the node has mapped them. The heap segment holds the internal area first
 * (PG_INTERNAL_BASE bytes plus internal_extra, the collectives' channels, which grow with the
 * job), then heap_size bytes for the program; it may grow to the heap maximum
 * (PANGEA_SYMMETRIC_MAX), whose address range every PE reserves for its own copy and for each
 * on-node peer's, followed by the PE's own area (pg_mem_area_grow), reserved the same way. The
 * heap's pages are of the kind PANGEA_HUGE_PAGES asks for (see pg_pages_offered). Collective over
 * the world. 0 or -1. */
int pg_memory_init(size_t heap_size, size_t internal_extra);
void pg_memory_fini(void);
/* For SHMEM_INFO, on PE 0: the heap's size, how many PEs got each kind of pages, and why
 * better kinds were not taken on my node. */
void pg_memory_print(void *stream);

/* The library-internal symmetric area at the start of the heap segment: this much for the
 * modules' own words, besides the collectives' channels. */
#define PG_INTERNAL_BASE ((size_t)64 << 10)
/* The internal area of a heap segment whose collectives' channels take `extra` bytes: the one
 * formula shmem_init, pangea-info --footprint and the tests size it with. */
size_t pg_mem_internal_size(size_t extra);
/* Bytes of a heap segment holding `bytes` (the program's heap and the internal area), in whole
 * pages of page_size bytes. */
size_t pg_heap_segment_size(size_t bytes, size_t page_size);

/* What this node's kernel offers for the heap's pages. */
struct pg_page_probe {
    size_t page;         /* the base page */
    size_t hugetlb_size; /* the default hugetlb page (Hugepagesize); 0: no hugetlb */
    long hugetlb_total, hugetlb_free, hugetlb_rsvd, hugetlb_surplus; /* /proc/meminfo */
    long hugetlb_overcommit; /* surplus pages allowed on demand */
    size_t thp_size;         /* a transparent huge page (PMD); 0: none */
    char thp_shmem[16];      /* the policy selected in .../transparent_hugepage/shmem_enabled */
    int thp_disabled;        /* for this process, by prctl(PR_SET_THP_DISABLE) */
};
void pg_pages_probe(struct pg_page_probe *p);
/* 1 when the node can give the kind at all (a hugetlb pool is configured; the shared-memory
 * THP policy allows madvise), else 0 and why, a sentence naming the setting to change. */
int pg_pages_offered(const struct pg_page_probe *p, int kind, char *why, size_t size);
/* The page size of a kind (the base page for PG_HUGE_OFF). */
size_t pg_pages_size(const struct pg_page_probe *p, int kind);
/* Hugetlb pages a new mapping can still reserve: free and unreserved, plus surplus room. */
long pg_pages_hugetlb_room(const struct pg_page_probe *p);
/* For pangea-info: the probe, and what a heap of heap_size bytes would get here. */
void pg_pages_describe(void *stream, int setting, size_t heap_size);

/* Growth of the heap, collective over the world: every PE calls it at the same point, after
 * pg_heap_alloc(alignment, size) failed on all of them alike (the allocator being
 * deterministic, the new size needs no agreement). The heap's program part at least doubles,
 * within the maximum; the segment's object grows and is mapped into the reserved range, where
 * the on-node peers' mappings already cover it, so existing addresses never move. 0 when the
 * allocation fits now; -1 on every PE when it cannot (beyond the maximum, or a node cannot back
 * it), with why. */
int pg_mem_heap_grow(size_t alignment, size_t size, char *why, size_t len);
/* Each PE's own area: a range of the heap segment beyond the heap's maximum, at the same
 * offset on every PE, that each PE grows alone (ARMCI's allocations over process subsets, which
 * the other PEs do not join). Its object grows under the mappings every peer already has, so
 * nobody else takes part; its extent, which differs between PEs, is published in the PE's
 * internal area, where its node's peers and data server check it before touching the area. It
 * starts empty and may grow to pg_heap_max() bytes; it never shrinks. pg_mem_area_grow: my
 * area grows to size bytes (from pg_mem_area_size()), published before it returns; 0, or -1
 * and why. */
char *pg_mem_area_base(void);
size_t pg_mem_area_size(void);
int pg_mem_area_grow(size_t size, char *why, size_t len);
/* My mapping of segment seg of pe, a PE of my node, when [offset, offset+len) lies in what pe
 * has of it now (the heap to its size, the own area to pe's extent); else NULL. */
char *pg_mem_peer_range(int seg, int pe, size_t offset, size_t len);

/* The most the program's part of the heap may grow to (PANGEA_SYMMETRIC_MAX, or the node's
 * memory shared by its PEs; the same on every PE). */
size_t pg_heap_max(void);

/* The network registers a segment in parts that never change once made: the heap's initial
 * extent, then each growth (at most PG_HEAP_GROWTHS), and the static data in one. Part ids:
 * seg for a segment's first part, PG_SEG_COUNT + g - 1 for the heap's growth g; the parts lie
 * at the same offsets on every PE. */
#define PG_HEAP_GROWTHS 24
#define PG_MEM_PARTS (PG_SEG_COUNT + PG_HEAP_GROWTHS)
/* Segment and byte range [start, start+len) of part id: 0, or -1 when it does not exist (yet). */
int pg_mem_part(int id, int *seg, size_t *start, size_t *len);
/* The part holding [offset, offset+len) of segment seg, and where it starts; -1 when the range
 * crosses parts or lies outside. */
int pg_mem_part_of(int seg, size_t offset, size_t len, size_t *start);
/* The id of the heap's newest part (seg PG_SEG_HEAP itself before any growth). */
int pg_mem_newest_part(void);

/* Which segment holds [addr, addr+len) of my address space, and at which offset.
 * Returns the segment id or -1 when the range is not (entirely) symmetric memory. */
static inline int pg_mem_locate(const void *addr, size_t len, size_t *offset)
{
    for (int s = 0; s < PG_SEG_COUNT; s++) {
        /* The heap's size grows under another thread of the process (a plain load on x86). */
        size_t size = __atomic_load_n(&pg_segments[s].size, __ATOMIC_RELAXED);
        size_t off = (size_t)((const char *)addr - pg_segments[s].base);
        if (off < size && len <= size - off) {
            *offset = off;
            return s;
        }
        /* Any PE's own area: how far the target's reaches is checked at the target's node. */
        size_t area = pg_segments[s].area, end = pg_segments[s].reserved;
        if (area && off >= area && off < end && len <= end - off) {
            *offset = off;
            return s;
        }
    }
    return -1;
}

/* My mapping of segment seg of PE pe, or NULL when pe is not on my node (or not mapped). */
static inline char *pg_mem_peer_base(int seg, int pe)
{
    int l = pg_local_rank_of(pe);
    return l < 0 || !pg_segments[seg].peer_base ? NULL : pg_segments[seg].peer_base[l];
}

/* Load/store pointer to PE's copy of the symmetric object at my addr, or NULL when PE is
 * not on my node or addr is not symmetric. */
static inline void *pg_mem_peer_ptr(const void *addr, int pe)
{
    size_t off;
    int s = pg_mem_locate(addr, 1, &off);
    char *base = s < 0 ? NULL : pg_mem_peer_base(s, pe);
    return base ? base + off : NULL;
}

/* Each PE has two doorbells (runtime.h, "Waiting") in its heap segment's internal area, at
 * the same offset on every PE: one for the program's memory (wait_until, signals, locks, ARMCI
 * notify and mutexes), one for the library's internal area (the collectives' flags, the
 * accumulate locks), so that a put into a PE sleeping in a barrier wakes nobody.
 * pg_mem_doorbell: my mapping of the doorbell of pe that guards the word at my symmetric
 * address addr, or NULL when pe is not on my node. pg_mem_ring: after a write at addr into
 * pe's memory (a put, AMO or signal from this node), wakes that doorbell's sleepers, if any. */
extern size_t pg_doorbell_offset;
extern const char *pg_mem_internal_start, *pg_mem_internal_end; /* my internal area */
static inline struct pg_doorbell *pg_mem_doorbell(int pe, const void *addr)
{
    char *base = pg_mem_peer_base(PG_SEG_HEAP, pe);
    int internal =
        (const char *)addr >= pg_mem_internal_start && (const char *)addr < pg_mem_internal_end;
    return base ? (struct pg_doorbell *)(base + pg_doorbell_offset) + internal : NULL;
}
static inline void pg_mem_ring(int pe, const void *addr)
{
    struct pg_doorbell *db = pg_mem_doorbell(pe, addr);
    if (db)
        pg_doorbell_ring(db);
}

/* ARMCI names remote memory by the target's own addresses, and segment bases differ between
 * processes. pg_mem_exchange_bases, collective over the world, gives every PE the others' bases
 * (a table of npes entries; ARMCI_Init calls it, OpenSHMEM does not need it; once per runtime).
 * pg_mem_from_peer then returns my address of the object at addr in pe's address space
 * ([addr, addr+len) inside one of pe's segments), the address the engine takes for pe, or NULL
 * when the range is not pe's remotely accessible memory (or the bases were not exchanged). */
void pg_mem_exchange_bases(void);
void *pg_mem_from_peer(int pe, const void *addr, size_t len);
/* The other way: pe's address of the object at my symmetric address addr. */
void *pg_mem_to_peer(int pe, const void *addr);

/* Library-internal symmetric memory (same offset on every PE), carved at init time from the
 * internal area at the end of the heap segment. */
void *pg_mem_internal_alloc(size_t size);
/* Bytes of it carved so far (whole cache lines). */
size_t pg_mem_internal_used(void);
/* A record every PE keeps at one offset of its internal area (a count, a lock, an extent), which
 * the node's PEs and its server reach in one another's segments: pg_mem_record_carve carves
 * one (at init, in the same order on every PE) and returns that offset. It is not zeroed: a
 * node's leader may write into another PE's record before that PE carved its own. */
size_t pg_mem_record_carve(size_t size);
static inline void *pg_mem_record_mine(size_t offset)
{
    return pg_segments[PG_SEG_HEAP].base + offset;
}
/* pe must be on my node. */
static inline void *pg_mem_record_of(int pe, size_t offset)
{
    return pg_mem_peer_base(PG_SEG_HEAP, pe) + offset;
}
/* Private memory of the per-PE tables (each segment's mapping of every PE of the node, and,
 * once ARMCI_Init ran, every PE's segment bounds for ARMCI's addresses) in a job of npes PEs,
 * local_size on the node (pangea-info --footprint). */
size_t pg_mem_table_bytes(size_t npes, size_t local_size);

/* A first-fit allocator over [base, base+size), its block table outside the memory. The
 * symmetric heap is one; a front-end may run its own over memory carved from the heap (ARMCI
 * allocations over a process group, which need not be the same on every PE). */
struct pg_arena_block;
struct pg_arena {
    char *base;
    size_t size;
    struct pg_arena_block *blocks;
    size_t nblocks, capacity;
};
void pg_arena_setup(struct pg_arena *a, char *base, size_t size);
void pg_arena_release(struct pg_arena *a);
void *pg_arena_alloc(struct pg_arena *a, size_t alignment, size_t size);
void pg_arena_free(struct pg_arena *a, void *ptr);
/* Bounds of the live object containing addr: 0 and start/len, or -1. */
int pg_arena_object(const struct pg_arena *a, const void *addr, char **start, size_t *len);

/* An arena a front-end runs over a block of the symmetric heap, or over the own area (ARMCI's
 * group allocations), is made known here, so that pg_mem_objects lists its objects (instead of
 * the whole block); NULL forgets it. One at a time. */
void pg_mem_sub_arena(const struct pg_arena *a);

/* The live symmetric allocations of this PE, in address order: heap objects (an arena's block
 * replaced by the arena's own objects), then the objects of an arena outside the heap, each as
 * its offset from the start of its memory (pg_heap_base(), or the arena's base) and the bytes
 * the program asked for (offsets that do not depend on the node layout, which sizes the
 * internal area before the heap). Writes at most max entries, returns how many there are (a
 * checkpoint saves them, a restart checks that the program made the same). */
struct pg_mem_object {
    size_t offset, len;
    int in_sub_arena; /* 1: an object of the front-end's arena */
};
size_t pg_mem_objects(struct pg_mem_object *out, size_t max);
/* Where an object of pg_mem_objects is in this process now. */
char *pg_mem_object_address(int in_sub_arena, size_t offset);
/* Where the symmetric heap allocator's memory starts. */
char *pg_heap_base(void);

/* Hands [base, base+size) to the heap allocator, all free (segment setup and unit tests). */
void pg_heap_setup(char *base, size_t size);
/* Adds [base+size, base+new_size) to the heap allocator, free (after the segment grew). */
void pg_heap_extend(size_t new_size);
/* Bytes the heap must grow by for pg_heap_alloc(alignment, size) to succeed: counts the free
 * block at its end. */
size_t pg_heap_shortfall(size_t alignment, size_t size);
/* The same for any arena. */
void pg_arena_extend(struct pg_arena *a, size_t new_size);
size_t pg_arena_shortfall(const struct pg_arena *a, size_t alignment, size_t size);

/* The largest alignment shmem_align can honour: every heap starts at the same residue modulo
 * it (the segments at multiples of it, the heap after an internal area of one size). */
#define PG_HEAP_MAX_ALIGN ((size_t)1 << 30)

/* The symmetric heap allocator. Deterministic: the same sequence of calls gives the same
 * addresses on every PE. Not collective by itself; the front-ends add the barriers. */
void *pg_heap_alloc(size_t alignment, size_t size);
void pg_heap_free(void *ptr);
/* Resizes in place when the neighbouring space allows; returns 0 on success, -1 when the
 * block has to move. */
int pg_heap_resize(void *ptr, size_t size);
/* Bounds of the live heap object containing addr: 0 and start/len, or -1. */
int pg_heap_object(const void *addr, char **start, size_t *len);
/* Is ptr the start of a live heap object? */
int pg_heap_is_block(const void *ptr);
/* Bytes free and the largest free block (for error messages and tests). */
void pg_heap_usage(size_t *free_bytes, size_t *largest_free);
size_t pg_heap_capacity(void);

#endif
