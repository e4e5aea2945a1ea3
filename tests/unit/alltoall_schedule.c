/* The alltoall's exchange schedule between nodes under several leaf switches
 * (pg_coll_exchange_schedule), for trees of 2, 3 and 4 switches with even and uneven node
 * counts, contiguous and interleaved: every ordered pair of nodes exchanges exactly once; in
 * every step a node sends at most once and receives at most once, and no switch's uplink
 * carries more exchanges out or in than its share, ceil(k(n-k)/(n-1)) for a switch of k of
 * the n nodes; the schedule takes n-1 steps or not many more; the same input gives the same
 * schedule. The checker is shown to catch the rotation in node order, which sends all the
 * nodes of a switch across at once. */
#define UNIT_NAME "alltoall_schedule"
#include "unit.h"

#include "coll/coll_internal.h"

#include <stdlib.h>
#include <string.h>

/* Violations of the schedule's promises in to[nsteps][n], each printed under `what`. */
static int check(const char *what, const int *switch_of, int n, const int *to, int nsteps)
{
    int bad = 0;
    char *seen = calloc((size_t)n * (size_t)n, 1);
    int *received = malloc((size_t)n * sizeof *received);
    int *up = malloc((size_t)n * sizeof *up), *down = malloc((size_t)n * sizeof *down);
    for (int t = 0; t < nsteps; t++) {
        memset(received, 0, (size_t)n * sizeof *received);
        memset(up, 0, (size_t)n * sizeof *up);
        memset(down, 0, (size_t)n * sizeof *down);
        for (int i = 0; i < n; i++) {
            int j = to[(size_t)t * (size_t)n + (size_t)i];
            if (j < 0)
                continue;
            if (j >= n || j == i) {
                printf("  %s: step %d: node %d sends to %d\n", what, t, i, j);
                bad++;
                continue;
            }
            if (seen[(size_t)i * (size_t)n + (size_t)j]++) {
                printf("  %s: step %d: %d -> %d again\n", what, t, i, j);
                bad++;
            }
            if (received[j]++) {
                printf("  %s: step %d: node %d receives twice\n", what, t, j);
                bad++;
            }
            if (switch_of[i] != switch_of[j]) {
                up[i]++;
                down[j]++;
            }
        }
        for (int s = 0; s < n; s++) { /* switch_of[s]'s, counted at its first node */
            int first = 1, k = 0, across_up = 0, across_down = 0;
            for (int j = 0; j < n; j++)
                if (switch_of[j] == switch_of[s]) {
                    first &= j >= s;
                    k++;
                    across_up += up[j];
                    across_down += down[j];
                }
            if (!first)
                continue;
            int share = (k * (n - k) + n - 2) / (n - 1);
            if (across_up > share || across_down > share) {
                printf("  %s: step %d: switch %d (%d nodes) carries %d out, %d in; share %d\n",
                       what, t, switch_of[s], k, across_up, across_down, share);
                bad++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && seen[(size_t)i * (size_t)n + (size_t)j] != 1) {
                printf("  %s: %d -> %d %s\n", what, i, j,
                       seen[(size_t)i * (size_t)n + (size_t)j] ? "twice" : "never");
                bad++;
            }
    free(seen);
    free(received);
    free(up);
    free(down);
    return bad;
}

static void expect_schedule(int line, const int *switch_of, int n)
{
    /* The whole schedule, from every node's order. */
    int nsteps = -1, partner[64], step[64], again[64], rows = 2 * n;
    int *to = malloc((size_t)rows * (size_t)n * sizeof *to);
    for (int k = 0; k < rows * n; k++)
        to[k] = -1;
    for (int i = 0; i < n; i++) {
        int steps = pg_coll_exchange_order(n, switch_of, i, partner, step);
        EXPECT(steps > 0 && (nsteps < 0 || steps == nsteps),
               "case of line %d: node %d sees %d steps", line, i, steps);
        if (steps <= 0)
            continue;
        nsteps = steps;
        for (int k = 0; k < n - 1; k++) {
            EXPECT(step[k] >= 0 && step[k] < steps && (k == 0 || step[k] > step[k - 1]),
                   "case of line %d: node %d's exchange %d in step %d", line, i, k, step[k]);
            if (step[k] >= 0 && step[k] < rows)
                to[(size_t)step[k] * (size_t)n + (size_t)i] = partner[k];
        }
        pg_coll_exchange_order(n, switch_of, i, again, NULL);
        EXPECT(memcmp(again, partner, (size_t)(n - 1) * sizeof *again) == 0,
               "case of line %d: a second call gave node %d another order", line, i);
    }
    if (nsteps < 0 || nsteps > rows) {
        EXPECT(0, "case of line %d: %d steps for %d nodes", line, nsteps, n);
        free(to);
        return;
    }
    char what[32];
    snprintf(what, sizeof what, "line %d", line);
    EXPECT(check(what, switch_of, n, to, nsteps) == 0, "case of line %d: %d nodes, %d steps", line,
           n, nsteps);
    /* The greedy adds a few steps where the shares cannot all be met in n-1 (TACS1 does too). */
    EXPECT(nsteps >= n - 1 && nsteps <= n - 1 + (n + 3) / 4,
           "case of line %d: %d steps for %d nodes", line, nsteps, n);
    free(to);
}

/* Switches of the given sizes, numbered from `base`, their nodes contiguous. */
static int contiguous(int *switch_of, const int *sizes, int nswitches, int base)
{
    int n = 0;
    for (int s = 0; s < nswitches; s++)
        for (int k = 0; k < sizes[s]; k++)
            switch_of[n++] = base + s;
    return n;
}

int main(void)
{
    int sw[64];
    static const struct {
        int line, nswitches, sizes[4];
    } trees[] = {
        {__LINE__, 2, {1, 1}},          {__LINE__, 2, {2, 2}},       {__LINE__, 2, {3, 1}},
        {__LINE__, 2, {4, 4}},          {__LINE__, 2, {3, 5}},       {__LINE__, 2, {8, 8}},
        {__LINE__, 2, {30, 2}},         {__LINE__, 3, {3, 3, 2}},    {__LINE__, 3, {6, 6, 6}},
        {__LINE__, 3, {1, 1, 1}},       {__LINE__, 3, {4, 1, 7}},    {__LINE__, 4, {2, 2, 2, 2}},
        {__LINE__, 4, {5, 2, 1, 1}},    {__LINE__, 4, {5, 3, 7, 1}}, {__LINE__, 4, {10, 3, 3, 12}},
        {__LINE__, 4, {16, 16, 16, 16}}};
    for (size_t c = 0; c < sizeof trees / sizeof *trees; c++) {
        int n = contiguous(sw, trees[c].sizes, trees[c].nswitches, (int)c * 3);
        expect_schedule(trees[c].line, sw, n);
    }
    /* Nodes of three switches interleaved, switches numbered at random. */
    static const int ids[3] = {42, 7, 19};
    for (int i = 0; i < 12; i++)
        sw[i] = ids[i % 3];
    expect_schedule(__LINE__, sw, 12);
    for (int i = 0; i < 13; i++)
        sw[i] = ids[(i * i) % 3];
    expect_schedule(__LINE__, sw, 13);
    /* One switch: nothing crosses; every pair still once. */
    memset(sw, 0, sizeof sw);
    expect_schedule(__LINE__, sw, 9);

    /* The rotation in node order over two switches of 4 sends all 4 nodes of a switch across
     * in its middle step, above the share of 3 (16 exchanges across in 7 steps). */
    int n = contiguous(sw, (const int[]){4, 4}, 2, 0);
    int rotation[7 * 8];
    for (int t = 0; t < n - 1; t++)
        for (int i = 0; i < n; i++)
            rotation[t * n + i] = (i + t + 1) % n;
    printf("  (the rotation's violations, expected:)\n");
    EXPECT(check("rotation", sw, n, rotation, n - 1) > 0,
           "the rotation in node order passed the check");
    return unit_finish();
}
