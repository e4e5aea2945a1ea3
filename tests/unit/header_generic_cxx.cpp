// Compile-only check of the C++ type-generic interface (the overloads of pangea_shmem_cxx.h):
// every generic name with every type of its table in the specification, with and without a
// leading ctx, the same calls as the C11 check (generic_calls.h), plus the complex-number
// reductions by their typed names. Built with -Wall -Wextra -Werror -pedantic and linked against
// the library; nothing here runs (the calls sit behind argc > 100).
#include <shmem.h>
#include <cstdio>

#include "generic_calls.h"

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 100) {
        static std::complex<double> zd[4];
        static std::complex<float> zf[4];
        shmem_init();
        std::size_t n = gc_all(SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, 0);
        n += shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, zd, zd, 4);
        n += shmem_complexf_prod_reduce(SHMEM_TEAM_WORLD, zf, zf, 4);
        n += shmem_complexd_sum_inscan(SHMEM_TEAM_WORLD, zd, zd, 4);
        n += shmem_complexf_sum_exscan(SHMEM_TEAM_WORLD, zf, zf, 4);
        shmem_finalize();
        return n == 0;
    }
    std::printf("PASS header_generic_cxx\n");
    return 0;
}
