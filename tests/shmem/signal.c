/* Signaling: put_signal, put_signal_nbi, signal_wait_until, signal_fetch, signal_add, signal_set.
 *
 * Ring: 200 iterations in which every PE sends a payload (up to 64 KiB, new bytes every time)
 * to its right neighbour with a put-with-signal, rotating through typed (long, int, char), C11
 * generic, SIZE (8..128) and mem forms, blocking and _nbi, with and without ctx, and through
 * SHMEM_SIGNAL_SET (value = iteration) and SHMEM_SIGNAL_ADD (on another word; the running sum).
 * The receiver waits with shmem_signal_wait_until, which must return the satisfying value, and
 * must then find the whole payload in place and the bytes after it untouched; it acknowledges
 * with shmem_signal_set. All to one: every PE adds my_pe + 1 to PE 0's signal with a payload
 * (put_signal ADD) and without one (shmem_signal_add); the sums must be exact and the payloads
 * complete when the sum is seen. */
#include "check.h"

#define PAYLOAD (64 * 1024)
#define GUARD 64
#define ITERS 200
#define NFORMS 10
#define ALL_ROUNDS 20
#define ALL_SLOT 4096

static int me, npes, left, right;
static unsigned char *dest;               /* symmetric: payload from the left neighbour */
static uint64_t *sig_set, *sig_add, *ack; /* symmetric signal words */
static unsigned char *all_dest;           /* symmetric: npes slots on PE 0 */
static uint64_t *sig_all, *sig_plain;     /* symmetric: all-to-one signal words on PE 0 */
static const char *const form_names[NFORMS] = {"long",  "int",   "char",  "generic", "put8",
                                               "put16", "put32", "put64", "put128",  "putmem"};

/* One put-with-signal call of family F (shmem_F / shmem_F_nbi and their ctx twins). */
#define PUT_SIGNAL(nbi, ctx, F, ...)                                      \
    ((nbi) ? ((ctx) ? shmem_ctx_##F##_nbi(SHMEM_CTX_DEFAULT, __VA_ARGS__) \
                    : shmem_##F##_nbi(__VA_ARGS__))                       \
           : ((ctx) ? shmem_ctx_##F(SHMEM_CTX_DEFAULT, __VA_ARGS__) : shmem_##F(__VA_ARGS__)))

static void send(int form, int nbi, int ctx, void *d, const void *s, size_t bytes, uint64_t *sig,
                 uint64_t value, int op, int pe)
{
    switch (form) {
    case 0:
        PUT_SIGNAL(nbi, ctx, long_put_signal, d, s, bytes / sizeof(long), sig, value, op, pe);
        break;
    case 1:
        PUT_SIGNAL(nbi, ctx, int_put_signal, d, s, bytes / sizeof(int), sig, value, op, pe);
        break;
    case 2:
        PUT_SIGNAL(nbi, ctx, char_put_signal, d, s, bytes, sig, value, op, pe);
        break;
    case 3: {
        uint64_t *d64 = d;
        const uint64_t *s64 = s;
        size_t n = bytes / 8;
        if (nbi)
            ctx ? shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, d64, s64, n, sig, value, op, pe)
                : shmem_put_signal_nbi(d64, s64, n, sig, value, op, pe);
        else
            ctx ? shmem_put_signal(SHMEM_CTX_DEFAULT, d64, s64, n, sig, value, op, pe)
                : shmem_put_signal(d64, s64, n, sig, value, op, pe);
        break;
    }
    case 4:
        PUT_SIGNAL(nbi, ctx, put8_signal, d, s, bytes, sig, value, op, pe);
        break;
    case 5:
        PUT_SIGNAL(nbi, ctx, put16_signal, d, s, bytes / 2, sig, value, op, pe);
        break;
    case 6:
        PUT_SIGNAL(nbi, ctx, put32_signal, d, s, bytes / 4, sig, value, op, pe);
        break;
    case 7:
        PUT_SIGNAL(nbi, ctx, put64_signal, d, s, bytes / 8, sig, value, op, pe);
        break;
    case 8:
        PUT_SIGNAL(nbi, ctx, put128_signal, d, s, bytes / 16, sig, value, op, pe);
        break;
    default:
        PUT_SIGNAL(nbi, ctx, putmem_signal, d, s, bytes, sig, value, op, pe);
        break;
    }
    if (nbi) /* completes the transfer and frees the source for reuse */
        ctx ? shmem_ctx_quiet(SHMEM_CTX_DEFAULT) : shmem_quiet();
}

static void ring(void)
{
    const size_t sizes[] = {PAYLOAD, 16, 4096, PAYLOAD - 16, 1024, 48};
    unsigned char *src = aligned_alloc(64, PAYLOAD);
    uint64_t add_sum = 0;
    test_fill_guard(dest, PAYLOAD + GUARD);
    shmem_barrier_all();
    for (int i = 1; i <= ITERS; i++) {
        int form = i % NFORMS, nbi = (i / NFORMS) % 2, ctx = (i / (2 * NFORMS)) % 2;
        int add = (i / 3) % 2, op = add ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        size_t bytes = sizes[i % 6];
        uint64_t *sig = add ? sig_add : sig_set;
        char what[96];
        snprintf(what, sizeof what, "iteration %d: %s%s%s %s, %zu bytes", i, form_names[form],
                 nbi ? " nbi" : "", ctx ? " ctx" : "", add ? "ADD" : "SET", bytes);

        /* Send to the right neighbour once it has consumed the previous payload. */
        uint64_t a = shmem_signal_wait_until(ack, SHMEM_CMP_GE, (uint64_t)i - 1);
        CHECK(a == (uint64_t)i - 1, "%s: ack wait returned %llu", what, (unsigned long long)a);
        test_fill_bytes(src, bytes, me, (unsigned)i);
        send(form, nbi, ctx, dest, src, bytes, sig, (uint64_t)i, op, right);

        /* Receive from the left neighbour. */
        if (add)
            add_sum += (uint64_t)i;
        uint64_t want = add ? add_sum : (uint64_t)i;
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, want);
        CHECK(got == want, "%s: signal_wait_until returned %llu, want %llu", what,
              (unsigned long long)got, (unsigned long long)want);
        CHECK(shmem_signal_fetch(sig) == want, "%s: signal_fetch", what);
        size_t bad = test_bad_byte(dest, bytes, left, (unsigned)i);
        CHECK(bad == SIZE_MAX, "%s: payload byte %zu not there when the signal was", what, bad);
        CHECK(test_bad_guard(dest, bytes, PAYLOAD + GUARD) == SIZE_MAX,
              "%s: bytes after the payload changed", what);
        test_fill_guard(dest, PAYLOAD + GUARD);
        switch (i % 3) {
        case 0:
            shmem_signal_set(ack, (uint64_t)i, left);
            break;
        case 1:
            shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, ack, (uint64_t)i, left);
            break;
        default:
            shmem_signal_set(SHMEM_CTX_DEFAULT, ack, (uint64_t)i, left);
            break; /* C11 */
        }
    }
    shmem_barrier_all();
    free(src);
}

static void all_to_one(void)
{
    const uint64_t sum = (uint64_t)npes * (uint64_t)(npes + 1) / 2;
    unsigned char *src = malloc(ALL_SLOT);
    for (int r = 1; r <= ALL_ROUNDS; r++) {
        test_fill_bytes(src, ALL_SLOT, me, 1000u + (unsigned)r);
        unsigned char *slot = all_dest + (size_t)me * ALL_SLOT;
        if (r % 2)
            shmem_putmem_signal(slot, src, ALL_SLOT, sig_all, (uint64_t)me + 1, SHMEM_SIGNAL_ADD,
                                0);
        else
            shmem_putmem_signal_nbi(slot, src, ALL_SLOT, sig_all, (uint64_t)me + 1,
                                    SHMEM_SIGNAL_ADD, 0);
        if (me == 0) {
            uint64_t got = shmem_signal_wait_until(sig_all, SHMEM_CMP_GE, sum * (uint64_t)r);
            CHECK(got == sum * (uint64_t)r, "all-to-one round %d: signal %llu, want %llu", r,
                  (unsigned long long)got, (unsigned long long)(sum * (uint64_t)r));
            for (int pe = 0; pe < npes; pe++) {
                size_t bad = test_bad_byte(all_dest + (size_t)pe * ALL_SLOT, ALL_SLOT, pe,
                                           1000u + (unsigned)r);
                CHECK(bad == SIZE_MAX, "all-to-one round %d: PE %d's payload byte %zu", r, pe, bad);
            }
        }
        shmem_barrier_all(); /* completes the nbi put; PE 0 has checked before the next round */
    }
    for (int k = 0; k < 100; k++) {
        if (k % 2)
            shmem_signal_add(sig_plain, (uint64_t)me + 1, 0);
        else
            shmem_ctx_signal_add(SHMEM_CTX_DEFAULT, sig_plain, (uint64_t)me + 1, 0);
    }
    shmem_signal_add(SHMEM_CTX_DEFAULT, sig_plain, 1000, 0); /* C11, 4 arguments */
    shmem_barrier_all();
    if (me == 0)
        CHECK(shmem_signal_fetch(sig_plain) == 100 * sum + 1000 * (uint64_t)npes,
              "signal_add from every PE: %llu, want %llu",
              (unsigned long long)shmem_signal_fetch(sig_plain),
              (unsigned long long)(100 * sum + 1000 * (uint64_t)npes));
    shmem_barrier_all();
    free(src);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    dest = shmem_align(64, PAYLOAD + GUARD);
    uint64_t *sigs = shmem_calloc(8, sizeof(uint64_t));
    all_dest = shmem_malloc((size_t)npes * ALL_SLOT);
    CHECK(dest && sigs && all_dest, "allocation failed");
    if (!dest || !sigs || !all_dest)
        return check_finish();
    sig_set = &sigs[0];
    sig_add = &sigs[1];
    ack = &sigs[2];
    sig_all = &sigs[3];
    sig_plain = &sigs[4];

    ring();
    all_to_one();

    shmem_free(all_dest);
    shmem_free(sigs);
    shmem_free(dest);
    int rc = check_finish();
    shmem_finalize();
    return rc;
}
