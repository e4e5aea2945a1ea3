/* pangea-tune: measures the network between two nodes, derives the pipeline settings from the
 * measurements (src/tuning), verifies them against the defaults, checks that they move data
 * correctly and writes a tuning file the library reads at startup.
 *
 *   oshrun -np 2 pangea-tune [--quick] [--out FILE] [--plots DIR] [--host PATTERN]
 *                            [--max-region BYTES]
 *
 * One PE on each of two nodes (on one node the PEs reach each other by load/store and only
 * the copy and registration costs are measured). PE 0 measures against PE 1 and prints the
 * progress, the table and the file; further PEs only take part in the restarts. Linked with
 * the static library: it sets pg_cfg and reopens the pipeline (pg_pipe_restart) between runs. */
#define _GNU_SOURCE
#include "pipeline/pipeline.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"
#include "startup/startup.h"
#include "transport/transport.h"
#include "tuning/tuning.h"

#include <getopt.h>
#include <math.h>
#include <shmem.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "plot.h"

#define ROW 1024        /* strided transfers: rows of 1 KiB ... */
#define ROW_STRIDE 2048 /* ... every other KiB of the remote array */
#define MAX_CHUNK PG_DS_LARGEST_TUNED_CHUNK
#define MAX_TRANSFER (4 << 20)
#define REFERENCE (1 << 20) /* the settings are chosen for 1 MiB strided transfers */
#define MAX_SAMPLES 16
#define MAX_SWEEP_BUFFERS 7 /* the counts swept and the derived one */
#define MAX_ROUNDS 6
#define MAX_BENCH_SIZES 8
#define STREAM_REGION (4 << 20) /* send region while a stream of chunks is measured */

enum op { PUT, GET, ACC };
static const char *const op_names[] = {"put", "get", "acc"};

static struct {
    int quick;
    const char *out, *plots, *host;
    size_t region_max;
} opt = {0, "pangea-tuning.conf", "pangea-tune-plots", NULL, 2 << 20};

static int me;
static char *remote;  /* symmetric: the target array (strided rows, or contiguous) */
static char *local;   /* private source and destination of transfers */
static char *scratch; /* private: where copies are packed */

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
    if (me != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
}

static const char *size_text(size_t bytes)
{
    static char text[4][24];
    static int next;
    char *t = text[next++ % 4];
    if (bytes >= (1 << 20) && bytes % (1 << 20) == 0)
        snprintf(t, 24, "%zuM", bytes >> 20);
    else if (bytes >= 1024 && bytes % 1024 == 0)
        snprintf(t, 24, "%zuK", bytes >> 10);
    else
        snprintf(t, 24, "%zu", bytes);
    return t;
}

/* Microseconds of one call of op(arg): the fastest of `samples` batches, each of enough calls
 * to last at least 300 us (100 us with --quick). The fastest, not the median: on a shared
 * machine other processes only ever add time. Settings are compared over rounds that each
 * measure every candidate once, in turn, so that a busy spell or a drift of the machine's
 * load hits them alike and no single stretch of time decides: a candidate's value is its
 * fastest round, and the median of its rounds is shown beside it as the noise. */
static double best_us(void (*op)(void *), void *arg, int samples)
{
    double budget = opt.quick ? 100 : 300, best = INFINITY;
    op(arg);
    long batch = 1;
    for (;;) {
        double t = bench_now_us();
        for (long i = 0; i < batch; i++)
            op(arg);
        if (bench_now_us() - t >= budget || batch >= 1 << 20)
            break;
        batch *= 2;
    }
    for (int s = 0; s < samples; s++) {
        double t = bench_now_us();
        for (long i = 0; i < batch; i++)
            op(arg);
        double per_call = (bench_now_us() - t) / (double)batch;
        if (per_call < best)
            best = per_call;
    }
    return best;
}

/* Rounds of a comparison: each measures every candidate once, in the same order. At least
 * two, at most 4 (--quick) or MAX_ROUNDS, and no new one once the step has run for 5 s
 * (--quick) or 2 minutes: on a busy machine --quick stays within its minute. PE 0 decides for
 * every PE, as a round may reopen the pipeline (collective). */
static int another_round(int done, double step_started_us)
{
    static int go; /* symmetric, for the broadcast */
    if (me == 0) {
        double budget_us = opt.quick ? 5e6 : 120e6;
        go = done < (opt.quick ? 4 : MAX_ROUNDS) &&
             (done < 2 || bench_now_us() - step_started_us < budget_us);
    }
    shmem_broadcastmem(SHMEM_TEAM_WORLD, &go, &go, sizeof go, 0);
    return go;
}

static double least(const double *values, int count)
{
    double m = values[0];
    for (int i = 1; i < count; i++)
        m = values[i] < m ? values[i] : m;
    return m;
}

static double most(const double *values, int count)
{
    double m = values[0];
    for (int i = 1; i < count; i++)
        m = values[i] > m ? values[i] : m;
    return m;
}

/* The median of a candidate's rounds, leaving them in place. */
static double median_of(const double *values, int count)
{
    double copy[MAX_ROUNDS];
    memcpy(copy, values, sizeof(double) * (size_t)count);
    return pg_tune_median(copy, (size_t)count);
}

/* A transfer of `bytes` between PE 0's local buffer and PE 1's remote array: 2-D strided
 * (1 KiB rows, every other KiB remotely) or contiguous. */
struct transfer {
    enum op op;
    int strided;
    size_t bytes;
};

static struct pg_strided shape_of(const struct transfer *t, int remote_is_dst)
{
    struct pg_strided s = {.levels = 0, .count = {t->bytes}};
    if (t->strided) {
        s.levels = 1;
        s.count[0] = ROW;
        s.count[1] = t->bytes / ROW;
        s.dst_stride[0] = remote_is_dst ? ROW_STRIDE : ROW;
        s.src_stride[0] = remote_is_dst ? ROW : ROW_STRIDE;
    }
    return s;
}

static void transfer_quiet(void *arg)
{
    const struct transfer *t = arg;
    static const double scale = 1.0;
    struct pg_strided s = shape_of(t, t->op != GET);
    switch (t->op) {
    case PUT:
        pg_put_strided(SHMEM_CTX_DEFAULT, remote, local, &s, 1);
        break;
    case GET:
        pg_get_strided(SHMEM_CTX_DEFAULT, local, remote, &s, 1);
        break;
    case ACC:
        pg_acc_strided(SHMEM_CTX_DEFAULT, PG_ACC_DOUBLE, &scale, remote, local, &s, 1);
        break;
    }
    shmem_quiet();
}

/* MB/s (10^6 bytes) of a transfer in one round, on PE 0; the other PEs wait in the barrier. */
static double bandwidth(enum op op, int strided, size_t bytes)
{
    double mbs = 0;
    if (me == 0) {
        struct transfer t = {op, strided, bytes};
        mbs = (double)bytes / best_us(transfer_quiet, &t, 3);
    }
    shmem_barrier_all();
    return mbs;
}

/* What the tool sets: the pipeline's buffers and size, and the direct-RMA threshold (0: every
 * contiguous transfer through the pipeline, 1: every one direct). */
struct settings {
    long long buffers, size, threshold;
};

/* Reopens the pipeline with these settings on every PE. */
static void use_settings(struct settings s)
{
    pg_cfg.pipeline_buffers = s.buffers;
    pg_cfg.pipeline_buffer_size = s.size;
    pg_cfg.direct_rma_threshold = s.threshold;
    pg_pipe_restart();
}

/* ---- measurements ---- */

/* Packs chunk after chunk of a 1 MiB transfer, as the pipeline does: the source is not all in
 * cache, whatever the chunk size. */
struct pack_job {
    size_t bytes;
    int strided;
    size_t position;
};

static void pack(void *arg)
{
    struct pack_job *j = arg;
    if (j->strided) {
        size_t count[2] = {ROW, REFERENCE / ROW};
        ptrdiff_t stride[1] = {ROW_STRIDE};
        pg_ds_walk(remote, 1, count, stride, j->position, j->bytes, scratch, pg_ds_pack_piece,
                   NULL);
    } else {
        pg_ds_pack_piece(local + j->position, scratch, j->bytes, NULL);
    }
    j->position = (j->position + j->bytes) % REFERENCE;
    __asm__ __volatile__("" ::: "memory"); /* the copies are the measurement: keep them */
}

/* Registering and releasing a buffer for RMA (fi_mr_reg, fi_close) through the transport,
 * on this PE's client endpoint. */
static void register_once(void *arg)
{
    const size_t *bytes = arg;
    pg_net_mr_close(pg_net_mr_reg(pg_pipe_ep(), local, *bytes, FI_READ | FI_WRITE));
}

struct sweep {
    size_t sizes[3];
    int nsizes;
    int buffers[MAX_SWEEP_BUFFERS];
    int nbuffers;
    double put[3][MAX_SWEEP_BUFFERS]; /* MB/s of a 1 MiB strided put */
};

static double load_average(void)
{
    double load = 0;
    getloadavg(&load, 1);
    return load;
}

static const char *threshold_text(long long threshold)
{
    return threshold ? size_text((size_t)threshold) : "never";
}

/* Verifies the derived buffer count: the bandwidth of a 1 MiB strided put for a few buffer
 * counts (and the derived one) at the chosen size, half of it and twice it, the fastest of
 * rounds that each visit every point. A point more than 5% faster than the derived one (within
 * the region bound) replaces it. */
static void verify_buffers(struct sweep *sw, struct pg_tune_choice *choice)
{
    static const int counts_full[] = {1, 2, 4, 8, 16, 32}, counts_quick[] = {1, 2, 4, 8};
    const int *counts = opt.quick ? counts_quick : counts_full;
    int ncounts = opt.quick ? 4 : 6;
    memcpy(sw->buffers, counts, sizeof(int) * (size_t)ncounts);
    sw->nbuffers = ncounts;
    int at = 0;
    while (at < sw->nbuffers && sw->buffers[at] < choice->buffers)
        at++;
    if (at == sw->nbuffers || sw->buffers[at] != choice->buffers) {
        memmove(&sw->buffers[at + 1], &sw->buffers[at], sizeof(int) * (size_t)(sw->nbuffers - at));
        sw->buffers[at] = choice->buffers;
        sw->nbuffers++;
    }
    size_t around[3] = {choice->buffer_size / 2, choice->buffer_size, choice->buffer_size * 2};
    for (int s = 0; s < 3; s++)
        if (around[s] >= 4096 && around[s] <= MAX_CHUNK)
            sw->sizes[sw->nsizes++] = around[s];
    static double mbs[3][MAX_SWEEP_BUFFERS][MAX_ROUNDS];
    int points = sw->nsizes * sw->nbuffers, rounds = 0;
    for (double started = bench_now_us(); another_round(rounds, started); rounds++) {
        for (int s = 0; s < sw->nsizes; s++)
            for (int b = 0; b < sw->nbuffers; b++) {
                use_settings((struct settings){sw->buffers[b], (long long)sw->sizes[s], 0});
                mbs[s][b][rounds] = bandwidth(PUT, 1, REFERENCE);
            }
        say("      round %d: %d settings measured\n", rounds + 1, points);
    }
    /* static: symmetric, for the broadcast of PE 0's verdict */
    static struct {
        double best_mbs, derived_mbs;
        size_t best_size;
        int best_buffers;
    } verdict;
    verdict.best_mbs = 0;
    for (int s = 0; s < sw->nsizes; s++) {
        for (int b = 0; b < sw->nbuffers; b++) {
            sw->put[s][b] = most(mbs[s][b], rounds);
            int derived = sw->sizes[s] == choice->buffer_size && sw->buffers[b] == choice->buffers;
            say("      %6s x %2d: %8.1f MB/s (median %8.1f)%s\n", size_text(sw->sizes[s]),
                sw->buffers[b], sw->put[s][b], median_of(mbs[s][b], rounds),
                derived ? "  <- derived" : "");
            if (derived)
                verdict.derived_mbs = sw->put[s][b];
            if (sw->put[s][b] > verdict.best_mbs &&
                (size_t)sw->buffers[b] * sw->sizes[s] <= opt.region_max) {
                verdict.best_mbs = sw->put[s][b];
                verdict.best_size = sw->sizes[s];
                verdict.best_buffers = sw->buffers[b];
            }
        }
    }
    shmem_broadcastmem(SHMEM_TEAM_WORLD, &verdict, &verdict, sizeof verdict, 0);
    say("      derived %s x %d: %.1f MB/s; best measured %s x %d: %.1f MB/s (fastest of %d "
        "rounds)\n",
        size_text(choice->buffer_size), choice->buffers, verdict.derived_mbs,
        size_text(verdict.best_size), verdict.best_buffers, verdict.best_mbs, rounds);
    if (verdict.best_mbs <= 1.05 * verdict.derived_mbs) {
        say("      the derived setting is within 5%% of the best measured one: it stays\n");
        return;
    }
    say("      the measured best is more than 5%% faster: it is the recommendation\n");
    choice->buffer_size = verdict.best_size;
    choice->buffers = verdict.best_buffers;
}

/* Microseconds of a contiguous put + get of `bytes`, direct RMA or through the pipeline.
 * Only the initiator reads the threshold, at each call: PE 0 switches between the two ways
 * without reopening the pipeline, so that they alternate size by size. */
static double put_get_us(size_t bytes, int direct)
{
    pg_cfg.direct_rma_threshold = direct; /* 0: never direct; 1: every contiguous transfer */
    struct transfer put = {PUT, 0, bytes}, get = {GET, 0, bytes};
    return best_us(transfer_quiet, &put, 3) + best_us(transfer_quiet, &get, 3);
}

/* The direct-RMA threshold, measured: contiguous put + get of each sample size through the
 * tuned pipeline and direct, the fastest of rounds; returns the crossover (0, never direct,
 * when there is none). */
static long long measure_threshold(const struct pg_tune_sample *samples, int count,
                                   struct settings tuned)
{
    double pipeline_us[MAX_SAMPLES], direct_us[MAX_SAMPLES];
    double pipeline_round[MAX_SAMPLES][MAX_ROUNDS], direct_round[MAX_SAMPLES][MAX_ROUNDS];
    size_t sizes[MAX_SAMPLES];
    use_settings(tuned);
    int rounds = 0;
    for (double started = bench_now_us(); another_round(rounds, started); rounds++)
        for (int i = 0; i < count && me == 0; i++) {
            pipeline_round[i][rounds] = put_get_us(samples[i].size, 0);
            direct_round[i][rounds] = put_get_us(samples[i].size, 1);
        }
    pg_cfg.direct_rma_threshold = tuned.threshold;
    shmem_barrier_all();
    static size_t crossover; /* symmetric: PE 0's is broadcast */
    for (int i = 0; i < count && me == 0; i++) {
        sizes[i] = samples[i].size;
        pipeline_us[i] = least(pipeline_round[i], rounds);
        direct_us[i] = least(direct_round[i], rounds);
        say("      %6s: pipeline %9.2f us, direct %9.2f us\n", size_text(sizes[i]), pipeline_us[i],
            direct_us[i]);
    }
    if (me == 0)
        crossover = pg_tune_crossover(sizes, pipeline_us, direct_us, (size_t)count);
    shmem_broadcastmem(SHMEM_TEAM_WORLD, &crossover, &crossover, sizeof crossover, 0);
    say("      direct RMA measured faster from %s (fastest of %d rounds)\n",
        crossover == SIZE_MAX ? "no size: the pipeline always" : size_text(crossover), rounds);
    return crossover == SIZE_MAX ? 0 : (long long)crossover;
}

/* Buffers while a stream of `size` chunks is measured: a region of STREAM_REGION bytes, within
 * the 64 requests a PE may have at a server and at least 4, so that credits never set the
 * pace. */
static long long stream_buffers(size_t size)
{
    size_t buffers = STREAM_REGION / size;
    return buffers > 64 ? 64 : buffers < 4 ? 4 : (long long)buffers;
}

/* Chunks of one measured stream: 2 MiB of data, at least 4 chunks (MAX_TRANSFER bytes at
 * most: the remote array holds that much in strided rows). */
static size_t stream_chunks(size_t size)
{
    size_t chunks = (2 << 20) / size;
    return chunks < 4 ? 4 : chunks;
}

/* Round trips, in rounds that each visit every chunk size with its own pipeline settings, so
 * that they spread over the step: an 8-byte put + quiet (twice the acknowledgement delay),
 * one chunk alone (a contiguous put + quiet, the cycle of one credit) and one chunk of a
 * strided stream (a put of n chunks less a put of one, each its fastest round, over n - 1:
 * the slowest stage, the fixed costs of each message overlapped by its neighbours'). PE 0
 * keeps the results in samples and *ack_us, and the round trips of one chunk alone in
 * round_trip[size][fastest, median]. */
static void measure_round_trips(struct pg_tune_sample *samples, int count, double *ack_us,
                                double round_trip[][2])
{
    double ack[MAX_SAMPLES * MAX_ROUNDS], alone[MAX_SAMPLES][MAX_ROUNDS],
        first[MAX_SAMPLES][MAX_ROUNDS], all[MAX_SAMPLES][MAX_ROUNDS];
    int rounds = 0;
    for (double started = bench_now_us(); another_round(rounds, started); rounds++) {
        for (int i = 0; i < count; i++) {
            size_t size = samples[i].size;
            use_settings((struct settings){stream_buffers(size), (long long)size, 0});
            if (me == 0) {
                struct transfer tiny = {PUT, 0, 8}, one = {PUT, 0, size},
                                one_strided = {PUT, 1, size},
                                stream = {PUT, 1, stream_chunks(size) * size};
                ack[rounds * count + i] = best_us(transfer_quiet, &tiny, 3) / 2;
                alone[i][rounds] = best_us(transfer_quiet, &one, 3);
                first[i][rounds] = best_us(transfer_quiet, &one_strided, 3);
                all[i][rounds] = best_us(transfer_quiet, &stream, 3);
            }
            shmem_barrier_all();
        }
        say("      round %d: %d sizes measured\n", rounds + 1, count);
    }
    if (me != 0)
        return;
    *ack_us = least(ack, rounds * count);
    say("      acknowledgement delay %.2f us (8-byte put + quiet round trip, halved)\n", *ack_us);
    for (int i = 0; i < count; i++) {
        struct pg_tune_sample *s = &samples[i];
        round_trip[i][0] = least(alone[i], rounds);
        round_trip[i][1] = median_of(alone[i], rounds);
        double transmit = round_trip[i][0] - s->copy_contig - *ack_us;
        s->transmit_us = transmit > 0.01 ? transmit : 0.01;
        double per_chunk = (least(all[i], rounds) - least(first[i], rounds)) /
                           (double)(stream_chunks(s->size) - 1);
        /* A stream goes no faster than its packing. */
        s->stream_us = per_chunk > s->copy_us ? per_chunk : s->copy_us;
    }
}

/* The correctness check: with the current settings each PE puts 2-D and 3-D strided patterns
 * into the next PE, gets them back, puts and gets them contiguously and accumulates into it;
 * every byte (guards included) and every total is checked. Returns the number of errors over all
 * PEs. */
static long check_settings(void)
{
    static long errors_total;
    int npes = shmem_n_pes(), target = (me + 1) % npes, source = (me + npes - 1) % npes;
    size_t rows = 300, row = 1000, gap = 40, span = rows * (row + gap);
    long errors = 0;
    for (int levels = 1; levels <= 2; levels++) {
        struct pg_strided s = {.levels = levels, .count = {row, levels == 1 ? rows : 30, 10}};
        s.dst_stride[0] = (ptrdiff_t)(row + gap);
        s.src_stride[0] = (ptrdiff_t)row;
        s.dst_stride[1] = (ptrdiff_t)(row + gap) * 30;
        s.src_stride[1] = (ptrdiff_t)row * 30;
        for (size_t i = 0; i < rows * row; i++)
            local[i] = (char)(me * 37 + i * 11 + levels);
        memset(remote, 0x6B, span + 64);
        shmem_barrier_all();
        pg_put_strided(SHMEM_CTX_DEFAULT, remote + 16, local, &s, target);
        shmem_quiet();
        shmem_barrier_all();
        for (size_t at = 0; at < span + 64; at++) {
            size_t r = (at - 16) / (row + gap), c = (at - 16) % (row + gap);
            int inside = at >= 16 && r < rows && c < row;
            char want = inside ? (char)(source * 37 + (r * row + c) * 11 + levels) : 0x6B;
            errors += remote[at] != want;
        }
        struct pg_strided back = s;
        memcpy(back.src_stride, s.dst_stride, sizeof back.src_stride);
        memcpy(back.dst_stride, s.src_stride, sizeof back.dst_stride);
        memset(scratch, 0, rows * row);
        pg_get_strided(SHMEM_CTX_DEFAULT, scratch, remote + 16, &back, target);
        errors += memcmp(scratch, local, rows * row) != 0;
        shmem_barrier_all();
    }
    /* Contiguous (direct RMA from the threshold on), once every PE has checked its region. */
    pg_put(SHMEM_CTX_DEFAULT, remote, local, rows * row, target);
    shmem_quiet();
    memset(scratch, 0, rows * row);
    pg_get(SHMEM_CTX_DEFAULT, scratch, remote, rows * row, target);
    errors += memcmp(scratch, local, rows * row) != 0;
    shmem_barrier_all();
    /* Accumulate: every PE adds i + me, times 3, into PE target's longs, twice. */
    long *sums = (long *)remote, *addends = (long *)local;
    size_t n = 16000;
    memset(sums, 0, n * sizeof(long));
    for (size_t i = 0; i < n; i++)
        addends[i] = (long)i + me;
    shmem_barrier_all();
    struct pg_strided s = {.levels = 1, .count = {1000 * sizeof(long), n / 1000}};
    s.dst_stride[0] = s.src_stride[0] = 1000 * sizeof(long);
    long scale = 3;
    for (int k = 0; k < 2; k++)
        pg_acc_strided(SHMEM_CTX_DEFAULT, PG_ACC_LONG, &scale, sums, addends, &s, target);
    shmem_quiet();
    shmem_barrier_all();
    for (size_t i = 0; i < n; i++)
        errors += sums[i] != 6 * ((long)i + source);
    errors_total = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(&errors_total, errors, 0);
    shmem_barrier_all();
    return shmem_long_atomic_fetch(&errors_total, 0);
}

/* ---- output ---- */

static void write_plots(const struct pg_tune_sample *samples, int count, const struct sweep *sw,
                        const size_t *sizes, int nsizes, double (*bw)[2][3][2])
{
    if (mkdir(opt.plots, 0755) != 0 && access(opt.plots, W_OK) != 0) {
        say("plots: cannot create %s\n", opt.plots);
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/bandwidth-vs-size.dat", opt.plots);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "# bytes  MB/s: strided put default tuned, get default tuned, acc default tuned,"
               " contiguous put default tuned, get default tuned, acc default tuned\n");
    for (int i = 0; i < nsizes; i++) {
        fprintf(f, "%zu", sizes[i]);
        for (int st = 1; st >= 0; st--)
            for (int o = 0; o < 3; o++)
                fprintf(f, " %.1f %.1f", bw[i][st][o][0], bw[i][st][o][1]);
        fprintf(f, "\n");
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/bandwidth-vs-buffers.dat", opt.plots);
    if (!(f = fopen(path, "w")))
        return;
    fprintf(f, "# buffers  MB/s of a 1 MiB strided put per buffer size:");
    for (int s = 0; s < sw->nsizes; s++)
        fprintf(f, " %s", size_text(sw->sizes[s]));
    fprintf(f, "\n");
    for (int b = 0; b < sw->nbuffers; b++) {
        fprintf(f, "%d", sw->buffers[b]);
        for (int s = 0; s < sw->nsizes; s++)
            fprintf(f, " %.1f", sw->put[s][b]);
        fprintf(f, "\n");
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/latencies.dat", opt.plots);
    if (!(f = fopen(path, "w")))
        return;
    fprintf(f, "# chunk bytes  copy strided, copy contiguous, transmit alone, in a stream, "
               "register (us)\n");
    for (int i = 0; i < count; i++)
        fprintf(f, "%zu %.3f %.3f %.3f %.3f %.3f\n", samples[i].size, samples[i].copy_us,
                samples[i].copy_contig, samples[i].transmit_us, samples[i].stream_us,
                samples[i].register_us);
    fclose(f);

    FILE *g = plot_open(opt.plots, 900, 600);
    if (!g) {
        say("plots: gnuplot not found (Debian package gnuplot-nox): no PNG files, the data is in "
            "%s/*.dat\n",
            opt.plots);
        return;
    }
    fprintf(g, "set datafile commentschars '#'\nset grid\n"
               "set logscale x 2\nset format x '%%.0b%%B'\nset key left top\nset ylabel 'MB/s'\n");
    fprintf(g, "set output 'bandwidth-vs-size.png'\nset xlabel 'transfer bytes'\n"
               "set title 'pangea-tune: bandwidth, default vs tuned settings'\n"
               "plot for [c=2:13] 'bandwidth-vs-size.dat' using 1:c with linespoints title "
               "word('strided-put-default strided-put-tuned strided-get-default "
               "strided-get-tuned strided-acc-default strided-acc-tuned contig-put-default "
               "contig-put-tuned contig-get-default contig-get-tuned contig-acc-default "
               "contig-acc-tuned', c-1)\n");
    fprintf(g,
            "set output 'bandwidth-vs-buffers.png'\nset xlabel 'buffers'\n"
            "set title 'pangea-tune: 1 MiB 2-D strided put, by buffer count and size'\n"
            "plot for [c=2:%d] 'bandwidth-vs-buffers.dat' using 1:c with linespoints title "
            "'buffer size '.word('",
            sw->nsizes + 1);
    for (int s = 0; s < sw->nsizes; s++)
        fprintf(g, "%s%s", s ? " " : "", size_text(sw->sizes[s]));
    fprintf(g, "', c-1)\n");
    fprintf(g, "set output 'latencies.png'\nset xlabel 'chunk bytes'\nset ylabel 'us'\n"
               "set logscale y 10\nset title 'pangea-tune: per-chunk latencies'\n"
               "plot for [c=2:6] 'latencies.dat' using 1:c with linespoints title "
               "word('copy-strided copy-contiguous transmit-alone transmit-in-stream register', "
               "c-1)\n");
    int status = plot_close(g);
    say("plots: %s/bandwidth-vs-size.png, bandwidth-vs-buffers.png, latencies.png%s\n", opt.plots,
        status == 0 ? "" : " (gnuplot reported an error)");
}

static int write_file(const struct settings *tuned, int rma, const char *provider, int nnodes,
                      const char *hosts, const char *host_pattern, double load_start)
{
    FILE *f = fopen(opt.out, "w");
    if (!f) {
        fprintf(stderr, "pangea-tune: cannot write %s\n", opt.out);
        return -1;
    }
    char date[64];
    time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    fprintf(f,
            "# Pangea tuning file, written by pangea-tune %s (format: README, \"Tuning for a "
            "cluster\").\n# Measured between %s. The library applies it only with this "
            "provider, and on hosts that\n# match 'host' (a shell pattern: set it to e.g. "
            "node* for a whole cluster).\n",
            PG_VERSION_STRING, hosts);
    fprintf(f, "# Load average %.2f at the start, %.2f at the end (%ld cores).\n", load_start,
            load_average(), sysconf(_SC_NPROCESSORS_ONLN));
    if (provider[0])
        fprintf(f, "provider = %s\n", provider);
    fprintf(f, "host = %s\ndate = %s\n", opt.host ? opt.host : host_pattern, date);
    if (nnodes > 1) {
        fprintf(f, "PANGEA_PIPELINE_BUFFERS = %lld\nPANGEA_PIPELINE_BUFFER_SIZE = %s\n",
                tuned->buffers, size_text((size_t)tuned->size));
        if (rma)
            fprintf(f, "PANGEA_DIRECT_RMA_THRESHOLD = %s\n", size_text((size_t)tuned->threshold));
    } else {
        fprintf(f, "# both PEs were on one node: the pipeline was not measured, defaults kept\n");
    }
    return fclose(f);
}

/* PE 0 measures and decides; every PE must then apply the same settings (pg_pipe_init refuses
 * to open the pipeline otherwise). */
static void agree_with_pe0(struct settings *s)
{
    static long long mine[3], pe0[3];
    mine[0] = s->buffers;
    mine[1] = s->size;
    mine[2] = s->threshold;
    shmem_longlong_broadcast(SHMEM_TEAM_WORLD, pe0, mine, 3, 0);
    s->buffers = pe0[0];
    s->size = pe0[1];
    s->threshold = pe0[2];
}

/* The derivation models the network; the reference transfers (1 MiB 2-D strided put and get)
 * decide. If the default buffers move them faster than the derived ones, the file keeps the
 * defaults. PE 0 measured; every PE must agree, as the settings are applied everywhere. */
static int keep_faster_settings(struct settings *tuned, const struct settings *defaults,
                                const size_t *sizes, int count, double bw[][2][3][2])
{
    static long keep_source, keep;
    for (int i = 0; i < count && me == 0; i++) {
        if (sizes[i] != REFERENCE)
            continue;
        double dflt = bw[i][1][PUT][0] + bw[i][1][GET][0];
        double derived = bw[i][1][PUT][1] + bw[i][1][GET][1];
        keep_source = dflt > derived;
        if (keep_source)
            say("      the default %lld x %s beat the derived %lld x %s on 1 MiB strided put + "
                "get (%.0f vs %.0f MB/s): the file keeps the default buffers\n",
                defaults->buffers, size_text((size_t)defaults->size), tuned->buffers,
                size_text((size_t)tuned->size), dflt, derived);
    }
    shmem_long_broadcast(SHMEM_TEAM_WORLD, &keep, &keep_source, 1, 0);
    if (keep) {
        tuned->buffers = defaults->buffers;
        tuned->size = defaults->size;
    }
    return (int)keep;
}

/* The benchmarks: every transfer with the default and with the tuned settings, in rounds that
 * alternate the two; PE 0 keeps the fastest round in bw[size][strided][op][default, tuned] and
 * the median in bw_median. Returns the number of rounds. */
static int benchmark_settings(const struct settings *defaults, const struct settings *tuned,
                              const size_t *sizes, int nsizes, double bw[][2][3][2],
                              double bw_median[][2][3][2])
{
    static double mbs[MAX_BENCH_SIZES][2][3][2][MAX_ROUNDS];
    int rounds = 0;
    for (double started = bench_now_us(); another_round(rounds, started); rounds++) {
        for (int which = 0; which < 2; which++) {
            use_settings(*(which ? tuned : defaults));
            for (int i = 0; i < nsizes; i++)
                for (int st = 0; st < 2; st++)
                    for (int o = 0; o < 3; o++)
                        mbs[i][st][o][which][rounds] = bandwidth((enum op)o, st, sizes[i]);
        }
        say("      round %d: default and tuned settings measured\n", rounds + 1);
    }
    for (int i = 0; i < nsizes; i++)
        for (int st = 0; st < 2; st++)
            for (int o = 0; o < 3; o++)
                for (int which = 0; which < 2; which++) {
                    bw[i][st][o][which] = most(mbs[i][st][o][which], rounds);
                    bw_median[i][st][o][which] = median_of(mbs[i][st][o][which], rounds);
                }
    return rounds;
}

static void usage(void)
{
    say("usage: oshrun -np 2 pangea-tune [--quick] [--out FILE] [--plots DIR] [--host PATTERN] "
        "[--max-region BYTES]\n"
        "  --quick        fewer sizes and repetitions (under a minute)\n"
        "  --out FILE     the tuning file to write (default pangea-tuning.conf)\n"
        "  --plots DIR    where the PNG plots and their data go (default pangea-tune-plots)\n"
        "  --host PATTERN the file's host line (default: this host's name)\n"
        "  --max-region B largest send region, buffers x size (default 2M)\n");
}

static int parse_options(int argc, char **argv)
{
    static const struct option longs[] = {{"quick", no_argument, NULL, 'q'},
                                          {"out", required_argument, NULL, 'o'},
                                          {"plots", required_argument, NULL, 'p'},
                                          {"host", required_argument, NULL, 'H'},
                                          {"max-region", required_argument, NULL, 'r'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "qo:p:H:r:h", longs, NULL)) != -1) {
        switch (c) {
        case 'q':
            opt.quick = 1;
            break;
        case 'o':
            opt.out = optarg;
            break;
        case 'p':
            opt.plots = optarg;
            break;
        case 'H':
            opt.host = optarg;
            break;
        case 'r':
            if (pg_parse_size(optarg, &opt.region_max) != 0 || opt.region_max < 4096) {
                say("pangea-tune: --max-region: '%s' is not a size of at least 4K\n", optarg);
                return -1;
            }
            break;
        default:
            usage();
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    if (parse_options(argc, argv) != 0 || shmem_n_pes() < 2) {
        if (shmem_n_pes() < 2)
            say("pangea-tune: needs 2 PEs (oshrun -np 2 pangea-tune), one on each of two "
                "nodes\n");
        shmem_finalize();
        return 2;
    }
    int nnodes = pg_world.nnodes, steps = nnodes > 1 ? 9 : 2, step = 0;
    double started = bench_now_us();
    remote = shmem_malloc(2 * MAX_TRANSFER);
    local = malloc(2 * MAX_TRANSFER);
    scratch = malloc(2 * MAX_TRANSFER);
    if (!remote || !local || !scratch) {
        say("pangea-tune: out of memory (SHMEM_SYMMETRIC_SIZE must hold 8 MiB)\n");
        shmem_global_exit(1);
    }
    for (size_t i = 0; i < 2 * MAX_TRANSFER; i++)
        local[i] = scratch[i] = remote[i] = (char)i;
    const char *provider = nnodes > 1 ? pg_net_provider() : getenv("FI_PROVIDER");
    char hosts[600] = "", mine[256] = "", host_pattern[260] = "";
    gethostname(mine, sizeof mine - 1);
    if (me == 0)
        snprintf(hosts, sizeof hosts, "%s", mine);
    char *name = shmem_malloc(256), peer[256];
    snprintf(name, 256, "%s", mine);
    shmem_barrier_all();
    if (me == 0) {
        shmem_getmem(peer, name, 256, 1);
        peer[255] = '\0';
        snprintf(hosts + strlen(hosts), sizeof hosts - strlen(hosts), " and %s (%d node%s)", peer,
                 nnodes, nnodes > 1 ? "s" : "");
        /* Every PE of a job must run with the same pipeline settings, so the file's default
         * host pattern covers both measured hosts: their common prefix and a '*'. */
        size_t common = 0;
        while (mine[common] && mine[common] == peer[common])
            common++;
        snprintf(host_pattern, sizeof host_pattern, "%.*s%s", (int)common, mine,
                 mine[common] || peer[common] ? "*" : "");
    }
    shmem_barrier_all();
    shmem_free(name);
    say("pangea-tune: %d PEs on %d node%s, %s; provider %s; %s run\n", shmem_n_pes(), nnodes,
        nnodes > 1 ? "s" : "", hosts, provider ? provider : "(none: one node)",
        opt.quick ? "quick" : "full");
    double load_start = load_average();
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    say("pangea-tune: load average %.2f on %ld cores%s\n", load_start, cores,
        load_start > (double)cores ? ": the machine is busy, the measurements will be noisy and "
                                     "the choice uncertain"
                                   : "");
    if (nnodes == 1)
        say("pangea-tune: both PEs are on one node, where they reach each other by load/store: "
            "the pipeline is not used, only copy costs are measured\n");

    /* Chunk sizes measured; static (symmetric) for the broadcast from PE 0. */
    static struct pg_tune_sample samples[MAX_SAMPLES];
    int count = 0;
    for (size_t s = opt.quick ? 16384 : 4096; s <= MAX_CHUNK; s *= 2)
        samples[count++] = (struct pg_tune_sample){.size = s};

    say("[%d/%d] copy (pack/unpack) latency per chunk, strided (1 KiB rows) and contiguous\n",
        ++step, steps);
    for (int i = 0; i < count && me == 0; i++) {
        struct pack_job strided = {samples[i].size, 1, 0}, contig = {samples[i].size, 0, 0};
        samples[i].copy_us = best_us(pack, &strided, 5);
        samples[i].copy_contig = best_us(pack, &contig, 5);
        say("      %6s: %9.2f us strided, %9.2f us contiguous\n", size_text(samples[i].size),
            samples[i].copy_us, samples[i].copy_contig);
    }

    struct settings defaults = {pg_cfg.pipeline_buffers, pg_cfg.pipeline_buffer_size,
                                pg_cfg.direct_rma_threshold};
    struct pg_tune_choice choice = {.buffer_size = (size_t)defaults.size,
                                    .buffers = (int)defaults.buffers,
                                    .direct_threshold = SIZE_MAX};
    struct settings tuned = defaults;
    struct sweep sw = {.nsizes = 0};
    static double ack_us;
    size_t bw_sizes[MAX_BENCH_SIZES];
    int nbw = 0;
    /* [size][strided][op][default, tuned] MB/s: the fastest round, and the median */
    double bw[MAX_BENCH_SIZES][2][3][2], bw_median[MAX_BENCH_SIZES][2][3][2];
    int bench_rounds = 0;
    int rma = nnodes > 1 && pg_net_has_rma();
    if (nnodes > 1) {
        say("[%d/%d] memory registration latency (fi_mr_reg + fi_close, through the transport)\n",
            ++step, steps);
        for (int i = 0; i < count && me == 0; i++) {
            samples[i].register_us = rma ? best_us(register_once, &samples[i].size, 5) : NAN;
            if (rma)
                say("      %6s: %9.2f us\n", size_text(samples[i].size), samples[i].register_us);
        }
        if (!rma)
            say("      provider %s offers no RMA: registration not measured, no direct RMA\n",
                provider);
        shmem_barrier_all();

        say("[%d/%d] round trips, in rounds over the chunk sizes: 8 bytes (the acknowledgement), "
            "one chunk alone, a stream of chunks\n",
            ++step, steps);
        double round_trip[MAX_SAMPLES][2];
        measure_round_trips(samples, count, &ack_us, round_trip);
        say("[%d/%d] transmission per chunk: alone (put + quiet, less copy and ack) and in a "
            "stream\n",
            ++step, steps);
        for (int i = 0; i < count && me == 0; i++)
            say("      %6s: alone %9.2f us (put + quiet %.2f us, median %.2f); in a stream "
                "%9.2f us (%.0f MB/s)\n",
                size_text(samples[i].size), samples[i].transmit_us, round_trip[i][0],
                round_trip[i][1], samples[i].stream_us,
                (double)samples[i].size / samples[i].stream_us);
        shmem_barrier_all();
        shmem_broadcastmem(SHMEM_TEAM_WORLD, samples, samples, sizeof samples, 0);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, &ack_us, &ack_us, sizeof ack_us, 0);

        say("[%d/%d] derivation: buffers = (copy + transmit + ack) / stream per chunk, + 1, per "
            "size\n",
            ++step, steps);
        struct pg_tune_input in = {samples, (size_t)count, ack_us, REFERENCE, opt.region_max, 64};
        pg_tune_derive(&in, &choice);
        /* Each PE measured its own copies: PE 0's derivation is the one every PE uses. */
        struct settings derived = {choice.buffers, (long long)choice.buffer_size, 0};
        agree_with_pe0(&derived);
        choice.buffers = (int)derived.buffers;
        choice.buffer_size = (size_t)derived.size;
        for (int i = 0; i < count; i++) {
            int b = pg_tune_buffers_for(&samples[i], ack_us, 64, opt.region_max);
            double us = pg_tune_predict(&samples[i], ack_us, b, REFERENCE, 0);
            say("      %6s: %2d buffers, 1 MiB strided predicted %8.1f us (%6.1f MB/s)%s\n",
                size_text(samples[i].size), b, us, REFERENCE / us,
                samples[i].size == choice.buffer_size ? "  <- chosen" : "");
        }
        if (rma)
            say("      direct RMA predicted faster than this pipeline from %s\n",
                choice.direct_threshold == SIZE_MAX ? "no size measured"
                                                    : size_text(choice.direct_threshold));

        say("[%d/%d] bandwidth vs buffer count (1 MiB 2-D strided put)\n", ++step, steps);
        verify_buffers(&sw, &choice);
        tuned.buffers = choice.buffers;
        tuned.size = (long long)choice.buffer_size;
        agree_with_pe0(&tuned);

        say("[%d/%d] direct RMA vs pipeline, contiguous put + get\n", ++step, steps);
        if (rma)
            tuned.threshold = measure_threshold(samples, count, tuned);
        else
            say("      no RMA: the threshold does not matter, none written\n");
        agree_with_pe0(&tuned);

        say("[%d/%d] benchmarks, default (%lld x %s, direct from %s) vs tuned (%lld x %s, direct "
            "from %s)\n",
            ++step, steps, defaults.buffers, size_text((size_t)defaults.size),
            threshold_text(defaults.threshold), tuned.buffers, size_text((size_t)tuned.size),
            threshold_text(tuned.threshold));
        for (size_t b = opt.quick ? 64 << 10 : 16 << 10;
             b <= (opt.quick ? REFERENCE : MAX_TRANSFER); b *= 4)
            bw_sizes[nbw++] = b;
        bench_rounds = benchmark_settings(&defaults, &tuned, bw_sizes, nbw, bw, bw_median);
        /* The threshold was measured against the derived pipeline: measure it again against
         * the one kept (the table above still shows the derived settings). */
        if (keep_faster_settings(&tuned, &defaults, bw_sizes, nbw, bw) && rma) {
            say("      direct RMA vs the default pipeline, contiguous put + get\n");
            tuned.threshold = measure_threshold(samples, count, tuned);
            agree_with_pe0(&tuned);
        }
    }

    say("[%d/%d] correctness: strided put/get/acc with the recommended settings\n", ++step, steps);
    use_settings(tuned);
    long errors = check_settings();
    use_settings(defaults);
    if (errors) {
        say("pangea-tune: %ld wrong bytes or totals with %lld x %s: NOT writing %s\n", errors,
            tuned.buffers, size_text((size_t)tuned.size), opt.out);
        shmem_global_exit(1);
    }
    say("      every byte, guard and total right\n");

    if (me == 0) {
        if (nnodes > 1) {
            printf("\nMB/s: the fastest of %d rounds alternating default and tuned, then the "
                   "median of the rounds\n",
                   bench_rounds);
            printf("%-22s %6s %10s %10s %8s   %10s %10s %8s\n", "transfer", "bytes", "default",
                   "tuned", "gain", "median: d", "t", "gain");
            for (int st = 1; st >= 0; st--)
                for (int o = 0; o < 3; o++)
                    for (int i = 0; i < nbw; i++) {
                        double d = bw[i][st][o][0], t = bw[i][st][o][1];
                        double dm = bw_median[i][st][o][0], tm = bw_median[i][st][o][1];
                        char name[32];
                        snprintf(name, sizeof name, "%s %s", st ? "strided 2-D" : "contiguous",
                                 op_names[o]);
                        printf("%-22s %6s %10.1f %10.1f %+7.1f%%   %10.1f %10.1f %+7.1f%%\n", name,
                               size_text(bw_sizes[i]), d, t, 100 * (t / d - 1), dm, tm,
                               100 * (tm / dm - 1));
                    }
            printf("\n");
            write_plots(samples, count, &sw, bw_sizes, nbw, bw);
        }
        if (write_file(&tuned, rma, provider ? provider : "", nnodes, hosts, host_pattern,
                       load_start) != 0)
            shmem_global_exit(1);
        printf("wrote %s:\n", opt.out);
        FILE *f = fopen(opt.out, "r");
        char line[512];
        while (f && fgets(line, sizeof line, f))
            printf("  %s", line);
        if (f)
            fclose(f);
        char dflt[PG_TUNING_PATH_MAX];
        if (pg_config_default_tuning_path(dflt, sizeof dflt))
            printf("use it with PANGEA_TUNING_FILE=%s, or install it as %s\n", opt.out, dflt);
        printf("pangea-tune: done in %.1f s\n", (bench_now_us() - started) / 1e6);
    }
    shmem_barrier_all();
    shmem_free(remote);
    free(local);
    free(scratch);
    shmem_finalize();
    return 0;
}
