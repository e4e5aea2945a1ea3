/* The symmetric heap: shmem_malloc, free, realloc, align, calloc, malloc_with_hints.
 *
 * Every address returned is logged as its offset from the first allocation (the spec and the
 * design promise the same offset on every PE, not the same virtual address); at the end of each
 * phase PE 0 compares all PEs' logs, so every allocation must be symmetric. Checked besides:
 * alignment (1 B to 1 MiB, and the largest power of two failing with NULL), calloc zeroing (also of
 * recycled memory and on count * size overflow), realloc keeping contents when growing, shrinking
 * and failing, size 0 returning NULL, free(NULL), usability of hinted blocks by AMOs and signals,
 * and a seeded random sequence of ~2000 collective heap operations whose blocks carry PE-dependent
 * patterns that are verified locally and on the right neighbour before each free. Afterwards the
 * heap must be whole: with SHMEM_SYMMETRIC_SIZE set, 15/16 of it must be allocatable in one block.
 * With PANGEA_SYMMETRIC_MAX set, an allocation of twice the starting heap succeeds when the
 * maximum allows it (the heap grows) and allocations beyond the maximum return NULL on all PEs
 * and leave the heap usable. */
#include "check.h"

#include <math.h>

#define MAXLOG 4096
#define NSLOTS 48
#define HUGE_SIZE ((size_t)1 << 46) /* 64 TiB: no heap is that large */

static int me, npes, left, right;
static uint64_t *logs;           /* symmetric [npes][MAXLOG], used on PE 0 */
static uint64_t *counts;         /* symmetric [npes], used on PE 0 */
static uint64_t log_off[MAXLOG]; /* offset from logs, UINT64_MAX for NULL */
static const char *log_what[MAXLOG];
static size_t nlog;

static void log_alloc(const void *p, const char *what)
{
    if (nlog < MAXLOG) {
        log_off[nlog] = p ? (uint64_t)((uintptr_t)p - (uintptr_t)logs) : UINT64_MAX;
        log_what[nlog++] = what;
    }
}

/* PE 0 compares every PE's offset log with its own (collective). */
static void verify_logs(const char *phase)
{
    shmem_putmem(&logs[(size_t)me * MAXLOG], log_off, nlog * sizeof(uint64_t), 0);
    shmem_uint64_p(&counts[me], nlog, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++) {
            CHECK(counts[pe] == nlog, "%s: PE %d made %llu allocations, PE 0 %zu", phase, pe,
                  (unsigned long long)counts[pe], nlog);
            for (size_t i = 0; i < nlog && i < counts[pe]; i++) {
                uint64_t off = logs[(size_t)pe * MAXLOG + i];
                if (off != log_off[i]) {
                    CHECK(off == log_off[i],
                          "%s: %s (#%zu) is at offset %#llx on PE %d, %#llx on PE 0", phase,
                          log_what[i], i, (unsigned long long)off, pe,
                          (unsigned long long)log_off[i]);
                    break;
                }
            }
        }
    }
    shmem_barrier_all();
    nlog = 0;
}

/* The right neighbour's copy of block p (same address) carries its pattern (pe, salt). */
static void check_neighbour(const unsigned char *p, size_t size, unsigned salt, const char *what)
{
    unsigned char *tmp = malloc(size ? size : 1);
    shmem_getmem(tmp, p, size, right);
    size_t bad = test_bad_byte(tmp, size, right, salt);
    CHECK(bad == SIZE_MAX, "%s: PE %d's block of %zu bytes: byte %zu wrong", what, right, size,
          bad);
    free(tmp);
}

/* A size in the spec's grammar from variable name (or fallback), 0 when unset. */
static size_t size_from_env(const char *name, const char *fallback)
{
    const char *s = getenv(name);
    if (!s && fallback)
        s = getenv(fallback);
    if (!s || !*s)
        return 0;
    char *end;
    double v = strtod(s, &end), mult = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mult = 0x1p10;
        break;
    case 'm':
    case 'M':
        mult = 0x1p20;
        break;
    case 'g':
    case 'G':
        mult = 0x1p30;
        break;
    case 't':
    case 'T':
        mult = 0x1p40;
        break;
    }
    return (size_t)ceil(v * mult);
}

static void test_basic(void)
{
    const size_t sizes[] = {1, 8, 100, 4096, 65537, (size_t)1 << 20};
    enum { N = sizeof sizes / sizeof sizes[0] };
    unsigned char *p[N];
    for (int i = 0; i < N; i++) {
        p[i] = shmem_malloc(sizes[i]);
        CHECK(p[i] != NULL, "shmem_malloc(%zu) returned NULL", sizes[i]);
        log_alloc(p[i], "shmem_malloc (basic)");
        if (p[i])
            test_fill_bytes(p[i], sizes[i], me, (unsigned)i);
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++)
            if (p[i] && p[j])
                CHECK(p[i] + sizes[i] <= p[j] || p[j] + sizes[j] <= p[i],
                      "blocks %d and %d overlap", i, j);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        if (p[i]) {
            CHECK(test_bad_byte(p[i], sizes[i], me, (unsigned)i) == SIZE_MAX,
                  "block of %zu bytes overwritten", sizes[i]);
            check_neighbour(p[i], sizes[i], (unsigned)i, "basic");
        }
    for (int i = N - 1; i >= 0; i--)
        shmem_free(p[i]);

    /* Size 0 returns NULL (without a barrier); shmem_free(NULL) does nothing. */
    CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0) is not NULL");
    CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8) is not NULL");
    CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0) is not NULL");
    CHECK(shmem_align(64, 0) == NULL, "shmem_align(64, 0) is not NULL");
    CHECK(shmem_malloc_with_hints(0, SHMEM_MALLOC_ATOMICS_REMOTE) == NULL,
          "shmem_malloc_with_hints(0) is not NULL");
    shmem_free(NULL);
    verify_logs("basic");
}

static void test_align(void)
{
    enum { N = 21 }; /* 1 B .. 1 MiB: every power of two is valid (1, 2 and 4 included) */
    unsigned char *p[N];
    for (int i = 0; i < N; i++) {
        size_t a = (size_t)1 << i;
        p[i] = shmem_align(a, 100 + (size_t)i);
        CHECK(p[i] != NULL, "shmem_align(%zu) returned NULL", a);
        CHECK((uintptr_t)p[i] % a == 0, "shmem_align(%zu) returned %p", a, (void *)p[i]);
        log_alloc(p[i], "shmem_align");
        if (p[i])
            test_fill_bytes(p[i], 100 + (size_t)i, me, 100 + (unsigned)i);
    }
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        if (p[i])
            check_neighbour(p[i], 100 + (size_t)i, 100 + (unsigned)i, "shmem_align");
    for (int i = 0; i < N; i++)
        shmem_free(p[i]);
    /* The largest power of two is valid but cannot be satisfied: NULL on every PE, no stop
     * (also under SHMEM_DEBUG). */
    size_t largest = ~(SIZE_MAX >> 1);
    CHECK(shmem_align(largest, 64) == NULL, "shmem_align(%zu) did not fail", largest);
    /* 0 and 3, the first invalid values, stop the job under SHMEM_DEBUG (bad_input); without it
     * they return NULL on every PE. */
    if (!getenv("SHMEM_DEBUG")) {
        CHECK(shmem_align(0, 64) == NULL, "shmem_align(0) is not NULL");
        CHECK(shmem_align(3, 64) == NULL, "shmem_align(3) is not NULL");
    }
    verify_logs("align");
}

static void test_calloc(void)
{
    const size_t n = 65536;
    unsigned char *p = shmem_malloc(n);
    log_alloc(p, "shmem_malloc before calloc");
    if (p)
        memset(p, 0xff, n);
    shmem_free(p);
    const size_t counts_[] = {16384, 1000, 1, 7};
    const size_t sizes[] = {4, 3, 1, 8192};
    for (int i = 0; i < 4; i++) {
        unsigned char *q = shmem_calloc(counts_[i], sizes[i]);
        CHECK(q != NULL, "shmem_calloc(%zu, %zu) returned NULL", counts_[i], sizes[i]);
        log_alloc(q, "shmem_calloc");
        size_t nz = 0;
        for (size_t k = 0; q && k < counts_[i] * sizes[i]; k++)
            nz += q[k] != 0;
        CHECK(nz == 0, "shmem_calloc(%zu, %zu): %zu bytes not zero", counts_[i], sizes[i], nz);
        shmem_free(q);
    }
    /* count * size overflows size_t: no allocation. */
    CHECK(shmem_calloc(SIZE_MAX / 2, 4) == NULL, "shmem_calloc with overflowing size");
    verify_logs("calloc");
}

static void test_hints(void)
{
    const long hints[] = {0, SHMEM_MALLOC_ATOMICS_REMOTE, SHMEM_MALLOC_SIGNAL_REMOTE,
                          SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE};
    for (int i = 0; i < 4; i++) {
        uint64_t *p = shmem_malloc_with_hints(1024, hints[i]);
        CHECK(p != NULL, "shmem_malloc_with_hints(1024, %ld) returned NULL", hints[i]);
        log_alloc(p, "shmem_malloc_with_hints");
        if (!p)
            continue;
        p[0] = 0;
        p[1] = 0;
        shmem_barrier_all();
        shmem_uint64_atomic_add(&p[0], (uint64_t)me + 1, 0);
        shmem_signal_add(&p[1], 2, 0);
        shmem_barrier_all();
        if (me == 0) {
            uint64_t want = (uint64_t)npes * (npes + 1) / 2;
            CHECK(p[0] == want, "atomic adds into hinted block: %llu, want %llu",
                  (unsigned long long)p[0], (unsigned long long)want);
            CHECK(shmem_signal_fetch(&p[1]) == 2 * (uint64_t)npes, "signal_add into hinted block");
        }
        shmem_free(p);
    }
    verify_logs("hints");
}

static void test_realloc(void)
{
    unsigned char *p = shmem_malloc(1000);
    unsigned char *blocker = shmem_malloc(100); /* makes growing in place less likely */
    log_alloc(p, "shmem_malloc for realloc");
    log_alloc(blocker, "shmem_malloc blocker");
    if (!p || !blocker) {
        CHECK(0, "shmem_malloc for realloc returned NULL");
        return;
    }
    test_fill_bytes(p, 1000, me, 7);

    unsigned char *q = shmem_realloc(p, 100000); /* grow */
    CHECK(q != NULL, "shmem_realloc grow returned NULL");
    log_alloc(q, "shmem_realloc grow");
    if (q) {
        CHECK(test_bad_byte(q, 1000, me, 7) == SIZE_MAX, "realloc grow lost the contents");
        memset(q + 1000, 0x5a, 99000); /* the new part is usable */
        shmem_barrier_all();
        check_neighbour(q, 1000, 7, "shmem_realloc grow");
        p = q;
    }
    q = shmem_realloc(p, 500); /* shrink */
    CHECK(q != NULL, "shmem_realloc shrink returned NULL");
    log_alloc(q, "shmem_realloc shrink");
    if (q) {
        CHECK(test_bad_byte(q, 500, me, 7) == SIZE_MAX, "realloc shrink lost the contents");
        shmem_barrier_all();
        check_neighbour(q, 500, 7, "shmem_realloc shrink");
        p = q;
    }
    q = shmem_realloc(p, HUGE_SIZE); /* fails: the block stays as it was */
    CHECK(q == NULL, "shmem_realloc to 64 TiB did not fail");
    if (!q) {
        CHECK(test_bad_byte(p, 500, me, 7) == SIZE_MAX, "failed realloc changed the block");
        shmem_barrier_all();
        check_neighbour(p, 500, 7, "failed shmem_realloc");
    }
    q = shmem_realloc(NULL, 256); /* acts as shmem_malloc */
    CHECK(q != NULL, "shmem_realloc(NULL, 256) returned NULL");
    log_alloc(q, "shmem_realloc(NULL)");
    CHECK(shmem_realloc(q, 0) == NULL, "shmem_realloc(p, 0) did not return NULL");
    shmem_free(blocker);
    shmem_free(p);
    verify_logs("realloc");
}

/* ---- Random sequence ------------------------------------------------------------------------- */
struct block {
    unsigned char *p;
    size_t size;
    unsigned salt;
};

static size_t pick_size(uint64_t *rng)
{
    uint64_t r = test_rand(rng);
    unsigned pct = (unsigned)(r % 100);
    r >>= 8;
    if (pct < 70)
        return 1 + r % 256;
    if (pct < 95)
        return 257 + r % 16128;
    return 16385 + r % 245760;
}

static void verify_block(const struct block *b, const char *what)
{
    size_t bad = test_bad_byte(b->p, b->size, me, b->salt);
    CHECK(bad == SIZE_MAX, "%s: own block of %zu bytes: byte %zu wrong", what, b->size, bad);
}

/* Verifies the block here and on the right neighbour, then frees it (collective). */
static void free_block(struct block *b)
{
    shmem_barrier_all(); /* the neighbour has filled its copy */
    verify_block(b, "before free");
    check_neighbour(b->p, b->size, b->salt, "before free");
    shmem_free(b->p);
    b->p = NULL;
}

static void test_random(void)
{
    static struct block blk[NSLOTS];
    uint64_t rng = 0x5eed;
    long nops = test_scaled(2000);
    for (long op = 0; op < nops; op++) {
        uint64_t r = test_rand(&rng);
        struct block *b = &blk[r % NSLOTS];
        unsigned kind = (unsigned)(r >> 16) % 8;
        if (!b->p) {
            size_t size = pick_size(&rng);
            switch (kind) {
            case 4: {
                size_t align = (size_t)8 << ((r >> 24) % 10);
                b->p = shmem_align(align, size);
                CHECK((uintptr_t)b->p % align == 0, "shmem_align(%zu) misaligned", align);
                break;
            }
            case 5:
                b->p = shmem_calloc(size, 1);
                for (size_t k = 0; b->p && k < size; k++)
                    if (b->p[k]) {
                        CHECK(b->p[k] == 0, "shmem_calloc(%zu) byte %zu not zero", size, k);
                        break;
                    }
                break;
            case 6:
                b->p = shmem_malloc_with_hints(size, SHMEM_MALLOC_ATOMICS_REMOTE);
                break;
            case 7:
                b->p = shmem_realloc(NULL, size);
                break;
            default:
                b->p = shmem_malloc(size);
                break;
            }
            CHECK(b->p != NULL, "op %ld: allocation of %zu bytes (kind %u) failed", op, size, kind);
            log_alloc(b->p, "random allocation");
            if (b->p) {
                b->size = size;
                b->salt = (unsigned)op;
                test_fill_bytes(b->p, size, me, b->salt);
            }
        } else if (kind < 2) {
            size_t size = (r >> 24) % 16 == 0 ? 0 : pick_size(&rng);
            verify_block(b, "before realloc");
            unsigned char *q = shmem_realloc(b->p, size);
            log_alloc(q, "random realloc");
            if (size == 0) {
                CHECK(q == NULL, "op %ld: shmem_realloc(p, 0) is not NULL", op);
                b->p = NULL;
                continue;
            }
            CHECK(q != NULL, "op %ld: shmem_realloc to %zu bytes failed", op, size);
            if (!q)
                continue;
            size_t keep = size < b->size ? size : b->size;
            size_t bad = test_bad_byte(q, keep, me, b->salt);
            CHECK(bad == SIZE_MAX, "op %ld: realloc %zu -> %zu lost byte %zu", op, b->size, size,
                  bad);
            b->p = q;
            b->size = size;
            test_fill_bytes(b->p, size, me, b->salt); /* also the grown part */
        } else {
            free_block(b);
        }
    }
    for (int i = 0; i < NSLOTS; i++)
        if (blk[i].p)
            free_block(&blk[i]);
    verify_logs("random sequence");
}

/* After everything was freed the heap is whole: one block of 15/16 of it fits. */
static void test_whole(size_t heap)
{
    if (!heap) {
        if (me == 0)
            printf("note: SHMEM_SYMMETRIC_SIZE unset, whole-heap allocation skipped\n");
        return;
    }
    size_t size = heap / 16 * 15;
    unsigned char *p = shmem_malloc(size);
    CHECK(p != NULL, "shmem_malloc(%zu) of a %zu-byte heap failed after freeing everything", size,
          heap);
    log_alloc(p, "whole-heap allocation");
    if (p) {
        for (size_t off = 0; off < size; off += (size_t)1 << 20)
            p[off] = (unsigned char)(off >> 20);
        shmem_char_p((char *)&p[size - 1], (char)(me + 1), right);
        shmem_barrier_all();
        CHECK(p[size - 1] == (unsigned char)(left + 1), "last byte of the big block");
        for (size_t off = 0; off < size; off += (size_t)1 << 20)
            CHECK(p[off] == (unsigned char)(off >> 20), "big block byte %zu", off);
        shmem_free(p);
    }
    verify_logs("whole heap");
}

/* heap_max: PANGEA_SYMMETRIC_MAX, 0 when unset. */
static void test_exhaustion(size_t heap, size_t heap_max)
{
    if (heap && heap_max >= 3 * heap) {
        unsigned char *p = shmem_malloc(2 * heap);
        CHECK(p != NULL, "shmem_malloc(2 x heap) did not grow the heap");
        log_alloc(p, "allocation that grew the heap");
        if (p) {
            shmem_char_p((char *)&p[2 * heap - 1], (char)(me + 1), right);
            shmem_barrier_all();
            CHECK(p[2 * heap - 1] == (unsigned char)(left + 1), "last byte of the grown block");
            shmem_free(p);
        }
    }
    if (heap_max) {
        CHECK(shmem_malloc(heap_max + heap_max / 2) == NULL,
              "shmem_malloc(1.5 x PANGEA_SYMMETRIC_MAX) did not fail");
        CHECK(shmem_align(4096, heap_max * 2) == NULL,
              "shmem_align(2 x PANGEA_SYMMETRIC_MAX) did not fail");
    }
    CHECK(shmem_malloc(HUGE_SIZE) == NULL, "shmem_malloc(64 TiB) did not fail");
    CHECK(shmem_calloc(HUGE_SIZE / 8, 8) == NULL, "shmem_calloc(64 TiB) did not fail");
    CHECK(shmem_malloc_with_hints(HUGE_SIZE, 0) == NULL, "malloc_with_hints(64 TiB) did not fail");
    /* Still usable. */
    long *p = shmem_malloc(4096);
    CHECK(p != NULL, "shmem_malloc(4096) after failed allocations");
    log_alloc(p, "allocation after exhaustion");
    if (p) {
        shmem_long_p(&p[me], 1000 + me, right);
        shmem_barrier_all();
        CHECK(p[left] == 1000 + left, "block allocated after exhaustion");
        shmem_free(p);
    }
    verify_logs("exhaustion");
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    size_t heap = size_from_env("SHMEM_SYMMETRIC_SIZE", "SMA_SYMMETRIC_SIZE");
    size_t heap_max = size_from_env("PANGEA_SYMMETRIC_MAX", NULL);

    logs = shmem_malloc((size_t)npes * MAXLOG * sizeof(uint64_t));
    counts = shmem_malloc((size_t)npes * sizeof(uint64_t));
    CHECK(logs && counts, "shmem_malloc of the address logs");
    if (!logs || !counts)
        return check_finish();
    log_alloc(logs, "logs");
    log_alloc(counts, "counts");
    verify_logs("start");

    test_basic();
    test_align();
    test_calloc();
    test_hints();
    test_realloc();
    test_random();
    test_exhaustion(heap, heap_max);
    /* The logs (npes * 32 KiB) stay allocated: 15/16 of the heap still fits beside them. */
    test_whole(heap);

    int rc = check_finish();
    shmem_free(counts);
    shmem_free(logs);
    shmem_finalize();
    return rc;
}
