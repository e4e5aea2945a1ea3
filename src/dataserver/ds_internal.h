/* Internal to src/dataserver: the server's request streams. */
#ifndef PG_DS_INTERNAL_H
#define PG_DS_INTERNAL_H

#include "dataserver.h"

/* One source's ordered requests (PG_DS_ORDERED) at a server: the next number due and the
 * requests that arrived ahead of it. Zero-initialised is the start of a stream. */
struct ds_held;
struct ds_stream {
    uint16_t expected;
    struct ds_held *held;
};
typedef void (*ds_serve_fn)(const struct pg_ds_header *h, size_t len);
/* Serves h (len bytes, a whole header) when its turn has come, then whichever held requests
 * follow it; keeps a copy of it when it is early (one copy of a number: another is a
 * retransmission). Returns PG_DS_OK, or PG_DS_BAD_ORDER when
 * its number was served already (nothing is served). */
int ds_stream_deliver(struct ds_stream *st, const struct pg_ds_header *h, size_t len,
                      ds_serve_fn serve);
/* Frees what is held and starts the stream again at 0. */
void ds_stream_reset(struct ds_stream *st);

/* Broadcasts by the servers (dataserver.h; forward.c): serves a validated PG_DS_FORWARD, sends
 * it on, writes it into its node's members or keeps it for its turn; PG_DS_OK or why it is
 * rejected. fini frees the chunks kept and the tree. */
int ds_forward(const struct pg_ds_header *h, size_t len);
/* Serves a validated PG_DS_ARRIVED: counts the node in, and releases the team's members on my
 * node once every node has arrived; PG_DS_OK or why it is rejected. */
int ds_arrived(const struct pg_ds_header *h);
void ds_forward_fini(void);
/* Sends a PG_DS_FORWARD (len bytes as received) on to node's server, for target there
 * (server.c, which owns the endpoint). */
void ds_forward_send(int node, uint32_t target, const struct pg_ds_header *h, size_t len);

#endif
