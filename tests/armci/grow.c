/* ARMCI memory beyond the initial symmetric heap (issue 24): the heap grows inside
 * ARMCI_Malloc.
 *
 * Default: ARMCI_Malloc of 4 x SHMEM_SYMMETRIC_SIZE per process succeeds; in the part past the
 * initial heap every process puts a region into every process's block (contiguous, and strided
 * with ARMCI_PutS), gets it back, accumulates doubles (ARMCI_Acc, exact sums) and fetch-adds
 * (ARMCI_Rmw, exact totals); every byte of every region and the guard bytes around are checked.
 * TEST_GROUP=1: the same over the group of even processes (ARMCI_Malloc_group), which grows
 * their own areas alone: a first group object, then one of 4 x the heap, into whose last
 * quarter every process, members or not, on-node and off-node, puts, gets, accumulates and
 * fetch-adds; meanwhile the odd processes put into and get from the members' old objects.
 * TEST_BEYOND=1: ARMCI_Malloc (or, with TEST_GROUP, ARMCI_Malloc_group) beyond
 * PANGEA_SYMMETRIC_MAX stops the job with the message naming the maximum (the list expects the
 * failure).
 * TEST_BIG_GIB=N: Global Arrays' big.x pattern: N GiB per process, touched sparsely (a byte
 * every MiB, written by the right neighbour and read back), so little memory becomes resident. */
#include "armci_check.h"

#include <math.h>

#define MIB ((size_t)1 << 20)
#define REGION 6000
#define ROWS 8
#define ROW 600
#define ROW_STRIDE 640
#define DOUBLES 256

static int me, nproc;

static unsigned char pattern(int from, int to, size_t k)
{
    return (unsigned char)(from * 31 + to * 7 + k * 13 + 1);
}

/* Bytes from a size in the spec's grammar (K, M, G suffixes). */
static size_t env_size(const char *name, size_t fallback)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return fallback;
    char *end;
    double v = strtod(s, &end);
    double mult = *end == 'k' || *end == 'K'   ? 0x1p10
                  : *end == 'm' || *end == 'M' ? 0x1p20
                  : *end == 'g' || *end == 'G' ? 0x1p30
                                               : 1;
    return (size_t)ceil(v * mult);
}

static size_t region_at(int from)
{
    return 64 + (size_t)from * (REGION + 64);
}

/* Puts, strided puts and gets into the grown part of every process that has one (grown[p]
 * not NULL), from every process. */
static void transfers(void **grown)
{
    size_t block = region_at(nproc);
    if (grown[me])
        test_fill_guard(grown[me], block);
    ARMCI_Barrier();
    unsigned char *src = malloc(REGION), *back = malloc(REGION);
    for (int t = 0; t < nproc; t++) {
        int to = (me + t) % nproc;
        if (!grown[to])
            continue;
        for (size_t k = 0; k < REGION; k++)
            src[k] = pattern(me, to, k);
        char *at = (char *)grown[to] + region_at(me);
        size_t head = REGION - (size_t)ROWS * ROW_STRIDE;
        ARMCI_Put(src, at, (int)head, to);
        int src_stride = ROW_STRIDE, dst_stride = ROW_STRIDE, count[2] = {ROW, ROWS};
        ARMCI_PutS(src + head, &src_stride, at + head, &dst_stride, count, 1, to);
        ARMCI_Fence(to);
        memset(back, 0, REGION);
        ARMCI_Get(at, back, (int)head, to);
        ARMCI_GetS(at + head, &dst_stride, back + head, &src_stride, count, 1, to);
        for (size_t k = 0; k < REGION; k++) {
            int in_gap = k >= head && (k - head) % ROW_STRIDE >= ROW;
            if (!in_gap && back[k] != pattern(me, to, k)) {
                CHECK(0, "got back from %d: byte %zu is %d", to, k, back[k]);
                break;
            }
        }
    }
    ARMCI_AllFence();
    ARMCI_Barrier();
    unsigned char *mine = grown[me];
    for (int from = 0; mine && from < nproc; from++) {
        size_t at = region_at(from), head = REGION - (size_t)ROWS * ROW_STRIDE;
        for (size_t k = 0; k < REGION; k++) {
            int in_gap = k >= head && (k - head) % ROW_STRIDE >= ROW;
            unsigned char want = in_gap ? TEST_GUARD_BYTE(at + k) : pattern(from, me, k);
            if (mine[at + k] != want) {
                CHECK(0, "region of %d byte %zu: %d, want %d", from, k, mine[at + k], want);
                break;
            }
        }
        for (size_t k = at - 64; k < at; k++)
            CHECK(mine[k] == TEST_GUARD_BYTE(k), "guard byte %zu before region of %d", k, from);
    }
    for (size_t k = region_at(nproc) - 64; mine && k < block; k++)
        CHECK(mine[k] == TEST_GUARD_BYTE(k), "guard byte %zu at the end", k);
    free(src);
    free(back);
    ARMCI_Barrier();
}

/* Accumulates and fetch-adds into the grown part of every process that has one, from every
 * process. */
static void atomics(void **grown)
{
    size_t at = region_at(nproc) + 64;
    double zeros[DOUBLES + 1] = {0};
    if (grown[me])
        memcpy((char *)grown[me] + at, zeros, sizeof zeros);
    ARMCI_Barrier();
    double add[DOUBLES], scale = 2.0;
    for (int i = 0; i < DOUBLES; i++)
        add[i] = me + i * 0.5;
    for (int t = 0; t < nproc; t++) {
        int to = (me + t) % nproc;
        if (!grown[to])
            continue;
        char *remote = (char *)grown[to] + at;
        ARMCI_Acc(ARMCI_ACC_DBL, &scale, add, remote, (int)sizeof add, to);
        for (int k = 0; k < 10; k++) {
            long old;
            ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &old, remote + DOUBLES * sizeof(double), 1, to);
        }
    }
    ARMCI_AllFence();
    ARMCI_Barrier();
    if (grown[me]) {
        double *sums = (double *)((char *)grown[me] + at);
        long *counter = (long *)(sums + DOUBLES);
        double ranks = (double)nproc * (nproc - 1) / 2;
        for (int i = 0; i < DOUBLES; i++) {
            double want = 2.0 * (ranks + nproc * i * 0.5);
            CHECK(sums[i] == want, "accumulated double %d: %g, want %g", i, sums[i], want);
        }
        CHECK(*counter == 10L * nproc, "fetch-adds: %ld, want %ld", *counter, 10L * nproc);
    }
    ARMCI_Barrier();
}

/* big.x: gib GiB per process, a byte per MiB written by the left neighbour. */
static void big(size_t gib)
{
    size_t bytes = gib << 30;
    void **ptrs = malloc((size_t)nproc * sizeof *ptrs);
    CHECK(ARMCI_Malloc(ptrs, (armci_size_t)bytes) == 0, "ARMCI_Malloc of %zu GiB", gib);
    int right = (me + 1) % nproc, left = (me + nproc - 1) % nproc;
    for (size_t off = 0; off < bytes; off += MIB) {
        char value = (char)pattern(me, right, off / MIB);
        ARMCI_Put(&value, (char *)ptrs[right] + off, 1, right);
    }
    ARMCI_AllFence();
    ARMCI_Barrier();
    unsigned char *mine = ptrs[me];
    for (size_t off = 0; off < bytes; off += MIB)
        if (mine[off] != pattern(left, me, off / MIB)) {
            CHECK(0, "byte at %zu MiB: %d", off / MIB, mine[off]);
            break;
        }
    ARMCI_Barrier();
    ARMCI_Free(ptrs[me]);
    free(ptrs);
}

/* The odd processes' traffic to old objects while the members grow: each puts its slot of
 * every process's first object and gets it back, rounds times. */
#define SLOT 64
#define ROUNDS 20
static void traffic(void **first)
{
    unsigned char out[SLOT], back[SLOT];
    for (int r = 0; r < ROUNDS; r++)
        for (int p = 0; p < nproc; p++) {
            char *slot = (char *)first[p] + SLOT * (me + 1);
            for (int k = 0; k < SLOT; k++)
                out[k] = pattern(me, p, (size_t)(r * SLOT + k));
            ARMCI_Put(out, slot, SLOT, p);
            ARMCI_Get(slot, back, SLOT, p);
            if (memcmp(out, back, SLOT) != 0)
                CHECK(0, "round %d: the slot on %d did not come back", r, p);
        }
}

/* TEST_GROUP: the even processes allocate over their group, growing their areas. */
static void group_growth(size_t initial, void **first)
{
    int nmembers = (nproc + 1) / 2, *members = malloc((size_t)nmembers * sizeof *members);
    for (int g = 0; g < nmembers; g++)
        members[g] = 2 * g;
    ARMCI_Group evens;
    ARMCI_Group_create(nmembers, members, &evens);
    void **small = malloc((size_t)nmembers * sizeof *small);
    void **big = malloc((size_t)nmembers * sizeof *big);
    void **grown = calloc((size_t)nproc, sizeof *grown);
    int member = me % 2 == 0;
    if (getenv("TEST_BEYOND")) {
        if (member)
            ARMCI_Malloc_group(big, (armci_size_t)(2 * env_size("PANGEA_SYMMETRIC_MAX", 0)),
                               &evens);
        CHECK(!member, "ARMCI_Malloc_group of twice PANGEA_SYMMETRIC_MAX returned");
        ARMCI_Barrier(); /* the members' failure ends the job here */
    } else if (member) {
        /* The first object grows the area once, the big one again. */
        CHECK(ARMCI_Malloc_group(small, 4096, &evens) == 0, "ARMCI_Malloc_group(4096)");
        memset(small[me / 2], 0x40 + me, 4096);
        CHECK(ARMCI_Malloc_group(big, (armci_size_t)(4 * initial), &evens) == 0,
              "ARMCI_Malloc_group(4 x heap)");
        for (int g = 0; g < nmembers; g++)
            grown[2 * g] = (char *)big[g] + 3 * initial;
    } else {
        traffic(first);
    }
    /* The non-members learn the addresses from PE 0, a member. */
    MPI_Bcast(grown, (int)((size_t)nproc * sizeof *grown), MPI_BYTE, 0, MPI_COMM_WORLD);
    transfers(grown);
    atomics(grown);
    if (member) {
        for (int g = 0; g < nmembers; g++) {
            unsigned char bytes[2];
            ARMCI_Get(small[g], &bytes[0], 1, 2 * g);
            ARMCI_Get((char *)small[g] + 4095, &bytes[1], 1, 2 * g);
            CHECK(bytes[0] == 0x40 + 2 * g && bytes[1] == 0x40 + 2 * g,
                  "first group object of %d: %d %d", 2 * g, bytes[0], bytes[1]);
        }
        ARMCI_Free_group(big[me / 2], &evens);
        ARMCI_Free_group(small[me / 2], &evens);
    }
    ARMCI_Barrier();
    /* Every odd process's slot in my first object holds its last round. */
    for (int from = 1; from < nproc; from += 2)
        for (int k = 0; k < SLOT; k++)
            if (((unsigned char *)first[me])[SLOT * (from + 1) + k] !=
                pattern(from, me, (size_t)((ROUNDS - 1) * SLOT + k))) {
                CHECK(0, "slot of %d in my first object, byte %d", from, k);
                break;
            }
    ARMCI_Group_free(&evens);
    free(grown);
    free(big);
    free(small);
    free(members);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    ARMCI_Init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    size_t initial = env_size("SHMEM_SYMMETRIC_SIZE", 256 * MIB);
    void **ptrs = malloc((size_t)nproc * sizeof *ptrs);

    if (getenv("TEST_BEYOND") && !getenv("TEST_GROUP")) {
        size_t most = env_size("PANGEA_SYMMETRIC_MAX", 0);
        ARMCI_Malloc(ptrs, (armci_size_t)(2 * most));
        CHECK(0, "ARMCI_Malloc of twice PANGEA_SYMMETRIC_MAX returned");
    } else if (getenv("TEST_BIG_GIB")) {
        big(env_size("TEST_BIG_GIB", 0));
    } else {
        /* An object of the initial heap, which must not move or change. */
        void **first = malloc((size_t)nproc * sizeof *first);
        ARMCI_Malloc(first, 4096);
        memset(first[me], me + 1, 4096);
        ARMCI_Barrier();
        if (getenv("TEST_GROUP")) {
            group_growth(initial, first);
        } else {
            CHECK(ARMCI_Malloc(ptrs, (armci_size_t)(4 * initial)) == 0, "ARMCI_Malloc(4 x heap)");
            void **grown = malloc((size_t)nproc * sizeof *grown);
            for (int p = 0; p < nproc; p++)
                grown[p] = (char *)ptrs[p] + 3 * initial;
            transfers(grown);
            atomics(grown);
            ARMCI_Barrier();
            ARMCI_Free(ptrs[me]);
            free(grown);
        }
        for (int p = 0; p < nproc; p++) {
            unsigned char byte;
            ARMCI_Get((char *)first[p] + 4095, &byte, 1, p);
            CHECK(byte == (unsigned char)(p + 1), "first object of %d: %d", p, byte);
        }
        ARMCI_Barrier();
        ARMCI_Free(first[me]);
        free(first);
    }
    free(ptrs);
    int status = check_finish();
    ARMCI_Finalize();
    MPI_Finalize();
    return status;
}
