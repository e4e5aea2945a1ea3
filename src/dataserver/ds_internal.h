/* Shared between the client and server halves of src/dataserver. */
#ifndef PG_DS_INTERNAL_H
#define PG_DS_INTERNAL_H

#include "dataserver.h"

#include "transport/transport.h"

#include <rdma/fi_eq.h>

/* A multi-receive buffer: many messages land in it until it is used up. */
struct ds_recv_buffer {
    struct fi_context ctx; /* first: the completion's context points here */
    char *data;
    size_t size;
    struct pg_net_mr *mr; /* when local buffers must be registered */
};

/* How initiators name a PE's segment in a direct RMA: registered by the server of its node
 * on the server's endpoint, so the server thread's progress completes it while the PE
 * computes. */
struct ds_region {
    uint64_t registered; /* 0: no direct RMA to this segment */
    uint64_t key;
    uint64_t base; /* the remote address of byte 0 */
};

size_t ds_max_message(void);
/* Bytes of a message carrying `chunk` data bytes, at most. */
size_t ds_message_bytes(size_t chunk);

/* Data bytes per message: the chunk size, whole accumulate elements. */
size_t ds_chunk_bytes(void);

/* Piece functions for pg_ds_walk: copy a region's run into the packed stream, or back. */
void ds_pack_piece(char *region, char *packed, size_t n, void *arg);
void ds_unpack_piece(char *region, char *packed, size_t n, void *arg);
void ds_recv_open(struct pg_net_ep *ep, struct ds_recv_buffer *b, size_t size);
void ds_recv_repost(struct pg_net_ep *ep, void *context);
void ds_recv_close(struct ds_recv_buffer *b);

void ds_client_open(void);
void ds_client_close(void);
void ds_client_connect(int node, const void *server_name);
void ds_client_set_region(int pe, int seg, const struct ds_region *region);
struct pg_net_ep *ds_client_ep(void);
/* Receive space a server reserves for each PE of another node (the client's credit). */
size_t ds_client_credit_bytes(void);

/* One source's ordered requests (PG_DS_ORDERED) at a server: the next number due and the
 * requests that arrived ahead of it. Zero-initialised is the start of a stream. */
struct ds_held;
struct ds_stream {
    uint16_t expected;
    struct ds_held *held;
};
typedef void (*ds_serve_fn)(const struct pg_ds_header *h, size_t len);
/* Serves h (len bytes, validated) when its turn has come, then whichever held requests follow
 * it; keeps a copy of it when it is early. Returns PG_DS_OK, or PG_DS_BAD_ORDER when its
 * number was served already (nothing is served). */
int ds_stream_deliver(struct ds_stream *st, const struct pg_ds_header *h, size_t len,
                      ds_serve_fn serve);
/* Frees what is held and starts the stream again at 0. */
void ds_stream_reset(struct ds_stream *st);

void ds_server_open(void);
/* The server's registration of segment seg of pe, a PE of its node. */
struct ds_region ds_server_region(int pe, int seg);
struct pg_net_ep *ds_server_ep(void);
void ds_server_start(const char *client_names, size_t name_stride);
void ds_server_stop(void);

#endif
