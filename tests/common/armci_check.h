/* Helpers shared by the multi-process ARMCI tests (header-only), the ARMCI counterpart of
 * check.h: CHECK(cond, fmt, ...) records a failure and continues; check_finish() sums the
 * failures of every process (MPI), prints "PASS name" or "FAIL name (k failures)" on process 0
 * and returns the exit code, non-zero everywhere when any process failed. Only the ARMCI and
 * MPI interfaces are used, so a test also builds against another ARMCI's header. */
#ifndef PANGEA_TESTS_ARMCI_CHECK_H
#define PANGEA_TESTS_ARMCI_CHECK_H

/* POSIX calls (sched_yield) under -std=c11. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <armci.h>
#include <mpi.h>

#include <sched.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_MAX_REPORTS 25

static long check_failures_;

static inline int check_me_(void)
{
    int me = -1, up = 0;
    MPI_Initialized(&up);
    if (up)
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
    return me;
}

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static inline void
check_fail_(const char *file, int line, const char *cond, const char *fmt, ...)
{
    if (check_failures_++ >= CHECK_MAX_REPORTS)
        return;
    fprintf(stderr, "process %d: %s:%d: CHECK(%s) failed: ", check_me_(), file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

#define CHECK(cond, ...) ((cond) ? (void)0 : check_fail_(__FILE__, __LINE__, #cond, __VA_ARGS__))

static inline int check_report_(const char *file)
{
    long all = 0;
    MPI_Allreduce(&check_failures_, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (check_me_() == 0) {
        const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
        int len = (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base));
        if (all == 0)
            printf("PASS %.*s\n", len, base);
        else
            printf("FAIL %.*s (%ld failures)\n", len, base, all);
        fflush(stdout);
    }
    return all ? 1 : 0;
}

/* Collective; call before ARMCI_Finalize. */
#define check_finish() check_report_(__FILE__)

/* The usual end of a test whose memory is one ARMCI_Malloc block (base, from malloc):
 * free it, report, finalize ARMCI and MPI. Returns the exit code. */
static inline int test_end_(const char *file, void **base)
{
    ARMCI_Barrier();
    ARMCI_Free(base[check_me_()]);
    free(base);
    int rc = check_report_(file);
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
#define test_end(base) test_end_(__FILE__, base)

/* Guard bytes around the regions a test writes: every one must survive. */
#define TEST_GUARD_BYTE(k) ((unsigned char)(0xA5 ^ (k)))
static inline void test_fill_guard(void *buf, size_t n)
{
    for (size_t k = 0; k < n; k++)
        ((unsigned char *)buf)[k] = TEST_GUARD_BYTE(k);
}

/* The element types of the armci_msg reductions: X(suffix of the typed call, C type, ARMCI
 * type); the integer ones take the bitwise operators. */
#define TEST_MSG_INT_TYPES(X) \
    X(i, int, ARMCI_INT)      \
    X(l, long, ARMCI_LONG)    \
    X(ll, long long, ARMCI_LONG_LONG)
#define TEST_MSG_TYPES(X)    \
    TEST_MSG_INT_TYPES(X)    \
    X(f, float, ARMCI_FLOAT) \
    X(d, double, ARMCI_DOUBLE)

#endif
