/* Process groups and the armci_msg_* helpers.
 *
 * Groups: create (from the default group), create_child, ARMCIX split and dup, rank/size,
 * Absolute_id and the translation tables, set/get default, get_world, armci_group_comm,
 * Uses_shm_grp, GroupFence. ARMCI_Malloc_group on the odd processes with a different size on
 * each: transfers inside the group, and afterwards shmem_malloc still returns the same offset
 * on every process (the symmetric heap stayed in step though only members allocated).
 * Messages: every reduction operator on every type over the world, a group, the node and the
 * node masters, and "or"/"and" with zeros among the values; reduce to 0; sel max/min with
 * non-contributors; bcast at every scope; clus_brdcst and clus gops; grp_clus_brdcst;
 * exchange_address(_grp); bintree; snd/rcv/rcvany; domain queries and Same_node. */
#include "armci_check.h"

#include <armcix.h>
#include <math.h>
#include <message.h>
#include <shmem.h>

static int me, nproc;

/* ---- Reductions (over TEST_MSG_TYPES) ---- */
/* Process p of n contributes x(p) = (p % 2 ? -1 : 1) * (p + 1): every operator's result is
 * known in closed form. members[] are the contributors (process ids). */
static double contribution(int p)
{
    return (p % 2 ? -1.0 : 1.0) * (p + 1);
}

static double expected(const char *op, const int *members, int n)
{
    double r = contribution(members[0]);
    for (int i = 1; i < n; i++) {
        double x = contribution(members[i]);
        if (!strcmp(op, "+"))
            r += x;
        else if (!strcmp(op, "*"))
            r *= x;
        else if (!strcmp(op, "max"))
            r = x > r ? x : r;
        else if (!strcmp(op, "min"))
            r = x < r ? x : r;
        else if (!strcmp(op, "absmax"))
            r = fabs(x) > fabs(r) ? fabs(x) : fabs(r);
        else if (!strcmp(op, "absmin"))
            r = fabs(x) < fabs(r) ? fabs(x) : fabs(r);
    }
    if (!strcmp(op, "absmax") || !strcmp(op, "absmin"))
        r = fabs(r);
    if (!strcmp(op, "or") || !strcmp(op, "and"))
        r = 1; /* every contribution is non-zero */
    return r;
}

static const char *const ops[] = {"+", "*", "max", "min", "absmax", "absmin", "or", "and"};
#define NOPS (int)(sizeof ops / sizeof ops[0])

/* world/group/node/masters forms for every type and operator */
#define DEFINE_GOPS(sfx, T, TYPE)                                                                  \
    static void gops_##sfx(ARMCI_Group *group, const int *members, int n, const int *node,         \
                           int nnode)                                                              \
    {                                                                                              \
        for (int o = 0; o < NOPS; o++) {                                                           \
            char *op = (char *)ops[o];                                                             \
            T x[2] = {(T)contribution(me), (T)contribution(me)};                                   \
            armci_msg_##sfx##gop(x, 2, op);                                                        \
            int all[64];                                                                           \
            for (int p = 0; p < nproc; p++)                                                        \
                all[p] = p;                                                                        \
            CHECK(x[0] == (T)expected(op, all, nproc) && x[1] == x[0], #sfx "gop %s: %g, want %g", \
                  op, (double)x[0], expected(op, all, nproc));                                     \
            if (group) {                                                                           \
                T y = (T)contribution(me);                                                         \
                armci_msg_group_##sfx##gop(&y, 1, op, group);                                      \
                CHECK(y == (T)expected(op, members, n), "group " #sfx "gop %s: %g, want %g", op,   \
                      (double)y, expected(op, members, n));                                        \
            }                                                                                      \
            T z = (T)contribution(me);                                                             \
            armci_msg_clus_##sfx##gop(&z, 1, op);                                                  \
            CHECK(z == (T)expected(op, node, nnode), "clus " #sfx "gop %s: %g, want %g", op,       \
                  (double)z, expected(op, node, nnode));                                           \
            T w = (T)contribution(me);                                                             \
            armci_msg_gop_scope(SCOPE_NODE, &w, 1, op, TYPE);                                      \
            CHECK(w == z, "gop_scope NODE " #sfx " %s", op);                                       \
            T v = (T)contribution(me);                                                             \
            armci_msg_reduce(&v, 1, op, TYPE);                                                     \
            if (me == 0)                                                                           \
                CHECK(v == (T)expected(op, all, nproc), "reduce " #sfx " %s: %g", op, (double)v);  \
        }                                                                                          \
    }
TEST_MSG_TYPES(DEFINE_GOPS)

static void check_group(ARMCI_Group *g, const int *members, int n, const char *what)
{
    int rank = -2, size = -2;
    ARMCI_Group_size(g, &size);
    ARMCI_Group_rank(g, &rank);
    int mine = -1;
    for (int i = 0; i < n; i++)
        if (members[i] == me)
            mine = i;
    CHECK(size == (mine >= 0 ? n : 0), "%s size %d", what, size);
    CHECK(rank == mine, "%s rank %d, want %d", what, rank, mine);
    if (mine < 0)
        return;
    for (int i = 0; i < n; i++) {
        CHECK(ARMCI_Absolute_id(g, i) == members[i], "%s Absolute_id(%d)", what, i);
        CHECK(g->grp_to_abs[i] == members[i] && g->abs_to_grp[members[i]] == i,
              "%s translation tables", what);
    }
    int csize;
    MPI_Comm_size(armci_group_comm(g), &csize);
    CHECK(csize == n, "%s armci_group_comm size %d", what, csize);
}

static void groups(void)
{
    /* The odd processes, in reverse order (a group's ranks need not follow process ids). */
    int odd[64] = {0}, nodd = 0;
    for (int p = nproc - 1; p >= 0; p--)
        if (p % 2)
            odd[nodd++] = p;
    int all[64] = {0}, node[64] = {0}, nnode = 0;
    for (int p = 0; p < nproc; p++) {
        all[p] = p;
        if (ARMCI_Same_node(p))
            node[nnode++] = p;
    }
    ARMCI_Group world, odds, dup, halves, dflt;
    ARMCI_Group_get_world(&world);
    check_group(&world, all, nproc, "world");
#define CALL_GOPS(sfx, T, TYPE) gops_##sfx(me % 2 ? &odds : NULL, odd, nodd, node, nnode);
    if (nodd == 0) { /* one process: the world and node forms only */
        TEST_MSG_TYPES(CALL_GOPS)
        return;
    }
    ARMCI_Group_create(nodd, odd, &odds);
    check_group(&odds, odd, nodd, "odd");

    /* A child of the odd group: its first member only. */
    if (me % 2) {
        ARMCI_Group first;
        int zero = 0;
        ARMCI_Group_create_child(1, &zero, &first, &odds);
        check_group(&first, odd, 1, "child");
        ARMCI_Group_free(&first);
        ARMCIX_Group_dup(&odds, &dup);
        check_group(&dup, odd, nodd, "dup");
        ARMCI_Group_free(&dup);
        CHECK(ARMCI_Uses_shm_grp(&odds) == 0, "Uses_shm_grp (0, as ARMCI-MPI)");
        ARMCI_GroupFence(&odds);
    }
    /* Split in halves by id: key -me reverses the order. */
    ARMCIX_Group_split(&world, me < nproc / 2, -me, &halves);
    int half[64] = {0}, nhalf = 0;
    for (int p = nproc - 1; p >= 0; p--)
        if ((p < nproc / 2) == (me < nproc / 2))
            half[nhalf++] = p;
    check_group(&halves, half, nhalf, "split");

    /* Default group: set, get, and Group_create relative to it. */
    ARMCI_Group_set_default(&halves);
    ARMCI_Group_get_default(&dflt);
    CHECK(dflt.comm == halves.comm, "get_default is not what set_default set");
    ARMCI_Group sub;
    int first_two[2] = {0, 1};
    ARMCI_Group_create(nhalf >= 2 ? 2 : 1, first_two, &sub);
    check_group(&sub, half, nhalf >= 2 ? 2 : 1, "create under default");
    ARMCI_Group_free(&sub);
    ARMCI_Group_set_default(&world);
    ARMCI_GroupFence(NULL);

    /* Group allocations on the odd processes only, different sizes. */
    long *before = shmem_malloc(64);
    if (me % 2) {
        int grank;
        ARMCI_Group_rank(&odds, &grank);
        void **ptrs = malloc(nodd * sizeof(void *));
        ARMCI_Malloc_group(ptrs, 64 * (grank + 1), &odds);
        for (int r = 0; r < nodd; r++)
            CHECK(ptrs[r] != NULL, "group allocation of rank %d is NULL", r);
        memset(ptrs[grank], 0, 64 * (grank + 1));
        armci_msg_group_barrier(&odds);
        /* Each member writes its rank into the last 8 bytes of every member's block. */
        for (int r = 0; r < nodd; r++) {
            int owner = ARMCI_Absolute_id(&odds, r);
            ARMCI_Acc(ARMCI_ACC_LNG, &(long){1}, &(long){grank + 1},
                      (char *)ptrs[r] + 64 * (r + 1) - 8, 8, owner);
        }
        ARMCI_AllFence();
        armci_msg_group_barrier(&odds);
        long sum = *(long *)((char *)ptrs[grank] + 64 * (grank + 1) - 8);
        CHECK(sum == (long)nodd * (nodd + 1) / 2, "group accumulate total %ld", sum);
        void *exchanged[64];
        exchanged[grank] = ptrs[grank];
        armci_exchange_address_grp(exchanged, nodd, &odds);
        for (int r = 0; r < nodd; r++)
            CHECK(exchanged[r] == ptrs[r], "exchange_address_grp entry %d", r);
        ARMCI_Free_group(ptrs[grank], &odds);
        free(ptrs);
    }
    long *after = shmem_malloc(64);
    long offsets[2] = {(long)((char *)after - (char *)before), 0};
    shmem_barrier_all();
    MPI_Allreduce(MPI_IN_PLACE, offsets, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(offsets[0] == (long)((char *)after - (char *)before),
          "shmem_malloc offsets disagree after a group allocation");
    shmem_free(after);
    shmem_free(before);

    /* Collectives on the groups. */
    TEST_MSG_TYPES(CALL_GOPS)
    if (me % 2) {
        char buf[16] = "";
        if (me == odd[1 % nodd])
            strcpy(buf, "from rank 1");
        armci_msg_group_bcast_scope(SCOPE_ALL, buf, sizeof buf, 1 % nodd, &odds);
        CHECK(strcmp(buf, "from rank 1") == 0, "group bcast got '%s'", buf);
        ARMCI_Group_free(&odds);
    }
    ARMCI_Group_free(&halves);
    (void)dflt;
}

static void messages(void)
{
    /* Broadcasts. */
    int root = nproc - 1, v = me == root ? 4242 : 0;
    armci_msg_bcast(&v, sizeof v, root);
    CHECK(v == 4242, "bcast %d", v);
    v = me == 0 ? 17 : 0;
    armci_msg_brdcst(&v, sizeof v, 0);
    CHECK(v == 17, "brdcst %d", v);
    v = me == 0 ? 5 : 0;
    armci_msg_bcast_scope(SCOPE_ALL, &v, sizeof v, 0);
    CHECK(v == 5, "bcast_scope ALL %d", v);
    int master =
        armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, armci_domain_my_id(ARMCI_DOMAIN_SMP), 0);
    v = me == master ? 99 : 0;
    armci_msg_bcast_scope(SCOPE_NODE, &v, sizeof v, master);
    CHECK(v == 99, "bcast_scope NODE %d", v);
    v = me == master ? 7 : 0;
    armci_msg_clus_brdcst(&v, sizeof v);
    CHECK(v == 7, "clus_brdcst %d", v);
    ARMCI_Group world;
    ARMCI_Group_get_world(&world);
    v = me == master ? 8 : 0;
    armci_grp_clus_brdcst(
        &v, sizeof v, master,
        armci_domain_nprocs(ARMCI_DOMAIN_SMP, armci_domain_my_id(ARMCI_DOMAIN_SMP)), &world);
    CHECK(v == 8, "grp_clus_brdcst %d", v);
    if (me == master) { /* only masters take part in SCOPE_MASTERS */
        int n = 1;
        armci_msg_gop_scope(SCOPE_MASTERS, &n, 1, "+", ARMCI_INT);
        CHECK(n == armci_domain_count(ARMCI_DOMAIN_SMP), "masters count %d", n);
        v = me == 0 ? 3 : 0;
        armci_msg_bcast_scope(SCOPE_MASTERS, &v, sizeof v, 0);
        CHECK(v == 3, "bcast_scope MASTERS %d", v);
    }

    /* Selection: the record of the largest / smallest key among the contributors (the odd
     * processes, or process 0 alone). */
    struct {
        double key;
        int owner;
    } rec = {contribution(me) * 10, me};
    int contribute = nproc == 1 || me % 2;
    armci_msg_sel(&rec, sizeof rec, "max", ARMCI_DOUBLE, contribute);
    int want = nproc == 1 ? 0 : -1;
    for (int p = 0; p < nproc; p++) /* the odd keys are negative: max is the smallest odd id */
        if (p % 2 && want < 0)
            want = p;
    CHECK(rec.owner == want, "sel max chose %d, want %d", rec.owner, want);
    struct {
        long key;
        int owner;
    } lrec = {me, me};
    armci_msg_sel_scope(SCOPE_ALL, &lrec, sizeof lrec, "min", ARMCI_LONG, 1);
    CHECK(lrec.owner == 0, "sel min chose %d", lrec.owner);

    /* Addresses, tree, point to point. */
    void *addr[64];
    addr[me] = (void *)(long)(me * 1000 + 1);
    armci_exchange_address(addr, nproc);
    for (int p = 0; p < nproc; p++)
        CHECK(addr[p] == (void *)(long)(p * 1000 + 1), "exchange_address entry %d", p);
    int root_id, up, left, right;
    armci_msg_bintree(SCOPE_ALL, &root_id, &up, &left, &right);
    CHECK(root_id == 0 && up == (me ? (me - 1) / 2 : -1) &&
              left == (2 * me + 1 < nproc ? 2 * me + 1 : -1) &&
              right == (2 * me + 2 < nproc ? 2 * me + 2 : -1),
          "bintree %d %d %d %d", root_id, up, left, right);
    if (nproc > 1) {
        int token = me, got = -1, len = 0;
        if (me == 0) {
            for (int k = 1; k < nproc; k++) {
                int from = armci_msg_rcvany(11, &got, sizeof got, &len);
                CHECK(got == from && len == sizeof got, "rcvany %d from %d", got, from);
            }
            for (int k = 1; k < nproc; k++)
                armci_msg_snd(12, &k, sizeof k, k);
        } else {
            armci_msg_snd(11, &token, sizeof token, 0);
            armci_msg_rcv(12, &got, sizeof got, &len, 0);
            CHECK(got == me && len == sizeof got, "rcv %d", got);
        }
    }
    CHECK(armci_msg_me() == me && armci_msg_nproc() == nproc, "armci_msg_me/nproc");
    CHECK(armci_timer() > 0, "armci_timer");
    armci_msg_barrier();
}

static void domains(void)
{
    int count = armci_domain_count(ARMCI_DOMAIN_SMP), total = 0;
    for (int d = 0; d < count; d++) {
        int n = armci_domain_nprocs(ARMCI_DOMAIN_SMP, d);
        total += n;
        for (int l = 0; l < n; l++)
            CHECK(armci_domain_id(ARMCI_DOMAIN_SMP,
                                  armci_domain_glob_proc_id(ARMCI_DOMAIN_SMP, d, l)) == d,
                  "domain %d local %d", d, l);
    }
    CHECK(total == nproc, "domains hold %d processes", total);
    for (int p = 0; p < nproc; p++)
        CHECK(ARMCI_Same_node(p) == armci_domain_same_id(ARMCI_DOMAIN_SMP, p) &&
                  ARMCI_Same_node(p) == (armci_domain_id(ARMCI_DOMAIN_SMP, p) ==
                                         armci_domain_my_id(ARMCI_DOMAIN_SMP)),
              "Same_node(%d)", p);
    CHECK(ARMCI_Same_node(me) && !ARMCI_Uses_shm(), "Same_node(me) / Uses_shm (0, as ARMCI-MPI)");
}

/* "or" and "and" are logical: with one zero among non-zero values "and" gives 0 and "or" 1;
 * with zeros only, "or" gives 0. Values 2 and 4 (no common bit) still give 1. */
static void logical_ops(void)
{
    int x = me == nproc - 1 ? 0 : 2 + 2 * (me % 2);
    int y = x;
    armci_msg_igop(&x, 1, "and");
    CHECK(x == 0, "igop and with a zero: %d", x);
    armci_msg_igop(&y, 1, "or");
    CHECK(y == (nproc > 1), "igop or: %d, want %d", y, nproc > 1);
    long zero = 0, nonzero = 2 + 2 * (me % 2);
    armci_msg_lgop(&zero, 1, "or");
    CHECK(zero == 0, "lgop or of zeros: %ld", zero);
    armci_msg_lgop(&nonzero, 1, "and");
    CHECK(nonzero == 1, "lgop and of non-zeros: %ld", nonzero);
    double d = me == 0 ? 0.0 : -1.5;
    armci_msg_dgop(&d, 1, "or");
    CHECK(d == (nproc > 1), "dgop or: %g", d);
}

int main(int argc, char **argv)
{
    ARMCI_Init_args(&argc, &argv);
    shmem_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    groups();
    messages();
    domains();
    logical_ops();
    int rc = check_finish();
    shmem_finalize();
    ARMCI_Finalize();
    MPI_Finalize();
    return rc;
}
