/* Memory management (spec §9.3): collective over the world; allocators barrier on exit and
 * free on entry. The allocator is deterministic, so every PE gets the same address. */
#include "shmem_internal.h"

#include <shmemx.h>

static void barrier_all(void)
{
    pg_quiet(pg_ctx(SHMEM_CTX_DEFAULT));
    pg_sync_all();
}

/* The spec's answer is NULL, which a program that does not check turns into a crash far away:
 * say why, by default on PE 0 the first time (every PE fails alike), and on every PE each time
 * under SHMEM_DEBUG. */
static void explain_failure(const char *call, size_t alignment, size_t size, const char *why)
{
    static int explained;
    if (!pg_cfg.debug && (explained || pg_world.me != 0))
        return;
    size_t free_bytes, largest;
    pg_heap_usage(&free_bytes, &largest);
    pg_warn("%s: cannot allocate %zu bytes (alignment %zu): the symmetric heap has %zu bytes "
            "free of %zu, the largest free block is %zu bytes, and %s%s",
            call, size, alignment, free_bytes, pg_heap_capacity(), largest, why,
            pg_cfg.debug ? "" : "; returning NULL (SHMEM_DEBUG reports every failure)");
    explained = 1;
}

/* barrier: 0 leaves out the barrier on exit (SHMEMX_MALLOC_NO_BARRIER). */
static void *allocate_with(const char *call, size_t alignment, size_t size, int barrier)
{
    PG_SHMEM_CALL(call);
    PG_CHECKS(pg_check_init(call));
    if (size == 0)
        return NULL; /* no barrier (spec §9.3) */
    /* Every PE fails alike (the allocator is deterministic), and grows alike. */
    char why[PG_GROWTH_WHY];
    void *p = pg_heap_alloc(alignment, size);
    if (!p && pg_symmetric_grow(alignment, size, why, sizeof why) == 0)
        p = pg_heap_alloc(alignment, size);
    if (!p)
        explain_failure(call, alignment, size, why);
    if (barrier)
        barrier_all();
    return p;
}

static void *allocate(const char *call, size_t alignment, size_t size)
{
    return allocate_with(call, alignment, size, 1);
}

void *pshmem_malloc(size_t size)
{
    return allocate("shmem_malloc", 0, size);
}
PG_ALIAS(shmem_malloc)

void *pshmem_malloc_with_hints(size_t size, long hints)
{
    /* Every object already supports remote atomics and signals; only SOS's no-barrier hint
     * changes anything. */
    return allocate_with("shmem_malloc_with_hints", 0, size, !(hints & SHMEMX_MALLOC_NO_BARRIER));
}
PG_ALIAS(shmem_malloc_with_hints)

void *pshmem_align(size_t alignment, size_t size)
{
    /* §9.3 asks for a power of two that is a multiple of sizeof(void *). Smaller powers of two
     * (1, 2, 4) are honoured too, as other implementations do: every block is 64-byte
     * aligned. A power of two beyond PG_HEAP_MAX_ALIGN is valid but cannot be satisfied: the
     * allocation fails with NULL. */
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        PG_CHECKS(
            pg_fatal("shmem_align", "argument 'alignment' = %zu is not a power of two", alignment));
        barrier_all();
        return NULL;
    }
    return allocate("shmem_align", alignment, size);
}
PG_ALIAS(shmem_align)

void *pshmem_calloc(size_t count, size_t size)
{
    if (count == 0 || size == 0)
        return NULL;
    if (count > SIZE_MAX / size) {
        /* Too large for any heap: a failed allocation like any other, not a bad argument. */
        if (pg_cfg.debug)
            pg_debug("shmem_calloc: cannot allocate count %zu x size %zu bytes: the product "
                     "overflows",
                     count, size);
        barrier_all();
        return NULL;
    }
    void *p = allocate("shmem_calloc", 0, count * size);
    if (p) {
        memset(p, 0, count * size);
        /* Nobody may see the object before every PE has cleared its copy. */
        pg_sync_all();
    }
    return p;
}
PG_ALIAS(shmem_calloc)

void pshmem_free(void *ptr)
{
    if (!ptr)
        return;
    PG_CHECKS(pg_check_init("shmem_free");
              if (!pg_heap_is_block(ptr)) pg_fatal("shmem_free",
                                                   "argument 'ptr' = %p was not returned by a "
                                                   "symmetric heap allocation",
                                                   ptr));
    barrier_all();
    pg_heap_free(ptr);
}
PG_ALIAS(shmem_free)

void *pshmem_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return pshmem_malloc(size);
    if (size == 0) {
        pshmem_free(ptr);
        return NULL;
    }
    PG_CHECKS(pg_check_init("shmem_realloc");
              if (!pg_heap_is_block(ptr)) pg_fatal("shmem_realloc",
                                                   "argument 'ptr' = %p was not returned by a "
                                                   "symmetric heap allocation",
                                                   ptr));
    barrier_all(); /* no PE may still be writing into the old object */
    void *result = ptr;
    if (pg_heap_resize(ptr, size) != 0) {
        char *start;
        size_t old_size;
        pg_heap_object(ptr, &start, &old_size);
        char why[PG_GROWTH_WHY];
        result = pg_heap_alloc(0, size);
        if (!result && pg_symmetric_grow(0, size, why, sizeof why) == 0)
            result = pg_heap_resize(ptr, size) == 0 ? ptr : pg_heap_alloc(0, size);
        if (!result)
            explain_failure("shmem_realloc", 0, size, why);
        if (result && result != ptr) {
            memcpy(result, ptr, old_size < size ? old_size : size);
            pg_heap_free(ptr);
        }
    }
    barrier_all();
    return result;
}
PG_ALIAS(shmem_realloc)

/* Legacy names (deprecated since 1.2). */
void *shmalloc(size_t size)
{
    return pshmem_malloc(size);
}

void shfree(void *ptr)
{
    pshmem_free(ptr);
}

void *shrealloc(void *ptr, size_t size)
{
    return pshmem_realloc(ptr, size);
}

void *shmemalign(size_t alignment, size_t size)
{
    return pshmem_align(alignment, size);
}
