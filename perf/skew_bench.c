/* skew_bench: what one late PE costs the others (issue 27, part 4). With one PE delayed by D
 * before it enters, the time the on-time PEs spend in a barrier (shmem_barrier_all) and in a
 * broadcast from an on-time root (shmem_broadcastmem on WORLD, root 0), against D = 0.
 *
 *   skew_bench [-d D_MS,...] [-s BYTES,...] [-i ITERS] [-r ROUNDS]
 *
 * The late PE is, in turn, a leaf of the broadcast tree (the last PE) and an interior PE that
 * forwards to others (the first PE of the second node, or on one node PE 1, which heads the
 * largest subtree: tests/common/check.h, test_tree_member). Every sample starts from a barrier;
 * then the late PE sleeps D and every PE times its call. The D values are measured in alternation,
 * ROUNDS times ITERS samples each, so that a change of the machine's load falls on all of them
 * alike. Reported per case and D, over the on-time PEs (each PE's median over its samples): slowest
 * the largest median, in microseconds mean      the mean of the medians extra     slowest minus the
 * same at the first D (0 by default): what the late PE costs the slowest on-time PE delayed   how
 * many on-time PEs took D/2 longer than at the first D (those that waited for the late PE) Targets
 * (issue 27): a broadcast's extra near 0, a barrier's at most D plus one message latency. Needs a
 * symmetric heap of a little more than the largest size (SHMEM_SYMMETRIC_SIZE). */
#include "check.h"

#include "bench_util.h"

#define MAX_DS 8
#define MAX_SIZES 8

static int me, npes;
static int *node_of;
static double *medians;       /* [npes] on PE 0: each PE's median of a case */
static double *first_medians; /* [npes] on PE 0: the same at the case's first D */

struct options {
    double d_ms[MAX_DS];
    size_t sizes[MAX_SIZES];
    int nds, nsizes, iters, rounds;
};

static int parse_list(const char *text, double *d, size_t *sizes, int most)
{
    int n = 0;
    for (const char *at = text; *at && n < most; n++) {
        if (d)
            d[n] = atof(at);
        else
            sizes[n] = bench_size(at);
        at += strcspn(at, ",");
        at += *at == ',';
    }
    return n;
}

static void options(int argc, char **argv, struct options *o)
{
    *o = (struct options){{0, 1, 10}, {8, 64 << 10, 1 << 20}, 3, 3, 10, 3};
    for (int opt; (opt = getopt(argc, argv, "d:s:i:r:")) != -1;) {
        if (opt == 'd')
            o->nds = parse_list(optarg, o->d_ms, NULL, MAX_DS);
        else if (opt == 's')
            o->nsizes = parse_list(optarg, NULL, o->sizes, MAX_SIZES);
        else if (opt == 'i')
            o->iters = atoi(optarg);
        else if (opt == 'r')
            o->rounds = atoi(optarg);
    }
    if (o->iters < 1)
        o->iters = 1;
    if (o->rounds < 1)
        o->rounds = 1;
    if (o->iters * o->rounds > BENCH_MAX_SAMPLE)
        o->rounds = BENCH_MAX_SAMPLE / o->iters;
}

/* One case: a barrier (bytes 0) or a broadcast of bytes from PE 0, PE late delayed. */
struct skew_case {
    size_t bytes;
    int late;
    const char *place;
};

static double timed_call(const struct skew_case *c, double d_ms, char *dest, const char *source)
{
    shmem_barrier_all();
    if (me == c->late && d_ms > 0)
        test_sleep_us((long)(d_ms * 1000));
    double t0 = bench_now_us();
    if (c->bytes)
        shmem_broadcastmem(SHMEM_TEAM_WORLD, dest, source, c->bytes, 0);
    else
        shmem_barrier_all();
    return bench_now_us() - t0;
}

/* Prints a line; the first D's slowest is the reference of the extras (is_first: it is). */
static void report(const struct skew_case *c, double d_ms, int is_first, double *reference)
{
    double slowest = 0, sum = 0;
    int delayed = 0;
    if (is_first)
        memcpy(first_medians, medians, (size_t)npes * sizeof *medians);
    for (int pe = 0; pe < npes; pe++) {
        if (pe == c->late)
            continue;
        slowest = medians[pe] > slowest ? medians[pe] : slowest;
        sum += medians[pe];
        delayed += !is_first && medians[pe] - first_medians[pe] > d_ms * 500;
    }
    if (is_first)
        *reference = slowest;
    printf("%-9s %8zu %-8s %4d %6.1f %10.1f %10.1f %10.1f %5d/%d\n",
           c->bytes ? "broadcast" : "barrier", c->bytes, c->place, c->late, d_ms, slowest,
           sum / (npes - 1), slowest - *reference, delayed, npes - 1);
}

int main(int argc, char **argv)
{
    struct options o;
    options(argc, argv, &o);
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    size_t largest = 0;
    for (int k = 0; k < o.nsizes; k++)
        largest = o.sizes[k] > largest ? o.sizes[k] : largest;
    node_of = shmem_calloc((size_t)npes, sizeof *node_of);
    medians = shmem_calloc((size_t)npes, sizeof *medians);
    first_medians = calloc((size_t)npes, sizeof *first_medians);
    char *dest = shmem_malloc(largest ? largest : 1);
    char *source = shmem_malloc(largest ? largest : 1);
    if (npes < 3 || !node_of || !medians || !first_medians || !dest || !source) {
        if (me == 0)
            fprintf(stderr, "skew_bench: needs 3 or more PEs and %zu B of symmetric heap\n",
                    2 * largest);
        shmem_finalize();
        return 1;
    }
    memset(source, 1, largest);
    test_node_table(node_of);

    struct skew_case cases[2 * (MAX_SIZES + 1)];
    int ncases = 0;
    for (int k = -1; k < o.nsizes; k++) {
        size_t bytes = k < 0 ? 0 : o.sizes[k];
        cases[ncases++] = (struct skew_case){
            bytes, test_tree_member(SHMEM_TEAM_WORLD, TEST_TREE_LEAF, 0, node_of), "leaf"};
        cases[ncases++] = (struct skew_case){
            bytes, test_tree_member(SHMEM_TEAM_WORLD, TEST_TREE_INTERIOR, 0, node_of), "interior"};
    }
    int nodes = 0;
    for (int pe = 0; pe < npes; pe++)
        nodes += node_of[pe] == pe;
    if (me == 0)
        printf("# skew_bench: %d PEs on %d nodes, %d x %d samples per case, times in us\n"
               "%-9s %8s %-8s %4s %6s %10s %10s %10s %s\n",
               npes, nodes, o.rounds, o.iters, "call", "bytes", "late", "pe", "D_ms", "slowest",
               "mean", "extra", "delayed");

    double sample[MAX_DS][BENCH_MAX_SAMPLE];
    for (int c = 0; c < ncases; c++) {
        for (int r = 0; r < o.rounds; r++)
            for (int d = 0; d < o.nds; d++)
                for (int i = 0; i < o.iters; i++)
                    sample[d][r * o.iters + i] = timed_call(&cases[c], o.d_ms[d], dest, source);
        double reference = 0;
        for (int d = 0; d < o.nds; d++) {
            shmem_double_p(&medians[me], bench_median(sample[d], o.rounds * o.iters), 0);
            shmem_barrier_all();
            if (me == 0)
                report(&cases[c], o.d_ms[d], d == 0, &reference);
            shmem_barrier_all();
        }
    }
    fflush(stdout);
    shmem_barrier_all();
    shmem_free(source);
    shmem_free(dest);
    shmem_free(medians);
    free(first_medians);
    shmem_free(node_of);
    shmem_finalize();
    return 0;
}
