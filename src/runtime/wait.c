/* Waiting that sleeps (runtime.h, "Waiting"): the waiter's side of the doorbell, the ring's
 * slow path, and the spin that adapts to the wake-up time observed. */
#define _GNU_SOURCE
#include "runtime.h"

#include "startup/startup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int (*pg_wait_progress)(void);
uint32_t (*pg_wait_net_seq)(void);
void (*pg_wait_net_sleep)(uint32_t *seq);
long long pg_wait_spin_polls = PG_SPIN_COUNT;

static int sleeping;         /* PANGEA_WAIT=sleep and membarrier registered */
static int adapting;         /* the spin follows the wake-up time (PANGEA_SPIN_COUNT unset) */
static int crowded;          /* the node's PEs outnumber its cores; the spin follows the load */
static uint64_t wake_ns_avg; /* moving average of ring-to-running times */
static uint64_t spin_ns;     /* how long a waiter polls and yields before it sleeps */
static int loadavg_fd = -1;  /* /proc/loadavg, read by crowded waiters */
static uint64_t load_sampled_ns, loaded_until_ns, load_hold_ns;
static struct pg_wait_counts counts;

/* A waiter polls (pause) for about SPIN_NS_MIN, then polls and yields until a sleep would
 * have paid off: as long as a wake-up has been taking (ring to running), the competitive
 * choice. That is microseconds on an idle node and up to SPIN_NS_MAX on a loaded one, where a
 * sleeper waits for the scheduler while a yielding poller is still on its core when the
 * hand-off comes. A wait of seconds costs at most SPIN_NS_MAX of CPU. */
#define SPIN_NS_MIN 1000
#define SPIN_NS_MAX 1000000
#define FIRST_SLEEP_MS 1

/* On a crowded node a waiter yields for up to SPIN_NS_MAX before it sleeps, as long as the
 * machine's runnable threads are no more than the node's PEs awake and its data server
 * (awake_of_ours): a yield then hands the core to a PE of ours for the cost of a system call
 * (or finds none that wants it), where each sleep makes a hop of a barrier a wake-up through
 * the scheduler. Any other runnable thread (another job, a program's own threads) would take a
 * yielded core for a whole time slice, and a PE it keeps from running holds up every PE that
 * waits for it: waiters then sleep at once, for a hold that doubles while the load is found
 * again after it. */
#define LOAD_SAMPLE_NS 1000000ULL
#define LOAD_HOLD_NS_MIN 1000000ULL
#define LOAD_HOLD_NS_MAX 256000000ULL

static long membarrier(int cmd)
{
    return syscall(SYS_membarrier, cmd, 0, 0);
}

/* Polls of about SPIN_NS_MIN. */
static long long measure_polls(void)
{
    enum { POLLS = 2000 };
    uint64_t start = pg_now_ns();
    for (int i = 0; i < POLLS; i++)
        pg_cpu_relax();
    uint64_t ns = pg_now_ns() - start;
    return ns ? (long long)(SPIN_NS_MIN * POLLS / ns) + 1 : POLLS;
}

static void adapt_spin(void)
{
    uint64_t avg = __atomic_load_n(&wake_ns_avg, __ATOMIC_RELAXED);
    __atomic_store_n(&spin_ns,
                     avg < SPIN_NS_MIN   ? SPIN_NS_MIN
                     : avg > SPIN_NS_MAX ? SPIN_NS_MAX
                                         : avg,
                     __ATOMIC_RELAXED);
}

static int runnable_threads(void)
{
    char text[128];
    ssize_t n = pread(loadavg_fd, text, sizeof text - 1, 0);
    int running;
    if (n <= 0)
        return INT_MAX;
    text[n] = 0;
    return sscanf(text, "%*s %*s %*s %d/", &running) == 1 ? running : INT_MAX;
}

/* A crowded node's waits asleep, counted in a word its PEs share: the runnable threads that
 * can be ours are the node's PEs less those asleep, and its data server. */
static void count_asleep(int delta)
{
    uint32_t *asleep = crowded ? pg_boot_node_asleep() : NULL;
    if (asleep)
        __atomic_fetch_add(asleep, (uint32_t)delta, __ATOMIC_RELAXED);
}

static int awake_of_ours(void)
{
    uint32_t *asleep = pg_boot_node_asleep();
    int n = asleep ? (int)__atomic_load_n(asleep, __ATOMIC_RELAXED) : 0;
    return pg_world.local_size - (n < pg_world.local_size ? n : pg_world.local_size) + 1;
}

/* Whether the machine's runnable threads are all (at most) ours, or were lately. */
static int node_is_ours(uint64_t now)
{
    if (now < __atomic_load_n(&loaded_until_ns, __ATOMIC_RELAXED))
        return 0;
    if (now - __atomic_load_n(&load_sampled_ns, __ATOMIC_RELAXED) < LOAD_SAMPLE_NS)
        return 1;
    __atomic_store_n(&load_sampled_ns, now, __ATOMIC_RELAXED);
    if (runnable_threads() <= awake_of_ours())
        return 1;
    uint64_t until = __atomic_load_n(&loaded_until_ns, __ATOMIC_RELAXED);
    uint64_t hold = __atomic_load_n(&load_hold_ns, __ATOMIC_RELAXED);
    hold = now >= until + hold           ? LOAD_HOLD_NS_MIN
           : 2 * hold < LOAD_HOLD_NS_MAX ? 2 * hold
                                         : LOAD_HOLD_NS_MAX;
    __atomic_store_n(&load_hold_ns, hold, __ATOMIC_RELAXED);
    __atomic_store_n(&loaded_until_ns, now + hold, __ATOMIC_RELAXED);
    return 0;
}

/* How long a waiter polls and yields before it sleeps. */
static uint64_t spin_for(uint64_t now)
{
    if (!crowded)
        return __atomic_load_n(&spin_ns, __ATOMIC_RELAXED);
    return node_is_ours(now) ? SPIN_NS_MAX : 0;
}

void pg_wait_init(void)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int oversubscribed = cores > 0 && pg_world.local_size > cores;
    long q = membarrier(MEMBARRIER_CMD_QUERY);
    sleeping = pg_cfg.wait == PG_WAIT_SLEEP && q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
               membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0;
    if (pg_cfg.wait == PG_WAIT_SLEEP && !sleeping)
        pg_debug("PANGEA_WAIT=sleep: the kernel offers no membarrier, waits spin");
    adapting = crowded = 0;
    spin_ns = 0;
    /* With more PEs than cores a polling waiter holds the core its peer needs: it polls
     * briefly, then yields the core. */
    if (pg_cfg.spin_count > 0)
        pg_wait_spin_polls = pg_cfg.spin_count;
    else if (!sleeping)
        pg_wait_spin_polls = oversubscribed ? PG_OVERSUBSCRIBED_SPIN_COUNT : PG_SPIN_COUNT;
    else if (oversubscribed) {
        crowded = 1;
        if (loadavg_fd < 0)
            loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        pg_wait_spin_polls = PG_OVERSUBSCRIBED_SPIN_COUNT;
    } else {
        adapting = 1;
        pg_wait_spin_polls = measure_polls();
        wake_ns_avg = 10 * SPIN_NS_MIN; /* until wake-ups are seen */
        adapt_spin();
    }
}

void pg_wait_counts(struct pg_wait_counts *c)
{
    c->sleeps = __atomic_load_n(&counts.sleeps, __ATOMIC_RELAXED);
    c->wakes = __atomic_load_n(&counts.wakes, __ATOMIC_RELAXED);
    c->timeouts = __atomic_load_n(&counts.timeouts, __ATOMIC_RELAXED);
    c->stalls = __atomic_load_n(&counts.stalls, __ATOMIC_RELAXED);
}

void pg_doorbell_wake(struct pg_doorbell *db)
{
    __atomic_store_n(&db->rung_ns, pg_now_ns(), __ATOMIC_RELAXED);
    __atomic_fetch_add(&db->seq, 1, __ATOMIC_SEQ_CST);
    /* Shared (not FUTEX_PRIVATE): the word is in memory several processes map. */
    syscall(SYS_futex, &db->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void pg_wait_yield(struct pg_waiter *w)
{
    (void)w;
    sched_yield();
}

/* Registered, and the condition was false after w->seq was read: sleep unless rung since. */
static void sleep_on(struct pg_waiter *w)
{
    struct pg_doorbell *db = w->db;
    int ms = w->timeout_ms;
    struct timespec timeout = {ms / 1000, (long)(ms % 1000) * 1000000};
    uint64_t slept_at = pg_now_ns();
    w->slept_seq = w->seq;
    w->timed_out = 0;
    long r = syscall(SYS_futex, &db->seq, FUTEX_WAIT, w->seq, &timeout, NULL, 0);
    __atomic_fetch_add(&counts.sleeps, 1, __ATOMIC_RELAXED);
    if (r == -1 && errno == ETIMEDOUT) {
        __atomic_fetch_add(&counts.timeouts, 1, __ATOMIC_RELAXED);
        w->timed_out = 1;
        w->timeout_ms = ms * 2 < pg_cfg.wait_timeout_ms ? ms * 2 : (int)pg_cfg.wait_timeout_ms;
    } else if (r == 0) {
        __atomic_fetch_add(&counts.wakes, 1, __ATOMIC_RELAXED);
        uint64_t rung = __atomic_load_n(&db->rung_ns, __ATOMIC_RELAXED), woke = pg_now_ns();
        if (adapting && rung >= slept_at && woke >= rung) {
            uint64_t avg = __atomic_load_n(&wake_ns_avg, __ATOMIC_RELAXED);
            __atomic_store_n(&wake_ns_avg, (7 * avg + (woke - rung)) / 8, __ATOMIC_RELAXED);
            adapt_spin();
        }
    }
    w->seq = __atomic_load_n(&db->seq, __ATOMIC_ACQUIRE);
}

static void enroll(struct pg_waiter *w)
{
    __atomic_fetch_add(&w->db->sleepers, 1, __ATOMIC_SEQ_CST);
    membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED);
    w->registered = 1;
    count_asleep(1);
    w->timeout_ms =
        FIRST_SLEEP_MS < pg_cfg.wait_timeout_ms ? FIRST_SLEEP_MS : (int)pg_cfg.wait_timeout_ms;
    w->seq = __atomic_load_n(&w->db->seq, __ATOMIC_ACQUIRE);
}

/* A waiter for a direct signal: the first call reads the count of signals applied (the caller
 * checks its condition once more), each later one sleeps on the endpoint unless it moved. */
static void sleep_on_network(struct pg_waiter *w)
{
    if (w->registered) {
        pg_wait_net_sleep(&w->seq);
        __atomic_fetch_add(&counts.sleeps, 1, __ATOMIC_RELAXED);
        return;
    }
    w->seq = pg_wait_net_seq();
    w->registered = 2;
}

int pg_wait_spun(struct pg_waiter *w)
{
    if (pg_cfg.wait != PG_WAIT_SLEEP)
        return 0;
    uint64_t t = pg_now_ns();
    if (!w->since_ns)
        w->since_ns = t;
    return t - w->since_ns >= spin_for(t);
}

void (*pg_wait_watch)(struct pg_waiter *w);
void (*pg_wait_watch_end)(struct pg_waiter *w);

void pg_wait_block(struct pg_waiter *w)
{
    int net = w->net && pg_wait_net_sleep && pg_cfg.wait == PG_WAIT_SLEEP;
    int may_sleep = net || (sleeping && w->db), idle = 1;
    if (w->watch && pg_wait_watch && w->polls >= pg_wait_spin_polls)
        pg_wait_watch(w);
    if (pg_wait_progress)
        idle = pg_wait_progress(); /* across nodes a poll takes microseconds: yield after each */
    else if (!may_sleep) {
        if (w->polls < pg_wait_spin_polls)
            pg_cpu_relax();
        else
            sched_yield();
        return;
    }
    /* Sleep once nothing of mine is in flight (the network needs no driving) and the spin's
     * time has passed. */
    uint64_t now = pg_now_ns();
    if (!w->since_ns)
        w->since_ns = now;
    if (!may_sleep || !idle || (!w->registered && now - w->since_ns < spin_for(now))) {
        sched_yield();
        return;
    }
    if (net)
        sleep_on_network(w);
    else if (!w->registered)
        enroll(w); /* the caller checks its condition once more before any sleep */
    else
        sleep_on(w);
}

/* A writer rings just after its write: one preempted between the two leaves the condition
 * true before the ring. Such a ring comes within a time slice or so; a wait whose ring never
 * comes had its wake-up lost (or its word was written without a ring). */
#define LATE_RING_MS 20

void pg_wait_end(struct pg_waiter *w)
{
    if (w->blocked)
        pg_wait_watch_end(w);
    if (w->registered != 1)
        return;
    if (w->timed_out && __atomic_load_n(&w->db->seq, __ATOMIC_RELAXED) == w->slept_seq) {
        struct timespec late = {0, LATE_RING_MS * 1000000L};
        if (syscall(SYS_futex, &w->db->seq, FUTEX_WAIT, w->slept_seq, &late, NULL, 0) == -1 &&
            errno == ETIMEDOUT)
            __atomic_fetch_add(&counts.stalls, 1, __ATOMIC_RELAXED);
    }
    __atomic_fetch_sub(&w->db->sleepers, 1, __ATOMIC_RELEASE);
    count_asleep(-1);
}
