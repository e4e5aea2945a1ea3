/* transport: the network path between nodes — libfabric reliable-datagram (FI_EP_RDM)
 * endpoints with their completion queues and address vectors, or (PANGEA_TRANSPORT=mpi) MPI
 * messages on a private communicator that behave the same behind these functions
 * (docs/transport.md). The on-node path needs no transport: it is the mapped memory of
 * src/memory. */
#ifndef PG_TRANSPORT_H
#define PG_TRANSPORT_H

#include <rdma/fabric.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/uio.h>

/* Opens the transport PANGEA_TRANSPORT names: over libfabric, the fabric and domain of the
 * chosen provider (FI_PROVIDER, or the first provider found that reaches other nodes); over
 * MPI, a duplicate of the world communicator (collective). max_message is the largest message
 * the caller sends (0: unknown). 0, or -1 with a message printed. */
int pg_net_init(size_t max_message);
void pg_net_fini(void);
/* Describes the provider and the capabilities found (pangea-info, SHMEM_INFO). */
void pg_net_describe(FILE *out);
/* The name of the provider opened (e.g. "tcp;ofi_rxm"; "mpi" over MPI). */
const char *pg_net_provider(void);
/* The name of the domain opened (a NIC or interface: "mlx5_0", "eth0"); NULL before init. */
const char *pg_net_domain(void);
/* Largest message the transport carries in one send (the request protocol chunks above). */
size_t pg_net_max_msg(void);

struct pg_net_ep;

/* An RDM endpoint with its own domain, completion queue (with a wait object) and address vector;
 * max_message is the largest message its multi-receive buffers must hold whole. */
struct pg_net_ep *pg_net_ep_open(const char *role, size_t max_message);
void pg_net_ep_close(struct pg_net_ep *ep);
/* The endpoint's address, to exchange at startup. Returns its length (at most
 * PG_NET_ADDR_MAX) or 0 on error. */
#define PG_NET_ADDR_MAX 256
size_t pg_net_ep_name(struct pg_net_ep *ep, void *addr);
fi_addr_t pg_net_av_insert(struct pg_net_ep *ep, const void *addr);

/* Sends; retries while the provider is busy (progressing the endpoint meanwhile). The
 * buffers must stay untouched until the completion with this context arrives, except for
 * sends of at most the inject size with context NULL, which complete at once. */
void pg_net_sendv(struct pg_net_ep *ep, fi_addr_t to, const struct iovec *iov, void **desc,
                  size_t count, void *context);
/* A buffer that receives many messages (FI_MULTI_RECV), one after another; its first member
 * is the context of their completions. It is reported used up (buffer_done) once the provider
 * has given it back *and* every message placed in it has completed: libfabric's tcp path
 * before 1.20 flags the message placed last, while one placed earlier by another connection
 * may still be arriving (ofiwg/libfabric#9420); posting the buffer again then would let new
 * messages overwrite it. */
struct pg_net_multi_recv {
    struct fi_context ctx;
    char *buf;
    size_t len;
    size_t landed;  /* bytes of the messages completed in it */
    size_t reached; /* where the furthest of them ends */
    int released;   /* the provider gave it back */
    int rail;       /* where it is posted */
};
/* Posts (or posts again, once used up) buf[0, len) through m. */
void pg_net_post_multi_recv(struct pg_net_ep *ep, struct pg_net_multi_recv *m, void *buf,
                            size_t len, void *desc);

/* Whether m, just reported used up, was its rail's last receive buffer: then it must be
 * posted again rather than dropped (a rail without one takes no messages). 0 with one rail. */
int pg_net_multi_recv_needed(struct pg_net_ep *ep, const struct pg_net_multi_recv *m);

/* Memory registration. The modes of the provider are probed, never assumed: where it needs
 * local buffers registered (FI_MR_LOCAL, or PANGEA_REGISTER_LOCAL to exercise that path),
 * every send, receive and RMA passes the descriptor of its buffer (desc arguments; NULL
 * otherwise); remote regions are named by virtual address or by offset (FI_MR_VIRT_ADDR) and
 * their keys are the provider's or ours (FI_MR_PROV_KEY); registrations are bound to their
 * endpoint where the provider wants that (FI_MR_ENDPOINT). */
int pg_net_has_rma(void);  /* the provider offers RMA reads and writes */
int pg_net_local_mr(void); /* local buffers must be registered */
struct pg_net_mr;
/* Registers [buf, buf+len) for access (FI_SEND, FI_RECV, FI_READ, FI_WRITE, FI_REMOTE_READ,
 * FI_REMOTE_WRITE) through ep. Its key (pg_net_mr_key) is the provider's or a unique one. */
struct pg_net_mr *pg_net_mr_reg(struct pg_net_ep *ep, const void *buf, size_t len, uint64_t access);
void *pg_net_mr_desc(const struct pg_net_mr *mr); /* NULL for a NULL mr */
uint64_t pg_net_mr_key(const struct pg_net_mr *mr);
/* The address by which a remote RMA names the first byte of the region (add offsets). */
uint64_t pg_net_mr_remote_base(const struct pg_net_mr *mr);
void pg_net_mr_close(struct pg_net_mr *mr);
/* Writes buf to (or reads it from) [addr, addr+len) of the region with key at peer. A write's
 * completion means the data is in the target's memory. */
void pg_net_rma(struct pg_net_ep *ep, int write, fi_addr_t peer, void *buf, size_t len, void *desc,
                uint64_t addr, uint64_t key, void *context);

/* The most this process's senders ever held in flight over the mpi transport, each sender
 * (endpoint) counted alone, as PANGEA_MPI_CREDITS caps them (docs/transport.md): messages to
 * one peer, messages to all peers, and bytes while two or more messages were in flight (one
 * message alone may exceed the byte cap). All 0 over ofi, which keeps no such credits. */
struct pg_net_credit_peak {
    long long to_peer, messages, bytes;
};
struct pg_net_credit_peak pg_net_credit_peak(void);

struct pg_net_event {
    void *context;
    void *buf;  /* received data (receives) */
    size_t len; /* received length (receives) */
    int is_recv;
    int is_rma;      /* an RMA read or write completed */
    int buffer_done; /* its multi-receive buffer is used up: post it again */
    int rail;        /* the rail it came or went by */
};

/* Rails (docs/reliability.md, "Rails"): over libfabric, a process opens the interfaces (or
 * domains) PANGEA_RAILS names, by default every one of its provider that reaches other nodes,
 * and every endpoint has one libfabric endpoint on each. A peer's messages take one rail
 * (peers are spread over the rails); a rail whose link is down, whose sends are stuck or that
 * fails is taken out, its sends in flight given back as done and its receive buffers as used
 * up, and the traffic goes on over the others; it is tried again later, reopened at its old
 * address once its link is up, and used again once a peer has answered a probe over it.
 * Messages of PANGEA_RAIL_STRIPE bytes or more (a large transfer's chunks) take the rails in
 * use in turn; the others take their peer's rail. */
/* The rails this process uses (1 over MPI). */
int pg_net_rails(void);
/* After the servers' names are exchanged (names[count], mine at self): a rail that reaches no
 * other node is closed (named in PANGEA_RAILS, it stops init), and a node no rail reaches
 * stops init. Collective only in that every process calls it. */
void pg_net_check_reach(const char (*names)[PG_NET_ADDR_MAX], int count, int self);
/* Whether some node of the job has several rails: then requests are kept until done and go
 * again when unanswered (as with checksums), so that a rail can fail. Set by the caller once
 * it knows the job's largest rail count. */
void pg_net_set_failover(int on);
int pg_net_failover(void);
/* A request to peer sent over rail (its send's event's; -1: not to be blamed on it, e.g. one
 * waiting behind an older one) went unanswered within its timeout and is sent again next: that
 * send takes the peer's rail whatever its size, and the peer's messages leave the rail;
 * timeouts that repeat on that rail while another answers take it out. */
void pg_net_reroute(struct pg_net_ep *ep, fi_addr_t peer, int rail);
/* A request from peer came by rail: the replies to it go back the same way. */
void pg_net_route(struct pg_net_ep *ep, fi_addr_t peer, int rail);

/* What one rail of an endpoint carried, and its health (SHMEM_INFO's report at finalize). */
struct pg_net_rail_traffic {
    unsigned long long messages, bytes; /* sent (probes not counted) */
    unsigned long long striped;         /* of those, large ones that took the rails in turn */
    unsigned long long outs;            /* times taken out */
    unsigned long long probes;          /* probes sent after it was reopened */
    unsigned long long unanswered;      /* rounds of probes that got no answer in time */
    unsigned long long reuses;          /* times back in use, a probe answered */
};
/* Rail r of ep: its name (NULL past the last rail, or with one rail) and its traffic. */
const char *pg_net_rail_traffic(struct pg_net_ep *ep, int r, struct pg_net_rail_traffic *traffic);

/* Up to max completions without blocking; returns how many. */
int pg_net_poll(struct pg_net_ep *ep, struct pg_net_event *events, int max);
/* The same, but blocks on the completion queue's wait object (no CPU used) until a
 * completion arrives or timeout_ms passes; returns how many (0 on timeout). */
int pg_net_wait(struct pg_net_ep *ep, struct pg_net_event *events, int max, int timeout_ms);

/* Multicast (docs/multicast.md): a channel is a datagram endpoint
 * (FI_EP_DGRAM) of the provider fi_getinfo offers with FI_MULTICAST (udp over IP, verbs UD on
 * InfiniBand), bound to port on every address and joined to the IPv4 group. Datagrams are
 * unreliable: lost, duplicated or reordered; the caller makes them reliable. Independent of
 * PANGEA_TRANSPORT. */
struct pg_mcast;
/* Whether a provider offers multicast datagrams here; its name in provider. */
int pg_mcast_offered(char *provider, size_t len);
/* Opens a channel and joins group (host order); its datagrams are at most datagram bytes (0:
 * the provider's max_msg_size). NULL with the reason, naming the provider, in err. */
struct pg_mcast *pg_mcast_open(uint32_t group, uint16_t port, size_t datagram, char *err,
                               size_t errlen);
void pg_mcast_close(struct pg_mcast *m);
/* The largest datagram: as opened (the provider's max_msg_size, one link MTU over udp, by
 * default). */
size_t pg_mcast_max_msg(const struct pg_mcast *m);
/* The kernel's receive buffer of the channel, in bytes (raised as far as net.core.rmem_max
 * lets it), 0 when the provider keeps none that can be found. */
size_t pg_mcast_recv_buffer(const struct pg_mcast *m);
const char *pg_mcast_provider(const struct pg_mcast *m);
/* Sends one datagram (the iov's bytes together, at most pg_mcast_max_msg) to the group
 * (the sender may receive its own datagrams too: the udp socket's loop is turned off, other
 * providers may deliver them); returns when its buffers may be reused. 0, or a negative libfabric
 * error. */
int pg_mcast_send(struct pg_mcast *m, const struct iovec *iov, size_t count);
/* Point to point on the same channel: the host at addr (IPv4, host order) as an address of
 * the channel (to the channel's port there, where that host's member of the group listens),
 * into *peer; 0, or a negative libfabric error. Then one datagram to it, as pg_mcast_send. */
int pg_mcast_peer(struct pg_mcast *m, uint32_t addr, uint64_t *peer);
int pg_mcast_send_to(struct pg_mcast *m, uint64_t peer, const struct iovec *iov, size_t count);
/* The address (IPv4, host order) this host sends to group from: the one the group's other
 * members can reach it at point to point. 0 where no route leads to the group. */
uint32_t pg_mcast_source_addr(uint32_t group);
/* Receives the next datagram into buf (at most len bytes), sleeping up to timeout_ms for
 * one; its length, 0 when none came. */
size_t pg_mcast_recv(struct pg_mcast *m, void *buf, size_t len, int timeout_ms);

#endif
