/* dataserver: the per-node server thread and the request protocol that reaches it.
 *
 * One thread per node, in the process of node-local rank 0, owns the node's incoming
 * network endpoint and serves requests on the memory of every PE of its node (it maps all
 * their segments): puts, gets and atomics. It blocks when idle and gives asynchronous
 * progress: a request completes while the target PE computes. The client half, used by the
 * PEs, sends requests to the server of the target's node and collects the replies. */
#ifndef PG_DATASERVER_H
#define PG_DATASERVER_H

#include <stddef.h>
#include <stdint.h>

#define PG_DS_PROTOCOL_VERSION 1

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
 * an accumulate to that PE's memory: an on-node initiator or the node's data server. FIFO.
 * pe must be on my node. Set up by pg_acc_locks_init (collective, before any accumulate). */
void pg_acc_locks_init(void);
void pg_acc_lock(int pe);
void pg_acc_unlock(int pe);

enum pg_ds_type {
    PG_DS_PUT = 1,   /* payload follows the header */
    PG_DS_GET,       /* the reply carries the data */
    PG_DS_AMO,       /* op, width, operand, compare */
    PG_DS_ACK,       /* reply to a put or non-fetching AMO */
    PG_DS_GET_REPLY, /* reply to a get: payload follows */
    PG_DS_AMO_REPLY, /* reply to a fetching AMO: result in operand */
    PG_DS_NACK,      /* the request was rejected; status says why */
    PG_DS_STOP,      /* from the hosting PE only: the server thread ends */
    PG_DS_ACC,       /* accumulate: op = enum pg_acc_type, scale in operand/compare */
};

/* Every message starts with this header (fixed layout; little-endian hosts). */
struct pg_ds_header {
    uint8_t version;
    uint8_t type;
    uint8_t segment; /* enum pg_seg_id */
    uint8_t op;      /* enum pg_amo_op, or enum pg_acc_type for an accumulate */
    uint8_t width;   /* AMO operand bytes: 4 or 8 */
    uint8_t fetch;   /* AMO: reply with the old value */
    uint16_t status; /* NACK: enum pg_ds_status */
    uint32_t source; /* requesting PE */
    uint32_t target; /* PE whose memory is accessed */
    uint64_t offset; /* in the target's segment */
    uint64_t length; /* bytes of data (put payload, get request and reply) */
    uint64_t seq;    /* the client's request number, echoed in the reply */
    union {
        struct {
            uint64_t operand;
            uint64_t compare;
        };
        unsigned char scale[PG_ACC_MAX_ELEMENT]; /* accumulate */
    };
};

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
};
const char *pg_ds_status_text(int status);

/* Checks a request as received (len bytes in all). Returns PG_DS_OK or why it is rejected.
 * Used by the server on every message; exposed for the tests. */
int pg_ds_validate(const struct pg_ds_header *h, size_t len, int npes);

/* Opens the endpoints, exchanges addresses (O(nnodes + npes) per PE), starts the server on
 * node-local rank 0. Collective. */
int pg_ds_init(void);
void pg_ds_fini(void);

/* Client side. seg/offset locate the symmetric object (see pg_mem_locate). */
void pg_ds_put(int pe, int seg, size_t offset, const void *src, size_t len);
void pg_ds_get(int pe, int seg, size_t offset, void *dest, size_t len);
uint64_t pg_ds_amo(int pe, int seg, size_t offset, int op, size_t width, uint64_t value,
                   uint64_t compare, int fetch);
/* dest += scale * src at (seg, offset) on pe (see pg_acc_apply); len a multiple of the
 * element size. Completion as for a put. */
void pg_ds_acc(int pe, int seg, size_t offset, enum pg_acc_type type, const void *scale,
               const void *src, size_t len);
/* Waits until every put and non-fetching AMO issued so far is applied at its target. */
void pg_ds_quiet(void);
/* Sends raw bytes to a node's server (fault-injection tests). A rejected message whose seq
 * has PG_DS_PROBE set is counted, not fatal. */
#define PG_DS_PROBE ((uint64_t)1 << 63)
void pg_ds_send_raw(int node, const void *bytes, size_t len);
unsigned long pg_ds_probes_rejected(void);

#endif
