/* Small nbi puts to other nodes travel in batches (PANGEA_PUT_BATCH). Whatever the batch size:
 *
 * 1. Order: every PE writes a sequence of steps into its own slot on every PE — small nbi
 *    puts that overlap, blocking puts, puts too large to batch, strided puts, gets checked
 *    against a shadow copy right away (a get must see the puts issued before it) and atomic
 *    adds — then quiets.
 *    Every PE replays each source's sequence on a shadow and compares its slot byte for byte.
 * 2. Quiet: PE 0 puts to a PE of another node on two contexts, quiets one of them and tells a
 *    PE of its own node (by load/store), which reads the data with its own get: quiet must
 *    have sent the batch, since nothing else from PE 0 goes to that node before the get.
 * 3. Waits: two PEs of different nodes answer each other with small nbi puts only, each
 *    waiting for the other's put: a waiting PE must send what it has batched, or both wait
 *    forever. */
#include "check.h"

#define SLOT 8192
#define STEPS 400
#define BIG 3000 /* not batched at the default 16 KiB */

static int me, npes;
static unsigned char *slots;   /* symmetric: [npes][SLOT], slot s written by PE s */
static long *counter;          /* symmetric: atomic adds from every PE */
static unsigned char *payload; /* private source bytes */

static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 33;
}

static unsigned char byte_of(int src, int step, size_t i)
{
    return (unsigned char)(src * 31 + step * 7 + (int)i * 13 + 1);
}

/* Plays source src's steps towards target t on shadow (its slot there), issuing them when
 * issue is set. Returns how much src added to t's counter. */
static long play(int src, int t, unsigned char *shadow, int issue)
{
    uint64_t state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)src << 20) ^ (uint64_t)t;
    unsigned char *remote = slots + (size_t)src * SLOT;
    long added = 0;
    for (int step = 0; step < STEPS; step++) {
        unsigned kind = (unsigned)next_random(&state) % 16;
        if (kind < 11) { /* small put, mostly nbi */
            size_t n = 1 + next_random(&state) % 97, off = next_random(&state) % (SLOT - n);
            for (size_t i = 0; i < n; i++)
                payload[i] = byte_of(src, step, i);
            memcpy(shadow + off, payload, n);
            if (issue && kind < 9)
                shmem_putmem_nbi(remote + off, payload, n, t);
            else if (issue)
                shmem_putmem(remote + off, payload, n, t);
        } else if (kind == 11) { /* an nbi put too large to batch */
            size_t off = next_random(&state) % (SLOT - BIG);
            for (size_t i = 0; i < BIG; i++)
                payload[i] = byte_of(src, step, i);
            memcpy(shadow + off, payload, BIG);
            if (issue)
                shmem_putmem_nbi(remote + off, payload, BIG, t);
        } else if (kind == 12) { /* strided: every 3rd byte of 40 */
            size_t off = next_random(&state) % (SLOT - 120);
            for (size_t i = 0; i < 40; i++) {
                payload[i] = byte_of(src, step, i);
                shadow[off + 3 * i] = payload[i];
            }
            if (issue)
                shmem_uint8_iput(remote + off, payload, 3, 1, 40, t);
        } else if (kind == 13) { /* atomic add */
            long v = 1 + (long)(next_random(&state) % 5);
            added += v;
            if (issue)
                shmem_long_atomic_add(counter, v, t);
        } else { /* get, checked at once against the shadow */
            size_t n = 1 + next_random(&state) % 200, off = next_random(&state) % (SLOT - n);
            if (issue) {
                unsigned char got[200];
                shmem_getmem(got, remote + off, n, t);
                CHECK(memcmp(got, shadow + off, n) == 0,
                      "PE %d step %d: get of %zu bytes at %zu from PE %d misses earlier puts", src,
                      step, n, off, t);
            }
        }
    }
    return added;
}

static void check_order(void)
{
    memset(slots, 0, (size_t)npes * SLOT);
    *counter = 0;
    shmem_barrier_all();
    unsigned char *shadow = malloc(SLOT);
    for (int k = 0; k < npes; k++) {
        int t = (me + k) % npes;
        memset(shadow, 0, SLOT);
        play(me, t, shadow, 1);
    }
    shmem_quiet();
    shmem_barrier_all();
    long expected = 0;
    for (int src = 0; src < npes; src++) {
        memset(shadow, 0, SLOT);
        expected += play(src, me, shadow, 0);
        size_t bad = SLOT;
        for (size_t i = 0; i < SLOT && bad == SLOT; i++)
            if (slots[(size_t)src * SLOT + i] != shadow[i])
                bad = i;
        CHECK(bad == SLOT, "slot of PE %d: byte %zu is %u, expected %u", src, bad,
              bad < SLOT ? slots[(size_t)src * SLOT + bad] : 0u, bad < SLOT ? shadow[bad] : 0u);
    }
    CHECK(*counter == expected, "counter %ld, expected %ld", *counter, expected);
    free(shadow);
    shmem_barrier_all();
}

/* The first PE after `from` (cyclically) that is (same != 0) or is not on from's node. */
static int find_pe(const void *sym, int from, int same)
{
    for (int k = 1; k < npes; k++) {
        int pe = (from + k) % npes;
        if ((shmem_ptr(sym, pe) != NULL) == same)
            return pe;
    }
    return -1;
}

static void check_quiet(int use_ctx)
{
    static int roles[2], go, done;
    shmem_ctx_t a = SHMEM_CTX_DEFAULT, b = SHMEM_CTX_DEFAULT;
    if (use_ctx) {
        CHECK(shmem_ctx_create(0, &a) == 0 && shmem_ctx_create(0, &b) == 0, "contexts");
    }
    memset(slots, 0, (size_t)npes * SLOT);
    go = done = 0;
    if (me == 0) {
        roles[0] = find_pe(slots, 0, 0); /* another node */
        roles[1] = find_pe(slots, 0, 1); /* my node */
        for (int pe = 1; pe < npes; pe++)
            shmem_int_put(roles, roles, 2, pe);
    }
    shmem_barrier_all();
    int far = roles[0], near = roles[1];
    if (far >= 0 && near >= 0) {
        if (me == 0) {
            for (int i = 0; i < 64; i++) {
                unsigned char v[8];
                memset(v, 0xa0 + i % 16, sizeof v);
                shmem_ctx_putmem_nbi(a, slots + 16 * (size_t)i, v, 8, far);
                shmem_ctx_putmem_nbi(b, slots + SLOT + 16 * (size_t)i, v, 8, far);
            }
            shmem_ctx_quiet(a);
            shmem_int_atomic_set(&go, 1, near); /* on my node: a store, not a request */
            shmem_int_wait_until(&done, SHMEM_CMP_EQ, 1);
        } else if (me == near) {
            shmem_int_wait_until(&go, SHMEM_CMP_EQ, 1);
            unsigned char got[64 * 16];
            shmem_getmem(got, slots, sizeof got, far);
            int bad = -1;
            for (int i = 0; i < 64 && bad < 0; i++)
                for (int j = 0; j < 8; j++)
                    if (got[16 * i + j] != (unsigned char)(0xa0 + i % 16))
                        bad = i;
            CHECK(bad < 0, "%s: after PE 0's quiet, put %d is not at PE %d",
                  use_ctx ? "shmem_ctx_quiet" : "shmem_quiet", bad, far);
            shmem_int_atomic_set(&done, 1, 0);
        }
    }
    shmem_quiet();
    if (use_ctx) {
        shmem_ctx_quiet(b);
        shmem_ctx_destroy(a);
        shmem_ctx_destroy(b);
    }
    shmem_barrier_all();
}

static void check_waits(void)
{
    static long ball;
    static int partner;
    ball = 0;
    if (me == 0) {
        partner = find_pe(slots, 0, 0);
        for (int pe = 1; pe < npes; pe++)
            shmem_int_p(&partner, partner, pe);
    }
    shmem_barrier_all();
    if (partner >= 0 && (me == 0 || me == partner)) {
        for (long round = 1; round <= 50; round++) {
            if (me == 0)
                shmem_long_put_nbi(&ball, &round, 1, partner);
            shmem_long_wait_until(&ball, SHMEM_CMP_GE, round);
            if (me != 0)
                shmem_long_put_nbi(&ball, &round, 1, 0);
        }
        CHECK(ball == 50, "the rally ended at %ld", ball);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    slots = shmem_malloc((size_t)npes * SLOT);
    counter = shmem_malloc(sizeof *counter);
    payload = malloc(BIG);
    CHECK(slots && counter && payload, "allocation failed");
    if (slots && counter && payload) {
        check_order();
        check_quiet(0);
        check_quiet(1);
        check_waits();
    }
    free(payload);
    shmem_free(counter);
    shmem_free(slots);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
