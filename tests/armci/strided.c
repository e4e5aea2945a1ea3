/* Strided and vector transfers: PutS/GetS/AccS (and their Nb forms with handles) at 0 to 8
 * stride levels, with source and destination shapes that differ (padded strides on one side,
 * dense on the other), to every process. Every destination region lies between guard bytes;
 * afterwards every element must hold what its shape maps to it and every byte that no element
 * maps to must be untouched. Then PutV/GetV/AccV and their Nb forms, handle calls (Wait, Test,
 * WaitProc, WaitAll, aggregate handles), and armci_write_strided/armci_read_strided. */
#include "armci_check.h"

#define MAX_LEVELS 8
#define GUARD 64

static int me, nproc;
static void **base;  /* every process's block */
static size_t block; /* bytes of one block */

/* A shape: count[0] bytes (a multiple of 8: doubles), count[1..levels]; strides of the dense
 * side and of the padded side. */
struct shape {
    int levels;
    int count[MAX_LEVELS + 1];
    int dense[MAX_LEVELS], padded[MAX_LEVELS];
    size_t dense_extent, padded_extent, elems;
};

static void make_shape(struct shape *s, int levels)
{
    s->levels = levels;
    s->count[0] = 16; /* two doubles */
    s->elems = 2;
    int d = s->count[0], p = s->count[0] + 8;
    for (int l = 1; l <= levels; l++) {
        s->count[l] = levels > 4 ? 2 : 3;
        s->dense[l - 1] = d;
        s->padded[l - 1] = p;
        d *= s->count[l];
        p = p * s->count[l] + 8 * l; /* uneven padding at every level */
        s->elems *= (size_t)s->count[l];
    }
    s->dense_extent = (size_t)d;
    s->padded_extent = s->count[0];
    for (int l = 0; l < levels; l++)
        s->padded_extent += (size_t)s->padded[l] * (s->count[l + 1] - 1);
}

/* Byte offset of element e (in dense order) on a side with these strides. */
static size_t offset_of(const struct shape *s, const int *stride, size_t e)
{
    size_t per_piece = (size_t)s->count[0] / 8;
    size_t off = (e % per_piece) * 8, piece = e / per_piece;
    for (int l = 1; l <= s->levels; l++) {
        off += (piece % (size_t)s->count[l]) * (size_t)stride[l - 1];
        piece /= (size_t)s->count[l];
    }
    return off;
}

static double value(int from, int to, size_t e, int salt)
{
    return (double)(from * 100000 + to * 1000 + (int)e) + salt * 0.5;
}

/* Checks the padded region at offset `at` of my block (guarded): element e holds want(e), every
 * other byte of [at - GUARD, at + extent + GUARD) its guard byte. */
static void check_region(const char *what, int levels, size_t at, const struct shape *s,
                         double (*want)(size_t, void *), void *arg)
{
    const unsigned char *region = (const unsigned char *)base[me] + at;
    size_t span = s->padded_extent + 2 * GUARD;
    unsigned char *covered = calloc(span, 1);
    for (size_t e = 0; e < s->elems; e++) {
        size_t off = offset_of(s, s->padded, e);
        double got;
        memcpy(&got, region + off, 8);
        CHECK(got == want(e, arg), "%s levels %d element %zu: %g, want %g", what, levels, e, got,
              want(e, arg));
        memset(covered + GUARD + off, 1, 8);
    }
    const unsigned char *start = region - GUARD;
    for (size_t k = 0; k < span; k++)
        if (!covered[k] && start[k] != TEST_GUARD_BYTE(at - GUARD + k)) {
            CHECK(0, "%s levels %d: guard byte %zu of the region was overwritten", what, levels, k);
            break;
        }
    free(covered);
}

struct from_to {
    int from, to, salt;
    double scale;
};

static double want_acc(size_t e, void *arg)
{
    struct from_to *ft = arg;
    return value(ft->from, ft->to, e, ft->salt) + ft->scale * (double)(e + 1);
}

/* Where process `from` writes in process `to`'s block for this level (guard on both sides). */
static size_t slot(int from, const struct shape *largest)
{
    return GUARD + (size_t)from * (largest->padded_extent + 2 * GUARD);
}

static void strided_levels(void)
{
    struct shape largest;
    make_shape(&largest, MAX_LEVELS);
    for (int levels = 0; levels <= MAX_LEVELS; levels++) {
        struct shape s;
        make_shape(&s, levels);
        double *dense = malloc(s.dense_extent);
        for (int t = 0; t < nproc; t++) {
            int to = (me + t) % nproc;
            char *region = (char *)base[to] + slot(me, &largest);
            /* Put dense -> padded, blocking or not. */
            for (size_t e = 0; e < s.elems; e++)
                dense[e] = value(me, to, e, levels);
            armci_hdl_t h;
            ARMCI_INIT_HANDLE(&h);
            if (levels % 2)
                ARMCI_NbPutS(dense, s.dense, region, s.padded, s.count, levels, to, &h);
            else
                ARMCI_PutS(dense, s.dense, region, s.padded, s.count, levels, to);
            ARMCI_Wait(&h);
            /* Accumulate scale * (e+1) on top. */
            double scale = 2.0, *ones = malloc(s.dense_extent);
            for (size_t e = 0; e < s.elems; e++)
                ones[e] = (double)(e + 1);
            if (levels % 2)
                ARMCI_NbAccS(ARMCI_ACC_DBL, &scale, ones, s.dense, region, s.padded, s.count,
                             levels, to, NULL);
            else
                ARMCI_AccS(ARMCI_ACC_DBL, &scale, ones, s.dense, region, s.padded, s.count, levels,
                           to);
            ARMCI_Fence(to);
            /* Get padded -> dense and compare. */
            memset(dense, 0, s.dense_extent);
            if (levels % 2) {
                ARMCI_NbGetS(region, s.padded, dense, s.dense, s.count, levels, to, &h);
                CHECK(ARMCI_Test(&h) == 0, "ARMCI_Test on a completed get is not 0");
                ARMCI_Wait(&h);
            } else {
                ARMCI_GetS(region, s.padded, dense, s.dense, s.count, levels, to);
            }
            struct from_to ft = {me, to, levels, scale};
            for (size_t e = 0; e < s.elems; e++)
                CHECK(dense[e] == want_acc(e, &ft), "GetS levels %d from %d element %zu: %g",
                      levels, to, e, dense[e]);
            free(ones);
        }
        ARMCI_WaitAll();
        ARMCI_Barrier();
        /* Check my own block: every writer's padded region and the guards around it. */
        for (int from = 0; from < nproc; from++) {
            struct from_to ft = {from, me, levels, 2.0};
            check_region("PutS+AccS", levels, slot(from, &largest), &s, want_acc, &ft);
        }
        /* Reset my block's guards for the next level. */
        ARMCI_Barrier();
        test_fill_guard(base[me], block);
        ARMCI_Barrier();
        free(dense);
    }
}

/* Vectors: 5 pieces of 24 bytes scattered with gaps in the target, gathered back. */
static void vectors(void)
{
    enum { PIECES = 5, BYTES = 24 };
    int to = (me + 1) % nproc, from = (me + nproc - 1) % nproc;
    char *region = (char *)base[to] + GUARD + (size_t)me * 512;
    double src[PIECES][BYTES / 8], back[PIECES][BYTES / 8];
    void *src_ptr[PIECES], *dst_ptr[PIECES], *back_ptr[PIECES];
    for (int i = 0; i < PIECES; i++) {
        for (int k = 0; k < BYTES / 8; k++)
            src[i][k] = value(me, to, (size_t)(i * 3 + k), 9);
        src_ptr[i] = src[i];
        dst_ptr[i] = region + i * (BYTES + 40);
        back_ptr[i] = back[i];
    }
    armci_giov_t put = {src_ptr, dst_ptr, BYTES, PIECES};
    ARMCI_PutV(&put, 1, to);
    double scale = 1.0;
    armci_giov_t acc = {src_ptr, dst_ptr, BYTES, PIECES};
    armci_hdl_t h;
    ARMCI_INIT_HANDLE(&h);
    ARMCI_SET_AGGREGATE_HANDLE(&h);
    ARMCI_NbAccV(ARMCI_ACC_DBL, &scale, &acc, 1, to, &h);
    ARMCI_NbAccV(ARMCI_ACC_DBL, &scale, &acc, 1, to, &h);
    ARMCI_Wait(&h);
    ARMCI_UNSET_AGGREGATE_HANDLE(&h);
    ARMCI_AccV(ARMCI_ACC_DBL, &scale, &acc, 1, to);
    ARMCI_Fence(to);
    armci_giov_t get = {dst_ptr, back_ptr, BYTES, PIECES};
    ARMCI_NbGetV(&get, 1, to, &h);
    ARMCI_WaitProc(to);
    ARMCI_Wait(&h);
    for (int i = 0; i < PIECES; i++)
        for (int k = 0; k < BYTES / 8; k++)
            CHECK(back[i][k] == 4 * src[i][k], "GetV piece %d element %d: %g, want %g", i, k,
                  back[i][k], 4 * src[i][k]);
    ARMCI_NbPutV(&put, 1, to, NULL);
    ARMCI_GetV(&get, 1, to);
    for (int i = 0; i < PIECES; i++)
        CHECK(memcmp(back[i], src[i], BYTES) == 0, "NbPutV/GetV piece %d", i);
    ARMCI_Barrier();
    /* The gaps between my left neighbour's pieces in my block are untouched. */
    unsigned char *mine = (unsigned char *)base[me];
    size_t at = GUARD + (size_t)from * 512;
    for (size_t k = at; k < at + PIECES * (BYTES + 40); k++)
        if ((k - at) % (BYTES + 40) >= BYTES)
            CHECK(mine[k] == TEST_GUARD_BYTE(k), "vector gap byte %zu overwritten", k);
    ARMCI_Barrier();
}

/* Local pack helpers: write packs a strided region into a buffer, read unpacks it. */
static void pack_helpers(void)
{
    int stride[2] = {40, 200}, count[3] = {16, 4, 3};
    unsigned char area[600], buf[16 * 12], again[600];
    for (int k = 0; k < 600; k++)
        area[k] = (unsigned char)k;
    armci_write_strided(area, 2, stride, count, (char *)buf);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            CHECK(memcmp(buf + (j * 4 + i) * 16, area + j * 200 + i * 40, 16) == 0,
                  "armci_write_strided piece %d,%d", i, j);
    memset(again, 0, sizeof again);
    armci_read_strided(again, 2, stride, count, (char *)buf);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            CHECK(memcmp(again + j * 200 + i * 40, area + j * 200 + i * 40, 16) == 0,
                  "armci_read_strided piece %d,%d", i, j);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    struct shape largest;
    make_shape(&largest, MAX_LEVELS);
    block = slot(nproc, &largest) + GUARD;
    base = malloc(nproc * sizeof(void *));
    ARMCI_Malloc(base, (armci_size_t)block);
    test_fill_guard(base[me], block);
    ARMCI_Barrier();
    strided_levels();
    vectors();
    pack_helpers();
    return test_end(base);
}
