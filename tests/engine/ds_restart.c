/* pg_pipe_restart: the pipeline reopened with other settings (buffer count and size) inside one
 * job keeps moving every byte right. Per setting, each PE puts a 2-D strided pattern into the
 * next PE (guard bytes around and between rows checked), gets it back strided, puts and gets
 * it contiguously, and every PE accumulates into PE 0's counters (exact totals). On one node the
 * restart does nothing and the transfers are load/store. */
#include "check.h"
#include "pipeline/pipeline.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"

#define ROW 1000
#define GAP 24
#define ROWS 300
#define GUARD 0x5A
#define COUNTERS 4096

static unsigned char value(int pe, size_t i, int round)
{
    return (unsigned char)(pe * 29 + i * 13 + round * 7 + 1);
}

static void round_trip(unsigned char *region, long *counters, int round)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int target = (me + 1) % npes, source = (me + npes - 1) % npes;
    size_t bytes = (size_t)ROW * ROWS, span = (size_t)(ROW + GAP) * ROWS;
    unsigned char *local = malloc(bytes), *back = malloc(bytes);
    long *ones = malloc(COUNTERS * sizeof *ones);
    for (size_t i = 0; i < bytes; i++)
        local[i] = value(me, i, round);
    for (size_t i = 0; i < COUNTERS; i++)
        ones[i] = (long)i + me;
    memset(region, GUARD, span + 64);
    if (me == 0)
        memset(counters, 0, COUNTERS * sizeof *counters);
    shmem_barrier_all();

    /* Remote side: rows of ROW bytes every ROW + GAP, from byte 32; local side packed. */
    struct pg_strided shape = {.levels = 1, .count = {ROW, ROWS}};
    shape.dst_stride[0] = ROW + GAP;
    shape.src_stride[0] = ROW;
    pg_put_strided(SHMEM_CTX_DEFAULT, region + 32, local, &shape, target);
    struct pg_strided whole = {.levels = 1, .count = {COUNTERS * sizeof(long), 1}};
    whole.dst_stride[0] = whole.src_stride[0] = (ptrdiff_t)(COUNTERS * sizeof(long));
    long scale = 2;
    pg_acc_strided(SHMEM_CTX_DEFAULT, PG_ACC_LONG, &scale, counters, ones, &whole, 0);
    pg_quiet(SHMEM_CTX_DEFAULT);
    shmem_barrier_all();

    size_t bad = 0;
    for (size_t at = 0; at < span + 64; at++) {
        size_t rel = at - 32, row = rel / (ROW + GAP), col = rel % (ROW + GAP);
        int inside = at >= 32 && row < ROWS && col < ROW;
        unsigned char want = inside ? value(source, row * ROW + col, round) : GUARD;
        bad += region[at] != want;
    }
    CHECK(bad == 0, "round %d: %zu wrong bytes from PE %d", round, bad, source);

    struct pg_strided reverse = shape;
    reverse.src_stride[0] = ROW + GAP;
    reverse.dst_stride[0] = ROW;
    memset(back, 0, bytes);
    pg_get_strided(SHMEM_CTX_DEFAULT, back, region + 32, &reverse, target);
    CHECK(memcmp(back, local, bytes) == 0, "round %d: strided get from PE %d", round, target);

    /* Contiguous, large enough for direct RMA (the default threshold is 64K), once every PE
     * has checked its region. */
    shmem_barrier_all();
    memset(back, 0, bytes);
    pg_put(SHMEM_CTX_DEFAULT, region + 32, local, bytes, target);
    pg_quiet(SHMEM_CTX_DEFAULT);
    pg_get(SHMEM_CTX_DEFAULT, back, region + 32, bytes, target);
    CHECK(memcmp(back, local, bytes) == 0, "round %d: contiguous put+get with PE %d", round,
          target);

    if (me == 0) {
        size_t wrong = 0;
        for (size_t i = 0; i < COUNTERS; i++)
            wrong += counters[i] != 2 * ((long)i * npes + (long)npes * (npes - 1) / 2);
        CHECK(wrong == 0, "round %d: %zu wrong accumulate totals", round, wrong);
    }
    shmem_barrier_all();
    free(local);
    free(back);
    free(ones);
}

int main(void)
{
    shmem_init();
    unsigned char *region = shmem_malloc((size_t)(ROW + GAP) * ROWS + 64);
    long *counters = shmem_malloc(COUNTERS * sizeof *counters);
    static const struct {
        long long buffers, size;
    } settings[] = {{16, 65536}, {2, 4096}, {1, 256}, {8, 16384}, {1, 256}};
    round_trip(region, counters, 0);
    for (int i = 0; i < (int)(sizeof settings / sizeof settings[0]); i++) {
        pg_cfg.pipeline_buffers = settings[i].buffers;
        pg_cfg.pipeline_buffer_size = settings[i].size;
        CHECK(pg_pipe_restart() == 0, "pg_pipe_restart with %lld x %lld", settings[i].buffers,
              settings[i].size);
        round_trip(region, counters, i + 1);
    }
    shmem_free(counters);
    shmem_free(region);
    int status = check_finish();
    shmem_finalize();
    return status;
}
