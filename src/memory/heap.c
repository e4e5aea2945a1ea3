/* The symmetric heap allocator: first fit over an address-ordered table of blocks kept
 * outside the heap (so a user overrun cannot corrupt it, and checks can find any object's
 * bounds). Freed blocks merge with free neighbours, so the heap never fragments for good. */
#include "memory.h"

#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#define PG_HEAP_MIN_ALIGN 64 /* a cache line: no false sharing between objects */

struct block {
    size_t off, len;
    size_t requested; /* what the program asked for: the object's bounds for checks */
    int used;
};

static char *heap_base;
static size_t heap_size;
static struct block *blocks;
static size_t nblocks, capacity;

void pg_heap_setup(char *base, size_t size)
{
    heap_base = base;
    heap_size = size;
    free(blocks);
    capacity = 64;
    blocks = malloc(capacity * sizeof *blocks);
    if (!blocks)
        pg_fatal("shmem_init", "out of memory for the heap table");
    blocks[0] = (struct block){0, size, 0, 0};
    nblocks = 1;
}

size_t pg_heap_capacity(void)
{
    return heap_size;
}

static void insert_block(size_t at, struct block b)
{
    if (nblocks == capacity) {
        struct block *grown = realloc(blocks, 2 * capacity * sizeof *blocks);
        if (!grown)
            pg_fatal("shmem_malloc", "out of memory for the heap table");
        blocks = grown;
        capacity *= 2;
    }
    memmove(&blocks[at + 1], &blocks[at], (nblocks - at) * sizeof *blocks);
    blocks[at] = b;
    nblocks++;
}

static void remove_block(size_t at)
{
    memmove(&blocks[at], &blocks[at + 1], (nblocks - at - 1) * sizeof *blocks);
    nblocks--;
}

/* Index of the block containing offset off (blocks tile the heap). */
static size_t find_block(size_t off)
{
    size_t lo = 0, hi = nblocks;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (blocks[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Merge block i with a free successor, and a free predecessor with block i. */
static void coalesce(size_t i)
{
    if (i + 1 < nblocks && !blocks[i + 1].used) {
        blocks[i].len += blocks[i + 1].len;
        remove_block(i + 1);
    }
    if (i > 0 && !blocks[i - 1].used) {
        blocks[i - 1].len += blocks[i].len;
        remove_block(i);
    }
}

void *pg_heap_alloc(size_t alignment, size_t size)
{
    if (alignment < PG_HEAP_MIN_ALIGN)
        alignment = PG_HEAP_MIN_ALIGN;
    if (size > heap_size || alignment > PG_HEAP_MAX_ALIGN)
        return NULL;
    size_t requested = size;
    size = (size + PG_HEAP_MIN_ALIGN - 1) & ~(size_t)(PG_HEAP_MIN_ALIGN - 1);
    for (size_t i = 0; i < nblocks; i++) {
        struct block b = blocks[i];
        if (b.used)
            continue;
        /* The heap base is PG_HEAP_MAX_ALIGN-aligned on every PE: aligned addresses are
         * aligned offsets, the same on all PEs. */
        uintptr_t addr = (uintptr_t)(heap_base + b.off);
        size_t pad = (size_t)((alignment - addr % alignment) % alignment);
        if (pad > b.len || b.len - pad < size)
            continue;
        size_t at = i;
        if (pad) {
            blocks[at].len = pad;
            insert_block(++at, (struct block){b.off + pad, b.len - pad, 0, 0});
        }
        size_t rest = blocks[at].len - size;
        blocks[at].len = size;
        blocks[at].used = 1;
        blocks[at].requested = requested;
        if (rest)
            insert_block(at + 1, (struct block){blocks[at].off + size, rest, 0, 0});
        return heap_base + blocks[at].off;
    }
    return NULL;
}

static long block_of_ptr(const void *ptr)
{
    size_t off = (size_t)((const char *)ptr - heap_base);
    if (!heap_base || off >= heap_size)
        return -1;
    size_t i = find_block(off);
    return (blocks[i].off == off && blocks[i].used) ? (long)i : -1;
}

int pg_heap_is_block(const void *ptr)
{
    return block_of_ptr(ptr) >= 0;
}

void pg_heap_free(void *ptr)
{
    long i = block_of_ptr(ptr);
    if (i < 0)
        return;
    blocks[i].used = 0;
    coalesce((size_t)i);
}

int pg_heap_resize(void *ptr, size_t size)
{
    long i = block_of_ptr(ptr);
    if (i < 0)
        return -1;
    size_t requested = size;
    size = (size + PG_HEAP_MIN_ALIGN - 1) & ~(size_t)(PG_HEAP_MIN_ALIGN - 1);
    struct block *b = &blocks[i];
    if (size <= b->len) {
        b->requested = requested;
        size_t rest = b->len - size;
        if (rest) {
            b->len = size;
            insert_block((size_t)i + 1, (struct block){b->off + size, rest, 0, 0});
            coalesce((size_t)i + 1);
        }
        return 0;
    }
    size_t need = size - b->len;
    if ((size_t)i + 1 < nblocks && !blocks[i + 1].used && blocks[i + 1].len >= need) {
        b->len = size;
        b->requested = requested;
        blocks[i + 1].off += need;
        blocks[i + 1].len -= need;
        if (blocks[i + 1].len == 0)
            remove_block((size_t)i + 1);
        return 0;
    }
    return -1;
}

int pg_heap_object(const void *addr, char **start, size_t *len)
{
    size_t off = (size_t)((const char *)addr - heap_base);
    if (!heap_base || off >= heap_size)
        return -1;
    size_t i = find_block(off);
    if (!blocks[i].used)
        return -1;
    *start = heap_base + blocks[i].off;
    *len = blocks[i].requested;
    return 0;
}

void pg_heap_usage(size_t *free_bytes, size_t *largest_free)
{
    *free_bytes = *largest_free = 0;
    for (size_t i = 0; i < nblocks; i++) {
        if (blocks[i].used)
            continue;
        *free_bytes += blocks[i].len;
        if (blocks[i].len > *largest_free)
            *largest_free = blocks[i].len;
    }
}
