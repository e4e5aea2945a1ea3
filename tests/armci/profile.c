/* The communication profile (PANGEA_PROFILE) of an ARMCI program, run by tests/prof/check.sh:
 * ARMCI_Put, ARMCI_PutS, ARMCI_Get, ARMCI_Acc and ARMCI_Rmw to the neighbours and process 0
 * are counted as put, get, acc and amo rows exactly like their OpenSHMEM counterparts;
 * ARMCI_Fence and ARMCI_AllFence as quiet waits, ARMCI_Barrier as a sync wait. The program
 * checks the data its calls moved and notes what it expects (tests/common/profile_expect.h). */
#include "armci_check.h"
#include "profile_expect.h"

#define PUTS 3
#define PUT_BYTES 48
#define GETS 2
#define GET_BYTES 32
#define ACCS 2
#define ACC_DOUBLES 4
#define RMWS 3
#define ROWS 4
#define ROW_BYTES 16

/* Offsets in every process's block. */
#define AT_PUT 0
#define AT_GET 256
#define AT_ACC 512
#define AT_RMW 640
#define AT_STRIDED 768
#define BLOCK 1024

static int me, nproc;

static unsigned char byte_of(int proc, int k)
{
    return (unsigned char)(proc * 37 + k * 11 + 1);
}

static void barrier(void)
{
    ARMCI_Barrier();
    prof_expect_wait(PROF_SYNC);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(nproc <= PROF_MAX_PES, "at most %d processes", PROF_MAX_PES);
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    void **base = malloc((size_t)nproc * sizeof *base);
    ARMCI_Malloc(base, BLOCK);
    unsigned char *mine = base[me];
    memset(mine, 0, BLOCK);
    for (int k = 0; k < GET_BYTES * GETS; k++)
        mine[AT_GET + k] = byte_of(me, k);
    barrier();

    unsigned char out[PUT_BYTES];
    for (int p = 0; p < PUTS; p++) {
        for (int k = 0; k < PUT_BYTES; k++)
            out[k] = byte_of(me, p * PUT_BYTES + k);
        ARMCI_Put(out, (char *)base[right] + AT_PUT + p * PUT_BYTES / PUTS, PUT_BYTES / PUTS,
                  right);
        prof_expect_op(PROF_PUT, right, PUT_BYTES / PUTS);
    }
    ARMCI_Fence(right);
    prof_expect_wait(PROF_QUIET);
    unsigned char in[GET_BYTES];
    for (int g = 0; g < GETS; g++) {
        ARMCI_Get((char *)base[left] + AT_GET + g * GET_BYTES, in, GET_BYTES, left);
        prof_expect_op(PROF_GET, left, GET_BYTES);
        for (int k = 0; k < GET_BYTES; k++)
            CHECK(in[k] == byte_of(left, g * GET_BYTES + k), "get %d byte %d", g, k);
    }
    double add[ACC_DOUBLES] = {1, 2, 3, 4}, scale = 2;
    for (int a = 0; a < ACCS; a++) {
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, add, (char *)base[right] + AT_ACC, sizeof add, right);
        prof_expect_op(PROF_ACC, right, sizeof add);
    }
    for (int r = 0; r < RMWS; r++) {
        long old;
        ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (char *)base[0] + AT_RMW, 1, 0);
        prof_expect_op(PROF_AMO, 0, sizeof(long));
    }
    unsigned char rows[ROWS][2 * ROW_BYTES];
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < 2 * ROW_BYTES; k++)
            rows[r][k] = byte_of(me, r * 100 + k);
    int src_stride = 2 * ROW_BYTES, dst_stride = ROW_BYTES, count[2] = {ROW_BYTES, ROWS};
    ARMCI_PutS(rows, &src_stride, (char *)base[right] + AT_STRIDED, &dst_stride, count, 1, right);
    prof_expect_op(PROF_PUT, right, ROW_BYTES * ROWS);
    ARMCI_AllFence();
    prof_expect_wait(PROF_QUIET);
    barrier();

    for (int k = 0; k < PUT_BYTES / PUTS; k++)
        for (int p = 0; p < PUTS; p++)
            CHECK(mine[AT_PUT + p * PUT_BYTES / PUTS + k] == byte_of(left, p * PUT_BYTES + k),
                  "put %d byte %d", p, k);
    for (int i = 0; i < ACC_DOUBLES; i++) {
        double got;
        memcpy(&got, mine + AT_ACC + i * sizeof got, sizeof got);
        CHECK(got == ACCS * scale * add[i], "acc element %d: %g", i, got);
    }
    long total;
    memcpy(&total, mine + AT_RMW, sizeof total);
    CHECK(me != 0 || total == (long)RMWS * nproc, "rmw total %ld", total);
    for (int r = 0; r < ROWS; r++)
        for (int k = 0; k < ROW_BYTES; k++)
            CHECK(mine[AT_STRIDED + r * ROW_BYTES + k] == byte_of(left, r * 100 + k),
                  "strided row %d byte %d", r, k);

    CHECK(prof_expect_write(me, nproc) == 0, "expect file");
    int rc = check_finish(); /* over MPI: not in the profile */
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
