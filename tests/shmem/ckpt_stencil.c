/* Checkpoint/restart of an iterating program, run in phases by tests/ckpt/phases.sh: a periodic
 * 1-D stencil whose halos move by put and nbi put, with AMO counters, saved every K steps. The
 * loop counter and a private trace are registered regions, so a restarted run resumes where the
 * checkpoint was taken. Every run checks its final state against a serial computation of the
 * whole stencil and the exact AMO counts, and prints a RESULT line the driver compares between
 * runs.
 *
 * Environment: TEST_CKPT_DIR (the directory), TEST_CKPT_EVERY (K, default 5), and for the
 * phases: TEST_CKPT_RESTART=1 (shmemx_restart first; TEST_CKPT_EXPECT=n: it must return n),
 * TEST_CKPT_KILL_STEP=s (the last PE kills itself in step s, with its puts and AMOs in flight;
 * first every PE waits, calling no OpenSHMEM routine, until the checkpoint taken before step s is
 * committed: the commit must not wait for the library to be called again),
 * TEST_CKPT_KILL_AFTER_SAVE=n (PE 0 kills itself as checkpoint n returns, its write under way),
 * TEST_CKPT_EXTRA=1 (one more allocation than the saving run), TEST_CKPT_LOCK=1 (a checkpoint
 * while holding a lock). */
#include "check.h"

#include <shmemx.h>

#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#define CELLS 512
#define STEPS 40

static long step; /* registered: the next step to run */
static long lock_word;

static long env_long(const char *name, long otherwise)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : otherwise;
}

/* Waits up to a minute for dir/ckpt-number to appear, looking at the file system only. */
static void await_commit(const char *dir, long number)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/ckpt-%ld", dir, number);
    struct stat st;
    for (int ms = 0; stat(path, &st) != 0; ms++) {
        CHECK(ms < 60000, "checkpoint %ld is not committed a minute after it was taken", number);
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
}

static double inject(long s, long cell)
{
    return 1e-3 * (double)((s * 7 + cell) % 11);
}

/* The whole stencil on one PE: final cells of every PE, and each PE's first cell after each
 * step (its trace). */
static void serial_reference(int npes, double *final, double *trace)
{
    long n = (long)npes * CELLS;
    double *u = malloc((size_t)n * sizeof *u), *v = malloc((size_t)n * sizeof *v);
    for (long g = 0; g < n; g++)
        u[g] = (double)(g % 13);
    for (long s = 0; s < STEPS; s++) {
        for (long g = 0; g < n; g++)
            v[g] = (u[(g - 1 + n) % n] + 2.0 * u[g] + u[(g + 1) % n]) * 0.25 + inject(s, g);
        double *t = u;
        u = v;
        v = t;
        for (int p = 0; p < npes; p++)
            trace[(size_t)p * STEPS + (size_t)s] = u[(long)p * CELLS];
    }
    memcpy(final, u, (size_t)n * sizeof *u);
    free(u);
    free(v);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *dir = getenv("TEST_CKPT_DIR");
    long every = env_long("TEST_CKPT_EVERY", 5);
    long kill_step = env_long("TEST_CKPT_KILL_STEP", -1);
    long kill_after_save = env_long("TEST_CKPT_KILL_AFTER_SAVE", -1);
    if (!dir) {
        fprintf(stderr, "ckpt_stencil: set TEST_CKPT_DIR (tests/ckpt/phases.sh does)\n");
        return 2;
    }

    double *u = shmem_calloc(CELLS + 2, sizeof *u); /* [0] and [CELLS+1]: the halos */
    long *total = shmem_calloc(1, sizeof *total);
    long *ticks = shmem_calloc(1, sizeof *ticks);
    long *seen = shmem_calloc((size_t)npes, sizeof *seen);
    if (env_long("TEST_CKPT_EXTRA", 0))
        shmem_malloc(4096);
    double *trace = calloc(STEPS, sizeof *trace);
    for (int i = 0; i < CELLS; i++)
        u[1 + i] = (double)(((long)me * CELLS + i) % 13);
    shmemx_ckpt_register(&step, sizeof step);
    shmemx_ckpt_register(trace, STEPS * sizeof *trace);
    shmem_barrier_all();

    if (env_long("TEST_CKPT_RESTART", 0)) {
        int restored = shmemx_restart(dir);
        if (me == 0)
            printf("RESTORED %d at step %ld\n", restored, step);
        long expect = env_long("TEST_CKPT_EXPECT", -1);
        CHECK(expect < 0 || restored == expect, "shmemx_restart returned %d, want %ld", restored,
              expect);
        CHECK(step == restored * every, "step %ld after restoring checkpoint %d (every %ld)", step,
              restored, every);
    }
    if (env_long("TEST_CKPT_LOCK", 0) && me == npes - 1)
        shmem_set_lock(&lock_word);

    int left = (me - 1 + npes) % npes, right = (me + 1) % npes;
    double next[CELLS];
    long last_step = 0;
    while (step < STEPS) {
        long s = step;
        shmem_double_put_nbi(&u[CELLS + 1], &u[1], 1, left);
        shmem_double_p(&u[0], u[CELLS], right);
        shmem_long_atomic_add(total, (me + 1) * (s + 1), (int)(s % npes));
        shmem_long_atomic_inc(ticks, right);
        last_step = s;
        shmem_long_put_nbi(&seen[me], &last_step, 1, right);
        if (s == kill_step) {
            if (s / every > 0)
                await_commit(dir, s / every);
            if (me == npes - 1)
                raise(SIGKILL);
        }
        shmem_barrier_all();
        for (int i = 0; i < CELLS; i++)
            next[i] = (u[i] + 2.0 * u[i + 1] + u[i + 2]) * 0.25 + inject(s, (long)me * CELLS + i);
        memcpy(&u[1], next, sizeof next);
        trace[s] = u[1];
        shmem_barrier_all();
        step = s + 1; /* saved: what a restart resumes with */
        if (step % every == 0) {
            shmemx_checkpoint(dir);
            if (step / every == kill_after_save && me == 0)
                raise(SIGKILL);
        }
    }

    double *final = malloc((size_t)npes * CELLS * sizeof *final);
    double *trace_ref = malloc((size_t)npes * STEPS * sizeof *trace_ref);
    serial_reference(npes, final, trace_ref);
    int bad = 0;
    for (int i = 0; i < CELLS; i++)
        bad += memcmp(&u[1 + i], &final[(size_t)me * CELLS + (size_t)i], sizeof(double)) != 0;
    CHECK(bad == 0, "%d of %d cells differ from the serial stencil", bad, CELLS);
    bad = 0;
    for (int s = 0; s < STEPS; s++)
        bad += memcmp(&trace[s], &trace_ref[(size_t)me * STEPS + (size_t)s], sizeof(double)) != 0;
    CHECK(bad == 0, "%d of %d trace entries differ from the serial stencil", bad, STEPS);
    long want = 0;
    for (long s = me; s < STEPS; s += npes)
        want += (s + 1) * npes * (npes + 1) / 2;
    CHECK(*total == want, "total %ld, want %ld", *total, want);
    CHECK(*ticks == STEPS, "ticks %ld, want %d", *ticks, STEPS);
    CHECK(seen[left] == STEPS - 1, "seen[%d] = %ld, want %d", left, seen[left], STEPS - 1);

    static double digest;
    double mine = 0;
    for (int i = 0; i < CELLS; i++)
        mine += u[1 + i] * (double)(i + 1);
    static double sum_src;
    sum_src = mine;
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &digest, &sum_src, 1);
    static long counts[2], counts_src[2];
    counts_src[0] = *total;
    counts_src[1] = *ticks;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, counts, counts_src, 2);
    if (me == 0)
        printf("RESULT %a %ld %ld\n", digest, counts[0], counts[1]);
    free(final);
    free(trace_ref);
    free(trace);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
