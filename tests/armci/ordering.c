/* Ordering, completion and mixed use.
 *
 * - Issue order: to one target (the right neighbour, and the process half-way round, which is
 *   on the other node in a two-node run) a large put, small puts over its first and last
 *   elements, an accumulate over a middle stretch, a value put then an accumulate on one
 *   element, a strided put over another stretch, then a value get and a whole get, with no
 *   fence in between: each must see the ones issued before it.
 * - Remote completion: data put or accumulated, then ARMCI_Fence(p) / ARMCI_AllFence, then an
 *   MPI message: the target finds the data in its memory when the message arrives.
 * - NbPut/NbGet contiguous with ARMCI_Wait (one handle, and an aggregate one).
 * - PutS_flag and PutS_flag_dir: the data is there when the flag is.
 * - Memory of either interface used by the other: ARMCI put/get/acc/Rmw on shmem_malloc
 *   memory (addresses exchanged with armci_exchange_address), shmem_put and shmem atomics on
 *   ARMCI_Malloc memory.
 * - armci_msg_init brings MPI up (the program does not call MPI_Init) and armci_msg_finalize
 *   takes it down; armci_sameclusnode agrees with ARMCI_Same_node and armci_domain_id. */
#include "armci_check.h"

#include <message.h>
#include <shmem.h>

#define BIG (64 * 1024) /* doubles: 512 KiB, several pipeline chunks */
#define SMALL 8
#define ACC_AT 1000
#define ACC_LEN 200
#define VALUE_AT 5000
#define STRIDED_AT 8000 /* 4 rows of 16 doubles, one row every 64 */
#define ROUNDS 6

static int me, nproc;

static void wait_int(volatile int *flag, int value)
{
    int polls = 0;
    while (*flag != value)
        if (++polls > 100)
            sched_yield();
}

/* What the region of target t holds after round r of issue_order, element k. */
static double expected(int r, size_t k)
{
    double big = 1000.0 * me + r;
    if (k < SMALL || k >= BIG - SMALL)
        return -big;
    if (k >= ACC_AT && k < ACC_AT + ACC_LEN)
        return big + 2.0 * (double)k;
    if (k == VALUE_AT)
        return 0.5 * r + 1.0;
    if (k >= STRIDED_AT && k < STRIDED_AT + 4 * 64 && (k - STRIDED_AT) % 64 < 16)
        return 7.0 * r + (double)((k - STRIDED_AT) / 64 * 16 + (k - STRIDED_AT) % 64);
    return big;
}

static void issue_order(void **base, double *big, double *back)
{
    int targets[2] = {(me + 1) % nproc, (me + nproc / 2) % nproc};
    double small[SMALL], ones[ACC_LEN], rows[4 * 16], two = 2.0, one = 1.0;
    for (int k = 0; k < ACC_LEN; k++)
        ones[k] = (double)(ACC_AT + k);
    int stride[1] = {64 * (int)sizeof(double)}, dense[1] = {16 * (int)sizeof(double)};
    int count[2] = {16 * (int)sizeof(double), 4};
    for (int i = 0; i < 2; i++) {
        int t = targets[i];
        /* Every process writes into its own slice of the target's block. */
        double *region = (double *)base[t] + (size_t)me * BIG;
        for (int r = 0; r < ROUNDS; r++) {
            for (size_t k = 0; k < BIG; k++)
                big[k] = 1000.0 * me + r;
            for (int k = 0; k < SMALL; k++)
                small[k] = -(1000.0 * me + r);
            for (int k = 0; k < 4 * 16; k++)
                rows[k] = 7.0 * r + k;
            ARMCI_Put(big, region, BIG * sizeof(double), t);
            ARMCI_Put(small, region, sizeof small, t);
            ARMCI_Put(small, region + BIG - SMALL, sizeof small, t);
            ARMCI_Acc(ARMCI_ACC_DBL, &two, ones, region + ACC_AT, sizeof ones, t);
            ARMCI_PutValueDouble(0.5 * r, region + VALUE_AT, t);
            ARMCI_Acc(ARMCI_ACC_DBL, &one, &one, region + VALUE_AT, sizeof one, t);
            ARMCI_PutS(rows, dense, region + STRIDED_AT, stride, count, 1, t);
            double v = ARMCI_GetValueDouble(region + VALUE_AT, t);
            CHECK(v == 0.5 * r + 1.0, "target %d round %d: value get %g after put and acc", t, r,
                  v);
            ARMCI_Get(region, back, BIG * sizeof(double), t);
            long wrong = 0;
            for (size_t k = 0; k < BIG; k++)
                if (back[k] != expected(r, k) && wrong++ == 0)
                    CHECK(0, "target %d round %d element %zu: %g, want %g", t, r, k, back[k],
                          expected(r, k));
            CHECK(wrong == 0, "target %d round %d: %ld elements out of order", t, r, wrong);
        }
    }
    ARMCI_Barrier();
    /* Every slice of my block holds the last round of its writer. */
    for (int i = 0; i < 2; i++) {
        int writer = i == 0 ? (me + nproc - 1) % nproc : (me + nproc - nproc / 2) % nproc;
        const double *slice = (const double *)base[me] + (size_t)writer * BIG;
        CHECK(slice[0] == -(1000.0 * writer + ROUNDS - 1) &&
                  slice[BIG / 2] == 1000.0 * writer + ROUNDS - 1,
              "my slice from process %d: %g %g", writer, slice[0], slice[BIG / 2]);
    }
    ARMCI_Barrier();
}

/* Put or accumulate, fence, then an MPI message: the data is in place when it arrives. */
static void fence_then_message(void **base)
{
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    double *mine = base[me];
    double data[SMALL], scale = 3.0;
    for (int round = 0; round < 2 * ROUNDS; round++) {
        for (int k = 0; k < SMALL; k++)
            data[k] = round * 100.0 + me + k;
        memset(mine, 0, 2 * SMALL * sizeof(double));
        ARMCI_Barrier();
        ARMCI_Put(data, base[right], sizeof data, right);
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, data, (double *)base[right] + SMALL, sizeof data, right);
        if (round % 2)
            ARMCI_Fence(right);
        else
            ARMCI_AllFence();
        if (right != me) { /* MPI_Send to oneself may wait for the matching receive */
            int token = round, len = 0;
            armci_msg_snd(77, &token, sizeof token, right);
            armci_msg_rcv(77, &token, sizeof token, &len, left);
            CHECK(len == sizeof token && token == round, "message %d (%d bytes)", token, len);
        }
        for (int k = 0; k < SMALL; k++) {
            double want = round * 100.0 + left + k;
            CHECK(mine[k] == want, "round %d: put element %d is %g, want %g", round, k, mine[k],
                  want);
            CHECK(mine[SMALL + k] == 3.0 * want, "round %d: accumulated element %d is %g, want %g",
                  round, k, mine[SMALL + k], 3.0 * want);
        }
        ARMCI_Barrier();
    }
}

/* NbPut/NbGet with one handle each and with an aggregate handle, then ARMCI_Wait. */
static void nonblocking(void **base, double *big, double *back)
{
    int t = (me + nproc / 2) % nproc;
    double *region = (double *)base[t] + (size_t)me * BIG;
    for (size_t k = 0; k < BIG; k++)
        big[k] = me + 0.25 * (double)k;
    armci_hdl_t h, agg;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPut(big, region, BIG * sizeof(double), t, &h);
    CHECK(ARMCI_Wait(&h) == 0, "ARMCI_Wait after NbPut");
    ARMCI_INIT_HANDLE(&h);
    memset(back, 0, BIG * sizeof(double));
    ARMCI_NbGet(region, back, BIG * sizeof(double), t, &h);
    ARMCI_Wait(&h);
    CHECK(memcmp(back, big, BIG * sizeof(double)) == 0, "NbGet after NbPut to %d", t);

    ARMCI_INIT_HANDLE(&agg);
    ARMCI_SET_AGGREGATE_HANDLE(&agg);
    for (int piece = 0; piece < 4; piece++)
        ARMCI_NbPut(big + piece * 100, region + BIG / 2 + piece * 100, 100 * sizeof(double), t,
                    &agg);
    memset(back, 0, 400 * sizeof(double));
    for (int piece = 0; piece < 4; piece++)
        ARMCI_NbGet(region + BIG / 2 + piece * 100, back + piece * 100, 100 * sizeof(double), t,
                    &agg);
    ARMCI_Wait(&agg);
    ARMCI_UNSET_AGGREGATE_HANDLE(&agg);
    CHECK(memcmp(back, big, 400 * sizeof(double)) == 0, "aggregate handle NbPut/NbGet to %d", t);
    ARMCI_Barrier();
}

/* PutS_flag and PutS_flag_dir to the right neighbour: when the flag shows, so does the data. */
static void strided_flags(void **base)
{
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    char *mine = base[me];
    volatile int *flag = (int *)mine;
    int stride[1] = {256}, dense[1] = {64}, count[2] = {64, 8};
    unsigned char rows[8 * 64];
    for (int form = 0; form < 2; form++) {
        *flag = 0;
        memset(mine + 1024, 0, 8 * 256);
        ARMCI_Barrier();
        for (int k = 0; k < 8 * 64; k++)
            rows[k] = (unsigned char)(me * 13 + form * 7 + k);
        if (form == 0)
            ARMCI_PutS_flag(rows, dense, (char *)base[right] + 1024, stride, count, 1,
                            (int *)base[right], 5, right);
        else
            ARMCI_PutS_flag_dir(rows, dense, (char *)base[right] + 1024, stride, count, 1,
                                (int *)base[right], 6, right);
        wait_int(flag, 5 + form);
        long wrong = 0;
        for (int row = 0; row < 8; row++)
            for (int k = 0; k < 256; k++) {
                unsigned char want =
                    k < 64 ? (unsigned char)(left * 13 + form * 7 + row * 64 + k) : 0;
                wrong += (unsigned char)mine[1024 + row * 256 + k] != want;
            }
        CHECK(wrong == 0, "%s: %ld bytes wrong when the flag showed",
              form ? "PutS_flag_dir" : "PutS_flag", wrong);
        ARMCI_Barrier();
    }
}

/* shmem_malloc memory through ARMCI, ARMCI_Malloc memory through OpenSHMEM. */
static void either_allocator(void **base)
{
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    long *sym = shmem_calloc(16, sizeof(long));
    void **sym_of = malloc(nproc * sizeof(void *));
    sym_of[me] = sym;
    armci_exchange_address(sym_of, nproc);
    shmem_barrier_all();
    long data[4] = {me, me + 1L, me + 2L, me + 3L}, scale = 10, got[4] = {0};
    ARMCI_Put(data, sym_of[right], sizeof data, right);
    ARMCI_Acc(ARMCI_ACC_LNG, &scale, data, (long *)sym_of[right] + 4, sizeof data, right);
    long old = -1;
    ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, (long *)sym_of[0] + 8, 1, 0);
    ARMCI_Get(sym_of[right], got, sizeof got, right);
    CHECK(memcmp(got, data, sizeof got) == 0, "ARMCI put/get on shmem_malloc memory");
    ARMCI_Barrier();
    for (int k = 0; k < 4; k++)
        CHECK(sym[k] == left + k && sym[4 + k] == 10L * (left + k),
              "shmem_malloc memory element %d: %ld and %ld", k, sym[k], sym[4 + k]);
    if (me == 0)
        CHECK(sym[8] == nproc, "ARMCI_Rmw counter in shmem_malloc memory: %ld", sym[8]);

    /* base[me] is symmetric: ARMCI_Malloc over the world allocates from the symmetric heap. */
    long *armci_mem = base[me];
    armci_mem[0] = 0;
    ARMCI_Barrier();
    shmem_long_put(armci_mem + 1, data, 4, right);
    shmem_long_atomic_add(armci_mem, me + 1, 0);
    shmem_barrier_all();
    for (int k = 0; k < 4; k++)
        CHECK(armci_mem[1 + k] == left + k, "shmem_put into ARMCI memory element %d: %ld", k,
              armci_mem[1 + k]);
    if (me == 0)
        CHECK(armci_mem[0] == (long)nproc * (nproc + 1) / 2,
              "shmem atomic counter in ARMCI memory: %ld", armci_mem[0]);
    ARMCI_Barrier();
    free(sym_of);
    shmem_free(sym);
}

int main(int argc, char **argv)
{
    armci_msg_init(&argc, &argv);
    int up = 0;
    MPI_Initialized(&up);
    if (!up) {
        fprintf(stderr, "armci_msg_init did not initialize MPI\n");
        return 1;
    }
    ARMCI_Init();
    shmem_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    for (int p = 0; p < nproc; p++)
        CHECK(armci_sameclusnode(p) == ARMCI_Same_node(p) &&
                  ARMCI_Same_node(p) == (armci_domain_id(ARMCI_DOMAIN_SMP, p) ==
                                         armci_domain_my_id(ARMCI_DOMAIN_SMP)),
              "armci_sameclusnode(%d)", p);

    void **base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)nproc * BIG * sizeof(double));
    double *big = ARMCI_Malloc_local(BIG * sizeof(double));
    double *back = ARMCI_Malloc_local(BIG * sizeof(double));
    issue_order(base, big, back);
    fence_then_message(base);
    nonblocking(base, big, back);
    strided_flags(base);
    either_allocator(base);

    ARMCI_Free_local(back);
    ARMCI_Free_local(big);
    ARMCI_Free(base[me]);
    free(base);
    int rc = check_finish();
    shmem_finalize();
    ARMCI_Finalize();
    armci_msg_finalize();
    return rc;
}
