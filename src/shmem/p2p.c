/* Point-to-point synchronization (spec §9.11): wait_until and test in all their forms, and
 * signal_wait_until. One algorithm per form; each type supplies its comparison. */
#include "shmem_internal.h"

/* Is ivars[i] satisfied against values[i] (vector forms) or *value? */
typedef int (*satisfied_fn)(const void *ivars, size_t i, int cmp, const void *values,
                            const void *value);

struct condition {
    const char *call;
    const char *ivars_arg; /* the argument's name in this call, for error messages */
    const void *ivars;
    size_t nelems;
    const int *status;
    int cmp;
    const void *values; /* NULL for the scalar forms */
    const void *value;
    satisfied_fn satisfied;
};

static void check_condition(const struct condition *c, size_t elem)
{
    pg_check_init(c->call);
    pg_check_cmp(c->call, c->cmp);
    if (c->nelems) {
        pg_check_symmetric(c->call, c->ivars_arg, c->ivars, c->nelems * elem);
        if (c->values == NULL && c->value == NULL)
            pg_fatal(c->call, "argument 'cmp_values' is NULL");
    }
}

static int eligible(const struct condition *c, size_t i)
{
    return !c->status || !c->status[i];
}

static int sat(const struct condition *c, size_t i)
{
    return c->satisfied(c->ivars, i, c->cmp, c->values, c->value);
}

static int test_all(const struct condition *c)
{
    for (size_t i = 0; i < c->nelems; i++)
        if (eligible(c, i) && !sat(c, i))
            return 0;
    return 1;
}

/* Rotating start, so that repeated *_any calls report every satisfied index in turn. */
static __thread size_t any_start;

static size_t test_any(const struct condition *c, int *none_eligible)
{
    *none_eligible = 1;
    for (size_t k = 0; k < c->nelems; k++) {
        size_t i = (any_start + k) % c->nelems;
        if (!eligible(c, i))
            continue;
        *none_eligible = 0;
        if (sat(c, i)) {
            any_start = i + 1;
            return i;
        }
    }
    return SIZE_MAX;
}

static size_t test_some(const struct condition *c, size_t *indices, int *none_eligible)
{
    size_t found = 0;
    *none_eligible = 1;
    for (size_t i = 0; i < c->nelems; i++) {
        if (!eligible(c, i))
            continue;
        *none_eligible = 0;
        if (sat(c, i))
            indices[found++] = i;
    }
    return found;
}

static void wait_all(const struct condition *c)
{
    PG_PROF_WAIT(WAIT_UNTIL);
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, c->ivars), c->call);
    while (!test_all(c))
        pg_wait_step(&w);
}

static size_t wait_any(const struct condition *c)
{
    PG_PROF_WAIT(WAIT_UNTIL);
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, c->ivars), c->call);
    int none;
    for (;;) {
        size_t i = test_any(c, &none);
        if (i != SIZE_MAX || none)
            return i;
        pg_wait_step(&w);
    }
}

static size_t wait_some(const struct condition *c, size_t *indices)
{
    PG_PROF_WAIT(WAIT_UNTIL);
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, c->ivars), c->call);
    int none;
    for (;;) {
        size_t n = test_some(c, indices, &none);
        if (n || none)
            return n;
        pg_wait_step(&w);
    }
}

#define PG_COND(NAME, T, IVARS, N, STATUS, CMP, VALUES, VALUE)                 \
    struct condition c = {"shmem_" NAME, #IVARS, IVARS,        N, STATUS, CMP, \
                          VALUES,        VALUE,  satisfied_##T};               \
    PG_CHECKS(check_condition(&c, sizeof *(IVARS)))

/* The comparison of one type, and its two single-variable calls (T-P2P). */
#define PG_P2P_SINGLE(T, N)                                                            \
    static int satisfied_##N(const void *ivars, size_t i, int cmp, const void *values, \
                             const void *value)                                        \
    {                                                                                  \
        T v = __atomic_load_n((const T *)ivars + i, __ATOMIC_ACQUIRE);                 \
        T ref = values ? ((const T *)values)[i] : *(const T *)value;                   \
        return PG_COMPARE(cmp, v, ref);                                                \
    }                                                                                  \
    void pshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                        \
    {                                                                                  \
        PG_COND(#N "_wait_until", N, ivar, 1, NULL, cmp, NULL, &cmp_value);            \
        wait_all(&c);                                                                  \
    }                                                                                  \
    int pshmem_##N##_test(T *ivar, int cmp, T cmp_value)                               \
    {                                                                                  \
        PG_COND(#N "_test", N, ivar, 1, NULL, cmp, NULL, &cmp_value);                  \
        return test_all(&c);                                                           \
    }                                                                                  \
    PG_ALIAS(shmem_##N##_wait_until)                                                   \
    PG_ALIAS(shmem_##N##_test)
PANGEA_T_P2P(PG_P2P_SINGLE)

/* The multi-element calls (T-P2P, like the single-variable ones). */
#define PG_P2P_MULTI(T, N)                                                                         \
    void pshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     T cmp_value)                                                  \
    {                                                                                              \
        PG_COND(#N "_wait_until_all", N, ivars, nelems, status, cmp, NULL, &cmp_value);            \
        wait_all(&c);                                                                              \
    }                                                                                              \
    size_t pshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,        \
                                       T cmp_value)                                                \
    {                                                                                              \
        PG_COND(#N "_wait_until_any", N, ivars, nelems, status, cmp, NULL, &cmp_value);            \
        return wait_any(&c);                                                                       \
    }                                                                                              \
    size_t pshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,                  \
                                        const int *status, int cmp, T cmp_value)                   \
    {                                                                                              \
        PG_COND(#N "_wait_until_some", N, ivars, nelems, status, cmp, NULL, &cmp_value);           \
        return wait_some(&c, indices);                                                             \
    }                                                                                              \
    void pshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                            const T *cmp_values)                                   \
    {                                                                                              \
        PG_COND(#N "_wait_until_all_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);     \
        wait_all(&c);                                                                              \
    }                                                                                              \
    size_t pshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                              const T *cmp_values)                                 \
    {                                                                                              \
        PG_COND(#N "_wait_until_any_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);     \
        return wait_any(&c);                                                                       \
    }                                                                                              \
    size_t pshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,           \
                                               const int *status, int cmp, const T *cmp_values)    \
    {                                                                                              \
        PG_COND(#N "_wait_until_some_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);    \
        return wait_some(&c, indices);                                                             \
    }                                                                                              \
    int pshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value)    \
    {                                                                                              \
        PG_COND(#N "_test_all", N, ivars, nelems, status, cmp, NULL, &cmp_value);                  \
        return test_all(&c);                                                                       \
    }                                                                                              \
    size_t pshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    {                                                                                              \
        PG_COND(#N "_test_any", N, ivars, nelems, status, cmp, NULL, &cmp_value);                  \
        int none;                                                                                  \
        return test_any(&c, &none);                                                                \
    }                                                                                              \
    size_t pshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,     \
                                  int cmp, T cmp_value)                                            \
    {                                                                                              \
        PG_COND(#N "_test_some", N, ivars, nelems, status, cmp, NULL, &cmp_value);                 \
        int none;                                                                                  \
        return test_some(&c, indices, &none);                                                      \
    }                                                                                              \
    int pshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,          \
                                     const T *cmp_values)                                          \
    {                                                                                              \
        PG_COND(#N "_test_all_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);           \
        return test_all(&c);                                                                       \
    }                                                                                              \
    size_t pshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                        const T *cmp_values)                                       \
    {                                                                                              \
        PG_COND(#N "_test_any_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);           \
        int none;                                                                                  \
        return test_any(&c, &none);                                                                \
    }                                                                                              \
    size_t pshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,                 \
                                         const int *status, int cmp, const T *cmp_values)          \
    {                                                                                              \
        PG_COND(#N "_test_some_vector", N, ivars, nelems, status, cmp, cmp_values, NULL);          \
        int none;                                                                                  \
        return test_some(&c, indices, &none);                                                      \
    }                                                                                              \
    PG_ALIAS(shmem_##N##_wait_until_all)                                                           \
    PG_ALIAS(shmem_##N##_wait_until_any)                                                           \
    PG_ALIAS(shmem_##N##_wait_until_some)                                                          \
    PG_ALIAS(shmem_##N##_wait_until_all_vector)                                                    \
    PG_ALIAS(shmem_##N##_wait_until_any_vector)                                                    \
    PG_ALIAS(shmem_##N##_wait_until_some_vector)                                                   \
    PG_ALIAS(shmem_##N##_test_all)                                                                 \
    PG_ALIAS(shmem_##N##_test_any)                                                                 \
    PG_ALIAS(shmem_##N##_test_some)                                                                \
    PG_ALIAS(shmem_##N##_test_all_vector)                                                          \
    PG_ALIAS(shmem_##N##_test_any_vector)                                                          \
    PG_ALIAS(shmem_##N##_test_some_vector)
PANGEA_T_P2P(PG_P2P_MULTI)

uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    PG_COND("signal_wait_until", uint64, sig_addr, 1, NULL, cmp, NULL, &cmp_value);
    (void)c;
    PG_PROF_WAIT(WAIT_UNTIL);
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, sig_addr), "shmem_signal_wait_until");
    for (;;) {
        uint64_t seen = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
        if (PG_COMPARE(cmp, seen, cmp_value))
            return seen; /* the value that satisfied the wait */
        pg_wait_step(&w);
    }
}
PG_ALIAS(shmem_signal_wait_until)

/* Deprecated waits (spec §4.4). */
void pshmem_wait_until(long *ivar, int cmp, long cmp_value)
{
    pshmem_long_wait_until(ivar, cmp, cmp_value);
}
PG_ALIAS(shmem_wait_until)

void pshmem_wait(long *ivar, long cmp_value)
{
    pshmem_long_wait_until(ivar, SHMEM_CMP_NE, cmp_value);
}
PG_ALIAS(shmem_wait)

#define PG_DEP_WAIT(T, N)                                       \
    void pshmem_##N##_wait(T *ivar, T cmp_value)                \
    {                                                           \
        pshmem_##N##_wait_until(ivar, SHMEM_CMP_NE, cmp_value); \
    }                                                           \
    PG_ALIAS(shmem_##N##_wait)
PANGEA_T_DEP_WAIT(PG_DEP_WAIT)
