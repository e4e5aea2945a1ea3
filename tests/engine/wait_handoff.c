/* Waits wake exactly when their condition becomes true: thousands of hand-offs between the
 * PEs (8 on 2 cores in tests.list, so waiters sleep), each kind of writer waking each kind of
 * wait, with exact counts:
 *  - a token ring of puts: PE i waits until its token reaches r, then puts r into the next
 *    PE's token (a plain store on-node, the data server's copy across nodes);
 *  - fan-in and fan-out: every PE adds 1 to a counter on PE 0 (AMO), PE 0 waits for all of
 *    them, then releases each with a put-with-signal that the PE waits for;
 *  - barriers, each checked by a count of AMOs made before it;
 *  - a lock guarding a non-atomic increment on PE 0.
 * Then, from the library's own counts: no stall (a sleep that ended by its timeout with the
 * condition true although nobody rang, i.e. a lost wake-up), and with PANGEA_WAIT=sleep the
 * PEs did sleep (TEST_EXPECT_SLEEP=0: they never did, PANGEA_WAIT=spin; =any: either, as on a
 * node with more PEs than cores, whose waits yield instead of sleeping while only its own PEs
 * want the cores). */
#define _GNU_SOURCE
#include "check.h"
#include "runtime/runtime.h"

#include <shmem.h>

static long token, counter, lock_word, lock_count;
static uint64_t release;
static long long stalls_all, sleeps_all;

static long env_long(const char *name, long def)
{
    const char *v = getenv(name);
    return v ? atol(v) : def;
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long rounds = env_long("TEST_ROUNDS", 2000);

    for (long r = 1; r <= rounds && n > 1; r++) {
        if (me == 0)
            shmem_long_p(&token, r, 1);
        shmem_long_wait_until(&token, SHMEM_CMP_GE, r);
        CHECK(shmem_long_atomic_fetch(&token, me) == r, "round %ld: token %ld", r, token);
        if (me != 0)
            shmem_long_p(&token, r, (me + 1) % n);
    }
    shmem_barrier_all();

    long fan_rounds = rounds / 4;
    for (long r = 1; r <= fan_rounds; r++) {
        if (me == 0) {
            shmem_long_wait_until(&counter, SHMEM_CMP_GE, r * (n - 1));
            CHECK(shmem_long_atomic_fetch(&counter, 0) == r * (n - 1), "fan-in %ld: %ld", r,
                  counter);
            for (int pe = 1; pe < n; pe++)
                shmem_putmem_signal(&token, &r, sizeof r, &release, (uint64_t)r, SHMEM_SIGNAL_SET,
                                    pe);
        } else {
            shmem_long_atomic_inc(&counter, 0);
            uint64_t seen = shmem_signal_wait_until(&release, SHMEM_CMP_GE, (uint64_t)r);
            CHECK(seen == (uint64_t)r, "fan-out %ld: signal %llu", r, (unsigned long long)seen);
            CHECK(shmem_long_atomic_fetch(&token, me) == r, "fan-out %ld: data %ld", r, token);
        }
    }
    shmem_barrier_all();
    if (me == 0)
        counter = 0;
    shmem_barrier_all();

    for (long r = 1; r <= fan_rounds; r++) {
        shmem_long_atomic_inc(&counter, 0);
        shmem_barrier_all();
        if (me == 0)
            CHECK(shmem_long_atomic_fetch(&counter, 0) == r * n, "barrier %ld: %ld", r, counter);
        shmem_barrier_all();
    }

    long lock_rounds = rounds / 10;
    for (long r = 0; r < lock_rounds; r++) {
        shmem_set_lock(&lock_word);
        long v = shmem_long_g(&lock_count, 0);
        shmem_long_p(&lock_count, v + 1, 0);
        shmem_clear_lock(&lock_word);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(lock_count == lock_rounds * n, "lock: %ld increments, expected %ld", lock_count,
              lock_rounds * n);

    struct pg_wait_counts counts;
    pg_wait_counts(&counts);
    shmem_longlong_atomic_add(&stalls_all, (long long)counts.stalls, 0);
    shmem_longlong_atomic_add(&sleeps_all, (long long)counts.sleeps, 0);
    CHECK(counts.stalls == 0, "%llu stalls (of %llu sleeps, %llu timeouts): a lost wake-up",
          (unsigned long long)counts.stalls, (unsigned long long)counts.sleeps,
          (unsigned long long)counts.timeouts);
    shmem_barrier_all();
    if (me == 0) {
        printf("wait_handoff: %d PEs, %ld rounds: %lld sleeps, %lld stalls in all\n", n, rounds,
               sleeps_all, stalls_all);
        const char *expect = getenv("TEST_EXPECT_SLEEP");
        if (expect && strcmp(expect, "any") == 0)
            ;
        else if (env_long("TEST_EXPECT_SLEEP", 1))
            CHECK(n < 2 || sleeps_all > 0, "no PE ever slept");
        else
            CHECK(sleeps_all == 0, "%lld sleeps with PANGEA_WAIT=spin", sleeps_all);
    }
    int status = check_finish();
    shmem_finalize();
    return status;
}
