/* Contiguous transfers and memory: ARMCI_Malloc with a different size on every process (0
 * on some), Put/Get/Acc of every size class to every process, value puts and gets, Copy,
 * Malloc_local, Put_flag, Access_begin/end, Fence/AllFence/Barrier. Every byte of every
 * destination region and its guards is checked. */
#include "armci_check.h"

#define REGION 4096

static int me, nproc;

static unsigned char pattern(int from, int to, size_t k)
{
    return (unsigned char)(from * 31 + to * 7 + k * 13 + 1);
}

static void sizes_and_zero(void)
{
    /* Process p allocates p*100 bytes: process 0 gets nothing and passes NULL to ARMCI_Free. */
    void **ptrs = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(ptrs, (armci_size_t)me * 100);
    for (int p = 0; p < nproc; p++)
        CHECK((ptrs[p] == NULL) == (p == 0), "ptr_arr[%d] = %p for %d bytes", p, ptrs[p], p * 100);
    if (me > 0)
        memset(ptrs[me], me, (size_t)me * 100);
    ARMCI_Barrier();
    for (int p = 1; p < nproc; p++) {
        unsigned char last;
        ARMCI_Get((char *)ptrs[p] + p * 100 - 1, &last, 1, p);
        CHECK(last == (unsigned char)p, "last byte of process %d's block is %d", p, last);
    }
    ARMCI_Free(ptrs[me]);

    /* Everybody 0 bytes. */
    ARMCI_Malloc(ptrs, 0);
    for (int p = 0; p < nproc; p++)
        CHECK(ptrs[p] == NULL, "0-byte allocation gave %p for process %d", ptrs[p], p);
    ARMCI_Free(ptrs[me]);
    free(ptrs);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK(ARMCI_Initialized(), "ARMCI_Initialized is 0 after ARMCI_Init");

    sizes_and_zero();

    /* One region per source process in every process's block, guarded on both sides. */
    size_t block = (size_t)nproc * (REGION + 64) + 64;
    void **base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)block);
    ARMCI_Access_begin(base[me]);
    test_fill_guard(base[me], block);
    ARMCI_Access_end(base[me]);
    ARMCI_Barrier();

    unsigned char *src = ARMCI_Malloc_local(REGION);
    unsigned char *back = malloc(REGION);
    CHECK(src != NULL, "ARMCI_Malloc_local returned NULL");
    static const int sizes[] = {1, 2, 3, 4, 7, 8, 16, 17, 64, 255, 1024, REGION};
    size_t offset = 64 + (size_t)me * (REGION + 64);
    for (int t = 0; t < nproc; t++) {
        int to = (me + t) % nproc;
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int n = sizes[s];
            for (int k = 0; k < n; k++)
                src[k] = pattern(me, to, (size_t)k + s);
            ARMCI_Put(src, (char *)base[to] + offset, n, to);
            memset(back, 0, REGION);
            ARMCI_Get((char *)base[to] + offset, back, n, to);
            for (int k = 0; k < n; k++)
                CHECK(back[k] == pattern(me, to, (size_t)k + s), "to %d size %d byte %d: %d", to, n,
                      k, back[k]);
        }
        ARMCI_Fence(to);
    }
    ARMCI_AllFence();
    ARMCI_Barrier();
    /* My block: each writer's region holds its last (REGION-byte) pattern, guards intact. */
    unsigned char *mine = base[me];
    for (int from = 0; from < nproc; from++) {
        size_t at = 64 + (size_t)from * (REGION + 64);
        size_t last = sizeof sizes / sizeof sizes[0] - 1;
        for (size_t k = 0; k < REGION; k++)
            if (mine[at + k] != pattern(from, me, k + last)) {
                CHECK(0, "region of %d byte %zu: %d", from, k, mine[at + k]);
                break;
            }
        for (size_t k = at - 64; k < at; k++)
            CHECK(mine[k] == TEST_GUARD_BYTE(k), "guard byte %zu before region of %d", k, from);
    }
    for (size_t k = 64 + (size_t)nproc * (REGION + 64) - 64; k < block; k++)
        CHECK(mine[k] == TEST_GUARD_BYTE(k), "guard byte %zu at the end", k);
    ARMCI_Barrier();

    /* Values, to the right neighbour. */
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    char *slot = (char *)base[right];
    ARMCI_PutValueInt(1000 + me, slot, right);
    ARMCI_PutValueLong(2000L + me, slot + 8, right);
    ARMCI_PutValueFloat(0.5f + me, slot + 16, right);
    ARMCI_PutValueDouble(0.25 + me, slot + 24, right);
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_NbPutValueInt(3000 + me, slot + 32, right, &h);
    ARMCI_Wait(&h);
    ARMCI_NbPutValueLong(4000L + me, slot + 40, right, NULL);
    ARMCI_NbPutValueFloat(1.5f + me, slot + 48, right, NULL);
    ARMCI_NbPutValueDouble(2.5 + me, slot + 56, right, NULL);
    ARMCI_Barrier();
    char *at_left = (char *)base[me];
    CHECK(ARMCI_GetValueInt(at_left, me) == 1000 + left, "int value");
    CHECK(ARMCI_GetValueLong(at_left + 8, me) == 2000L + left, "long value");
    CHECK(ARMCI_GetValueFloat(at_left + 16, me) == 0.5f + left, "float value");
    CHECK(ARMCI_GetValueDouble(at_left + 24, me) == 0.25 + left, "double value");
    CHECK(ARMCI_GetValueInt(slot + 32, right) == 3000 + me, "nb int value");
    CHECK(ARMCI_GetValueLong(slot + 40, right) == 4000L + me, "nb long value");
    CHECK(ARMCI_GetValueFloat(slot + 48, right) == 1.5f + me, "nb float value");
    CHECK(ARMCI_GetValueDouble(slot + 56, right) == 2.5 + me, "nb double value");
    ARMCI_Barrier();

    /* Put_flag: the data is there when the flag is. */
    int *flag = (int *)((char *)base[right] + 128);
    ARMCI_PutValueInt(0, (char *)base[me] + 128, me);
    ARMCI_Barrier();
    for (int k = 0; k < 1024; k++)
        src[k] = pattern(me, right, (size_t)k);
    ARMCI_Put_flag(src, (char *)base[right] + 256, 1024, flag, 7, right);
    volatile int *my_flag = (int *)((char *)base[me] + 128);
    while (*my_flag != 7)
        sched_yield();
    for (int k = 0; k < 1024; k++)
        CHECK(((unsigned char *)base[me])[256 + k] == pattern(left, me, (size_t)k),
              "Put_flag byte %d", k);

    /* Copy, local. */
    ARMCI_Copy(src, back, 100);
    CHECK(memcmp(src, back, 100) == 0, "ARMCI_Copy");

    ARMCI_Free_local(src);
    free(back);
    return test_end(base);
}
