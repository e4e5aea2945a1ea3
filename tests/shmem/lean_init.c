/* PANGEA_MPI_LEAN_INIT: when shmem_init starts MPI for a program that makes no MPI calls, MPICH
 * runs without its on-node shared memory (MPIR_CVAR_NOLOCAL=1); when the program calls MPI
 * itself (lean_init_mpi.c: this source with IMPORT_MPI, so its executable imports MPI
 * symbols) or the variable is 0, MPI keeps it. TEST_EXPECT_NOLOCAL gives the value the run
 * must see (default 1). The CVAR is read through MPI_T, reached by dlsym here so that this
 * executable imports nothing from MPI; the variable must not be left in the environment. */
#define _GNU_SOURCE
#include "check.h"

#include <dlfcn.h>
#include <mpi.h>

#ifndef TEST_FILE
#define TEST_FILE __FILE__
#endif

#ifdef IMPORT_MPI
#define MPI_CALL(name) name
#else
/* The MPI_T calls by their names at run time: a direct call would import them. */
#define MPI_CALL(name) ((__typeof__(&name))must_find(#name))
static void *must_find(const char *name)
{
    void *f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        fprintf(stderr, "lean_init: %s not found\n", name);
        exit(2);
    }
    return f;
}
#endif

static int read_nolocal(void)
{
    int provided, index, count, value = -1;
    MPI_T_cvar_handle handle;
    if (MPI_CALL(MPI_T_init_thread)(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return -2;
    if (MPI_CALL(MPI_T_cvar_get_index)("MPIR_CVAR_NOLOCAL", &index) == MPI_SUCCESS &&
        MPI_CALL(MPI_T_cvar_handle_alloc)(index, NULL, &handle, &count) == MPI_SUCCESS) {
        MPI_CALL(MPI_T_cvar_read)(handle, &value);
        MPI_CALL(MPI_T_cvar_handle_free)(&handle);
    }
    MPI_CALL(MPI_T_finalize)();
    return value;
}

int main(void)
{
    shmem_init();
    const char *want_text = getenv("TEST_EXPECT_NOLOCAL");
    int want = want_text ? atoi(want_text) : 1;
#ifdef IMPORT_MPI
    want = 0;
    int size = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == shmem_n_pes(), "MPI_COMM_WORLD has %d ranks, %d PEs", size, shmem_n_pes());
#endif
    int nolocal = read_nolocal();
    CHECK(nolocal == want, "MPIR_CVAR_NOLOCAL is %d, expected %d", nolocal, want);
    CHECK(getenv("MPIR_CVAR_NOLOCAL") == NULL, "MPIR_CVAR_NOLOCAL left in the environment: %s",
          getenv("MPIR_CVAR_NOLOCAL"));
    /* MPI without its on-node shared memory still carries the init's own traffic: a barrier
     * and a reduction over every PE (through Pangea's node board and leaders) check it. */
    static long total;
    static long mine;
    mine = shmem_my_pe() + 1;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &total, &mine, 1);
    long n = shmem_n_pes();
    CHECK(total == n * (n + 1) / 2, "sum %ld, expected %ld", total, n * (n + 1) / 2);
    return check_report(TEST_FILE, shmem_my_pe(), check_total_());
}
