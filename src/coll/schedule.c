/* The order of an alltoall's exchanges between nodes under several leaf switches
 * (Subramoni ch. 6). A rotation in node order sends every node of a switch across at once in
 * its middle steps and none in its first and last, so an oversubscribed uplink is
 * congested half the time and idle the rest. Here each step is a set of exchanges in which a
 * node sends to at most one node and receives from at most one, and a switch's uplink carries
 * at most its share: its exchanges across, spread evenly over the n-1 steps of a full
 * exchange. Finding such a schedule in n-1 steps is hard in general; like the paper's TACS1,
 * a greedy one fills each step as far as the shares allow and adds steps when needed. */
#include "coll_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The exchanges across of node's switch in a full exchange, k(n-k), over its n-1 steps,
 * rounded up. */
static int uplink_share(int n, const int *switch_of, int node)
{
    int k = 0;
    for (int j = 0; j < n; j++)
        k += switch_of[j] == switch_of[node];
    return n > 1 ? (int)(((long long)k * (n - k) + n - 2) / (n - 1)) : 0;
}

/* Senders by the work they have left, most first (they would otherwise need extra steps at
 * the end), then in a rotation that moves by one each step. */
struct sender {
    long long key;
    int node;
};

static int by_key(const void *a, const void *b)
{
    long long x = ((const struct sender *)a)->key, y = ((const struct sender *)b)->key;
    return (x > y) - (x < y);
}

static int done_bit(const uint8_t *done, int n, int i, int j)
{
    size_t cell = (size_t)i * (size_t)n + (size_t)j;
    return done[cell / 8] >> (cell % 8) & 1;
}

int pg_coll_exchange_order(int n, const int *switch_of, int node, int *partner, int *step)
{
    /* Switches renumbered 0..m-1, and each one's share. */
    int *sw = malloc((size_t)n * sizeof *sw), *share = malloc((size_t)n * sizeof *share);
    int *up = calloc((size_t)n, sizeof *up), *down = calloc((size_t)n, sizeof *down);
    int *left = malloc((size_t)n * sizeof *left),
        *receiving = malloc((size_t)n * sizeof *receiving);
    int *first = malloc((size_t)n * sizeof *first); /* node i's first partner not yet done: i+d */
    struct sender *order = malloc((size_t)n * sizeof *order);
    size_t cells = (size_t)n * (size_t)n;
    uint8_t *done = calloc((cells + 7) / 8, 1);
    int nsteps = -1, made = 0;
    if (!sw || !share || !up || !down || !left || !receiving || !first || !order || !done)
        goto finish;
    int m = 0;
    for (int i = 0; i < n; i++) {
        sw[i] = -1;
        for (int j = 0; j < i && sw[i] < 0; j++)
            if (switch_of[j] == switch_of[i])
                sw[i] = sw[j];
        if (sw[i] < 0) {
            share[m] = uplink_share(n, switch_of, i);
            sw[i] = m++;
        }
        left[i] = n - 1;
        first[i] = 1;
    }
    long long pairs = (long long)n * (n - 1);
    nsteps = 0;
    for (int t = 0; pairs > 0; t++) {
        memset(up, 0, (size_t)m * sizeof *up);
        memset(down, 0, (size_t)m * sizeof *down);
        for (int i = 0; i < n; i++) {
            receiving[i] = 0;
            order[i].node = i;
            order[i].key = (long long)(n - left[i]) * n + (i - t % n + n) % n;
        }
        qsort(order, (size_t)n, sizeof *order, by_key);
        /* The first sender always finds a partner (every receiver is free and every share
         * is at least 1 when there is an exchange across), so each step makes progress. */
        for (int r = 0; r < n && left[order[r].node] > 0; r++) {
            int i = order[r].node;
            for (int d = first[i]; d < n; d++) {
                int j = (i + d) % n;
                if (receiving[j] || done_bit(done, n, i, j))
                    continue;
                int across = sw[i] != sw[j];
                if (across && (up[sw[i]] >= share[sw[i]] || down[sw[j]] >= share[sw[j]]))
                    continue;
                up[sw[i]] += across;
                down[sw[j]] += across;
                size_t cell = (size_t)i * (size_t)n + (size_t)j;
                done[cell / 8] |= (uint8_t)(1u << (cell % 8));
                receiving[j] = 1;
                if (i == node) {
                    partner[made] = j;
                    if (step)
                        step[made] = t;
                    made++;
                }
                left[i]--;
                pairs--;
                while (first[i] < n && done_bit(done, n, i, (i + first[i]) % n))
                    first[i]++;
                break;
            }
        }
        nsteps = t + 1;
    }
finish:
    free(sw);
    free(share);
    free(up);
    free(down);
    free(left);
    free(receiving);
    free(first);
    free(order);
    free(done);
    return nsteps;
}
