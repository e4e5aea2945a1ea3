/* tuning: the pipeline model behind pangea-tune — from measured per-chunk latencies to a
 * buffer count, a buffer size and the direct-RMA threshold. Pure functions (no I/O, no
 * runtime state), shared by the tool and its unit test.
 *
 * The pipeline moves a transfer in chunks of S bytes. The client packs a chunk (copy), sends
 * it; the server unpacks it and acknowledges it; a send buffer's credit is taken when packing
 * starts and comes back with the acknowledgement. So one credit cycles every
 * copy + transmit + ack, the time of one chunk alone. In a stream the chunks follow each other
 * no faster than the slowest stage (packing, the wire, the server's unpacking), and the fixed
 * costs of one message (system calls, wake-ups, the acknowledgement's trip) overlap with
 * the neighbouring chunks: that per-chunk stream time is measured, not derived from the time
 * of one chunk alone, which counts those fixed costs in full. B buffers keep the stages
 * overlapped when B >= (copy + transmit + ack) / stream; the model takes one more, so that
 * a chunk waits at the slowest stage whenever an acknowledgement comes late. */
#ifndef PG_TUNING_H
#define PG_TUNING_H

#include <stddef.h>

/* Measurements for one chunk size, in microseconds. */
struct pg_tune_sample {
    size_t size;        /* chunk data bytes */
    double copy_us;     /* pack (or unpack) one chunk of strided data (1 KiB rows) */
    double copy_contig; /* the same for contiguous data (one memcpy) */
    double transmit_us; /* one chunk alone, from the end of its packing until the server has
                           unpacked it (a put + quiet, less the copy and the acknowledgement) */
    double stream_us;   /* one chunk of a long strided stream with buffers to spare: the
                           slowest stage, per chunk */
    double register_us; /* registering (and releasing) a buffer of this size (fi_mr_reg) */
};

struct pg_tune_input {
    const struct pg_tune_sample *samples; /* in increasing size */
    size_t count;
    double ack_us;     /* acknowledgement delay: an acknowledgement's one-way trip */
    size_t transfer;   /* the transfer size the choice is made for (bytes) */
    size_t region_max; /* largest send region, buffers x size (the server reserves it for
                          each PE of the other nodes) */
    int buffers_max;
};

struct pg_tune_choice {
    size_t buffer_size;
    int buffers;
    double predicted_us;     /* predicted time of one transfer of in->transfer strided bytes */
    size_t direct_threshold; /* contiguous bytes from which direct RMA is predicted faster than
                                the pipeline; SIZE_MAX when it never is among the samples */
};

/* Buffers that keep sample s's stages overlapped (at least 1, at most buffers_max and the
 * region bound). */
int pg_tune_buffers_for(const struct pg_tune_sample *s, double ack_us, int buffers_max,
                        size_t region_max);
/* Predicted microseconds of a transfer of `bytes` through the pipeline with s's chunk size
 * and `buffers` buffers; contiguous: data that needs no gathering. */
double pg_tune_predict(const struct pg_tune_sample *s, double ack_us, int buffers, size_t bytes,
                       int contiguous);
/* The choice: the chunk size whose predicted transfer time is least (a smaller region wins
 * within 3%), its buffer count, and the direct-RMA threshold. Returns 0, or -1 when there
 * are no samples. */
int pg_tune_derive(const struct pg_tune_input *in, struct pg_tune_choice *out);

/* The measured crossover: the smallest of sizes[0..count) (increasing) from which the direct
 * RMA time is below the pipeline's at that size and every larger one; SIZE_MAX when there is
 * none. */
size_t pg_tune_crossover(const size_t *sizes, const double *pipeline_us, const double *direct_us,
                         size_t count);

/* The median of values[0..count) (reordered in place); NAN when count is 0. */
double pg_tune_median(double *values, size_t count);

#endif
