/* The pipeline model of src/tuning on a fixed table of latencies: the buffer count, buffer
 * size, predicted time and direct-RMA threshold it must derive (worked out by hand in the
 * comments). */
#define UNIT_NAME "tuning_model"
#include "unit.h"

#include "tuning/tuning.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

/* Per-message costs make a chunk alone slower than a chunk of a stream: transmit (alone) is
 * larger than what the stream adds per chunk beyond the copy. */
static const struct pg_tune_sample table[] = {
    /* size, copy (strided), copy (contiguous), transmit, stream, register */
    {16 << 10, 8, 4, 14, 10, 40},
    {64 << 10, 32, 16, 30, 34, 22},
    {256 << 10, 128, 64, 90, 130, 30},
};

int main(void)
{
    struct pg_tune_input in = {table, 3, 10.0, 1 << 20, 2 << 20, 64};
    struct pg_tune_choice c;

    /* 16K: cycle 8+14+10 = 32 over a stream period of 10 needs 4 buffers, one more makes 5,
     * and a 1 MiB transfer (64 chunks) takes 32 + 63 * max(10, 32/5) = 662 us. 64K: cycle 72,
     * period 34: 3 + 1 buffers, 72 + 15 * max(34, 18) = 582 us. 256K: cycle 228, period 130:
     * 2 + 1 buffers, 228 + 3 * max(130, 76) = 618 us, more than 3% slower than 64K. */
    EXPECT(pg_tune_buffers_for(&table[0], 10, 64, 2 << 20) == 5, "16K buffers");
    EXPECT(pg_tune_buffers_for(&table[1], 10, 64, 2 << 20) == 4, "64K buffers");
    EXPECT(pg_tune_buffers_for(&table[2], 10, 64, 2 << 20) == 3, "256K buffers");
    EXPECT(fabs(pg_tune_predict(&table[0], 10, 5, 1 << 20, 0) - 662) < 1e-9, "16K prediction");
    EXPECT(fabs(pg_tune_predict(&table[2], 10, 3, 1 << 20, 0) - 618) < 1e-9, "256K prediction");
    EXPECT(pg_tune_derive(&in, &c) == 0, "derive");
    EXPECT(c.buffer_size == 64 << 10, "buffer size %zu, want 65536", c.buffer_size);
    EXPECT(c.buffers == 4, "buffers %d, want 4", c.buffers);
    EXPECT(fabs(c.predicted_us - 582) < 1e-9, "predicted %.3f us, want 582", c.predicted_us);
    /* Fewer buffers than the cycle needs: the credits set the pace, 72/2 = 36 per chunk. */
    EXPECT(fabs(pg_tune_predict(&table[1], 10, 2, 1 << 20, 0) - (72 + 15 * 36)) < 1e-9,
           "64K x 2 prediction");
    /* Contiguous through 64K x 4: cycle 16+30+10 = 56; the stream saves the copy difference,
     * 34 - (32-16) = 18 per chunk (4 credits would allow one per 14). At 16K the pipeline
     * takes 56 us, direct RMA 40 + (14-4) + 10 = 60; at 64K 56 against 22 + 14 + 10 = 46; at
     * 256K 56 + 3 * 18 = 110 against 30 + 26 + 10 = 66: direct from 64K on. */
    EXPECT(c.direct_threshold == 64 << 10, "threshold %zu, want 65536", c.direct_threshold);

    /* A 32K region bound: 16K fits twice (period max(10, 32/2) = 16), larger sizes not at all. */
    in.region_max = 32 << 10;
    EXPECT(pg_tune_derive(&in, &c) == 0 && c.buffer_size == 16 << 10 && c.buffers == 2 &&
               fabs(c.predicted_us - (32 + 63 * 16)) < 1e-9,
           "32K region: %zu x %d, %.3f us", c.buffer_size, c.buffers, c.predicted_us);

    /* A slow wire: 64K with a stream period of 100: cycle 32+110+10 = 152 needs 2 buffers, and
     * one more; a buffers_max of 1 caps it. */
    struct pg_tune_sample slow_wire = {64 << 10, 32, 16, 110, 100, 22};
    EXPECT(pg_tune_buffers_for(&slow_wire, 10, 64, 2 << 20) == 3, "wire-bound buffers");
    EXPECT(pg_tune_buffers_for(&slow_wire, 10, 1, 2 << 20) == 1, "buffers_max");

    /* A contiguous stream never goes faster than its copy: 64K with a stream of 20 would save
     * 16 and reach 4, below the contiguous copy of 16. */
    struct pg_tune_sample copy_bound = {64 << 10, 32, 16, 30, 20, 22};
    EXPECT(fabs(pg_tune_predict(&copy_bound, 10, 64, 4 * (64 << 10), 1) - (56 + 3 * 16)) < 1e-9,
           "contiguous period bounded by the copy");

    /* Registration dearer than any copy: direct RMA never pays. */
    struct pg_tune_sample dear[3];
    for (int i = 0; i < 3; i++) {
        dear[i] = table[i];
        dear[i].register_us = 1000;
    }
    struct pg_tune_input dear_in = {dear, 3, 10.0, 1 << 20, 2 << 20, 64};
    EXPECT(pg_tune_derive(&dear_in, &c) == 0 && c.direct_threshold == SIZE_MAX, "no threshold: %zu",
           c.direct_threshold);

    /* Measured crossovers: direct wins from 64K on; a win at 16K alone does not count. */
    const size_t sizes[] = {16 << 10, 64 << 10, 256 << 10, 1 << 20};
    const double pipeline[] = {30, 60, 200, 700}, direct[] = {25, 59, 120, 400},
                 never[] = {31, 61, 201, 701};
    EXPECT(pg_tune_crossover(sizes, pipeline, pipeline, 4) == SIZE_MAX, "equal: no crossover");
    double late[] = {25, 70, 120, 400};
    EXPECT(pg_tune_crossover(sizes, pipeline, late, 4) == 256 << 10, "crossover after a loss");
    EXPECT(pg_tune_crossover(sizes, pipeline, direct, 4) == 16 << 10, "crossover everywhere");
    EXPECT(pg_tune_crossover(sizes, pipeline, never, 4) == SIZE_MAX, "never");

    double odd[] = {5, 1, 3}, even[] = {4, 1, 3, 2};
    EXPECT(pg_tune_median(odd, 3) == 3, "median of 3");
    EXPECT(pg_tune_median(even, 4) == 2.5, "median of 4");
    EXPECT(isnan(pg_tune_median(odd, 0)), "median of none");

    struct pg_tune_input empty = {table, 0, 10.0, 1 << 20, 2 << 20, 64};
    EXPECT(pg_tune_derive(&empty, &c) == -1, "no samples");
    return unit_finish();
}
