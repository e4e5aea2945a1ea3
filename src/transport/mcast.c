/* Multicast channels (transport.h, "Multicast"): a libfabric datagram endpoint (FI_EP_DGRAM)
 * of a provider offering FI_MULTICAST, joined to one group. The provider is whichever
 * fi_getinfo gives for those capabilities (udp over IP; verbs UD on InfiniBand); nothing here
 * depends on its name. Independent of the transport PANGEA_TRANSPORT chose. */
#include "transport.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The receive buffer asked for: 16 MiB, capped by the kernel at net.core.rmem_max. */
#define RECV_BUFFER (16 << 20)

struct pg_mcast {
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_eq *eq;
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_av *av;
    struct fid_mc *mc;
    fi_addr_t group;
    uint16_t port;
    char provider[64];
    size_t datagram;    /* the largest datagram sent and received */
    size_t recv_buffer; /* the kernel's receive buffer, 0 when unknown */
    /* One receive posted at a time, into this buffer; a datagram is copied out on delivery. */
    char *recv_buf;
    struct fi_context recv_ctx;
    int recv_posted;
    size_t pending; /* length of a datagram received in recv_buf, not handed out yet */
    struct fi_context send_ctx;
};

static int failed(char *err, size_t errlen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

static struct fi_info *multicast_info(uint16_t port, int *rc)
{
    struct fi_info *hints = fi_allocinfo(), *found = NULL;
    if (!hints) {
        *rc = -FI_ENOMEM;
        return NULL;
    }
    hints->caps = FI_MSG | FI_MULTICAST | FI_SEND | FI_RECV;
    hints->ep_attr->type = FI_EP_DGRAM;
    hints->addr_format = FI_SOCKADDR_IN;
    hints->mode = FI_CONTEXT;
    hints->domain_attr->mr_mode = FI_MR_UNSPEC;
    /* Bound to every address: a socket bound to the interface's own address would not take
     * datagrams addressed to the group. */
    char service[8];
    snprintf(service, sizeof service, "%u", port);
    *rc = fi_getinfo(FI_VERSION(1, 9), "0.0.0.0", service, FI_SOURCE, hints, &found);
    fi_freeinfo(hints);
    return *rc ? NULL : found;
}

int pg_mcast_offered(char *provider, size_t len)
{
    int rc;
    struct fi_info *info = multicast_info(0, &rc);
    if (!info)
        return 0;
    snprintf(provider, len, "%s", info->fabric_attr->prov_name);
    fi_freeinfo(info);
    return 1;
}

/* A provider that sends through a kernel socket (udp) leaves its receive buffer at the
 * system's default (net.core.rmem_default, some 200 KB): a window of datagrams beyond it is
 * dropped on arrival while the receiver waits for a CPU. And the kernel loops every datagram
 * sent back to the sender's own socket, a copy and a receive per datagram that the sender
 * only throws away (no other socket of the node can share the port: a second one cannot
 * bind it). libfabric does not hand out the socket, so it is found as this process's datagram
 * socket bound to the channel's port: its buffer is raised to recv_bytes (the kernel caps it
 * at net.core.rmem_max) and the loop turned off. The buffer it got, 0 where no such socket is
 * (verbs UD). */
static size_t tune_socket(uint16_t port, int recv_bytes)
{
    DIR *dir = opendir("/proc/self/fd");
    if (!dir)
        return 0;
    size_t got = 0;
    for (struct dirent *d; (d = readdir(dir));) {
        int fd = atoi(d->d_name), type = 0;
        struct sockaddr_in a;
        socklen_t alen = sizeof a, tlen = sizeof type;
        if (fd == dirfd(dir) || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tlen) ||
            type != SOCK_DGRAM || getsockname(fd, (struct sockaddr *)&a, &alen) ||
            a.sin_family != AF_INET || a.sin_port != htons(port))
            continue;
        int size = 0;
        socklen_t slen = sizeof size;
        unsigned char loop = 0;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &recv_bytes, sizeof recv_bytes);
        setsockopt(fd, IPPROTO_IP, IP_MULTICAST_LOOP, &loop, sizeof loop);
        if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, &slen))
            got = (size_t)size;
        break;
    }
    closedir(dir);
    return got;
}

static int post_recv(struct pg_mcast *m)
{
    if (m->recv_posted)
        return 0;
    ssize_t rc = fi_recv(m->ep, m->recv_buf, m->datagram, NULL, FI_ADDR_UNSPEC, &m->recv_ctx);
    m->recv_posted = rc == 0;
    return (int)rc;
}

struct pg_mcast *pg_mcast_open(uint32_t group, uint16_t port, size_t datagram, char *err,
                               size_t errlen)
{
    struct pg_mcast *m = calloc(1, sizeof *m);
    if (!m) {
        failed(err, errlen, "out of memory");
        return NULL;
    }
    int rc;
    snprintf(m->provider, sizeof m->provider, "none");
    m->info = multicast_info(port, &rc);
    if (!m->info) {
        failed(err, errlen, "no libfabric provider offers multicast datagrams (%s)",
               fi_strerror(-rc));
        free(m);
        return NULL;
    }
    snprintf(m->provider, sizeof m->provider, "%s", m->info->fabric_attr->prov_name);
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_MSG, .wait_obj = FI_WAIT_UNSPEC};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_eq_attr eq_attr = {.wait_obj = FI_WAIT_UNSPEC};
    const char *step = "fi_fabric";
    if ((rc = fi_fabric(m->info->fabric_attr, &m->fabric, NULL)) ||
        (step = "fi_domain", rc = fi_domain(m->fabric, m->info, &m->domain, NULL)) ||
        (step = "fi_eq_open", rc = fi_eq_open(m->fabric, &eq_attr, &m->eq, NULL)) ||
        (step = "fi_endpoint", rc = fi_endpoint(m->domain, m->info, &m->ep, NULL)) ||
        (step = "fi_cq_open", rc = fi_cq_open(m->domain, &cq_attr, &m->cq, NULL)) ||
        (step = "fi_av_open", rc = fi_av_open(m->domain, &av_attr, &m->av, NULL)) ||
        (step = "fi_ep_bind", rc = fi_ep_bind(m->ep, &m->cq->fid, FI_SEND | FI_RECV)) ||
        (rc = fi_ep_bind(m->ep, &m->av->fid, 0)) || (rc = fi_ep_bind(m->ep, &m->eq->fid, 0)) ||
        (step = "fi_enable", rc = fi_enable(m->ep))) {
        failed(err, errlen, "%s failed: %s (provider %s)", step, fi_strerror(-rc), m->provider);
        pg_mcast_close(m);
        return NULL;
    }
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(port)};
    to.sin_addr.s_addr = htonl(group);
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &to.sin_addr, text, sizeof text);
    rc = fi_join(m->ep, &to, 0, &m->mc, NULL);
    if (rc == 0) {
        /* The join completes by an event on the endpoint's event queue. */
        struct fi_eq_entry entry;
        uint32_t event;
        ssize_t n = fi_eq_sread(m->eq, &event, &entry, sizeof entry, 5000, 0);
        rc = n < 0 ? (int)n : event == FI_JOIN_COMPLETE ? 0 : -FI_EOTHER;
        if (n == -FI_EAVAIL) {
            struct fi_eq_err_entry e = {0};
            fi_eq_readerr(m->eq, &e, 0);
            rc = -e.err;
        }
    }
    if (rc) {
        failed(err, errlen, "fi_join of group %s port %u failed: %s (provider %s)", text, port,
               fi_strerror(-rc), m->provider);
        pg_mcast_close(m);
        return NULL;
    }
    m->group = fi_mc_addr(m->mc);
    m->port = port;
    m->recv_buffer = tune_socket(port, RECV_BUFFER);
    m->datagram = datagram ? datagram : m->info->ep_attr->max_msg_size;
    m->recv_buf = malloc(m->datagram);
    if (!m->recv_buf || (rc = post_recv(m))) {
        failed(err, errlen, "fi_recv failed: %s (provider %s)", fi_strerror(-rc), m->provider);
        pg_mcast_close(m);
        return NULL;
    }
    /* A group can be joined where no route leads to it (no multicast route on the
     * interface): one byte sent shows whether the group is reachable. Receivers ignore it. */
    char probe = 0;
    struct iovec iov = {&probe, 1};
    if ((rc = pg_mcast_send(m, &iov, 1))) {
        failed(err, errlen, "cannot send to group %s port %u: %s (provider %s)", text, port,
               fi_strerror(-rc), m->provider);
        pg_mcast_close(m);
        return NULL;
    }
    return m;
}

void pg_mcast_close(struct pg_mcast *m)
{
    if (!m)
        return;
    if (m->mc)
        fi_close(&m->mc->fid);
    if (m->ep)
        fi_close(&m->ep->fid);
    if (m->av)
        fi_close(&m->av->fid);
    if (m->cq)
        fi_close(&m->cq->fid);
    if (m->eq)
        fi_close(&m->eq->fid);
    if (m->domain)
        fi_close(&m->domain->fid);
    if (m->fabric)
        fi_close(&m->fabric->fid);
    fi_freeinfo(m->info);
    free(m->recv_buf);
    free(m);
}

size_t pg_mcast_max_msg(const struct pg_mcast *m)
{
    return m->datagram;
}

size_t pg_mcast_recv_buffer(const struct pg_mcast *m)
{
    return m->recv_buffer;
}

const char *pg_mcast_provider(const struct pg_mcast *m)
{
    return m->provider;
}

/* Takes one completion: a send's sets *sent, a receive's datagram stays in recv_buf
 * (pending) until pg_mcast_recv hands it out. 1 when one was taken, else -FI_EAGAIN or an
 * error. */
static ssize_t take(struct pg_mcast *m, int *sent, int timeout_ms)
{
    struct fi_cq_msg_entry e;
    ssize_t n =
        timeout_ms > 0 ? fi_cq_sread(m->cq, &e, 1, NULL, timeout_ms) : fi_cq_read(m->cq, &e, 1);
    if (n == -FI_ETIMEDOUT)
        n = -FI_EAGAIN;
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry ee = {0};
        fi_cq_readerr(m->cq, &ee, 0);
        if (ee.op_context == &m->send_ctx)
            *sent = 1;
        else
            m->recv_posted = 0;
        return 1;
    }
    if (n <= 0)
        return n;
    if (e.op_context == &m->send_ctx) {
        *sent = 1;
    } else {
        m->recv_posted = 0;
        m->pending = e.len;
    }
    return 1;
}

static int send_datagram(struct pg_mcast *m, fi_addr_t to, uint64_t flags, const struct iovec *iov,
                         size_t count)
{
    ssize_t rc;
    int sent = 0;
    struct fi_msg msg = {.msg_iov = iov, .iov_count = count, .addr = to, .context = &m->send_ctx};
    while ((rc = fi_sendmsg(m->ep, &msg, flags)) == -FI_EAGAIN)
        take(m, &sent, 0);
    if (rc)
        return (int)rc;
    sent = 0;
    while (!sent) {
        ssize_t n = take(m, &sent, 0);
        if (n < 0 && n != -FI_EAGAIN)
            return (int)n;
    }
    return 0;
}

int pg_mcast_send(struct pg_mcast *m, const struct iovec *iov, size_t count)
{
    /* FI_MULTICAST: the address is the group's (fi_mc_addr), not an address vector's entry. */
    return send_datagram(m, m->group, FI_MULTICAST, iov, count);
}

int pg_mcast_send_to(struct pg_mcast *m, uint64_t peer, const struct iovec *iov, size_t count)
{
    return send_datagram(m, (fi_addr_t)peer, 0, iov, count);
}

int pg_mcast_peer(struct pg_mcast *m, uint32_t addr, uint64_t *peer)
{
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(m->port)};
    to.sin_addr.s_addr = htonl(addr);
    fi_addr_t got;
    int rc = fi_av_insert(m->av, &to, 1, &got, 0, NULL);
    if (rc != 1)
        return rc < 0 ? rc : -FI_EINVAL;
    *peer = got;
    return 0;
}

uint32_t pg_mcast_source_addr(uint32_t group)
{
    /* A datagram socket connected to the group sends nothing, but the kernel picks its route
     * and so its source address. */
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)}, from;
    to.sin_addr.s_addr = htonl(group);
    socklen_t len = sizeof from;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return 0;
    uint32_t addr = 0;
    if (!connect(fd, (struct sockaddr *)&to, sizeof to) &&
        !getsockname(fd, (struct sockaddr *)&from, &len))
        addr = ntohl(from.sin_addr.s_addr);
    close(fd);
    return addr;
}

size_t pg_mcast_recv(struct pg_mcast *m, void *buf, size_t len, int timeout_ms)
{
    int sent = 0, waited = 0;
    for (;;) {
        if (m->pending) {
            size_t got = m->pending < len ? m->pending : len;
            memcpy(buf, m->recv_buf, got);
            m->pending = 0;
            return got;
        }
        if (!m->recv_posted && post_recv(m))
            return 0;
        ssize_t n = take(m, &sent, 0);
        if (n == -FI_EAGAIN && !waited) {
            /* Nothing yet: sleep on the queue's wait object until a completion or the end. */
            waited = 1;
            n = take(m, &sent, timeout_ms);
        }
        if (n < 0)
            return 0;
    }
}
