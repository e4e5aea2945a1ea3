/* ARMCI memory.
 *
 * Over the world (ARMCI_Malloc, or ARMCI_Malloc_group on a group of every process), memory
 * comes from the symmetric heap. Every process makes the same call with the largest size any
 * process asked for, so the deterministic allocator stays in step on every PE and OpenSHMEM
 * can use the memory too (shmem_malloc offsets still agree afterwards).
 *
 * Over a subset, the processes outside the group make no call, so the symmetric heap cannot
 * serve it: an allocation on members only would move every later shmem_malloc offset on them
 * and not on the others. Each process therefore runs its own arena allocator over its own area
 * of the heap segment (pg_mem_area_grow), which it grows alone when an allocation does not fit:
 * the members need not agree on anything, since ARMCI names remote memory by the target's own
 * addresses, which pg_mem_from_peer translates, and offsets may differ. A member publishes its
 * grown extent before the group exchanges the addresses, so whoever learns an address (a member,
 * or anybody it tells) finds the memory behind it reachable by the on-node and off-node paths
 * like the rest of the segment, and nothing already allocated moves. */
#include "armci_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static struct pg_arena group_arena;
static unsigned long shm_limit; /* ARMCI_Set_shm_limit; 0: none */

/* From the symmetric heap, growing it when needed: collective over the world. */
static char *heap_alloc(size_t size, char *why)
{
    char *p = pg_heap_alloc(0, size);
    if (!p && pg_symmetric_grow(0, size, why, PG_GROWTH_WHY) == 0)
        p = pg_heap_alloc(0, size);
    return p;
}

void pg_armci_memory_init(void)
{
    /* The area keeps the extent an earlier ARMCI_Init of this runtime grew it to. */
    pg_arena_setup(&group_arena, pg_mem_area_base(), pg_mem_area_size());
    pg_mem_sub_arena(&group_arena);
    pg_armci_notify_init();
}

void pg_armci_memory_fini(void)
{
    pg_armci_notify_fini();
    pg_mem_sub_arena(NULL);
    pg_arena_release(&group_arena);
}

/* Grows my area so that `bytes` fit: at least doubling it, by PANGEA_ARMCI_GROUP_HEAP at
 * least, within its maximum. 0, or -1 and why. */
static int grow_group_arena(size_t bytes, char *why, size_t len)
{
    size_t now = group_arena.size, need = now + pg_arena_shortfall(&group_arena, 0, bytes);
    size_t want = 2 * now > need ? 2 * now : need;
    if (want < (size_t)pg_cfg.armci_group_heap)
        want = (size_t)pg_cfg.armci_group_heap;
    if (want > pg_heap_max())
        want = need; /* the most possible, or the maximum's message */
    if (pg_mem_area_grow(want, why, len) != 0)
        return -1;
    pg_arena_extend(&group_arena, want);
    return 0;
}

void ARMCI_Set_shm_limit(unsigned long shmemlimit)
{
    shm_limit = shmemlimit;
}

/* A request over the limit fails on every participant alike: the size compared is the
 * group's largest. */
static int over_limit(long largest)
{
    return shm_limit && (unsigned long)largest > shm_limit;
}

static int malloc_world(const char *call, void **ptr_arr, long bytes)
{
    MPI_Comm comm = pg_armci_world_group.comm;
    long largest;
    MPI_Allreduce(&bytes, &largest, 1, MPI_LONG, MPI_MAX, comm);
    if (over_limit(largest))
        return FAIL;
    char *mine = NULL;
    if (largest > 0) {
        char why[PG_GROWTH_WHY];
        mine = heap_alloc((size_t)largest, why);
        if (!mine) { /* deterministic: every process fails alike */
            size_t free_bytes, largest_free;
            pg_heap_usage(&free_bytes, &largest_free);
            pg_fatal(call,
                     "cannot allocate %ld bytes: the symmetric heap has %zu bytes free of %zu, "
                     "the largest free block is %zu, and %s",
                     largest, free_bytes, pg_heap_capacity(), largest_free, why);
        }
    }
    long *sizes = malloc((size_t)pg_world.npes * sizeof *sizes);
    if (!sizes)
        pg_fatal(call, "out of memory");
    MPI_Allgather(&bytes, 1, MPI_LONG, sizes, 1, MPI_LONG, comm);
    for (int p = 0; p < pg_world.npes; p++)
        ptr_arr[p] = sizes[p] > 0 ? pg_mem_to_peer(p, mine) : NULL;
    free(sizes);
    return 0;
}

static int malloc_subset(const char *call, void **ptr_arr, long bytes, ARMCI_Group *group)
{
    long largest;
    MPI_Allreduce(&bytes, &largest, 1, MPI_LONG, MPI_MAX, group->comm);
    if (over_limit(largest))
        return FAIL;
    void *mine = NULL;
    if (bytes > 0) {
        char why[PG_GROWTH_WHY] = "it did not fit after growing";
        mine = pg_arena_alloc(&group_arena, 0, (size_t)bytes);
        if (!mine && grow_group_arena((size_t)bytes, why, sizeof why) == 0)
            mine = pg_arena_alloc(&group_arena, 0, (size_t)bytes);
        if (!mine)
            pg_fatal(call,
                     "process %d cannot allocate %ld bytes for a group: its area for group "
                     "allocations holds %zu bytes, and %s",
                     pg_world.me, bytes, group_arena.size, why);
    }
    /* The extent is published: whoever learns these addresses can reach them. */
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, ptr_arr, sizeof mine, MPI_BYTE, group->comm);
    return 0;
}

static int malloc_group(const char *call, void **ptr_arr, long bytes, ARMCI_Group *group)
{
    pg_armci_check_init(call);
    pg_group_check_member(call, group);
    pg_armci_check_count(call, "bytes", bytes);
    if (!ptr_arr)
        pg_fatal(call, "argument 'ptr_arr' is NULL");
    if (pg_group_is_world(group))
        return malloc_world(call, ptr_arr, bytes);
    return malloc_subset(call, ptr_arr, bytes, group);
}

/* Frees a world allocation. A process that asked for 0 bytes passes NULL: the allocation is
 * then identified by the heap offset of those who did not. */
static int free_world(const char *call, void *ptr)
{
    size_t offset = 0;
    if (ptr && (pg_mem_locate(ptr, 1, &offset) != PG_SEG_HEAP || !pg_heap_is_block(ptr)))
        pg_fatal(call, "argument 'ptr' = %p is not an address ARMCI_Malloc returned", ptr);
    pg_armci_all_fence();
    long span[2] = {ptr ? (long)offset : -1, ptr ? -(long)offset : LONG_MIN};
    MPI_Allreduce(MPI_IN_PLACE, span, 2, MPI_LONG, MPI_MAX, pg_armci_world_group.comm);
    if (span[0] < 0)
        return 0; /* everybody allocated 0 bytes */
    if (span[0] != -span[1])
        pg_fatal(call, "the processes passed different allocations (heap offsets %ld and %ld)",
                 -span[1], span[0]);
    pg_heap_free(pg_segments[PG_SEG_HEAP].base + span[0]);
    return 0;
}

static int free_group(const char *call, void *ptr, ARMCI_Group *group)
{
    pg_armci_check_init(call);
    pg_group_check_member(call, group);
    if (pg_group_is_world(group))
        return free_world(call, ptr);
    char *start;
    size_t len;
    if (ptr && (pg_arena_object(&group_arena, ptr, &start, &len) != 0 || start != ptr))
        pg_fatal(call, "argument 'ptr' = %p is not an address ARMCI_Malloc_group returned", ptr);
    /* Nobody may still be writing into the block when it is reused. */
    pg_armci_all_fence();
    MPI_Barrier(group->comm);
    if (ptr)
        pg_arena_free(&group_arena, ptr);
    return 0;
}

int PARMCI_Malloc(void **ptr_arr, armci_size_t bytes)
{
    return malloc_group("ARMCI_Malloc", ptr_arr, bytes, &pg_armci_world_group);
}
PG_ARMCI_ALIAS(ARMCI_Malloc)

int PARMCI_Free(void *ptr)
{
    pg_armci_check_init("ARMCI_Free");
    return free_world("ARMCI_Free", ptr);
}
PG_ARMCI_ALIAS(ARMCI_Free)

int ARMCI_Malloc_group(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group)
{
    return malloc_group("ARMCI_Malloc_group", ptr_arr, bytes, group);
}

int ARMCI_Free_group(void *ptr, ARMCI_Group *group)
{
    return free_group("ARMCI_Free_group", ptr, group);
}

/* One kind of memory: any device name gives ordinary ARMCI memory. */
int PARMCI_Malloc_memdev(void **ptr_arr, armci_size_t bytes, const char *device)
{
    (void)device;
    return malloc_group("ARMCI_Malloc_memdev", ptr_arr, bytes, &pg_armci_world_group);
}
PG_ARMCI_ALIAS(ARMCI_Malloc_memdev)

int PARMCI_Malloc_group_memdev(void **ptr_arr, armci_size_t bytes, ARMCI_Group *group,
                               const char *device)
{
    (void)device;
    return malloc_group("ARMCI_Malloc_group_memdev", ptr_arr, bytes, group);
}
PG_ARMCI_ALIAS(ARMCI_Malloc_group_memdev)

/* The memdev free does not name the group: the block's own arena tells which it was. */
int PARMCI_Free_memdev(void *ptr)
{
    const char *call = "ARMCI_Free_memdev";
    char *start;
    size_t len;
    if (ptr && pg_arena_object(&group_arena, ptr, &start, &len) == 0)
        pg_fatal(call,
                 "argument 'ptr' = %p was allocated over a group: free it with "
                 "ARMCI_Free_group",
                 ptr);
    pg_armci_check_init(call);
    return free_world(call, ptr);
}
PG_ARMCI_ALIAS(ARMCI_Free_memdev)

/* Local memory is for this process's own buffers; it need not be remotely accessible. */
void *PARMCI_Malloc_local(armci_size_t bytes)
{
    pg_armci_check_count("ARMCI_Malloc_local", "bytes", bytes);
    return bytes ? malloc((size_t)bytes) : NULL;
}
PG_ARMCI_ALIAS(ARMCI_Malloc_local)

int PARMCI_Free_local(void *ptr)
{
    free(ptr);
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Free_local)
