/* Point-to-point synchronization.
 *
 * Every PE waits on its own variables while its left neighbour updates them (on one PE, a PE
 * updates itself before it waits). A round: the variables get their initial value, the waiter
 * checks with the test forms that nothing is satisfied yet and tells its updater to go; the
 * updater first writes a value that does NOT satisfy the condition, sleeps, then writes one that
 * does; the waiter must return with exactly that value.
 * - wait_until and test for every T-P2P type and every comparison (typed and C11 generic; AMO
 *   set for the AMO types, p + quiet for short and unsigned short, which have no AMOs);
 * - wait_until_all/any/some and their _vector forms, and the test_* forms, for every T-P2P type
 *   too, with a status mask that excludes elements (an excluded element is updated first and
 *   must be ignored);
 * - empty wait sets (nelems 0 or every element excluded), and fairness: with every element
 *   satisfied, repeated any/some calls must report every included index;
 * - the deprecated shmem_wait, shmem_TYPENAME_wait and the C function shmem_wait_until;
 * - a ping-pong of 1000 round trips between PE pairs with atomic_set + wait_until. */
#include "check.h"

TEST_ALLOW_DEPRECATED

#define DELAY_US 1000
#define NV 8 /* elements of the multi-element wait sets */
#define PINGPONG 1000

static const int cmps[] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                           SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const char *const cmp_names[] = {"EQ", "NE", "GT", "GE", "LT", "LE"};

static int me, npes, left, right;
static long *go; /* symmetric: handshake rounds announced by the right neighbour */
static long go_round;
static unsigned char *vars; /* symmetric scratch for the waited-on variables */

/* My pre-checks are done: let my updater (left) go, and wait until the PE I update (right) has
 * done its pre-checks too. */
static void handshake(void)
{
    go_round++;
    shmem_long_atomic_set(go, go_round, left);
    shmem_long_wait_until(go, SHMEM_CMP_GE, go_round);
}

/* ---- wait_until and test on one variable --------------------------------------------------------
 * Offsets from a type-dependent base: initial value, a non-satisfying update, the satisfying
 * update, and the comparison value (10), for EQ NE GT GE LT LE. */
static const long plan[6][3] = {{0, 5, 10}, {10, 10, 12}, {3, 10, 11},
                                {3, 9, 10}, {20, 10, 9},  {20, 11, 10}};

#define UPDATE_AMO(N, ivar, value, pe) shmem_##N##_atomic_set(ivar, value, pe)
#define UPDATE_PUT(N, ivar, value, pe) (shmem_##N##_p(ivar, value, pe), shmem_quiet())

#define DEFINE_WAIT(T, N, UPDATE)                                                                  \
    static void wait_##N(int c)                                                                    \
    {                                                                                              \
        int cmp = cmps[c], generic = c % 2;                                                        \
        const char *what = cmp_names[c];                                                           \
        T base = TEST_WIDE(T, 2), *ivar = (T *)vars;                                               \
        T init = (T)(base + plan[c][0]), mid = (T)(base + plan[c][1]);                             \
        T final = (T)(base + plan[c][2]), value = (T)(base + 10);                                  \
        *ivar = init;                                                                              \
        shmem_barrier_all();                                                                       \
        int r = generic ? shmem_test(ivar, cmp, value) : shmem_##N##_test(ivar, cmp, value);       \
        CHECK(r == 0, "%s_test %s before the update returned %d", #N, what, r);                    \
        handshake();                                                                               \
        UPDATE(N, ivar, mid, right);                                                               \
        test_sleep_us(DELAY_US);                                                                   \
        UPDATE(N, ivar, final, right);                                                             \
        if (generic)                                                                               \
            shmem_wait_until(ivar, cmp, value);                                                    \
        else                                                                                       \
            shmem_##N##_wait_until(ivar, cmp, value);                                              \
        CHECK(*ivar == final, "%s_wait_until %s returned before the satisfying update", #N, what); \
        r = generic ? shmem_test(ivar, cmp, value) : shmem_##N##_test(ivar, cmp, value);           \
        CHECK(r == 1, "%s_test %s after the update returned %d", #N, what, r);                     \
        shmem_barrier_all();                                                                       \
    }
#define DEFINE_WAIT_AMO(T, N) DEFINE_WAIT(T, N, UPDATE_AMO)
DEFINE_WAIT(short, short, UPDATE_PUT)
DEFINE_WAIT(unsigned short, ushort, UPDATE_PUT)
TEST_T_AMO_STD(DEFINE_WAIT_AMO)

/* ---- Multi-element forms ------------------------------------------------------------------------
 * Elements 2 and 5 are excluded by the status mask. Scalar forms wait for EQ base + 1, vector
 * forms for GE base + 10 + i. Updates: ALL sets every included element; ANY sets excluded 5,
 * then 6; SOME sets 1, then 3. */
enum form { ALL, ANY, SOME };
static const int status[NV] = {0, 0, 1, 0, 0, 1, 0, 0};
static const int all_excluded[NV] = {1, 1, 1, 1, 1, 1, 1, 1};
static const char *const fair_names[4] = {"test_any", "wait_until_any", "test_some",
                                          "wait_until_some"};
static const int update_order[3][NV] = {{0, 1, 3, 4, 6, 7, -1}, {5, 6, -1}, {1, 3, -1}};

/* Indices reported by some/any calls, each checked to be a valid index of the set want. */
static void note_indices(const size_t *idx, size_t n, unsigned want, unsigned *seen,
                         const char *what)
{
    unsigned in_call = 0;
    for (size_t k = 0; k < n; k++) {
        int ok = idx[k] < NV && (want >> idx[k] & 1) && !(in_call >> idx[k] & 1);
        CHECK(ok, "%s reported index %zu (allowed mask %#x, already in this call %#x)", what,
              idx[k], want, in_call);
        if (ok) {
            in_call |= 1u << idx[k];
            *seen |= 1u << idx[k];
        }
    }
}

#define DEFINE_MULTI(T, N, UPDATE)                                                               \
    static int all_##N(int vec, int generic, T *iv, const int *st, int cmp, T value,             \
                       const T *values)                                                          \
    {                                                                                            \
        if (vec)                                                                                 \
            return generic ? shmem_test_all_vector(iv, NV, st, cmp, values)                      \
                           : shmem_##N##_test_all_vector(iv, NV, st, cmp, values);               \
        return generic ? shmem_test_all(iv, NV, st, cmp, value)                                  \
                       : shmem_##N##_test_all(iv, NV, st, cmp, value);                           \
    }                                                                                            \
    static size_t any_##N(int vec, int wait, T *iv, size_t n, const int *st, int cmp, T value,   \
                          const T *values)                                                       \
    {                                                                                            \
        if (wait)                                                                                \
            return vec ? shmem_##N##_wait_until_any_vector(iv, n, st, cmp, values)               \
                       : shmem_##N##_wait_until_any(iv, n, st, cmp, value);                      \
        return vec ? shmem_##N##_test_any_vector(iv, n, st, cmp, values)                         \
                   : shmem_##N##_test_any(iv, n, st, cmp, value);                                \
    }                                                                                            \
    static size_t some_##N(int vec, int wait, T *iv, size_t n, size_t *idx, const int *st,       \
                           int cmp, T value, const T *values)                                    \
    {                                                                                            \
        if (wait)                                                                                \
            return vec ? shmem_##N##_wait_until_some_vector(iv, n, idx, st, cmp, values)         \
                       : shmem_##N##_wait_until_some(iv, n, idx, st, cmp, value);                \
        return vec ? shmem_##N##_test_some_vector(iv, n, idx, st, cmp, values)                   \
                   : shmem_##N##_test_some(iv, n, idx, st, cmp, value);                          \
    }                                                                                            \
    static void multi_##N(enum form form, int vec, int generic)                                  \
    {                                                                                            \
        const char *v = vec ? "_vector" : "";                                                    \
        T base = TEST_WIDE(T, 3), *iv = (T *)vars, values[NV], want[NV];                         \
        int cmp = vec ? SHMEM_CMP_GE : SHMEM_CMP_EQ;                                             \
        T value = (T)(base + 1);                                                                 \
        size_t idx[NV];                                                                          \
        for (int i = 0; i < NV; i++) {                                                           \
            iv[i] = base;                                                                        \
            values[i] = (T)(base + 10 + i);                                                      \
            want[i] = vec ? values[i] : value;                                                   \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
        CHECK(all_##N(vec, generic, iv, status, cmp, value, values) == 0,                        \
              "%s test_all%s before the updates", #N, v);                                        \
        CHECK(any_##N(vec, 0, iv, NV, status, cmp, value, values) == SIZE_MAX,                   \
              "%s test_any%s before the updates", #N, v);                                        \
        CHECK(some_##N(vec, 0, iv, NV, idx, status, cmp, value, values) == 0,                    \
              "%s test_some%s before the updates", #N, v);                                       \
        handshake();                                                                             \
        for (int k = 0; k < NV && update_order[form][k] >= 0; k++) {                             \
            int i = update_order[form][k];                                                       \
            UPDATE(N, &iv[i], want[i], right);                                                   \
            test_sleep_us(DELAY_US / 4);                                                         \
        }                                                                                        \
        if (form == ALL) {                                                                       \
            if (vec)                                                                             \
                generic ? shmem_wait_until_all_vector(iv, NV, status, cmp, values)               \
                        : shmem_##N##_wait_until_all_vector(iv, NV, status, cmp, values);        \
            else                                                                                 \
                generic ? shmem_wait_until_all(iv, NV, status, cmp, value)                       \
                        : shmem_##N##_wait_until_all(iv, NV, status, cmp, value);                \
            for (int i = 0; i < NV; i++)                                                         \
                CHECK(iv[i] == (status[i] ? base : want[i]),                                     \
                      "%s wait_until_all%s: element %d has the wrong value", #N, v, i);          \
            CHECK(all_##N(vec, generic, iv, status, cmp, value, values) == 1,                    \
                  "%s test_all%s after the updates", #N, v);                                     \
            CHECK(all_##N(vec, generic, iv, NULL, cmp, value, values) == 0,                      \
                  "%s test_all%s with status NULL must include the excluded elements", #N, v);   \
        } else if (form == ANY) {                                                                \
            size_t r = generic ? (vec ? shmem_wait_until_any_vector(iv, NV, status, cmp, values) \
                                      : shmem_wait_until_any(iv, NV, status, cmp, value))        \
                               : any_##N(vec, 1, iv, NV, status, cmp, value, values);            \
            CHECK(r == 6, "%s wait_until_any%s returned %zu, want 6 (5 is excluded)", #N, v, r); \
            r = any_##N(vec, 0, iv, NV, status, cmp, value, values);                             \
            CHECK(r == 6, "%s test_any%s returned %zu, want 6", #N, v, r);                       \
            r = any_##N(vec, 0, iv, NV, NULL, cmp, value, values);                               \
            CHECK(r == 5 || r == 6, "%s test_any%s, status NULL, returned %zu", #N, v, r);       \
        } else {                                                                                 \
            unsigned seen = 0;                                                                   \
            char what[64];                                                                       \
            snprintf(what, sizeof what, "%s wait_until_some%s", #N, v);                          \
            double t0 = test_now();                                                              \
            while (seen != 0xAu && test_now() - t0 < 20) {                                       \
                size_t n =                                                                       \
                    generic                                                                      \
                        ? (vec ? shmem_wait_until_some_vector(iv, NV, idx, status, cmp, values)  \
                               : shmem_wait_until_some(iv, NV, idx, status, cmp, value))         \
                        : some_##N(vec, 1, iv, NV, idx, status, cmp, value, values);             \
                CHECK(n >= 1 && n <= 2, "%s returned %zu indices", what, n);                     \
                note_indices(idx, n <= NV ? n : NV, 0xAu, &seen, what);                          \
            }                                                                                    \
            CHECK(seen == 0xAu, "%s never reported all of 1 and 3 (seen %#x)", what, seen);      \
            size_t n = some_##N(vec, 0, iv, NV, idx, status, cmp, value, values);                \
            CHECK(n == 2, "%s test_some%s after both updates returned %zu", #N, v, n);           \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
    }                                                                                            \
    /* Empty sets and fairness need no partner. */                                               \
    static void local_##N(void)                                                                  \
    {                                                                                            \
        T base = TEST_WIDE(T, 4), *iv = (T *)vars, values[NV];                                   \
        size_t idx[NV];                                                                          \
        for (int vec = 0; vec < 2; vec++) {                                                      \
            const char *v = vec ? "_vector" : "";                                                \
            for (int i = 0; i < NV; i++) {                                                       \
                UPDATE(N, &iv[i], base, me);                                                     \
                values[i] = base;                                                                \
            }                                                                                    \
            shmem_quiet();                                                                       \
            /* nelems 0 (NULL arrays) and every element excluded: the empty set. */              \
            for (int e = 0; e < 2; e++) {                                                        \
                size_t n = e ? NV : 0;                                                           \
                T *ivp = e ? iv : NULL;                                                          \
                const int *st = e ? all_excluded : NULL;                                         \
                if (vec)                                                                         \
                    shmem_##N##_wait_until_all_vector(ivp, n, st, SHMEM_CMP_NE, values);         \
                else                                                                             \
                    shmem_##N##_wait_until_all(ivp, n, st, SHMEM_CMP_NE, base);                  \
                int a = vec ? shmem_##N##_test_all_vector(ivp, n, st, SHMEM_CMP_NE, values)      \
                            : shmem_##N##_test_all(ivp, n, st, SHMEM_CMP_NE, base);              \
                CHECK(a == 1, "%s test_all%s on an empty set returned %d", #N, v, a);            \
                size_t r = any_##N(vec, 1, ivp, n, st, SHMEM_CMP_NE, base, values);              \
                CHECK(r == SIZE_MAX, "%s wait_until_any%s on an empty set returned %zu", #N, v,  \
                      r);                                                                        \
                r = any_##N(vec, 0, ivp, n, st, SHMEM_CMP_NE, base, values);                     \
                CHECK(r == SIZE_MAX, "%s test_any%s on an empty set returned %zu", #N, v, r);    \
                r = some_##N(vec, 1, ivp, n, e ? idx : NULL, st, SHMEM_CMP_NE, base, values);    \
                CHECK(r == 0, "%s wait_until_some%s on an empty set returned %zu", #N, v, r);    \
                r = some_##N(vec, 0, ivp, n, e ? idx : NULL, st, SHMEM_CMP_NE, base, values);    \
                CHECK(r == 0, "%s test_some%s on an empty set returned %zu", #N, v, r);          \
            }                                                                                    \
            /* Fairness: everything included is satisfied; a series of calls to one routine must \
             * report every included index. */                                                   \
            const unsigned want = 0xDBu;                                                         \
            for (int routine = 0; routine < 4; routine++) {                                      \
                unsigned seen = 0;                                                               \
                char what[64];                                                                   \
                snprintf(what, sizeof what, "%s %s%s fairness", #N, fair_names[routine], v);     \
                for (int k = 0; k < 50 * NV; k++) {                                              \
                    size_t n = 1, r = 0;                                                         \
                    if (routine < 2)                                                             \
                        r = any_##N(vec, routine, iv, NV, status, SHMEM_CMP_EQ, base, values);   \
                    else                                                                         \
                        n = some_##N(vec, routine - 2, iv, NV, idx, status, SHMEM_CMP_EQ, base,  \
                                     values);                                                    \
                    CHECK(n >= 1 && n <= 6, "%s: returned %zu indices", what, n);                \
                    note_indices(routine < 2 ? &r : idx, n <= NV ? n : NV, want, &seen, what);   \
                }                                                                                \
                CHECK(seen == want, "%s: reported only %#x of %#x", what, seen, want);           \
            }                                                                                    \
        }                                                                                        \
        shmem_barrier_all();                                                                     \
    }
#define DEFINE_MULTI_AMO(T, N) DEFINE_MULTI(T, N, UPDATE_AMO)
DEFINE_MULTI(short, short, UPDATE_PUT)
DEFINE_MULTI(unsigned short, ushort, UPDATE_PUT)
TEST_T_AMO_STD(DEFINE_MULTI_AMO)

/* ---- Deprecated waits ------------------------------------------------------------------------ */
static void deprecated_waits(void)
{
    long *lv = (long *)vars;                    /* [0] shmem_wait, [1] shmem_long_wait, [2] C fn */
    int *iv = (int *)(vars + 64);               /* shmem_int_wait */
    short *sv = (short *)(vars + 128);          /* shmem_short_wait */
    long long *llv = (long long *)(vars + 192); /* shmem_longlong_wait */
    lv[0] = lv[1] = lv[2] = 7;
    *iv = 7;
    *sv = 7;
    *llv = 7;
    shmem_barrier_all();
    handshake();
    test_sleep_us(DELAY_US);
    shmem_long_atomic_set(&lv[0], 8, right);
    shmem_long_atomic_set(&lv[1], 9, right);
    shmem_long_atomic_set(&lv[2], 10, right);
    shmem_int_atomic_set(iv, 11, right);
    shmem_short_p(sv, 12, right);
    shmem_longlong_atomic_set(llv, 13, right);
    shmem_quiet();
    shmem_wait(&lv[0], 7);
    CHECK(lv[0] == 8, "shmem_wait returned with %ld", lv[0]);
    shmem_long_wait(&lv[1], 7);
    CHECK(lv[1] == 9, "shmem_long_wait returned with %ld", lv[1]);
    (shmem_wait_until)(&lv[2], SHMEM_CMP_EQ, 10); /* the C function, not the generic */
    CHECK(lv[2] == 10, "shmem_wait_until (C function) returned with %ld", lv[2]);
    shmem_int_wait(iv, 7);
    CHECK(*iv == 11, "shmem_int_wait returned with %d", *iv);
    shmem_short_wait(sv, 7);
    CHECK(*sv == 12, "shmem_short_wait returned with %d", *sv);
    shmem_longlong_wait(llv, 7);
    CHECK(*llv == 13, "shmem_longlong_wait returned with %lld", *llv);
    shmem_barrier_all();
}

/* ---- Ping-pong ------------------------------------------------------------------------------- */
static void ping_pong(void)
{
    long *ping = (long *)vars, *pong = ping + 1;
    *ping = 0;
    *pong = 0;
    shmem_barrier_all();
    int partner = me ^ 1;
    long wrong = 0;
    if (partner < npes) {
        for (long i = 1; i <= PINGPONG; i++) {
            if (me % 2 == 0) {
                if (i % 2)
                    shmem_long_atomic_set(ping, i, partner);
                else
                    shmem_ctx_long_atomic_set(SHMEM_CTX_DEFAULT, ping, i, partner);
                shmem_long_wait_until(pong, SHMEM_CMP_EQ, i);
                wrong += *pong != i;
            } else {
                shmem_long_wait_until(ping, SHMEM_CMP_GE, i);
                wrong += *ping != i;
                shmem_long_atomic_set(pong, i, partner);
            }
        }
    }
    CHECK(wrong == 0, "ping-pong with PE %d: %ld wake-ups saw the wrong value", partner, wrong);
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    go = shmem_calloc(1, sizeof *go);
    vars = shmem_align(64, 512);
    CHECK(go && vars, "allocation failed");
    if (!go || !vars)
        return check_finish();

    for (int c = 0; c < 6; c++) {
        wait_short(c);
        wait_ushort(c);
#define RUN_WAIT(T, N) wait_##N(c);
        TEST_T_AMO_STD(RUN_WAIT)
    }

    int generic = 0;
#define RUN_MULTI(T, N)                               \
    for (int form = ALL; form <= SOME; form++)        \
        for (int vec = 0; vec < 2; vec++)             \
            multi_##N((enum form)form, vec, generic); \
    local_##N();                                      \
    generic = !generic;
    TEST_T_P2P(RUN_MULTI)

    deprecated_waits();
    ping_pong();

    shmem_free(vars);
    shmem_free(go);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
