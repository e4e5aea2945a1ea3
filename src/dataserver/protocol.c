/* The request protocol: validation of incoming messages and the AMO kernel. */
#include "dataserver.h"

#include "memory/memory.h"

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
        [PG_DS_BAD_ACC] = "bad accumulate type or length",
    };
    if (status < 0 || status > PG_DS_BAD_ACC)
        return "unknown status";
    return text[status];
}

int pg_ds_validate(const struct pg_ds_header *h, size_t len, int npes)
{
    if (len < sizeof *h)
        return PG_DS_BAD_LENGTH;
    if (h->version != PG_DS_PROTOCOL_VERSION)
        return PG_DS_BAD_VERSION;
    if (h->source >= (uint32_t)npes)
        return PG_DS_BAD_SOURCE;
    if (h->type == PG_DS_STOP)
        return len == sizeof *h ? PG_DS_OK : PG_DS_BAD_LENGTH;
    if (h->type != PG_DS_PUT && h->type != PG_DS_GET && h->type != PG_DS_AMO &&
        h->type != PG_DS_ACC)
        return PG_DS_BAD_TYPE;
    if (h->target >= (uint32_t)npes)
        return PG_DS_BAD_TARGET;
    if (h->segment >= PG_SEG_COUNT)
        return PG_DS_BAD_SEGMENT;
    size_t payload = len - sizeof *h;
    int carries_data = h->type == PG_DS_PUT || h->type == PG_DS_ACC;
    if (carries_data ? h->length != payload : payload != 0)
        return PG_DS_BAD_LENGTH;
    if (h->type == PG_DS_AMO && (h->op > PG_AMO_LAST || (h->width != 4 && h->width != 8) ||
                                 h->length != h->width || h->offset % h->width != 0))
        return PG_DS_BAD_AMO;
    if (h->type == PG_DS_ACC &&
        (h->op > PG_ACC_LAST || h->length % pg_acc_type_size((enum pg_acc_type)h->op) != 0))
        return PG_DS_BAD_ACC;
    return PG_DS_OK;
}
