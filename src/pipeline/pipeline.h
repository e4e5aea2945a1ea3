/* pipeline: the client side of the network path. Every off-node operation of a PE is a
 * request to the data server of the target's node (src/dataserver), sent from this PE's own
 * endpoint; transfers move in chunks through a ring of send buffers under credits (client.c
 * tells how). This module also brings the network path up and down: endpoints, the address
 * exchange and each node's server. */
#ifndef PG_PIPELINE_H
#define PG_PIPELINE_H

#include "dataserver/dataserver.h"

/* Opens the endpoints, exchanges the servers' addresses (O(nnodes) per PE: a client's is
 * learnt by a server from its first request), starts the server on node-local rank 0.
 * Collective. */
int pg_pipe_init(void);
void pg_pipe_fini(void);
/* Reopens the endpoints, the server and the pipeline with the current pg_cfg (buffer count
 * and size, server spin): quiets everything, closes and reopens with a barrier on each side.
 * Collective over all PEs, with no other thread in the library; for pangea-tune, which
 * compares settings within one job. Returns 0. */
int pg_pipe_restart(void);
/* The two halves of pg_pipe_restart, for a checkpointer that saves the process in between:
 * suspend quiets everything and closes the endpoints and the server (an off-node request
 * before the resume is an error that names it); resume reopens them. Both collective, with no
 * other thread in the library; nothing to do on one node. */
void pg_pipe_suspend(void);
void pg_pipe_resume(void);
/* After pg_mem_heap_grow, collective over the world: the heap's new part is registered for the
 * network (by each node's server for its PEs, and by each PE for its own use where local
 * buffers must be registered), and its region published for direct RMA. Returns when every PE
 * can reach the new part of every other. */
void pg_pipe_heap_grown(void);

/* Requests. seg/offset locate the remote object (see pg_mem_locate) on pe's node.
 *
 * Order: every request of mine to one node (puts, gets, accumulates, AMOs, direct RMA) is
 * applied there in the order I issued it.
 *
 * Completion: puts, accumulates and non-fetching AMOs count in the completion record they are
 * issued with (a context's, or NULL for none) and in an overall record; pg_pipe_quiet waits for
 * one record or, with NULL, for all. Non-blocking gets count there too.
 * Transfers return when the local buffer may be reused (puts, accumulates) or holds the data
 * (gets). Shaped transfers take a pg_strided whose src side is local for puts and remote for
 * gets; levels 0 is a contiguous transfer of count[0] bytes. */
struct pg_pipe_completion {
    uint64_t acks_due;
    int counted; /* its operations count at their target (PG_DS_COUNTED) */
};
void pg_pipe_put(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, const void *src,
                 const struct pg_strided *shape);
/* A contiguous put that may wait in its node's batch of small puts (PANGEA_PUT_BATCH): sent
 * when the batch is full, before any other request to that node, and when this PE quiets or
 * waits (pg_wait_step). */
void pg_pipe_put_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, const void *src,
                     size_t len);
void pg_pipe_acc(struct pg_pipe_completion *cc, int pe, int seg, size_t offset,
                 enum pg_acc_type type, const void *scale, const void *src,
                 const struct pg_strided *shape);
/* Blocking gets and AMOs take no completion record: `counted` says whether they count at their
 * target. Counted transfers never go as direct RMA, which the target's server does not see. */
void pg_pipe_get(int counted, int pe, int seg, size_t offset, void *dest,
                 const struct pg_strided *shape);
/* A contiguous get that returns at once; the data is in dest once pg_pipe_quiet(cc) returns. */
void pg_pipe_get_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, void *dest,
                     size_t len);
/* Vectors: count pieces of `bytes` bytes; local[i] is my buffer, remote[i] the offset of the
 * piece in segment seg of pe. */
void pg_pipe_put_vector(struct pg_pipe_completion *cc, int pe, int seg, const uint64_t *remote,
                        void *const *local, size_t count, size_t bytes);
void pg_pipe_acc_vector(struct pg_pipe_completion *cc, int pe, int seg, const uint64_t *remote,
                        void *const *local, size_t count, size_t bytes, enum pg_acc_type type,
                        const void *scale);
void pg_pipe_get_vector(int counted, int pe, int seg, const uint64_t *remote, void *const *local,
                        size_t count, size_t bytes);
/* AMOs: pg_pipe_amo waits for the old value; pg_pipe_amo_nbi returns at once, counted in cc,
 * and the old value (width bytes) lands in fetch unless fetch is NULL. */
uint64_t pg_pipe_amo(int counted, int pe, int seg, size_t offset, int op, size_t width,
                     uint64_t value, uint64_t compare);
void pg_pipe_amo_nbi(struct pg_pipe_completion *cc, int pe, int seg, size_t offset, int op,
                     size_t width, uint64_t value, uint64_t compare, void *fetch);
void pg_pipe_quiet(struct pg_pipe_completion *cc);

/* A broadcast's message to the server of pe's node, which lands it on the team's members and
 * sends it on (dataserver.h, "Broadcasts by the servers"): len bytes from src, for dest at
 * seg/offset, in chunks that each carry f. Applied after my earlier requests there; returns
 * when src may be reused. Only while pg_pipe_forwarding(): the endpoints are open, and the
 * servers' messages to each other are never resent, so not with retransmission on. */
void pg_pipe_forward(int pe, int seg, size_t offset, const void *src, size_t len,
                     const struct pg_ds_forward *f);
/* Tells the server of pe's node that my node has arrived at the barrier f describes
 * (dataserver.h, "Barriers by the servers"); applied after my earlier requests there. Only
 * while pg_pipe_forwarding(). */
void pg_pipe_arrived(int pe, const struct pg_ds_forward *f);
int pg_pipe_forwarding(void);

/* Direct signals: `value` added to the 8-byte word at seg/offset of pe, a PE of another node,
 * by a message to pe's own endpoint instead of a request to its node's server, so that a PE
 * waiting for it (pg_waiter.net) is the one thread the message wakes. Applied once, with no
 * reply. With `ordered` it leaves once my requests to pe's node are acknowledged, and is
 * applied after them; without, a request of mine sent before may be applied after it. My
 * direct signals to one PE are applied in the order I send them. pe's endpoint address is
 * fetched from pe's internal area on the first signal to it. Only while
 * pg_pipe_direct_signals(): with retransmission on (docs/reliability.md) signals go as
 * requests, which are kept and sent again. */
int pg_pipe_direct_signals(void);
void pg_pipe_signal(int pe, int seg, size_t offset, uint64_t value, int ordered);
/* What this PE has in flight, for the hang watch: operations awaiting their acknowledgement
 * and requests sent and not done (blocking gets and AMOs, grants asked for and given back
 * too); and of the requests that went again for want of an answer, the one sent most often. */
struct pg_pipe_in_flight {
    uint64_t requests;  /* 0: nothing of this PE's own in flight */
    int resent_node;    /* that request's node, -1: none went again */
    unsigned sends;     /* its transmissions */
    uint64_t silent_ns; /* since anything came from its node's server (or the first contact) */
};
/* 0 when it cannot tell now: another thread is in the client. */
int pg_pipe_in_flight(struct pg_pipe_in_flight *f);

/* What the network did to this PE's messages with retransmission on (PANGEA_CHECKSUM or
 * PANGEA_TEST_DROP_ACKS): replies refused for a checksum that does not match, requests sent
 * again for want of a reply in time. */
struct pg_pipe_faults {
    uint64_t corrupt_replies, retransmissions;
};
struct pg_pipe_faults pg_pipe_faults(void);

/* Sends raw bytes to a node's server (fault-injection tests). A rejected message whose seq
 * has PG_DS_PROBE set is counted, not fatal. */
void pg_pipe_send_raw(int node, const void *bytes, size_t len);
unsigned long pg_pipe_probes_rejected(void);
/* The endpoint address of a node's server, as startup exchanged it, and its bytes in *bytes
 * (the job-key test aims a process outside the job at it). */
const void *pg_pipe_server_name(int node, size_t *bytes);

/* This PE's endpoint (pangea-tune measures memory registration on it). */
struct pg_net_ep *pg_pipe_ep(void);

/* The client's memory (pangea-info --footprint, and the test that checks the model): what it
 * allocates, by part, and the counts that size it. pg_pipe_memory reads this PE's;
 * pg_pipe_model computes the same from counts; pg_pipe_worst gives the counts at their largest
 * in a job of npes PEs, pes_per_node on each node (a PE sending to every node). */
struct pg_pipe_counts {
    size_t npes, nnodes;
    size_t contacted;   /* nodes with records of requests: a grant held or requests in flight */
    size_t batch_bytes; /* buffers of batched puts */
    size_t region_pes;  /* PEs whose direct RMA regions are known */
    size_t grown_pes;   /* of those, PEs whose grown heap parts' regions are known */
    size_t name_bytes;  /* of each server's name (the job's longest; worst: PG_NET_ADDR_MAX) */
    size_t signalled;   /* PEs whose endpoint addresses are known, for direct signals (worst: a
                         * node leader's partners in the world's syncs) */
};
struct pg_pipe_bytes {
    size_t send_region, replies, pending, links, sent, batches, regions;
    size_t peers; /* the endpoint addresses of the PEs signalled, for direct signals */
    size_t total;
};
struct pg_pipe_counts pg_pipe_memory(struct pg_pipe_bytes *bytes);
struct pg_pipe_bytes pg_pipe_model(const struct pg_pipe_counts *counts);
struct pg_pipe_counts pg_pipe_worst(size_t npes, size_t pes_per_node);

#endif
