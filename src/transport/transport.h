/* transport: the network path between nodes — libfabric reliable-datagram (FI_EP_RDM)
 * endpoints with their completion queues and address vectors. The on-node path needs no
 * transport: it is the mapped memory of src/memory. */
#ifndef PG_TRANSPORT_H
#define PG_TRANSPORT_H

#include <rdma/fabric.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/uio.h>

/* Opens the fabric and domain of the chosen provider (FI_PROVIDER, or the first provider
 * found that reaches other nodes). 0, or -1 with a message printed. */
int pg_net_init(void);
void pg_net_fini(void);
/* Describes the provider and the capabilities found (pangea-info, SHMEM_INFO). */
void pg_net_describe(FILE *out);
/* The name of the provider opened (e.g. "tcp;ofi_rxm"). */
const char *pg_net_provider(void);
/* Largest message the transport carries in one send (the request protocol chunks above). */
size_t pg_net_max_msg(void);

struct pg_net_ep;

/* An RDM endpoint with its own completion queue (with a wait object) and address vector;
 * max_message is the largest message its multi-receive buffers must hold whole. */
struct pg_net_ep *pg_net_ep_open(const char *role, size_t max_message);
void pg_net_ep_close(struct pg_net_ep *ep);
/* The endpoint's address, to exchange at startup. Returns its length (at most
 * PG_NET_ADDR_MAX) or 0 on error. */
#define PG_NET_ADDR_MAX 64
size_t pg_net_ep_name(struct pg_net_ep *ep, void *addr);
fi_addr_t pg_net_av_insert(struct pg_net_ep *ep, const void *addr);

/* Sends; retries while the provider is busy (progressing the endpoint meanwhile). The
 * buffers must stay untouched until the completion with this context arrives, except for
 * sends of at most the inject size with context NULL, which complete at once. */
void pg_net_sendv(struct pg_net_ep *ep, fi_addr_t to, const struct iovec *iov, size_t count,
                  void *context);
/* Posts a buffer that receives many messages (FI_MULTI_RECV); it completes with the
 * FI_MULTI_RECV flag when it is used up and must then be posted again. */
void pg_net_post_multi_recv(struct pg_net_ep *ep, void *buf, size_t len, void *context);

struct pg_net_event {
    void *context;
    void *buf;  /* received data (receives) */
    size_t len; /* received length (receives) */
    int is_recv;
    int buffer_done; /* a multi-receive buffer is used up: post it again */
};

/* Up to max completions without blocking; returns how many. */
int pg_net_poll(struct pg_net_ep *ep, struct pg_net_event *events, int max);
/* The same, but blocks on the completion queue's wait object (no CPU used) until a
 * completion arrives or timeout_ms passes; returns how many (0 on timeout). */
int pg_net_wait(struct pg_net_ep *ep, struct pg_net_event *events, int max, int timeout_ms);

#endif
