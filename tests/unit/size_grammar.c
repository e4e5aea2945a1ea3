/* The SHMEM_SYMMETRIC_SIZE grammar (spec §8): good values and rejected ones. */
#include "runtime/runtime.h"

#include <stdio.h>

static int failures;

static void expect(const char *text, int ok, size_t bytes)
{
    size_t got = 0;
    int status = pg_parse_size(text, &got);
    if ((status == 0) != ok || (ok && got != bytes)) {
        printf("FAIL size_grammar: '%s' gave status %d value %zu, expected %s %zu\n", text, status,
               got, ok ? "ok" : "rejected", bytes);
        failures++;
    }
}

int main(void)
{
    expect("0", 1, 0);
    expect("4096", 1, 4096);
    expect("20k", 1, 20480);
    expect("20K", 1, 20480);
    expect("20kk", 1, 20480);
    expect("20m", 1, 20971520);
    expect("3.1M", 1, 3250586);
    expect(".5m", 1, 524288);
    expect("0.5m", 1, 524288);
    expect("1g", 1, (size_t)1 << 30);
    expect("2T", 1, (size_t)2 << 40);
    expect("7.", 1, 7);
    expect("1.5", 1, 2);
    expect("", 0, 0);
    expect("m", 0, 0);
    expect(".", 0, 0);
    expect("1e6", 0, 0);
    expect("-5", 0, 0);
    expect("12x", 0, 0);
    expect("abc", 0, 0);
    printf("%s size_grammar\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
