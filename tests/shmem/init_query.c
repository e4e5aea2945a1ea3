/* Library setup and queries.
 *
 * Lifecycle (1.6): shmem_query_initialized is 0 before shmem_init; shmem_init twice, then two
 * shmem_finalize calls: the library stays initialized (and usable) after the first, is no longer
 * initialized after the last, and can be initialized again with the same PE numbering.
 * Queries, in both lives: my_pe/n_pes ranges and that every PE number is taken exactly once,
 * info_get_version == SHMEM_MAJOR/MINOR_VERSION == 1.6, info_get_name == SHMEM_VENDOR_STRING
 * (NUL-terminated within SHMEM_MAX_NAME_LEN), pe_accessible for every PE and out of range
 * (-1, npes: 0), addr_accessible for heap and static data (1) and for stack and malloc memory
 * (0). */
#include "check.h"

static int me, npes, left, right;
static long static_obj[4];

static int initialized(void)
{
    int init = -1;
    shmem_query_initialized(&init);
    return init;
}

/* A put around the ring arrives: the library is usable. */
static void ring_put(const char *phase)
{
    long *buf = shmem_malloc(sizeof(long));
    CHECK(buf != NULL, "%s: shmem_malloc failed", phase);
    if (!buf)
        return;
    *buf = -1;
    shmem_barrier_all();
    shmem_long_p(buf, 1000 + me, right);
    shmem_barrier_all();
    CHECK(*buf == 1000 + left, "%s: ring put delivered %ld, want %d", phase, *buf, 1000 + left);
    shmem_free(buf);
}

static void queries(const char *phase)
{
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    CHECK(npes >= 1, "%s: n_pes = %d", phase, npes);
    CHECK(me >= 0 && me < npes, "%s: my_pe = %d out of [0, %d)", phase, me, npes);

    /* Every PE number taken once, every PE agrees on n_pes. */
    int *seen = shmem_calloc((size_t)npes + 1, sizeof(int));
    shmem_int_atomic_inc(&seen[me], 0);
    shmem_int_atomic_add(&seen[npes], npes, 0);
    shmem_barrier_all();
    if (me == 0) {
        for (int pe = 0; pe < npes; pe++)
            CHECK(seen[pe] == 1, "%s: PE number %d taken %d times", phase, pe, seen[pe]);
        CHECK(seen[npes] == npes * npes, "%s: the PEs disagree on n_pes", phase);
    }
    shmem_free(seen);

    int major = -1, minor = -1;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION,
          "%s: info_get_version %d.%d, header %d.%d", phase, major, minor, SHMEM_MAJOR_VERSION,
          SHMEM_MINOR_VERSION);
    CHECK(major == 1 && minor == 6, "%s: version %d.%d, want 1.6", phase, major, minor);
    CHECK(_SHMEM_MAJOR_VERSION == SHMEM_MAJOR_VERSION &&
              _SHMEM_MINOR_VERSION == SHMEM_MINOR_VERSION,
          "legacy _SHMEM_ version constants differ");

    char name[SHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    shmem_info_get_name(name);
    CHECK(memchr(name, 0, sizeof name) != NULL, "%s: info_get_name not NUL-terminated", phase);
    CHECK(strncmp(name, SHMEM_VENDOR_STRING, sizeof name) == 0,
          "%s: info_get_name \"%.*s\" differs from SHMEM_VENDOR_STRING \"%s\"", phase,
          (int)sizeof name, name, SHMEM_VENDOR_STRING);
    CHECK(strlen(SHMEM_VENDOR_STRING) < SHMEM_MAX_NAME_LEN,
          "SHMEM_VENDOR_STRING longer than SHMEM_MAX_NAME_LEN");

    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_pe_accessible(pe) == 1, "%s: pe_accessible(%d) != 1", phase, pe);
    CHECK(shmem_pe_accessible(-1) == 0, "%s: pe_accessible(-1) != 0", phase);
    CHECK(shmem_pe_accessible(npes) == 0, "%s: pe_accessible(npes) != 0", phase);

    long *heap_obj = shmem_malloc(64);
    long stack_obj[4] = {0};
    long *private_obj = malloc(64);
    for (int pe = 0; pe < npes; pe++) {
        CHECK(shmem_addr_accessible(heap_obj, pe) == 1, "%s: addr_accessible(heap, %d)", phase, pe);
        CHECK(shmem_addr_accessible(heap_obj + 7, pe) == 1,
              "%s: addr_accessible(inside a heap object, %d)", phase, pe);
        CHECK(shmem_addr_accessible(static_obj, pe) == 1, "%s: addr_accessible(static, %d)", phase,
              pe);
        CHECK(shmem_addr_accessible(stack_obj, pe) == 0, "%s: addr_accessible(stack, %d)", phase,
              pe);
        CHECK(shmem_addr_accessible(private_obj, pe) == 0, "%s: addr_accessible(malloc, %d)", phase,
              pe);
    }
    free(private_obj);
    shmem_free(heap_obj);
}

/* How many teams can live at once; left alive when keep (a finalize ends them, and the next
 * life has room for as many). */
static int split_until_full(int keep)
{
    enum { TRY = 100 };
    shmem_team_t made[TRY];
    int n = test_split_until_full(made, TRY);
    for (int i = 0; i < n && !keep; i++)
        shmem_team_destroy(made[i]);
    return n;
}

int main(void)
{
    CHECK(initialized() == 0, "query_initialized before shmem_init: %d", initialized());
    shmem_init();
    CHECK(initialized() == 1, "query_initialized after shmem_init: %d", initialized());
    shmem_init();
    CHECK(initialized() == 1, "query_initialized after a second shmem_init: %d", initialized());
    queries("first life");
    ring_put("after two inits");
    int teams_first = split_until_full(1);

    shmem_finalize(); /* the first of two: acts as a barrier, the library stays up */
    CHECK(initialized() == 1, "query_initialized after the first of two finalizes: %d",
          initialized());
    ring_put("between the two finalizes");
    int first_me = me, first_npes = npes;
    shmem_finalize();
    CHECK(initialized() == 0, "query_initialized after the last finalize: %d", initialized());

    shmem_init(); /* allowed again since 1.6 */
    CHECK(initialized() == 1, "query_initialized after re-initialization: %d", initialized());
    CHECK(shmem_my_pe() == first_me && shmem_n_pes() == first_npes,
          "re-initialized as PE %d of %d, was %d of %d", shmem_my_pe(), shmem_n_pes(), first_me,
          first_npes);
    queries("second life");
    ring_put("after re-initialization");
    int teams_second = split_until_full(0);
    CHECK(teams_second == teams_first && teams_first > 8,
          "%d teams fit after re-initialization, %d in the first life (left alive)", teams_second,
          teams_first);

    int rc = check_finish();
    shmem_finalize();
    if (initialized() != 0) {
        fprintf(stderr, "PE %d: query_initialized after the final finalize: %d\n", first_me,
                initialized());
        rc = 1;
    }
    return rc;
}
