/* armci_msg_{i,l,ll,f,d}gop and armci_msg_gop_scope with every operator Global Arrays passes
 * (GA hands the program's GA_Igop/GA_Dgop string on unchanged; the list is that of GA's own
 * ARMCI and ComEx message layers): "+", "*", "max", "min", "absmax", "absmin", the logical "or",
 * "and", "||", "lor", "&&", "land", and the bitwise "|", "bor", "&", "band" (integer types; a
 * float or double stops the job, see armci/bad_input). Every result is exact.
 *
 * Contributions of process p: the arithmetic operators reduce (-1)^p (p + 1); the logical ones
 * {p, p + 1, 0, 2 << (p % 2)} (a zero on process 0; non-zeros without a common bit, so a
 * bitwise result would differ); the bitwise ones {(1 << p) | 0x100, -1, 0x30 | p % 2}. */
#include "armci_check.h"

#include <message.h>

static int me, nproc;

static const char *const arith_ops[] = {"+", "*", "max", "min", "absmax", "absmin"};
static const char *const logical_ops[] = {"or", "||", "lor", "and", "&&", "land"};
static const char *const bitwise_ops[] = {"|", "bor", "&", "band"};

static double arith_value(int p)
{
    return (p % 2 ? -1.0 : 1.0) * (p + 1);
}

static double arith_expected(const char *op)
{
    double r = arith_value(0);
    int absolute = !strncmp(op, "abs", 3);
    if (absolute)
        r = r < 0 ? -r : r;
    for (int p = 1; p < nproc; p++) {
        double x = arith_value(p);
        if (absolute)
            x = x < 0 ? -x : x;
        if (!strcmp(op, "+"))
            r += x;
        else if (!strcmp(op, "*"))
            r *= x;
        else if (!strcmp(op, "max") || !strcmp(op, "absmax"))
            r = x > r ? x : r;
        else
            r = x < r ? x : r;
    }
    return r;
}

/* Logical results for the four elements. */
static void logical_expected(const char *op, double want[4])
{
    int is_or = op[0] == 'o' || op[0] == '|' || op[1] == 'o';
    want[0] = is_or ? nproc > 1 : 0;
    want[1] = 1;
    want[2] = 0;
    want[3] = 1;
}

#define LOGICAL_VALUES(T, x) T x[4] = {(T)me, (T)(me + 1), 0, (T)(2 << (me % 2))}
#define BITWISE_VALUES(T, x) T x[3] = {(T)((1 << me) | 0x100), (T)-1, (T)(0x30 | (me % 2))}

#define TEST_ARITH_LOGICAL(sfx, T, TYPE)                                                        \
    static void ops_##sfx(void)                                                                 \
    {                                                                                           \
        for (size_t k = 0; k < sizeof arith_ops / sizeof *arith_ops; k++) {                     \
            const char *op = arith_ops[k];                                                      \
            T x[2] = {(T)arith_value(me), (T)arith_value(me)};                                  \
            T y = (T)arith_value(me);                                                           \
            armci_msg_##sfx##gop(x, 2, (char *)op);                                             \
            armci_msg_gop_scope(SCOPE_ALL, &y, 1, (char *)op, TYPE);                            \
            CHECK(x[0] == (T)arith_expected(op) && x[1] == x[0] && y == x[0],                   \
                  #sfx "gop \"%s\": %g, %g, scope %g; want %g", op, (double)x[0], (double)x[1], \
                  (double)y, arith_expected(op));                                               \
        }                                                                                       \
        for (size_t k = 0; k < sizeof logical_ops / sizeof *logical_ops; k++) {                 \
            const char *op = logical_ops[k];                                                    \
            double want[4];                                                                     \
            LOGICAL_VALUES(T, x);                                                               \
            LOGICAL_VALUES(T, y);                                                               \
            logical_expected(op, want);                                                         \
            armci_msg_##sfx##gop(x, 4, (char *)op);                                             \
            armci_msg_gop_scope(SCOPE_ALL, y, 4, (char *)op, TYPE);                             \
            for (int i = 0; i < 4; i++)                                                         \
                CHECK(x[i] == (T)want[i] && y[i] == x[i],                                       \
                      #sfx "gop \"%s\" element %d: %g, scope %g; want %g", op, i, (double)x[i], \
                      (double)y[i], want[i]);                                                   \
        }                                                                                       \
    }
TEST_MSG_TYPES(TEST_ARITH_LOGICAL)

#define TEST_BITWISE(sfx, T, TYPE)                                                          \
    static void bitwise_##sfx(void)                                                         \
    {                                                                                       \
        T all = (T)(((T)1 << nproc) - 1);                                                   \
        for (size_t k = 0; k < sizeof bitwise_ops / sizeof *bitwise_ops; k++) {             \
            const char *op = bitwise_ops[k];                                                \
            int is_or = op[0] == '|' || op[1] == 'o';                                       \
            T want[3] = {is_or ? (T)(all | 0x100) : (T)(nproc == 1 ? 0x101 : 0x100), (T)-1, \
                         is_or ? (T)(nproc > 1 ? 0x31 : 0x30) : (T)0x30};                   \
            BITWISE_VALUES(T, x);                                                           \
            BITWISE_VALUES(T, y);                                                           \
            armci_msg_##sfx##gop(x, 3, (char *)op);                                         \
            armci_msg_gop_scope(SCOPE_ALL, y, 3, (char *)op, TYPE);                         \
            for (int i = 0; i < 3; i++)                                                     \
                CHECK(x[i] == want[i] && y[i] == x[i],                                      \
                      #sfx "gop \"%s\" element %d: %#llx, scope %#llx; want %#llx", op, i,  \
                      (unsigned long long)x[i], (unsigned long long)y[i],                   \
                      (unsigned long long)want[i]);                                         \
        }                                                                                   \
    }
TEST_MSG_INT_TYPES(TEST_BITWISE)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
#define RUN_OPS(sfx, T, TYPE) ops_##sfx();
    TEST_MSG_TYPES(RUN_OPS)
#define RUN_BITWISE(sfx, T, TYPE) bitwise_##sfx();
    TEST_MSG_INT_TYPES(RUN_BITWISE)
    int rc = check_finish();
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
