/* The transport chosen once, at pg_net_init, by PANGEA_TRANSPORT: every call goes to its
 * table, so nothing above the transport knows which one carries the bytes. */
#include "transport_internal.h"

#include "runtime/runtime.h"

static const struct pg_net_ops *ops = &pg_net_ofi_ops;

int pg_net_init(size_t max_message)
{
    ops = pg_cfg.transport == PG_TRANSPORT_MPI ? &pg_net_mpi_ops : &pg_net_ofi_ops;
    if (ops == &pg_net_mpi_ops && pg_cfg_text(pg_cfg.rails))
        pg_fatal("shmem_init",
                 "PANGEA_RAILS is %s, but PANGEA_TRANSPORT=mpi has no rails of its own (unset "
                 "one of them)",
                 pg_cfg_text(pg_cfg.rails));
    return ops->init(max_message);
}

void pg_net_fini(void)
{
    ops->fini();
}

void pg_net_describe(FILE *out)
{
    ops->describe(out);
}

const char *pg_net_provider(void)
{
    return ops->provider();
}

const char *pg_net_domain(void)
{
    return ops->domain();
}

size_t pg_net_max_msg(void)
{
    return ops->max_msg();
}

struct pg_net_ep *pg_net_ep_open(const char *role, size_t max_message)
{
    return ops->ep_open(role, max_message);
}

void pg_net_ep_close(struct pg_net_ep *ep)
{
    ops->ep_close(ep);
}

size_t pg_net_ep_name(struct pg_net_ep *ep, void *addr)
{
    return ops->ep_name(ep, addr);
}

fi_addr_t pg_net_av_insert(struct pg_net_ep *ep, const void *addr)
{
    return ops->av_insert(ep, addr);
}

void pg_net_sendv(struct pg_net_ep *ep, fi_addr_t to, const struct iovec *iov, void **desc,
                  size_t count, void *context)
{
    ops->sendv(ep, to, iov, desc, count, context);
}

void pg_net_post_multi_recv(struct pg_net_ep *ep, struct pg_net_multi_recv *m, void *buf,
                            size_t len, void *desc)
{
    ops->post_multi_recv(ep, m, buf, len, desc);
}

int pg_net_has_rma(void)
{
    return ops->has_rma();
}

int pg_net_local_mr(void)
{
    return ops->local_mr();
}

struct pg_net_mr *pg_net_mr_reg(struct pg_net_ep *ep, const void *buf, size_t len, uint64_t access)
{
    return ops->mr_reg(ep, buf, len, access);
}

void *pg_net_mr_desc(const struct pg_net_mr *mr)
{
    return ops->mr_desc(mr);
}

uint64_t pg_net_mr_key(const struct pg_net_mr *mr)
{
    return ops->mr_key(mr);
}

uint64_t pg_net_mr_remote_base(const struct pg_net_mr *mr)
{
    return ops->mr_remote_base(mr);
}

void pg_net_mr_close(struct pg_net_mr *mr)
{
    ops->mr_close(mr);
}

void pg_net_rma(struct pg_net_ep *ep, int write, fi_addr_t peer, void *buf, size_t len, void *desc,
                uint64_t addr, uint64_t key, void *context)
{
    ops->rma(ep, write, peer, buf, len, desc, addr, key, context);
}

int pg_net_poll(struct pg_net_ep *ep, struct pg_net_event *events, int max)
{
    return ops->poll(ep, events, max);
}

int pg_net_wait(struct pg_net_ep *ep, struct pg_net_event *events, int max, int timeout_ms)
{
    return ops->wait(ep, events, max, timeout_ms);
}

struct pg_net_credit_peak pg_net_credit_peak(void)
{
    return ops->credit_peak();
}

/* The MPI transport has one path between two processes: no rails (its table leaves them
 * NULL). */
int pg_net_rails(void)
{
    return ops->rails ? ops->rails() : 1;
}

void pg_net_check_reach(const char (*names)[PG_NET_ADDR_MAX], int count, int self)
{
    if (ops->check_reach)
        ops->check_reach(names, count, self);
}

int pg_net_multi_recv_needed(struct pg_net_ep *ep, const struct pg_net_multi_recv *m)
{
    return ops->multi_recv_needed ? ops->multi_recv_needed(ep, m) : 0;
}

void pg_net_set_failover(int on)
{
    if (ops->set_failover)
        ops->set_failover(on);
}

int pg_net_failover(void)
{
    return ops->failover ? ops->failover() : 0;
}

void pg_net_reroute(struct pg_net_ep *ep, fi_addr_t peer, int rail)
{
    if (ops->reroute)
        ops->reroute(ep, peer, rail);
}

void pg_net_route(struct pg_net_ep *ep, fi_addr_t peer, int rail)
{
    if (ops->route)
        ops->route(ep, peer, rail);
}

const char *pg_net_rail_traffic(struct pg_net_ep *ep, int r, struct pg_net_rail_traffic *traffic)
{
    return ops->rail_traffic ? ops->rail_traffic(ep, r, traffic) : NULL;
}
