/* lean_init.c in a program that calls MPI itself: shmem_init must leave MPI whole. */
#define IMPORT_MPI
#define TEST_FILE "lean_init_mpi.c"
#include "lean_init.c"
