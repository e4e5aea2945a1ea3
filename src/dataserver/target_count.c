/* The per-PE count of operations completed at that PE as their target (shmemx_pcntr's
 * completed_target), in the internal symmetric area, where on-node initiators and the node's
 * server reach it. */
#include "dataserver.h"

#include "memory/memory.h"

static size_t count_offset; /* of every PE's count in its internal area */

void pg_target_counts_init(void)
{
    count_offset = pg_mem_record_carve(sizeof(uint64_t));
    __atomic_store_n((uint64_t *)pg_mem_record_mine(count_offset), 0, __ATOMIC_RELAXED);
}

void pg_target_count_add(int pe, uint64_t operations)
{
    __atomic_fetch_add((uint64_t *)pg_mem_record_of(pe, count_offset), operations,
                       __ATOMIC_RELAXED);
}

uint64_t pg_target_count_mine(void)
{
    return __atomic_load_n((uint64_t *)pg_mem_record_mine(count_offset), __ATOMIC_ACQUIRE);
}
