/* Rails and failover (docs/reliability.md, "Rails"), run by tests/netns/rails.sh across
 * 2 emulated nodes with two links each (netns-run.sh --rails 2). With TEST_LINK_DOWN=IF, the
 * first PE of the second node takes its link IF down (ip link set IF down, in its node's network
 * namespace) in the middle of the traffic, and the job must go on over the other rail:
 *  - transfer: PE 0 puts TRANSFER bytes to the first PE of the last node in CHUNK pieces;
 *    the link goes down once a quarter has landed (PE 0 raises a flag there after each piece).
 *    The target checks every byte and the guard bytes around them, then PE 0 gets it all back
 *    and checks it again;
 *  - amo: every PE does ROUNDS fetch-adds on a word of PE 0 and ROUNDS adds on a word of the
 *    last PE; the link goes down when the target PE is half-way. The old values are exactly
 *    0 .. npes*ROUNDS-1, each once, and the sum of the adds is exact.
 * With TEST_LINK_UP too (amo), the link comes back up shortly after, and every PE then adds to a
 * word of PE 0 for 2.5 s, while the rail is tried again and rejoins: the total is exact.
 *  - stripe: PE 0 puts STRIPED bytes to the target and gets them back, both links up; every
 *    byte and the guards around them are checked, and each link of PE 0's node sent at least
 *    a quarter of the bytes while the put went, each of the target's node while the get went
 *    (PANGEA_RAIL_STRIPE: the chunks take the rails in turn).
 *  - probe: the target takes its link TEST_LINK_DOWN down and, PROBE_DOWN seconds later, up
 *    again, while PE 0 puts and gets back STRIPED bytes in turn (checked each time) until
 *    PROBE_AFTER seconds after that. Meanwhile PE 0's node takes the rail out, reopens it (its
 *    own link is up) and probes it: unanswered while the target's link is down, answered after
 *    (tests/netns/rails.sh checks PE 0's counts at finalize).
 * Without TEST_LINK_DOWN both rails stay up: the same exact results. */
#include "check.h"

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRANSFER (128L << 20)
#define CHUNK (4L << 20)
#define GUARD 64
#define GUARD_BYTE 0x5A
#define ROUNDS 1500
#define MAX_PES 8
#define STRIPED (4L << 20)
#define PROBE_DOWN 4.0
#define PROBE_AFTER 4.0

static long landed; /* pieces PE 0 has put so far (raised after each, in order) */
static long counter, adds, tail, tail_ops;
static long fetched_all[MAX_PES * ROUNDS];

static unsigned char pattern(long i)
{
    return (unsigned char)(i * 7 + (i >> 13) + 1);
}

static void set_link(const char *name, const char *state)
{
    char command[128];
    snprintf(command, sizeof command, "ip link set dev %s %s", name, state);
    CHECK(system(command) == 0, "%s failed", command);
    printf("PE %d: link %s set %s\n", shmem_my_pe(), name, state);
    fflush(stdout);
}

static void link_down(const char *name)
{
    set_link(name, "down");
}

static void transfer(int target, const char *down)
{
    int me = shmem_my_pe();
    unsigned char *region = shmem_malloc(TRANSFER + 2 * GUARD);
    CHECK(region != NULL, "shmem_malloc of %ld bytes", TRANSFER + 2 * GUARD);
    memset(region, GUARD_BYTE, TRANSFER + 2 * GUARD);
    shmem_barrier_all();
    if (me == 0) {
        unsigned char *src = malloc(TRANSFER);
        CHECK(src != NULL, "malloc");
        for (long i = 0; i < TRANSFER; i++)
            src[i] = pattern(i);
        for (long at = 0; at < TRANSFER; at += CHUNK) {
            shmem_putmem(region + GUARD + at, src + at, CHUNK, target);
            shmem_fence();
            shmem_long_atomic_set(&landed, at / CHUNK + 1, target);
        }
        shmem_quiet();
        free(src);
    } else if (me == target && down) {
        shmem_long_wait_until(&landed, SHMEM_CMP_GE, TRANSFER / CHUNK / 4);
        link_down(down);
    }
    shmem_barrier_all();
    if (me == target) {
        for (long i = 0; i < TRANSFER; i++)
            CHECK(region[GUARD + i] == pattern(i), "byte %ld is %u, want %u", i, region[GUARD + i],
                  pattern(i));
        for (int i = 0; i < GUARD; i++)
            CHECK(region[i] == GUARD_BYTE && region[GUARD + TRANSFER + i] == GUARD_BYTE,
                  "guard byte %d changed", i);
    }
    if (me == 0) {
        unsigned char *back = malloc(TRANSFER + 2 * GUARD);
        CHECK(back != NULL, "malloc");
        shmem_getmem(back, region, TRANSFER + 2 * GUARD, target);
        for (long i = 0; i < TRANSFER; i++)
            CHECK(back[GUARD + i] == pattern(i), "byte %ld got back is %u", i, back[GUARD + i]);
        for (int i = 0; i < GUARD; i++)
            CHECK(back[i] == GUARD_BYTE && back[GUARD + TRANSFER + i] == GUARD_BYTE,
                  "guard byte %d got back changed", i);
        free(back);
    }
    shmem_barrier_all();
    shmem_free(region);
}

/* Bytes the link has sent, from its node's counters. */
static long long tx_bytes(const char *link)
{
    char path[96];
    long long bytes = -1;
    snprintf(path, sizeof path, "/sys/class/net/%s/statistics/tx_bytes", link);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "cannot open %s", path);
    if (f) {
        CHECK(fscanf(f, "%lld", &bytes) == 1, "cannot read %s", path);
        fclose(f);
    }
    return bytes;
}

static void tx_both(long long out[2])
{
    out[0] = tx_bytes("pgeth0");
    out[1] = tx_bytes("pgeth1");
}

/* Each link sent at least a quarter of STRIPED bytes between before and after. */
static void check_both_sent(const long long before[2], const long long after[2], const char *what)
{
    for (int k = 0; k < 2; k++)
        CHECK(after[k] - before[k] >= STRIPED / 4,
              "pgeth%d sent %lld bytes during the %s of %ld bytes: the rails did not share it", k,
              after[k] - before[k], what, STRIPED);
}

/* PE 0 puts STRIPED bytes (pattern shifted by round) into region + GUARD at the target, which
 * checks them, then gets them back with the guards and checks again; with check_links, each
 * link of the sending node sent a quarter of them at least. */
static void put_and_get(unsigned char *region, int target, long round, int check_links)
{
    int me = shmem_my_pe();
    long long before[2], after[2];
    shmem_barrier_all();
    tx_both(before);
    shmem_barrier_all();
    if (me == 0) {
        unsigned char *src = malloc(STRIPED);
        CHECK(src != NULL, "malloc");
        for (long i = 0; i < STRIPED; i++)
            src[i] = pattern(i + round);
        shmem_putmem(region + GUARD, src, STRIPED, target);
        shmem_quiet();
        free(src);
    }
    shmem_barrier_all();
    tx_both(after);
    if (me == 0 && check_links)
        check_both_sent(before, after, "put");
    if (me == target) {
        for (long i = 0; i < STRIPED; i++)
            CHECK(region[GUARD + i] == pattern(i + round), "round %ld: byte %ld is %u, want %u",
                  round, i, region[GUARD + i], pattern(i + round));
        for (int i = 0; i < GUARD; i++)
            CHECK(region[i] == GUARD_BYTE && region[GUARD + STRIPED + i] == GUARD_BYTE,
                  "round %ld: guard byte %d changed", round, i);
    }
    shmem_barrier_all();
    if (me == 0) {
        unsigned char *back = malloc(STRIPED + 2 * GUARD);
        CHECK(back != NULL, "malloc");
        memset(back, 0xA5, STRIPED + 2 * GUARD);
        shmem_getmem(back + GUARD, region + GUARD, STRIPED, target);
        for (long i = 0; i < STRIPED; i++)
            CHECK(back[GUARD + i] == pattern(i + round), "round %ld: byte %ld got back is %u",
                  round, i, back[GUARD + i]);
        for (int i = 0; i < GUARD; i++)
            CHECK(back[i] == 0xA5 && back[GUARD + STRIPED + i] == 0xA5,
                  "round %ld: a byte around the get changed (%d)", round, i);
        free(back);
    }
    shmem_barrier_all();
    tx_both(before);
    if (me == target && check_links)
        check_both_sent(after, before, "get");
}

static void stripe(int target)
{
    unsigned char *region = shmem_malloc(STRIPED + 2 * GUARD);
    CHECK(region != NULL, "shmem_malloc of %ld bytes", STRIPED + 2 * GUARD);
    memset(region, GUARD_BYTE, STRIPED + 2 * GUARD);
    put_and_get(region, target, 0, 1);
    shmem_barrier_all();
    shmem_free(region);
}

/* Rounds of put_and_get while the target's link goes down and, PROBE_DOWN seconds later, up
 * again, until PROBE_AFTER seconds after that. PE 0 keeps time; the rounds' count goes with
 * its decisions (a word at every PE), so that all PEs do the same rounds. */
static long probe_phase;
static void probe(int target, const char *link)
{
    int me = shmem_my_pe(), npes = shmem_n_pes();
    unsigned char *region = shmem_malloc(STRIPED + 2 * GUARD);
    CHECK(region != NULL, "shmem_malloc of %ld bytes", STRIPED + 2 * GUARD);
    memset(region, GUARD_BYTE, STRIPED + 2 * GUARD);
    if (me == target)
        link_down(link);
    double start = test_now();
    for (long round = 1;; round++) {
        put_and_get(region, target, round, 0);
        if (me == 0) {
            double t = test_now() - start;
            long phase = t < PROBE_DOWN ? 0 : t < PROBE_DOWN + PROBE_AFTER ? 1 : 2;
            for (int pe = 0; pe < npes; pe++)
                shmem_long_p(&probe_phase, phase, pe);
            shmem_quiet();
        }
        shmem_barrier_all();
        if (probe_phase == 2)
            break;
        if (probe_phase == 1 && me == target && link) {
            set_link(link, "up");
            link = NULL;
        }
    }
    shmem_barrier_all();
    shmem_free(region);
}

/* After the link came back up: every PE adds to a word of PE 0 for TAIL_SECONDS, while the
 * rail is tried again and rejoins; the total is exactly the adds all PEs counted. */
#define TAIL_SECONDS 2.5
static void amo_tail(void)
{
    long mine = 0;
    for (double end = test_now() + TAIL_SECONDS; test_now() < end; mine++)
        shmem_long_atomic_fetch_add(&tail, 1, 0);
    shmem_long_atomic_add(&tail_ops, mine, 0);
    shmem_barrier_all();
    if (shmem_my_pe() == 0)
        CHECK(tail == tail_ops, "tail counter %ld, but the PEs did %ld adds", tail, tail_ops);
}

static void amo_storm(int target, const char *down, int up_again)
{
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    long fetched[ROUNDS];
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        if (me == target && down && r == ROUNDS / 2)
            link_down(down);
        if (me == target && down && up_again && r == ROUNDS / 2 + 100)
            set_link(down, "up");
        fetched[r] = shmem_long_atomic_fetch_add(&counter, 1, 0);
        shmem_long_atomic_add(&adds, r + 1, last);
    }
    shmem_long_put(fetched_all + me * ROUNDS, fetched, ROUNDS, 0);
    shmem_barrier_all();
    if (me == 0) {
        long total = (long)npes * ROUNDS;
        char *seen = calloc((size_t)total, 1);
        CHECK(seen != NULL, "calloc");
        CHECK(counter == total, "counter %ld, want %ld", counter, total);
        for (long i = 0; i < total; i++) {
            long v = fetched_all[i];
            CHECK(v >= 0 && v < total && !seen[v], "old value %ld out of range or twice", v);
            if (v >= 0 && v < total)
                seen[v] = 1;
        }
        free(seen);
    }
    if (me == last)
        CHECK(adds == (long)npes * ROUNDS * (ROUNDS + 1) / 2, "adds %ld", adds);
    shmem_barrier_all();
    if (up_again)
        amo_tail();
}

int main(void)
{
    shmem_init();
    int npes = shmem_n_pes();
    const char *down = getenv("TEST_LINK_DOWN");
    const char *which = getenv("TEST_CASE") ? getenv("TEST_CASE") : "transfer";
    if (npes > MAX_PES) {
        if (shmem_my_pe() == 0)
            printf("SKIP rail_failover: at most %d PEs\n", MAX_PES);
        shmem_finalize();
        return 0;
    }
    /* The first PE of the second of two nodes (the PEs are placed in blocks). */
    int target = npes / 2;
    if (strcmp(which, "amo") == 0)
        amo_storm(target, down, getenv("TEST_LINK_UP") != NULL);
    else if (strcmp(which, "stripe") == 0)
        stripe(target);
    else if (strcmp(which, "probe") == 0)
        probe(target, down ? down : "pgeth1");
    else
        transfer(target, down);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
