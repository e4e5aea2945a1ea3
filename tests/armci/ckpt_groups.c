/* Checkpoint/restart in an ARMCI program (run by tests/ckpt/phases.sh, case once): ARMCI_Malloc
 * memory, an ARMCI_Malloc_group allocation over the odd processes with a different size on
 * each, and a registered private array are saved, overwritten and restored by shmemx_restart in
 * the same job, every byte checked; then a put into every process's block checks that the
 * engine works on. TEST_CKPT_LOCK=1: a checkpoint while a process holds an ARMCI mutex (an
 * error naming ARMCI_Lock); TEST_CKPT_REGROUP=1: the group allocation is freed and made again
 * one byte larger before the restart (an error naming the ARMCI group allocation). */
#include "armci_check.h"

#include <shmemx.h>

#define WORLD_BYTES 4096
#define PRIVATE_BYTES 777

static int me, nproc;

static unsigned char pattern(int proc, size_t k, unsigned salt)
{
    return (unsigned char)(k * 31u + (unsigned)proc * 7u + salt * 101u + 1u);
}

static void fill(unsigned char *p, size_t n, unsigned salt)
{
    for (size_t k = 0; k < n; k++)
        p[k] = pattern(me, k, salt);
}

static size_t first_bad(const unsigned char *p, size_t n, unsigned salt)
{
    for (size_t k = 0; k < n; k++)
        if (p[k] != pattern(me, k, salt))
            return k;
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    const char *dir = getenv("TEST_CKPT_DIR");
    if (!dir || nproc < 2) {
        fprintf(stderr, "ckpt_groups: needs TEST_CKPT_DIR and 2 processes or more\n");
        return 2;
    }

    void **world = malloc((size_t)nproc * sizeof *world);
    ARMCI_Malloc(world, WORLD_BYTES);
    int nodd = nproc / 2, *odd = malloc((size_t)nodd * sizeof *odd);
    for (int i = 0; i < nodd; i++)
        odd[i] = 2 * i + 1;
    ARMCI_Group group;
    ARMCI_Group_create(nodd, odd, &group);
    int member = me % 2 == 1;
    size_t group_bytes = 1000 * (size_t)(me + 1);
    void **in_group = malloc((size_t)nodd * sizeof *in_group);
    if (member)
        ARMCI_Malloc_group(in_group, (armci_size_t)group_bytes, &group);
    unsigned char *mine_group = member ? in_group[me / 2] : NULL;
    unsigned char priv[PRIVATE_BYTES];
    shmemx_ckpt_register(priv, sizeof priv);

    fill(world[me], WORLD_BYTES, 1);
    if (member)
        fill(mine_group, group_bytes, 2);
    fill(priv, sizeof priv, 3);
    if (getenv("TEST_CKPT_LOCK")) {
        ARMCI_Create_mutexes(1);
        if (me == nproc - 1)
            ARMCI_Lock(0, 0);
    }
    ARMCI_Barrier();
    CHECK(shmemx_checkpoint(dir) == 0, "shmemx_checkpoint did not return 0");

    memset(world[me], 0xee, WORLD_BYTES);
    if (member)
        memset(mine_group, 0xee, group_bytes);
    memset(priv, 0xee, sizeof priv);
    if (getenv("TEST_CKPT_REGROUP") && member) {
        ARMCI_Free_group(mine_group, &group);
        ARMCI_Malloc_group(in_group, (armci_size_t)group_bytes + 1, &group);
        mine_group = in_group[me / 2];
    }
    ARMCI_Barrier();
    int restored = shmemx_restart(dir);
    CHECK(restored == 1, "shmemx_restart returned %d, want 1", restored);
    size_t at = first_bad(world[me], WORLD_BYTES, 1);
    CHECK(at == WORLD_BYTES, "ARMCI_Malloc block differs at byte %zu", at);
    if (member) {
        at = first_bad(mine_group, group_bytes, 2);
        CHECK(at == group_bytes, "group allocation (%zu bytes) differs at byte %zu", group_bytes,
              at);
    }
    at = first_bad(priv, sizeof priv, 3);
    CHECK(at == sizeof priv, "registered region differs at byte %zu", at);

    /* The engine works on: everybody puts its rank into the next process's block, once that
     * process has checked it. */
    ARMCI_Barrier();
    int right = (me + 1) % nproc, value = me + 1000;
    ARMCI_Put(&value, world[right], sizeof value, right);
    ARMCI_Barrier();
    int got;
    memcpy(&got, world[me], sizeof got);
    CHECK(got == (me - 1 + nproc) % nproc + 1000, "after the restart a put brought %d", got);

    if (member)
        ARMCI_Free_group(mine_group, &group);
    ARMCI_Group_free(&group);
    free(in_group);
    free(odd);
    return test_end(world);
}
