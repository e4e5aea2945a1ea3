/* runtime: lifecycle of the library, the tunables table, errors and logging.
 * Every module may use these services; the lifecycle functions call each module's init/fini. */
#ifndef PG_RUNTIME_H
#define PG_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#define PG_VERSION_STRING "0.1.0"

/* The tunables: X(field, kind, environment name, default, category, meaning).
 * kind: SIZE (the OpenSHMEM size grammar), INT, BOOL, TEXT (a path or name; read it with
 * pg_cfg_text, NULL when empty), or a choice kind K: one word of the list
 * PG_WORDS_K (case-insensitive), the value being the word's index (below the table).
 * category: what the tunable is about (PG_CATEGORIES, below the table), which groups the
 * listings; meaning: one line (the longer story is in docs/). */
#define PG_TUNABLES(X)                                                                      \
    X(symmetric_size, SIZE, "SHMEM_SYMMETRIC_SIZE", "256M", MEMORY,                         \
      "Symmetric heap bytes per PE at startup (size grammar); grows as allocations need")   \
    X(symmetric_max, SIZE, "PANGEA_SYMMETRIC_MAX", "0", MEMORY,                             \
      "Most bytes a PE's symmetric heap may grow to (0: the node's memory / its PEs)")      \
    X(huge_pages, HUGE_PAGES, "PANGEA_HUGE_PAGES", "auto", MEMORY,                          \
      "Pages of the symmetric heap: hugetlb, thp, off (4 KiB) or auto (the best offered)")  \
    X(debug, BOOL, "SHMEM_DEBUG", "0", OPENSHMEM,                                           \
      "Check every argument; a bad one stops the job with a message naming the call")       \
    X(info, BOOL, "SHMEM_INFO", "0", OPENSHMEM,                                             \
      "Print the tunables and their values at startup (PE 0)")                              \
    X(version, BOOL, "SHMEM_VERSION", "0", OPENSHMEM,                                       \
      "Print the library version at startup (PE 0)")                                        \
    X(startup_timing, BOOL, "PANGEA_STARTUP_TIMING", "0", STARTUP,                          \
      "Print the time of each phase of shmem_init/ARMCI_Init over the PEs (PE 0)")          \
    X(mpi_lean_init, BOOL, "PANGEA_MPI_LEAN_INIT", "1", STARTUP,                            \
      "Skip MPICH's on-node shared memory when shmem_init starts MPI for a non-MPI code")   \
    X(check, BOOL, "PANGEA_CHECK", "0", DIAGNOSTICS,                                        \
      "Same as SHMEM_DEBUG: validate every argument")                                       \
    X(pcntr, BOOL, "PANGEA_PCNTR", "0", DIAGNOSTICS,                                        \
      "Count puts and gets per context, operations done at each PE, for shmemx_pcntr_*")    \
    X(profile, TEXT, "PANGEA_PROFILE", "", DIAGNOSTICS,                                     \
      "Directory where each PE writes its communication profile at finalize (empty: none)") \
    X(test_drop_acks, INT, "PANGEA_TEST_DROP_ACKS", "0", DIAGNOSTICS,                       \
      "Test hook: servers drop 1 in N replies at random, forcing retransmission (0: off)")  \
    X(wait, WAIT, "PANGEA_WAIT", "sleep", WAITING,                                          \
      "How a PE waits: sleep (poll, then sleep until woken) or spin (poll and yield)")      \
    X(spin_count, INT, "PANGEA_SPIN_COUNT", "0", WAITING,                                   \
      "Polls before a waiting PE sleeps or yields (0: adapted to wake-ups and load)")       \
    X(wait_timeout_ms, INT, "PANGEA_WAIT_TIMEOUT_MS", "100", WAITING,                       \
      "Longest sleep of a waiting PE before it looks again by itself (a safety net)")       \
    X(hang_check, INT, "PANGEA_HANG_CHECK", "1", WAITING,                                   \
      "Seconds a PE waits, nothing in flight, before the hang watch counts it (0: off)")    \
    X(hang_silent, INT, "PANGEA_HANG_SILENT", "60", WAITING,                                \
      "Seconds a waiting PE resends to a silent node before the hang watch ends the job")   \
    X(transport, TRANSPORT, "PANGEA_TRANSPORT", "ofi", NETWORK,                             \
      "What carries traffic between nodes: ofi (libfabric) or mpi (MPI messages)")          \
    X(rails, TEXT, "PANGEA_RAILS", "", NETWORK,                                             \
      "Interfaces (or libfabric domains) used between nodes, comma-separated (empty: all)") \
    X(rail_stripe, SIZE, "PANGEA_RAIL_STRIPE", "32K", NETWORK,                              \
      "With several rails, messages of at least this many bytes take the rails in turn")    \
    X(mpi_credits, INT, "PANGEA_MPI_CREDITS", "16", NETWORK,                                \
      "Over PANGEA_TRANSPORT=mpi, most messages a sender keeps in flight to one peer")      \
    X(pipeline_buffers, INT, "PANGEA_PIPELINE_BUFFERS", "16", NETWORK,                      \
      "Send buffers per PE for off-node transfers: how many chunks one PE keeps in flight") \
    X(pipeline_buffer_size, SIZE, "PANGEA_PIPELINE_BUFFER_SIZE", "64K", NETWORK,            \
      "Data bytes per chunk of an off-node transfer (default over mpi: 256K)")              \
    X(direct_rma_threshold, SIZE, "PANGEA_DIRECT_RMA_THRESHOLD", "0", NETWORK,              \
      "Off-node contiguous puts/gets of at least this many bytes are one RMA (0: never)")   \
    X(put_batch, SIZE, "PANGEA_PUT_BATCH", "64K", NETWORK,                                  \
      "Bytes of small off-node nbi puts gathered into one message per node (0: none)")      \
    X(register_local, BOOL, "PANGEA_REGISTER_LOCAL", "0", NETWORK,                          \
      "Register local buffers even when the provider does not need it (tests that path)")   \
    X(server_spin_us, INT, "PANGEA_SERVER_SPIN_US", "200", NETWORK,                         \
      "Most microseconds the data server polls after a request before it sleeps (0: none)") \
    X(server_pool, SIZE, "PANGEA_SERVER_POOL", "32M", NETWORK,                              \
      "Receive space a node's data server may hold for other nodes' requests")              \
    X(checksum, BOOL, "PANGEA_CHECKSUM", "0", NETWORK,                                      \
      "A CRC32C on every message between nodes; a corrupt one is dropped and sent again")   \
    X(retransmit_min_us, INT, "PANGEA_RETRANSMIT_MIN_US", "50000", NETWORK,                 \
      "With retransmission on, the shortest wait for a reply before a request goes again")  \
    X(static_map, BOOL, "PANGEA_STATIC_MAP", "1", MEMORY,                                   \
      "Map static data into on-node peers (RMA and AMOs on globals become load/store)")     \
    X(coll_chunk, SIZE, "PANGEA_COLL_CHUNK", "128K", COLLECTIVES,                           \
      "Broadcasts of more bytes move down their tree in pieces of this size (pipelined)")   \
    X(coll_flat_node, SIZE, "PANGEA_COLL_FLAT_NODE", "16K", COLLECTIVES,                    \
      "Broadcasts of at most this many bytes go from a node's head to each PE of the node") \
    X(coll_server_bcast, BOOL, "PANGEA_COLL_SERVER_BCAST", "0", COLLECTIVES,                \
      "Broadcasts between nodes go by the nodes' data servers (1), not by node leaders")    \
    X(coll_server_sync, BOOL, "PANGEA_COLL_SERVER_SYNC", "0", COLLECTIVES,                  \
      "Barriers between nodes complete in the nodes' data servers (1), not node leaders")   \
    X(coll_reduce_gather, SIZE, "PANGEA_COLL_REDUCE_GATHER", "2K", COLLECTIVES,             \
      "Reductions of at most this many bytes are gathered at node leaders, sent back")      \
    X(coll_reduce_split, SIZE, "PANGEA_COLL_REDUCE_SPLIT", "4K", COLLECTIVES,               \
      "Reductions of more bytes are split: each PE reduces 1/n and sends it to all")        \
    X(coll_stream, SIZE, "PANGEA_COLL_STREAM", "0", COLLECTIVES,                            \
      "Alltoall bytes per node above which copies bypass the cache (0: largest cache)")     \
    X(coll_switches, BOOL, "PANGEA_COLL_SWITCHES", "1", COLLECTIVES,                        \
      "Teams spanning leaf switches use one leader per switch (0: node leaders only)")      \
    X(mcast, MCAST, "PANGEA_MCAST", "off", COLLECTIVES,                                     \
      "Broadcasts between nodes by multicast: auto (where it can be joined), on, or off")   \
    X(mcast_min_nodes, INT, "PANGEA_MCAST_MIN_NODES", "2", COLLECTIVES,                     \
      "Teams spanning fewer nodes than this broadcast by the point-to-point tree")          \
    X(mcast_min_size, SIZE, "PANGEA_MCAST_MIN_SIZE", "128K", COLLECTIVES,                   \
      "Broadcasts of fewer bytes to at most 4 nodes go by the point-to-point tree")         \
    X(mcast_window, INT, "PANGEA_MCAST_WINDOW", "64", COLLECTIVES,                          \
      "Multicast fragments a broadcast's root sends beyond the lowest all nodes hold")      \
    X(mcast_datagram, SIZE, "PANGEA_MCAST_DATAGRAM", "0", COLLECTIVES,                      \
      "Bytes per multicast datagram (0: the provider's max_msg_size)")                      \
    X(mcast_max_loss, INT, "PANGEA_MCAST_MAX_LOSS", "10", COLLECTIVES,                      \
      "Percent of multicast fragments resent above which a team falls back to the tree")    \
    X(armci_group_heap, SIZE, "PANGEA_ARMCI_GROUP_HEAP", "32M", ARMCI,                      \
      "Least growth of a process's area for ARMCI_Malloc_group over process subsets")

/* X(name, heading) in the order the listings show them. */
#define PG_CATEGORIES(X)                       \
    X(OPENSHMEM, "OpenSHMEM")                  \
    X(MEMORY, "Memory")                        \
    X(STARTUP, "Startup")                      \
    X(WAITING, "Waiting")                      \
    X(NETWORK, "Network path and data server") \
    X(COLLECTIVES, "Collectives")              \
    X(ARMCI, "ARMCI")                          \
    X(DIAGNOSTICS, "Diagnostics")
#define PG_CATEGORY_ENUM(name, heading) PG_CAT_##name,
enum pg_category { PG_CATEGORIES(PG_CATEGORY_ENUM) PG_CATEGORY_COUNT };
#undef PG_CATEGORY_ENUM

#define PG_OVERSUBSCRIBED_SPIN_COUNT 50
#define PG_SPIN_COUNT 2000

enum pg_tunable_kind { PG_KIND_SIZE, PG_KIND_INT, PG_KIND_BOOL, PG_KIND_TEXT, PG_KIND_CHOICE };

/* Choice kinds: PG_KIND_K names PG_KIND_CHOICE, PG_WORDS_K lists the words (NULL-terminated,
 * in the order of the enumerators); the other kinds have no words. */
#define PG_WORDS_SIZE NULL
#define PG_WORDS_INT NULL
#define PG_WORDS_BOOL NULL
#define PG_WORDS_TEXT NULL

/* PANGEA_HUGE_PAGES. Also names the kind of pages a heap got (hugetlb, thp or off). */
enum pg_huge_pages { PG_HUGE_AUTO, PG_HUGE_HUGETLB, PG_HUGE_THP, PG_HUGE_OFF };
#define PG_KIND_HUGE_PAGES PG_KIND_CHOICE
#define PG_WORDS_HUGE_PAGES ((const char *const[]){"auto", "hugetlb", "thp", "off", NULL})

/* PANGEA_WAIT. */
enum pg_wait_mode { PG_WAIT_SLEEP, PG_WAIT_SPIN };
#define PG_KIND_WAIT PG_KIND_CHOICE
#define PG_WORDS_WAIT ((const char *const[]){"sleep", "spin", NULL})

/* PANGEA_TRANSPORT. */
enum pg_transport_kind { PG_TRANSPORT_OFI, PG_TRANSPORT_MPI };
#define PG_KIND_TRANSPORT PG_KIND_CHOICE
#define PG_WORDS_TRANSPORT ((const char *const[]){"ofi", "mpi", NULL})
/* PANGEA_PIPELINE_BUFFER_SIZE's default over PANGEA_TRANSPORT=mpi (docs/transport.md). */
#define PG_MPI_PIPELINE_BUFFER_SIZE "256K"

/* PANGEA_MCAST. */
enum pg_mcast_mode { PG_MCAST_AUTO, PG_MCAST_ON, PG_MCAST_OFF };
#define PG_KIND_MCAST PG_KIND_CHOICE
#define PG_WORDS_MCAST ((const char *const[]){"auto", "on", "off", NULL})

struct pg_config {
#define PG_CONFIG_FIELD(field, kind, env, def, category, meaning) long long field;
    PG_TUNABLES(PG_CONFIG_FIELD)
#undef PG_CONFIG_FIELD
};

extern struct pg_config pg_cfg;

/* The value of a TEXT tunable: its text, NULL when empty. */
static inline const char *pg_cfg_text(long long value)
{
    return (const char *)(intptr_t)value;
}

/* Read every tunable from the environment (SHMEM_ wins over SMA_). Returns 0, or -1 after
 * printing which variable holds an invalid value. */
int pg_config_load(void);
/* Print the tunables table with current values, and their meanings when asked. */
void pg_config_print(void *stream, int meanings);
/* Print text from column indent, wrapped at word boundaries into lines of at most 100
 * characters. */
void pg_print_wrapped(void *stream, int indent, const char *text);
/* Print one tunable (name, value, source, default, meaning) in lines of at most 100
 * characters; -1 when name is not a tunable. */
int pg_config_print_one(void *stream, const char *name);
/* The environment-variable reference of docs/user-guide.md, as a Markdown table generated from
 * the tunables table (pangea-info --doc). */
void pg_config_print_doc(void *stream);
/* Warn about each SHMEM_* or PANGEA_* environment variable that is neither a tunable nor a
 * variable of the wrappers, naming the closest known name. Returns how many. */
int pg_config_warn_unknown(void *stream);
/* Tuning files (written by pangea-tune, read by pg_config_load): text lines "KEY = VALUE",
 * KEY a tunable's environment name or one of the metadata keys provider (the libfabric
 * provider it was measured with), host (fnmatch pattern of the hosts it applies to) and date;
 * '#' starts a comment line. The file is PANGEA_TUNING_FILE, else
 * <libdir>/../share/pangea/tuning.conf next to the library (an empty PANGEA_TUNING_FILE reads
 * none). Precedence: environment > tuning file > default. A file with an unknown key, a bad
 * value or another host is not applied (a warning names the file, line and key); a provider
 * mismatch, known once the network is opened, puts the file's values back to their defaults. */
enum pg_tunable_source { PG_SOURCE_DEFAULT, PG_SOURCE_FILE, PG_SOURCE_ENV };
#define PG_TUNING_PATH_MAX 4096
struct pg_tuning_file {
    char path[PG_TUNING_PATH_MAX]; /* "" when no file was read */
    char provider[128], host[256], date[64];
    int applied; /* its values are in pg_cfg (before any environment override) */
};
const struct pg_tuning_file *pg_config_tuning(void);
/* Where the value of the tunable named env came from. */
enum pg_tunable_source pg_config_source(const char *env);
/* The default tuning file's path; 0 when it cannot be found (no library path). */
int pg_config_default_tuning_path(char *path, size_t size);
/* Called when the network is opened with the provider in use: a file measured with another
 * provider is warned about and its values go back to their defaults. */
void pg_config_check_provider(const char *provider);

/* Parse a value in the SHMEM_SYMMETRIC_SIZE grammar; 0 on success. */
int pg_parse_size(const char *text, size_t *out);
/* A size tunable's value from the environment, else its default (no tuning file): for code
 * that runs before pg_config_load, such as a constructor setting up the MPI library. */
size_t pg_config_early_size(const char *env);

/* Checking is on (SHMEM_DEBUG or PANGEA_CHECK). */
static inline int pg_checking(void)
{
    return pg_cfg.debug || pg_cfg.check;
}

/* The public call the calling thread is in (NULL outside one), so that an error found deep in
 * the engine names the user's call (shmem_double_alltoall), not the internal step (put). A
 * front-end opens it with PG_API_CALL(name) at the top of an entry point; it is restored when
 * that scope ends. Initial-exec TLS: one store, no __tls_get_addr call. */
extern __thread const char *pg_api_call __attribute__((tls_model("initial-exec")));
static inline const char *pg_api_begin(const char *call)
{
    const char *outer = pg_api_call;
    pg_api_call = call;
    return outer;
}
static inline void pg_api_end(const char *const *outer)
{
    pg_api_call = *outer;
}
#define PG_API_CALL(call) \
    const char *pg_api_outer_ __attribute__((cleanup(pg_api_end), unused)) = pg_api_begin(call)

/* Errors. pg_fatal prints "pangea: PE n: <call>: <message>" on stderr (the public call first
 * when the thread is inside one that is not call) and ends the whole job with a non-zero
 * status; it never returns. */
__attribute__((noreturn, format(printf, 2, 3))) void pg_fatal(const char *call, const char *fmt,
                                                              ...);
/* Debug message (only under SHMEM_DEBUG). */
__attribute__((format(printf, 1, 2))) void pg_debug(const char *fmt, ...);
/* Warning, always printed. */
__attribute__((format(printf, 1, 2))) void pg_warn(const char *fmt, ...);

/* Ends every PE with this status, promptly; flushes stdio first. Never returns. */
__attribute__((noreturn)) void pg_global_exit(int status);

/* Waiting (wait.c). A waiter polls its condition, spinning a little (pg_wait_spin_polls),
 * then, with PANGEA_WAIT=sleep, sleeps on a doorbell: a futex word in shared memory that every
 * writer to the awaited memory rings after its write. Each PE has two in its heap segment
 * (memory.h: pg_mem_doorbell, one for the program's memory and one for the library's), rung by
 * on-node PEs' puts, AMOs and signals into that PE's memory and by the node's data server
 * after it applies a remote one.
 *
 * No lost wake-up, and a writer's ring costs one load when nobody sleeps: the waiter
 * registers (sleepers + 1), then makes every running thread of the job's processes execute a
 * full barrier (membarrier, once per wait), then reads seq, checks its condition and sleeps
 * only while seq is unchanged (the kernel compares). A writer that read sleepers == 0 did so
 * before that barrier, so its data store is visible to the check that follows; a writer that
 * read it non-zero bumps seq and wakes every sleeper. Sleeps end after a timeout too (a safety
 * net, counted: pg_wait_counts). */
struct pg_doorbell {
    uint32_t seq;      /* the futex word: bumped by each ring that finds a sleeper */
    uint32_t sleepers; /* threads registered to sleep on it */
    uint64_t rung_ns;  /* when it was last rung (a sleeper's measure of its wake-up time) */
} __attribute__((aligned(64)));
void pg_doorbell_wake(struct pg_doorbell *db);
/* After a write into the memory the doorbell guards (the write itself precedes the call). */
static inline void pg_doorbell_ring(struct pg_doorbell *db)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&db->sleepers, __ATOMIC_RELAXED))
        pg_doorbell_wake(db);
}

struct pg_waiter {
    struct pg_doorbell *db; /* rung by the writers of the awaited memory; NULL: never sleep */
    long long polls;
    uint64_t since_ns;  /* when the spin began to yield (0: not yet) */
    uint32_t seq;       /* db->seq read before the last check of the condition */
    uint32_t slept_seq; /* the seq of the last sleep */
    int timeout_ms;     /* of the next sleep */
    /* registered: 1 on db, 2 on the network (net). net: the awaited word is written only by
     * messages to this PE's own endpoint (direct signals, pipeline.h), and a sleep is on the
     * endpoint's completion queue, which the message ends. */
    unsigned char registered, timed_out, net;
    /* The hang watch (coll) looks at waits the program made, named by watch (the public call):
     * never at the engine's own (NULL), which may not send from inside a wait. */
    const char *watch;
    int blocked;
    long long watch_since_ns, next_scan_ns;
};
/* A waiter that deregisters when it goes out of scope (whichever way the wait ends). The
 * loop is: while (!condition) pg_wait_step(&w); */
void pg_wait_end(struct pg_waiter *w);
#define PG_WAITER(w, doorbell) \
    struct pg_waiter w __attribute__((cleanup(pg_wait_end))) = {.db = (doorbell)}

/* Nanoseconds of CLOCK_MONOTONIC (waiting's measures, startup phase timing). */
uint64_t pg_now_ns(void);

/* A round trip estimated as TCP's (Jacobson/Karels), in nanoseconds; srtt 0: no sample yet.
 * pg_rtt_sample adds one measurement. */
struct pg_rtt {
    uint64_t srtt, rttvar;
};
void pg_rtt_sample(struct pg_rtt *r, uint64_t sample);

/* Polls before a waiter blocks (sleeps or yields), set at init and adapted as it runs. */
extern long long pg_wait_spin_polls;
/* Brings waiting up once the node is known (pg_world.local_size): the mode, membarrier
 * registration (without it, waits spin), the spin. */
void pg_wait_init(void);
/* Sleeps, wake-ups, timeouts, and stalls: timeouts after which the condition held although
 * nobody had rung (a lost or missing wake-up). Counted in this process. */
struct pg_wait_counts {
    uint64_t sleeps, wakes, timeouts, stalls;
};
void pg_wait_counts(struct pg_wait_counts *counts);

void pg_wait_yield(struct pg_waiter *w);
void pg_wait_block(struct pg_waiter *w);
/* For a wait on something other than memory (the network client's wait for replies, which
 * sleeps on its completion queue): 1 once w has spun for the spin's time and PANGEA_WAIT is
 * sleep. */
int pg_wait_spun(struct pg_waiter *w);
/* Set by the module that watches for a job that can go no further (a PE waiting for one that
 * has left, or every PE waiting with nothing in flight): called whenever a watched wait
 * blocks (yields or wakes), and once when a watched wait ends. NULL when no watch runs. */
extern void (*pg_wait_watch)(struct pg_waiter *w);
extern void (*pg_wait_watch_end)(struct pg_waiter *w);
/* A waiter watched by the hang watch, for a wait of the public call `call`. */
#define PG_WATCHED_WAITER(w, doorbell, call) \
    struct pg_waiter w __attribute__((cleanup(pg_wait_end))) = {.db = (doorbell), .watch = (call)}
static inline void pg_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}
/* Set by a module that must be driven while a PE waits (the network client, whose provider
 * may move data only when called); NULL on a single node. Returns 1 when the network needs no
 * more driving by this PE (the PE may sleep: its requests have left), 0 when it does. */
extern int (*pg_wait_progress)(void);
/* Set by the network client for waiters with net set (NULL: they sleep on db): the count of
 * direct signals applied so far, read before the condition is checked; and a sleep on the
 * endpoint that ends at once when the count is no longer *seq, and updates *seq. */
extern uint32_t (*pg_wait_net_seq)(void);
extern void (*pg_wait_net_sleep)(uint32_t *seq);

static inline void pg_wait_step(struct pg_waiter *w)
{
    if (++w->polls < pg_wait_spin_polls && !pg_wait_progress)
        pg_cpu_relax();
    else
        pg_wait_block(w);
}

/* Abnormal ends (crash.c). The program's handlers of fatal signals are saved before init
 * loads anything (call first); install replaces every handler with Pangea's once init has
 * loaded everything (call last): one line naming the PE, its host and the signal, the
 * program's saved handler (bounded by an alarm), then death by that signal. exit_check, from
 * a front-end's exit hook: a non-zero status while the runtime is up ends the whole job with
 * it, naming the finalize call that was skipped. */
void pg_crash_save_program_handlers(void);
void pg_crash_install(void);
void pg_crash_exit_check(int status, const char *finalize_call);

/* 1 when an object loaded in the process, other than the one that holds Pangea, imports a
 * symbol that starts with one of the NULL-terminated prefixes; 0 when none does; -1 when it
 * cannot be told (Pangea linked statically into the program). Reads the objects' files. */
int pg_program_imports(const char *const *prefixes);
/* The data object of the executable (a global or static variable, from its symbol table) that
 * holds addr: 0 with its start and size, or -1 (no such symbol, or a stripped executable). */
int pg_program_object(const void *addr, char **start, size_t *size);

/* Startup phases, in the order an init runs them: X(id, name). tunables: environment and
 * tuning file; mpi init: only when the program has not; node discovery: communicators, node
 * tables, job id; topology: the node model (hwloc) and the switch tree; heap segment: create and
 * map my heap; static data: move .data/.bss onto a shared object; peer mapping: map the node's
 * segments, unlink mine. With several nodes: network open (provider, my endpoint), server open and
 * server start (host PEs only), address exchange (endpoint names, connections), network barrier
 * (every server listens). first barrier: the init's barrier over the signal channels; teams:
 * shmem_init's predefined teams; armci groups: ARMCI_Init's world group and node communicators;
 * base exchange: every PE's segment addresses, for ARMCI; armci memory: its group region and notify
 * counters. */
#define PG_PHASES(X)                        \
    X(TUNABLES, "tunables")                 \
    X(MPI_INIT, "mpi init")                 \
    X(NODE_DISCOVERY, "node discovery")     \
    X(TOPOLOGY, "topology")                 \
    X(HEAP_SEGMENT, "heap segment")         \
    X(STATIC_DATA, "static data")           \
    X(PEER_MAPPING, "peer mapping")         \
    X(ACC_LOCKS, "accumulate locks")        \
    X(NET_OPEN, "network open")             \
    X(SERVER_OPEN, "server open")           \
    X(ADDRESS_EXCHANGE, "address exchange") \
    X(SERVER_START, "server start")         \
    X(NET_BARRIER, "network barrier")       \
    X(COLL_INIT, "collectives init")        \
    X(FIRST_BARRIER, "first barrier")       \
    X(TEAMS, "teams")                       \
    X(ARMCI_GROUPS, "armci groups")         \
    X(BASE_EXCHANGE, "base exchange")       \
    X(ARMCI_MEMORY, "armci memory")         \
    X(ARMCI_BARRIER, "armci barrier")

enum pg_phase {
#define PG_PHASE_ID(id, name) PG_PHASE_##id,
    PG_PHASES(PG_PHASE_ID)
#undef PG_PHASE_ID
        PG_PHASE_COUNT
};

/* Startup timing. A front-end's init calls pg_phases_begin first and pg_phases_report last; in
 * between, each step calls pg_phase_end when it finishes, which charges the time since the
 * previous step ended (or since begin) to that phase. Costs one clock read and no allocation;
 * outside an init it does nothing (pg_pipe_restart reopens the network later). */
void pg_phases_begin(void);
void pg_phase_end(enum pg_phase phase);
/* Collective over the world. With PANGEA_STARTUP_TIMING or SHMEM_INFO set, one reduction gives
 * each phase's min, mean and max over the PEs that ran it, and PE 0 prints on stderr a header
 * naming call, then "pangea: startup: MIN MEAN MAX PES NAME" per phase (milliseconds; PES how
 * many ran it) and a last such line named "total", from begin to this call. */
void pg_phases_report(const char *call);

/* CRC32C (Castagnoli) of buf, continuing from crc (0 to start): the checkpoint images' and the
 * network messages' checksum (PANGEA_CHECKSUM), so it lives here, below every module that
 * uses it. pg_crc32c uses the CPU's instruction when it has one (pg_crc32c_hardware says so),
 * else pg_crc32c_tables; both give the same values. */
uint32_t pg_crc32c(uint32_t crc, const void *buf, size_t len);
uint32_t pg_crc32c_tables(uint32_t crc, const void *buf, size_t len);
int pg_crc32c_hardware(void);

/* Lifecycle, shared by the OpenSHMEM and ARMCI front-ends. Init is reference counted:
 * only the first call brings the runtime up and only the matching last fini releases it. */
int pg_runtime_init(int requested_thread, int *provided_thread);
void pg_runtime_fini(void);
int pg_runtime_initialized(void);
int pg_runtime_thread_level(void);
/* The thread levels, numbered as SHMEM_THREAD_* and MPI_THREAD_* both are. */
#define PG_THREAD_SINGLE 0
#define PG_THREAD_MULTIPLE 3

#endif
