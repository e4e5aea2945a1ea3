/* Request streams: the server applies each source's ordered requests in the order the source
 * issued them. A request that arrives ahead of its turn is copied aside (its receive buffer
 * goes back to the network) and served as soon as the ones before it have been. What may be
 * held is bounded by the source's credit. */
#include "ds_internal.h"

#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

struct ds_held {
    struct ds_held *next;
    size_t len;
    struct pg_ds_header header; /* then the rest of the message */
};

/* Distance of `order` ahead of the stream's next number: 0 is its turn, below 2^15 ahead,
 * otherwise behind (already served). */
static uint16_t ahead(const struct ds_stream *st, uint16_t order)
{
    return (uint16_t)(order - st->expected);
}

static void serve_held(struct ds_stream *st, ds_serve_fn serve)
{
    for (struct ds_held **at = &st->held; *at;) {
        struct ds_held *h = *at;
        if (ahead(st, h->header.order) != 0) {
            at = &h->next;
            continue;
        }
        *at = h->next;
        st->expected++;
        serve(&h->header, h->len);
        free(h);
        at = &st->held; /* the next one may be anywhere in the list */
    }
}

int ds_stream_deliver(struct ds_stream *st, const struct pg_ds_header *h, size_t len,
                      ds_serve_fn serve)
{
    uint16_t distance = ahead(st, h->order);
    if (distance >= 0x8000)
        return PG_DS_BAD_ORDER;
    if (distance == 0) {
        st->expected++;
        serve(h, len);
        if (st->held)
            serve_held(st, serve);
        return PG_DS_OK;
    }
    for (struct ds_held *k = st->held; k; k = k->next) {
        if (k->header.order == h->order) {  /* a retransmission of one held already */
            k->header.attempt = h->attempt; /* its source takes the latest attempt's replies */
            return PG_DS_OK;
        }
    }
    struct ds_held *held = malloc(offsetof(struct ds_held, header) + len);
    if (!held)
        pg_fatal("data server", "out of memory holding a request that arrived early");
    held->len = len;
    memcpy(&held->header, h, len);
    held->next = st->held;
    st->held = held;
    return PG_DS_OK;
}

void ds_stream_reset(struct ds_stream *st)
{
    while (st->held) {
        struct ds_held *next = st->held->next;
        free(st->held);
        st->held = next;
    }
    st->expected = 0;
}
