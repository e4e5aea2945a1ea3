/* Internal to src/pipeline: the client engine (client.c) as the bring-up (network.c) drives
 * it. */
#ifndef PG_PIPE_INTERNAL_H
#define PG_PIPE_INTERNAL_H

#include "pipeline.h"

/* Opens my endpoint and the client state: the name of each node's server (its endpoint is
 * inserted on my first request there) and the offset of every PE's direct RMA regions in its
 * internal area (fetched on the first direct transfer to it). */
/* server_names[nnodes] are kept in name_bytes each (the job's longest name). My endpoint's
 * name is left at name_offset of my internal area (PIPE_NAME_BYTES), where direct signals'
 * senders fetch it. */
#define PIPE_NAME_BYTES (sizeof(uint64_t) + PG_NET_ADDR_MAX)
void pipe_client_open(const char (*server_names)[PG_NET_ADDR_MAX], size_t name_bytes,
                      size_t regions_offset, size_t name_offset);
/* The closing handshake (dataserver.h, "Closing"), before the barrier after which the
 * endpoints close: returns once every server I have sent to has acknowledged my CLOSE (with
 * retransmission on; otherwise once every request of mine is done) and my sends have left the
 * provider; nothing is sent again after it. */
void pipe_client_closing(void);
/* After that barrier. */
void pipe_client_close(void);
/* Registers my heap's newest part on my endpoint where local buffers must be registered. */
void pipe_client_heap_grown(void);

#endif
