/* The libfabric path: provider selection, endpoints, sends, multi-receives, completions. */
#include "transport_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <net/if.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

/* Several rails (docs/reliability.md, "Rails"): a process opens one fabric per interface (or
 * domain) of the provider; each endpoint opens one domain, endpoint, completion queue and
 * address vector on each. With one rail an endpoint is what it always was and its calls take
 * the same path; with more, every call goes through the rails' choice and health below. */
#define MAX_RAILS 4

struct rail {
    struct fi_info *info;
    struct fid_fabric *fabric;
    uint32_t network; /* a hash of its fabric's name: rails of two nodes on the same one meet */
    int reaches;      /* reaches another node (pg_net_check_reach) */
};

/* A send in flight on one rail of a several-rail endpoint, so that a rail taken out can give
 * its sends back to the caller as done (their requests go again on another rail). */
struct tracked_send {
    struct fi_context ctx; /* first: the provider's completion points here */
    void *context;         /* the caller's */
    struct tracked_send *prev, *next;
};

struct rail_ep {
    struct fid_domain *domain; /* its own: see pg_net_ep_open */
    struct fid_ep *ep;
    struct fid_cq *cq;
    struct fid_av *av;
    int up;                      /* open: not taken out (in use unless probing) */
    int probing;                 /* reopened: no traffic of ours until a peer answers a probe */
    uint64_t probe_round_end_ns; /* probing: when the current round of probes ends */
    int probes_in_round;         /* probes of the round the provider took */
    char name[PG_NET_ADDR_MAX];  /* its address, where it is reopened */
    size_t name_len;
    uint64_t retry_ns, backoff_ns;     /* taken out: when it is tried again, and the wait after */
    int rejoining;                     /* reopened, waiting for a receive buffer */
    int wait_fd;                       /* its completion queue's, with several rails and no set */
    uint64_t last_done_ns;             /* its latest completion */
    uint64_t last_recv_ns;             /* its latest message received */
    uint64_t last_send_ns;             /* its latest message sent */
    int timeouts;                      /* rounds of requests over it unanswered since then */
    uint64_t timeout_ns;               /* when the latest round began */
    struct tracked_send sends;         /* in flight (a ring around this sentinel) */
    struct pg_net_multi_recv **posted; /* its receive buffers */
    int nposted, posted_cap;
    struct pg_net_rail_traffic traffic; /* SHMEM_INFO's counts at finalize */
};

/* A peer of a several-rail endpoint (its fi_addr_t is the index): its address on each rail
 * (FI_ADDR_NOTAVAIL where it has no rail on that network) and the rail its messages take. */
struct peer {
    fi_addr_t addr[MAX_RAILS];
    int rail;
    int home;            /* its first rail, where it goes back when that rail comes back */
    int stripe;          /* the rail its next large message takes (in turn over the rails) */
    int resend;          /* its next message is a request sent again: it takes the peer's rail */
    unsigned char *name; /* its name (as long as it is), to insert it again on a rail reopened */
};

struct pg_net_ep {
    struct rail_ep rail[MAX_RAILS];
    const char *role;
    size_t max_message; /* FI_OPT_MIN_MULTI_RECV */
    /* With several rails: */
    struct peer *peers;
    size_t npeers, peers_cap;
    struct tracked_send *spare;      /* tracked sends to reuse */
    struct pg_net_event *given_back; /* completions of a rail taken out, not yet polled */
    int ngiven_back, given_back_cap;
    struct fid_wait *waitset; /* with several rails (see wait_by_set): their queues' */
    int next_rail;            /* where the next poll starts */
    size_t next_probed;       /* the first peer the next probes go to */
    uint64_t next_check_ns;   /* when the links are next looked at */
};

struct pg_net_mr {
    struct fid_mr *mr;
    uint64_t remote_base; /* what a remote access names byte 0 of the region by */
};

static struct rail rails[MAX_RAILS];
static int nrails;
static struct fi_info *info; /* rail 0's */
static struct fid_fabric *fabric;
static int rma;      /* the provider does RMA reads and writes */
static int local_mr; /* local buffers must be registered (FI_MR_LOCAL, or forced) */
static int failover; /* some node of the job has several rails: requests are kept until done */
/* The endpoints open, so that rails found to reach no other node are closed on each. */
static struct pg_net_ep *open_eps[4];

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

/* PANGEA_RAILS, split at commas: the names (at most MAX_RAILS) into names[], their count
 * returned; 0 when unset. */
#define RAIL_NAME_MAX 64
static int named_rails(char names[MAX_RAILS][RAIL_NAME_MAX])
{
    const char *list = pg_cfg_text(pg_cfg.rails);
    int n = 0;
    for (const char *at = list; at && *at;) {
        size_t len = strcspn(at, ", ");
        if (len) {
            if (n == MAX_RAILS)
                pg_fatal("shmem_init", "PANGEA_RAILS names more than %d rails: %s", MAX_RAILS,
                         list);
            if (len >= RAIL_NAME_MAX)
                pg_fatal("shmem_init", "PANGEA_RAILS: the rail name '%.*s' is too long", (int)len,
                         at);
            snprintf(names[n], RAIL_NAME_MAX, "%.*s", (int)len, at);
            for (int i = 0; i < n; i++)
                if (strcmp(names[i], names[n]) == 0)
                    pg_fatal("shmem_init", "PANGEA_RAILS names the rail %s twice", names[n]);
            n++;
        }
        at += len + (at[len] != 0);
    }
    return n;
}

/* The domains of list's providers that reach other nodes, each once, for a message:
 * "eth0 (tcp;ofi_rxm), eth0 (net)". */
static void offered(const struct fi_info *list, char *out, size_t size)
{
    size_t used = 0;
    out[0] = 0;
    for (const struct fi_info *fi = list; fi && used < size; fi = fi->next) {
        char one[160];
        if (!reaches_other_nodes(fi) || !fi->domain_attr->name)
            continue;
        snprintf(one, sizeof one, "%s (%s)", fi->domain_attr->name, fi->fabric_attr->prov_name);
        if (!strstr(out, one))
            used += (size_t)snprintf(out + used, size - used, "%s%s", used ? ", " : "", one);
    }
}

static int taken(const struct fi_info *fi, int found)
{
    for (int i = 0; i < found; i++)
        if (same_interface(rails[i].info, fi))
            return 1;
    return 0;
}

static uint32_t network_of(const struct fi_info *fi)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (const char *c = fi->fabric_attr->name ? fi->fabric_attr->name : ""; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    return h;
}

/* Finds the rails: the provider is the first offering caps that reaches other nodes (any,
 * under FI_PROVIDER) and, under PANGEA_RAILS, offers the first rail named; its rails are the
 * named ones (an unknown name stops init) or, by default, every interface (domain) it offers
 * that reaches other nodes. Returns how many, 0 when no provider fits (with the name of an
 * on-node-only provider found, if any, in on_node_only, or under PANGEA_RAILS the rails that
 * are offered in unknown).
 * One exception to libfabric's order: net on the same interface (fabric and domain), offered
 * after tcp;ofi_rxm, is taken instead. It is libfabric 1.17's successor of that pair (1.18
 * ships it as tcp): RDM over the same sockets without the rxm layer. Across 2 emulated nodes
 * its fetch-add took 14.5-17.6 us against 19.8-20.9 us
 * (perf/results/providers-2nodes-session7.txt). */
static int find_rails(uint64_t caps, char on_node_only[64], char unknown[512])
{
    char names[MAX_RAILS][RAIL_NAME_MAX];
    int nnamed = named_rails(names);
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints)
        return 0;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = caps;
    hints->mode = FI_CONTEXT;
    /* Requests to one server apply in order; a direct write is ordered with requests. */
    hints->tx_attr->msg_order = FI_ORDER_SAS;
    hints->rx_attr->msg_order = FI_ORDER_SAS;
    hints->domain_attr->threading = FI_THREAD_SAFE;
    hints->domain_attr->mr_mode = SUPPORTED_MR_MODES;
    int found = 0;
    if (fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list) == 0) {
        const struct fi_info *best = NULL;
        for (const struct fi_info *fi = list; fi; fi = fi->next) {
            if (!reaches_other_nodes(fi) && !getenv("FI_PROVIDER"))
                continue;
            if (nnamed && !(fi->domain_attr->name && !strcmp(fi->domain_attr->name, names[0])))
                continue;
            if (!best)
                best = fi;
            else if (is_provider(best, "tcp;ofi_rxm") && is_provider(fi, "net") &&
                     same_interface(best, fi))
                best = fi;
        }
        if (best) {
            const char *prov = best->fabric_attr->prov_name;
            rails[found++].info = fi_dupinfo(best);
            for (int i = 1; i < nnamed; i++) {
                const struct fi_info *rail = list;
                while (rail && !(is_provider(rail, prov) && rail->domain_attr->name &&
                                 strcmp(rail->domain_attr->name, names[i]) == 0))
                    rail = rail->next;
                if (!rail) {
                    offered(list, unknown, 512);
                    pg_fatal("shmem_init",
                             "PANGEA_RAILS names the rail %s, which provider %s does not offer "
                             "here (offered: %s)",
                             names[i], prov, unknown);
                }
                rails[found++].info = fi_dupinfo(rail);
            }
            for (const struct fi_info *fi = list; !nnamed && fi && found < MAX_RAILS; fi = fi->next)
                if (is_provider(fi, prov) && reaches_other_nodes(fi) && !taken(fi, found))
                    rails[found++].info = fi_dupinfo(fi);
        } else if (nnamed) {
            offered(list, unknown, 512);
        } else {
            snprintf(on_node_only, 64, "%s", list->fabric_attr->prov_name);
        }
    }
    fi_freeinfo(hints);
    fi_freeinfo(list);
    return found;
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
    char on_node_only[64] = "", unknown[512] = "";
    nrails = find_rails(FI_MSG | FI_MULTI_RECV | RMA_CAPS, on_node_only, unknown);
    rma = nrails > 0;
    if (!nrails)
        nrails = find_rails(FI_MSG | FI_MULTI_RECV, on_node_only, unknown);
    if (!nrails) {
        char names[MAX_RAILS][RAIL_NAME_MAX];
        if (named_rails(names))
            pg_fatal("shmem_init",
                     "PANGEA_RAILS names the rail %s, which no provider that reaches other "
                     "nodes offers here (offered: %s)",
                     names[0], unknown[0] ? unknown : "none");
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
    info = rails[0].info;
    local_mr = (info->domain_attr->mr_mode & FI_MR_LOCAL) || pg_cfg.register_local;
    /* A rail that comes back is probed by messages marked with remote CQ data. */
    if (nrails > 1 && info->domain_attr->cq_data_size < 4) {
        char named[MAX_RAILS][RAIL_NAME_MAX];
        if (named_rails(named))
            pg_fatal("shmem_init",
                     "PANGEA_RAILS: %d rails, but provider %s carries no remote CQ data, which "
                     "the probes of a rail that comes back need: name one rail",
                     nrails, info->fabric_attr->prov_name);
        for (; nrails > 1; nrails--)
            fi_freeinfo(rails[nrails - 1].info);
    }
    /* Registrations belong to one domain: with local buffers registered, the default is the
     * first rail alone (as before rails); named rails are refused. */
    char named[MAX_RAILS][RAIL_NAME_MAX];
    for (; nrails > 1 && local_mr && !named_rails(named); nrails--)
        fi_freeinfo(rails[nrails - 1].info);
    if (nrails > 1 && local_mr)
        pg_fatal("shmem_init",
                 "PANGEA_RAILS: %d rails (%s, %s%s), but %s; several rails need a provider "
                 "that does not: name one rail",
                 nrails, rails[0].info->domain_attr->name, rails[1].info->domain_attr->name,
                 nrails > 2 ? ", ..." : "",
                 pg_cfg.register_local ? "PANGEA_REGISTER_LOCAL registers local buffers"
                                       : "the provider needs local buffers registered");
    for (int r = 0; r < nrails; r++) {
        OFI_CHECK(fi_fabric(rails[r].info->fabric_attr, &rails[r].fabric, NULL), "fi_fabric");
        rails[r].network = network_of(rails[r].info);
        rails[r].reaches = 1;
    }
    fabric = rails[0].fabric;
    /* Direct RMA names a registration of one domain: with several rails, every transfer is a
     * request (docs/reliability.md, "Rails"). */
    if (nrails > 1)
        rma = 0;
    return 0;
}

static void ofi_fini(void)
{
    for (int r = 0; r < nrails; r++) {
        if (rails[r].fabric)
            fi_close(&rails[r].fabric->fid);
        fi_freeinfo(rails[r].info);
        rails[r] = (struct rail){0};
    }
    nrails = 0;
    fabric = NULL;
    info = NULL;
    rma = local_mr = failover = 0;
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
    if (nrails > 1) {
        fprintf(out, "        rails");
        for (int r = 0; r < nrails; r++)
            fprintf(out, "%s %s (%s%s)", r ? "," : "", rails[r].info->domain_attr->name,
                    rails[r].info->fabric_attr->name, rails[r].reaches ? "" : ", reaches no node");
        fprintf(out, "; failover %s\n", failover ? "on (retransmission)" : "off");
    }
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

/* How several rails are waited on: through a wait set that all their queues share (fi_wait),
 * or through each queue's file descriptor (fi_trywait, then poll). libfabric 1.17's net
 * provider loses wake-ups on the descriptors: they signal only completions already made, not a
 * message on its sockets that nobody has progressed into one. ofi_rxm adds its message
 * provider's descriptors to them, and crashes in fi_wait once a queue bound to a wait set is
 * closed (a rail taken out). */
static int wait_by_set(void)
{
    return !strstr(info->fabric_attr->prov_name, "ofi_rxm");
}

static void rail_ep_close(struct rail_ep *re)
{
    if (re->ep)
        fi_close(&re->ep->fid);
    if (re->av)
        fi_close(&re->av->fid);
    if (re->cq)
        fi_close(&re->cq->fid);
    if (re->domain)
        fi_close(&re->domain->fid);
    re->ep = NULL;
    re->av = NULL;
    re->cq = NULL;
    re->domain = NULL;
    re->up = 0;
}

#define TRY(call, name)     \
    do {                    \
        rc = (int)(call);   \
        if (rc < 0) {       \
            *failed = name; \
            goto fail;      \
        }                   \
    } while (0)

/* Opens rail r of e, bound to the address bind_to (bind_len bytes) when one is given: a rail
 * taken out is reopened where the peers know it. 0, or the libfabric error with the call that
 * failed in *failed. */
static int rail_ep_try_open(struct pg_net_ep *e, int r, const void *bind_to, size_t bind_len,
                            const char **failed)
{
    struct rail_ep *re = &e->rail[r];
    struct fi_info *ri = fi_dupinfo(rails[r].info);
    int rc = -FI_ENOMEM;
    *failed = "fi_dupinfo";
    if (!ri)
        return rc;
    if (bind_to) {
        void *addr = malloc(bind_len);
        if (!addr)
            goto fail;
        memcpy(addr, bind_to, bind_len);
        free(ri->src_addr);
        ri->src_addr = addr;
        ri->src_addrlen = bind_len;
    }
    /* Several rails are waited on together: their queues share one wait set, or give file
     * descriptors (wait_by_set). */
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_DATA,
                                 .wait_obj = e->waitset   ? FI_WAIT_SET
                                             : nrails > 1 ? FI_WAIT_FD
                                                          : FI_WAIT_UNSPEC,
                                 .wait_set = e->waitset,
                                 .size = 1024};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    /* A domain per endpoint: providers progress and lock per domain, so the data server's
     * waits would otherwise take its process's PE's completions and contend for its lock. */
    TRY(fi_domain(rails[r].fabric, ri, &re->domain, NULL), "fi_domain");
    TRY(fi_endpoint(re->domain, ri, &re->ep, NULL), "fi_endpoint");
    TRY(fi_cq_open(re->domain, &cq_attr, &re->cq, NULL), "fi_cq_open");
    TRY(fi_av_open(re->domain, &av_attr, &re->av, NULL), "fi_av_open");
    TRY(fi_ep_bind(re->ep, &re->cq->fid, FI_TRANSMIT | FI_RECV), "fi_ep_bind(cq)");
    TRY(fi_ep_bind(re->ep, &re->av->fid, 0), "fi_ep_bind(av)");
    /* A multi-receive buffer is retired once less than one whole message fits in it. */
    TRY(fi_setopt(&re->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &e->max_message,
                  sizeof e->max_message),
        "fi_setopt(FI_OPT_MIN_MULTI_RECV)");
    TRY(fi_enable(re->ep), "fi_enable");
    if (nrails > 1 && !e->waitset)
        TRY(fi_control(&re->cq->fid, FI_GETWAIT, &re->wait_fd),
            "fi_control(FI_GETWAIT): a file descriptor to wait on several rails");
    re->name_len = sizeof re->name;
    TRY(fi_getname(&re->ep->fid, re->name, &re->name_len), "fi_getname");
    fi_freeinfo(ri);
    re->up = 1;
    re->last_done_ns = re->last_recv_ns = pg_now_ns();
    re->timeouts = 0;
    re->sends.prev = re->sends.next = &re->sends;
    return 0;
fail:
    rail_ep_close(re);
    fi_freeinfo(ri);
    return rc;
}

#undef TRY

static struct pg_net_ep *ofi_ep_open(const char *role, size_t max_message)
{
    struct pg_net_ep *e = calloc(1, sizeof *e);
    if (!e)
        pg_fatal("transport", "out of memory");
    e->role = role;
    e->max_message = max_message;
    struct fi_wait_attr wait_attr = {.wait_obj = FI_WAIT_UNSPEC};
    if (nrails > 1 && wait_by_set())
        OFI_CHECK(fi_wait_open(fabric, &wait_attr, &e->waitset), "fi_wait_open");
    for (int r = 0; r < nrails; r++) {
        const char *failed;
        int rc = rails[r].reaches ? rail_ep_try_open(e, r, NULL, 0, &failed) : 0;
        if (rc)
            pg_fatal("transport", "%s endpoint on rail %s: %s failed: %s (provider %s)", role,
                     rails[r].info->domain_attr->name, failed, fi_strerror(-rc),
                     rails[r].info->fabric_attr->prov_name);
    }
    for (size_t i = 0; i < sizeof open_eps / sizeof *open_eps; i++)
        if (!open_eps[i]) {
            open_eps[i] = e;
            break;
        }
    return e;
}

static void ofi_ep_close(struct pg_net_ep *e)
{
    if (!e)
        return;
    for (size_t i = 0; i < sizeof open_eps / sizeof *open_eps; i++)
        if (open_eps[i] == e)
            open_eps[i] = NULL;
    for (int r = 0; r < nrails; r++) {
        struct rail_ep *re = &e->rail[r];
        if (re->up)
            rail_ep_close(re);
        for (struct tracked_send *t = re->sends.next; t && t != &re->sends;) {
            struct tracked_send *next = t->next;
            free(t);
            t = next;
        }
        free(re->posted);
    }
    for (struct tracked_send *t = e->spare; t;) {
        struct tracked_send *next = t->next;
        free(t);
        t = next;
    }
    if (e->waitset)
        fi_close(&e->waitset->fid);
    for (size_t i = 0; i < e->npeers; i++)
        free(e->peers[i].name);
    free(e->peers);
    free(e->given_back);
    free(e);
}

/* An endpoint's name: its rail count, then for each rail the hash of its network, the length
 * of its address and the address (a peer pairs each of its rails with the one on its own
 * network). */
static size_t ofi_ep_name(struct pg_net_ep *e, void *addr)
{
    unsigned char *out = addr;
    size_t used = 1;
    out[0] = 0;
    for (int r = 0; r < nrails; r++) {
        if (!e->rail[r].up)
            continue;
        size_t len = PG_NET_ADDR_MAX - used - 5;
        if (used + 5 >= PG_NET_ADDR_MAX || fi_getname(&e->rail[r].ep->fid, out + used + 5, &len))
            return 0;
        memcpy(out + used, &rails[r].network, 4);
        out[used + 4] = (unsigned char)len;
        used += 5 + len;
        out[0]++;
    }
    return used;
}

/* The address in a peer's name of its rail on network, NULL when it has none there. */
static const void *rail_address(const void *name, uint32_t network)
{
    const unsigned char *in = name;
    size_t at = 1;
    for (int i = 0; i < in[0] && at + 5 <= PG_NET_ADDR_MAX; i++) {
        uint32_t theirs;
        memcpy(&theirs, in + at, 4);
        if (theirs == network)
            return in + at + 5;
        at += 5 + in[at + 4];
    }
    return NULL;
}

/* The bytes of a name (ofi_ep_name's layout), at most PG_NET_ADDR_MAX. */
static size_t name_bytes(const void *name)
{
    const unsigned char *in = name;
    size_t at = 1;
    for (int i = 0; i < in[0] && at + 5 <= PG_NET_ADDR_MAX; i++)
        at += 5 + in[at + 4];
    return at < PG_NET_ADDR_MAX ? at : PG_NET_ADDR_MAX;
}

static fi_addr_t insert_on(struct pg_net_ep *e, int r, const void *name)
{
    const void *addr = rail_address(name, rails[r].network);
    fi_addr_t fa = FI_ADDR_NOTAVAIL;
    if (addr && fi_av_insert(e->rail[r].av, addr, 1, &fa, 0, NULL) != 1)
        pg_fatal("transport", "fi_av_insert failed on the %s endpoint", e->role);
    return fa;
}

/* One rail: the peer's address there. Several: the peer's index in e->peers. */
static fi_addr_t ofi_av_insert(struct pg_net_ep *e, const void *name)
{
    if (nrails == 1) {
        fi_addr_t fa = insert_on(e, 0, name);
        if (fa == FI_ADDR_NOTAVAIL)
            pg_fatal("transport", "%s endpoint: a peer has no rail on the network of %s", e->role,
                     rails[0].info->domain_attr->name);
        return fa;
    }
    if (e->npeers == e->peers_cap) {
        size_t cap = e->peers_cap ? 2 * e->peers_cap : 16;
        struct peer *grown = realloc(e->peers, cap * sizeof *grown);
        if (!grown)
            pg_fatal("transport", "out of memory for the %s endpoint's peers", e->role);
        e->peers = grown;
        e->peers_cap = cap;
    }
    struct peer *p = &e->peers[e->npeers];
    p->rail = -1;
    /* Small messages spread over the rails by peer, and the PEs of a node start at different
     * rails: to one node, their first rails alternate. */
    for (int k = 0; k < nrails; k++) {
        int r = (int)((e->npeers + (size_t)pg_world.local_rank + (size_t)k) % (size_t)nrails);
        p->addr[r] = e->rail[r].up ? insert_on(e, r, name) : FI_ADDR_NOTAVAIL;
        if (p->rail < 0 && p->addr[r] != FI_ADDR_NOTAVAIL)
            p->rail = r;
    }
    if (p->rail < 0)
        pg_fatal("transport", "%s endpoint: a peer has no rail on the network of any of mine",
                 e->role);
    p->home = p->rail;
    size_t bytes = name_bytes(name);
    if (!(p->name = malloc(bytes)))
        pg_fatal("transport", "out of memory for the %s endpoint's peers", e->role);
    memcpy(p->name, name, bytes);
    return (fi_addr_t)e->npeers++;
}

/* Progress for a busy provider: reading the CQ drives a manual-progress provider. Completions
 * found meanwhile are not lost: the caller's next poll sees them, as we only peek here. */
static void progress(struct rail_ep *re)
{
    fi_cq_read(re->cq, NULL, 0);
}

/* ---- Several rails: health, choice, completions given back ------------------------------ */

/* A rail with sends in flight and no completion for this long, while another rail completes,
 * is stuck (its link is down somewhere on the way: TCP keeps the data and retries for many
 * minutes, and a request whose send is still in the provider is not sent again). */
#define RAIL_STUCK_NS 300000000ull
/* A rail whose provider refuses new sends (FI_EAGAIN) this long is stuck too (a connection
 * that cannot be made; a busy peer on a loaded machine takes seconds). */
#define RAIL_REFUSING_NS 3000000000ull
/* Links are looked at this often (while the endpoint is used). */
#define RAIL_CHECK_NS 10000000ull
/* Requests found unanswered over a rail within this long of each other are one round (a late
 * burst of them is one suspicion). */
#define RAIL_ROUND_NS 50000000ull
/* A rail suspected by a round, still sent on since and with nothing received on it for this
 * long while another rail answers, is out. */
#define RAIL_SILENT_NS 300000000ull
/* A rail taken out is tried again this long after (doubled each time it is taken out again,
 * up to the most). */
#define RAIL_RETRY_NS 1000000000ull
#define RAIL_RETRY_MAX_NS 16000000000ull

static void give_back(struct pg_net_ep *e, struct pg_net_event ev)
{
    if (e->ngiven_back == e->given_back_cap) {
        int cap = e->given_back_cap ? 2 * e->given_back_cap : 64;
        struct pg_net_event *grown = realloc(e->given_back, (size_t)cap * sizeof *grown);
        if (!grown)
            pg_fatal("transport", "out of memory for a rail's completions");
        e->given_back = grown;
        e->given_back_cap = cap;
    }
    e->given_back[e->ngiven_back++] = ev;
}

/* A rail carries our traffic: open, and not waiting for the answer to a probe. */
static int in_use(const struct rail_ep *re)
{
    return re->up && !re->probing;
}

static int rails_in_use(const struct pg_net_ep *e)
{
    int n = 0;
    for (int r = 0; r < nrails; r++)
        n += in_use(&e->rail[r]);
    return n;
}

static int spare_rail(struct pg_net_ep *e, int r);

/* Takes rail r of e out, unless it is the last in use and no other can take over at once
 * (spare_rail): closed, its sends in flight given back as done (each request goes again, on
 * another rail, when its time is up), its receive buffers as used up (the caller posts them
 * again, on the other rails). */
static void rail_out(struct pg_net_ep *e, int r, const char *why)
{
    struct rail_ep *re = &e->rail[r];
    if (!re->up || (in_use(re) && rails_in_use(e) == 1 && !spare_rail(e, r)))
        return;
    rail_ep_close(re);
    re->probing = re->rejoining = 0;
    for (struct tracked_send *t = re->sends.next; t != &re->sends;) {
        struct tracked_send *next = t->next;
        give_back(e, (struct pg_net_event){.context = t->context, .rail = r});
        t->next = e->spare;
        e->spare = t;
        t = next;
    }
    re->sends.prev = re->sends.next = &re->sends;
    for (int i = 0; i < re->nposted; i++)
        give_back(e, (struct pg_net_event){
                         .context = re->posted[i], .is_recv = 1, .buffer_done = 1, .rail = r});
    re->nposted = 0;
    re->backoff_ns = re->backoff_ns ? 2 * re->backoff_ns : RAIL_RETRY_NS;
    if (re->backoff_ns > RAIL_RETRY_MAX_NS)
        re->backoff_ns = RAIL_RETRY_MAX_NS;
    re->retry_ns = pg_now_ns() + re->backoff_ns;
    if (rails[r].reaches && re->traffic.outs++ == 0)
        pg_warn("%s endpoint: rail %s taken out (%s); its traffic goes on over the others", e->role,
                rails[r].info->domain_attr->name, why);
    else if (rails[r].reaches)
        pg_debug("%s endpoint: rail %s taken out again (%s)", e->role,
                 rails[r].info->domain_attr->name, why);
}

/* rail_out with a reason put together as by printf. */
static void rail_out_because(struct pg_net_ep *e, int r, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
static void rail_out_because(struct pg_net_ep *e, int r, const char *format, ...)
{
    char why[256];
    va_list args;
    va_start(args, format);
    vsnprintf(why, sizeof why, format, args);
    va_end(args);
    rail_out(e, r, why);
}

/* A rail that works completed something within this long. */
#define RAIL_RECENT_NS 500000000ull

/* Another rail of e in use than r that works while r is silent: its latest completion (message
 * received, if received) came after since (r's latest) and within RAIL_RECENT_NS, and it shows
 * no unanswered requests of its own; -1 when none does (then r's silence is not its own: the
 * machine, or the peer, is slow, or the process was not running). */
static int working_rail(const struct pg_net_ep *e, int r, uint64_t since, int received)
{
    uint64_t recent = pg_now_ns() - RAIL_RECENT_NS;
    since = since > recent ? since : recent;
    for (int k = 0; k < nrails; k++) {
        const struct rail_ep *other = &e->rail[k];
        if (k != r && in_use(other) && !other->timeouts &&
            (received ? other->last_recv_ns : other->last_done_ns) > since)
            return k;
    }
    return -1;
}

/* Whether interface name is down (0 when it is up, or no interface: a domain of another
 * kind). */
static int link_down(const char *name)
{
    static int sock = -1;
    if (sock < 0 && (sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
        return 0;
    struct ifreq req = {0};
    snprintf(req.ifr_name, sizeof req.ifr_name, "%s", name);
    if (ioctl(sock, SIOCGIFFLAGS, &req) != 0)
        return 0;
    return (req.ifr_flags & (IFF_UP | IFF_RUNNING)) != (IFF_UP | IFF_RUNNING);
}

/* Rail r of e, taken out, tried again: once its link is up, reopened where its peers know it
 * (its old address) and the peers inserted again; it then takes a receive buffer and probes
 * (rail_has_buffer) before any traffic of ours goes on it. */
static void rail_back(struct pg_net_ep *e, int r, uint64_t now)
{
    struct rail_ep *re = &e->rail[r];
    const char *failed;
    if (link_down(rails[r].info->domain_attr->name)) {
        re->retry_ns = now + RAIL_CHECK_NS;
        return;
    }
    re->retry_ns = now + re->backoff_ns;
    int rc = rail_ep_try_open(e, r, re->name, re->name_len, &failed);
    if (rc != 0) {
        pg_debug("%s endpoint: rail %s not reopened: %s failed: %s", e->role,
                 rails[r].info->domain_attr->name, failed, fi_strerror(-rc));
        return;
    }
    pg_debug("%s endpoint: rail %s reopened", e->role, rails[r].info->domain_attr->name);
    for (size_t i = 0; i < e->npeers; i++)
        e->peers[i].addr[r] = insert_on(e, r, e->peers[i].name);
    re->rejoining = 1;
    re->probing = 1;
    /* It needs a receive buffer: one of the rail that has the most (if more than one) is
     * cancelled, given back as used up and posted again here (the rail with the fewest). */
    int most = -1;
    for (int k = 0; k < nrails; k++)
        if (k != r && e->rail[k].up && e->rail[k].nposted > 1 &&
            (most < 0 || e->rail[k].nposted > e->rail[most].nposted))
            most = k;
    if (most >= 0)
        fi_cancel(&e->rail[most].ep->fid, e->rail[most].posted[0]);
}

/* ---- Probes: a rail reopened carries our traffic again only once a peer has answered one */

/* Remote CQ data that marks the transport's own messages (the layers above send none): a
 * probe carries the prober's address on the rail, an answer nothing of use. */
#define PROBE_DATA 0x50524f42u  /* "PROB" */
#define ANSWER_DATA 0x50524f41u /* "PROA" */
/* Peers probed at once: a link that passes traffic to one of them is back. */
#define PROBE_PEERS 4
/* A round of probes waits this long for an answer (doubled twice at most: 2 s). */
#define PROBE_WAIT_NS 500000000ull

/* Probes over rail r of e, by rounds: a round goes to the next PROBE_PEERS peers it reaches
 * and waits PROBE_WAIT_NS (more after rounds unanswered) for an answer. A probe the provider
 * refuses for now (a connection being made) is tried again at the next look at the rails. */
static void send_probes(struct pg_net_ep *e, int r, uint64_t now)
{
    struct rail_ep *re = &e->rail[r];
    if (now >= re->probe_round_end_ns) {
        if (re->probe_round_end_ns)
            re->traffic.unanswered++;
        unsigned doublings = re->traffic.unanswered < 2 ? (unsigned)re->traffic.unanswered : 2;
        re->probe_round_end_ns = now + (PROBE_WAIT_NS << doublings);
        re->probes_in_round = 0;
    }
    for (size_t k = 0; k < e->npeers && re->probes_in_round < PROBE_PEERS; k++) {
        size_t i = (e->next_probed + k) % e->npeers;
        if (e->peers[i].addr[r] == FI_ADDR_NOTAVAIL)
            continue;
        if (fi_injectdata(re->ep, re->name, re->name_len, PROBE_DATA, e->peers[i].addr[r]) != 0)
            return;
        re->probes_in_round++;
        re->traffic.probes++;
        e->next_probed = i + 1;
    }
}

/* A rail reopened has its first receive buffer again (answers can land): it probes. */
static void rail_has_buffer(struct pg_net_ep *e, int r)
{
    e->rail[r].rejoining = 0;
    e->rail[r].probe_round_end_ns = 0;
    if (e->rail[r].probing)
        send_probes(e, r, pg_now_ns());
}

/* A peer answered a probe over rail r: the rail is back in use, and the peers whose first
 * rail it was go back to it. */
static void rail_probed(struct pg_net_ep *e, int r)
{
    struct rail_ep *re = &e->rail[r];
    re->probing = 0;
    re->probe_round_end_ns = 0;
    re->traffic.reuses++;
    for (size_t i = 0; i < e->npeers; i++)
        if (e->peers[i].home == r && e->peers[i].addr[r] != FI_ADDR_NOTAVAIL)
            e->peers[i].rail = r;
    if (re->traffic.outs == 1)
        pg_warn("%s endpoint: rail %s back in use (a probe answered)", e->role,
                rails[r].info->domain_attr->name);
    else
        pg_debug("%s endpoint: rail %s back in use again", e->role,
                 rails[r].info->domain_attr->name);
}

/* The peer of e whose address on rail r is the len bytes at addr, or NULL. */
static struct peer *peer_at(struct pg_net_ep *e, int r, const void *addr, size_t len)
{
    for (size_t i = 0; i < e->npeers; i++) {
        const unsigned char *theirs = rail_address(e->peers[i].name, rails[r].network);
        if (theirs && theirs[-1] == len && memcmp(theirs, addr, len) == 0)
            return &e->peers[i];
    }
    return NULL;
}

/* A message of the transport's own (remote CQ data) arrived over rail r: a probe is answered
 * (when its prober is a peer: it learnt of us, so we of it), an answer ends the probing. */
static void probe_arrived(struct pg_net_ep *e, int r, uint64_t data, const void *buf, size_t len)
{
    struct rail_ep *re = &e->rail[r];
    if (data == ANSWER_DATA && re->probing) {
        rail_probed(e, r);
    } else if (data == PROBE_DATA) {
        struct peer *p = peer_at(e, r, buf, len);
        if (p && p->addr[r] != FI_ADDR_NOTAVAIL)
            fi_injectdata(re->ep, re->name, re->name_len, ANSWER_DATA, p->addr[r]);
    }
}

/* The last rail in use of e, r, failed: whether another could carry the traffic instead, at
 * once: one probing (its answer not awaited), or one taken out, reopened now (its wait for a
 * retry cut short). */
static int spare_rail(struct pg_net_ep *e, int r)
{
    uint64_t now = pg_now_ns();
    for (int k = 0; k < nrails; k++) {
        struct rail_ep *re = &e->rail[k];
        if (k == r || !rails[k].reaches || !re->name_len)
            continue;
        if (!re->up)
            rail_back(e, k, now);
        if (re->up) {
            re->probing = 0;
            return 1;
        }
    }
    return 0;
}

/* Takes out the rails whose link is down or whose sends are stuck, tries again those taken out
 * whose time has come, and probes again over those probing whose answer is late (at most every
 * RAIL_CHECK_NS). */
static void check_rails(struct pg_net_ep *e)
{
    uint64_t now = pg_now_ns();
    if (now < e->next_check_ns)
        return;
    e->next_check_ns = now + RAIL_CHECK_NS;
    for (int r = 0, k; r < nrails; r++) {
        struct rail_ep *re = &e->rail[r];
        if (!re->up && rails[r].reaches && re->name_len && now >= re->retry_ns)
            rail_back(e, r, now);
        if (!re->up)
            continue;
        if (link_down(rails[r].info->domain_attr->name))
            rail_out(e, r, "its link is down");
        else if (re->timeouts && re->last_send_ns > re->timeout_ns &&
                 now - re->last_recv_ns > RAIL_SILENT_NS &&
                 (k = working_rail(e, r, re->last_recv_ns, 1)) >= 0)
            rail_out_because(e, r,
                             "requests over it unanswered (%d rounds), nothing received on it "
                             "for %llu ms while rail %s answered",
                             re->timeouts, (unsigned long long)((now - re->last_recv_ns) / 1000000),
                             rails[k].info->domain_attr->name);
        else if (re->sends.next != &re->sends && now - re->last_done_ns > RAIL_STUCK_NS &&
                 (k = working_rail(e, r, re->last_done_ns, 0)) >= 0)
            rail_out_because(
                e, r, "its sends are stuck: no completion for %llu ms while rail %s completed",
                (unsigned long long)((now - re->last_done_ns) / 1000000),
                rails[k].info->domain_attr->name);
        else if (re->probing && !re->rejoining)
            send_probes(e, r, now);
    }
}

/* The rail of peer's next message: its own while in use, else the next one in use that
 * reaches it. */
static int peer_rail(struct pg_net_ep *e, struct peer *p)
{
    for (int k = 0; k < nrails; k++) {
        int r = (p->rail + k) % nrails;
        if (in_use(&e->rail[r]) && p->addr[r] != FI_ADDR_NOTAVAIL)
            return p->rail = r;
    }
    pg_fatal("transport", "%s endpoint: no rail up reaches a peer any more", e->role);
}

/* The rail of a large message to peer (PANGEA_RAIL_STRIPE): the rails in use that reach it,
 * in turn. */
static int stripe_rail(struct pg_net_ep *e, struct peer *p)
{
    for (int k = 0; k < nrails; k++) {
        int r = (p->stripe + k) % nrails;
        if (in_use(&e->rail[r]) && p->addr[r] != FI_ADDR_NOTAVAIL) {
            p->stripe = (r + 1) % nrails;
            return r;
        }
    }
    return peer_rail(e, p);
}

static struct peer *peer_of(struct pg_net_ep *e, fi_addr_t to)
{
    if (to >= e->npeers)
        pg_fatal("transport", "%s endpoint: send to an unknown peer", e->role);
    return &e->peers[to];
}

/* A request to peer `to` sent over rail (-1: not to be blamed on it) went unanswered within its
 * timeout (adapted to the round trip by the caller), and goes again: that message takes the
 * peer's rail whatever its size, and the peer's messages leave the rail, now suspect
 * (check_rails takes it out if it stays silent while another answers). */
static void ofi_reroute(struct pg_net_ep *e, fi_addr_t to, int rail)
{
    if (nrails == 1)
        return;
    struct peer *p = peer_of(e, to);
    p->resend = 1;
    if (rail < 0 || rail >= nrails || !in_use(&e->rail[rail]))
        return; /* out already: the peer's messages take another */
    for (int k = 1; p->rail == rail && k < nrails; k++) {
        int r = (rail + k) % nrails;
        if (in_use(&e->rail[r]) && p->addr[r] != FI_ADDR_NOTAVAIL)
            p->rail = r;
    }
    struct rail_ep *re = &e->rail[rail];
    uint64_t now = pg_now_ns();
    if (re->timeouts && now - re->timeout_ns < RAIL_ROUND_NS)
        return;
    re->timeouts++;
    re->timeout_ns = now;
    pg_debug("%s endpoint: rail %s: a request over it unanswered (round %d, nothing received on "
             "it for %llu ms)",
             e->role, rails[rail].info->domain_attr->name, re->timeouts,
             (unsigned long long)((now - re->last_recv_ns) / 1000000));
}

static void ofi_route(struct pg_net_ep *e, fi_addr_t to, int rail)
{
    if (nrails == 1 || to >= e->npeers || !in_use(&e->rail[rail]))
        return;
    e->peers[to].rail = rail;
}

static void track(struct rail_ep *re, struct tracked_send *t)
{
    t->prev = re->sends.prev;
    t->next = &re->sends;
    re->sends.prev->next = t;
    re->sends.prev = t;
}

static void untrack(struct tracked_send *t)
{
    t->prev->next = t->next;
    t->next->prev = t->prev;
}

static void sendv_rails(struct pg_net_ep *e, fi_addr_t to, const struct iovec *iov, void **desc,
                        size_t count, size_t total, void *context)
{
    struct peer *p = peer_of(e, to);
    uint64_t busy_since = 0;
    /* A large message (a chunk of a large transfer) takes the rails in turn, and keeps its
     * rail while the provider is busy; the others take their peer's. */
    int large = pg_cfg.rail_stripe > 0 && total >= (size_t)pg_cfg.rail_stripe && !p->resend;
    int r = -1;
    p->resend = 0;
    for (;;) {
        if (!large)
            r = peer_rail(e, p);
        else if (r < 0 || !in_use(&e->rail[r]))
            r = stripe_rail(e, p);
        struct rail_ep *re = &e->rail[r];
        ssize_t rc;
        if (!context && count == 1 && total <= info->tx_attr->inject_size) {
            rc = fi_inject(re->ep, iov[0].iov_base, total, p->addr[r]);
        } else if (!context) {
            pg_fatal("transport", "a %zu-byte send needs a completion context", total);
        } else {
            struct tracked_send *t = e->spare;
            if (t)
                e->spare = t->next;
            else if (!(t = calloc(1, sizeof *t)))
                pg_fatal("transport", "out of memory for a send in flight");
            t->context = context;
            rc = fi_sendv(re->ep, iov, desc, count, p->addr[r], &t->ctx);
            if (rc == 0) {
                if (re->sends.next == &re->sends)
                    re->last_done_ns = pg_now_ns(); /* idle until now, not stuck */
                track(re, t);
            } else {
                t->next = e->spare;
                e->spare = t;
            }
        }
        if (rc == 0) {
            re->last_send_ns = pg_now_ns();
            re->traffic.messages++;
            re->traffic.bytes += total;
            re->traffic.striped += (uint64_t)large;
            return;
        }
        if (rc != -FI_EAGAIN && rails_in_use(e) == 1 && !spare_rail(e, r))
            OFI_CHECK(rc, "fi_sendv");
        if (rc != -FI_EAGAIN) {
            rail_out(e, r, fi_strerror((int)-rc));
        } else {
            progress(re);
            uint64_t now = pg_now_ns();
            if (!busy_since)
                busy_since = now;
            else if (now - busy_since > RAIL_REFUSING_NS) {
                int k = working_rail(e, r, busy_since, 0);
                if (k >= 0)
                    rail_out_because(e, r,
                                     "it has taken no send for %llu ms while rail %s completed",
                                     (unsigned long long)((now - busy_since) / 1000000),
                                     rails[k].info->domain_attr->name);
                busy_since = 0;
            }
        }
        check_rails(e);
    }
}

static void ofi_sendv(struct pg_net_ep *e, fi_addr_t to, const struct iovec *iov, void **desc,
                      size_t count, void *context)
{
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += iov[i].iov_len;
    if (nrails > 1) {
        sendv_rails(e, to, iov, desc, count, total, context);
        return;
    }
    struct rail_ep *re = &e->rail[0];
    for (;;) {
        ssize_t rc;
        if (!context && count == 1 && total <= info->tx_attr->inject_size)
            rc = fi_inject(re->ep, iov[0].iov_base, total, to);
        else if (!context)
            pg_fatal("transport", "a %zu-byte send needs a completion context", total);
        else
            rc = fi_sendv(re->ep, iov, desc, count, to, context);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, "fi_sendv");
        progress(re);
    }
}

/* With several rails a buffer goes to the rail up with the fewest. */
static void ofi_post_multi_recv(struct pg_net_ep *e, struct pg_net_multi_recv *m, void *buf,
                                size_t len, void *desc)
{
    int r = 0;
    for (int k = 1; k < nrails; k++)
        if (e->rail[k].up && (!e->rail[r].up || e->rail[k].nposted < e->rail[r].nposted))
            r = k;
    struct rail_ep *re = &e->rail[r];
    *m = (struct pg_net_multi_recv){.buf = buf, .len = len, .rail = r};
    struct iovec iov = {buf, len};
    struct fi_msg msg = {
        .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC, .context = m};
    for (;;) {
        ssize_t rc = fi_recvmsg(re->ep, &msg, FI_MULTI_RECV);
        if (rc == 0)
            break;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, "fi_recvmsg");
        progress(re);
    }
    if (nrails == 1)
        return;
    if (re->nposted == re->posted_cap) {
        int cap = re->posted_cap ? 2 * re->posted_cap : 8;
        struct pg_net_multi_recv **grown = realloc(re->posted, (size_t)cap * sizeof *grown);
        if (!grown)
            pg_fatal("transport", "out of memory for a rail's receive buffers");
        re->posted = grown;
        re->posted_cap = cap;
    }
    re->posted[re->nposted++] = m;
    if (re->rejoining)
        rail_has_buffer(e, r);
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
    OFI_CHECK(fi_mr_reg(e->rail[0].domain, buf, len, access, 0, key, 0, &m->mr, NULL), "fi_mr_reg");
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        OFI_CHECK(fi_mr_bind(m->mr, &e->rail[0].ep->fid, 0), "fi_mr_bind");
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
        ssize_t rc = write ? fi_writemsg(e->rail[0].ep, &msg, flags)
                           : fi_readmsg(e->rail[0].ep, &msg, flags);
        if (rc == 0)
            return;
        if (rc != -FI_EAGAIN)
            OFI_CHECK(rc, write ? "fi_writemsg" : "fi_readmsg");
        progress(&e->rail[0]);
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

/* A receive buffer of a several-rail endpoint used up: no longer one of its rail's. */
static void unpost(struct rail_ep *re, const struct pg_net_multi_recv *m)
{
    for (int i = 0; i < re->nposted; i++)
        if (re->posted[i] == m) {
            re->posted[i] = re->posted[--re->nposted];
            return;
        }
}

/* Completions read from rail r of e into events (n of them, or the read's error). With one
 * rail an error stops the job; with several, it takes the rail out. */
static int convert(struct pg_net_ep *e, int r, ssize_t n, struct fi_cq_data_entry *entries,
                   struct pg_net_event *events)
{
    struct rail_ep *re = &e->rail[r];
    if (n == -FI_EAGAIN || n == -FI_EINTR)
        return 0; /* EINTR: a signal (a debugger, a profiler) interrupted the wait */
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        fi_cq_readerr(re->cq, &err, 0);
        if (nrails > 1 && err.err == FI_ECANCELED && (err.flags & FI_RECV)) {
            /* a receive buffer cancelled for a rail that rejoins (rail_back) */
            unpost(re, err.op_context);
            give_back(e, (struct pg_net_event){
                             .context = err.op_context, .is_recv = 1, .buffer_done = 1, .rail = r});
            return 0;
        }
        const char *why = fi_cq_strerror(re->cq, err.prov_errno, err.err_data, NULL, 0);
        if (nrails == 1 || (in_use(re) && rails_in_use(e) == 1 && !spare_rail(e, r)))
            pg_fatal("transport", "%s endpoint: operation failed: %s", e->role, why);
        rail_out(e, r, why);
        return 0;
    }
    OFI_CHECK(n, "fi_cq_read");
    uint64_t now = nrails > 1 && n > 0 ? pg_now_ns() : 0;
    int out = 0;
    for (ssize_t i = 0; i < n; i++) {
        const struct fi_cq_data_entry *c = &entries[i];
        int is_recv = (c->flags & (FI_RECV | FI_MULTI_RECV)) != 0;
        void *context = c->op_context;
        if (nrails > 1 && is_recv && (c->flags & FI_REMOTE_CQ_DATA)) {
            /* a probe or its answer: only its buffer, if used up, goes to the caller */
            re->last_done_ns = re->last_recv_ns = now;
            re->timeouts = 0;
            probe_arrived(e, r, c->data, c->buf, c->len);
            if (multi_recv_done(e, context, c->buf, c->len, (c->flags & FI_MULTI_RECV) != 0)) {
                unpost(re, context);
                events[out++] = (struct pg_net_event){
                    .context = context, .is_recv = 1, .buffer_done = 1, .rail = r};
            }
            continue;
        }
        if (nrails > 1 && !is_recv) { /* a tracked send (no RMA with several rails) */
            struct tracked_send *t = context;
            context = t->context;
            untrack(t);
            t->next = e->spare;
            e->spare = t;
        }
        struct pg_net_event *ev = &events[out++];
        *ev = (struct pg_net_event){
            .context = context,
            .buf = c->buf,
            .len = c->len,
            .is_recv = is_recv,
            .is_rma = (c->flags & FI_RMA) != 0,
            .buffer_done = is_recv && multi_recv_done(e, context, c->buf, c->len,
                                                      (c->flags & FI_MULTI_RECV) != 0),
            .rail = r,
        };
        if (nrails > 1) {
            re->last_done_ns = now;
            if (is_recv) {
                re->last_recv_ns = now;
                re->timeouts = 0;
            }
            if (ev->buffer_done)
                unpost(re, context);
        }
    }
    return out;
}

#define MAX_EVENTS 64

/* Several rails: completions given back by rails taken out first, then each rail's in turn. */
static int poll_rails(struct pg_net_ep *e, struct pg_net_event *events, int max)
{
    check_rails(e);
    if (e->ngiven_back) {
        int n = e->ngiven_back < max ? e->ngiven_back : max;
        memcpy(events, e->given_back, (size_t)n * sizeof *events);
        memmove(e->given_back, e->given_back + n, (size_t)(e->ngiven_back - n) * sizeof *events);
        e->ngiven_back -= n;
        return n;
    }
    struct fi_cq_data_entry entries[MAX_EVENTS];
    for (int k = 0; k < nrails; k++) {
        int r = (e->next_rail + k) % nrails;
        if (!e->rail[r].up)
            continue;
        int n = convert(e, r, fi_cq_read(e->rail[r].cq, entries, (size_t)max), entries, events);
        if (n || e->ngiven_back) {
            e->next_rail = (r + 1) % nrails;
            return n ? n : poll_rails(e, events, max);
        }
    }
    return 0;
}

/* Several rails: sleeps on their queues' wait set, or with an rxm provider on their file
 * descriptors (poll(2) after fi_trywait; at most a millisecond when a provider cannot tell that
 * nothing is pending: a connection being set up, data not yet read), at most RAIL_CHECK_NS at
 * a time so that the links are looked at, then reads the queues again. */
static int wait_rails(struct pg_net_ep *e, struct pg_net_event *events, int max, int timeout_ms)
{
    int n = poll_rails(e, events, max);
    if (n)
        return n;
    int most = (int)(RAIL_CHECK_NS / 1000000);
    if (e->waitset) {
        /* A timeout of -1 (none) is capped too. */
        fi_wait(e->waitset, timeout_ms >= 0 && timeout_ms < most ? timeout_ms : most);
        return poll_rails(e, events, max);
    }
    struct pollfd fds[MAX_RAILS];
    int nfds = 0;
    for (int r = 0; r < nrails; r++) {
        struct rail_ep *re = &e->rail[r];
        if (!re->up)
            continue;
        struct fid *cq = &re->cq->fid;
        if (fi_trywait(rails[r].fabric, &cq, 1) != FI_SUCCESS)
            most = 1;
        fds[nfds++] = (struct pollfd){.fd = re->wait_fd, .events = POLLIN};
    }
    poll(fds, (nfds_t)nfds, timeout_ms >= 0 && timeout_ms < most ? timeout_ms : most);
    return poll_rails(e, events, max);
}

static int ofi_poll(struct pg_net_ep *e, struct pg_net_event *events, int max)
{
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    if (nrails > 1)
        return poll_rails(e, events, max);
    struct fi_cq_data_entry entries[MAX_EVENTS];
    return convert(e, 0, fi_cq_read(e->rail[0].cq, entries, (size_t)max), entries, events);
}

static int ofi_wait(struct pg_net_ep *e, struct pg_net_event *events, int max, int timeout_ms)
{
    if (max > MAX_EVENTS)
        max = MAX_EVENTS;
    if (nrails > 1)
        return wait_rails(e, events, max, timeout_ms);
    struct fi_cq_data_entry entries[MAX_EVENTS];
    return convert(e, 0, fi_cq_sread(e->rail[0].cq, entries, (size_t)max, NULL, timeout_ms),
                   entries, events);
}

/* libfabric's providers keep their own flow control: no credits of Pangea's to count. */
static struct pg_net_credit_peak ofi_credit_peak(void)
{
    return (struct pg_net_credit_peak){0};
}

static int ofi_rails(void)
{
    int n = 0;
    for (int r = 0; r < nrails; r++)
        n += rails[r].reaches;
    return n;
}

/* My rails against the other nodes' names: a rail on a network none of them is on is closed
 * (or, named in PANGEA_RAILS, stops init); a node none of my rails reaches stops init. */
static void ofi_check_reach(const char (*names)[PG_NET_ADDR_MAX], int count, int self)
{
    char listed[MAX_RAILS][RAIL_NAME_MAX];
    int explicit = named_rails(listed) > 0;
    for (int r = 0; r < nrails; r++) {
        rails[r].reaches = 0;
        for (int node = 0; node < count; node++)
            if (node != self && rail_address(names[node], rails[r].network))
                rails[r].reaches = 1;
        if (!rails[r].reaches && explicit)
            pg_fatal("shmem_init",
                     "PANGEA_RAILS names the rail %s (network %s), which reaches no other node",
                     rails[r].info->domain_attr->name, rails[r].info->fabric_attr->name);
    }
    for (int node = 0; node < count; node++) {
        int reached = node == self;
        for (int r = 0; r < nrails; r++)
            reached |= rails[r].reaches && rail_address(names[node], rails[r].network) != NULL;
        if (!reached)
            pg_fatal("shmem_init", "%s: none of this node's rails (first: %s) reaches node %d",
                     explicit ? "PANGEA_RAILS" : "the network", rails[0].info->domain_attr->name,
                     node);
    }
    for (int r = 0; r < nrails; r++)
        for (size_t i = 0; !rails[r].reaches && i < sizeof open_eps / sizeof *open_eps; i++)
            if (open_eps[i])
                rail_out(open_eps[i], r, "it reaches no other node");
}

static int ofi_multi_recv_needed(struct pg_net_ep *e, const struct pg_net_multi_recv *m)
{
    return nrails > 1 && e->rail[m->rail].up && e->rail[m->rail].nposted == 0;
}

static void ofi_set_failover(int on)
{
    failover = on;
}

static int ofi_failover(void)
{
    return failover;
}

static const char *ofi_rail_traffic(struct pg_net_ep *e, int r, struct pg_net_rail_traffic *traffic)
{
    if (nrails == 1 || r < 0 || r >= nrails || !e)
        return NULL;
    *traffic = e->rail[r].traffic;
    return rails[r].info->domain_attr->name;
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
    .rails = ofi_rails,
    .multi_recv_needed = ofi_multi_recv_needed,
    .check_reach = ofi_check_reach,
    .set_failover = ofi_set_failover,
    .failover = ofi_failover,
    .reroute = ofi_reroute,
    .route = ofi_route,
    .rail_traffic = ofi_rail_traffic,
};
