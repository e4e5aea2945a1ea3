/* Collectives (spec §9.10) on teams, and the deprecated active-set collectives (§4.2 of the
 * checklist), which run the same algorithms on the active set as a strided team. */
#include "shmem_internal.h"

/* ---- Argument checks ------------------------------------------------------------------------ */

/* A valid team the calling PE belongs to: 0, or -1 for SHMEM_TEAM_INVALID. */
static int check_team(const char *call, shmem_team_t team)
{
    PG_CHECKS(pg_check_init(call); pg_check_team(call, "team", team);
              if (team != SHMEM_TEAM_INVALID && team->my_pe < 0)
                  pg_fatal(call, "the calling PE is not a member of 'team'"));
    return team == SHMEM_TEAM_INVALID ? -1 : 0;
}

static void check_buffers(const char *call, const void *dest, size_t dest_len, const void *source,
                          size_t source_len)
{
    if (dest_len)
        pg_check_symmetric(call, "dest", dest, dest_len);
    if (source_len)
        pg_check_symmetric(call, "source", source, source_len);
}

/* Reductions and scans: dest and source identical (in place) or disjoint. */
static void check_in_place_or_disjoint(const char *call, const void *dest, const void *source,
                                       size_t len)
{
    const char *d = dest, *s = source;
    if (d != s && d < s + len && s < d + len)
        pg_fatal(call, "'dest' and 'source' overlap without being the same buffer");
}

/* ---- Data collectives ----------------------------------------------------------------------- */

static int broadcast(const char *call, shmem_team_t team, void *dest, const void *source,
                     size_t len, int root)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(if (root < 0 || root >= team->size) pg_fatal(
                  call, "argument 'PE_root' = %d is out of range [0, %d)", root, team->size);
              check_buffers(call, dest, len, source, len));
    pg_coll_broadcast(team, dest, source, len, root, 1);
    return 0;
}

static int collect(const char *call, shmem_team_t team, void *dest, const void *source, size_t len)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(check_buffers(call, dest, len, source, len));
    pg_coll_collect(team, dest, source, len);
    return 0;
}

static int fcollect(const char *call, shmem_team_t team, void *dest, const void *source, size_t len)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(check_buffers(call, dest, len * (size_t)team->size, source, len));
    pg_coll_fcollect(team, dest, source, len);
    return 0;
}

static int alltoall(const char *call, shmem_team_t team, void *dest, const void *source, size_t len)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(size_t all = len * (size_t)team->size; check_buffers(call, dest, all, source, all));
    pg_coll_alltoall(team, dest, source, len);
    return 0;
}

static int alltoalls(const char *call, shmem_team_t team, void *dest, const void *source,
                     ptrdiff_t dst, ptrdiff_t sst, size_t elem, size_t nelems)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(if (dst < 1 || sst < 1) pg_fatal(
                  call, "arguments 'dst' = %td and 'sst' = %td must be at least 1", dst, sst);
              size_t blocks = nelems * (size_t)team->size;
              if (blocks) check_buffers(call, dest, ((blocks - 1) * (size_t)dst + 1) * elem, source,
                                        ((blocks - 1) * (size_t)sst + 1) * elem));
    PG_PROF_COLL(ALLTOALLS);
    pg_coll_alltoalls(team, dest, source, dst, sst, elem, nelems);
    return 0;
}

#define PG_DEF_DATA_COLL(TYPE, TYPENAME)                                                          \
    int pshmem_##TYPENAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                      size_t nelems, int PE_root)                                 \
    {                                                                                             \
        return broadcast("shmem_" #TYPENAME "_broadcast", team, dest, source,                     \
                         nelems * sizeof(TYPE), PE_root);                                         \
    }                                                                                             \
    PG_ALIAS(shmem_##TYPENAME##_broadcast)                                                        \
    int pshmem_##TYPENAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,            \
                                    size_t nelems)                                                \
    {                                                                                             \
        return collect("shmem_" #TYPENAME "_collect", team, dest, source, nelems * sizeof(TYPE)); \
    }                                                                                             \
    PG_ALIAS(shmem_##TYPENAME##_collect)                                                          \
    int pshmem_##TYPENAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                     size_t nelems)                                               \
    {                                                                                             \
        return fcollect("shmem_" #TYPENAME "_fcollect", team, dest, source,                       \
                        nelems * sizeof(TYPE));                                                   \
    }                                                                                             \
    PG_ALIAS(shmem_##TYPENAME##_fcollect)                                                         \
    int pshmem_##TYPENAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,           \
                                     size_t nelems)                                               \
    {                                                                                             \
        return alltoall("shmem_" #TYPENAME "_alltoall", team, dest, source,                       \
                        nelems * sizeof(TYPE));                                                   \
    }                                                                                             \
    PG_ALIAS(shmem_##TYPENAME##_alltoall)                                                         \
    int pshmem_##TYPENAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,          \
                                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems)                \
    {                                                                                             \
        return alltoalls("shmem_" #TYPENAME "_alltoalls", team, dest, source, dst, sst,           \
                         sizeof(TYPE), nelems);                                                   \
    }                                                                                             \
    PG_ALIAS(shmem_##TYPENAME##_alltoalls)
PANGEA_T_RMA(PG_DEF_DATA_COLL)

int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root)
{
    return broadcast("shmem_broadcastmem", team, dest, source, nelems, PE_root);
}
PG_ALIAS(shmem_broadcastmem)

int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return collect("shmem_collectmem", team, dest, source, nelems);
}
PG_ALIAS(shmem_collectmem)

int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return fcollect("shmem_fcollectmem", team, dest, source, nelems);
}
PG_ALIAS(shmem_fcollectmem)

int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return alltoall("shmem_alltoallmem", team, dest, source, nelems);
}
PG_ALIAS(shmem_alltoallmem)

int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems)
{
    return alltoalls("shmem_alltoallsmem", team, dest, source, dst, sst, 1, nelems);
}
PG_ALIAS(shmem_alltoallsmem)

int pshmem_team_sync(shmem_team_t team)
{
    PG_SHMEM_CALL("shmem_team_sync");
    if (check_team("shmem_team_sync", team) != 0)
        return -1;
    pg_team_sync(team);
    return 0;
}
PG_ALIAS(shmem_team_sync)

/* ---- Reductions and scans ------------------------------------------------------------------- */

/* The combining step of each (type, operator). */
#define PG_DEF_COMBINE_BIT(TYPE, TYPENAME) PANGEA_OPS_BIT(PG_DEF_COMBINE, TYPE, TYPENAME)
#define PG_DEF_COMBINE_MINMAX(TYPE, TYPENAME) PANGEA_OPS_MINMAX(PG_DEF_COMBINE, TYPE, TYPENAME)
#define PG_DEF_COMBINE_ARITH(TYPE, TYPENAME) PANGEA_OPS_ARITH(PG_DEF_COMBINE, TYPE, TYPENAME)
/* The team and the active-set tables share their MAX/MIN and SUM/PROD types (the active set's
 * are a subset); their bitwise types are disjoint. */
PANGEA_T_RED_BIT(PG_DEF_COMBINE_BIT)
PANGEA_T_ASET_BIT(PG_DEF_COMBINE_BIT)
PANGEA_T_RED_MINMAX(PG_DEF_COMBINE_MINMAX)
PANGEA_T_RED_ARITH(PG_DEF_COMBINE_ARITH)

static int reduce(const char *call, shmem_team_t team, void *dest, const void *source, size_t count,
                  size_t elem, pg_combine_fn combine)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(check_buffers(call, dest, count * elem, source, count * elem);
              check_in_place_or_disjoint(call, dest, source, count * elem));
    pg_coll_reduce(team, dest, source, count, elem, combine);
    return 0;
}

static int scan(const char *call, shmem_team_t team, void *dest, const void *source, size_t count,
                size_t elem, pg_combine_fn combine, int inclusive)
{
    PG_SHMEM_CALL(call);
    if (check_team(call, team) != 0)
        return -1;
    PG_CHECKS(check_buffers(call, dest, count * elem, source, count * elem);
              check_in_place_or_disjoint(call, dest, source, count * elem));
    pg_coll_scan(team, dest, source, count, elem, combine, inclusive);
    return 0;
}

#define PG_DEF_REDUCE(TYPE, TYPENAME, OP)                                                    \
    int pshmem_##TYPENAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                          size_t nreduce)                                    \
    {                                                                                        \
        return reduce("shmem_" #TYPENAME "_" #OP "_reduce", team, dest, source, nreduce,     \
                      sizeof(TYPE), combine_##TYPENAME##_##OP);                              \
    }                                                                                        \
    PG_ALIAS(shmem_##TYPENAME##_##OP##_reduce)
#define PG_DEF_REDUCE_BIT(TYPE, TYPENAME) PANGEA_OPS_BIT(PG_DEF_REDUCE, TYPE, TYPENAME)
#define PG_DEF_REDUCE_MINMAX(TYPE, TYPENAME) PANGEA_OPS_MINMAX(PG_DEF_REDUCE, TYPE, TYPENAME)
#define PG_DEF_REDUCE_ARITH(TYPE, TYPENAME)                                                     \
    PANGEA_OPS_ARITH(PG_DEF_REDUCE, TYPE, TYPENAME)                                             \
    int pshmem_##TYPENAME##_sum_inscan(shmem_team_t team, TYPE *dest, const TYPE *source,       \
                                       size_t nelems)                                           \
    {                                                                                           \
        return scan("shmem_" #TYPENAME "_sum_inscan", team, dest, source, nelems, sizeof(TYPE), \
                    combine_##TYPENAME##_sum, 1);                                               \
    }                                                                                           \
    PG_ALIAS(shmem_##TYPENAME##_sum_inscan)                                                     \
    int pshmem_##TYPENAME##_sum_exscan(shmem_team_t team, TYPE *dest, const TYPE *source,       \
                                       size_t nelems)                                           \
    {                                                                                           \
        return scan("shmem_" #TYPENAME "_sum_exscan", team, dest, source, nelems, sizeof(TYPE), \
                    combine_##TYPENAME##_sum, 0);                                               \
    }                                                                                           \
    PG_ALIAS(shmem_##TYPENAME##_sum_exscan)
PANGEA_T_RED_BIT(PG_DEF_REDUCE_BIT)
PANGEA_T_RED_MINMAX(PG_DEF_REDUCE_MINMAX)
PANGEA_T_RED_ARITH(PG_DEF_REDUCE_ARITH)

/* ---- Active sets (deprecated) --------------------------------------------------------------- */

/* The active set PE_start, PE_start + 2^logPE_stride, ... of PE_size PEs as a team. The last
 * one is kept: programs call the same set over and over. pSync is not needed (the active sets
 * share a channel indexed by world PE, whose signals are per pair of PEs), so it is left as the
 * program set it, as the spec requires on return; any reuse pattern the spec allows is therefore
 * safe. Like the kept set, that channel serves one thread at a time. */
static struct pangea_team *active_set(const char *call, int PE_start, int logPE_stride, int PE_size,
                                      const long *pSync)
{
    static struct pangea_team set;
    static int have_set;
    PG_CHECKS(
        pg_check_init(call);
        if (logPE_stride < 0 || logPE_stride > 30 || PE_size <= 0 || PE_start < 0 ||
            PE_start + (long long)(PE_size - 1) * (1LL << logPE_stride) >= pg_world.npes)
            pg_fatal(call,
                     "the active set PE_start %d, logPE_stride %d, PE_size %d does not fit in "
                     "%d PEs",
                     PE_start, logPE_stride, PE_size, pg_world.npes);
        if (!pSync) pg_fatal(call, "argument 'pSync' is NULL"));
    int stride = 1 << logPE_stride;
    if (!have_set || set.start != PE_start || set.stride != stride || set.size != PE_size) {
        pg_team_fini(&set);
        if (pg_team_init(&set, PE_start, stride, PE_size) != 0)
            pg_fatal(call, "out of memory for the active set");
        pg_team_use_channel(&set, PG_CHANNEL_ACTIVE_SET);
        have_set = 1;
    }
    PG_CHECKS(if (set.my_pe < 0)
                  pg_fatal(call, "the calling PE %d is not in the active set", pg_world.me));
    return &set;
}

void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    PG_SHMEM_CALL("shmem_barrier");
    PG_PROF_COLL(BARRIER);
    struct pangea_team *set = active_set("shmem_barrier", PE_start, logPE_stride, PE_size, pSync);
    pg_quiet(pg_ctx(SHMEM_CTX_DEFAULT));
    pg_team_sync(set);
}
PG_ALIAS(shmem_barrier)

/* The function named like the C11 generic shmem_sync(team): define it without the macro. */
void(pshmem_sync)(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    PG_SHMEM_CALL("shmem_sync");
    pg_team_sync(active_set("shmem_sync", PE_start, logPE_stride, PE_size, pSync));
}
PG_ALIAS(shmem_sync)

#define PG_DEF_ASET_DATA(BITS, BYTES)                                                             \
    void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,       \
                                int PE_start, int logPE_stride, int PE_size, long *pSync)         \
    {                                                                                             \
        const char *call = "shmem_broadcast" #BITS;                                               \
        PG_SHMEM_CALL(call);                                                                      \
        struct pangea_team *set = active_set(call, PE_start, logPE_stride, PE_size, pSync);       \
        PG_CHECKS(if (PE_root < 0 || PE_root >= PE_size) pg_fatal(                                \
                      call, "argument 'PE_root' = %d is out of range [0, %d)", PE_root, PE_size); \
                  check_buffers(call, dest, nelems * BYTES, source, nelems * BYTES));             \
        pg_coll_broadcast(set, dest, source, nelems *BYTES, PE_root, 0);                          \
    }                                                                                             \
    PG_ALIAS(shmem_broadcast##BITS)                                                               \
    void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,        \
                              int logPE_stride, int PE_size, long *pSync)                         \
    {                                                                                             \
        const char *call = "shmem_collect" #BITS;                                                 \
        PG_SHMEM_CALL(call);                                                                      \
        struct pangea_team *set = active_set(call, PE_start, logPE_stride, PE_size, pSync);       \
        PG_CHECKS(check_buffers(call, dest, nelems *BYTES, source, nelems *BYTES));               \
        pg_coll_collect(set, dest, source, nelems *BYTES);                                        \
    }                                                                                             \
    PG_ALIAS(shmem_collect##BITS)                                                                 \
    void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,       \
                               int logPE_stride, int PE_size, long *pSync)                        \
    {                                                                                             \
        const char *call = "shmem_fcollect" #BITS;                                                \
        PG_SHMEM_CALL(call);                                                                      \
        struct pangea_team *set = active_set(call, PE_start, logPE_stride, PE_size, pSync);       \
        PG_CHECKS(                                                                                \
            check_buffers(call, dest, nelems *BYTES *(size_t)PE_size, source, nelems *BYTES));    \
        pg_coll_fcollect(set, dest, source, nelems *BYTES);                                       \
    }                                                                                             \
    PG_ALIAS(shmem_fcollect##BITS)                                                                \
    void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,       \
                               int logPE_stride, int PE_size, long *pSync)                        \
    {                                                                                             \
        const char *call = "shmem_alltoall" #BITS;                                                \
        PG_SHMEM_CALL(call);                                                                      \
        struct pangea_team *set = active_set(call, PE_start, logPE_stride, PE_size, pSync);       \
        PG_CHECKS(size_t all = nelems * BYTES * (size_t)PE_size;                                  \
                  check_buffers(call, dest, all, source, all));                                   \
        pg_coll_alltoall(set, dest, source, nelems *BYTES);                                       \
    }                                                                                             \
    PG_ALIAS(shmem_alltoall##BITS)                                                                \
    void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,     \
                                size_t nelems, int PE_start, int logPE_stride, int PE_size,       \
                                long *pSync)                                                      \
    {                                                                                             \
        PG_SHMEM_CALL("shmem_alltoalls" #BITS);                                                   \
        struct pangea_team *set =                                                                 \
            active_set("shmem_alltoalls" #BITS, PE_start, logPE_stride, PE_size, pSync);          \
        PG_PROF_COLL(ALLTOALLS);                                                                  \
        pg_coll_alltoalls(set, dest, source, dst, sst, BYTES, nelems);                            \
    }                                                                                             \
    PG_ALIAS(shmem_alltoalls##BITS)
PANGEA_ASET_SIZES(PG_DEF_ASET_DATA)

#define PG_DEF_TO_ALL(TYPE, TYPENAME, OP)                                                          \
    void pshmem_##TYPENAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,            \
                                           int PE_start, int logPE_stride, int PE_size,            \
                                           TYPE *pWrk, long *pSync)                                \
    {                                                                                              \
        const char *call = "shmem_" #TYPENAME "_" #OP "_to_all";                                   \
        PG_SHMEM_CALL(call);                                                                       \
        struct pangea_team *set = active_set(call, PE_start, logPE_stride, PE_size, pSync);        \
        (void)pWrk; /* partial results live in private memory */                                   \
        size_t count = nreduce > 0 ? (size_t)nreduce : 0;                                          \
        PG_CHECKS(if (nreduce < 0) pg_fatal(call, "argument 'nreduce' = %d is negative", nreduce); \
                  check_buffers(call, dest, count * sizeof(TYPE), source, count * sizeof(TYPE));   \
                  check_in_place_or_disjoint(call, dest, source, count * sizeof(TYPE)));           \
        pg_coll_reduce(set, dest, source, count, sizeof(TYPE), combine_##TYPENAME##_##OP);         \
    }                                                                                              \
    PG_ALIAS(shmem_##TYPENAME##_##OP##_to_all)
#define PG_DEF_TO_ALL_BIT(TYPE, TYPENAME) PANGEA_OPS_BIT(PG_DEF_TO_ALL, TYPE, TYPENAME)
#define PG_DEF_TO_ALL_MINMAX(TYPE, TYPENAME) PANGEA_OPS_MINMAX(PG_DEF_TO_ALL, TYPE, TYPENAME)
#define PG_DEF_TO_ALL_ARITH(TYPE, TYPENAME) PANGEA_OPS_ARITH(PG_DEF_TO_ALL, TYPE, TYPENAME)
PANGEA_T_ASET_BIT(PG_DEF_TO_ALL_BIT)
PANGEA_T_ASET_MINMAX(PG_DEF_TO_ALL_MINMAX)
PANGEA_T_ASET_ARITH(PG_DEF_TO_ALL_ARITH)
