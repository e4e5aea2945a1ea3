/* The transport's implementations: each fills one table of the functions transport.h
 * declares, and transport.c forwards every call to the table PANGEA_TRANSPORT chose at
 * pg_net_init. Each implementation defines struct pg_net_ep and struct pg_net_mr for itself
 * (only one is in use in a process). */
#ifndef PG_TRANSPORT_INTERNAL_H
#define PG_TRANSPORT_INTERNAL_H

#include "transport.h"

struct pg_net_ops {
    int (*init)(size_t max_message);
    void (*fini)(void);
    int (*has_rma)(void);
    int (*local_mr)(void);
    void (*describe)(FILE *out);
    const char *(*provider)(void);
    const char *(*domain)(void);
    size_t (*max_msg)(void);
    struct pg_net_ep *(*ep_open)(const char *role, size_t max_message);
    void (*ep_close)(struct pg_net_ep *ep);
    size_t (*ep_name)(struct pg_net_ep *ep, void *addr);
    fi_addr_t (*av_insert)(struct pg_net_ep *ep, const void *addr);
    void (*sendv)(struct pg_net_ep *ep, fi_addr_t to, const struct iovec *iov, void **desc,
                  size_t count, void *context);
    void (*post_multi_recv)(struct pg_net_ep *ep, struct pg_net_multi_recv *m, void *buf,
                            size_t len, void *desc);
    struct pg_net_mr *(*mr_reg)(struct pg_net_ep *ep, const void *buf, size_t len, uint64_t access);
    void *(*mr_desc)(const struct pg_net_mr *mr);
    uint64_t (*mr_key)(const struct pg_net_mr *mr);
    uint64_t (*mr_remote_base)(const struct pg_net_mr *mr);
    void (*mr_close)(struct pg_net_mr *mr);
    void (*rma)(struct pg_net_ep *ep, int write, fi_addr_t peer, void *buf, size_t len, void *desc,
                uint64_t addr, uint64_t key, void *context);
    int (*poll)(struct pg_net_ep *ep, struct pg_net_event *events, int max);
    int (*wait)(struct pg_net_ep *ep, struct pg_net_event *events, int max, int timeout_ms);
    struct pg_net_credit_peak (*credit_peak)(void);
    /* Rails (NULL where the transport has none: one path, no failover). */
    int (*rails)(void);
    int (*multi_recv_needed)(struct pg_net_ep *ep, const struct pg_net_multi_recv *m);
    void (*check_reach)(const char (*names)[PG_NET_ADDR_MAX], int count, int self);
    void (*set_failover)(int on);
    int (*failover)(void);
    void (*reroute)(struct pg_net_ep *ep, fi_addr_t peer, int rail);
    void (*route)(struct pg_net_ep *ep, fi_addr_t peer, int rail);
    const char *(*rail_traffic)(struct pg_net_ep *ep, int r, struct pg_net_rail_traffic *traffic);
};

extern const struct pg_net_ops pg_net_ofi_ops; /* libfabric (ofi.c) */
extern const struct pg_net_ops pg_net_mpi_ops; /* MPI messages (mpi.c) */

#endif
