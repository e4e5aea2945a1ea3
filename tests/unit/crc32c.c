/* CRC32C: the published check values (RFC 3720 B.4 and the catalogue's "123456789"), the
 * CPU-instruction path against the table path on every length and alignment up to 300 bytes,
 * around the lengths where it runs three streams (12 KiB blocks) and on a large random buffer, and
 * a checksum carried across pieces equal to the one of the whole. */
#define UNIT_NAME "crc32c"
#include "unit.h"

#include "runtime/runtime.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    unsigned char buf[4096];
    EXPECT(pg_crc32c(0, "123456789", 9) == 0xe3069283u, "check value 0x%08x",
           pg_crc32c(0, "123456789", 9));
    EXPECT(pg_crc32c_tables(0, "123456789", 9) == 0xe3069283u, "table check value 0x%08x",
           pg_crc32c_tables(0, "123456789", 9));
    memset(buf, 0, 32);
    EXPECT(pg_crc32c(0, buf, 32) == 0x8a9136aau, "32 zero bytes: 0x%08x", pg_crc32c(0, buf, 32));
    memset(buf, 0xff, 32);
    EXPECT(pg_crc32c(0, buf, 32) == 0x62a8ab43u, "32 0xff bytes: 0x%08x", pg_crc32c(0, buf, 32));
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char)i;
    EXPECT(pg_crc32c(0, buf, 32) == 0x46dd794eu, "0..31: 0x%08x", pg_crc32c(0, buf, 32));

    srand(7);
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)rand();
    int differ = 0;
    for (size_t at = 0; at < 8; at++)
        for (size_t len = 0; len <= 300; len++)
            differ += pg_crc32c(0, buf + at, len) != pg_crc32c_tables(0, buf + at, len);
    EXPECT(differ == 0, "%d (alignment, length) pairs differ between the two paths", differ);

    size_t big = (size_t)8 << 20;
    unsigned char *large = malloc(big);
    for (size_t i = 0; i < big; i++)
        large[i] = (unsigned char)(i * 2654435761u >> 13);
    uint32_t whole = pg_crc32c(0, large, big);
    EXPECT(whole == pg_crc32c_tables(0, large, big), "8 MiB: the two paths differ");
    differ = 0;
    for (size_t at = 0; at < 8; at++)
        for (size_t blocks = 1; blocks <= 3; blocks++)
            for (size_t len = blocks * 12288 - 9; len <= blocks * 12288 + 17; len++)
                differ += pg_crc32c(0, large + at, len) != pg_crc32c_tables(0, large + at, len);
    EXPECT(differ == 0, "%d (alignment, length) pairs of 1-3 blocks of three streams differ",
           differ);
    uint32_t pieces = 0;
    for (size_t at = 0; at < big; at += 12345)
        pieces = pg_crc32c(pieces, large + at, big - at < 12345 ? big - at : 12345);
    EXPECT(pieces == whole, "8 MiB in pieces 0x%08x, whole 0x%08x", pieces, whole);
    large[big / 3] ^= 1;
    EXPECT(pg_crc32c(0, large, big) != whole, "one bit changed, the same checksum");
    free(large);
    printf("crc32c: %s path\n", pg_crc32c_hardware() ? "SSE4.2 instruction" : "table");
    return unit_finish();
}
