/* The request protocol: validation of incoming messages, the walk over a shaped region, and
 * the AMO kernel. */
#include "dataserver.h"

#include "memory/memory.h"
#include "runtime/runtime.h"

#include <string.h>

#define KERNEL(T)                                                                \
    static uint64_t amo_##T(T *p, enum pg_amo_op op, T value, T compare)         \
    {                                                                            \
        switch (op) {                                                            \
        case PG_AMO_FETCH:                                                       \
            return __atomic_load_n(p, __ATOMIC_ACQUIRE);                         \
        case PG_AMO_SET:                                                         \
            __atomic_store_n(p, value, __ATOMIC_RELEASE);                        \
            return 0;                                                            \
        case PG_AMO_SWAP:                                                        \
            return __atomic_exchange_n(p, value, __ATOMIC_ACQ_REL);              \
        case PG_AMO_CSWAP:                                                       \
            __atomic_compare_exchange_n(p, &compare, value, 0, __ATOMIC_ACQ_REL, \
                                        __ATOMIC_ACQUIRE);                       \
            return compare;                                                      \
        case PG_AMO_ADD:                                                         \
            return __atomic_fetch_add(p, value, __ATOMIC_ACQ_REL);               \
        case PG_AMO_AND:                                                         \
            return __atomic_fetch_and(p, value, __ATOMIC_ACQ_REL);               \
        case PG_AMO_OR:                                                          \
            return __atomic_fetch_or(p, value, __ATOMIC_ACQ_REL);                \
        case PG_AMO_XOR:                                                         \
            return __atomic_fetch_xor(p, value, __ATOMIC_ACQ_REL);               \
        }                                                                        \
        return 0;                                                                \
    }
KERNEL(uint32_t)
KERNEL(uint64_t)

uint64_t pg_amo_apply(void *p, enum pg_amo_op op, size_t width, uint64_t value, uint64_t compare)
{
    if (width == 4)
        return amo_uint32_t(p, op, (uint32_t)value, (uint32_t)compare);
    return amo_uint64_t(p, op, value, compare);
}

const char *pg_ds_status_text(int status)
{
    static const char *const text[] = {
        [PG_DS_OK] = "ok",
        [PG_DS_BAD_VERSION] = "unknown protocol version",
        [PG_DS_BAD_TYPE] = "unknown request type",
        [PG_DS_BAD_SOURCE] = "source PE out of range",
        [PG_DS_BAD_TARGET] = "target PE out of range or not on this node",
        [PG_DS_BAD_SEGMENT] = "unknown segment",
        [PG_DS_BAD_RANGE] = "offset and length run past the segment",
        [PG_DS_BAD_LENGTH] = "message length does not match the header",
        [PG_DS_BAD_AMO] = "bad atomic operation, width or alignment",
        [PG_DS_BAD_ACC] = "bad accumulate type, length or alignment",
        [PG_DS_BAD_LAYOUT] = "bad strided, vector or records layout",
        [PG_DS_BAD_ORDER] = "request number already served",
    };
    if (status < 0 || status > PG_DS_BAD_ORDER)
        return "unknown status";
    return text[status];
}

/* The layout descriptor of a request: the u64 words after its header. */
static const uint64_t *descriptor(const struct pg_ds_header *h)
{
    return (const uint64_t *)(h + 1);
}

/* Strided: 1..8 levels, every count at least 1, strides non-negative, the packed stream and
 * the extent without overflow. Reads only the `payload` bytes that are there. */
static int decode_strided(const struct pg_ds_header *h, size_t payload, struct pg_ds_shape *sh)
{
    const uint64_t *d = descriptor(h);
    if (payload < 8 || d[0] < 1 || d[0] > PG_MAX_STRIDE)
        return PG_DS_BAD_LAYOUT;
    sh->levels = (int)d[0];
    sh->descriptor_bytes = 8 * (size_t)(2 + 2 * sh->levels);
    if (sh->descriptor_bytes > payload)
        return PG_DS_BAD_LENGTH;
    const uint64_t *count = d + 1;
    const int64_t *stride = (const int64_t *)(count + sh->levels + 1);
    uint64_t total = count[0], extent = count[0];
    if (count[0] == 0)
        return PG_DS_BAD_LAYOUT;
    sh->count[0] = count[0];
    for (int l = 0; l < sh->levels; l++) {
        uint64_t reach;
        if (count[l + 1] == 0 || stride[l] < 0 ||
            __builtin_mul_overflow(total, count[l + 1], &total) ||
            __builtin_mul_overflow((uint64_t)stride[l], count[l + 1] - 1, &reach) ||
            __builtin_add_overflow(extent, reach, &extent))
            return PG_DS_BAD_LAYOUT;
        sh->count[l + 1] = count[l + 1];
        sh->stride[l] = (ptrdiff_t)stride[l];
    }
    uint64_t end;
    if (__builtin_add_overflow(h->position, h->length, &end) || end > total)
        return PG_DS_BAD_LAYOUT;
    sh->span = extent;
    return PG_DS_OK;
}

/* Vector: whole pieces of at least 1 byte, all in this message, offsets without overflow. */
static int decode_vector(const struct pg_ds_header *h, size_t payload, struct pg_ds_shape *sh)
{
    const uint64_t *d = descriptor(h);
    if (payload < 16 || d[0] < 1 || d[0] > payload / 8 || d[1] < 1)
        return PG_DS_BAD_LAYOUT;
    sh->pieces = d[0];
    sh->piece_bytes = d[1];
    sh->offsets = d + 2;
    sh->descriptor_bytes = 8 * (2 + sh->pieces);
    if (sh->descriptor_bytes > payload)
        return PG_DS_BAD_LENGTH;
    if (h->position != 0 || h->length / sh->piece_bytes != sh->pieces ||
        h->length % sh->piece_bytes != 0)
        return PG_DS_BAD_LAYOUT;
    for (size_t i = 0; i < sh->pieces; i++) {
        uint64_t end;
        if (__builtin_add_overflow(sh->offsets[i], sh->piece_bytes, &end))
            return PG_DS_BAD_LAYOUT;
        sh->span = end > sh->span ? end : sh->span;
    }
    return PG_DS_OK;
}

/* Records: at least one, each whole within the message, of 1 byte or more, to a PE of the job
 * and a known segment, its range without overflow. Only puts carry them. */
static int decode_records(const struct pg_ds_header *h, size_t payload, int npes,
                          struct pg_ds_shape *sh)
{
    if (h->type != PG_DS_PUT || h->position != 0 || h->length != payload || payload == 0)
        return PG_DS_BAD_LAYOUT;
    const char *at = (const char *)(h + 1), *end = at + payload;
    for (; at < end; sh->pieces++) {
        struct pg_ds_record r;
        if ((size_t)(end - at) < sizeof r)
            return PG_DS_BAD_LENGTH;
        memcpy(&r, at, sizeof r);
        uint64_t last;
        if (r.length == 0 || __builtin_add_overflow(r.offset, r.length, &last))
            return PG_DS_BAD_LAYOUT;
        if (pg_ds_record_bytes(r.length) > (size_t)(end - at))
            return PG_DS_BAD_LENGTH;
        if (r.target >= (uint32_t)npes)
            return PG_DS_BAD_TARGET;
        if (r.segment >= PG_SEG_COUNT)
            return PG_DS_BAD_SEGMENT;
        at += pg_ds_record_bytes(r.length);
    }
    return PG_DS_OK;
}

static int decode_layout(const struct pg_ds_header *h, size_t payload, int npes,
                         struct pg_ds_shape *sh)
{
    switch (h->layout) {
    case PG_DS_CONTIG:
        if (__builtin_add_overflow(h->position, h->length, &sh->span))
            return PG_DS_BAD_LAYOUT;
        sh->count[0] = sh->span;
        return PG_DS_OK;
    case PG_DS_STRIDED:
        return decode_strided(h, payload, sh);
    case PG_DS_VECTOR:
        return decode_vector(h, payload, sh);
    case PG_DS_RECORDS:
        return decode_records(h, payload, npes, sh);
    }
    return PG_DS_BAD_LAYOUT;
}

/* A broadcast's chunk: contiguous, within the broadcast, the team's members all PEs of the
 * job, its root one of them. A barrier's arrival: the team alike, and no data. */
static int validate_forward(const struct pg_ds_header *h, size_t payload, int npes,
                            struct pg_ds_shape *sh)
{
    struct pg_ds_forward f;
    if (payload < sizeof f)
        return PG_DS_BAD_LENGTH;
    memcpy(&f, h + 1, sizeof f);
    sh->descriptor_bytes = sizeof f;
    if (pg_ds_wire_bytes(h->length) != payload - sizeof f)
        return PG_DS_BAD_LENGTH;
    long long last = (long long)f.start + (long long)(f.size - 1) * f.stride;
    if (f.size < 1 || f.start < 0 || f.start >= npes || last < 0 || last >= npes)
        return PG_DS_BAD_LAYOUT;
    if (h->type == PG_DS_ARRIVED)
        return h->length == 0 ? PG_DS_OK : PG_DS_BAD_LENGTH;
    uint64_t end;
    if (h->layout != PG_DS_CONTIG || f.root < 0 || f.root >= f.size || h->length == 0 ||
        __builtin_add_overflow(h->position, h->length, &end) || end > f.total)
        return PG_DS_BAD_LAYOUT;
    sh->count[0] = sh->span = end;
    return PG_DS_OK;
}

int pg_ds_validate(const struct pg_ds_header *h, size_t len, int npes, struct pg_ds_shape *shape)
{
    struct pg_ds_shape unused, *sh = shape ? shape : &unused;
    *sh = (struct pg_ds_shape){.levels = 0};
    if (len < sizeof *h)
        return PG_DS_BAD_LENGTH;
    if (h->version != PG_DS_PROTOCOL_VERSION)
        return PG_DS_BAD_VERSION;
    if (h->source >= (uint32_t)npes)
        return PG_DS_BAD_SOURCE;
    if (h->type == PG_DS_STOP)
        return len == sizeof *h ? PG_DS_OK : PG_DS_BAD_LENGTH;
    if (h->type != PG_DS_PUT && h->type != PG_DS_GET && h->type != PG_DS_AMO &&
        h->type != PG_DS_ACC && h->type != PG_DS_HELLO && h->type != PG_DS_RELEASE &&
        h->type != PG_DS_CLOSE && h->type != PG_DS_FORWARD && h->type != PG_DS_ARRIVED)
        return PG_DS_BAD_TYPE;
    if (h->target >= (uint32_t)npes)
        return PG_DS_BAD_TARGET;
    if (h->segment >= PG_SEG_COUNT)
        return PG_DS_BAD_SEGMENT;
    size_t payload = len - sizeof *h;
    if (h->type == PG_DS_HELLO) /* an endpoint name; op: asks for a grant */
        return payload == pg_ds_wire_bytes(h->length) && h->length >= 1 &&
                       h->length <= PG_NET_ADDR_MAX && h->op <= 1
                   ? PG_DS_OK
                   : PG_DS_BAD_LENGTH;
    if (h->type == PG_DS_RELEASE || h->type == PG_DS_CLOSE)
        return payload == 0 ? PG_DS_OK : PG_DS_BAD_LENGTH;
    if (h->type == PG_DS_AMO) {
        if (payload != 0 || h->layout != PG_DS_CONTIG)
            return PG_DS_BAD_LENGTH;
        if (h->op > PG_AMO_LAST || (h->width != 4 && h->width != 8) || h->length != h->width ||
            h->offset % h->width != 0)
            return PG_DS_BAD_AMO;
        sh->count[0] = sh->span = h->width;
        return PG_DS_OK;
    }
    if (h->type == PG_DS_FORWARD || h->type == PG_DS_ARRIVED)
        return validate_forward(h, payload, npes, sh);
    int status = decode_layout(h, payload, npes, sh);
    if (status != PG_DS_OK)
        return status;
    int carries_data = h->type == PG_DS_PUT || h->type == PG_DS_ACC;
    if (carries_data ? pg_ds_wire_bytes(h->length) != payload - sh->descriptor_bytes
                     : payload != sh->descriptor_bytes)
        return PG_DS_BAD_LENGTH;
    if (h->type == PG_DS_ACC) {
        size_t elem = pg_acc_type_size((enum pg_acc_type)h->op);
        size_t piece = h->layout == PG_DS_STRIDED  ? sh->count[0]
                       : h->layout == PG_DS_VECTOR ? sh->piece_bytes
                                                   : elem;
        if (elem == 0 || h->length % elem || h->position % elem || piece % elem)
            return PG_DS_BAD_ACC;
    }
    return PG_DS_OK;
}

void pg_ds_walk(char *base, int levels, const size_t *count, const ptrdiff_t *stride,
                size_t position, size_t len, char *packed, pg_ds_piece_fn piece, void *arg)
{
    size_t run = position / count[0], within = position % count[0];
    size_t index[PG_MAX_STRIDE];
    char *at = base;
    for (int l = 0; l < levels; l++) {
        index[l] = run % count[l + 1];
        run /= count[l + 1];
        at += (ptrdiff_t)index[l] * stride[l];
    }
    while (len) {
        size_t n = count[0] - within < len ? count[0] - within : len;
        piece(at + within, packed, n, arg);
        packed += n;
        len -= n;
        within = 0;
        for (int l = 0; l < levels && len; l++) {
            at += stride[l];
            if (++index[l] < count[l + 1])
                break;
            at -= stride[l] * (ptrdiff_t)count[l + 1];
            index[l] = 0;
        }
    }
}

uint32_t pg_ds_sum_payload(uint32_t crc, const void *bytes, size_t len)
{
    return pg_crc32c(crc, bytes, len);
}

void pg_ds_seal_summed(struct pg_ds_header *h, uint32_t payload_crc)
{
    h->crc = 0;
    h->crc = pg_crc32c(payload_crc, h, sizeof *h);
}

void pg_ds_seal(struct pg_ds_header *h, size_t len)
{
    pg_ds_seal_summed(h, pg_crc32c(0, h + 1, len - sizeof *h));
}

int pg_ds_intact(const struct pg_ds_header *h, size_t len)
{
    struct pg_ds_header copy = *h;
    copy.crc = 0;
    return pg_crc32c(pg_crc32c(0, h + 1, len - sizeof *h), &copy, sizeof copy) == h->crc;
}

int pg_ds_reliable(void)
{
    return pg_cfg.checksum || pg_cfg.test_drop_acks || pg_net_failover();
}
