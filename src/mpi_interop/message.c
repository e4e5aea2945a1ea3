/* armci_msg_*: ARMCI's message-passing helpers. Over ARMCI's world (the plain forms, the ones
 * Global Arrays calls in its inner loops: GA_Sync, GA_Dgop, GA_Brdcst) barriers, reductions and
 * broadcasts run on Pangea's collectives, which sleep while they wait; the other scopes (my node,
 * the node masters) and groups run on MPI collectives over their communicators. */
#include "mpi_interop.h"

#include "coll/coll.h"
#include "memory/memory.h"
#include "prof/prof.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The element types of armci_type_e: X(suffix of the typed calls, C type, ARMCI type, MPI
 * datatype). */
#define PG_MSG_INTEGER_TYPES(X)      \
    X(i, int, ARMCI_INT, MPI_INT)    \
    X(l, long, ARMCI_LONG, MPI_LONG) \
    X(ll, long long, ARMCI_LONG_LONG, MPI_LONG_LONG)
#define PG_MSG_FLOAT_TYPES(X)           \
    X(f, float, ARMCI_FLOAT, MPI_FLOAT) \
    X(d, double, ARMCI_DOUBLE, MPI_DOUBLE)
#define PG_MSG_TYPES(X)     \
    PG_MSG_INTEGER_TYPES(X) \
    PG_MSG_FLOAT_TYPES(X)

MPI_Datatype pg_msg_datatype(int type)
{
    switch (type) {
#define PG_MSG_DATATYPE(sfx, T, armci, mpi) \
    case armci:                             \
        return mpi;
        PG_MSG_TYPES(PG_MSG_DATATYPE)
#undef PG_MSG_DATATYPE
    }
    return MPI_DATATYPE_NULL;
}

static size_t type_size(int type)
{
    switch (type) {
#define PG_MSG_SIZE(sfx, T, armci, mpi) \
    case armci:                         \
        return sizeof(T);
        PG_MSG_TYPES(PG_MSG_SIZE)
#undef PG_MSG_SIZE
    }
    return 0;
}

/* The world's communicator: ARMCI's duplicate once ARMCI is up (so that its messages never
 * match the program's), the runtime's world before (Global Arrays asks for me and nproc
 * early: MPI_COMM_WORLD then). */
static MPI_Comm world_comm(void)
{
    return pg_armci_world_group.comm != MPI_COMM_NULL ? pg_armci_world_group.comm
                                                      : pg_startup_world();
}

/* ---- Scopes --------------------------------------------------------------------------------- */

/* The world's calls on Pangea's collectives: the team of every process, and symmetric scratch
 * the data passes through in pieces (the program's buffers are private). */
static struct pangea_team world_team;
static char *scratch;
#define SCRATCH_BYTES ((size_t)32 << 10)

/* comm is ARMCI's world, and ARMCI is up: the call may run on Pangea's collectives. */
static int on_world_team(MPI_Comm comm)
{
    return scratch && comm == pg_armci_world_group.comm;
}

/* The node and node-master communicators of the world group, made once by
 * pg_mpi_interop_init (collectively) since the plain armci_msg_* forms use them most. */
static MPI_Comm world_node_comm = MPI_COMM_NULL, world_masters_comm = MPI_COMM_NULL;

/* The group ranks in a scope, in rank order: the members on my node (NODE), or the first
 * member of every node (MASTERS). Computed locally: only the scope's processes call, so
 * forming its communicator must not need the others (MPI_Comm_create_group). */
static int scope_members(const char *call, int scope, const ARMCI_Group *group, int *ranks)
{
    char *seen = calloc((size_t)pg_world.nnodes, 1); /* by node: a member came before */
    if (!seen)
        pg_fatal(call, "out of memory");
    int n = 0;
    for (int r = 0; r < group->size; r++) {
        int node = pg_world.node_of[group->grp_to_abs[r]], first = !seen[node];
        seen[node] = 1;
        if (scope == SCOPE_NODE ? node == pg_world.node : first)
            ranks[n++] = r;
    }
    free(seen);
    return n;
}

/* The communicator of ranks[0..n) of parent, formed among those processes only. */
static MPI_Comm create_from_ranks(MPI_Comm parent, int n, const int *ranks, int tag)
{
    MPI_Group all, sub;
    MPI_Comm comm;
    MPI_Comm_group(parent, &all);
    MPI_Group_incl(all, n, ranks, &sub);
    MPI_Comm_create_group(parent, sub, tag, &comm);
    MPI_Group_free(&sub);
    MPI_Group_free(&all);
    return comm;
}

/* Each communicator is formed among its own members, the node's processes and the masters:
 * a split of the world would exchange every process's color with every process. */
void pg_msg_scopes_init(void)
{
    ARMCI_Group *world = &pg_armci_world_group;
    int *ranks = malloc((size_t)world->size * sizeof(int));
    if (!ranks)
        pg_fatal("ARMCI_Init", "out of memory for the scopes of %d processes", world->size);
    int n = scope_members("ARMCI_Init", SCOPE_NODE, world, ranks);
    world_node_comm = create_from_ranks(world->comm, n, ranks, SCOPE_NODE);
    world_masters_comm = MPI_COMM_NULL;
    if (pg_world.local_rank == 0) {
        n = scope_members("ARMCI_Init", SCOPE_MASTERS, world, ranks);
        world_masters_comm = create_from_ranks(world->comm, n, ranks, SCOPE_MASTERS);
    }
    free(ranks);
    if (pg_team_init(&world_team, 0, 1, pg_world.npes) != 0)
        pg_fatal("ARMCI_Init", "out of memory for the team of %d processes", pg_world.npes);
    scratch = pg_heap_alloc(0, SCRATCH_BYTES); /* collective: every process, in the same order */
    if (!scratch)
        pg_fatal("ARMCI_Init", "no room in the symmetric heap for %zu bytes of scratch",
                 SCRATCH_BYTES);
}

void pg_msg_scopes_fini(void)
{
    MPI_Comm_free(&world_node_comm);
    if (world_masters_comm != MPI_COMM_NULL)
        MPI_Comm_free(&world_masters_comm);
    pg_heap_free(scratch);
    scratch = NULL;
    pg_team_fini(&world_team);
}

/* The communicator of a scope within a group (the world group for the plain forms). For a
 * group other than the world, NODE and MASTERS are formed for the call: *owned is then set
 * and the caller frees it. */
static MPI_Comm scope_comm(const char *call, int scope, ARMCI_Group *group, int *owned)
{
    pg_group_check_member(call, group);
    *owned = 0;
    if (scope == SCOPE_ALL)
        return group->comm;
    if (scope != SCOPE_NODE && scope != SCOPE_MASTERS)
        pg_fatal(call, "argument 'scope' = %d is not SCOPE_ALL, SCOPE_NODE or SCOPE_MASTERS",
                 scope);
    int *ranks = malloc((size_t)group->size * sizeof(int));
    if (!ranks)
        pg_fatal(call, "out of memory");
    int n = scope_members(call, scope, group, ranks), member = 0;
    for (int i = 0; i < n; i++)
        member |= ranks[i] == group->rank;
    if (!member) {
        free(ranks);
        pg_fatal(call,
                 "SCOPE_MASTERS: process %d is not the master of its node, so it takes "
                 "no part",
                 pg_world.me);
    }
    MPI_Comm comm;
    if (group->comm == pg_armci_world_group.comm) {
        comm = scope == SCOPE_NODE ? world_node_comm : world_masters_comm;
    } else {
        comm = create_from_ranks(group->comm, n, ranks, scope);
        *owned = 1;
    }
    free(ranks);
    return comm;
}

static void release_comm(MPI_Comm *comm, int owned)
{
    if (owned)
        MPI_Comm_free(comm);
}

/* Rank in comm of rank `root` of `from`; fatal when it is not in comm. */
static int translate_root(const char *call, MPI_Comm from, int root, MPI_Comm comm)
{
    int size;
    MPI_Comm_size(from, &size);
    if (root < 0 || root >= size)
        pg_fatal(call, "argument 'root' = %d is outside 0..%d", root, size - 1);
    if (from == comm)
        return root;
    MPI_Group a, b;
    int r;
    MPI_Comm_group(from, &a);
    MPI_Comm_group(comm, &b);
    MPI_Group_translate_ranks(a, 1, &root, b, &r);
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    if (r == MPI_UNDEFINED)
        pg_fatal(call, "argument 'root' = %d is not in the scope of process %d", root, pg_world.me);
    return r;
}

/* ---- Reductions ----------------------------------------------------------------------------- */

/* The operators Global Arrays passes (GA_Igop/Dgop hand the program's string on unchanged):
 * the ones of GA's own ARMCI and ComEx message layers. "or" and "and" reduce truth values;
 * "&&"/"land" and "||"/"lor" are the same logical operators under C's names; "&"/"band" and
 * "|"/"bor" are bitwise, so they take the integer types only. */
enum msg_op {
    OP_SUM,
    OP_PROD,
    OP_MAX,
    OP_MIN,
    OP_ABSMAX,
    OP_ABSMIN,
    OP_OR,
    OP_AND,
    OP_BOR,
    OP_BAND
};

static const struct {
    const char *name;
    enum msg_op op;
} op_names[] = {{"+", OP_SUM},         {"*", OP_PROD},        {"max", OP_MAX}, {"min", OP_MIN},
                {"absmax", OP_ABSMAX}, {"absmin", OP_ABSMIN}, {"or", OP_OR},   {"and", OP_AND},
                {"||", OP_OR},         {"lor", OP_OR},        {"&&", OP_AND},  {"land", OP_AND},
                {"|", OP_BOR},         {"bor", OP_BOR},       {"&", OP_BAND},  {"band", OP_BAND}};

static enum msg_op parse_op(const char *call, const char *op)
{
    char known[160] = "";
    for (size_t i = 0; i < sizeof op_names / sizeof op_names[0]; i++) {
        if (op && strcmp(op, op_names[i].name) == 0)
            return op_names[i].op;
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s\"%s\"", i ? ", " : "",
                 op_names[i].name);
    }
    pg_fatal(call, "argument 'op' = \"%s\" is not one of %s", op ? op : "(null)", known);
}

/* absmax/absmin reduce absolute values; or/and reduce truth values (0/1) by max/min. */
static MPI_Op prepare(const char *call, enum msg_op op, void *x, int n, int type)
{
    if ((op == OP_BOR || op == OP_BAND) && (type == ARMCI_FLOAT || type == ARMCI_DOUBLE))
        pg_fatal(call, "the bitwise operator \"%s\" takes integer types, not %s",
                 op == OP_BOR ? "|" : "&", type == ARMCI_FLOAT ? "float" : "double");
    switch (type) {
#define PG_MSG_PREPARE(sfx, T, armci, mpi)          \
    case armci: {                                   \
        T *v = x;                                   \
        for (int i = 0; i < n; i++) {               \
            if (op == OP_ABSMAX || op == OP_ABSMIN) \
                v[i] = v[i] < 0 ? -v[i] : v[i];     \
            else if (op == OP_OR || op == OP_AND)   \
                v[i] = v[i] != 0;                   \
        }                                           \
        break;                                      \
    }
        PG_MSG_TYPES(PG_MSG_PREPARE)
#undef PG_MSG_PREPARE
    }
    switch (op) {
    case OP_SUM:
        return MPI_SUM;
    case OP_PROD:
        return MPI_PROD;
    case OP_BOR:
        return MPI_BOR;
    case OP_BAND:
        return MPI_BAND;
    case OP_MAX:
    case OP_ABSMAX:
    case OP_OR:
        return MPI_MAX;
    default:
        return MPI_MIN;
    }
}

/* The combining steps of the operators as prepare() maps them. */
#define PG_MSG_COMBINE_ALL(sfx, T, armci, mpi) \
    PG_DEF_COMBINE(T, sfx, sum)                \
    PG_DEF_COMBINE(T, sfx, prod) PG_DEF_COMBINE(T, sfx, max) PG_DEF_COMBINE(T, sfx, min)
#define PG_MSG_COMBINE_BITS(sfx, T, armci, mpi) \
    PG_DEF_COMBINE(T, sfx, or) PG_DEF_COMBINE(T, sfx, and)
PG_MSG_TYPES(PG_MSG_COMBINE_ALL)
PG_MSG_INTEGER_TYPES(PG_MSG_COMBINE_BITS)
#undef PG_MSG_COMBINE_ALL
#undef PG_MSG_COMBINE_BITS

static pg_combine_fn combine_of(MPI_Op op, int type)
{
#define PG_MSG_ARITH_OF(sfx)                 \
    (op == MPI_SUM    ? combine_##sfx##_sum  \
     : op == MPI_PROD ? combine_##sfx##_prod \
     : op == MPI_MAX  ? combine_##sfx##_max  \
                      : combine_##sfx##_min)
#define PG_MSG_INTEGER_OF(sfx, T, armci, mpi)         \
    case armci:                                       \
        return op == MPI_BOR    ? combine_##sfx##_or  \
               : op == MPI_BAND ? combine_##sfx##_and \
                                : PG_MSG_ARITH_OF(sfx);
#define PG_MSG_FLOAT_OF(sfx, T, armci, mpi) \
    case armci:                             \
        return PG_MSG_ARITH_OF(sfx);
    switch (type) {
        PG_MSG_INTEGER_TYPES(PG_MSG_INTEGER_OF)
        PG_MSG_FLOAT_TYPES(PG_MSG_FLOAT_OF)
    }
#undef PG_MSG_ARITH_OF
#undef PG_MSG_INTEGER_OF
#undef PG_MSG_FLOAT_OF
    return NULL; /* the type was checked */
}

/* The reduction over the world team, in pieces through the scratch; x ends with the result
 * (only on the root when root >= 0). */
static void reduce_on_world_team(void *x, int n, int type, MPI_Op op, int root)
{
    PG_PROF_COLL(ARMCI_MSG);
    size_t elem = type_size(type), per_piece = SCRATCH_BYTES / elem;
    pg_combine_fn combine = combine_of(op, type);
    for (size_t done = 0; done < (size_t)n; done += per_piece) {
        size_t count = (size_t)n - done < per_piece ? (size_t)n - done : per_piece;
        char *piece = (char *)x + done * elem;
        memcpy(scratch, piece, count * elem);
        pg_coll_reduce(&world_team, scratch, scratch, count, elem, combine);
        if (root < 0 || root == pg_world.me)
            memcpy(piece, scratch, count * elem);
    }
}

/* All-reduce (root < 0) or reduce to rank root of comm. */
static void reduce(const char *call, MPI_Comm comm, void *x, int n, const char *op, int type,
                   int root)
{
    MPI_Datatype dt = pg_msg_datatype(type);
    if (dt == MPI_DATATYPE_NULL)
        pg_fatal(call,
                 "argument 'type' = %d is not ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, "
                 "ARMCI_FLOAT or ARMCI_DOUBLE",
                 type);
    if (n < 0)
        pg_fatal(call, "argument 'n' = %d is negative", n);
    MPI_Op mpi_op = prepare(call, parse_op(call, op), x, n, type);
    if (on_world_team(comm)) {
        reduce_on_world_team(x, n, type, mpi_op, root);
        return;
    }
    if (root < 0) {
        MPI_Allreduce(MPI_IN_PLACE, x, n, dt, mpi_op, comm);
        return;
    }
    int me;
    MPI_Comm_rank(comm, &me);
    MPI_Reduce(me == root ? MPI_IN_PLACE : x, x, n, dt, mpi_op, root, comm);
}

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group)
{
    int owned;
    MPI_Comm comm = scope_comm("armci_msg_group_gop_scope", scope, group, &owned);
    reduce("armci_msg_group_gop_scope", comm, x, n, op, type, -1);
    release_comm(&comm, owned);
}

void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type)
{
    int owned;
    MPI_Comm comm = scope_comm("armci_msg_gop_scope", scope, &pg_armci_world_group, &owned);
    reduce("armci_msg_gop_scope", comm, x, n, op, type, -1);
    release_comm(&comm, owned);
}

void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type)
{
    int owned;
    MPI_Comm comm = scope_comm("armci_msg_reduce_scope", scope, &pg_armci_world_group, &owned);
    reduce("armci_msg_reduce_scope", comm, x, n, op, type, 0);
    release_comm(&comm, owned);
}

void armci_msg_reduce(void *x, int n, char *op, int type)
{
    reduce("armci_msg_reduce", world_comm(), x, n, op, type, 0);
}

/* The typed forms. */
#define PG_MSG_DEFINE_GOPS(sfx, T, type, mpi)                                  \
    void armci_msg_##sfx##gop(T *x, int n, char *op)                           \
    {                                                                          \
        reduce("armci_msg_" #sfx "gop", world_comm(), x, n, op, type, -1);     \
    }                                                                          \
    void armci_msg_group_##sfx##gop(T *x, int n, char *op, ARMCI_Group *group) \
    {                                                                          \
        armci_msg_group_gop_scope(SCOPE_ALL, x, n, op, type, group);           \
    }                                                                          \
    void armci_msg_clus_##sfx##gop(T *x, int n, char *op)                      \
    {                                                                          \
        armci_msg_gop_scope(SCOPE_NODE, x, n, op, type);                       \
    }
PG_MSG_TYPES(PG_MSG_DEFINE_GOPS)
#undef PG_MSG_DEFINE_GOPS

/* ---- Selection ------------------------------------------------------------------------------ */

/* Is key a better than key b for op ("max" or "min")? */
static int better(int type, int want_max, const void *a, const void *b)
{
    switch (type) {
#define PG_MSG_BETTER(sfx, T, armci, mpi) \
    case armci: {                         \
        T x, y;                           \
        memcpy(&x, a, sizeof x);          \
        memcpy(&y, b, sizeof y);          \
        return want_max ? x > y : x < y;  \
    }
        PG_MSG_TYPES(PG_MSG_BETTER)
#undef PG_MSG_BETTER
    }
    return 0;
}

static void select_in(const char *call, MPI_Comm comm, void *x, int n, const char *op, int type,
                      int contribute)
{
    size_t key = type_size(type);
    if (!key)
        pg_fatal(call, "argument 'type' = %d is not an armci_type_e value", type);
    if (n < (int)key)
        pg_fatal(call, "argument 'n' = %d is smaller than the %zu-byte key", n, key);
    int want_max = parse_op(call, op) == OP_MAX;
    if (!want_max && parse_op(call, op) != OP_MIN)
        pg_fatal(call, "argument 'op' = \"%s\": selection takes \"max\" or \"min\"", op);
    struct {
        unsigned char key[8];
        int contribute;
    } mine = {.contribute = contribute != 0}, *all;
    memcpy(mine.key, x, key);
    int size;
    MPI_Comm_size(comm, &size);
    all = malloc((size_t)size * sizeof *all);
    if (!all)
        pg_fatal(call, "out of memory");
    MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all, sizeof mine, MPI_BYTE, comm);
    int winner = -1;
    for (int r = 0; r < size; r++)
        if (all[r].contribute &&
            (winner < 0 || better(type, want_max, all[r].key, all[winner].key)))
            winner = r;
    free(all);
    if (winner >= 0)
        MPI_Bcast(x, n, MPI_BYTE, winner, comm);
}

void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute)
{
    int owned;
    MPI_Comm comm = scope_comm("armci_msg_sel_scope", scope, &pg_armci_world_group, &owned);
    select_in("armci_msg_sel_scope", comm, x, n, op, type, contribute);
    release_comm(&comm, owned);
}

void armci_msg_sel(void *x, int n, char *op, int type, int contribute)
{
    select_in("armci_msg_sel", world_comm(), x, n, op, type, contribute);
}

/* ---- Broadcasts ----------------------------------------------------------------------------- */

static void check_length(const char *call, const char *arg, int len)
{
    if (len < 0)
        pg_fatal(call, "argument '%s' = %d is negative", arg, len);
}

static void bcast_in(const char *call, MPI_Comm comm, void *buf, int len, int root)
{
    check_length(call, "len", len);
    if (!on_world_team(comm)) {
        MPI_Bcast(buf, len, MPI_BYTE, root, comm);
        return;
    }
    for (size_t done = 0; done < (size_t)len; done += SCRATCH_BYTES) {
        size_t bytes = (size_t)len - done < SCRATCH_BYTES ? (size_t)len - done : SCRATCH_BYTES;
        /* A broadcast may deliver before its receivers arrive (its data needs nothing from
         * them), so the root waits until every process has copied the last piece out. */
        pg_team_sync(&world_team);
        if (pg_world.me == root)
            memcpy(scratch, (char *)buf + done, bytes);
        pg_coll_broadcast(&world_team, scratch, scratch, bytes, root, 0);
        if (pg_world.me != root)
            memcpy((char *)buf + done, scratch, bytes);
    }
}

void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group)
{
    const char *call = "armci_msg_group_bcast_scope";
    int owned;
    MPI_Comm comm = scope_comm(call, scope, group, &owned);
    bcast_in(call, comm, buf, len, translate_root(call, group->comm, root, comm));
    release_comm(&comm, owned);
}

void armci_msg_bcast_scope(int scope, void *buffer, int len, int root)
{
    const char *call = "armci_msg_bcast_scope";
    int owned;
    MPI_Comm comm = scope_comm(call, scope, &pg_armci_world_group, &owned);
    bcast_in(call, comm, buffer, len, translate_root(call, pg_armci_world_group.comm, root, comm));
    release_comm(&comm, owned);
}

void armci_msg_bcast(void *buffer, int len, int root)
{
    bcast_in("armci_msg_bcast", world_comm(), buffer, len,
             translate_root("armci_msg_bcast", world_comm(), root, world_comm()));
}

void armci_msg_brdcst(void *buffer, int len, int root)
{
    bcast_in("armci_msg_brdcst", world_comm(), buffer, len,
             translate_root("armci_msg_brdcst", world_comm(), root, world_comm()));
}

/* From the master (lowest process) of my node to the others of my node. */
void armci_msg_clus_brdcst(void *buf, int len)
{
    int owned;
    MPI_Comm node = scope_comm("armci_msg_clus_brdcst", SCOPE_NODE, &pg_armci_world_group, &owned);
    bcast_in("armci_msg_clus_brdcst", node, buf, len, 0);
    release_comm(&node, owned);
}

void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup)
{
    const char *call = "armci_grp_clus_brdcst";
    int owned, size;
    MPI_Comm node = scope_comm(call, SCOPE_NODE, mastergroup, &owned);
    MPI_Comm_size(node, &size);
    if (grp_clus_nproc != size)
        pg_fatal(call,
                 "argument 'grp_clus_nproc' = %d, but the group has %d processes on the "
                 "node of process %d",
                 grp_clus_nproc, size, pg_world.me);
    bcast_in(call, node, buf, len, translate_root(call, mastergroup->comm, grp_master, node));
    release_comm(&node, owned);
}

/* ---- Addresses, barriers, point to point, tree ---------------------------------------------- */

static void exchange_in(const char *call, MPI_Comm comm, void *ptr_ar[], int n)
{
    int size;
    MPI_Comm_size(comm, &size);
    if (n != size)
        pg_fatal(call, "argument 'n' = %d, but there are %d processes", n, size);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ptr_ar, sizeof(void *), MPI_BYTE, comm);
}

void armci_exchange_address(void *ptr_ar[], int n)
{
    exchange_in("armci_exchange_address", world_comm(), ptr_ar, n);
}

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group)
{
    pg_group_check_member("armci_exchange_address_grp", group);
    exchange_in("armci_exchange_address_grp", group->comm, ptr_arr, n);
}

void parmci_msg_barrier(void)
{
    if (on_world_team(world_comm()))
        pg_team_sync(&world_team);
    else
        MPI_Barrier(world_comm());
}
void armci_msg_barrier(void) __attribute__((weak, alias("parmci_msg_barrier")));

void parmci_msg_group_barrier(ARMCI_Group *group)
{
    pg_group_check_member("armci_msg_group_barrier", group);
    if (on_world_team(group->comm))
        pg_team_sync(&world_team);
    else
        MPI_Barrier(group->comm);
}
void armci_msg_group_barrier(ARMCI_Group *group)
    __attribute__((weak, alias("parmci_msg_group_barrier")));

static void check_peer(const char *call, const char *arg, int proc)
{
    int size;
    MPI_Comm_size(world_comm(), &size);
    if (proc < 0 || proc >= size)
        pg_fatal(call, "argument '%s' = %d is not a process (0..%d)", arg, proc, size - 1);
}

void armci_msg_snd(int tag, void *buffer, int len, int to)
{
    check_peer("armci_msg_snd", "to", to);
    check_length("armci_msg_snd", "len", len);
    MPI_Send(buffer, len, MPI_BYTE, to, tag, world_comm());
}

static int receive(int tag, void *buffer, int buflen, int *msglen, int from)
{
    MPI_Status status;
    MPI_Recv(buffer, buflen, MPI_BYTE, from, tag, world_comm(), &status);
    if (msglen)
        MPI_Get_count(&status, MPI_BYTE, msglen);
    return status.MPI_SOURCE;
}

void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from)
{
    check_peer("armci_msg_rcv", "from", from);
    check_length("armci_msg_rcv", "buflen", buflen);
    receive(tag, buffer, buflen, msglen, from);
}

int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen)
{
    check_length("armci_msg_rcvany", "buflen", buflen);
    return receive(tag, buffer, buflen, msglen, MPI_ANY_SOURCE);
}

void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right)
{
    int owned, me, size;
    MPI_Comm comm = scope_comm("armci_msg_bintree", scope, &pg_armci_world_group, &owned);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    /* The tree is over the scope's ranks; its nodes are named by process id. */
    int tree[4] = {0, me ? (me - 1) / 2 : -1, 2 * me + 1 < size ? 2 * me + 1 : -1,
                   2 * me + 2 < size ? 2 * me + 2 : -1};
    MPI_Group group, world;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(world_comm(), &world);
    int ids[4];
    for (int i = 0; i < 4; i++) {
        ids[i] = -1;
        if (tree[i] >= 0)
            MPI_Group_translate_ranks(group, 1, &tree[i], world, &ids[i]);
    }
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    release_comm(&comm, owned);
    *Root = ids[0];
    *Up = ids[1];
    *Left = ids[2];
    *Right = ids[3];
}

/* ---- Utilities ------------------------------------------------------------------------------ */

int armci_msg_me(void)
{
    int me;
    MPI_Comm_rank(world_comm(), &me);
    return me;
}

int armci_msg_nproc(void)
{
    int size;
    MPI_Comm_size(world_comm(), &size);
    return size;
}

void armci_msg_abort(int code)
{
    pg_fatal("armci_msg_abort", "the program aborted with code %d", code);
}

double armci_timer(void)
{
    return MPI_Wtime();
}

static int msg_started_mpi;

void armci_msg_init(int *argc, char ***argv)
{
    int up;
    MPI_Initialized(&up);
    if (!up) {
        MPI_Init(argc, argv);
        msg_started_mpi = 1;
    }
}

void armci_msg_finalize(void)
{
    int down;
    MPI_Finalized(&down);
    if (msg_started_mpi && !down)
        MPI_Finalize();
    msg_started_mpi = 0;
}
