/* The pipeline model of src/tuning on a fixed table of latencies: the buffer count, buffer
 * size, predicted time and direct-RMA threshold it must derive (worked out by hand in the
 * comments). */
#include "tuning/tuning.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>

static int failures;

#define EXPECT(cond, ...)                  \
    do {                                   \
        if (!(cond)) {                     \
            printf("FAIL tuning_model: "); \
            printf(__VA_ARGS__);           \
            printf("\n");                  \
            failures++;                    \
        }                                  \
    } while (0)

/* Copying is the slowest stage here (the wire part of transmit, transmit - ack, is smaller). */
static const struct pg_tune_sample table[] = {
    /* size, copy (strided), copy (contiguous), transmit, register */
    {16 << 10, 8, 4, 14, 20},
    {64 << 10, 32, 16, 30, 22},
    {256 << 10, 128, 64, 90, 30},
};

int main(void)
{
    struct pg_tune_input in = {table, 3, 10.0, 1 << 20, 2 << 20, 64};
    struct pg_tune_choice c;

    /* 16K: cycle 8+14+10 = 32, slowest stage max(8, 14-10) = 8: 4 buffers, and a 1 MiB
     * transfer (64 chunks) takes 32 + 63 * 8 = 536 us. 64K: cycle 72, stage 32, 3 buffers,
     * 72 + 15 * 32 = 552 us: within 3% but a larger region (192K > 64K). 256K: cycle 228,
     * stage 128, 2 buffers, 228 + 3 * 128 = 612 us. */
    EXPECT(pg_tune_buffers_for(&table[0], 10, 64, 2 << 20) == 4, "16K buffers");
    EXPECT(pg_tune_buffers_for(&table[1], 10, 64, 2 << 20) == 3, "64K buffers");
    EXPECT(pg_tune_buffers_for(&table[2], 10, 64, 2 << 20) == 2, "256K buffers");
    EXPECT(fabs(pg_tune_predict(&table[1], 10, 3, 1 << 20, 0) - 552) < 1e-9, "64K prediction");
    EXPECT(pg_tune_derive(&in, &c) == 0, "derive");
    EXPECT(c.buffer_size == 16 << 10, "buffer size %zu, want 16384", c.buffer_size);
    EXPECT(c.buffers == 4, "buffers %d, want 4", c.buffers);
    EXPECT(fabs(c.predicted_us - 536) < 1e-9, "predicted %.3f us, want 536", c.predicted_us);
    /* Contiguous through 16K x 4: cycle 4+14+10 = 28, period max(4, 28/4) = 7. At 16K the
     * pipeline takes 28 us, direct RMA 20 + (14-4) + 10 = 40; at 64K 28 + 3 * 7 = 49 against
     * 22 + 14 + 10 = 46; at 256K 133 against 66: direct from 64K on. */
    EXPECT(c.direct_threshold == 64 << 10, "threshold %zu, want 65536", c.direct_threshold);

    /* A 32K region bound: 16K fits twice (period max(8, 32/2) = 16), larger sizes not at all. */
    in.region_max = 32 << 10;
    EXPECT(pg_tune_derive(&in, &c) == 0 && c.buffer_size == 16 << 10 && c.buffers == 2 &&
               fabs(c.predicted_us - (32 + 63 * 16)) < 1e-9,
           "32K region: %zu x %d, %.3f us", c.buffer_size, c.buffers, c.predicted_us);

    /* The wire as the slowest stage: 64K with transmit 110 (wire 100): cycle 32+110+10 = 152
     * over a stage of 100 needs 2 buffers; a buffers_max of 1 caps it. */
    struct pg_tune_sample slow_wire = {64 << 10, 32, 16, 110, 22};
    EXPECT(pg_tune_buffers_for(&slow_wire, 10, 64, 2 << 20) == 2, "wire-bound buffers");
    EXPECT(pg_tune_buffers_for(&slow_wire, 10, 1, 2 << 20) == 1, "buffers_max");

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

    struct pg_tune_input empty = {table, 0, 10.0, 1 << 20, 2 << 20, 64};
    EXPECT(pg_tune_derive(&empty, &c) == -1, "no samples");
    printf("%s tuning_model\n", failures ? "FAIL" : "PASS");
    return failures != 0;
}
