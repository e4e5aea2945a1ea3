/* The communication profile: this PE's counters and the files written from them. */
#include "prof.h"

#include "runtime/runtime.h"
#include "startup/startup.h"
#include "topo/topo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

uintptr_t pg_prof_counting;
__thread int pg_prof_coll_now __attribute__((tls_model("initial-exec"))) = -1;

static struct pg_prof_row *rows;                       /* the operations', npes of them */
static struct pg_prof_cell *coll_cells[PG_PROF_KINDS]; /* the collectives' (op kinds unused) */
static struct pg_prof_cell waits[PG_PROF_WAIT_KINDS];  /* bytes holds the nanoseconds */
static uintptr_t counting_mode;                        /* what pg_prof_counting becomes at start */
static const char *dir;
static uint64_t init_ns;

static const char *const kind_name[PG_PROF_KINDS] = {
#define PG_PROF_OP_NAME(id, name) [PG_PROF_##id] = name,
    PG_PROF_OPS(PG_PROF_OP_NAME)
#undef PG_PROF_OP_NAME
#define PG_PROF_COLL_NAME(id, name) [PG_PROF_COLL_##id] = name,
        PG_PROF_COLLS(PG_PROF_COLL_NAME)
#undef PG_PROF_COLL_NAME
};
static const char *const wait_name[PG_PROF_WAIT_KINDS] = {
#define PG_PROF_WAIT_NAME(id, name) [PG_PROF_WAIT_##id] = name,
    PG_PROF_WAITS(PG_PROF_WAIT_NAME)
#undef PG_PROF_WAIT_NAME
};

/* mkdir -p: every missing directory of path, made by whichever PE gets there first. */
static int make_directories(const char *path)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    int status = 0;
    for (char *slash = copy + 1; status == 0; slash++) {
        int end = *slash == '\0';
        if (*slash != '/' && !end)
            continue;
        *slash = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST)
            status = -1;
        if (end)
            break;
        *slash = '/';
    }
    free(copy);
    return status;
}

/* Fails at init, not at finalize: the directory is made and a file created in it. */
static void check_directory(void)
{
    if (make_directories(dir) != 0)
        pg_fatal("shmem_init", "PANGEA_PROFILE=%s: cannot make that directory: %s", dir,
                 strerror(errno));
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/.pangea-probe-%d", dir, pg_world.me);
    int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        pg_fatal("shmem_init", "PANGEA_PROFILE=%s: cannot write in that directory: %s", dir,
                 strerror(errno));
    close(fd);
    unlink(probe);
}

static void *zeroed(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        pg_fatal("PANGEA_PROFILE", "out of memory for the profile's counters (%zu bytes)",
                 n * size);
    return p;
}

/* The counters of kind's operations to pe; a collective's cells are allocated when it is
 * first counted (by whichever thread gets there first). */
static void counters_of(enum pg_prof_kind kind, int pe, uint64_t **count, uint64_t **bytes)
{
    if (kind < PG_PROF_OP_KINDS) {
        *count = &rows[pe].count[kind];
        *bytes = &rows[pe].bytes[kind];
        return;
    }
    struct pg_prof_cell *c = __atomic_load_n(&coll_cells[kind], __ATOMIC_ACQUIRE);
    if (!c) {
        struct pg_prof_cell *fresh = zeroed((size_t)pg_world.npes, sizeof *fresh);
        if (__atomic_compare_exchange_n(&coll_cells[kind], &c, fresh, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            c = fresh;
        else
            free(fresh); /* another thread was first */
    }
    *count = &c[pe].count;
    *bytes = &c[pe].bytes;
}

void pg_prof_init(int thread_multiple)
{
    dir = pg_cfg_text(pg_cfg.profile);
    if (!dir)
        return;
    check_directory();
    init_ns = pg_now_ns();
    rows = zeroed((size_t)pg_world.npes, sizeof *rows);
    counting_mode = thread_multiple ? PG_PROF_BY_CALL : (uintptr_t)rows;
}

void pg_prof_start(void)
{
    pg_prof_counting = counting_mode;
}

static void add(uint64_t *count, uint64_t *bytes, uint64_t n)
{
    if (counting_mode == PG_PROF_BY_CALL) {
        __atomic_fetch_add(count, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(bytes, n, __ATOMIC_RELAXED);
    } else {
        ++*count;
        *bytes += n;
    }
}

void pg_prof_note(enum pg_prof_kind kind, int pe, size_t bytes)
{
    if (pg_prof_coll_now >= 0)
        kind = (enum pg_prof_kind)pg_prof_coll_now;
    uint64_t *count, *total;
    counters_of(kind, pe, &count, &total);
    add(count, total, bytes);
}

struct pg_prof_scope pg_prof_coll_enter(enum pg_prof_kind kind)
{
    if (pg_prof_coll_now >= 0)
        return (struct pg_prof_scope){-1, 0, 0};
    pg_prof_coll_now = (int)kind;
    int counted_inline = pg_prof_counting != PG_PROF_BY_CALL;
    if (counted_inline) /* the collective's operations go through pg_prof_note */
        pg_prof_counting = PG_PROF_BY_CALL;
    return (struct pg_prof_scope){(int)kind, counted_inline, pg_now_ns()};
}

void pg_prof_coll_leave(const struct pg_prof_scope *scope)
{
    pg_prof_coll_now = -1;
    if (scope->counted_inline && pg_prof_counting)
        pg_prof_counting = (uintptr_t)rows;
    if (scope->kind == PG_PROF_COLL_BARRIER || scope->kind == PG_PROF_COLL_SYNC)
        add(&waits[PG_PROF_WAIT_SYNC].count, &waits[PG_PROF_WAIT_SYNC].bytes,
            pg_now_ns() - scope->began_ns);
}

struct pg_prof_scope pg_prof_wait_enter(enum pg_prof_wait kind, int timed)
{
    if (pg_prof_coll_now >= 0)
        return (struct pg_prof_scope){-1, 0, 0};
    return (struct pg_prof_scope){(int)kind, 0, timed ? pg_now_ns() : 0};
}

void pg_prof_wait_leave(const struct pg_prof_scope *scope)
{
    add(&waits[scope->kind].count, &waits[scope->kind].bytes,
        scope->began_ns ? pg_now_ns() - scope->began_ns : 0);
}

static uint64_t load(const uint64_t *value)
{
    return __atomic_load_n(value, __ATOMIC_RELAXED);
}

static int write_rows(FILE *f)
{
    fprintf(f, "# pangea-profile 1\nkind,name,target,count,bytes,ns\n");
    for (int k = 0; k < PG_PROF_KINDS; k++) {
        int op = k < PG_PROF_OP_KINDS;
        if (!op && !__atomic_load_n(&coll_cells[k], __ATOMIC_ACQUIRE))
            continue;
        for (int pe = 0; pe < pg_world.npes; pe++) {
            uint64_t *count, *bytes;
            counters_of((enum pg_prof_kind)k, pe, &count, &bytes);
            if (load(count))
                fprintf(f, "%s,%s,%d,%llu,%llu,0\n", op ? "op" : "coll", kind_name[k], pe,
                        (unsigned long long)load(count), (unsigned long long)load(bytes));
        }
    }
    for (int w = 0; w < PG_PROF_WAIT_KINDS; w++)
        fprintf(f, "wait,%s,-1,%llu,0,%llu\n", wait_name[w],
                (unsigned long long)load(&waits[w].count),
                (unsigned long long)load(&waits[w].bytes));
    fprintf(f, "info,elapsed,-1,0,0,%llu\n", (unsigned long long)(pg_now_ns() - init_ns));
    return ferror(f) ? -1 : 0;
}

static int write_topology(FILE *f)
{
    fprintf(f, "# pangea-profile 1\npe,node,host,package,numa,core,switches\n");
    for (int pe = 0; pe < pg_world.npes; pe++) {
        struct pg_topo_place p;
        pg_topo_place(pe, &p);
        fprintf(f, "%d,%d,%s,%d,%d,%d,%s\n", pe, p.node, p.host, p.package, p.numa, p.core,
                p.switches);
    }
    return ferror(f) ? -1 : 0;
}

/* Writes DIR/name through a temporary file, so that a reader never sees half of one. */
static void write_file(const char *name, int (*rows)(FILE *))
{
    char path[4096], part[4160];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(part, sizeof part, "%s.part", path);
    FILE *f = fopen(part, "w");
    int failed = !f || rows(f) != 0;
    if (f && fclose(f) != 0)
        failed = 1;
    if (failed || rename(part, path) != 0) {
        pg_warn("PANGEA_PROFILE: could not write %s: %s", path, strerror(errno));
        unlink(part);
    }
}

void pg_prof_write(int exiting)
{
    if (!dir || !pg_prof_counting)
        return;
    char name[64];
    snprintf(name, sizeof name, "pe-%d.csv", pg_world.me);
    write_file(name, write_rows);
    if (pg_world.me == 0 || exiting)
        write_file("topology.csv", write_topology);
}

void pg_prof_fini(void)
{
    pg_prof_counting = 0;
    counting_mode = 0;
    dir = NULL;
    free(rows);
    rows = NULL;
    for (int k = 0; k < PG_PROF_KINDS; k++) {
        free(coll_cells[k]);
        coll_cells[k] = NULL;
    }
    memset(waits, 0, sizeof waits);
}
