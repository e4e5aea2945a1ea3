/* CRC32C (Castagnoli, the iSCSI/ext4 checksum): the SSE4.2 crc32 instruction where the CPU has
 * it (asked once, at run time), else slicing-by-8 tables, which give the same values. */
#include "runtime.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

#define CRC32C_POLY 0x82f63b78u /* reflected */

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
        table[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t i = 0; i < 256; i++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
}

uint32_t pg_crc32c_tables(uint32_t crc, const void *buf, size_t len)
{
    pthread_once(&table_once, make_table);
    const unsigned char *p = buf;
    uint32_t c = ~crc;
    for (; len && ((uintptr_t)p & 7); len--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= c; /* little-endian: the CRC meets the first four bytes */
        c = table[7][w & 0xff] ^ table[6][(w >> 8) & 0xff] ^ table[5][(w >> 16) & 0xff] ^
            table[4][(w >> 24) & 0xff] ^ table[3][(w >> 32) & 0xff] ^ table[2][(w >> 40) & 0xff] ^
            table[1][(w >> 48) & 0xff] ^ table[0][w >> 56];
    }
    while (len--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
    return ~c;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *buf,
                                                               size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    for (; len && ((uintptr_t)p & 7); len--)
        c = _mm_crc32_u8((uint32_t)c, *p++);
    for (; len >= 8; len -= 8, p += 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c = _mm_crc32_u64(c, w);
    }
    while (len--)
        c = _mm_crc32_u8((uint32_t)c, *p++);
    return ~(uint32_t)c;
}
#endif

int pg_crc32c_hardware(void)
{
#if defined(__x86_64__)
    return __builtin_cpu_supports("sse4.2");
#else
    return 0;
#endif
}

uint32_t pg_crc32c(uint32_t crc, const void *buf, size_t len)
{
#if defined(__x86_64__)
    static int hardware = -1;
    int h = __atomic_load_n(&hardware, __ATOMIC_RELAXED);
    if (h < 0) {
        h = pg_crc32c_hardware();
        __atomic_store_n(&hardware, h, __ATOMIC_RELAXED);
    }
    if (h)
        return crc32c_sse42(crc, buf, len);
#endif
    return pg_crc32c_tables(crc, buf, len);
}
