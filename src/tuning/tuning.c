/* The pipeline model (see tuning.h). */
#include "tuning.h"

#include <math.h>
#include <stdint.h>

/* The slowest stage per chunk: packing, or the wire and the server's unpacking, which is
 * what transmit adds beyond one acknowledgement-sized trip. */
static double bottleneck(const struct pg_tune_sample *s, double copy, double ack_us)
{
    double wire = s->transmit_us - ack_us;
    return copy > wire ? copy : wire;
}

int pg_tune_buffers_for(const struct pg_tune_sample *s, double ack_us, int buffers_max,
                        size_t region_max)
{
    double cycle = s->copy_us + s->transmit_us + ack_us;
    double stage = bottleneck(s, s->copy_us, ack_us);
    int buffers = stage > 0 ? (int)ceil(cycle / stage - 1e-9) : buffers_max;
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
    double copy = contiguous ? s->copy_contig : s->copy_us;
    double cycle = copy + s->transmit_us + ack_us;
    double period = bottleneck(s, copy, ack_us);
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
