/* The engine's strided, vector and accumulate transfers, on one node and across nodes (the
 * pipeline: packed chunks, streamed gets, carved send blocks). Every byte of each target
 * region and the guard bytes around it are checked; accumulate totals are exact. Run with a
 * small PANGEA_PIPELINE_BUFFER_SIZE to make every transfer span many chunks. */
#include "check.h"
#include "onesided/onesided.h"
#include "startup/startup.h"

#include <complex.h>
#include <shmem.h>
#include <stdlib.h>
#include <string.h>

#define REGION 65536
#define GUARD 0xA5

static unsigned char pattern(int pe, size_t i, int round)
{
    return (unsigned char)(pe * 31 + i * 7 + round * 13 + 1);
}

/* A shape of `levels` levels: pieces of `piece` bytes, 2 or 3 per level, the remote side
 * with gaps between pieces and between blocks, the local side packed. */
static void make_shape(struct pg_strided *s, int levels, size_t piece)
{
    memset(s, 0, sizeof *s);
    s->levels = levels;
    s->count[0] = piece;
    ptrdiff_t remote = (ptrdiff_t)piece + 5, local = (ptrdiff_t)piece;
    for (int l = 0; l < levels; l++) {
        s->count[l + 1] = l % 2 ? 2 : 3;
        s->dst_stride[l] = remote;
        s->src_stride[l] = local;
        remote = remote * (ptrdiff_t)s->count[l + 1] + 3;
        local *= (ptrdiff_t)s->count[l + 1];
    }
}

static size_t shape_bytes(const struct pg_strided *s)
{
    size_t n = s->count[0];
    for (int l = 1; l <= s->levels; l++)
        n *= s->count[l];
    return n;
}

/* Marks in `inside` every byte the shape covers on its remote (dst) side. */
static void mark(const struct pg_strided *s, unsigned char *inside, size_t piece_index_bytes)
{
    size_t pieces = shape_bytes(s) / s->count[0];
    for (size_t p = 0; p < pieces; p++) {
        size_t rest = p, at = 0;
        for (int l = 0; l < s->levels; l++) {
            at += (rest % s->count[l + 1]) * (size_t)s->dst_stride[l];
            rest /= s->count[l + 1];
        }
        for (size_t b = 0; b < s->count[0]; b++)
            inside[at + b] = 1;
    }
    (void)piece_index_bytes;
}

static void test_strided(unsigned char *region, int me, int npes)
{
    int target = (me + 1) % npes, source = (me + npes - 1) % npes;
    unsigned char *local = malloc(REGION), *back = malloc(REGION), *inside = malloc(REGION);
    for (int levels = 0; levels <= PG_MAX_STRIDE; levels++) {
        for (size_t piece = 1; piece <= 40; piece += 13) {
            struct pg_strided s;
            make_shape(&s, levels, piece);
            size_t n = shape_bytes(&s);
            memset(region, GUARD, REGION);
            for (size_t i = 0; i < n; i++)
                local[i] = pattern(me, i, levels);
            shmem_barrier_all();
            pg_put_strided(SHMEM_CTX_DEFAULT, region + 8, local, &s, target);
            pg_quiet(SHMEM_CTX_DEFAULT);
            shmem_barrier_all();
            /* My region was written by `source`: check every byte, guards included. */
            memset(inside, 0, REGION);
            mark(&s, inside + 8, 0);
            size_t k = 0;
            for (size_t i = 0; i < REGION; i++) {
                unsigned char want = inside[i] ? pattern(source, k++, levels) : GUARD;
                CHECK(region[i] == want, "levels %d piece %zu: byte %zu is %#x, expected %#x",
                      levels, piece, i, region[i], want);
            }
            /* The same shape read back from the target lands packed. */
            memset(back, GUARD, REGION);
            struct pg_strided g = s;
            for (int l = 0; l < levels; l++) {
                g.src_stride[l] = s.dst_stride[l];
                g.dst_stride[l] = s.src_stride[l];
            }
            pg_get_strided(SHMEM_CTX_DEFAULT, back, region + 8, &g, target);
            for (size_t i = 0; i < n; i++)
                CHECK(back[i] == pattern(me, i, levels), "levels %d piece %zu: got %#x at %zu",
                      levels, piece, back[i], i);
            CHECK(back[n] == GUARD, "levels %d: get wrote past its %zu bytes", levels, n);
            shmem_barrier_all();
        }
    }
    free(local);
    free(back);
    free(inside);
}

#define PIECES 300
#define PIECE 12

static void test_vector(unsigned char *region, int me, int npes)
{
    int target = (me + 1) % npes, source = (me + npes - 1) % npes;
    unsigned char src[PIECES][PIECE], dst[PIECES][PIECE];
    void *srcs[PIECES], *dsts[PIECES];
    memset(region, GUARD, REGION);
    shmem_barrier_all();
    for (int i = 0; i < PIECES; i++) {
        for (int b = 0; b < PIECE; b++)
            src[i][b] = pattern(me, (size_t)(i * PIECE + b), 99);
        srcs[i] = src[i];
        dsts[i] = region + (size_t)((i * 37) % PIECES) * (PIECE + 4);
    }
    struct pg_iovec put = {srcs, dsts, PIECES, PIECE};
    pg_put_vector(SHMEM_CTX_DEFAULT, &put, target);
    pg_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    for (int slot = 0; slot < PIECES; slot++) {
        int i = 0;
        while ((i * 37) % PIECES != slot)
            i++;
        unsigned char *at = region + (size_t)slot * (PIECE + 4);
        for (int b = 0; b < PIECE; b++)
            CHECK(at[b] == pattern(source, (size_t)(i * PIECE + b), 99),
                  "vector put: slot %d byte %d", slot, b);
        for (int b = PIECE; b < PIECE + 4; b++)
            CHECK(at[b] == GUARD, "vector put: guard after slot %d overwritten", slot);
    }
    memset(dst, 0, sizeof dst);
    for (int i = 0; i < PIECES; i++) {
        srcs[i] = dsts[i];
        dsts[i] = dst[i];
    }
    struct pg_iovec get = {srcs, dsts, PIECES, PIECE};
    pg_get_vector(SHMEM_CTX_DEFAULT, &get, target);
    CHECK(memcmp(dst, src, sizeof src) == 0, "vector get did not return what was put");
    shmem_barrier_all();
}

#define ACC_ELEMS 1000

/* Every PE adds scale * (its PE + 1) * (i + 1) to element i of PE 0's arrays, ROUNDS times,
 * half strided (every element through a 2-level shape) and half by vectors. */
#define ROUNDS 3
static void test_acc(int me, int npes)
{
    int *ai = shmem_calloc(ACC_ELEMS, sizeof(int));
    long *al = shmem_calloc(ACC_ELEMS, sizeof(long));
    float *af = shmem_calloc(ACC_ELEMS, sizeof(float));
    double *ad = shmem_calloc(ACC_ELEMS, sizeof(double));
    float complex *ac = shmem_calloc(ACC_ELEMS, sizeof(float complex));
    double complex *az = shmem_calloc(ACC_ELEMS, sizeof(double complex));
    void *arrays[] = {ai, al, af, ad, ac, az};
    shmem_barrier_all();
    char src[ACC_ELEMS * 16];
    for (int type = 0; type <= PG_ACC_LAST; type++) {
        size_t size = pg_acc_type_size((enum pg_acc_type)type);
        for (int i = 0; i < ACC_ELEMS; i++) {
            double v = (double)((me + 1) * (i + 1));
            int iv = (int)v;
            long lv = (long)v;
            float fv = (float)v;
            float complex cv = fv + fv * I;
            double complex zv = v - v * I;
            const void *vals[] = {&iv, &lv, &fv, &v, &cv, &zv};
            memcpy(src + (size_t)i * size, vals[type], size);
        }
        int is = 2;
        long ls = 2;
        float fs = 2;
        double ds = 2;
        float complex cs = 2;
        double complex zs = 2;
        const void *scales[] = {&is, &ls, &fs, &ds, &cs, &zs};
        for (int r = 0; r < ROUNDS; r++) {
            /* Strided: 2 levels, 10 x 10 blocks of 10 elements. */
            struct pg_strided s = {.levels = 2,
                                   .count = {10 * size, 10, 10},
                                   .src_stride = {(ptrdiff_t)(10 * size), (ptrdiff_t)(100 * size)},
                                   .dst_stride = {(ptrdiff_t)(10 * size), (ptrdiff_t)(100 * size)}};
            pg_acc_strided(SHMEM_CTX_DEFAULT, (enum pg_acc_type)type, scales[type], arrays[type],
                           src, &s, 0);
            /* Vector: every element on its own. */
            void *from[ACC_ELEMS], *to[ACC_ELEMS];
            for (int i = 0; i < ACC_ELEMS; i++) {
                from[i] = src + (size_t)i * size;
                to[i] = (char *)arrays[type] + (size_t)i * size;
            }
            struct pg_iovec v = {from, to, ACC_ELEMS, size};
            pg_acc_vector(SHMEM_CTX_DEFAULT, (enum pg_acc_type)type, scales[type], &v, 0);
        }
    }
    pg_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();
    if (me == 0) {
        long pes_sum = (long)npes * (npes + 1) / 2;
        for (int i = 0; i < ACC_ELEMS; i++) {
            long want = 2L * 2 * ROUNDS * pes_sum * (i + 1); /* scale 2, strided + vector */
            CHECK(ai[i] == want, "int total [%d] = %d, expected %ld", i, ai[i], want);
            CHECK(al[i] == want, "long total [%d] = %ld, expected %ld", i, al[i], want);
            CHECK(af[i] == (float)want, "float total [%d] = %g", i, af[i]);
            CHECK(ad[i] == (double)want, "double total [%d] = %g", i, ad[i]);
            CHECK(crealf(ac[i]) == (float)want && cimagf(ac[i]) == (float)want,
                  "complex total [%d] = %g%+gi", i, crealf(ac[i]), cimagf(ac[i]));
            CHECK(creal(az[i]) == (double)want && cimag(az[i]) == -(double)want,
                  "double complex total [%d] = %g%+gi", i, creal(az[i]), cimag(az[i]));
        }
    }
    shmem_barrier_all();
    for (int t = 0; t <= PG_ACC_LAST; t++)
        shmem_free(arrays[t]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned char *region = shmem_malloc(REGION);
    test_strided(region, me, npes);
    test_vector(region, me, npes);
    test_acc(me, npes);
    shmem_free(region);
    return check_finish();
}
