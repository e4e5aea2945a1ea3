/* The profiling interface (spec §10): this program is its own tool. It defines shmem_ wrappers
 * that count their calls and forward to the pshmem_ entry points, as a profiling library
 * would; the library's shmem_ names are weak, so these take their place. Checks: every call
 * the program makes is counted exactly once, the library's internal use (the barrier inside
 * shmem_free, the collectives inside a team split) never goes through the shmem_ names, the
 * results are unchanged, and shmem_pcontrol reaches the tool. */
#include "check.h"

#include <pshmem.h>

static long n_putmem, n_barrier_all, n_sum_reduce, n_team_sync, n_broadcastmem, n_pcontrol;
static int last_level;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    n_putmem++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_barrier_all(void)
{
    n_barrier_all++;
    pshmem_barrier_all();
}

int shmem_long_sum_reduce(shmem_team_t team, long *dest, const long *source, size_t nreduce)
{
    n_sum_reduce++;
    return pshmem_long_sum_reduce(team, dest, source, nreduce);
}

int shmem_team_sync(shmem_team_t team)
{
    n_team_sync++;
    return pshmem_team_sync(team);
}

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    n_broadcastmem++;
    return pshmem_broadcastmem(team, dest, source, nelems, PE_root);
}

void shmem_pcontrol(int level, ...)
{
    n_pcontrol++;
    last_level = level;
    pshmem_pcontrol(level);
}

#define ROUNDS 5

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *buf = shmem_calloc(4, sizeof(long));
    long value = me + 1;
    shmem_pcontrol(2);
    for (int r = 0; r < ROUNDS; r++) {
        shmem_putmem(&buf[0], &value, sizeof value, (me + 1) % npes);
        shmem_barrier_all();
        shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &buf[1], &buf[0], 1);
        shmem_team_sync(SHMEM_TEAM_WORLD);
        shmem_broadcastmem(SHMEM_TEAM_WORLD, &buf[2], &buf[1], sizeof(long), 0);
    }
    long want = (long)npes * (npes + 1) / 2;
    CHECK(buf[1] == want && buf[2] == want, "results through the wrappers: %ld %ld, want %ld",
          buf[1], buf[2], want);
    long barriers = n_barrier_all, syncs = n_team_sync;
    shmem_team_t half;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, (npes + 1) / 2, NULL, 0, &half);
    shmem_team_destroy(half);
    long *extra = shmem_malloc(64);
    shmem_free(extra);
    CHECK(n_barrier_all == barriers && n_team_sync == syncs,
          "the library's own synchronization went through the shmem_ names (%ld, %ld calls)",
          n_barrier_all - barriers, n_team_sync - syncs);
    CHECK(n_putmem == ROUNDS && n_barrier_all == ROUNDS && n_sum_reduce == ROUNDS &&
              n_team_sync == ROUNDS && n_broadcastmem == ROUNDS,
          "counts: putmem %ld barrier_all %ld sum_reduce %ld team_sync %ld broadcastmem %ld",
          n_putmem, n_barrier_all, n_sum_reduce, n_team_sync, n_broadcastmem);
    CHECK(n_pcontrol == 1 && last_level == 2, "pcontrol: %ld calls, level %d", n_pcontrol,
          last_level);
    shmem_free(buf);
    int status = check_finish();
    shmem_finalize();
    return status;
}
