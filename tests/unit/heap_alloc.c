/* The symmetric heap allocator on its own: alignment, no overlap, in-place resize, and a long
 * random alloc/free sequence that leaves the heap whole again. */
#define UNIT_NAME "heap_alloc"
#include "unit.h"

#include "memory/memory.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAP_SIZE ((size_t)8 << 20)
#define SLOTS 256

static void expect_whole(const char *when)
{
    size_t free_bytes, largest;
    pg_heap_usage(&free_bytes, &largest);
    EXPECT(free_bytes == HEAP_SIZE && largest == HEAP_SIZE,
           "%s: heap not whole (free %zu, largest %zu of %zu)", when, free_bytes, largest,
           HEAP_SIZE);
}

int main(void)
{
    char *base = aligned_alloc(4096, HEAP_SIZE);
    pg_heap_setup(base, HEAP_SIZE);
    expect_whole("at start");

    /* Alignment and exhaustion. */
    for (size_t align = 64; align <= ((size_t)1 << 20); align <<= 1) {
        char *p = pg_heap_alloc(align, 100);
        EXPECT(p && (uintptr_t)p % align == 0, "alignment %zu: got %p", align, (void *)p);
        pg_heap_free(p);
    }
    expect_whole("after aligned allocations");
    EXPECT(pg_heap_alloc(0, HEAP_SIZE + 1) == NULL, "an allocation larger than the heap");
    char *all = pg_heap_alloc(0, HEAP_SIZE);
    EXPECT(all == base, "the whole heap in one block");
    EXPECT(pg_heap_alloc(0, 1) == NULL, "allocation from a full heap");
    pg_heap_free(all);

    /* Object bounds as the checks see them. */
    char *obj = pg_heap_alloc(0, 100), *start = NULL;
    size_t len = 0;
    EXPECT(pg_heap_object(obj + 50, &start, &len) == 0 && start == obj && len == 100,
           "object bounds: start %p len %zu", (void *)start, len);
    EXPECT(pg_heap_resize(obj, 5000) == 0, "grow in place into free space");
    EXPECT(pg_heap_object(obj, &start, &len) == 0 && len == 5000, "bounds after grow: %zu", len);
    EXPECT(pg_heap_resize(obj, 10) == 0, "shrink in place");
    pg_heap_free(obj);
    expect_whole("after resize");

    /* Random sequence, each block filled and verified before it is freed. */
    char *slot[SLOTS] = {0};
    size_t size[SLOTS] = {0};
    srand(12345);
    for (int op = 0; op < 200000; op++) {
        int s = rand() % SLOTS;
        if (slot[s]) {
            for (size_t i = 0; i < size[s]; i++)
                if (slot[s][i] != (char)(s + i)) {
                    EXPECT(0, "block %d corrupted at byte %zu", s, i);
                    break;
                }
            pg_heap_free(slot[s]);
            slot[s] = NULL;
        } else {
            size[s] = 1 + (size_t)(rand() % 40000);
            size_t align = (size_t)1 << (rand() % 13);
            slot[s] = pg_heap_alloc(align, size[s]);
            if (slot[s]) {
                EXPECT((uintptr_t)slot[s] % align == 0, "alignment %zu", align);
                for (size_t i = 0; i < size[s]; i++)
                    slot[s][i] = (char)(s + i);
            }
        }
    }
    for (int s = 0; s < SLOTS; s++)
        pg_heap_free(slot[s]);
    expect_whole("after 200000 random operations");
    free(base);
    return unit_finish();
}
