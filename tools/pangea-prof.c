/* pangea-prof: summarises a communication profile (PANGEA_PROFILE=DIR): who sends how much to
 * whom, by node pair and by topology level, the time each PE waited, the imbalance; draws PE x
 * PE and node x node heatmaps (gnuplot PNG) or, with --text, prints the matrix as text.
 *
 *   pangea-prof [--text] [--top N] [-o OUTDIR] DIR
 *
 * Works alike for OpenSHMEM and ARMCI programs: both write the same files (docs/profile.md). */
#include "profile.h"
#include "plot.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define TEXT_MAX_PES 64 /* a wider PE matrix is shown by node */

struct pair {
    int from, to;
    uint64_t bytes, count;
};

static int by_bytes(const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    return x->from != y->from ? x->from - y->from : x->to - y->to;
}

/* node_bytes[nnodes * nnodes], from the PE matrix. */
static uint64_t *node_matrix(const struct profile *p)
{
    uint64_t *m = calloc((size_t)p->nnodes * (size_t)p->nnodes, sizeof *m);
    if (!m)
        return NULL;
    for (int i = 0; i < p->npes; i++)
        for (int j = 0; j < p->npes; j++)
            m[(size_t)p->place[i].node * (size_t)p->nnodes + (size_t)p->place[j].node] +=
                p->bytes[(size_t)i * (size_t)p->npes + (size_t)j];
    return m;
}

static const struct prof_place *node_place(const struct profile *p, int node)
{
    for (int i = 0; i < p->npes; i++)
        if (p->place[i].node == node)
            return &p->place[i];
    return &p->place[0];
}

static void max_over_mean(const char *what, const double *v, int n)
{
    double sum = 0, max = 0;
    int at = 0;
    for (int i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] > max) {
            max = v[i];
            at = i;
        }
    }
    if (sum > 0)
        printf("  %-12s max/mean %.2f (max on PE %d)\n", what, max / (sum / n), at);
    else
        printf("  %-12s none\n", what);
}

static void summary(const struct profile *p, const char *dir, const uint64_t *nodes, int top)
{
    int nswitch_leaves = 0;
    for (int n = 0; n < p->nnodes; n++) {
        char leaf[1][PROF_SWITCHES_TEXT];
        prof_switch_names(node_place(p, n)->switches, leaf, 1);
        int seen = 0;
        for (int m = 0; m < n && !seen; m++) {
            char other[1][PROF_SWITCHES_TEXT];
            prof_switch_names(node_place(p, m)->switches, other, 1);
            seen = strcmp(leaf[0], other[0]) == 0;
        }
        nswitch_leaves += !seen;
    }
    printf("profile %s: %d PEs on %d nodes under %d leaf switch%s\n", dir, p->npes, p->nnodes,
           nswitch_leaves, nswitch_leaves == 1 ? "" : "es");

    uint64_t total = 0, messages = 0, level[PROF_LEVELS] = {0}, internode = 0, hop_bytes = 0;
    for (int i = 0; i < p->npes; i++)
        for (int j = 0; j < p->npes; j++) {
            size_t at = (size_t)i * (size_t)p->npes + (size_t)j;
            total += p->bytes[at];
            messages += p->count[at];
            level[prof_level_of(&p->place[i], &p->place[j], i == j)] += p->bytes[at];
            if (p->place[i].node != p->place[j].node)
                internode += p->bytes[at];
            hop_bytes += p->bytes[at] * (uint64_t)prof_hops(&p->place[i], &p->place[j]);
        }
    printf("total bytes %" PRIu64 ", messages %" PRIu64 "\n", total, messages);
    for (int k = 0; k < PROF_OP_KINDS; k++) {
        uint64_t b = 0, c = 0;
        for (int i = 0; i < p->npes; i++) {
            b += p->pe[i].op_bytes[k];
            c += p->pe[i].op_count[k];
        }
        if (c || b)
            printf("  op %-16s bytes %" PRIu64 " count %" PRIu64 "\n", prof_op_names[k], b, c);
    }
    for (int k = 0; k < p->ncoll; k++)
        printf("  coll %-14s bytes %" PRIu64 " count %" PRIu64 "\n", p->coll[k].name,
               p->coll[k].bytes, p->coll[k].count);
    printf("bytes by level:");
    for (int l = 0; l < PROF_LEVELS; l++)
        printf(" %s %" PRIu64 "%s", prof_level_names[l], level[l],
               l + 1 < PROF_LEVELS ? "," : "\n");
    printf("inter-node bytes %" PRIu64 ", hop-bytes %" PRIu64 "\n", internode, hop_bytes);

    /* Busiest PE pairs and node pairs. */
    size_t cells = (size_t)p->npes * (size_t)p->npes, n = 0;
    struct pair *pairs = malloc(cells * sizeof *pairs);
    for (int i = 0; pairs && i < p->npes; i++)
        for (int j = 0; j < p->npes; j++) {
            size_t at = (size_t)i * (size_t)p->npes + (size_t)j;
            if (p->bytes[at] || p->count[at])
                pairs[n++] = (struct pair){i, j, p->bytes[at], p->count[at]};
        }
    if (pairs) {
        qsort(pairs, n, sizeof *pairs, by_bytes);
        printf("busiest PE pairs (of %zu):\n", n);
        for (size_t k = 0; k < n && k < (size_t)top; k++)
            printf("  PE %d -> PE %d: bytes %" PRIu64 " messages %" PRIu64 " (%s)\n", pairs[k].from,
                   pairs[k].to, pairs[k].bytes, pairs[k].count,
                   prof_level_names[prof_level_of(&p->place[pairs[k].from], &p->place[pairs[k].to],
                                                  pairs[k].from == pairs[k].to)]);
        n = 0;
        for (int a = 0; nodes && a < p->nnodes; a++)
            for (int b = 0; b < p->nnodes; b++) {
                uint64_t v = nodes[(size_t)a * (size_t)p->nnodes + (size_t)b];
                if (v)
                    pairs[n++] = (struct pair){a, b, v, 0};
            }
        qsort(pairs, n, sizeof *pairs, by_bytes);
        printf("bytes by node pair (of %zu):\n", n);
        for (size_t k = 0; k < n && k < (size_t)top; k++)
            printf("  node %d (%s) -> node %d (%s): bytes %" PRIu64 "\n", pairs[k].from,
                   node_place(p, pairs[k].from)->host, pairs[k].to,
                   node_place(p, pairs[k].to)->host, pairs[k].bytes);
        free(pairs);
    }

    /* Waits and imbalance. */
    double *sent = calloc((size_t)p->npes, sizeof *sent);
    double *waited = calloc((size_t)p->npes, sizeof *waited);
    double *elapsed = calloc((size_t)p->npes, sizeof *elapsed);
    printf("wait per PE (ms):%*s", 2, "");
    for (int k = 0; k < PROF_WAIT_KINDS; k++)
        printf(" %12s", prof_wait_names[k]);
    printf(" %12s %12s\n", "total", "elapsed");
    for (int i = 0; sent && waited && elapsed && i < p->npes; i++) {
        printf("  PE %-13d", i);
        uint64_t sum = 0;
        for (int k = 0; k < PROF_WAIT_KINDS; k++) {
            printf(" %12.3f", (double)p->pe[i].wait_ns[k] / 1e6);
            sum += p->pe[i].wait_ns[k];
        }
        printf(" %12.3f %12.3f\n", (double)sum / 1e6, (double)p->pe[i].elapsed_ns / 1e6);
        for (int j = 0; j < p->npes; j++)
            sent[i] += (double)p->bytes[(size_t)i * (size_t)p->npes + (size_t)j];
        waited[i] = (double)sum;
        elapsed[i] = (double)p->pe[i].elapsed_ns;
    }
    if (sent && waited && elapsed) {
        printf("imbalance:\n");
        max_over_mean("bytes sent", sent, p->npes);
        max_over_mean("wait time", waited, p->npes);
        max_over_mean("elapsed", elapsed, p->npes);
    }
    free(sent);
    free(waited);
    free(elapsed);
}

/* ---- the text matrix ------------------------------------------------------------------ */

/* '.' for nothing, 1..9 on a log scale up to the largest value. */
static char symbol(uint64_t v, uint64_t max)
{
    if (!v)
        return '.';
    if (max <= 1)
        return '9';
    int s = 1 + (int)floor(8.0 * log((double)v) / log((double)max) + 1e-9);
    return (char)('0' + (s < 1 ? 1 : s > 9 ? 9 : s));
}

static void text_matrix(const char *title, const uint64_t *m, int n, const char *label)
{
    uint64_t max = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        max = m[i] > max ? m[i] : max;
    char text[32];
    printf("%s (rows send to columns; 1-9 log scale, 9 = %s, . = none):\n", title,
           prof_bytes_text(max, text, sizeof text));
    for (int digit = n >= 10 ? 10 : 1; digit >= 1; digit /= 10) {
        printf("%*s", 12, "");
        for (int j = 0; j < n; j++)
            printf("%c", j >= digit || digit == 1 ? (char)('0' + j / digit % 10) : ' ');
        printf("\n");
    }
    for (int i = 0; i < n; i++) {
        printf("  %-4s %4d ", label, i);
        for (int j = 0; j < n; j++)
            putchar(symbol(m[(size_t)i * (size_t)n + (size_t)j], max));
        putchar('\n');
    }
}

/* ---- heatmaps ------------------------------------------------------------------------- */

/* Nodes in switch-tree order (by their switch path from the top), then by number. */
static const struct profile *sort_profile;
static int node_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    char px[16][PROF_SWITCHES_TEXT], py[16][PROF_SWITCHES_TEXT];
    int nx = prof_switch_names(node_place(sort_profile, x)->switches, px, 16);
    int ny = prof_switch_names(node_place(sort_profile, y)->switches, py, 16);
    for (int i = nx - 1, j = ny - 1; i >= 0 && j >= 0; i--, j--) {
        int c = strcmp(px[i], py[j]);
        if (c)
            return c;
    }
    return nx != ny ? nx - ny : x - y;
}

static int same_leaf(const struct profile *p, int node_a, int node_b)
{
    char a[1][PROF_SWITCHES_TEXT], b[1][PROF_SWITCHES_TEXT];
    prof_switch_names(node_place(p, node_a)->switches, a, 1);
    prof_switch_names(node_place(p, node_b)->switches, b, 1);
    return strcmp(a[0], b[0]) == 0;
}

/* Lines between the cells of different nodes (thin) and different leaf switches (thick), for
 * cells whose nodes, in plotted order, are node_of[0..n). */
static void boundaries(FILE *g, const struct profile *p, const int *node_of, int n)
{
    for (int k = 1; k < n; k++) {
        if (node_of[k] == node_of[k - 1])
            continue;
        int lw = same_leaf(p, node_of[k], node_of[k - 1]) ? 1 : 3;
        fprintf(g,
                "set arrow from %g,graph 0 to %g,graph 1 nohead front lw %d lc rgb 'black'\n"
                "set arrow from graph 0,first %g to graph 1,first %g nohead front lw %d lc rgb "
                "'black'\n",
                k - 0.5, k - 0.5, lw, k - 0.5, k - 0.5, lw);
    }
}

static void tics(FILE *g, const int *label, int n)
{
    if (n > 32) {
        fprintf(g, "set xtics auto\nset ytics auto\n");
        return;
    }
    for (int axis = 0; axis < 2; axis++) {
        fprintf(g, "set %ctics (", axis ? 'y' : 'x');
        for (int k = 0; k < n; k++)
            fprintf(g, "%s\"%d\" %d", k ? ", " : "", label[k], k);
        fprintf(g, ")\n");
    }
}

/* The colour range: the smallest and largest non-zero cells (a decade below when they are
 * equal, so that one value still gets a colour). */
static void colour_range(FILE *g, const uint64_t *m, int n)
{
    uint64_t lo = UINT64_MAX, hi = 0;
    for (size_t i = 0; i < (size_t)n * (size_t)n; i++)
        if (m[i]) {
            lo = m[i] < lo ? m[i] : lo;
            hi = m[i] > hi ? m[i] : hi;
        }
    if (!hi)
        lo = hi = 1;
    double bottom = lo == hi ? (double)lo / 10 : (double)lo;
    /* Labels at both ends and at each power of 32 between (32 B, 1 KiB, 32 KiB, ...): a range
     * within one decade would have no label of gnuplot's on a log scale. */
    char text[32];
    fprintf(g, "set cbrange [%g:%g]\nset cbtics ('%s' %g", bottom, (double)hi,
            prof_bytes_text((uint64_t)bottom, text, sizeof text), bottom);
    for (double tic = pow(32, ceil(log(bottom * 1.5) / log(32))); tic < (double)hi / 1.5; tic *= 32)
        fprintf(g, ", '%s' %g", prof_bytes_text((uint64_t)tic, text, sizeof text), tic);
    fprintf(g, ", '%s' %g)\n", prof_bytes_text(hi, text, sizeof text), (double)hi);
}

static int write_matrix(const char *path, const uint64_t *m, int n, const int *order)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (int a = 0; a < n; a++) {
        for (int b = 0; b < n; b++)
            fprintf(f, "%s%" PRIu64, b ? " " : "",
                    m[(size_t)order[a] * (size_t)n + (size_t)order[b]]);
        fprintf(f, "\n");
    }
    return fclose(f);
}

static int heatmaps(const struct profile *p, const uint64_t *nodes, const char *out)
{
    int *norder = malloc((size_t)p->nnodes * sizeof *norder);
    int *porder = malloc((size_t)p->npes * sizeof *porder);
    int *pnode = malloc((size_t)p->npes * sizeof *pnode);
    int status = -1;
    char path[4096];
    if (!norder || !porder || !pnode)
        goto done;
    for (int n = 0; n < p->nnodes; n++)
        norder[n] = n;
    sort_profile = p;
    qsort(norder, (size_t)p->nnodes, sizeof *norder, node_order);
    int k = 0;
    for (int n = 0; n < p->nnodes; n++)
        for (int i = 0; i < p->npes; i++)
            if (p->place[i].node == norder[n]) {
                pnode[k] = norder[n];
                porder[k++] = i;
            }
    snprintf(path, sizeof path, "%s/pe-bytes.dat", out);
    if (write_matrix(path, p->bytes, p->npes, porder) != 0) {
        fprintf(stderr, "pangea-prof: cannot write %s\n", path);
        goto done;
    }
    snprintf(path, sizeof path, "%s/node-bytes.dat", out);
    if (write_matrix(path, nodes, p->nnodes, norder) != 0) {
        fprintf(stderr, "pangea-prof: cannot write %s\n", path);
        goto done;
    }
    FILE *g = plot_open(out, 900, 800);
    if (!g) {
        printf("heatmaps: gnuplot not found (Debian package gnuplot-nox): no PNG files; the "
               "matrices are in %s/pe-bytes.dat and node-bytes.dat\n",
               out);
        status = 0;
        goto done;
    }
    const char *common =
        "set size ratio -1\nset logscale cb\n"
        "set cblabel 'bytes (log scale)'\n"
        "set palette defined (0 '#fff7bc', 1 '#fe9929', 2 '#cc4c02', 3 '#4d0000')\n"
        "set xlabel 'target'\nset ylabel 'issuer'\n"
        "set xtics out\nset ytics out\nunset key\n";
    fprintf(g, "%sset output 'pe-bytes.png'\n", common);
    fprintf(g, "set title 'bytes PE to PE (grouped by node; lines: nodes, thick: switches)'\n");
    fprintf(g, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", p->npes - 0.5, p->npes - 0.5);
    tics(g, porder, p->npes);
    colour_range(g, p->bytes, p->npes);
    boundaries(g, p, pnode, p->npes);
    fprintf(g, "plot 'pe-bytes.dat' matrix using 1:2:($3 > 0 ? $3 : NaN) with image\n");
    fprintf(g, "unset arrow\nset output 'node-bytes.png'\n");
    fprintf(g, "set title 'bytes node to node (thick lines: leaf switches)'\n");
    fprintf(g, "set xrange [-0.5:%g]\nset yrange [%g:-0.5]\n", p->nnodes - 0.5, p->nnodes - 0.5);
    tics(g, norder, p->nnodes);
    colour_range(g, nodes, p->nnodes);
    boundaries(g, p, norder, p->nnodes);
    fprintf(g, "plot 'node-bytes.dat' matrix using 1:2:($3 > 0 ? $3 : NaN) with image\n");
    if (plot_close(g) != 0) {
        fprintf(stderr, "pangea-prof: gnuplot reported an error drawing %s/*.png\n", out);
        goto done;
    }
    printf("heatmaps: %s/pe-bytes.png, %s/node-bytes.png\n", out, out);
    status = 0;
done:
    free(norder);
    free(porder);
    free(pnode);
    return status;
}

static void usage(FILE *to)
{
    fprintf(to,
            "usage: pangea-prof [--text] [--top N] [-o OUTDIR] DIR\n"
            "  DIR        a profile written with PANGEA_PROFILE=DIR (docs/profile.md)\n"
            "  --text     print the PE x PE matrix (node x node beyond %d PEs) as text\n"
            "             instead of drawing PNG heatmaps\n"
            "  --top N    how many busiest pairs to list (default 10)\n"
            "  -o OUTDIR  where pe-bytes.png and node-bytes.png go (default DIR)\n",
            TEXT_MAX_PES);
}

int main(int argc, char **argv)
{
    int text = 0, top = 10;
    const char *out = NULL;
    static const struct option longopts[] = {{"text", no_argument, NULL, 't'},
                                             {"top", required_argument, NULL, 'n'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            text = 1;
            break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 1000000) {
                fprintf(stderr, "pangea-prof: --top '%s' is not a count from 1\n", optarg);
                return 2;
            }
            top = (int)v;
            break;
        }
        case 'o':
            out = optarg;
            break;
        default:
            prof_usage_exit(c, usage);
        }
    }
    struct profile p;
    const char *dir = prof_load_argument("pangea-prof", argc, argv, optind, usage, &p);
    uint64_t *nodes = node_matrix(&p);
    if (!nodes) {
        fprintf(stderr, "pangea-prof: out of memory for %d nodes\n", p.nnodes);
        return 1;
    }
    summary(&p, dir, nodes, top);
    int status = 0;
    if (text) {
        if (p.npes <= TEXT_MAX_PES)
            text_matrix("bytes PE to PE", p.bytes, p.npes, "PE");
        if (p.nnodes > 1 || p.npes > TEXT_MAX_PES)
            text_matrix("bytes node to node", nodes, p.nnodes, "node");
    } else if (out && mkdir(out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "pangea-prof: cannot make the directory %s for the heatmaps: %s\n", out,
                strerror(errno));
        status = 1;
    } else {
        status = heatmaps(&p, nodes, out ? out : dir);
    }
    free(nodes);
    prof_free(&p);
    return status ? 1 : 0;
}
