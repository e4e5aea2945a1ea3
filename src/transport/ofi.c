/* The libfabric path: provider selection, endpoints, sends, multi-receives, completions. */
#include "transport_internal.h"

#include "runtime/runtime.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdlib.h>
#include <string.h>

struct pg_net_ep {
    struct fid_domain *domain; /* its own: see pg_net_ep_open */
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_av *av;
    const char *role;
    size_t max_message; /* FI_OPT_MIN_MULTI_RECV */
};

struct pg_net_mr {
    struct fid_mr *mr;
    uint64_t remote_base; /* what a remote access names byte 0 of the region by */
};

static struct fi_info *info;
static struct fid_fabric *fabric;
static int rma;      /* the provider does RMA reads and writes */
static int local_mr; /* local buffers must be registered (FI_MR_LOCAL, or forced) */

#define OFI_CHECK(call, what)                                                             \
    do {                                                                                  \
        int rc_ = (int)(call);                                                            \
        if (rc_ < 0)                                                                      \
            pg_fatal("transport", "%s failed: %s (provider %s)", what, fi_strerror(-rc_), \
                     info ? info->fabric_attr->prov_name : "none");                       \
    } while (0)

static int is_provider(const struct fi_info *fi, const char *name)
{
    return strcmp(fi->fabric_attr->prov_name, name) == 0;
}

static int same_interface(const struct fi_info *a, const struct fi_info *b)
{
    const char *fa = a->fabric_attr->name, *fb = b->fabric_attr->name;
    const char *da = a->domain_attr->name, *db = b->domain_attr->name;
    return fa && fb && da && db && strcmp(fa, fb) == 0 && strcmp(da, db) == 0;
}

/* Loopback domains reach only this machine; between nodes we need a real interface. */
static int reaches_other_nodes(const struct fi_info *fi)
{
    const char *dom = fi->domain_attr->name;
    return !is_provider(fi, "shm") && !(dom && strcmp(dom, "lo") == 0);
}

/* Memory-registration modes Pangea handles: local buffers registered (descriptors passed),
 * remote addresses virtual or offsets, provider-chosen keys, registrations bound to an
 * endpoint, memory backed before registration (ours always is). */
#define SUPPORTED_MR_MODES \
    (FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_ENDPOINT)
#define RMA_CAPS (FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)

/* The first provider offering caps that reaches other nodes (any, under FI_PROVIDER); NULL
 * when none, with the name of an on-node-only provider found, if any, in on_node_only.
 * One exception to libfabric's order: net on the same interface (fabric and domain), offered
 * after tcp;ofi_rxm, is taken instead. It is libfabric 1.17's successor of that pair (1.18
 * ships it as tcp): RDM over the same sockets without the rxm layer. Across 2 emulated nodes
 * its fetch-add took 14.5-17.6 us against 19.8-20.9 us
 * (perf/results/providers-2nodes-session7.txt). */
static struct fi_info *find_provider(uint64_t caps, char on_node_only[64])
{
    struct fi_info *hints = fi_allocinfo(), *list = NULL, *chosen = NULL;
    if (!hints)
        return NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = caps;
    hints->mode = FI_CONTEXT;
    /* Requests to one server apply in order; a direct write is ordered with requests. */
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->mr_mode = SUPPORTED_MR_MODES;
    if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list) == 0) {
        const struct fi_info *best = NULL;
        for (const struct fi_info *fi = list; fi; fi = fi->next) {
            if (!reaches_other_nodes(fi) && !getenv("FI_PROVIDER"))
                continue;
            if (!best)
                best = fi;
            else if (is_provider(best, "tcp;ofi_rxm") && is_provider(fi, "net") &&
                     same_interface(best, fi))
                best = fi;
        }
        if (best)
            chosen = fi_dupinfo(best);
        else
            snprintf(on_node_only, 64, "%s", list->fabric_attr->prov_name);
    }
    fi_freeinfo(hints);
    fi_freeinfo(list);
    return chosen;
}

/* ofi_rxm sends messages above its eager limit (16 KiB by default) by segmentation or
 * rendezvous, and in libfabric 1.17 such messages arriving in FI_MULTI_RECV buffers while
 * others are outstanding can stall for good. Over tcp the eager limit may exceed rxm's
 * bounce buffers, so every message up to max_message goes eagerly, straight into our
 * buffers. rxm reads the setting when libfabric first loads; a user's value is kept. */
static void rxm_eager_up_to(size_t max_message)
{
    const char *prov = getenv("FI_PROVIDER");
    if (!max_message || getenv("FI_OFI_RXM_EAGER_LIMIT") || (prov && !strstr(prov, "tcp")))
        return;
    char value[32];
    snprintf(value, sizeof value, "%zu", max_message);
    setenv("FI_OFI_RXM_EAGER_LIMIT", value, 0);
}

static int ofi_init(size_t max_message)
{
    rxm_eager_up_to(max_message);
    char on_node_only[64] = "";
    info = find_provider(FI_MSG | FI_MULTI_RECV | RMA_CAPS, on_node_only);
    rma = info != NULL;
    if (!info)
        info = find_provider(FI_MSG | FI_MULTI_RECV, on_node_only);
    if (!info) {
        if (on_node_only[0])
            fprintf(stderr,
                    "pangea: shmem_init: libfabric offers only on-node providers here "
                    "(first: %s); set FI_PROVIDER\n",
                    on_node_only);
        else
            fprintf(stderr, "pangea: shmem_init: no libfabric provider offers reliable ordered "
                            "messages; check FI_PROVIDER\n");
        return -1;
    }
    local_mr = (info->domain_attr->mr_mode & FI_MR_LOCAL) || pg_cfg.register_local;
    OFI_CHECK(fi_fabric(info->fabric_attr, &fabric, NULL), "fi_fabric");
    return 0;
}

static void ofi_fini(void)
{
    if (fabric)
        fi_close(&fabric->fid);
    fi_freeinfo(info);
    fabric = NULL;
    info = NULL;
    rma = local_mr = 0;
}

static int ofi_has_rma(void)
{
    return rma;
}

static int ofi_local_mr(void)
{
    return local_mr;
}

static void ofi_describe(FILE *out)
{
    if (!info) {
        fprintf(out, "  ofi   not opened\n");
        return;
    }
    fprintf(out, "  ofi   provider %s, fabric %s, domain %s\n", info->fabric_attr->prov_name,
            info->fabric_attr->name, info->domain_attr->name);
    fprintf(out, "        caps %s\n", fi_tostr(&info->caps, FI_TYPE_CAPS));
    /* fi_tostr returns one static buffer: one call per statement. */
    fprintf(out, "        mr_mode [%s]", fi_tostr(&info->domain_attr->mr_mode, FI_TYPE_MR_MODE));
    fprintf(out, ", data progress %s",
            fi_tostr(&info->domain_attr->data_progress, FI_TYPE_PROGRESS));
    fprintf(out, ", inject %zu B, max message %zu B\n", info->tx_attr->inject_size,
            info->ep_attr->max_msg_size);
    fprintf(out, "        software paths: AMOs, accumulates, strided and vector data: requests "
                 "to the target node's data server, packed through the pipeline;\n");
    if (rma && pg_cfg.direct_rma_threshold)
        fprintf(out,
                "        contiguous put/get of %lld B or more: direct RMA to the server's "
                "registration of the target's segment\n",
                pg_cfg.direct_rma_threshold);
    else
        fprintf(out, "        contiguous put/get: pipeline (direct RMA %s)\n",
                rma ? "disabled by PANGEA_DIRECT_RMA_THRESHOLD=0" : "not offered");
    fprintf(out, "        local buffers %sregistered%s\n", local_mr ? "" : "not ",
            local_mr && !(info->domain_attr->mr_mode & FI_MR_LOCAL) ? " (PANGEA_REGISTER_LOCAL)"
                                                                    : "");
}

static const char *ofi_provider(void)
{
    return info->fabric_attr->prov_name;
}

static const char *ofi_domain(void)
{
    return info ? info->domain_attr->name : NULL;
}

static size_t ofi_max_msg(void)
{
    return info->ep_attr->max_msg_size;
}

static struct pg_net_ep *ofi_ep_open(const char *role, size_t max_message)
{
    struct pg_net_ep *e = calloc(1, sizeof *e);
    if (!e)
        pg_fatal("transport", "out of memory");
    e->role = role;
    e->max_message = max_message;
    struct fi_cq_attr cq_attr = {
        .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_UNSPEC, .size = 1024};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    /* A domain per endpoint: providers progress and lock per domain, so the data server's
     * waits would otherwise take its process's PE's completions and contend for its lock. */
    OFI_CHECK(fi_domain(fabric, info, &e->domain, NULL), "fi_domain");
    OFI_CHECK(fi_endpoint(e->domain, info, &e->ep, NULL), "fi_endpoint");
    OFI_CHECK(fi_cq_open(e->domain, &cq_attr, &e->cq, NULL), "fi_cq_open");
    OFI_CHECK(fi_av_open(e->domain, &av_attr, &e->av, NULL), "fi_av_open");
    OFI_CHECK(fi_ep_bind(e->ep, &e->cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
    OFI_CHECK(fi_ep_bind(e->ep, &e->av->fid, 0), "fi_ep_bind(av)");
    /* A multi-receive buffer is retired once less than one whole message fits in it. */
    OFI_CHECK(fi_setopt(&e->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &max_message,
                        sizeof max_message),
              "fi_setopt(FI_OPT_MIN_MULTI_RECV)");
    OFI_CHECK(fi_enable(e->ep), "fi_enable");
    return e;
}

static void ofi_ep_close(struct pg_net_ep *e)
{
    if (!e)
        return;
    fi_close(&e->ep->fid);
    fi_close(&e->av->fid);
    fi_close(&e->cq->fid);
    fi_close(&e->domain->fid);
    free(e);
}

static size_t ofi_ep_name(struct pg_net_ep *e, void *addr)
{
    size_t len = PG_NET_ADDR_MAX;
    if (fi_getname(&e->ep->fid, addr, &len) != 0)
        return 0;
    return len;
}

static fi_addr_t ofi_av_insert(struct pg_net_ep *e, const void *addr)
{
    fi_addr_t fa = FI_ADDR_UNSPEC;
    if (fi_av_insert(e->av, addr, 1, &fa, 0, NULL) != 1)
        pg_fatal("transport", "fi_av_insert failed on the %s endpoint", e->role);
    return fa;
}

/* Progress for a busy provider: reading the CQ drives a manual-progress provider. Completions
 * found meanwhile are not lost: the caller's next poll sees them, as we only peek here. */
static void progress(struct pg_net_ep *e)
{
    fi_cq_read(e->cq, NULL, 0);
}

static void ofi_sendv(struct pg_net_ep *e, fi_addr_t to, const struct iovec *iov, void **desc,
                      size_t count, void *context)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += iov[i].iov_len;
    for (;;) {
        ssize_t rc;
        if (!context && count == 1 && total <= info->tx_attr->inject_size)
            rc = fi_inject(e->ep, iov[0].iov_base, total, to);
        else if (!context)
            pg_fatal("transport", "a %zu-byte send needs a completion context", total);
        else
            rc = fi_sendv(e->ep, iov, desc, count, to, context);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, "fi_sendv");
        progress(e);
    }
}

static void ofi_post_multi_recv(struct pg_net_ep *e, struct pg_net_multi_recv *m, void *buf,
                                size_t len, void *desc)
{
    *m = (struct pg_net_multi_recv){.buf = buf, .len = len};
    struct iovec iov = {buf, len};
    struct fi_msg msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = m};
    for (;;) {
        ssize_t rc = fi_recvmsg(e->ep, &msg, FI_MULTI_RECV);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, "fi_recvmsg");
        progress(e);
    }
}

static struct pg_net_mr *ofi_mr_reg(struct pg_net_ep *e, const void *buf, size_t len,
                                    uint64_t access)
{
    /* Where the provider does not choose keys they must be unique within a domain. */
    static uint64_t next_key = 1;
    uint64_t key = __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED);
    struct pg_net_mr *m = calloc(1, sizeof *m);
    if (!m)
        pg_fatal("transport", "out of memory");
    OFI_CHECK(fi_mr_reg(e->domain, buf, len, access, 0, key, 0, &m->mr, NULL), "fi_mr_reg");
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        OFI_CHECK(fi_mr_bind(m->mr, &e->ep->fid, 0), "fi_mr_bind");
        OFI_CHECK(fi_mr_enable(m->mr), "fi_mr_enable");
    }
    m->remote_base = info->domain_attr->mr_mode & FI_MR_VIRT_ADDR ? (uint64_t)(uintptr_t)buf : 0;
    return m;
}

static void *ofi_mr_desc(const struct pg_net_mr *m)
{
    return m ? fi_mr_desc(m->mr) : NULL;
}

static uint64_t ofi_mr_key(const struct pg_net_mr *m)
{
    return fi_mr_key(m->mr);
}

static uint64_t ofi_mr_remote_base(const struct pg_net_mr *m)
{
    return m->remote_base;
}

static void ofi_mr_close(struct pg_net_mr *m)
{
    if (!m)
        return;
    fi_close(&m->mr->fid);
    free(m);
}

static void ofi_rma(struct pg_net_ep *e, int write, fi_addr_t peer, void *buf, size_t len,
                    void *desc, uint64_t addr, uint64_t key, void *context)
{
    struct iovec iov = {buf, len};
    struct fi_rma_iov remote = {.addr = addr, .len = len, .key = key};
    struct fi_msg_rma msg = {.msg_iov = &iov,
                             .desc = &desc,
                             .iov_count = 1,
                             .addr = peer,
                             .rma_iov = &remote,
                             .rma_iov_count = 1,
                             .context = context};
    /* A write completes once its data is in the target's memory: quiet needs no more. */
    uint64_t flags = FI_COMPLETION | (write ? FI_DELIVERY_COMPLETE : 0);
    for (;;) {
        ssize_t rc = write ? fi_writemsg(e->ep, &msg, flags) : fi_readmsg(e->ep, &msg, flags);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, write ? "fi_writemsg" : "fi_readmsg");
        progress(e);
    }
}

/* A message completed in m (len 0: none), or the provider gave m back: whether m is now free.
 * Messages are placed one after another, each only where the whole of a largest message fits
 * (FI_OPT_MIN_MULTI_RECV): when the completed ones tile m up to a point where no other fits,
 * none is still arriving. */
static int multi_recv_done(const struct pg_net_ep *e, struct pg_net_multi_recv *m, const char *buf,
                           size_t len, int released)
{
    if (len) {
        size_t end = (size_t)(buf - m->buf) + len;
        m->landed += len;
        if (end > m->reached)
            m->reached = end;
    }
    m->released |= released;
    return m->released && m->landed == m->reached && m->len - m->reached < e->max_message;
}

static int convert(struct pg_net_ep *e, ssize_t n, struct fi_cq_data_entry *entries,
                   struct pg_net_event *events)
{
    if (n == -FI_EAGAIN || n == -FI_EINTR)
        return 0; /* EINTR: a signal (a debugger, a profiler) interrupted the wait */
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(e->cq, &err, 0);
        pg_fatal("transport", "%s endpoint: operation failed: %s", e->role,
                 fi_cq_strerror(e->cq, err.prov_errno, err.err_data, NULL, 0));
    }
    OFI_CHECK(n, "fi_cq_read");
    for (ssize_t i = 0; i < n; i++) {
        const struct fi_cq_data_entry *c = &entries[i];
        int is_recv = (c->flags & (FI_RECV | FI_MULTI_RECV)) != 0;
        events[i] = (struct pg_net_event){
            .context = c->op_context,
            .buf = c->buf,
            .len = c->len,
            .is_recv = is_recv,
            .is_rma = (c->flags & FI_RMA) != 0,
            .buffer_done = is_recv && multi_recv_done(e, c->op_context, c->buf, c->len,
                                                      (c->flags & FI_MULTI_RECV) != 0),
        };
    }
    return (int)n;
}

#define MAX_EVENTS 64

static int ofi_poll(struct pg_net_ep *e, struct pg_net_event *events, int max)
{
    struct fi_cq_data_entry entries[MAX_EVENTS];
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    return convert(e, fi_cq_read(e->cq, entries, (size_t)max), entries, events);
}

static int ofi_wait(struct pg_net_ep *e, struct pg_net_event *events, int max, int timeout_ms)
{
    struct fi_cq_data_entry entries[MAX_EVENTS];
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    return convert(e, fi_cq_sread(e->cq, entries, (size_t)max, NULL, timeout_ms), entries, events);
}

/* libfabric's providers keep their own flow control: no credits of Pangea's to count. */
static struct pg_net_credit_peak ofi_credit_peak(void)
{
    return (struct pg_net_credit_peak){0};
}

const struct pg_net_ops pg_net_ofi_ops = {
    .init = ofi_init,
    .fini = ofi_fini,
    .has_rma = ofi_has_rma,
    .local_mr = ofi_local_mr,
    .describe = ofi_describe,
    .provider = ofi_provider,
    .domain = ofi_domain,
    .max_msg = ofi_max_msg,
    .ep_open = ofi_ep_open,
    .ep_close = ofi_ep_close,
    .ep_name = ofi_ep_name,
    .av_insert = ofi_av_insert,
    .sendv = ofi_sendv,
    .post_multi_recv = ofi_post_multi_recv,
    .mr_reg = ofi_mr_reg,
    .mr_desc = ofi_mr_desc,
    .mr_key = ofi_mr_key,
    .mr_remote_base = ofi_mr_remote_base,
    .mr_close = ofi_mr_close,
    .rma = ofi_rma,
    .poll = ofi_poll,
    .wait = ofi_wait,
    .credit_peak = ofi_credit_peak,
};
