/* first_touch: what the first touch of symmetric memory costs. Each round allocates a fresh
 * block (never freed, so that its pages are new) and PE 0 puts SIZE bytes from a private
 * buffer into PE 1's copy (shmem_putmem + shmem_quiet): the first put faults in every page of
 * PE 1's block; then the same put again, into pages that are there. As a reference PE 0 also
 * writes its own copy of the block (memset), first and again. PE 1 checks every byte of each
 * round's put. Rates in MB/s (10^6 bytes), per round and the median.
 *
 * The pages of the heap, read from /proc/self/smaps for the mappings PE 0 wrote through (PE 1's
 * block, when shmem_ptr gives one, and PE 0's own): KernelPageSize and PMD-mapped kB.
 *
 * Standard OpenSHMEM plus Linux /proc: builds with any oshcc. The heap must hold ROUNDS blocks:
 * with Pangea SHMEM_SYMMETRIC_SIZE of ROUNDS x SIZE plus a little, with Open MPI 4.1
 * SHMEM_SYMMETRIC_HEAP_SIZE (its allocator may need more).
 *
 * Options: -s SIZE bytes per put (K, M, G suffixes; default 256M), -r ROUNDS (default 3). */
#define _POSIX_C_SOURCE 200809L

#include "bench_util.h"

#include <shmem.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 64

/* Word i of round r's data. */
static uint64_t pattern(size_t i, int r)
{
    return (uint64_t)i * 0x9e3779b97f4a7c15ull + (uint64_t)r;
}

/* The pages of the mapping that holds addr: "KernelPageSize N kB, M kB PMD-mapped (name)". */
static void describe_pages(const void *addr, char *text, size_t size)
{
    snprintf(text, size, "no mapping found");
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512], name[256] = "", header_name[256];
    int inside = 0;
    size_t page_kb = 0, pmd_kb = 0, kb;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        header_name[0] = '\0';
        if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &lo, &hi, header_name) >= 2 &&
            strchr(line, '-') < strchr(line, ' ')) {
            if (inside)
                break;
            inside = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
            if (inside)
                memcpy(name, header_name, sizeof name);
            continue;
        }
        if (!inside)
            continue;
        if (sscanf(line, "KernelPageSize: %zu kB", &kb) == 1)
            page_kb = kb;
        else if (sscanf(line, "ShmemPmdMapped: %zu kB", &kb) == 1 ||
                 sscanf(line, "FilePmdMapped: %zu kB", &kb) == 1)
            pmd_kb += kb;
    }
    if (f)
        fclose(f);
    if (inside)
        snprintf(text, size, "KernelPageSize %zu kB, %zu kB PMD-mapped (%s)", page_kb, pmd_kb,
                 name);
}

int main(int argc, char **argv)
{
    size_t size = (size_t)256 << 20;
    int rounds = 3;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            size = bench_size(argv[++i]);
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: first_touch [-s SIZE] [-r ROUNDS]\n");
            return 2;
        }
    }
    if (rounds < 1 || rounds > MAX_ROUNDS || size < sizeof(uint64_t)) {
        fprintf(stderr, "first_touch: 1 <= ROUNDS <= %d and SIZE >= 8\n", MAX_ROUNDS);
        return 2;
    }
    size -= size % sizeof(uint64_t);

    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes < 2) {
        if (me == 0)
            fprintf(stderr, "first_touch: needs 2 PEs\n");
        shmem_finalize();
        return 2;
    }
    uint64_t *src = malloc(size);
    if (!src) {
        fprintf(stderr, "first_touch: PE %d: malloc(%zu) failed\n", me, size);
        shmem_global_exit(1);
    }
    uint64_t *blocks[MAX_ROUNDS];
    double put_first[MAX_ROUNDS], put_again[MAX_ROUNDS], local_first[MAX_ROUNDS],
        local_again[MAX_ROUNDS];
    long errors = 0;
    size_t words = size / sizeof(uint64_t);
    for (int r = 0; r < rounds; r++) {
        blocks[r] = shmem_malloc(size);
        if (!blocks[r]) {
            if (me == 0)
                fprintf(stderr,
                        "first_touch: shmem_malloc(%zu) failed in round %d: the heap must hold "
                        "%d such blocks (Pangea: SHMEM_SYMMETRIC_SIZE; Open MPI: "
                        "SHMEM_SYMMETRIC_HEAP_SIZE)\n",
                        size, r + 1, rounds);
            shmem_global_exit(1);
        }
        if (me == 0) {
            for (size_t i = 0; i < words; i++)
                src[i] = pattern(i, r);
            double t = bench_now();
            shmem_putmem(blocks[r], src, size, 1);
            shmem_quiet();
            put_first[r] = (double)size / (bench_now() - t) / 1e6;
            t = bench_now();
            shmem_putmem(blocks[r], src, size, 1);
            shmem_quiet();
            put_again[r] = (double)size / (bench_now() - t) / 1e6;
            t = bench_now();
            memset(blocks[r], r + 1, size);
            local_first[r] = (double)size / (bench_now() - t) / 1e6;
            t = bench_now();
            memset(blocks[r], r + 2, size);
            local_again[r] = (double)size / (bench_now() - t) / 1e6;
        }
        shmem_barrier_all();
        if (me == 1)
            for (size_t i = 0; i < words; i++)
                errors += blocks[r][i] != pattern(i, r);
    }

    static long total_errors;
    shmem_long_atomic_add(&total_errors, errors, 0);
    shmem_barrier_all();
    if (me == 0) {
        char theirs[512], mine[512];
        void *peer = shmem_ptr(blocks[0], 1);
        if (peer)
            describe_pages(peer, theirs, sizeof theirs);
        else
            snprintf(theirs, sizeof theirs, "not mapped by PE 0 (shmem_ptr gives NULL)");
        describe_pages(blocks[0], mine, sizeof mine);
        printf("# first_touch: %zu-byte shmem_putmem+quiet from PE 0 into PE 1's freshly "
               "allocated block, then again; %d rounds, %d PEs\n",
               size, rounds, npes);
        printf("# PE 1's heap as PE 0 maps it: %s\n", theirs);
        printf("# PE 0's own heap: %s\n", mine);
        printf("%5s %16s %16s %16s %16s\n", "round", "put_first", "put_again", "local_first",
               "local_again");
        for (int r = 0; r < rounds; r++)
            printf("%5d %16.1f %16.1f %16.1f %16.1f\n", r + 1, put_first[r], put_again[r],
                   local_first[r], local_again[r]);
        printf("%5s %16.1f %16.1f %16.1f %16.1f   MB/s\n", "med", bench_median(put_first, rounds),
               bench_median(put_again, rounds), bench_median(local_first, rounds),
               bench_median(local_again, rounds));
        printf("# verification: %s (%ld wrong words)\n", total_errors ? "FAILED" : "ok",
               total_errors);
    }
    shmem_barrier_all();
    int status = total_errors != 0;
    for (int r = rounds - 1; r >= 0; r--)
        shmem_free(blocks[r]);
    free(src);
    shmem_finalize();
    return status;
}
