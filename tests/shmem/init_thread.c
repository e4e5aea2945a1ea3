/* Thread levels: shmem_init_thread with the level named by TEST_THREAD_LEVEL (SINGLE, FUNNELED,
 * SERIALIZED or MULTIPLE; one list line each).
 *
 * The constants strictly increase; init_thread returns 0 and provides a valid level at least
 * the requested one; shmem_query_thread reports the provided level. The work matches the level:
 * SINGLE and FUNNELED use the main thread only; SERIALIZED runs two threads one after the other;
 * MULTIPLE runs two threads per PE at once. Each thread adds 1 to a counter on PE 0 K times
 * (fetch_add values must increase per thread), puts its own block to the right neighbour and
 * quiets; totals and blocks are checked exactly. */
#include "check.h"

#include <pthread.h>

#define NTHREADS 2
#define K 1000
#define BLOCK 256

static int me, npes, left, right;
static long *counter;        /* symmetric, on PE 0 */
static unsigned char *block; /* symmetric: NTHREADS blocks from the left neighbour */

struct worker {
    int id;
    long nonmonotonic;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    long last = -1;
    for (int k = 0; k < K; k++) {
        long old = shmem_long_atomic_fetch_add(counter, 1, 0);
        w->nonmonotonic += old <= last;
        last = old;
    }
    unsigned char src[BLOCK];
    test_fill_bytes(src, BLOCK, me, (unsigned)w->id);
    shmem_putmem(block + (size_t)w->id * BLOCK, src, BLOCK, right);
    shmem_quiet();
    return NULL;
}

static int level_from_env(const char **name)
{
    static const char *const names[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
    static const int levels[] = {SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED,
                                 SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE};
    const char *s = getenv("TEST_THREAD_LEVEL");
    for (int i = 0; i < 4; i++)
        if (s && strcmp(s, names[i]) == 0) {
            *name = names[i];
            return levels[i];
        }
    *name = "MULTIPLE (TEST_THREAD_LEVEL unset or unknown)";
    return SHMEM_THREAD_MULTIPLE;
}

int main(void)
{
    const char *level_name;
    int requested = level_from_env(&level_name);
    int provided = -1;
    int rc0 = shmem_init_thread(requested, &provided);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;

    CHECK(SHMEM_THREAD_SINGLE < SHMEM_THREAD_FUNNELED &&
              SHMEM_THREAD_FUNNELED < SHMEM_THREAD_SERIALIZED &&
              SHMEM_THREAD_SERIALIZED < SHMEM_THREAD_MULTIPLE,
          "thread level constants do not increase strictly");
    CHECK(rc0 == 0, "shmem_init_thread(%s) returned %d", level_name, rc0);
    CHECK(provided == SHMEM_THREAD_SINGLE || provided == SHMEM_THREAD_FUNNELED ||
              provided == SHMEM_THREAD_SERIALIZED || provided == SHMEM_THREAD_MULTIPLE,
          "provided level %d is not a thread level", provided);
    /* Pangea supports every level, so it must provide at least the requested one. */
    CHECK(provided >= requested, "requested %s, provided %d", level_name, provided);
    int queried = -1;
    shmem_query_thread(&queried);
    CHECK(queried == provided, "query_thread %d, init_thread provided %d", queried, provided);

    counter = shmem_calloc(1, sizeof(long));
    block = shmem_calloc(NTHREADS, BLOCK);
    if (!counter || !block) {
        CHECK(0, "allocation failed");
        return check_finish();
    }

    /* Threads as far as both the request and the provided level allow. */
    int threads = requested >= SHMEM_THREAD_SERIALIZED && provided >= SHMEM_THREAD_SERIALIZED;
    int concurrent = requested >= SHMEM_THREAD_MULTIPLE && provided >= SHMEM_THREAD_MULTIPLE;
    struct worker w[NTHREADS] = {{0, 0}, {1, 0}};
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        if (!threads) {
            work(&w[i]); /* SINGLE, FUNNELED: the main thread does the work */
            continue;
        }
        CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create");
        if (!concurrent)
            pthread_join(t[i], NULL); /* SERIALIZED: one thread at a time */
    }
    if (concurrent)
        for (int i = 0; i < NTHREADS; i++)
            pthread_join(t[i], NULL);
    for (int i = 0; i < NTHREADS; i++)
        CHECK(w[i].nonmonotonic == 0, "%s: %ld fetch_add results did not increase (thread %d)",
              level_name, w[i].nonmonotonic, i);
    shmem_barrier_all();
    if (me == 0)
        CHECK(*counter == (long)npes * NTHREADS * K, "%s%s: counter %ld, want %ld", level_name,
              threads ? " (threads)" : "", *counter, (long)npes * NTHREADS * K);
    for (int i = 0; i < NTHREADS; i++) {
        size_t bad = test_bad_byte(block + (size_t)i * BLOCK, BLOCK, left, (unsigned)i);
        CHECK(bad == SIZE_MAX, "%s: block of PE %d's thread %d: byte %zu", level_name, left, i,
              bad);
    }

    shmem_free(block);
    shmem_free(counter);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
