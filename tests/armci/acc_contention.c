/* Accumulate under contention, for all six types: every process adds scale * src into the
 * same elements of every process's block (everybody starts with process 0), ROUNDS times,
 * rotating through Acc, AccS (2 levels), AccV and their Nb forms. Values are small integers
 * (exact in float), so every total is exact: any lost or torn update shows. Complex types use
 * a complex scale (2 + 1i). */
#include "armci_check.h"

#define N 96 /* elements per type: 6 rows of 16 */
#define ROWS 6
#define ROUNDS 12

static int me, nproc;

/* X(ARMCI type, C component type, components per element) */
#define ACC_TYPES(X)            \
    X(ARMCI_ACC_INT, int, 1)    \
    X(ARMCI_ACC_LNG, long, 1)   \
    X(ARMCI_ACC_FLT, float, 1)  \
    X(ARMCI_ACC_DBL, double, 1) \
    X(ARMCI_ACC_CPL, float, 2)  \
    X(ARMCI_ACC_DCP, double, 2)

static double src_component(int from, int e, int c)
{
    return (double)((from + e) % 5 + 1 + c); /* 1..6 */
}

/* What one accumulate from `from` adds to component c of element e. */
static double added(int from, int e, int c, int ncomp)
{
    double a = src_component(from, e, 0);
    if (ncomp == 1)
        return 3.0 * a; /* scale 3 */
    double b = src_component(from, e, 1);
    return c == 0 ? 2.0 * a - 1.0 * b : 2.0 * b + 1.0 * a; /* (2 + 1i) (a + bi) */
}

#define DEFINE_RUN(ACC, C, NCOMP)                                                               \
    static void run_##ACC(void)                                                                 \
    {                                                                                           \
        const int esize = (int)sizeof(C) * NCOMP, row = N / ROWS * esize;                       \
        void **base = malloc(nproc * sizeof(void *));                                           \
        ARMCI_Malloc(base, (armci_size_t)(N * esize));                                          \
        memset(base[me], 0, (size_t)(N * esize));                                               \
        C src[N * NCOMP], scale[2] = {NCOMP == 1 ? (C)3 : (C)2, (C)1};                          \
        for (int e = 0; e < N; e++)                                                             \
            for (int c = 0; c < NCOMP; c++)                                                     \
                src[e * NCOMP + c] = (C)src_component(me, e, c);                                \
        ARMCI_Barrier();                                                                        \
        for (int r = 0; r < ROUNDS; r++) {                                                      \
            for (int t = 0; t < nproc; t++) {                                                   \
                armci_hdl_t h;                                                                  \
                ARMCI_INIT_HANDLE(&h);                                                          \
                char *dst = base[t];                                                            \
                int stride[2] = {row, 2 * row}, count[3] = {row, 2, ROWS / 2};                  \
                void *sp[ROWS], *dp[ROWS];                                                      \
                armci_giov_t v = {sp, dp, row, ROWS};                                           \
                for (int i = 0; i < ROWS; i++) {                                                \
                    sp[i] = (char *)src + i * row;                                              \
                    dp[i] = dst + i * row;                                                      \
                }                                                                               \
                switch (r % 6) {                                                                \
                case 0:                                                                         \
                    ARMCI_Acc(ACC, scale, src, dst, N *esize, t);                               \
                    break;                                                                      \
                case 1:                                                                         \
                    ARMCI_AccS(ACC, scale, src, stride, dst, stride, count, 2, t);              \
                    break;                                                                      \
                case 2:                                                                         \
                    ARMCI_AccV(ACC, scale, &v, 1, t);                                           \
                    break;                                                                      \
                case 3:                                                                         \
                    ARMCI_NbAcc(ACC, scale, src, dst, N *esize, t, &h);                         \
                    break;                                                                      \
                case 4:                                                                         \
                    ARMCI_NbAccS(ACC, scale, src, stride, dst, stride, count, 2, t, &h);        \
                    break;                                                                      \
                default:                                                                        \
                    ARMCI_NbAccV(ACC, scale, &v, 1, t, &h);                                     \
                }                                                                               \
                ARMCI_Wait(&h);                                                                 \
            }                                                                                   \
        }                                                                                       \
        ARMCI_Barrier();                                                                        \
        C *mine = base[me];                                                                     \
        for (int e = 0; e < N; e++)                                                             \
            for (int c = 0; c < NCOMP; c++) {                                                   \
                double want = 0;                                                                \
                for (int p = 0; p < nproc; p++)                                                 \
                    want += ROUNDS * added(p, e, c, NCOMP);                                     \
                CHECK(mine[e * NCOMP + c] == (C)want, #ACC " element %d.%d: %g, want %g", e, c, \
                      (double)mine[e * NCOMP + c], want);                                       \
            }                                                                                   \
        ARMCI_Barrier();                                                                        \
        ARMCI_Free(base[me]);                                                                   \
        free(base);                                                                             \
    }
ACC_TYPES(DEFINE_RUN)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
#define CALL_RUN(ACC, C, NCOMP) run_##ACC();
    ACC_TYPES(CALL_RUN)
    int rc = check_finish();
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
