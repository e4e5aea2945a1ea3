/* The heap allocator: first fit over an address-ordered table of blocks kept
 * outside the heap (so a user overrun cannot corrupt it, and checks can find any object's
 * bounds). Freed blocks merge with free neighbours, so the heap never fragments for good. */
#include "memory.h"

#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#define PG_HEAP_MIN_ALIGN 64 /* a cache line: no false sharing between objects */

struct pg_arena_block {
    size_t off, len;
    size_t requested; /* what the program asked for: the object's bounds for checks */
    int used;
};

/* The symmetric heap is one arena; a front-end may run others over memory carved from it. */
static struct pg_arena sym_heap;

void pg_arena_setup(struct pg_arena *a, char *base, size_t size)
{
    a->base = base;
    a->size = size;
    free(a->blocks);
    a->capacity = 64;
    a->blocks = malloc(a->capacity * sizeof *a->blocks);
    if (!a->blocks)
        pg_fatal("shmem_init", "out of memory for the heap table");
    a->blocks[0] = (struct pg_arena_block){0, size, 0, 0};
    a->nblocks = 1;
}

void pg_arena_release(struct pg_arena *a)
{
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

void pg_heap_setup(char *base, size_t size)
{
    pg_arena_setup(&sym_heap, base, size);
}

size_t pg_heap_capacity(void)
{
    return sym_heap.size;
}

static void insert_block(struct pg_arena *a, size_t at, struct pg_arena_block b)
{
    if (a->nblocks == a->capacity) {
        struct pg_arena_block *grown = realloc(a->blocks, 2 * a->capacity * sizeof *a->blocks);
        if (!grown)
            pg_fatal("shmem_malloc", "out of memory for the heap table");
        a->blocks = grown;
        a->capacity *= 2;
    }
    memmove(&a->blocks[at + 1], &a->blocks[at], (a->nblocks - at) * sizeof *a->blocks);
    a->blocks[at] = b;
    a->nblocks++;
}

static void remove_block(struct pg_arena *a, size_t at)
{
    memmove(&a->blocks[at], &a->blocks[at + 1], (a->nblocks - at - 1) * sizeof *a->blocks);
    a->nblocks--;
}

/* Index of the block containing offset off (blocks tile the arena). */
static size_t find_block(const struct pg_arena *a, size_t off)
{
    size_t lo = 0, hi = a->nblocks;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (a->blocks[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Merge block i with a free successor, and a free predecessor with block i. */
static void coalesce(struct pg_arena *a, size_t i)
{
    if (i + 1 < a->nblocks && !a->blocks[i + 1].used) {
        a->blocks[i].len += a->blocks[i + 1].len;
        remove_block(a, i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].len += a->blocks[i].len;
        remove_block(a, i);
    }
}

void *pg_arena_alloc(struct pg_arena *a, size_t alignment, size_t size)
{
    if (alignment < PG_HEAP_MIN_ALIGN)
        alignment = PG_HEAP_MIN_ALIGN;
    if (size > a->size || alignment > PG_HEAP_MAX_ALIGN)
        return NULL;
    size_t requested = size;
    size = (size + PG_HEAP_MIN_ALIGN - 1) & ~(size_t)(PG_HEAP_MIN_ALIGN - 1);
    for (size_t i = 0; i < a->nblocks; i++) {
        struct pg_arena_block b = a->blocks[i];
        if (b.used)
            continue;
        /* The heap base has the same residue modulo PG_HEAP_MAX_ALIGN on every PE: aligned
         * addresses are the same offsets on all PEs. */
        uintptr_t addr = (uintptr_t)(a->base + b.off);
        size_t pad = (size_t)((alignment - addr % alignment) % alignment);
        if (pad > b.len || b.len - pad < size)
            continue;
        size_t at = i;
        if (pad) {
            a->blocks[at].len = pad;
            insert_block(a, ++at, (struct pg_arena_block){b.off + pad, b.len - pad, 0, 0});
        }
        size_t rest = a->blocks[at].len - size;
        a->blocks[at].len = size;
        a->blocks[at].used = 1;
        a->blocks[at].requested = requested;
        if (rest)
            insert_block(a, at + 1, (struct pg_arena_block){a->blocks[at].off + size, rest, 0, 0});
        return a->base + a->blocks[at].off;
    }
    return NULL;
}

static long block_of_ptr(const struct pg_arena *a, const void *ptr)
{
    size_t off = (size_t)((const char *)ptr - a->base);
    if (!a->base || off >= a->size)
        return -1;
    size_t i = find_block(a, off);
    return (a->blocks[i].off == off && a->blocks[i].used) ? (long)i : -1;
}

int pg_heap_is_block(const void *ptr)
{
    return block_of_ptr(&sym_heap, ptr) >= 0;
}

void pg_arena_free(struct pg_arena *a, void *ptr)
{
    long i = block_of_ptr(a, ptr);
    if (i < 0)
        return;
    a->blocks[i].used = 0;
    coalesce(a, (size_t)i);
}

int pg_heap_resize(void *ptr, size_t size)
{
    struct pg_arena *a = &sym_heap;
    long i = block_of_ptr(a, ptr);
    if (i < 0)
        return -1;
    size_t requested = size;
    size = (size + PG_HEAP_MIN_ALIGN - 1) & ~(size_t)(PG_HEAP_MIN_ALIGN - 1);
    struct pg_arena_block *b = &a->blocks[i];
    if (size <= b->len) {
        b->requested = requested;
        size_t rest = b->len - size;
        if (rest) {
            b->len = size;
            insert_block(a, (size_t)i + 1, (struct pg_arena_block){b->off + size, rest, 0, 0});
            coalesce(a, (size_t)i + 1);
        }
        return 0;
    }
    size_t need = size - b->len;
    if ((size_t)i + 1 < a->nblocks && !a->blocks[i + 1].used && a->blocks[i + 1].len >= need) {
        b->len = size;
        b->requested = requested;
        a->blocks[i + 1].off += need;
        a->blocks[i + 1].len -= need;
        if (a->blocks[i + 1].len == 0)
            remove_block(a, (size_t)i + 1);
        return 0;
    }
    return -1;
}

int pg_arena_object(const struct pg_arena *a, const void *addr, char **start, size_t *len)
{
    size_t off = (size_t)((const char *)addr - a->base);
    if (!a->base || off >= a->size)
        return -1;
    size_t i = find_block(a, off);
    if (!a->blocks[i].used)
        return -1;
    *start = a->base + a->blocks[i].off;
    *len = a->blocks[i].requested;
    return 0;
}

void pg_heap_usage(size_t *free_bytes, size_t *largest_free)
{
    const struct pg_arena *a = &sym_heap;
    *free_bytes = *largest_free = 0;
    for (size_t i = 0; i < a->nblocks; i++) {
        if (a->blocks[i].used)
            continue;
        *free_bytes += a->blocks[i].len;
        if (a->blocks[i].len > *largest_free)
            *largest_free = a->blocks[i].len;
    }
}

void pg_heap_extend(size_t new_size)
{
    pg_arena_extend(&sym_heap, new_size);
}

void pg_arena_extend(struct pg_arena *a, size_t new_size)
{
    size_t added = new_size - a->size;
    struct pg_arena_block *last = &a->blocks[a->nblocks - 1];
    if (!last->used)
        last->len += added;
    else
        insert_block(a, a->nblocks, (struct pg_arena_block){a->size, added, 0, 0});
    a->size = new_size;
}

size_t pg_heap_shortfall(size_t alignment, size_t size)
{
    return pg_arena_shortfall(&sym_heap, alignment, size);
}

size_t pg_arena_shortfall(const struct pg_arena *a, size_t alignment, size_t size)
{
    if (alignment < PG_HEAP_MIN_ALIGN)
        alignment = PG_HEAP_MIN_ALIGN;
    if (size > SIZE_MAX / 2)
        return SIZE_MAX;
    const struct pg_arena_block *last = &a->blocks[a->nblocks - 1];
    size_t tail = last->used ? a->size : last->off;
    uintptr_t addr = (uintptr_t)(a->base + tail);
    size_t pad = (size_t)((alignment - addr % alignment) % alignment);
    size_t end = tail + pad + ((size + PG_HEAP_MIN_ALIGN - 1) & ~(size_t)(PG_HEAP_MIN_ALIGN - 1));
    return end > a->size ? end - a->size : 0;
}

void *pg_heap_alloc(size_t alignment, size_t size)
{
    return pg_arena_alloc(&sym_heap, alignment, size);
}

void pg_heap_free(void *ptr)
{
    pg_arena_free(&sym_heap, ptr);
}

int pg_heap_object(const void *addr, char **start, size_t *len)
{
    return pg_arena_object(&sym_heap, addr, start, len);
}

static const struct pg_arena *sub_arena;

void pg_mem_sub_arena(const struct pg_arena *a)
{
    sub_arena = a;
}

/* Does the front-end's arena lie outside the heap (in the own area)? */
static int sub_arena_outside(void)
{
    return sub_arena && sub_arena->base &&
           (size_t)(sub_arena->base - sym_heap.base) >= sym_heap.size;
}

/* Appends the live objects of a to out (up to max), counting all of them in *n; their offsets
 * from base. */
static void list_objects(const struct pg_arena *a, int in_sub, const char *base,
                         struct pg_mem_object *out, size_t max, size_t *n)
{
    size_t start = (size_t)(a->base - base);
    for (size_t i = 0; i < a->nblocks; i++) {
        const struct pg_arena_block *b = &a->blocks[i];
        if (!b->used)
            continue;
        if (!in_sub && sub_arena && sub_arena->base && a->base + b->off == sub_arena->base) {
            list_objects(sub_arena, 1, base, out, max, n);
            continue;
        }
        if (*n < max)
            out[*n] = (struct pg_mem_object){start + b->off, b->requested, in_sub};
        ++*n;
    }
}

char *pg_heap_base(void)
{
    return sym_heap.base;
}

size_t pg_mem_objects(struct pg_mem_object *out, size_t max)
{
    size_t n = 0;
    list_objects(&sym_heap, 0, sym_heap.base, out, max, &n);
    if (sub_arena_outside())
        list_objects(sub_arena, 1, sub_arena->base, out, max, &n);
    return n;
}

char *pg_mem_object_address(int in_sub_arena, size_t offset)
{
    return (in_sub_arena && sub_arena_outside() ? sub_arena->base : sym_heap.base) + offset;
}
