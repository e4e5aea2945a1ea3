/* What the server and the pipeline share: message sizes, packing pieces, receive buffers. */
#include "dataserver.h"

#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

/* A pool segment holds this many maximal messages, so at most 1/8 of it is left unused when
 * it is used up; and at least SEGMENT_LEAST bytes, so the small reserve stays a small part. */
#define SEGMENT_MESSAGES 8
#define SEGMENT_LEAST ((size_t)512 << 10)
/* Small requests without a grant that the pool makes room for at once. */
#define SMALL_RESERVED 256

const struct pg_ds_header *pg_ds_aligned(struct pg_ds_bounce *b, const void *message, size_t len)
{
    if (!pg_ds_misaligned(message))
        return message;
    if (len > b->size) {
        free(b->buf);
        b->size = len;
        if (!(b->buf = malloc(len)))
            pg_fatal("remote access", "out of memory for a %zu-byte message", len);
    }
    return memcpy(b->buf, message, len);
}

void pg_ds_bounce_free(struct pg_ds_bounce *b)
{
    free(b->buf);
    *b = (struct pg_ds_bounce){0};
}

size_t pg_ds_message_bytes(size_t chunk)
{
    /* Header, the largest layout descriptor (8 stride levels), one chunk of data, padding. */
    return pg_ds_wire_bytes(sizeof(struct pg_ds_header) + 8 * (2 + 2 * PG_MAX_STRIDE) + chunk);
}

size_t pg_ds_max_message(void)
{
    return pg_ds_message_bytes((size_t)pg_cfg.pipeline_buffer_size);
}

size_t pg_ds_chunk_bytes(void)
{
    return (size_t)pg_cfg.pipeline_buffer_size / PG_ACC_MAX_ELEMENT * PG_ACC_MAX_ELEMENT;
}

static size_t max_receive(void)
{
    return pg_ds_receive_bytes(pg_ds_max_message());
}

size_t pg_ds_segment_bytes(void)
{
    size_t bytes = SEGMENT_MESSAGES * max_receive();
    bytes = bytes > SEGMENT_LEAST ? bytes : SEGMENT_LEAST;
    return (bytes + 4095) & ~(size_t)4095;
}

size_t pg_ds_small_reserve(void)
{
    return SMALL_RESERVED * pg_ds_receive_bytes(PG_DS_SMALL_MESSAGE);
}

size_t pg_ds_pool_capacity(size_t segments)
{
    if (segments < 2)
        return 0;
    size_t room = (segments - 1) * (pg_ds_segment_bytes() - max_receive());
    return room > pg_ds_small_reserve() ? room - pg_ds_small_reserve() : 0;
}

size_t pg_ds_pool_max_segments(void)
{
    return (size_t)pg_cfg.server_pool / pg_ds_segment_bytes();
}

size_t pg_ds_min_grant(void)
{
    return max_receive() + pg_ds_receive_bytes(sizeof(struct pg_ds_header));
}

size_t pg_ds_full_grant(void)
{
    return (size_t)pg_cfg.pipeline_buffers * max_receive() +
           pg_ds_receive_bytes(sizeof(struct pg_ds_header));
}

void pg_ds_check_pool(void)
{
    size_t least = 2 * pg_ds_segment_bytes();
    if (pg_ds_pool_max_segments() < 2)
        pg_fatal("shmem_init",
                 "PANGEA_SERVER_POOL=%lld is too small: a data server needs at least %zu bytes "
                 "(two receive segments of %zu bytes for PANGEA_PIPELINE_BUFFER_SIZE=%lld)",
                 pg_cfg.server_pool, least, pg_ds_segment_bytes(), pg_cfg.pipeline_buffer_size);
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
    b->size = size;
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
    pg_net_post_multi_recv(ep, &b->posted, b->data, b->size, pg_net_mr_desc(b->mr));
}

void pg_ds_recv_repost(struct pg_net_ep *ep, void *context)
{
    struct pg_ds_recv_buffer *b = context;
    pg_net_post_multi_recv(ep, &b->posted, b->data, b->size, pg_net_mr_desc(b->mr));
}

void pg_ds_recv_close(struct pg_ds_recv_buffer *b)
{
    pg_net_mr_close(b->mr);
    free(b->data);
    b->data = NULL;
    b->mr = NULL;
}
