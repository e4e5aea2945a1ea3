/* Helpers shared by the single-process unit tests (tests/unit, header-only). A test defines
 * UNIT_NAME (its name, a string) before including this.
 * - EXPECT(cond, fmt, ...) prints "FAIL <name> line N: <message>" when cond is false, counts
 *   the failure and continues.
 * - unit_finish() prints "PASS <name>" or "FAIL <name>" and returns the exit code. */
#ifndef PANGEA_TESTS_UNIT_H
#define PANGEA_TESTS_UNIT_H

#include <stdio.h>

static int unit_failures;

#define EXPECT(cond, ...)                                     \
    do {                                                      \
        if (!(cond)) {                                        \
            printf("FAIL %s line %d: ", UNIT_NAME, __LINE__); \
            printf(__VA_ARGS__);                              \
            printf("\n");                                     \
            unit_failures++;                                  \
        }                                                     \
    } while (0)

static inline int unit_finish(void)
{
    printf("%s %s\n", unit_failures ? "FAIL" : "PASS", UNIT_NAME);
    return unit_failures != 0;
}

#endif
