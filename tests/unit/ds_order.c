/* The data server's request streams on their own: requests delivered in any order are served
 * in their source's order, at the moment their turn comes, with their bytes intact; numbers
 * wrap at 2^16; a number already served is refused and serves nothing. */
#define UNIT_NAME "ds_order"
#include "unit.h"

#include "dataserver/ds_internal.h"

#include <stdio.h>
#include <string.h>

#define PAYLOAD 40

struct message {
    struct pg_ds_header h;
    unsigned char payload[PAYLOAD];
};

static uint16_t served[64];
static int nserved;

static void record(const struct pg_ds_header *h, size_t len)
{
    const struct message *m = (const struct message *)h;
    EXPECT(len == sizeof *m, "request %u served with %zu bytes, sent %zu", h->order, len,
           sizeof *m);
    for (int i = 0; i < PAYLOAD; i++)
        EXPECT(m->payload[i] == (unsigned char)(h->order * 7 + i),
               "request %u: payload byte %d is %u", h->order, i, m->payload[i]);
    if (nserved < 64)
        served[nserved] = h->order;
    nserved++;
}

/* Delivers request `order` (its payload derived from the number); returns the status. */
static int deliver(struct ds_stream *st, uint16_t order)
{
    struct message m = {.h = {.flags = PG_DS_ORDERED, .order = order}};
    for (int i = 0; i < PAYLOAD; i++)
        m.payload[i] = (unsigned char)(order * 7 + i);
    int status = ds_stream_deliver(st, &m.h, sizeof m, record);
    memset(&m, 0xee, sizeof m); /* a held request must have been copied */
    return status;
}

/* Delivers `order` and expects exactly served_now[0..n) to be served by it, in that order. */
static void step(struct ds_stream *st, uint16_t order, const uint16_t *served_now, int n)
{
    nserved = 0;
    int status = deliver(st, order);
    EXPECT(status == PG_DS_OK, "request %u refused (%d)", order, status);
    EXPECT(nserved == n, "request %u: %d served, want %d", order, nserved, n);
    for (int i = 0; i < n && i < nserved; i++)
        EXPECT(served[i] == served_now[i], "request %u: served #%d is %u, want %u", order, i,
               served[i], served_now[i]);
}

int main(void)
{
    struct ds_stream st = {0};
    for (uint16_t k = 0; k < 10; k++)
        step(&st, k, &k, 1);

    /* Arrival 13 11 10 12 15 14 16: each is served when the ones before it have been. */
    step(&st, 13, NULL, 0);
    step(&st, 11, NULL, 0);
    step(&st, 10, (const uint16_t[]){10, 11}, 2);
    step(&st, 12, (const uint16_t[]){12, 13}, 2);
    step(&st, 15, NULL, 0);
    step(&st, 14, (const uint16_t[]){14, 15}, 2);
    step(&st, 16, (const uint16_t[]){16}, 1);
    EXPECT(st.held == NULL, "requests still held after all were served");

    /* Already served: refused, nothing served. */
    nserved = 0;
    EXPECT(deliver(&st, 12) == PG_DS_BAD_ORDER, "request 12 served twice");
    EXPECT(nserved == 0, "a refused request served %d", nserved);

    /* Numbers wrap: 65534, 65535, 0, 1 follow each other. */
    ds_stream_reset(&st);
    st.expected = 65534;
    step(&st, 1, NULL, 0);
    step(&st, 0, NULL, 0);
    step(&st, 65535, NULL, 0);
    step(&st, 65534, (const uint16_t[]){65534, 65535, 0, 1}, 4);
    nserved = 0;
    EXPECT(deliver(&st, 65535) == PG_DS_BAD_ORDER, "request 65535 served twice across the wrap");

    /* A full reversed window of 64 (a client's most requests in flight at one server). */
    ds_stream_reset(&st);
    EXPECT(st.expected == 0 && st.held == NULL, "reset left %u expected", st.expected);
    for (uint16_t k = 63; k >= 1; k--)
        step(&st, k, NULL, 0);
    uint16_t all[64];
    for (uint16_t k = 0; k < 64; k++)
        all[k] = k;
    step(&st, 0, all, 64);

    /* Held requests are released by reset. */
    step(&st, 70, NULL, 0);
    ds_stream_reset(&st);
    EXPECT(st.held == NULL, "reset kept a held request");

    return unit_finish();
}
