/* The per-PE count of operations completed at that PE as their target (shmemx_pcntr's
 * completed_target), in the internal symmetric area, where on-node initiators and the node's
 * server reach it. */
#include "dataserver.h"

#include "memory/memory.h"

static size_t count_offset; /* of every PE's count in its heap segment */

void pg_target_counts_init(void)
{
    uint64_t *mine = pg_mem_internal_alloc(sizeof *mine);
    __atomic_store_n(mine, 0, __ATOMIC_RELAXED);
    count_offset = (size_t)((char *)mine - pg_segments[PG_SEG_HEAP].base);
}

void pg_target_count_add(int pe, uint64_t operations)
{
    uint64_t *count = (uint64_t *)(pg_mem_peer_base(PG_SEG_HEAP, pe) + count_offset);
    __atomic_fetch_add(count, operations, __ATOMIC_RELAXED);
}

uint64_t pg_target_count_mine(void)
{
    return __atomic_load_n((uint64_t *)(pg_segments[PG_SEG_HEAP].base + count_offset),
                           __ATOMIC_ACQUIRE);
}
