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
/* a * b modulo the polynomial, in the reflected order (bit 31 is x^0). */
static uint32_t multiply_mod_poly(uint32_t a, uint32_t b)
{
    uint32_t product = 0;
    for (uint32_t bit = 1u << 31; bit; bit >>= 1) {
        if (a & bit)
            product ^= b;
        b = b & 1 ? (b >> 1) ^ CRC32C_POLY : b >> 1;
    }
    return product;
}

/* x^(8 * bytes) modulo the polynomial: multiplying a CRC register by it advances the register
 * over that many zero bytes. */
static uint32_t shift_by_bytes(size_t bytes)
{
    uint32_t result = 1u << 31, power = 1u << 23; /* x^0, x^8 */
    for (; bytes; bytes >>= 1, power = multiply_mod_poly(power, power))
        if (bytes & 1)
            result = multiply_mod_poly(result, power);
    return result;
}

/* The instruction takes 3 cycles and can start every cycle: three independent streams over
 * consecutive strides keep it busy, and their registers are combined by shifting the first two
 * over the strides after them (crc(A B C) = crc(A) x^(16S) + crc(B) x^(8S) + crc(C)). The
 * product by a fixed shift is linear in the register: four table lookups, one per byte. */
#define STREAM_STRIDE ((size_t)4096)
static uint32_t shift_table[2][4][256]; /* [strides - 1][byte of the register][its value] */
static pthread_once_t shift_once = PTHREAD_ONCE_INIT;

static void make_shift_table(void)
{
    for (int s = 0; s < 2; s++) {
        uint32_t shift = shift_by_bytes((size_t)(s + 1) * STREAM_STRIDE);
        for (int byte = 0; byte < 4; byte++)
            for (uint32_t v = 0; v < 256; v++)
                shift_table[s][byte][v] = multiply_mod_poly(v << (8 * byte), shift);
    }
}

static uint32_t shift_strides(uint32_t reg, int strides)
{
    const uint32_t(*t)[256] = shift_table[strides - 1];
    return t[0][reg & 0xff] ^ t[1][(reg >> 8) & 0xff] ^ t[2][(reg >> 16) & 0xff] ^ t[3][reg >> 24];
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *buf,
                                                               size_t len)
{
    const unsigned char *p = buf;
    uint64_t c = ~crc;
    for (; len && ((uintptr_t)p & 7); len--)
        c = _mm_crc32_u8((uint32_t)c, *p++);
    if (len >= 3 * STREAM_STRIDE)
        pthread_once(&shift_once, make_shift_table);
    for (; len >= 3 * STREAM_STRIDE; len -= 3 * STREAM_STRIDE, p += 3 * STREAM_STRIDE) {
        uint64_t b = 0, d = 0;
        for (size_t i = 0; i < STREAM_STRIDE; i += 8) {
            uint64_t w0, w1, w2;
            memcpy(&w0, p + i, 8);
            memcpy(&w1, p + STREAM_STRIDE + i, 8);
            memcpy(&w2, p + 2 * STREAM_STRIDE + i, 8);
            c = _mm_crc32_u64(c, w0);
            b = _mm_crc32_u64(b, w1);
            d = _mm_crc32_u64(d, w2);
        }
        c = shift_strides((uint32_t)c, 2) ^ shift_strides((uint32_t)b, 1) ^ (uint32_t)d;
    }
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
