/* The type tables of the OpenSHMEM specification as X-macros, each entry X(TYPE, TYPENAME), for
 * the tests in C and in C++ (header-only). */
#ifndef PANGEA_TESTS_SPEC_TYPES_H
#define PANGEA_TESTS_SPEC_TYPES_H

#ifdef __cplusplus
#include <complex>
#endif
#include <stddef.h>
#include <stdint.h>

/* ---- Type tables of the specification (X(TYPE, TYPENAME)) ------------------------------------ */
/* Written out here from the specification on purpose, not taken from pangea_shmem_tables.h:
 * a type missing from the library's tables must fail to link here, not drop out of both. */

/* T-AMO-STD: standard AMOs. */
#define TEST_T_AMO_STD(X)            \
    X(int, int)                      \
    X(long, long)                    \
    X(long long, longlong)           \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)              \
    X(size_t, size)                  \
    X(ptrdiff_t, ptrdiff)

/* T-AMO-EXT: fetch, set, swap. */
#define TEST_T_AMO_EXT(X) \
    X(float, float)       \
    X(double, double)     \
    TEST_T_AMO_STD(X)

/* T-AMO-BIT: and, or, xor. */
#define TEST_T_AMO_BIT(X)            \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)

/* T-P2P: every point-to-point synchronization routine, single-variable and multi-element
 * (short and unsigned short have no AMOs). */
#define TEST_T_P2P(X)         \
    X(short, short)           \
    X(unsigned short, ushort) \
    TEST_T_AMO_STD(X)

/* T-RMA: put, get, p, g, iput, iget, ibput, ibget, nbi, put_signal. */
#define TEST_T_RMA(X)          \
    X(float, float)            \
    X(double, double)          \
    X(long double, longdouble) \
    X(char, char)              \
    X(signed char, schar)      \
    X(short, short)            \
    X(int, int)                \
    X(long, long)              \
    X(long long, longlong)     \
    TEST_T_RED_BIT(X)          \
    X(ptrdiff_t, ptrdiff)

/* The SIZE of the putSIZE/getSIZE families, in bits. */
#define TEST_SIZES(X) X(8) X(16) X(32) X(64) X(128)

/* The complex rows of the SUM/PROD reductions: C99 complex in C, std::complex (the same layout)
 * in C++. */
#ifdef __cplusplus
#define TEST_T_COMPLEX(X)             \
    X(std::complex<double>, complexd) \
    X(std::complex<float>, complexf)
#else
#define TEST_T_COMPLEX(X)        \
    X(double _Complex, complexd) \
    X(float _Complex, complexf)
#endif

/* T-RED-TEAM by operator: AND/OR/XOR, MAX/MIN, SUM/PROD (and the scans). */
#define TEST_T_RED_BIT(X)            \
    X(unsigned char, uchar)          \
    X(unsigned short, ushort)        \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int8_t, int8)                  \
    X(int16_t, int16)                \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint8_t, uint8)                \
    X(uint16_t, uint16)              \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)              \
    X(size_t, size)
#define TEST_T_RED_MINMAX(X) TEST_T_RMA(X) /* the same 24 types */
#define TEST_T_RED_ARITH(X) \
    TEST_T_RED_MINMAX(X)    \
    TEST_T_COMPLEX(X)

/* T-RED-ASET: the deprecated active-set TYPENAME_OP_to_all. */
#define TEST_T_ASET_BIT(X) \
    X(short, short)        \
    X(int, int)            \
    X(long, long)          \
    X(long long, longlong)
#define TEST_T_ASET_MINMAX(X) \
    TEST_T_ASET_BIT(X)        \
    X(float, float)           \
    X(double, double)         \
    X(long double, longdouble)
#define TEST_T_ASET_ARITH(X) \
    TEST_T_ASET_MINMAX(X)    \
    TEST_T_COMPLEX(X)

/* The deprecated AMO names and their C11 generics (§4.3). */
#define TEST_T_DEP_AMO(X) \
    X(int, int)           \
    X(long, long)         \
    X(long long, longlong)
#define TEST_T_DEP_AMO_EXT(X) \
    X(float, float)           \
    X(double, double)         \
    TEST_T_DEP_AMO(X)

#endif /* PANGEA_TESTS_SPEC_TYPES_H */
