// The C++ type-generic interface (the overloads of pangea_shmem_cxx.h) at run time, for every
// type of each family's table in the specification, with exact values:
// - RMA: put, get, p, g, iput, iget, ibput, ibget, put_nbi, get_nbi, put_signal[_nbi], with and
//   without a ctx (a context made by shmem_ctx_create), from each PE to its right neighbour;
// - team collectives on SHMEM_TEAM_WORLD: broadcast, collect, fcollect, alltoall, alltoalls, the
//   MAX/MIN/SUM/PROD reductions and the sum scans (T-RMA), AND/OR/XOR (T-RED bitwise), and
//   SUM/PROD and the scans on std::complex<double> and std::complex<float>;
// - AMOs (standard, extended, bitwise, blocking and nbi) on PE 0's counters from every PE;
// - point-to-point synchronization (wait_until, test and the multi-element forms) on every T-P2P
//   type, short and unsigned short included;
// - the deprecated AMO names, signal_add/signal_set with a ctx and shmem_sync(team).
#include "check.h"

#include <complex>

static int me, npes, right, left;
static shmem_ctx_t ctx;
static unsigned char *sym; // symmetric scratch, reused by every type
static uint64_t *sig;      // symmetric signal word

enum { N = 8 };

template <typename T> static T val(int pe, int i)
{
    return static_cast<T>(pe * 10 + i + 1);
}

template <typename T> static T *slot(int k)
{
    return reinterpret_cast<T *>(sym + static_cast<size_t>(k) * 1024);
}

// RMA to the right neighbour; every call once without and once with the ctx.
template <typename T> static void rma(const char *name)
{
    T *dest = slot<T>(0), *src = slot<T>(1), *got = slot<T>(2);
    T local[N];
    for (int i = 0; i < N; i++) {
        src[i] = val<T>(me, i);
        dest[i] = got[i] = T();
    }
    shmem_barrier_all();
    shmem_put(dest, src, N, right);
    shmem_barrier_all();
    for (int i = 0; i < N; i++)
        CHECK(dest[i] == val<T>(left, i), "%s put: element %d", name, i);
    shmem_get(ctx, local, dest, N, right); // right's dest holds my values
    for (int i = 0; i < N; i++)
        CHECK(local[i] == val<T>(me, i), "%s ctx get: element %d", name, i);
    shmem_get(local, dest, N, left);
    CHECK(local[N - 1] == val<T>((left + npes - 1) % npes, N - 1), "%s get from left", name);
    CHECK(shmem_g(dest + 3, right) == val<T>(me, 3), "%s g", name);
    CHECK(shmem_g(ctx, dest + 4, right) == val<T>(me, 4), "%s ctx g", name);
    shmem_barrier_all();

    shmem_p(got, val<T>(me, 20), right);
    shmem_p(ctx, got + 1, val<T>(me, 21), right);
    shmem_ctx_quiet(ctx);
    shmem_put_nbi(got + 2, src, 2, right);
    shmem_put_nbi(ctx, got + 4, src + 2, 2, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(got[0] == val<T>(left, 20) && got[1] == val<T>(left, 21), "%s p", name);
    for (int i = 2; i < 6; i++)
        CHECK(got[i] == val<T>(left, i - 2), "%s put_nbi: element %d", name, i);
    shmem_get_nbi(local, got, 2, right);
    shmem_get_nbi(ctx, local + 2, got + 2, 2, right);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    CHECK(local[0] == val<T>(me, 20) && local[3] == val<T>(me, 1), "%s get_nbi", name);
    shmem_barrier_all();

    // strided: every other element, and blocks of 2 with a stride of 3
    for (int i = 0; i < N; i++)
        dest[i] = got[i] = T();
    shmem_barrier_all();
    shmem_iput(dest, src, 2, 1, 4, right);          // dest[0,2,4,6] = src[0..3]
    shmem_iput(ctx, dest + 1, src, 2, 2, 4, right); // dest[1,3,5,7] = src[0,2,4,6]
    shmem_ibput(got, src, 3, 2, 2, 2, right);       // got[0,1,3,4] = src[0,1,2,3]
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) {
        CHECK(dest[2 * i] == val<T>(left, i), "%s iput: element %d", name, 2 * i);
        CHECK(dest[2 * i + 1] == val<T>(left, 2 * i), "%s ctx iput: element %d", name, 2 * i + 1);
    }
    CHECK(got[0] == val<T>(left, 0) && got[1] == val<T>(left, 1) && got[2] == T() &&
              got[3] == val<T>(left, 2) && got[4] == val<T>(left, 3),
          "%s ibput", name);
    shmem_iget(local, dest, 1, 2, 4, right); // right's dest[0,2,4,6] = my src[0..3]
    for (int i = 0; i < 4; i++)
        CHECK(local[i] == val<T>(me, i), "%s iget: element %d", name, i);
    shmem_iget(ctx, local, dest + 1, 1, 2, 2, right);
    CHECK(local[0] == val<T>(me, 0) && local[1] == val<T>(me, 2), "%s ctx iget", name);
    shmem_ibget(local, got, 2, 3, 2, 2, right); // local[0,1,2,3] = right's got[0,1,3,4]
    CHECK(local[2] == val<T>(me, 2) && local[3] == val<T>(me, 3), "%s ibget", name);
    shmem_ibget(ctx, local, got, 2, 3, 1, 2, right);
    CHECK(local[0] == val<T>(me, 0) && local[2] == val<T>(me, 2), "%s ctx ibget", name);
    shmem_barrier_all();

    // put with signal: the data is there when the signal is
    *sig = 0;
    shmem_barrier_all();
    shmem_put_signal(dest, src, 4, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_put_signal_nbi(ctx, dest + 4, src + 4, 4, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);
    for (int i = 0; i < N; i++)
        CHECK(dest[i] == val<T>(left, i), "%s put_signal: element %d", name, i);
    shmem_barrier_all();
}

// A collective may write into other PEs' dest as soon as they enter it: everybody has checked the
// previous result before the next collective.
static void checked(void)
{
    shmem_barrier_all();
}

// Collectives on the world team.
template <typename T> static void coll(const char *name)
{
    T *dest = slot<T>(0), *src = slot<T>(1);
    shmem_team_t world = SHMEM_TEAM_WORLD;
    for (int i = 0; i < N; i++)
        src[i] = val<T>(me, i);
    CHECK(shmem_broadcast(world, dest, src, N, 0) == 0, "%s broadcast", name);
    for (int i = 0; i < N; i++)
        CHECK(dest[i] == val<T>(0, i), "%s broadcast: element %d", name, i);
    checked();
    CHECK(shmem_fcollect(world, dest, src, 2) == 0, "%s fcollect", name);
    for (int p = 0; p < npes; p++)
        CHECK(dest[2 * p] == val<T>(p, 0) && dest[2 * p + 1] == val<T>(p, 1), "%s fcollect %d",
              name, p);
    checked();
    CHECK(shmem_collect(world, dest, src, 1) == 0, "%s collect", name);
    for (int p = 0; p < npes; p++)
        CHECK(dest[p] == val<T>(p, 0), "%s collect %d", name, p);
    checked();
    CHECK(shmem_alltoall(world, dest, src, 1) == 0, "%s alltoall", name);
    for (int p = 0; p < npes; p++)
        CHECK(dest[p] == val<T>(p, me), "%s alltoall from %d", name, p);
    checked();
    CHECK(shmem_alltoalls(world, dest, src, 1, 1, 1) == 0, "%s alltoalls", name);
    for (int p = 0; p < npes; p++)
        CHECK(dest[p] == val<T>(p, me), "%s alltoalls from %d", name, p);
    checked();
    shmem_max_reduce(world, dest, src, N);
    CHECK(dest[5] == val<T>(npes - 1, 5), "%s max_reduce", name);
    checked();
    shmem_min_reduce(world, dest, src, N);
    CHECK(dest[5] == val<T>(0, 5), "%s min_reduce", name);
    long sum = 0;
    for (int p = 0; p < npes; p++)
        sum += 10 * p + 3;
    checked();
    shmem_sum_reduce(world, dest, src, N);
    CHECK(dest[2] == static_cast<T>(sum), "%s sum_reduce", name);
    long prefix = 0;
    for (int p = 0; p < me; p++)
        prefix += 10 * p + 3;
    checked();
    shmem_sum_inscan(world, dest, src, N);
    CHECK(dest[2] == static_cast<T>(prefix + 10 * me + 3), "%s sum_inscan", name);
    checked();
    shmem_sum_exscan(world, dest, src, N);
    CHECK(dest[2] == static_cast<T>(prefix), "%s sum_exscan", name); // 0 on PE 0
    checked();
    for (int i = 0; i < N; i++)
        src[i] = static_cast<T>(me % 2 + 1);
    shmem_prod_reduce(world, dest, src, N);
    CHECK(dest[0] == static_cast<T>(1 << (npes / 2)), "%s prod_reduce", name);
    checked();
}

template <typename T> static void coll_bit(const char *name)
{
    T *dest = slot<T>(0), *src = slot<T>(1);
    for (int i = 0; i < N; i++)
        src[i] = static_cast<T>((1 << me) | 0x80);
    T all = static_cast<T>((1 << npes) - 1);
    shmem_or_reduce(SHMEM_TEAM_WORLD, dest, src, N);
    CHECK(dest[1] == static_cast<T>(all | 0x80), "%s or_reduce", name);
    checked();
    shmem_and_reduce(SHMEM_TEAM_WORLD, dest, src, N);
    CHECK(dest[1] == static_cast<T>(npes == 1 ? 0x81 : 0x80), "%s and_reduce", name);
    checked();
    shmem_xor_reduce(SHMEM_TEAM_WORLD, dest, src, N);
    CHECK(dest[1] == static_cast<T>(all | (npes % 2 ? 0x80 : 0)), "%s xor_reduce", name);
    checked();
}

// The complex rows of SUM/PROD: sum of (p, 1), product of i (the imaginary unit).
template <typename C> static void coll_complex(const char *name)
{
    typedef typename C::value_type R;
    C *dest = slot<C>(0), *src = slot<C>(1);
    for (int i = 0; i < N; i++)
        src[i] = C(static_cast<R>(me), 1);
    checked();
    shmem_sum_reduce(SHMEM_TEAM_WORLD, dest, src, N);
    CHECK(dest[7] == C(static_cast<R>(npes * (npes - 1) / 2), static_cast<R>(npes)),
          "%s sum_reduce", name);
    checked();
    shmem_sum_inscan(SHMEM_TEAM_WORLD, dest, src, N);
    CHECK(dest[3] == C(static_cast<R>(me * (me + 1) / 2), static_cast<R>(me + 1)), "%s sum_inscan",
          name);
    checked();
    shmem_sum_exscan(SHMEM_TEAM_WORLD, dest, src, N);
    if (me > 0)
        CHECK(dest[3] == C(static_cast<R>(me * (me - 1) / 2), static_cast<R>(me)), "%s sum_exscan",
              name);
    checked();
    for (int i = 0; i < N; i++)
        src[i] = C(0, 1);
    shmem_prod_reduce(SHMEM_TEAM_WORLD, dest, src, N);
    static const C powers[4] = {C(1, 0), C(0, 1), C(-1, 0), C(0, -1)};
    CHECK(dest[0] == powers[npes % 4], "%s prod_reduce", name);
    checked();
}

// Standard AMOs: every PE adds to PE 0's counter.
template <typename T> static void amo_std(const char *name)
{
    T *c = slot<T>(0);
    T fetched = T();
    c[0] = c[1] = T();
    shmem_barrier_all();
    shmem_atomic_add(c, static_cast<T>(3), 0);
    shmem_atomic_add(ctx, c, static_cast<T>(4), 0);
    shmem_atomic_inc(c, 0);
    shmem_atomic_inc(ctx, c, 0);
    T a = shmem_atomic_fetch_add(c + 1, static_cast<T>(1), 0);
    T b = shmem_atomic_fetch_add(ctx, c + 1, static_cast<T>(1), 0);
    T f = shmem_atomic_fetch_inc(c + 1, 0);
    T g = shmem_atomic_fetch_inc(ctx, c + 1, 0);
    CHECK(b > a && f > b && g > f, "%s fetch_add/fetch_inc results are not increasing", name);
    shmem_atomic_fetch_add_nbi(&fetched, c + 1, static_cast<T>(0), 0);
    shmem_atomic_fetch_inc_nbi(ctx, &fetched, c + 1, 0);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(c, 0) == static_cast<T>(9 * npes), "%s add/inc total", name);
    CHECK(shmem_atomic_fetch(ctx, c + 1, 0) == static_cast<T>(5 * npes), "%s fetch_add total",
          name);
    shmem_barrier_all();
    // compare_swap: exactly one PE wins each round
    if (me == 0)
        c[0] = T();
    shmem_barrier_all();
    T old = shmem_atomic_compare_swap(c, T(), static_cast<T>(me + 1), 0);
    T old2 = shmem_atomic_compare_swap(ctx, c + 1, static_cast<T>(5 * npes), static_cast<T>(1), 0);
    shmem_atomic_compare_swap_nbi(&fetched, c + 2, static_cast<T>(7), static_cast<T>(7), 0);
    shmem_atomic_compare_swap_nbi(ctx, &fetched, c + 2, static_cast<T>(7), static_cast<T>(7), 0);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    long wins = (old == T()) + (old2 == static_cast<T>(5 * npes));
    long *total = reinterpret_cast<long *>(sym + 8 * 1024);
    *total = 0;
    shmem_barrier_all();
    shmem_atomic_add(total, wins, 0);
    shmem_barrier_all();
    CHECK(shmem_g(total, 0) == 2, "%s compare_swap: %ld winners, want 2", name, shmem_g(total, 0));
    shmem_barrier_all();
}

// Extended AMOs: set, fetch, swap (also float and double).
template <typename T> static void amo_ext(const char *name)
{
    T *c = slot<T>(0);
    T fetched = T();
    shmem_barrier_all();
    shmem_atomic_set(c, val<T>(me, 1), right);
    shmem_atomic_set(ctx, c + 1, val<T>(me, 2), right);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(c[0] == val<T>(left, 1) && c[1] == val<T>(left, 2), "%s atomic_set", name);
    shmem_barrier_all(); // my left neighbour swaps my values next
    CHECK(shmem_atomic_fetch(c, right) == val<T>(me, 1), "%s atomic_fetch", name);
    T old = shmem_atomic_swap(c, val<T>(me, 5), right);
    T old2 = shmem_atomic_swap(ctx, c + 1, val<T>(me, 6), right);
    CHECK(old == val<T>(me, 1) && old2 == val<T>(me, 2), "%s atomic_swap", name);
    shmem_atomic_swap_nbi(&fetched, c, val<T>(me, 7), right);
    shmem_quiet();
    CHECK(fetched == val<T>(me, 5), "%s atomic_swap_nbi", name);
    shmem_atomic_swap_nbi(ctx, &fetched, c, val<T>(me, 8), right);
    shmem_ctx_quiet(ctx);
    CHECK(fetched == val<T>(me, 7), "%s ctx atomic_swap_nbi", name);
    shmem_atomic_fetch_nbi(&fetched, c + 1, right);
    shmem_quiet();
    CHECK(fetched == val<T>(me, 6), "%s atomic_fetch_nbi", name);
    shmem_atomic_fetch_nbi(ctx, &fetched, c, right);
    shmem_ctx_quiet(ctx);
    CHECK(fetched == val<T>(me, 8), "%s ctx atomic_fetch_nbi", name);
    shmem_barrier_all();
}

// Bitwise AMOs: every PE sets and clears its own bit in PE 0's words.
template <typename T> static void amo_bit(const char *name)
{
    T *c = slot<T>(0);
    T bit = static_cast<T>(static_cast<T>(1) << me), fetched = T();
    if (me == 0) {
        c[0] = c[1] = c[3] = T();
        c[2] = static_cast<T>(~T());
    }
    shmem_barrier_all();
    shmem_atomic_or(c, bit, 0);
    shmem_atomic_fetch_or(ctx, c + 1, bit, 0);
    shmem_atomic_and(ctx, c + 2, static_cast<T>(~bit), 0);
    shmem_atomic_fetch_xor_nbi(&fetched, c + 3, bit, 0);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    T all = static_cast<T>((static_cast<T>(1) << npes) - 1);
    CHECK(shmem_atomic_fetch(c, 0) == all && shmem_atomic_fetch(c + 1, 0) == all, "%s or/fetch_or",
          name);
    CHECK(shmem_atomic_fetch(c + 2, 0) == static_cast<T>(~all), "%s and", name);
    CHECK(shmem_atomic_fetch(c + 3, 0) == all, "%s fetch_xor_nbi", name);
    shmem_barrier_all();
    shmem_atomic_xor(c, bit, 0);
    shmem_atomic_fetch_and(c + 1, static_cast<T>(~bit), 0);
    shmem_atomic_fetch_or_nbi(ctx, &fetched, c + 2, bit, 0);
    shmem_atomic_fetch_and_nbi(&fetched, c + 3, static_cast<T>(~bit), 0);
    shmem_quiet();
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(shmem_atomic_fetch(c, 0) == T() && shmem_atomic_fetch(c + 1, 0) == T() &&
              shmem_atomic_fetch(c + 2, 0) == static_cast<T>(~T()) &&
              shmem_atomic_fetch(c + 3, 0) == T(),
          "%s xor/fetch_and/fetch_or_nbi/fetch_and_nbi", name);
    shmem_barrier_all();
}

// Point-to-point synchronization: my left neighbour sets my variables to 1 (p + quiet, which
// works for short and unsigned short too).
template <typename T> static void p2p(const char *name)
{
    T *iv = slot<T>(0);
    const T ones[4] = {1, 1, 1, 1};
    size_t idx[4];
    for (int i = 0; i < 4; i++)
        iv[i] = T();
    shmem_barrier_all();
    CHECK(shmem_test(iv, SHMEM_CMP_EQ, static_cast<T>(1)) == 0, "%s test before", name);
    CHECK(shmem_test_any(iv, 4, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) == SIZE_MAX,
          "%s test_any before", name);
    shmem_barrier_all(); // nobody updates before its neighbour has looked
    for (int i = 0; i < 4; i++)
        shmem_p(iv + i, static_cast<T>(1), right);
    shmem_quiet();
    shmem_wait_until(iv + 3, SHMEM_CMP_EQ, static_cast<T>(1));
    shmem_wait_until_all(iv, 4, NULL, SHMEM_CMP_EQ, static_cast<T>(1));
    shmem_wait_until_all_vector(iv, 4, NULL, SHMEM_CMP_GE, ones);
    CHECK(shmem_test(iv, SHMEM_CMP_EQ, static_cast<T>(1)) == 1, "%s test", name);
    CHECK(shmem_wait_until_any(iv, 4, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) < 4,
          "%s wait_until_any", name);
    CHECK(shmem_wait_until_any_vector(iv, 4, NULL, SHMEM_CMP_EQ, ones) < 4,
          "%s wait_until_any_vector", name);
    CHECK(shmem_wait_until_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) == 4,
          "%s wait_until_some", name);
    CHECK(shmem_wait_until_some_vector(iv, 4, idx, NULL, SHMEM_CMP_EQ, ones) == 4,
          "%s wait_until_some_vector", name);
    CHECK(shmem_test_all(iv, 4, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) == 1, "%s test_all", name);
    CHECK(shmem_test_all_vector(iv, 4, NULL, SHMEM_CMP_EQ, ones) == 1, "%s test_all_vector", name);
    CHECK(shmem_test_any(iv, 4, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) < 4, "%s test_any", name);
    CHECK(shmem_test_any_vector(iv, 4, NULL, SHMEM_CMP_NE, ones) == SIZE_MAX, "%s test_any_vector",
          name);
    CHECK(shmem_test_some(iv, 4, idx, NULL, SHMEM_CMP_EQ, static_cast<T>(1)) == 4, "%s test_some",
          name);
    CHECK(shmem_test_some_vector(iv, 4, idx, NULL, SHMEM_CMP_EQ, ones) == 4, "%s test_some_vector",
          name);
    shmem_barrier_all();
}

// The deprecated AMO names: fetch, set, swap (also float and double), cswap, finc, inc, fadd, add.
template <typename T> static void dep_ext(const char *name)
{
    T *c = slot<T>(0);
    shmem_barrier_all();
    shmem_set(c, val<T>(me, 1), right);
    shmem_barrier_all();
    CHECK(shmem_fetch(c, left) == val<T>((left + npes - 1) % npes, 1), "%s set/fetch", name);
    shmem_barrier_all(); // my left neighbour swaps my value next
    CHECK(shmem_swap(c, val<T>(me, 2), right) == val<T>(me, 1), "%s swap", name);
    shmem_barrier_all();
}

template <typename T> static void dep_amo(const char *name)
{
    T *c = slot<T>(0);
    if (me == 0)
        c[0] = T();
    shmem_barrier_all();
    shmem_add(c, static_cast<T>(2), 0);
    shmem_inc(c, 0);
    T a = shmem_fadd(c, static_cast<T>(1), 0);
    T b = shmem_finc(c, 0);
    CHECK(b > a, "%s fadd/finc", name);
    shmem_barrier_all();
    CHECK(shmem_cswap(c, static_cast<T>(5 * npes), static_cast<T>(5 * npes), 0) ==
              static_cast<T>(5 * npes),
          "%s cswap: the total is not %d", name, 5 * npes);
    shmem_barrier_all();
}

static void signals_and_sync(void)
{
    *sig = 0;
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(team)");
    shmem_signal_add(ctx, sig, 2, right);
    shmem_signal_add(sig, 3, right);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 5);
    shmem_barrier_all();
    shmem_signal_set(ctx, sig, 7, right);
    shmem_ctx_quiet(ctx);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 7);
    shmem_barrier_all();
}

int main()
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sym = static_cast<unsigned char *>(shmem_malloc(16 * 1024));
    sig = static_cast<uint64_t *>(shmem_calloc(1, sizeof *sig));
    CHECK(sym && sig, "allocation failed");
    CHECK(shmem_ctx_create(0, &ctx) == 0, "shmem_ctx_create");
    if (!sym || !sig || ctx == SHMEM_CTX_INVALID)
        return check_finish();

#define RUN_RMA(T, NAME) rma<T>(#NAME), coll<T>(#NAME);
    TEST_T_RMA(RUN_RMA)
#define RUN_RED_BIT(T, NAME) coll_bit<T>(#NAME);
    TEST_T_RED_BIT(RUN_RED_BIT)
#define RUN_COMPLEX(T, NAME) coll_complex<T>(#NAME);
    TEST_T_COMPLEX(RUN_COMPLEX)
#define RUN_AMO_STD(T, NAME) amo_std<T>(#NAME);
    TEST_T_AMO_STD(RUN_AMO_STD)
#define RUN_AMO_EXT(T, NAME) amo_ext<T>(#NAME);
    TEST_T_AMO_EXT(RUN_AMO_EXT)
#define RUN_AMO_BIT(T, NAME) amo_bit<T>(#NAME);
    TEST_T_AMO_BIT(RUN_AMO_BIT)
#define RUN_P2P(T, NAME) p2p<T>(#NAME);
    TEST_T_P2P(RUN_P2P)
#define RUN_DEP_EXT(T, NAME) dep_ext<T>(#NAME);
    TEST_T_DEP_AMO_EXT(RUN_DEP_EXT)
#define RUN_DEP_AMO(T, NAME) dep_amo<T>(#NAME);
    TEST_T_DEP_AMO(RUN_DEP_AMO)
    signals_and_sync();

    shmem_ctx_destroy(ctx);
    shmem_free(sig);
    shmem_free(sym);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
