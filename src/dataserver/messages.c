/* What the server and the pipeline share: message sizes, packing pieces, receive buffers. */
#include "dataserver.h"

#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

#define RECV_BUFFER_MESSAGES 64

size_t pg_ds_message_bytes(size_t chunk)
{
    /* Header, the largest layout descriptor (8 stride levels), one chunk of data. */
    return sizeof(struct pg_ds_header) + 8 * (2 + 2 * PG_MAX_STRIDE) + chunk;
}

size_t pg_ds_max_message(void)
{
    return pg_ds_message_bytes((size_t)pg_cfg.pipeline_buffer_size);
}

size_t pg_ds_chunk_bytes(void)
{
    return (size_t)pg_cfg.pipeline_buffer_size / PG_ACC_MAX_ELEMENT * PG_ACC_MAX_ELEMENT;
}

void pg_ds_pack_piece(char *region, char *packed, size_t n, void *arg)
{
    (void)arg;
    memcpy(packed, region, n);
}

void pg_ds_unpack_piece(char *region, char *packed, size_t n, void *arg)
{
    (void)arg;
    memcpy(region, packed, n);
}

void pg_ds_recv_open(struct pg_net_ep *ep, struct pg_ds_recv_buffer *b, size_t size)
{
    size_t least = RECV_BUFFER_MESSAGES * pg_ds_max_message();
    b->size = size > least ? size : least;
    b->data = malloc(b->size);
    if (!b->data)
        pg_fatal("shmem_init", "out of memory for %zu-byte receive buffers", b->size);
    /* Messages fill the buffer from its start, so until it has been used once the provider's
     * copy of every message takes a page fault per 4 KiB inside recv (2 x 64 MiB of buffer
     * with 1M chunks: 512K messages took 2.3 ms instead of 0.2 ms). Back it now; a memset
     * after malloc would become a calloc, which leaves fresh pages untouched. */
    for (size_t at = 0; at < b->size; at += 4096)
        ((volatile char *)b->data)[at] = 0;
    b->mr = pg_net_local_mr() ? pg_net_mr_reg(ep, b->data, b->size, FI_RECV) : NULL;
    pg_net_post_multi_recv(ep, b->data, b->size, pg_net_mr_desc(b->mr), &b->ctx);
}

void pg_ds_recv_repost(struct pg_net_ep *ep, void *context)
{
    struct pg_ds_recv_buffer *b = context;
    pg_net_post_multi_recv(ep, b->data, b->size, pg_net_mr_desc(b->mr), &b->ctx);
}

void pg_ds_recv_close(struct pg_ds_recv_buffer *b)
{
    pg_net_mr_close(b->mr);
    free(b->data);
    b->data = NULL;
    b->mr = NULL;
}
