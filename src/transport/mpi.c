/* The MPI path (PANGEA_TRANSPORT=mpi): the data server's protocol as MPI messages on a private
 * duplicate of the world communicator, for sites where the MPI library is the only or the best
 * way onto the network. An endpoint is a (rank, tag) pair; multi-receive buffers are emulated
 * by matching each arriving message (MPI_Improbe) into the next free place of the oldest
 * posted buffer, so they fill exactly as libfabric fills them; completions come from
 * MPI_Testsome, receives in the order they were matched (MPI keeps each sender's order, the
 * protocol's FI_ORDER_SAS). Messages in flight are capped per peer and per endpoint
 * (PANGEA_MPI_CREDITS) so that an application's own MPI traffic keeps its share of the
 * library's resources. No RMA: every transfer goes through the data servers. A process's
 * waiting threads share one driver of MPI's progress; the others sleep until it finds their
 * completions (mpi_wait). */
#define _GNU_SOURCE /* pthread_cond_clockwait */
#include "transport_internal.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <time.h>

/* What an endpoint's name holds: its process's rank and the tag its messages carry. */
struct mpi_name {
    uint32_t rank, tag;
};

/* A message matched into a multi-receive buffer; reported once it and every one matched before
 * it have landed. */
struct arrival {
    struct arrival *next;
    struct pg_net_multi_recv *m;
    char *buf;
    size_t len;
    int landed;
    int buffer_done; /* the last message its buffer takes */
};

enum op_kind { OP_SEND, OP_RECV };

/* What an MPI request in flight is for. */
struct op {
    enum op_kind kind;
    void *context;           /* OP_SEND: reported on completion unless NULL */
    void *copy;              /* OP_SEND: the caller's pieces gathered, freed on completion */
    struct arrival *arrival; /* OP_RECV */
    int peer;                /* sends: the credits they hold */
    size_t bytes;
};

struct pg_net_ep {
    pthread_mutex_t lock; /* a PE's threads share its endpoint */
    const char *role;
    uint32_t tag;
    size_t max_message;
    /* Requests in flight, and what each is for (parallel arrays). */
    MPI_Request *requests;
    struct op *ops;
    int *done; /* MPI_Testsome's indices and statuses */
    MPI_Status *statuses;
    int active, capacity;
    /* Buffers awaiting messages, oldest first. */
    struct pg_net_multi_recv **posted;
    int nposted, posted_capacity;
    struct arrival *first, *last; /* matched, not yet reported */
    /* Completed sends not yet reported. */
    struct pg_net_event *sent;
    int nsent, sent_capacity;
    /* Credits: sends in flight, by peer rank and in all, and their bytes. */
    int *to_peer;
    int in_flight;
    size_t bytes_in_flight;
    uint64_t last_event_ns;      /* when a completion of its own was last reported */
    struct pg_net_ep *next_open; /* the process's endpoints (progress.open) */
};

/* Nothing to register: MPI takes any memory. A region is remembered only to be closed. */
struct pg_net_mr {
    const void *base;
};

/* The most any endpoint of the process held in flight (pg_net_credit_peak). */
static struct pg_net_credit_peak peak;

static MPI_Comm comm = MPI_COMM_NULL;
static int comm_size;
static uint32_t next_tag; /* tags of this process's endpoints */

/* The driver polls and yields for this long after the process's last event, then sleeps
 * (drive_until). */
#define WAIT_YIELD_NS 50000
#define WAIT_MOST_SLEEP_NS 16000000
/* A waiter that is not the driver looks at least this often whether one still drives: a
 * driver that leaves wakes no one (mpi_wait). */
#define WAIT_MOST_HANDOVER_NS 2000000

/* MPI has no wait object a thread could sleep on (its blocking calls poll), so of the process's
 * threads waiting in mpi_wait (a PE's, its node's data server's) one, the driver, polls MPI for
 * every endpoint of the process and wakes the others when it finds their completions; they
 * sleep on a condition variable meanwhile. Two pollers would compete for the cores the PEs
 * need, and a polling thread spends its share of the core, so that a loaded machine runs it
 * late (perf/README.md). */
static struct {
    pthread_mutex_t lock;
    pthread_cond_t woken;   /* a sleeping waiter's completions found, or a pass ended */
    struct pg_net_ep *open; /* the process's endpoints */
    int driving;            /* a waiter is the driver */
    unsigned turn;          /* counts take-overs: the driver's own, while it drives */
    int in_pass;            /* drivers polling the endpoints (mpi_ep_close waits): the one
                             * taken over may be finishing its pass */
    int sleepers;           /* waiters asleep on woken */
    int closing;            /* mpi_ep_close waiting for a pass to end */
    uint64_t last_event_ns; /* when a poll of any endpoint last found something */
} progress = {.lock = PTHREAD_MUTEX_INITIALIZER, .woken = PTHREAD_COND_INITIALIZER};

/* Pieces of one send (the protocol's replies have two: header and data). */
#define MAX_PIECES 4

/* Up to this size a send's pieces are gathered into one buffer (MPI then copies it once more
 * into its eager buffer) and an arrival is received at once with MPI_Mrecv: building and freeing
 * a derived datatype per message, or tracking one more request, costs more CPU than copying a
 * few KiB (perf/README.md). Larger pieces go as an MPI datatype, without the extra copy. */
#define SMALL_MESSAGE 8192

/* What the MPI library reads in MPI_Init, set before main runs: a program that starts MPI
 * itself (every ARMCI and Global Arrays program) does so before shmem_init. A user's value is
 * kept. MPICH's default thread level becomes MULTIPLE (the data server thread sends and
 * receives beside the PE; other MPI libraries need MPI_Init_thread, and mpi_init says so when
 * the level is short). UCX (MPICH's ch4:ucx) sends every Pangea message eagerly: by
 * rendezvous, above UCX's own eager limit (below the 64 KiB chunk over TCP), a message moves
 * only while its sender and its receiver both call into MPI, which cost the pipeline 3-5x in
 * bandwidth (perf/README.md). Twice the chunk covers a message's header and descriptors.
 * UCX's TCP transport sends an eager message in fragments of UCX_TCP_TX_SEG_SIZE (8 KiB by
 * default): a get's reply (header and data, a derived datatype) took 2.5-3x as long to send
 * as a contiguous put chunk of the same size, and the replies queued behind a full socket
 * move only as the server's process drives MPI. With 32 KiB fragments a reply costs what a
 * put chunk does (docs/transport.md, "Fragments"). */
__attribute__((constructor)) static void mpi_library_defaults(void)
{
    const char *transport = getenv("PANGEA_TRANSPORT");
    if (!transport || strcasecmp(transport, "mpi") != 0)
        return;
    setenv("MPIR_CVAR_DEFAULT_THREAD_LEVEL", "MPI_THREAD_MULTIPLE", 0);
    char threshold[32];
    snprintf(threshold, sizeof threshold, "%zu",
             2 * pg_config_early_size("PANGEA_PIPELINE_BUFFER_SIZE"));
    setenv("UCX_RNDV_THRESH", threshold, 0);
    setenv("UCX_TCP_TX_SEG_SIZE", "32K", 0);
}

static fi_addr_t address(uint32_t rank, uint32_t tag)
{
    return (fi_addr_t)tag << 32 | rank;
}

static int mpi_init(size_t max_message)
{
    (void)max_message; /* MPI takes messages of any size */
    int initialized = 0, finalized = 0, provided = MPI_THREAD_SINGLE;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized || finalized)
        return -1; /* a tool without MPI (pangea-info): shmem_init always has it running */
    MPI_Query_thread(&provided);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr,
                "pangea: shmem_init: PANGEA_TRANSPORT=mpi needs MPI_THREAD_MULTIPLE (the data "
                "server thread sends and receives beside the PE), but the MPI library was "
                "initialized at a lower level; start MPI with MPI_Init_thread(MPI_THREAD_MULTIPLE) "
                "(MPICH: or leave MPIR_CVAR_DEFAULT_THREAD_LEVEL unset) or use "
                "PANGEA_TRANSPORT=ofi\n");
        return -1;
    }
    if (pg_cfg.mpi_credits < 1) {
        fprintf(stderr,
                "pangea: shmem_init: PANGEA_MPI_CREDITS=%lld: at least 1 message must be "
                "allowed in flight\n",
                pg_cfg.mpi_credits);
        return -1;
    }
    MPI_Comm_dup(pg_startup_world(), &comm);
    MPI_Comm_size(comm, &comm_size);
    return 0;
}

static void mpi_fini(void)
{
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (comm != MPI_COMM_NULL && !finalized)
        MPI_Comm_free(&comm);
    comm = MPI_COMM_NULL;
}

static int mpi_has_rma(void)
{
    return 0;
}

static int mpi_local_mr(void)
{
    return 0;
}

static void mpi_describe(FILE *out)
{
    if (comm == MPI_COMM_NULL) {
        fprintf(out, "  mpi   not opened\n");
        return;
    }
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = 0;
    fprintf(out, "  mpi   messages on a private duplicate of the world communicator (%s)\n",
            version);
    fprintf(out,
            "        in flight: %lld messages to a peer, %lld and %lld bytes in all per endpoint "
            "(PANGEA_MPI_CREDITS)\n",
            pg_cfg.mpi_credits, 4 * pg_cfg.mpi_credits,
            pg_cfg.mpi_credits * pg_cfg.pipeline_buffer_size);
    fprintf(out, "        every off-node transfer, AMO and accumulate: requests to the target "
                 "node's data server, through the pipeline (no RMA)\n");
}

static const char *mpi_provider(void)
{
    return "mpi";
}

static const char *mpi_domain(void)
{
    return NULL; /* the MPI library chooses the interface */
}

static size_t mpi_max_msg(void)
{
    return INT_MAX;
}

static void *grow(void *array, int *capacity, int least, size_t element)
{
    if (least <= *capacity)
        return array;
    int cap = *capacity ? *capacity : 16;
    while (cap < least)
        cap *= 2;
    void *bigger = realloc(array, (size_t)cap * element);
    if (!bigger)
        pg_fatal("transport", "out of memory for the mpi transport's requests");
    *capacity = cap;
    return bigger;
}

static struct pg_net_ep *mpi_ep_open(const char *role, size_t max_message)
{
    struct pg_net_ep *e = calloc(1, sizeof *e);
    if (!e || !(e->to_peer = calloc((size_t)comm_size, sizeof *e->to_peer)))
        pg_fatal("transport", "out of memory");
    pthread_mutex_init(&e->lock, NULL);
    e->role = role;
    e->max_message = max_message;
    e->tag = __atomic_add_fetch(&next_tag, 1, __ATOMIC_RELAXED);
    e->last_event_ns = pg_now_ns();
    pthread_mutex_lock(&progress.lock);
    e->next_open = progress.open;
    progress.open = e;
    __atomic_store_n(&progress.last_event_ns, pg_now_ns(), __ATOMIC_RELAXED);
    pthread_mutex_unlock(&progress.lock);
    return e;
}

static size_t mpi_ep_name(struct pg_net_ep *e, void *addr)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct mpi_name name = {(uint32_t)rank, e->tag};
    memcpy(addr, &name, sizeof name);
    return sizeof name;
}

static fi_addr_t mpi_av_insert(struct pg_net_ep *e, const void *addr)
{
    struct mpi_name name;
    memcpy(&name, addr, sizeof name);
    if (name.rank >= (uint32_t)comm_size)
        pg_fatal("transport", "%s endpoint: address of rank %u in a job of %d", e->role, name.rank,
                 comm_size);
    return address(name.rank, name.tag);
}

static void add_request(struct pg_net_ep *e, MPI_Request request, struct op op)
{
    if (e->active == e->capacity) {
        int cap = e->capacity ? 2 * e->capacity : 16;
        MPI_Request *requests = realloc(e->requests, (size_t)cap * sizeof *requests);
        if (requests)
            e->requests = requests;
        struct op *ops = realloc(e->ops, (size_t)cap * sizeof *ops);
        if (ops)
            e->ops = ops;
        int *done = realloc(e->done, (size_t)cap * sizeof *done);
        if (done)
            e->done = done;
        MPI_Status *statuses = realloc(e->statuses, (size_t)cap * sizeof *statuses);
        if (statuses)
            e->statuses = statuses;
        if (!requests || !ops || !done || !statuses)
            pg_fatal("transport", "out of memory for the mpi transport's requests");
        e->capacity = cap;
    }
    e->requests[e->active] = request;
    e->ops[e->active++] = op;
}

static size_t align_up(size_t at)
{
    return (at + 7) & ~(size_t)7;
}

static void arrival_landed(struct arrival *a)
{
    a->landed = 1;
    a->m->landed += a->len;
}

/* Matches waiting messages into the posted buffers, oldest buffer first. Returns how many
 * landed at once. Lock held. */
static int match_arrivals(struct pg_net_ep *e)
{
    int landed = 0;
    while (e->nposted) {
        int flag = 0, count = 0;
        MPI_Message message;
        MPI_Status status;
        MPI_Improbe(MPI_ANY_SOURCE, (int)e->tag, comm, &flag, &message, &status);
        if (!flag)
            break;
        MPI_Get_count(&status, MPI_BYTE, &count);
        if ((size_t)count > e->max_message)
            pg_fatal("transport",
                     "%s endpoint: a %d-byte message from rank %d, more than the %zu "
                     "its buffers take",
                     e->role, count, status.MPI_SOURCE, e->max_message);
        struct pg_net_multi_recv *m = e->posted[0];
        size_t at = align_up(m->reached);
        struct arrival *a = malloc(sizeof *a);
        if (!a)
            pg_fatal("transport", "out of memory for an arrival");
        *a = (struct arrival){.m = m, .buf = m->buf + at, .len = (size_t)count};
        m->reached = at + (size_t)count;
        if (m->len - align_up(m->reached) < e->max_message) {
            m->released = 1;
            a->buffer_done = 1;
            memmove(e->posted, e->posted + 1, (size_t)--e->nposted * sizeof *e->posted);
        }
        if (e->last)
            e->last->next = a;
        else
            e->first = a;
        e->last = a;
        if ((size_t)count <= SMALL_MESSAGE) {
            /* Already in the library (eager): completes at once. */
            MPI_Mrecv(a->buf, count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
            arrival_landed(a);
            landed++;
            continue;
        }
        MPI_Request request;
        MPI_Imrecv(a->buf, count, MPI_BYTE, &message, &request);
        add_request(e, request, (struct op){.kind = OP_RECV, .arrival = a});
    }
    return landed;
}

static void completed(struct pg_net_ep *e, const struct op *op)
{
    if (op->kind == OP_RECV) {
        arrival_landed(op->arrival);
        return;
    }
    e->to_peer[op->peer]--;
    e->in_flight--;
    e->bytes_in_flight -= op->bytes;
    free(op->copy);
    if (!op->context)
        return;
    e->sent = grow(e->sent, &e->sent_capacity, e->nsent + 1, sizeof *e->sent);
    e->sent[e->nsent++] = (struct pg_net_event){.context = op->context};
}

/* Whether completions wait to be reported. Lock held. */
static int has_events(const struct pg_net_ep *e)
{
    return e->nsent || (e->first && e->first->landed);
}

/* Drives MPI's progress for the endpoint: new arrivals matched, finished requests collected.
 * Returns how many messages landed or were sent. Lock held. */
static int drive(struct pg_net_ep *e)
{
    int landed = match_arrivals(e);
    if (!e->active)
        return landed;
    int n = 0;
    MPI_Testsome(e->active, e->requests, &n, e->done, e->statuses);
    if (n == MPI_UNDEFINED || n == 0)
        return landed;
    for (int i = 0; i < n; i++)
        completed(e, &e->ops[e->done[i]]);
    int kept = 0;
    for (int i = 0; i < e->active; i++) {
        if (e->requests[i] == MPI_REQUEST_NULL)
            continue;
        e->requests[kept] = e->requests[i];
        e->ops[kept++] = e->ops[i];
    }
    e->active = kept;
    return landed + n;
}

/* Whether a send of bytes to peer stays within the credits. Lock held. */
static int credit_for(const struct pg_net_ep *e, int peer, size_t bytes)
{
    long long credits = pg_cfg.mpi_credits;
    size_t byte_credits = (size_t)(credits * pg_cfg.pipeline_buffer_size);
    return e->to_peer[peer] < credits && e->in_flight < 4 * credits &&
           (e->in_flight == 0 || e->bytes_in_flight + bytes <= byte_credits);
}

/* The process's two endpoints (a PE's and its node's data server's) raise it concurrently. */
static void raise_peak(long long *most, long long now)
{
    long long seen = __atomic_load_n(most, __ATOMIC_RELAXED);
    while (now > seen &&
           !__atomic_compare_exchange_n(most, &seen, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void mpi_sendv(struct pg_net_ep *e, fi_addr_t to, const struct iovec *iov, void **desc,
                      size_t count, void *context)
{
    (void)desc;
    int peer = (int)(to & 0xffffffffu), tag = (int)(to >> 32);
    size_t total = 0;
    for (size_t i = 0; i < count; i++)
        total += iov[i].iov_len;
    if (total > INT_MAX || count > MAX_PIECES)
        pg_fatal("transport",
                 "a %zu-byte send in %zu pieces: the mpi transport takes at most "
                 "%d pieces and INT_MAX bytes",
                 total, count, MAX_PIECES);
    pthread_mutex_lock(&e->lock);
    while (!credit_for(e, peer, total)) {
        drive(e);
        if (credit_for(e, peer, total))
            break;
        pthread_mutex_unlock(&e->lock);
        sched_yield();
        pthread_mutex_lock(&e->lock);
    }
    struct op op = {.kind = OP_SEND, .context = context, .peer = peer, .bytes = total};
    MPI_Request request;
    if (!context || (count > 1 && total <= SMALL_MESSAGE)) {
        /* Without a context the send is complete for the caller, who may reuse its buffers on
         * return. */
        char *copy = malloc(total ? total : 1);
        if (!copy)
            pg_fatal("transport", "out of memory for a %zu-byte send", total);
        size_t at = 0;
        for (size_t i = 0; i < count; i++) {
            memcpy(copy + at, iov[i].iov_base, iov[i].iov_len);
            at += iov[i].iov_len;
        }
        op.copy = copy;
        MPI_Isend(copy, (int)total, MPI_BYTE, peer, tag, comm, &request);
    } else if (count == 1) {
        MPI_Isend(iov[0].iov_base, (int)total, MPI_BYTE, peer, tag, comm, &request);
    } else {
        /* The pieces (a reply's header and its data) as one message, without a copy. */
        int lengths[MAX_PIECES];
        MPI_Aint places[MAX_PIECES];
        for (size_t i = 0; i < count; i++) {
            lengths[i] = (int)iov[i].iov_len;
            MPI_Get_address(iov[i].iov_base, &places[i]);
        }
        MPI_Datatype pieces;
        MPI_Type_create_hindexed((int)count, lengths, places, MPI_BYTE, &pieces);
        MPI_Type_commit(&pieces);
        MPI_Isend(MPI_BOTTOM, 1, pieces, peer, tag, comm, &request);
        MPI_Type_free(&pieces); /* MPI keeps it until the send completes */
    }
    e->to_peer[peer]++;
    e->in_flight++;
    e->bytes_in_flight += total;
    raise_peak(&peak.to_peer, e->to_peer[peer]);
    raise_peak(&peak.messages, e->in_flight);
    if (e->in_flight > 1)
        raise_peak(&peak.bytes, (long long)e->bytes_in_flight);
    add_request(e, request, op);
    pthread_mutex_unlock(&e->lock);
}

static void mpi_post_multi_recv(struct pg_net_ep *e, struct pg_net_multi_recv *m, void *buf,
                                size_t len, void *desc)
{
    (void)desc;
    if (len < e->max_message)
        pg_fatal("transport",
                 "%s endpoint: a %zu-byte receive buffer cannot hold a %zu-byte "
                 "message",
                 e->role, len, e->max_message);
    *m = (struct pg_net_multi_recv){.buf = buf, .len = len};
    pthread_mutex_lock(&e->lock);
    e->posted = grow(e->posted, &e->posted_capacity, e->nposted + 1, sizeof *e->posted);
    e->posted[e->nposted++] = m;
    pthread_mutex_unlock(&e->lock);
}

static struct pg_net_mr *mpi_mr_reg(struct pg_net_ep *e, const void *buf, size_t len,
                                    uint64_t access)
{
    (void)e, (void)len, (void)access;
    struct pg_net_mr *m = malloc(sizeof *m);
    if (!m)
        pg_fatal("transport", "out of memory");
    m->base = buf;
    return m;
}

static void *mpi_mr_desc(const struct pg_net_mr *m)
{
    (void)m;
    return NULL;
}

static uint64_t mpi_mr_key(const struct pg_net_mr *m)
{
    (void)m;
    return 0;
}

static uint64_t mpi_mr_remote_base(const struct pg_net_mr *m)
{
    return (uint64_t)(uintptr_t)m->base;
}

static void mpi_mr_close(struct pg_net_mr *m)
{
    free(m);
}

static void mpi_rma(struct pg_net_ep *e, int write, fi_addr_t peer, void *buf, size_t len,
                    void *desc, uint64_t addr, uint64_t key, void *context)
{
    (void)peer, (void)buf, (void)desc, (void)addr, (void)key, (void)context;
    pg_fatal("transport",
             "%s endpoint: a direct RMA %s of %zu bytes, but the mpi transport "
             "offers none (pg_net_has_rma is 0)",
             e->role, write ? "write" : "read", len);
}

/* Reports what completed: sends first, then the receives that landed, in the order they were
 * matched. Lock held. */
static int take_events(struct pg_net_ep *e, struct pg_net_event *events, int max)
{
    int n = e->nsent < max ? e->nsent : max;
    memcpy(events, e->sent, (size_t)n * sizeof *events);
    memmove(e->sent, e->sent + n, (size_t)(e->nsent - n) * sizeof *e->sent);
    e->nsent -= n;
    while (n < max && e->first && e->first->landed) {
        struct arrival *a = e->first;
        if (!(e->first = a->next))
            e->last = NULL;
        events[n++] = (struct pg_net_event){.context = a->m,
                                            .buf = a->buf,
                                            .len = a->len,
                                            .is_recv = 1,
                                            .buffer_done = a->buffer_done};
        free(a);
    }
    if (n)
        e->last_event_ns = pg_now_ns();
    return n;
}

static void note_event(void)
{
    __atomic_store_n(&progress.last_event_ns, pg_now_ns(), __ATOMIC_RELAXED);
}

static int mpi_poll(struct pg_net_ep *e, struct pg_net_event *events, int max)
{
    pthread_mutex_lock(&e->lock);
    drive(e);
    int n = take_events(e, events, max);
    pthread_mutex_unlock(&e->lock);
    if (n)
        note_event();
    return n;
}

/* The driver's poll of every endpoint of the process: mine's completions returned, the other
 * endpoints' waiters woken when theirs found some. *pending: whether an MPI request is in
 * flight on any of them. */
static int drive_all(struct pg_net_ep *mine, struct pg_net_event *events, int max, int *pending)
{
    pthread_mutex_lock(&progress.lock);
    progress.in_pass++;
    struct pg_net_ep *first = progress.open;
    pthread_mutex_unlock(&progress.lock);
    int n = 0, others = 0;
    *pending = 0;
    for (struct pg_net_ep *e = first; e; e = e->next_open) {
        pthread_mutex_lock(&e->lock);
        int found = drive(e);
        *pending |= e->active > 0;
        if (e == mine)
            n = take_events(e, events, max);
        else
            others |= found && has_events(e);
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_lock(&progress.lock);
    progress.in_pass--;
    if ((others && progress.sleepers) || progress.closing)
        pthread_cond_broadcast(&progress.woken);
    pthread_mutex_unlock(&progress.lock);
    if (n || others)
        note_event();
    return n;
}

/* How long a waiter sleeps between two polls (the driver) or two looks for a driver (the
 * others), `quiet` after the last completion it saw: a quarter of that, at most `most`, and
 * never past its deadline. */
static struct timespec slice_end(uint64_t now, uint64_t quiet, uint64_t most, uint64_t deadline)
{
    uint64_t sleep_ns = quiet / 4 > most ? most : quiet / 4;
    uint64_t wake = now + sleep_ns < deadline ? now + sleep_ns : deadline;
    return (struct timespec){(time_t)(wake / 1000000000), (long)(wake % 1000000000)};
}

/* Sleeps on progress.woken until `until`, lock held, with a timer slack of 1 ns: the first
 * slices are tens of microseconds, and the thread's slack (50 us by default) would more than
 * double them. The caller's own slack is given back. */
static void sleep_slice(const struct timespec *until)
{
    int slack = prctl(PR_GET_TIMERSLACK, 0UL, 0UL, 0UL, 0UL);
    prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    pthread_cond_clockwait(&progress.woken, &progress.lock, CLOCK_MONOTONIC, until);
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0UL, 0UL, 0UL);
}

/* The driver's wait, its turn while no other waiter has taken over (then -1): polls and
 * yields for WAIT_YIELD_NS after the process's last event, then polls between sleeps
 * (slice_end). The spell spans calls: a caller that waits in short slices (the data server,
 * 10 ms while PEs wait for grants) sleeps as long. Never asleep while a request is in flight:
 * a message above the library's eager limit goes by rendezvous, which moves only while both
 * ends call into MPI. */
static int drive_until(struct pg_net_ep *e, struct pg_net_event *events, int max, uint64_t deadline,
                       unsigned turn)
{
    for (;;) {
        if (__atomic_load_n(&progress.turn, __ATOMIC_RELAXED) != turn)
            return -1;
        int pending;
        int n = drive_all(e, events, max, &pending);
        uint64_t now = pg_now_ns();
        if (n || now >= deadline)
            return n;
        uint64_t quiet = now - __atomic_load_n(&progress.last_event_ns, __ATOMIC_RELAXED);
        if (quiet < WAIT_YIELD_NS || pending) {
            sched_yield();
            continue;
        }
        struct timespec until = slice_end(now, quiet, WAIT_MOST_SLEEP_NS, deadline);
        pthread_mutex_lock(&progress.lock);
        if (progress.turn == turn) {
            /* Counted among the sleepers: taken over meanwhile, it is woken like them when
             * the new driver finds its completions. */
            progress.sleepers++;
            sleep_slice(&until);
            progress.sleepers--;
        }
        pthread_mutex_unlock(&progress.lock);
    }
}

/* The latest thread to wait drives (drive_until). The one it takes over from, and any other
 * waiter, sleeps until the driver finds its completions (it is woken), its deadline, or the
 * end of a slice of its own quiet spell (slice_end, at most WAIT_MOST_HANDOVER_NS) when no
 * one drives any more: then it drives. The latest is the one that has just had work (a PE's
 * reply, a server's request), so its next completion is the likelier to come soon, and it
 * finds it itself; with the first waiter driving, the node's idle data server drove, took the
 * role back whenever the PE left with a reply, and every reply of the PE's cost a wake-up, a
 * thread to schedule, hundreds of microseconds late on a loaded machine (perf/README.md). A
 * driver that leaves wakes no one: the PE that leaves with its reply is usually back before a
 * woken server would have polled once, and the wake-up would cost it a system call and the
 * server's pass a contended MPI lock. */
static int mpi_wait(struct pg_net_ep *e, struct pg_net_event *events, int max, int timeout_ms)
{
    uint64_t deadline = pg_now_ns() + (uint64_t)timeout_ms * 1000000;
    pthread_mutex_lock(&progress.lock);
    for (;;) {
        unsigned turn = __atomic_add_fetch(&progress.turn, 1, __ATOMIC_RELAXED);
        progress.driving = 1;
        pthread_mutex_unlock(&progress.lock);
        int n = drive_until(e, events, max, deadline, turn);
        pthread_mutex_lock(&progress.lock);
        if (n >= 0) {
            if (progress.turn == turn)
                progress.driving = 0;
            pthread_mutex_unlock(&progress.lock);
            return n;
        }
        for (;;) {
            pthread_mutex_lock(&e->lock);
            n = take_events(e, events, max);
            uint64_t now = pg_now_ns(), quiet = now - e->last_event_ns;
            pthread_mutex_unlock(&e->lock);
            if (n || now >= deadline) {
                pthread_mutex_unlock(&progress.lock);
                return n;
            }
            if (!progress.driving)
                break;
            struct timespec until = slice_end(now, quiet < WAIT_YIELD_NS ? WAIT_YIELD_NS : quiet,
                                              WAIT_MOST_HANDOVER_NS, deadline);
            progress.sleepers++;
            sleep_slice(&until);
            progress.sleepers--;
        }
    }
}

/* Every PE has quieted: what is in flight completes by itself. */
static void mpi_ep_close(struct pg_net_ep *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    while (e->active) {
        drive(e);
        if (e->active) {
            pthread_mutex_unlock(&e->lock);
            sched_yield();
            pthread_mutex_lock(&e->lock);
        }
    }
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_lock(&progress.lock);
    progress.closing++;
    while (progress.in_pass)
        pthread_cond_wait(&progress.woken, &progress.lock);
    progress.closing--;
    struct pg_net_ep **at = &progress.open;
    while (*at != e)
        at = &(*at)->next_open;
    *at = e->next_open;
    pthread_mutex_unlock(&progress.lock);
    while (e->first) {
        struct arrival *a = e->first;
        e->first = a->next;
        free(a);
    }
    pthread_mutex_destroy(&e->lock);
    free(e->requests);
    free(e->ops);
    free(e->done);
    free(e->statuses);
    free(e->posted);
    free(e->sent);
    free(e->to_peer);
    free(e);
}

static struct pg_net_credit_peak mpi_credit_peak(void)
{
    return (struct pg_net_credit_peak){__atomic_load_n(&peak.to_peer, __ATOMIC_RELAXED),
                                       __atomic_load_n(&peak.messages, __ATOMIC_RELAXED),
                                       __atomic_load_n(&peak.bytes, __ATOMIC_RELAXED)};
}

const struct pg_net_ops pg_net_mpi_ops = {
    .init = mpi_init,
    .fini = mpi_fini,
    .has_rma = mpi_has_rma,
    .local_mr = mpi_local_mr,
    .describe = mpi_describe,
    .provider = mpi_provider,
    .domain = mpi_domain,
    .max_msg = mpi_max_msg,
    .ep_open = mpi_ep_open,
    .ep_close = mpi_ep_close,
    .ep_name = mpi_ep_name,
    .av_insert = mpi_av_insert,
    .sendv = mpi_sendv,
    .post_multi_recv = mpi_post_multi_recv,
    .mr_reg = mpi_mr_reg,
    .mr_desc = mpi_mr_desc,
    .mr_key = mpi_mr_key,
    .mr_remote_base = mpi_mr_remote_base,
    .mr_close = mpi_mr_close,
    .rma = mpi_rma,
    .poll = mpi_poll,
    .wait = mpi_wait,
    .credit_peak = mpi_credit_peak,
};
