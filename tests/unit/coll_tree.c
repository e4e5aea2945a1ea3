/* The broadcast tree's order by link speed (pg_coll_fast_links_first). With 8 members the
 * parent of position p is p without its highest bit: 1 heads {1, 3, 5, 7}, 2 {2, 6}, 3 {3, 7},
 * the others only themselves; so the fastest member must sit at 1, the next two at 2 and 3,
 * the rest at 4..7 in their order. Equal speeds keep every member in place; the root never
 * moves; a group whose size is not a power of two fills its largest subtrees first too. */
#define UNIT_NAME "coll_tree"
#include "unit.h"

#include "coll/coll_internal.h"

#include <stdint.h>
#include <string.h>

static void expect_order(int line, const int *got, const int *want, int n)
{
    char text[128];
    int at = 0;
    for (int i = 0; i < n; i++)
        at += snprintf(text + at, sizeof text - (size_t)at, "%s%d", i ? " " : "", got[i]);
    EXPECT(memcmp(got, want, (size_t)n * sizeof *got) == 0, "case of line %d: order %s", line,
           text);
}

int main(void)
{
    /* Members 10..17, member 10 the root; speeds by member. */
    int group[8] = {10, 11, 12, 13, 14, 15, 16, 17};
    uint32_t speed[8] = {0, 100, 400, 100, 100, 200, 100, 100};
    pg_coll_fast_links_first(group, speed, 8);
    /* 12 (400) at 1, 15 (200) at 2, then the 100s in their order. */
    expect_order(__LINE__, group, (const int[]){10, 12, 15, 11, 13, 14, 16, 17}, 8);
    EXPECT(speed[1] == 400 && speed[2] == 200 && speed[3] == 100,
           "the speeds did not follow their members");

    int same[6] = {5, 4, 3, 2, 1, 0};
    uint32_t flat[6] = {7, 7, 7, 7, 7, 7};
    pg_coll_fast_links_first(same, flat, 6);
    expect_order(__LINE__, same, (const int[]){5, 4, 3, 2, 1, 0}, 6);

    /* 5 members: 1 heads {1, 3}, the others only themselves. */
    int five[5] = {0, 1, 2, 3, 4};
    uint32_t s5[5] = {9, 1, 2, 3, 4};
    pg_coll_fast_links_first(five, s5, 5);
    expect_order(__LINE__, five, (const int[]){0, 4, 3, 2, 1}, 5);
    return unit_finish();
}
