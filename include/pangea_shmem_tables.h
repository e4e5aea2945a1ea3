/* Pangea: the OpenSHMEM 1.6 type tables as X-macros.
 *
 * Every typed OpenSHMEM family (declarations in shmem.h and pshmem.h, definitions in the
 * library) expands from these tables, so a type is added or removed in exactly one place.
 * Each entry is X(TYPE, TYPENAME) as in the specification's tables. */
#ifndef PANGEA_SHMEM_TABLES_H
#define PANGEA_SHMEM_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* T-AMO-STD: standard AMO types. */
#define PANGEA_T_AMO_STD(X)          \
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
#define PANGEA_T_AMO_EXT(X) \
    X(float, float)         \
    X(double, double)       \
    PANGEA_T_AMO_STD(X)

/* T-AMO-BIT: fetch_and/or/xor, and/or/xor. */
#define PANGEA_T_AMO_BIT(X)          \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)                \
    X(uint32_t, uint32)              \
    X(uint64_t, uint64)

/* T-P2P: every point-to-point synchronization routine, the single-variable and the
 * multi-element forms alike (§9.11 gives them all the point-to-point synchronization types;
 * the short rows are deprecated since 1.5 but required). */
#define PANGEA_T_P2P(X)       \
    X(short, short)           \
    X(unsigned short, ushort) \
    PANGEA_T_AMO_STD(X)

/* T-RMA: put, get, p, g, iput, iget, ibput, ibget, nbi, put_signal, team data collectives. */
#define PANGEA_T_RMA(X)        \
    X(float, float)            \
    X(double, double)          \
    X(long double, longdouble) \
    X(char, char)              \
    X(signed char, schar)      \
    X(short, short)            \
    X(int, int)                \
    X(long, long)              \
    X(long long, longlong)     \
    PANGEA_T_RED_BIT(X)        \
    X(ptrdiff_t, ptrdiff)

/* The distinct C base types behind T-RMA, for C11 _Generic associations (typedefs such as
 * int32_t or size_t dispatch through the base type they name). */
#define PANGEA_T_RMA_BASE(X)   \
    X(float, float)            \
    X(double, double)          \
    X(long double, longdouble) \
    X(char, char)              \
    X(signed char, schar)      \
    X(short, short)            \
    X(int, int)                \
    X(long, long)              \
    X(long long, longlong)     \
    X(unsigned char, uchar)    \
    X(unsigned short, ushort)  \
    X(unsigned int, uint)      \
    X(unsigned long, ulong)    \
    X(unsigned long long, ulonglong)

/* Base types of T-AMO-STD, T-AMO-EXT (adds float, double), T-AMO-BIT and T-P2P. T-AMO-BIT's
 * only signed rows are int32_t and int64_t, so they stand for their base types there. The rows
 * other than long are also a table of their own: in C++, shmem_wait_until(long *, int, long) is
 * the deprecated C function (§4.4), which the long overload would redeclare. */
#define PANGEA_T_AMO_STD_BASE_NOT_LONG(X) \
    X(int, int)                           \
    X(long long, longlong)                \
    X(unsigned int, uint)                 \
    X(unsigned long, ulong)               \
    X(unsigned long long, ulonglong)
#define PANGEA_T_AMO_STD_BASE(X) \
    X(long, long)                \
    PANGEA_T_AMO_STD_BASE_NOT_LONG(X)
#define PANGEA_T_AMO_EXT_BASE(X) \
    X(float, float)              \
    X(double, double)            \
    PANGEA_T_AMO_STD_BASE(X)
#define PANGEA_T_AMO_BIT_BASE(X)     \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int32_t, int32)                \
    X(int64_t, int64)
#define PANGEA_T_P2P_BASE_NOT_LONG(X) \
    X(short, short)                   \
    X(unsigned short, ushort)         \
    PANGEA_T_AMO_STD_BASE_NOT_LONG(X)
#define PANGEA_T_P2P_BASE(X) \
    X(long, long)            \
    PANGEA_T_P2P_BASE_NOT_LONG(X)

/* Deprecated AMO names (no ctx form). */
#define PANGEA_T_DEP_AMO(X) \
    X(int, int)             \
    X(long, long)           \
    X(long long, longlong)
#define PANGEA_T_DEP_AMO_EXT(X) \
    X(float, float)             \
    X(double, double)           \
    PANGEA_T_DEP_AMO(X)
/* Deprecated shmem_TYPENAME_wait. */
#define PANGEA_T_DEP_WAIT(X) \
    X(short, short)          \
    X(int, int)              \
    X(long, long)            \
    X(long long, longlong)

/* SIZE families: X(bits, bytes). */
#define PANGEA_SIZES(X) \
    X(8, 1)             \
    X(16, 2)            \
    X(32, 4)            \
    X(64, 8)            \
    X(128, 16)

/* T-RED-TEAM (the corrected 1.6 table), by operator group. The complex rows need C99 complex
 * support; C++ has no _Complex, so there they are std::complex, which has the same layout (the
 * calls take the complex values through pointers only). */
#if defined(__cplusplus)
#include <complex>
#define PANGEA_T_RED_COMPLEX(X)       \
    X(std::complex<double>, complexd) \
    X(std::complex<float>, complexf)
#elif defined(__STDC_NO_COMPLEX__)
#define PANGEA_T_RED_COMPLEX(X)
#else
#define PANGEA_T_RED_COMPLEX(X)  \
    X(double _Complex, complexd) \
    X(float _Complex, complexf)
#endif
/* AND, OR, XOR: the unsigned and exact-width rows. */
#define PANGEA_T_RED_BIT(X)          \
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
/* MAX, MIN. */
#define PANGEA_T_RED_MINMAX(X) PANGEA_T_RMA(X) /* the same 24 types */
/* SUM, PROD, sum_inscan, sum_exscan. */
#define PANGEA_T_RED_ARITH(X) \
    PANGEA_T_RED_MINMAX(X)    \
    PANGEA_T_RED_COMPLEX(X)

/* Base types of T-RED-TEAM for _Generic: AND/OR/XOR have no plain signed rows, so the
 * exact-width ones stand for their base types there. */
#define PANGEA_T_RED_BIT_BASE(X)     \
    X(unsigned char, uchar)          \
    X(unsigned short, ushort)        \
    X(unsigned int, uint)            \
    X(unsigned long, ulong)          \
    X(unsigned long long, ulonglong) \
    X(int8_t, int8)                  \
    X(int16_t, int16)                \
    X(int32_t, int32)                \
    X(int64_t, int64)
#define PANGEA_T_RED_ARITH_BASE(X) \
    PANGEA_T_RMA_BASE(X)           \
    PANGEA_T_RED_COMPLEX(X)

/* T-RED-ASET: the deprecated active-set TYPENAME_OP_to_all. */
#define PANGEA_T_ASET_BIT(X) \
    X(short, short)          \
    X(int, int)              \
    X(long, long)            \
    X(long long, longlong)
#define PANGEA_T_ASET_MINMAX(X) \
    PANGEA_T_ASET_BIT(X)        \
    X(float, float)             \
    X(double, double)           \
    X(long double, longdouble)
#define PANGEA_T_ASET_ARITH(X) \
    PANGEA_T_ASET_MINMAX(X)    \
    PANGEA_T_RED_COMPLEX(X)

/* The operators of each reduction group: OPS(F, TYPE, TYPENAME) is F(TYPE, TYPENAME, op) for
 * every op of the group. */
#define PANGEA_OPS_BIT(F, TYPE, TYPENAME) \
    F(TYPE, TYPENAME, and) F(TYPE, TYPENAME, or) F(TYPE, TYPENAME, xor)
#define PANGEA_OPS_MINMAX(F, TYPE, TYPENAME) F(TYPE, TYPENAME, max) F(TYPE, TYPENAME, min)
#define PANGEA_OPS_ARITH(F, TYPE, TYPENAME) F(TYPE, TYPENAME, sum) F(TYPE, TYPENAME, prod)

/* The active-set data collectives' element sizes: X(bits, bytes). */
#define PANGEA_ASET_SIZES(X) \
    X(32, 4)                 \
    X(64, 8)

/* ---- Type-generic names ---------------------------------------------------------------------
 * The type table of each type-generic name shmem_FAM: PANGEA_GT_FAM. The C11 _Generic selections
 * of shmem.h and the C++ overloads of pangea_shmem_cxx.h both expand from it, so the two
 * interfaces take the same types. The tables are the *_BASE ones: typedefs such as int32_t or
 * size_t name one of their rows. */
/* §3.6 RMA and §3.8 put_signal: T-RMA, ctx-overloaded */
#define PANGEA_GT_put PANGEA_T_RMA_BASE
#define PANGEA_GT_p PANGEA_T_RMA_BASE
#define PANGEA_GT_iput PANGEA_T_RMA_BASE
#define PANGEA_GT_ibput PANGEA_T_RMA_BASE
#define PANGEA_GT_get PANGEA_T_RMA_BASE
#define PANGEA_GT_g PANGEA_T_RMA_BASE
#define PANGEA_GT_iget PANGEA_T_RMA_BASE
#define PANGEA_GT_ibget PANGEA_T_RMA_BASE
#define PANGEA_GT_put_nbi PANGEA_T_RMA_BASE
#define PANGEA_GT_get_nbi PANGEA_T_RMA_BASE
#define PANGEA_GT_put_signal PANGEA_T_RMA_BASE
#define PANGEA_GT_put_signal_nbi PANGEA_T_RMA_BASE
/* §3.7 AMO, blocking and nbi, ctx-overloaded */
#define PANGEA_GT_atomic_fetch PANGEA_T_AMO_EXT_BASE
#define PANGEA_GT_atomic_set PANGEA_T_AMO_EXT_BASE
#define PANGEA_GT_atomic_compare_swap PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_swap PANGEA_T_AMO_EXT_BASE
#define PANGEA_GT_atomic_fetch_inc PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_inc PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_fetch_add PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_add PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_fetch_and PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_and PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_fetch_or PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_or PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_fetch_xor PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_xor PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_fetch_nbi PANGEA_T_AMO_EXT_BASE
#define PANGEA_GT_atomic_compare_swap_nbi PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_swap_nbi PANGEA_T_AMO_EXT_BASE
#define PANGEA_GT_atomic_fetch_inc_nbi PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_fetch_add_nbi PANGEA_T_AMO_STD_BASE
#define PANGEA_GT_atomic_fetch_and_nbi PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_fetch_or_nbi PANGEA_T_AMO_BIT_BASE
#define PANGEA_GT_atomic_fetch_xor_nbi PANGEA_T_AMO_BIT_BASE
/* §3.11 Point-to-point synchronization: T-P2P */
#define PANGEA_GT_wait_until PANGEA_T_P2P_BASE
#define PANGEA_GT_test PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_all PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_any PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_some PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_all_vector PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_any_vector PANGEA_T_P2P_BASE
#define PANGEA_GT_wait_until_some_vector PANGEA_T_P2P_BASE
#define PANGEA_GT_test_all PANGEA_T_P2P_BASE
#define PANGEA_GT_test_any PANGEA_T_P2P_BASE
#define PANGEA_GT_test_some PANGEA_T_P2P_BASE
#define PANGEA_GT_test_all_vector PANGEA_T_P2P_BASE
#define PANGEA_GT_test_any_vector PANGEA_T_P2P_BASE
#define PANGEA_GT_test_some_vector PANGEA_T_P2P_BASE
/* §4.3 Deprecated AMO names: int, long, long long (fetch, set, swap: also float, double) */
#define PANGEA_GT_fetch PANGEA_T_DEP_AMO_EXT
#define PANGEA_GT_set PANGEA_T_DEP_AMO_EXT
#define PANGEA_GT_swap PANGEA_T_DEP_AMO_EXT
#define PANGEA_GT_cswap PANGEA_T_DEP_AMO
#define PANGEA_GT_finc PANGEA_T_DEP_AMO
#define PANGEA_GT_inc PANGEA_T_DEP_AMO
#define PANGEA_GT_fadd PANGEA_T_DEP_AMO
#define PANGEA_GT_add PANGEA_T_DEP_AMO
/* §3.10 Team collectives, dispatched on dest: T-RMA; reductions and scans by operator */
#define PANGEA_GT_alltoall PANGEA_T_RMA_BASE
#define PANGEA_GT_alltoalls PANGEA_T_RMA_BASE
#define PANGEA_GT_broadcast PANGEA_T_RMA_BASE
#define PANGEA_GT_collect PANGEA_T_RMA_BASE
#define PANGEA_GT_fcollect PANGEA_T_RMA_BASE
#define PANGEA_GT_and_reduce PANGEA_T_RED_BIT_BASE
#define PANGEA_GT_or_reduce PANGEA_T_RED_BIT_BASE
#define PANGEA_GT_xor_reduce PANGEA_T_RED_BIT_BASE
#define PANGEA_GT_max_reduce PANGEA_T_RMA_BASE
#define PANGEA_GT_min_reduce PANGEA_T_RMA_BASE
#define PANGEA_GT_sum_reduce PANGEA_T_RED_ARITH_BASE
#define PANGEA_GT_prod_reduce PANGEA_T_RED_ARITH_BASE
#define PANGEA_GT_sum_inscan PANGEA_T_RED_ARITH_BASE
#define PANGEA_GT_sum_exscan PANGEA_T_RED_ARITH_BASE

#endif
