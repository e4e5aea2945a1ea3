/* Compile-only check of the C11 type-generic interface: every generic name with every type of
 * its table in the specification, with and without a leading ctx (generic_calls.h; the same
 * calls compile as C++ overloads in header_generic_cxx.cpp). Built with -std=c11 -Wall -Wextra
 * -Werror -pedantic and linked against the library; nothing here runs (the calls sit behind
 * argc > 100). */
#include <shmem.h>
#include <stdio.h>

#include "generic_calls.h"

#if !defined(__STDC_VERSION__) || __STDC_VERSION__ < 201112L
#error "header_generic.c must be compiled as C11 or later"
#endif

int main(int argc, char **argv)
{
    (void)argv;
    if (argc > 100) {
        shmem_init();
        size_t n = gc_all(SHMEM_CTX_DEFAULT, SHMEM_TEAM_WORLD, 0);
        shmem_finalize();
        return n == 0;
    }
    printf("PASS header_generic\n");
    return 0;
}
