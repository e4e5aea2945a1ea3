/* The communication profile (PANGEA_PROFILE) of known patterns, run by tests/prof/check.sh:
 * the program checks the data its pattern moved, notes every operation and wait it made
 * (tests/common/profile_expect.h) and the script compares the profile with that, exactly.
 * TEST_PROFILE_CASE: ring, stencil (2-D 5-point on a px x py grid), all2one, alltoall, amo
 * (AMOs and signals), waits (quiet, barrier, sync, wait_until, locks), threads (at
 * SHMEM_THREAD_MULTIPLE, THREADS threads put and add to the right neighbour at once: the
 * counts must be exact under contention). Every symmetric object
 * is static: a collective allocation would add its own barrier to the waits. */
#include <pthread.h>
#include <shmem.h>

#include "check.h"
#include "profile_expect.h"

#define RING_PUTS 5
#define RING_BYTES 24
#define RING_GETS 3
#define GET_BYTES 16
#define TILE 6 /* a stencil tile's side, in doubles */
#define STEPS 3
#define ALL2ONE_PUTS 4
#define ALL2ONE_BYTES 40
#define BLOCK 64

static unsigned char ring_in[RING_PUTS * RING_BYTES], ring_out[RING_PUTS * RING_BYTES];
static double halo_north[TILE], halo_south[TILE], halo_east[TILE], halo_west[TILE];
static double tile[TILE][TILE];
static unsigned char gather[PROF_MAX_PES][ALL2ONE_PUTS][ALL2ONE_BYTES];
static unsigned char a2a_src[PROF_MAX_PES * BLOCK], a2a_dst[PROF_MAX_PES * BLOCK];
static long long counter, swapped;
static int hits;
static uint64_t sig, sig2;
static unsigned char sig_data[32];
static int flag;
static long lock;

static int me, npes;

#define THREADS 4
#define THREAD_PUTS 200
static long thread_slots[THREADS][THREAD_PUTS];
static long long thread_sum;

static void barrier(void)
{
    shmem_barrier_all();
    prof_expect_wait(PROF_SYNC);
}

static void ring(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    test_fill_bytes(ring_out, sizeof ring_out, me, 1);
    barrier();
    for (int k = 0; k < RING_PUTS; k++) {
        shmem_putmem(ring_in + k * RING_BYTES, ring_out + k * RING_BYTES, RING_BYTES, right);
        prof_expect_op(PROF_PUT, right, RING_BYTES);
    }
    shmem_quiet();
    prof_expect_wait(PROF_QUIET);
    unsigned char got[GET_BYTES];
    for (int k = 0; k < RING_GETS; k++) {
        shmem_getmem(got, ring_out + k * GET_BYTES, GET_BYTES, left);
        prof_expect_op(PROF_GET, left, GET_BYTES);
        for (int i = 0; i < GET_BYTES; i++)
            CHECK(got[i] == test_byte(left, (size_t)(k * GET_BYTES + i), 1), "get %d byte %d", k,
                  i);
    }
    barrier();
    CHECK(test_bad_byte(ring_in, sizeof ring_in, left, 1) == SIZE_MAX, "ring data from PE %d",
          left);
}

static void stencil(void)
{
    int px = 1;
    for (int d = 1; d * d <= npes; d++)
        if (npes % d == 0)
            px = d;
    int x = me % px, y = me / px, py = npes / px;
    int north = y > 0 ? me - px : -1, south = y < py - 1 ? me + px : -1;
    int west = x > 0 ? me - 1 : -1, east = x < px - 1 ? me + 1 : -1;
    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < TILE; i++)
            for (int j = 0; j < TILE; j++)
                tile[i][j] = me * 1000 + step * 100 + i * TILE + j;
        barrier(); /* the halos are free */
        /* My first row is my north neighbour's south halo, and so on. */
        if (north >= 0) {
            shmem_double_put(halo_south, tile[0], TILE, north);
            prof_expect_op(PROF_PUT, north, sizeof tile[0]);
        }
        if (south >= 0) {
            shmem_double_put(halo_north, tile[TILE - 1], TILE, south);
            prof_expect_op(PROF_PUT, south, sizeof tile[0]);
        }
        if (west >= 0) {
            shmem_double_iput(halo_east, &tile[0][0], 1, TILE, TILE, west);
            prof_expect_op(PROF_PUT, west, TILE * sizeof(double));
        }
        if (east >= 0) {
            shmem_double_iput(halo_west, &tile[0][TILE - 1], 1, TILE, TILE, east);
            prof_expect_op(PROF_PUT, east, TILE * sizeof(double));
        }
        barrier();
        for (int i = 0; i < TILE; i++) {
            double base = step * 100;
            if (north >= 0)
                CHECK(halo_north[i] == north * 1000 + base + (TILE - 1) * TILE + i,
                      "step %d north halo %d", step, i);
            if (south >= 0)
                CHECK(halo_south[i] == south * 1000 + base + i, "step %d south halo %d", step, i);
            if (west >= 0)
                CHECK(halo_west[i] == west * 1000 + base + i * TILE + TILE - 1,
                      "step %d west halo %d", step, i);
            if (east >= 0)
                CHECK(halo_east[i] == east * 1000 + base + i * TILE, "step %d east halo %d", step,
                      i);
        }
    }
}

static void all2one(void)
{
    unsigned char mine[ALL2ONE_PUTS][ALL2ONE_BYTES];
    test_fill_bytes(mine, sizeof mine, me, 2);
    barrier();
    if (me != 0) {
        for (int k = 0; k < ALL2ONE_PUTS; k++) {
            shmem_putmem_nbi(gather[me][k], mine[k], ALL2ONE_BYTES, 0);
            prof_expect_op(PROF_PUT, 0, ALL2ONE_BYTES);
        }
        shmem_quiet();
        prof_expect_wait(PROF_QUIET);
    }
    barrier();
    for (int pe = 1; me == 0 && pe < npes; pe++)
        CHECK(test_bad_byte(gather[pe], sizeof gather[pe], pe, 2) == SIZE_MAX,
              "the blocks of PE %d", pe);
}

/* Run where the pairwise exchange is used (one node, or one PE per node): each member puts its
 * block to itself, and to every other member its block with a signal. */
static void alltoall(void)
{
    for (int j = 0; j < npes; j++)
        test_fill_bytes(a2a_src + j * BLOCK, BLOCK, me * npes + j, 3);
    barrier();
    shmem_alltoallmem(SHMEM_TEAM_WORLD, a2a_dst, a2a_src, BLOCK);
    for (int j = 0; j < npes; j++) {
        CHECK(test_bad_byte(a2a_dst + j * BLOCK, BLOCK, j * npes + me, 3) == SIZE_MAX,
              "block from PE %d", j);
        if (j == me)
            prof_expect_coll("alltoall", j, 1, BLOCK);
        else
            prof_expect_coll("alltoall", j, 2, BLOCK + sizeof(uint64_t));
    }
    barrier();
}

static void amo(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    swapped = me;
    barrier();
    for (int k = 0; k < 7; k++) {
        shmem_longlong_atomic_fetch_add(&counter, me + 1, right);
        prof_expect_op(PROF_AMO, right, sizeof counter);
    }
    for (int k = 0; k < 4; k++) {
        shmem_int_atomic_inc(&hits, 0);
        prof_expect_op(PROF_AMO, 0, sizeof hits);
    }
    for (int k = 0; k < 2; k++) {
        shmem_longlong_atomic_compare_swap(&swapped, me + k, me + k + 1, me);
        prof_expect_op(PROF_AMO, me, sizeof swapped);
    }
    unsigned char data[sizeof sig_data];
    test_fill_bytes(data, sizeof data, me, 4);
    shmem_putmem_signal(sig_data, data, sizeof data, &sig, 1, SHMEM_SIGNAL_ADD, right);
    prof_expect_op(PROF_PUT, right, sizeof data);
    prof_expect_op(PROF_SIGNAL, right, sizeof sig);
    for (int k = 0; k < 2; k++) {
        shmem_signal_add(&sig2, 3, left);
        prof_expect_op(PROF_SIGNAL, left, sizeof sig2);
    }
    barrier();
    CHECK(counter == 7LL * (left + 1), "counter %lld", counter);
    CHECK(me != 0 || hits == 4 * npes, "hits %d", hits);
    CHECK(swapped == me + 2, "swapped %lld", swapped);
    CHECK(sig == 1 && sig2 == 6, "signals %llu %llu", (unsigned long long)sig,
          (unsigned long long)sig2);
    CHECK(test_bad_byte(sig_data, sizeof sig_data, left, 4) == SIZE_MAX, "signalled data");
}

static void *thread_ops(void *arg)
{
    int t = (int)(intptr_t)arg, right = (me + 1) % npes;
    for (int k = 0; k < THREAD_PUTS; k++) {
        shmem_long_p(&thread_slots[t][k], me * 100000L + t * 1000 + k, right);
        shmem_longlong_atomic_add(&thread_sum, 1, right);
    }
    return NULL;
}

static void threads(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    barrier();
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++)
        CHECK(pthread_create(&tid[t], NULL, thread_ops, (void *)(intptr_t)t) == 0, "thread %d", t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    for (int k = 0; k < THREADS * THREAD_PUTS; k++) {
        prof_expect_op(PROF_PUT, right, sizeof(long));
        prof_expect_op(PROF_AMO, right, sizeof thread_sum);
    }
    shmem_quiet();
    prof_expect_wait(PROF_QUIET);
    barrier();
    for (int t = 0; t < THREADS; t++)
        for (int k = 0; k < THREAD_PUTS; k++)
            CHECK(thread_slots[t][k] == left * 100000L + t * 1000 + k, "slot %d %d: %ld", t, k,
                  thread_slots[t][k]);
    CHECK(thread_sum == THREADS * THREAD_PUTS, "sum %lld", thread_sum);
}

static void waits(void)
{
    int right = (me + 1) % npes;
    prof_any_ops = 1; /* the locks' own AMOs depend on who queues behind whom */
    barrier();
    for (int k = 0; k < 3; k++) {
        shmem_quiet();
        prof_expect_wait(PROF_QUIET);
    }
    for (int round = 1; round <= 2; round++) {
        shmem_int_p(&flag, round, right);
        shmem_int_wait_until(&flag, SHMEM_CMP_GE, round);
        prof_expect_wait(PROF_WAIT_UNTIL);
        barrier();
    }
    shmem_sync_all();
    prof_expect_wait(PROF_SYNC);
    shmem_putmem_signal(sig_data, sig_data, 8, &sig, 1, SHMEM_SIGNAL_ADD, right);
    CHECK(shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, 1) == 1, "signal");
    prof_expect_wait(PROF_WAIT_UNTIL);
    for (int k = 0; k < 2; k++) {
        shmem_set_lock(&lock);
        prof_expect_wait(PROF_LOCK);
        hits++;
        shmem_clear_lock(&lock);
        prof_expect_wait(PROF_QUIET); /* it completes my puts first */
    }
    barrier();
}

int main(void)
{
    const char *which = getenv("TEST_PROFILE_CASE");
    if (which && strcmp(which, "threads") == 0) {
        int provided = 0;
        shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
        CHECK(provided == SHMEM_THREAD_MULTIPLE, "thread level %d", provided);
    } else {
        shmem_init();
    }
    me = shmem_my_pe();
    npes = shmem_n_pes();
    static const struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"ring", ring}, {"stencil", stencil}, {"all2one", all2one}, {"alltoall", alltoall},
                 {"amo", amo},   {"waits", waits},     {"threads", threads}};
    int found = 0;
    for (size_t c = 0; which && c < sizeof cases / sizeof cases[0]; c++)
        if (strcmp(which, cases[c].name) == 0) {
            cases[c].run();
            found = 1;
        }
    CHECK(found, "TEST_PROFILE_CASE=%s is none of the cases", which ? which : "(unset)");
    CHECK(npes <= PROF_MAX_PES, "at most %d PEs", PROF_MAX_PES);
    CHECK(prof_expect_write(me, npes) == 0, "expect file");
    long failures = check_local_failures();
    shmem_finalize();
    return failures != 0;
}
