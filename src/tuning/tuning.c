/* The pipeline model (see tuning.h). */
#include "tuning.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Microseconds per chunk in a stream. The stream was measured with strided data, gathered
 * at the client and scattered at the server; contiguous data is copied faster at both ends,
 * which can save at most the difference on the slowest stage. */
static double stream_period(const struct pg_tune_sample *s, int contiguous)
{
    if (!contiguous)
        return s->stream_us;
    double period = s->stream_us - (s->copy_us - s->copy_contig);
    return period > s->copy_contig ? period : s->copy_contig;
}

/* One credit's cycle: the chunk packed, transmitted, unpacked and acknowledged. */
static double credit_cycle(const struct pg_tune_sample *s, double ack_us, int contiguous)
{
    return (contiguous ? s->copy_contig : s->copy_us) + s->transmit_us + ack_us;
}

/* cycle / period buffers keep the slowest stage busy only if every chunk arrives just in time;
 * one more keeps a chunk queued at it, so a late acknowledgement does not stall it. */
int pg_tune_buffers_for(const struct pg_tune_sample *s, double ack_us, int buffers_max,
                        size_t region_max)
{
    double cycle = credit_cycle(s, ack_us, 0), period = stream_period(s, 0);
    int buffers = period > 0 ? (int)ceil(cycle / period - 1e-9) + 1 : buffers_max;
    size_t fit = region_max / s->size;
    if (fit < (size_t)buffers)
        buffers = (int)fit;
    if (buffers > buffers_max)
        buffers = buffers_max;
    return buffers < 1 ? 1 : buffers;
}

double pg_tune_predict(const struct pg_tune_sample *s, double ack_us, int buffers, size_t bytes,
                       int contiguous)
{
    double cycle = credit_cycle(s, ack_us, contiguous), period = stream_period(s, contiguous);
    if (cycle / buffers > period)
        period = cycle / buffers;
    double chunks = ceil((double)bytes / (double)s->size);
    return cycle + (chunks - 1) * period;
}

/* Direct RMA needs no copies: it registers the local buffer and moves the bytes once. */
static double predict_direct(const struct pg_tune_sample *s, double ack_us)
{
    return s->register_us + (s->transmit_us - s->copy_contig) + ack_us;
}

int pg_tune_derive(const struct pg_tune_input *in, struct pg_tune_choice *out)
{
    if (in->count == 0)
        return -1;
    const struct pg_tune_sample *best = NULL;
    int best_buffers = 0;
    double best_us = 0;
    for (size_t i = 0; i < in->count; i++) {
        const struct pg_tune_sample *s = &in->samples[i];
        if (s->size > in->region_max)
            continue;
        int buffers = pg_tune_buffers_for(s, in->ack_us, in->buffers_max, in->region_max);
        double us = pg_tune_predict(s, in->ack_us, buffers, in->transfer, 0);
        size_t region = (size_t)buffers * s->size;
        int better = !best || us < best_us * 0.97 ||
                     (us <= best_us * 1.03 && region < (size_t)best_buffers * best->size);
        if (better) {
            best = s;
            best_buffers = buffers;
            best_us = us;
        }
    }
    if (!best)
        return -1;
    out->buffer_size = best->size;
    out->buffers = best_buffers;
    out->predicted_us = best_us;
    /* The threshold: the smallest size from which direct RMA stays ahead of a contiguous
     * transfer through the chosen pipeline. */
    out->direct_threshold = SIZE_MAX;
    for (size_t i = in->count; i-- > 0;) {
        const struct pg_tune_sample *s = &in->samples[i];
        double pipeline = pg_tune_predict(best, in->ack_us, best_buffers, s->size, 1);
        if (predict_direct(s, in->ack_us) >= pipeline)
            break;
        out->direct_threshold = s->size;
    }
    return 0;
}

size_t pg_tune_crossover(const size_t *sizes, const double *pipeline_us, const double *direct_us,
                         size_t count)
{
    size_t threshold = SIZE_MAX;
    for (size_t i = count; i-- > 0 && direct_us[i] < pipeline_us[i];)
        threshold = sizes[i];
    return threshold;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double pg_tune_median(double *values, size_t count)
{
    if (count == 0)
        return NAN;
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}
