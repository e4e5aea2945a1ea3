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

/* Longer than the library's 32 KiB of scratch, so they go in pieces: a sum of 10,000 doubles,
 * a max of 5,000 long longs, an armci_msg_reduce of 9,000 ints to process 0 (the others keep
 * their contributions), a 100,000-byte armci_msg_bcast with a guard byte after it, and 50
 * rounds of ARMCI_AllFence + armci_msg_barrier after each process put the round number in its
 * slot on process 0 (GA_Sync's pattern). */
static void long_vectors(void)
{
    enum { NSUM = 10000, NMAX = 5000, NRED = 9000, NBCAST = 100000, ROUNDS = 50 };
    double *sum = malloc(NSUM * sizeof *sum);
    long long *max = malloc(NMAX * sizeof *max);
    int *red = malloc(NRED * sizeof *red);
    unsigned char *bytes = malloc(NBCAST + 1);
    for (int i = 0; i < NSUM; i++)
        sum[i] = me + i * 0.5;
    for (int i = 0; i < NMAX; i++)
        max[i] = i % nproc == me ? (long long)i * 1000 : -(long long)i;
    for (int i = 0; i < NRED; i++)
        red[i] = me + i;
    int root = nproc - 1;
    for (int i = 0; i <= NBCAST; i++)
        bytes[i] = me == root ? (unsigned char)(i * 7 + root) : 0xee;
    armci_msg_dgop(sum, NSUM, "+");
    armci_msg_llgop(max, NMAX, "max");
    armci_msg_reduce(red, NRED, "+", ARMCI_INT);
    armci_msg_bcast(bytes, NBCAST, root);
    int bad_sum = 0, bad_max = 0, bad_red = 0, bad_bytes = 0;
    for (int i = 0; i < NSUM; i++)
        bad_sum += sum[i] != nproc * (nproc - 1) / 2.0 + nproc * i * 0.5;
    for (int i = 0; i < NMAX; i++)
        bad_max += max[i] != (nproc > 1 || i % nproc == 0 ? (long long)i * 1000 : -(long long)i);
    for (int i = 0; i < NRED; i++)
        bad_red += red[i] != (me == 0 ? nproc * i + nproc * (nproc - 1) / 2 : me + i);
    for (int i = 0; i < NBCAST; i++)
        bad_bytes += bytes[i] != (unsigned char)(i * 7 + root);
    CHECK(!bad_sum, "dgop \"+\" of %d: %d wrong elements", NSUM, bad_sum);
    CHECK(!bad_max, "llgop \"max\" of %d: %d wrong elements", NMAX, bad_max);
    CHECK(!bad_red, "reduce \"+\" of %d to process 0: %d wrong elements", NRED, bad_red);
    CHECK(!bad_bytes, "bcast of %d bytes: %d wrong bytes", NBCAST, bad_bytes);
    CHECK(bytes[NBCAST] == (me == root ? (unsigned char)(NBCAST * 7 + root) : 0xee),
          "bcast wrote past its %d bytes", NBCAST);
    void **slots = malloc(nproc * sizeof *slots);
    ARMCI_Malloc(slots, me == 0 ? nproc * sizeof(int) : 0);
    int late = 0;
    for (int round = 1; round <= ROUNDS; round++) {
        ARMCI_Put(&round, (int *)slots[0] + me, sizeof round, 0);
        ARMCI_AllFence();
        armci_msg_barrier();
        if (me == 0)
            for (int p = 0; p < nproc; p++)
                late += ((volatile int *)slots[0])[p] != round;
        armci_msg_barrier();
    }
    CHECK(!late, "%d slots not yet written after ARMCI_AllFence + armci_msg_barrier", late);
    ARMCI_Free(slots[me]);
    free(slots);
    free(sum);
    free(max);
    free(red);
    free(bytes);
}

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
    long_vectors();
    int rc = check_finish();
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
