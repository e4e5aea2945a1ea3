/* dataserver: the per-node server thread and the request protocol that reaches it.
 *
 * One thread per node, in the process of node-local rank 0, owns the node's incoming
 * network endpoint and serves requests on the memory of every PE of its node (it maps all
 * their segments): puts, gets and atomics. It blocks when idle and gives asynchronous
 * progress: a request completes while the target PE computes. The client half, used by the
 * PEs, sends requests to the server of the target's node and collects the replies. */
#ifndef PG_DATASERVER_H
#define PG_DATASERVER_H

#include "transport/transport.h"

#include <rdma/fi_eq.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* tests/netns/corrupt.bpf.c finds headers by this and the last message type: keep it in step. */
#define PG_DS_PROTOCOL_VERSION 10

/* The largest chunk (PANGEA_PIPELINE_BUFFER_SIZE) pangea-tune tries; the transport is set up
 * so that messages of up to this much data go eagerly (see pg_net_init). */
#define PG_DS_LARGEST_TUNED_CHUNK ((size_t)1 << 20)

/* Atomic operations, executed by CPU atomics on mapped memory: by the initiator for an
 * on-node target, by the target node's server otherwise — the same kernel either way, so
 * on-node and off-node atomics on one object are atomic with respect to each other. */
enum pg_amo_op {
    PG_AMO_FETCH,
    PG_AMO_SET,
    PG_AMO_SWAP,
    PG_AMO_CSWAP,
    PG_AMO_ADD, /* fetch-and-add; inc is add of 1 */
    PG_AMO_AND,
    PG_AMO_OR,
    PG_AMO_XOR,
};
#define PG_AMO_LAST PG_AMO_XOR

/* Applies op to the width-byte (4 or 8) object at p; returns the old value, zero-extended. */
uint64_t pg_amo_apply(void *p, enum pg_amo_op op, size_t width, uint64_t value, uint64_t compare);

/* Accumulate element types (ARMCI's ACC_INT, ACC_LNG, ACC_FLT, ACC_DBL, ACC_CPL, ACC_DCP). */
enum pg_acc_type {
    PG_ACC_INT,
    PG_ACC_LONG,
    PG_ACC_FLOAT,
    PG_ACC_DOUBLE,
    PG_ACC_COMPLEX,
    PG_ACC_DCOMPLEX,
};
#define PG_ACC_LAST PG_ACC_DCOMPLEX
/* Bytes of one element; a scale value is one element, at most 16 bytes. */
size_t pg_acc_type_size(enum pg_acc_type type);
#define PG_ACC_MAX_ELEMENT 16

/* dst[i] += scale * src[i] for bytes / element-size elements (bytes a multiple of it; any
 * alignment). Not atomic by itself: callers hold the target's accumulate lock. */
void pg_acc_apply(enum pg_acc_type type, const void *scale, void *dst, const void *src,
                  size_t bytes);
/* Every PE has one accumulate lock, in its internal symmetric area, taken by whoever applies
 * an accumulate to that PE's memory: an on-node initiator or the node's data server. Whoever
 * finds it free takes it; a waiter that keeps missing queues, and then nobody overtakes it.
 * pe must be on my node. Set up by pg_acc_locks_init (collective, before any accumulate). */
void pg_acc_locks_init(void);
void pg_acc_lock(int pe);
void pg_acc_unlock(int pe);

/* shmemx_pcntr's completed_target: every PE has a count, in its internal symmetric area, of the
 * operations of counting contexts (PANGEA_PCNTR=1) that other PEs completed on its memory. An
 * on-node initiator adds to its target's count itself; the node's server adds for the requests
 * marked PG_DS_COUNTED that it applies. Set up by pg_target_counts_init (collective, before any
 * counted operation). pg_target_count_add: pe must be on my node. */
void pg_target_counts_init(void);
void pg_target_count_add(int pe, uint64_t operations);
uint64_t pg_target_count_mine(void);

/* A strided shape: count[0] contiguous bytes, repeated count[1..levels] times with the byte
 * strides src_stride[0..levels-1] and dst_stride[0..levels-1] (ARMCI's convention). A
 * contiguous transfer is the shape of 0 levels. */
#define PG_MAX_STRIDE 8
struct pg_strided {
    int levels;
    size_t count[PG_MAX_STRIDE + 1];
    ptrdiff_t src_stride[PG_MAX_STRIDE];
    ptrdiff_t dst_stride[PG_MAX_STRIDE];
};

enum pg_ds_type {
    PG_DS_PUT = 1,   /* data follows the layout descriptor */
    PG_DS_GET,       /* the server streams the data back in GET_REPLY messages */
    PG_DS_AMO,       /* op, width, operand, compare */
    PG_DS_ACK,       /* reply to puts, accumulates and non-fetching AMOs: for an ordered one,
                        every ordered request of the source to this node up to number `order`
                        that has no reply of its own is done, `operand` of them since the last
                        ACK */
    PG_DS_GET_REPLY, /* part of a get's data: `position` and `length` say which part */
    PG_DS_AMO_REPLY, /* reply to a fetching AMO: result in operand */
    PG_DS_NACK,      /* the request was rejected; status says why */
    PG_DS_STOP,      /* from the hosting PE only: the server thread ends */
    PG_DS_ACC,       /* accumulate: op = enum pg_acc_type, scale in operand/compare */
    /* Receive space on demand (the credit protocol, see "Credits" below): */
    PG_DS_HELLO,   /* a source's first request to a node, and its later asks for a grant: its
                      endpoint name follows the header (length bytes); op 1 asks for a grant */
    PG_DS_GRANT,   /* server to source: it may hold `operand` bytes of the pool, grant number
                      `compare` */
    PG_DS_RECLAIM, /* server to source: give grant number `compare` back */
    PG_DS_RELEASE, /* source to server, ordered: grant number `compare` is given back, after
                      every earlier request */
    PG_DS_CLOSE,   /* source to server, ordered, its last request before the endpoints close
                      (see "Closing" below): its grant, held or asked for, is given back */
    PG_DS_SIGNAL,  /* PE to PE, never to a server: `operand` added to the 8-byte word at
                      segment/offset of the receiving PE (`target`), by its own thread when it
                      reads its endpoint (pipeline.h, pg_pipe_signal) */
    PG_DS_FORWARD, /* a broadcast's chunk, put and forwarded (below, "Broadcasts by the
                      servers"): a struct pg_ds_forward, then the data */
    PG_DS_ARRIVED, /* a team's node has arrived at a barrier (below, "Barriers by the
                      servers"): a struct pg_ds_forward */
};

/* How the data of a put, get or accumulate lies in the target's segment. The data of one
 * message is bytes [position, position + length) of the transfer's packed stream: the pieces
 * in layout order, concatenated. */
enum pg_ds_layout {
    PG_DS_CONTIG,  /* at offset + position; no descriptor */
    PG_DS_STRIDED, /* descriptor: u64 levels, u64 count[levels+1], i64 stride[levels], from
                      offset; strides non-negative */
    PG_DS_VECTOR,  /* descriptor: u64 pieces, u64 bytes, u64 offset[pieces] (offset unused);
                      a message carries whole pieces (position 0) */
    PG_DS_RECORDS, /* a put of small puts, each to its own PE of the node, segment and offset:
                      the data is records (struct pg_ds_record, then its bytes padded to 8),
                      applied in order; no descriptor, position 0, target the first record's,
                      length the records' bytes */
};

/* One put of a PG_DS_RECORDS message. */
struct pg_ds_record {
    uint64_t offset;
    uint32_t target;
    uint16_t length; /* data bytes, at least 1 */
    uint8_t segment;
    uint8_t unused;
};
/* Bytes a record of `len` data bytes takes in a message. */
static inline size_t pg_ds_record_bytes(size_t len)
{
    return sizeof(struct pg_ds_record) + ((len + 7) & ~(size_t)7);
}

/* Every message starts with this header (fixed layout; little-endian hosts). */
struct pg_ds_header {
    uint8_t version;
    uint8_t type;
    uint8_t segment; /* enum pg_seg_id */
    uint8_t op;      /* enum pg_amo_op, or enum pg_acc_type for an accumulate */
    uint8_t width;   /* AMO operand bytes: 4 or 8 */
    uint8_t fetch;   /* AMO: reply with the old value */
    uint8_t layout;  /* enum pg_ds_layout */
    uint8_t flags;   /* PG_DS_ORDERED, PG_DS_MORE, PG_DS_COUNTED */
    uint16_t status; /* NACK: enum pg_ds_status */
    uint16_t order;  /* an ordered request's number in its source's stream to this node */
    uint32_t source; /* requesting PE */
    uint32_t target; /* PE whose memory is accessed */
    uint32_t credit; /* bytes of the server's receive space the request holds (client's) */
    uint32_t crc;    /* PANGEA_CHECKSUM: see pg_ds_seal; 0 otherwise */
    uint8_t attempt; /* the request's transmission (0: first), echoed in the reply */
    uint8_t unused[3];
    uint64_t offset;   /* in the target's segment */
    uint64_t length;   /* data bytes: of this message (put, acc, reply) or requested (get) */
    uint64_t position; /* in the packed stream (see enum pg_ds_layout) */
    uint64_t seq;      /* the client's request number, echoed in the reply */
    uint64_t cookie;   /* the client's completion record, echoed in the reply */
    uint64_t key;      /* the job's secret (pg_world.job_key): a message without it is refused */
    union {
        struct {
            uint64_t operand;
            uint64_t compare;
        };
        unsigned char scale[PG_ACC_MAX_ELEMENT]; /* accumulate */
    };
};

/* Messages go on the wire in whole multiples of 8 bytes (zero padding after the data), so
 * that each lands 8-aligned after the one before it in a multi-receive buffer and its header
 * and descriptors are read in place. A message that lands misaligned anyway (after one of
 * another length: noise, a process outside the job) is copied to aligned memory first. */
#define PG_DS_WIRE_ALIGN 8
static inline size_t pg_ds_wire_bytes(size_t len)
{
    return (len + PG_DS_WIRE_ALIGN - 1) & ~(size_t)(PG_DS_WIRE_ALIGN - 1);
}
static inline int pg_ds_misaligned(const void *message)
{
    return ((uintptr_t)message & (PG_DS_WIRE_ALIGN - 1)) != 0;
}

/* An aligned copy of a message that landed misaligned: the message itself when it is aligned,
 * else a copy in b's buffer (grown to len, valid until the next call with b). */
struct pg_ds_bounce {
    void *buf;
    size_t size;
};
const struct pg_ds_header *pg_ds_aligned(struct pg_ds_bounce *b, const void *message, size_t len);
void pg_ds_bounce_free(struct pg_ds_bounce *b);

/* The key of a message at least a header long, read where it lies (any alignment). */
static inline uint64_t pg_ds_message_key(const void *message)
{
    uint64_t key;
    memcpy(&key, (const char *)message + offsetof(struct pg_ds_header, key), sizeof key);
    return key;
}

/* End-to-end checksums (PANGEA_CHECKSUM, docs/reliability.md). A message's crc is the CRC32C of
 * its bytes after the header (as on the wire, padding included) continued over its header with
 * crc 0: the data part can be summed while it is packed (pg_ds_sum_payload, then
 * pg_ds_seal_summed), the header only once its last field is set. pg_ds_intact checks a
 * received message of len bytes (at least a header). */
uint32_t pg_ds_sum_payload(uint32_t crc, const void *bytes, size_t len);
void pg_ds_seal_summed(struct pg_ds_header *h, uint32_t payload_crc);
void pg_ds_seal(struct pg_ds_header *h, size_t len);
int pg_ds_intact(const struct pg_ds_header *h, size_t len);

/* Retransmission (on with PANGEA_CHECKSUM, or with the test hook PANGEA_TEST_DROP_ACKS): a
 * source keeps each request until it is done and sends it again when it is not done in time.
 * A source has at most PG_DS_WINDOW ordered requests to a node that are not done (order
 * numbers; the next waits for the slot of the one PG_DS_WINDOW before it): so a server that
 * sees number n knows n - PG_DS_WINDOW is done, and keeps the replies of fetching AMOs in
 * PG_DS_WINDOW slots per source, for the retransmissions that ask for them again. */
#define PG_DS_WINDOW 128
int pg_ds_reliable(void);

/* A request with this flag is applied after every earlier request of its source to this node
 * (by `order`, modulo 2^16), whatever order the network delivers them in: so fence needs no
 * round trip, and a signal never overtakes its data. Requests without it (the fault tests'
 * probes, the server's stop) are served on arrival. */
#define PG_DS_ORDERED 1
/* Set on a request its source had to wait to send for want of grant: the server enlarges the
 * grant if the pool has room. */
#define PG_DS_MORE 2
/* Set on a request that completes operations of a counting context at its target
 * (pg_target_count_add): a put's or accumulate's last chunk, a get's last window, an AMO — one
 * operation each —, and every message of a vector (one per piece) or of records (one per record).
 */
#define PG_DS_COUNTED 4

enum pg_ds_status {
    PG_DS_OK,
    PG_DS_BAD_VERSION,
    PG_DS_BAD_TYPE,
    PG_DS_BAD_SOURCE,
    PG_DS_BAD_TARGET,
    PG_DS_BAD_SEGMENT,
    PG_DS_BAD_RANGE,
    PG_DS_BAD_LENGTH,
    PG_DS_BAD_AMO,
    PG_DS_BAD_ACC,
    PG_DS_BAD_LAYOUT,
    PG_DS_BAD_ORDER,
};
const char *pg_ds_status_text(int status);

/* A valid request's layout, decoded: a strided region of `levels` levels from `offset`
 * (levels 0: contiguous, count[0] = position + length; an AMO: its width), `pieces`
 * vector pieces of piece_bytes each at offsets[] (in the request's descriptor, so valid as
 * long as the request is), or `pieces` records, whose targets, segments and ranges the server
 * checks one by one. span: the bytes from offset it may touch (vectors: from 0, the largest
 * offset + piece_bytes; records: 0). */
struct pg_ds_shape {
    int levels;
    size_t count[PG_MAX_STRIDE + 1];
    ptrdiff_t stride[PG_MAX_STRIDE];
    size_t pieces, piece_bytes;
    const uint64_t *offsets;
    size_t descriptor_bytes; /* between the header and the data */
    uint64_t span;
};
/* Checks a request as received (len bytes in all): header, layout descriptor, lengths, and
 * decodes its layout into *shape (when not NULL). Returns PG_DS_OK or why it is rejected. The
 * server then checks the span against the segment. Used on every message; exposed for the
 * tests. */
int pg_ds_validate(const struct pg_ds_header *h, size_t len, int npes, struct pg_ds_shape *shape);

/* Walks bytes [position, position + len) of the packed stream of a shaped region (base,
 * levels, count[0..levels], stride[0..levels-1]) and calls piece(region bytes, packed bytes,
 * n, arg) for each contiguous run, the packed side advancing through `packed`. */
typedef void (*pg_ds_piece_fn)(char *region, char *packed, size_t n, void *arg);
void pg_ds_walk(char *base, int levels, const size_t *count, const ptrdiff_t *stride,
                size_t position, size_t len, char *packed, pg_ds_piece_fn piece, void *arg);

/* Messages: a header, the largest layout descriptor (8 stride levels) and a chunk of data at
 * most. The chunk is PANGEA_PIPELINE_BUFFER_SIZE, in whole accumulate elements. A message
 * takes PG_DS_MESSAGE_SLACK bytes of receive space beyond its own (provider alignment in a
 * multi-receive buffer). */
size_t pg_ds_message_bytes(size_t chunk);
size_t pg_ds_max_message(void);
size_t pg_ds_chunk_bytes(void);
#define PG_DS_MESSAGE_SLACK 64
static inline size_t pg_ds_receive_bytes(size_t message)
{
    return message + PG_DS_MESSAGE_SLACK;
}
/* Piece functions for pg_ds_walk: copy a region's run into the packed stream, or back. */
void pg_ds_pack_piece(char *region, char *packed, size_t n, void *arg);
void pg_ds_unpack_piece(char *region, char *packed, size_t n, void *arg);

/* Credits: receive space on demand. A node's server receives into a pool of multi-receive
 * segments of pg_ds_segment_bytes() each: two from the start, one more whenever the grants
 * need it, up to PANGEA_SERVER_POOL bytes in all, and one fewer when a used-up segment is not
 * needed any more. A source sends a request only against receive space it holds there:
 *  - without a grant, requests of at most PG_DS_SMALL_MESSAGE bytes, PG_DS_SMALL_IN_FLIGHT at a
 *    time per node (a get, an AMO, a small put; the HELLO of its first contact, which tells
 *    the server its endpoint), out of pg_ds_small_reserve() that the server keeps for them;
 *  - with a grant, whatever fits in it. A source asks for one (HELLO, op 1) when a request is
 *    larger or its small ones have to wait. A first grant is pg_ds_min_grant() (one maximal
 *    message and a RELEASE); a request marked PG_DS_MORE doubles it, up to pg_ds_full_grant()
 *    (the source's whole send region), while the pool can grow. When a grant does not fit,
 *    the server asks the holder it served least recently for its grant back (RECLAIM); the
 *    source gives it back (RELEASE, after its requests in flight) at its next call into the
 *    library, and a source holding PG_DS_GRANTS_HELD grants gives one back before it asks for
 *    another. A holder may not call into the library for long (computing, or blocked in an
 *    MPI call that waits for the asker): an asker kept waiting 50 ms is lent a grant from
 *    segments beyond the pool, a quarter of it at most, which go again as grants come back.
 * No segment is ever overrun: a segment is used up only when less than one maximal message
 * fits, and the server serves requests in arrival order. So when all k segments in use are
 * used up, the requests in the k-1 newest — more than pg_ds_pool_capacity(k) bytes — all
 * await service and hold receive space; but grants and the small reserve together never
 * exceed pg_ds_pool_capacity(k). (More than pg_ds_small_reserve() of small requests at once,
 * from hundreds of sources, would wait in the provider, which holds what it cannot deliver:
 * FI_RM_ENABLED.) */
#define PG_DS_SMALL_MESSAGE 512
#define PG_DS_SMALL_IN_FLIGHT 4
#define PG_DS_GRANTS_HELD 64
size_t pg_ds_segment_bytes(void);
size_t pg_ds_small_reserve(void);
size_t pg_ds_pool_capacity(size_t segments);
size_t pg_ds_pool_max_segments(void);
size_t pg_ds_min_grant(void);
size_t pg_ds_full_grant(void);
/* Stops shmem_init with a message naming PANGEA_SERVER_POOL when it is less than two segments
 * (the segment size leaves room for a grant beside the small reserve in two). */
void pg_ds_check_pool(void);

/* A multi-receive buffer of `size` bytes: many messages land in it until it is used up and
 * reposted. Shared by the server and the pipeline. */
struct pg_ds_recv_buffer {
    struct pg_net_multi_recv posted; /* first: the completion's context points here */
    char *data;
    size_t size;
    struct pg_net_mr *mr; /* when local buffers must be registered */
};
void pg_ds_recv_open(struct pg_net_ep *ep, struct pg_ds_recv_buffer *b, size_t size);
void pg_ds_recv_repost(struct pg_net_ep *ep, void *context);
void pg_ds_recv_close(struct pg_ds_recv_buffer *b);

/* How initiators name a part of a PE's segment (pg_mem_part) in a direct RMA: registered by
 * the server of its node on the server's endpoint, so the server thread's progress completes
 * it while the PE computes. */
struct pg_ds_region {
    uint64_t registered; /* 0: no direct RMA to this part */
    uint64_t key;
    uint64_t base; /* the remote address of the part's first byte */
};

/* The server, on node-local rank 0 (driven by the pipeline's bring-up). Open: its endpoint,
 * its first two pool segments and the registrations of its node's segments. Start: the
 * thread; a source's endpoint is learnt from its HELLO. Stop: once the hosting PE has sent it
 * a PG_DS_STOP request, joins the thread and releases everything. */
void pg_ds_server_open(void);
struct pg_ds_region pg_ds_server_region(int pe, int id);
/* The heap's newest part (pg_mem_newest_part) of every PE of the node is registered, as the
 * others were at open: by the hosting PE, while the heap grows. */
void pg_ds_server_heap_grown(void);
struct pg_net_ep *pg_ds_server_ep(void);
void pg_ds_server_start(void);
void pg_ds_server_stop(void);

/* The server's memory (pangea-info --footprint, and the test that checks the model): what it
 * allocates, by part, and the counts that size it. pg_ds_server_memory reads the running
 * server's (from its thread, or once it stopped: the counts of its last moment);
 * pg_ds_server_model computes the same from counts. */
struct pg_ds_server_counts {
    size_t npes, local_size;
    size_t sources;                        /* records: PEs that have sent to this server */
    size_t segments;                       /* pool segments */
    size_t arrivals;                       /* capacity of the queue of arrivals */
    size_t pack_buffers;                   /* 0 until the first strided or vector get */
    size_t forward_buffers, forward_nodes; /* 0 until the first broadcast's chunk forwarded */
    size_t registrations; /* the node's segments registered with the provider (0 or all) */
};
struct pg_ds_server_bytes {
    size_t pool, replies, tables, sources, arrivals, total;
};
struct pg_ds_server_counts pg_ds_server_memory(struct pg_ds_server_bytes *bytes);
struct pg_ds_server_bytes pg_ds_server_model(const struct pg_ds_server_counts *counts);
/* What the server did with its pool: grants given (first ones), enlarged, asked back, and
 * lent beyond the pool to a PE kept waiting while holders did not answer. */
struct pg_ds_server_stats {
    uint64_t grants, enlargements, reclaims, lent;
    uint64_t foreign;    /* messages refused for want of the job's key (or of a whole header) */
    uint64_t corrupt;    /* PANGEA_CHECKSUM: requests dropped for a checksum that does not match */
    uint64_t duplicates; /* requests served before and sent again: answered, not applied */
};
struct pg_ds_server_stats pg_ds_server_stats(void);
/* The counts at their largest for a job of npes PEs, local_size on this node: every PE of
 * another node a source, the pool as large as their full grants need (at most
 * PANGEA_SERVER_POOL), the arrivals queue at its start. */
struct pg_ds_server_counts pg_ds_server_worst(size_t npes, size_t local_size);

/* Closing: before the barrier after which the endpoints close (finalize, a checkpoint's
 * suspend), each PE with retransmission on sends a CLOSE to every server it has sent to and
 * waits for their acknowledgements and for its last sends to leave the provider (without
 * retransmission, for its requests to be done: each went once). A CLOSE is served after
 * every earlier request of its source, and the acknowledgement follows every earlier reply on
 * the way back: so once it has come, nothing is on its way between that PE and that server,
 * and the PE sends nothing again. The server answers nothing more from a closed source but a
 * repeated CLOSE (whose acknowledgement was lost). Without this, a retransmission still in the
 * provider when its peer closed its endpoint failed the job at finalize (`tcp;ofi_rxm`:
 * "Broken pipe"). */

/* Broadcasts by the servers (PANGEA_COLL_SERVER_BCAST, docs/multicast.md "Broadcasts
 * forwarded by the data servers"). The root sends its message to its own node's server as
 * PG_DS_FORWARD requests (ordered, under its grant, in chunks: position and length in the
 * header, dest at segment/offset). Each server that
 * receives a chunk sends it on at once, unordered, to the servers of its child nodes: a
 * binomial tree over the team's nodes in the order of their first members, the root's node
 * first. It writes the chunk into the dest of every member of the team on its node but the
 * root, and once a broadcast's every byte has landed, adds 1 to each such member's `done`
 * (the root's too) and rings its doorbell. A member in a broadcast waits only for its own
 * `done`: a late PE delays nobody. The broadcasts of a team are numbered from 0 (`taken`
 * counts them on each member): a server writes broadcast n on its node only after n - 1 is
 * done there, and holds a copy of a chunk that comes early (from another root, by a shorter
 * path). The words are the same symmetric offset on every member; `bytes`, the landed bytes of
 * the broadcast under way, is kept at the team's first member on the node. A chunk's
 * messages between servers hold no grant: each server has at most PG_DS_FORWARD_BUFFERS of
 * them in flight, and the provider holds what the pool has no room for. Only where messages
 * between two endpoints keep their order and are never resent: not with retransmission on. */
struct pg_ds_forward {
    int32_t start, stride, size; /* the team: world PEs start + i*stride, i < size */
    int32_t root;                /* the root's team index */
    uint64_t number;             /* the broadcast's number in the team */
    uint64_t total;              /* its bytes */
    uint64_t words;              /* offset of the members' struct pg_ds_forward_words in the heap
                                    segment */
};
struct pg_ds_forward_words {
    uint64_t done;  /* broadcasts landed, by the server */
    uint64_t taken; /* broadcasts entered, by the member */
    uint64_t bytes; /* of the broadcast under way, by the server (the node's first member's) */
    /* Barriers by the servers: */
    uint64_t synced;   /* barriers completed, by the server */
    uint64_t entered;  /* barriers entered, by the member */
    uint64_t here;     /* members of the node in the barrier under way (the first member's) */
    uint64_t nodes[2]; /* nodes arrived at barrier n, in nodes[n % 2], by the server (the
                          first member's) */
};
#define PG_DS_FORWARD_BUFFERS 8
/* Barriers by the servers (PANGEA_COLL_SERVER_SYNC, docs/multicast.md "Barriers completed by
 * the data servers"). A member entering a team's barrier n adds 1 to `here` at the team's first
 * member on its node; the one that completes the node sets it back to 0 and sends PG_DS_ARRIVED
 * (the team, number n) to the server of every node of the team, its own included. A server
 * counts them in nodes[n % 2] and, when every node of the team has arrived, sets it back to 0,
 * adds 1 to `synced` of each member on its node and rings its doorbell; a member waits for its
 * own `synced`. The last PE to arrive releases everyone one message later. Barrier n + 1's
 * messages may come before n is complete on a server (in the other word); n + 2's cannot: they
 * need this node released from n. */
/* The servers' names as startup exchanged them, [nnodes] of name_bytes each (the pipeline's
 * table, kept while the server runs): whom a server
 * forwards to (inserted in its address vector on the first forward there). */
void pg_ds_server_peers(const void *names, size_t name_bytes);

/* Probes (fault-injection tests' raw messages) carry this bit in seq: their rejection is
 * counted by the sender, not fatal. */
#define PG_DS_PROBE ((uint64_t)1 << 63)

#endif
