/* Startup timing (PANGEA_STARTUP_TIMING, SHMEM_INFO): what PE 0 prints at the end of an init.
 *
 * Every PE sends its stderr to a temporary file for the init calls, then reads back what the
 * library wrote there. With TEST_INIT=armci the program calls ARMCI_Init, then shmem_init (a
 * repeated init of the runtime); otherwise shmem_init alone. When PANGEA_STARTUP_TIMING=1 or
 * SHMEM_INFO=1, PE 0 must have printed one report per init call, and:
 * - the header names the call, the number of PEs and of nodes (1..PEs);
 * - every phase appears once, and exactly those the init ran: the runtime's (the network's
 *   only with several nodes; server open/start on one PE per node, the others on every PE;
 *   static data not with PANGEA_STATIC_MAP=0), then the front-end's; a repeated init only its
 *   barrier and what the front-end adds;
 * - each line's min <= mean <= max, all >= 0, and a last line "total" on every PE;
 * - on every PE the phases add up to at most its total, so the sum over phases of mean * PEs
 *   is at most npes * mean total; no phase's max exceeds the total's max;
 * - each total lies within the PEs' own wall-clock time of the call (min, mean, max);
 * - with SHMEM_INFO the tunables table lists PANGEA_STARTUP_TIMING.
 * The other PEs print no such line, and without either variable no PE does. */
#include "check.h"

#include <armci.h>
#include <mpi.h>
#include <unistd.h>

#define MAX_LINES 64
#define EPS 0.002 /* ms: the report prints 3 decimals */

struct phase {
    char name[64];
    double min, mean, max;
    int pes;
};

struct report {
    char call[32];
    int npes, nnodes, columns; /* columns: header lines of the table seen */
    struct phase phase[MAX_LINES];
    int nphases;
};

static const char *const runtime_phases[] = {
    "tunables",    "mpi init",     "node discovery",   "topology",         "heap segment",
    "static data", "peer mapping", "accumulate locks", "collectives init", "first barrier"};
static const char *const network_phases[] = {"network open", "server open", "address exchange",
                                             "server start", "network barrier"};
static const char *const armci_phases[] = {"armci groups", "base exchange", "armci memory",
                                           "armci barrier"};

static int env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* Parses the "pangea: startup" lines of text into reports; counts them in *lines. */
static int parse(const char *text, struct report *reports, int max, int *lines)
{
    int n = 0;
    *lines = 0;
    for (const char *line = text; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
        if (strncmp(line, "pangea: startup", 15) != 0)
            continue;
        ++*lines;
        struct report *r = n > 0 ? &reports[n - 1] : NULL;
        struct phase p;
        char call[32];
        int npes, nnodes;
        if (sscanf(line, "pangea: startup of %31s on %d PEs, %d node", call, &npes, &nnodes) == 3) {
            CHECK(n < max, "more than %d reports", max);
            if (n == max)
                return n;
            r = &reports[n++];
            memset(r, 0, sizeof *r);
            snprintf(r->call, sizeof r->call, "%s", call);
            r->npes = npes;
            r->nnodes = nnodes;
        } else if (!r) {
            CHECK(0, "a startup line before any header: %.80s", line);
        } else if (sscanf(line, "pangea: startup: %lf %lf %lf %d %63[^\n]", &p.min, &p.mean, &p.max,
                          &p.pes, p.name) == 5) {
            CHECK(r->nphases < MAX_LINES, "too many phase lines");
            if (r->nphases < MAX_LINES)
                r->phase[r->nphases++] = p;
        } else if (strstr(line, "min") && strstr(line, "mean") && strstr(line, "max")) {
            r->columns++;
        } else {
            CHECK(0, "unparsed startup line: %.80s", line);
        }
    }
    return n;
}

static const struct phase *find(const struct report *r, const char *name)
{
    const struct phase *found = NULL;
    for (int i = 0; i < r->nphases; i++) {
        if (strcmp(r->phase[i].name, name) == 0) {
            CHECK(!found, "%s: phase '%s' printed twice", r->call, name);
            found = &r->phase[i];
        }
    }
    return found;
}

/* Every phase of names[] is there, run by the expected number of PEs. */
static int expect_phases(const struct report *r, const char *const *names, int count, int nnodes)
{
    int matched = 0;
    for (int i = 0; i < count; i++) {
        if (strcmp(names[i], "static data") == 0 && getenv("PANGEA_STATIC_MAP") &&
            strcmp(getenv("PANGEA_STATIC_MAP"), "0") == 0)
            continue; /* not moved, so not reported: the line count below catches it */
        const struct phase *p = find(r, names[i]);
        CHECK(p != NULL, "%s: phase '%s' missing", r->call, names[i]);
        if (!p)
            continue;
        matched++;
        int pes = strncmp(names[i], "server ", 7) == 0 ? nnodes : r->npes;
        CHECK(p->pes == pes, "%s: phase '%s' ran on %d PEs, want %d", r->call, names[i], p->pes,
              pes);
    }
    return matched;
}

struct wall {
    double min, mean, max;
};

static void check_phases(const struct report *r, const char *call, int full, int armci,
                         struct wall wall)
{
    int npes = shmem_n_pes();
    CHECK(strcmp(r->call, call) == 0, "report of %s, want %s", r->call, call);
    CHECK(r->npes == npes, "%s: header says %d PEs, want %d", call, r->npes, npes);
    CHECK(r->nnodes >= 1 && r->nnodes <= npes, "%s: %d nodes for %d PEs", call, r->nnodes, npes);
    CHECK(r->columns == 1, "%s: %d column header lines", call, r->columns);
    int expected = 1; /* total */
    if (full) {
        expected += expect_phases(r, runtime_phases, sizeof runtime_phases / sizeof *runtime_phases,
                                  r->nnodes);
        if (r->nnodes > 1)
            expected += expect_phases(r, network_phases,
                                      sizeof network_phases / sizeof *network_phases, r->nnodes);
    } else {
        expected += expect_phases(r, (const char *const[]){"first barrier"}, 1, r->nnodes);
    }
    if (armci)
        expected +=
            expect_phases(r, armci_phases, sizeof armci_phases / sizeof *armci_phases, r->nnodes);
    else
        expected += expect_phases(r, (const char *const[]){"teams"}, 1, r->nnodes);
    CHECK(r->nphases == expected, "%s: %d phase lines, want %d", call, r->nphases, expected);

    const struct phase *total = find(r, "total");
    CHECK(total && total == &r->phase[r->nphases - 1], "%s: 'total' is not the last line", call);
    if (!total)
        return;
    double sum = 0;
    for (int i = 0; i < r->nphases; i++) {
        const struct phase *p = &r->phase[i];
        CHECK(p->min >= 0 && p->min <= p->mean + EPS && p->mean <= p->max + EPS,
              "%s: phase '%s': min %.3f mean %.3f max %.3f", call, p->name, p->min, p->mean,
              p->max);
        CHECK(p->max <= total->max + EPS, "%s: phase '%s' max %.3f above the total's %.3f", call,
              p->name, p->max, total->max);
        if (p != total)
            sum += p->mean * p->pes;
    }
    CHECK(total->pes == npes, "%s: total over %d PEs", call, total->pes);
    CHECK(sum <= total->mean * npes + EPS * r->nphases * npes,
          "%s: the phases add up to %.3f ms over the PEs, the totals to %.3f", call, sum,
          total->mean * npes);
    CHECK(total->min > 0 && total->min <= wall.min + EPS && total->mean <= wall.mean + EPS &&
              total->max <= wall.max + EPS,
          "%s: total min/mean/max %.3f/%.3f/%.3f ms, the PEs' own clocks %.3f/%.3f/%.3f", call,
          total->min, total->mean, total->max, wall.min, wall.mean, wall.max);
}

static struct wall wall_over_pes(double ms)
{
    struct wall w;
    double sum;
    MPI_Allreduce(&ms, &w.min, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&ms, &w.max, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&ms, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    int n;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    w.mean = sum / n;
    return w;
}

int main(void)
{
    int armci = getenv("TEST_INIT") && strcmp(getenv("TEST_INIT"), "armci") == 0;
    int expected = env_is_one("PANGEA_STARTUP_TIMING") || env_is_one("SHMEM_INFO");

    /* What the library writes on stderr during the init calls lands in a file. */
    fflush(stderr);
    FILE *capture = tmpfile();
    int saved = dup(2);
    if (!capture || saved < 0 || dup2(fileno(capture), 2) < 0) {
        fprintf(stderr, "startup_timing: cannot redirect stderr\n");
        return 1;
    }
    double t0 = test_now(), t_armci = 0;
    if (armci) {
        ARMCI_Init();
        t_armci = test_now();
    }
    double t1 = test_now();
    shmem_init();
    double t2 = test_now();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);

    long size = ftell(capture);
    char *text = calloc((size_t)size + 1, 1);
    rewind(capture);
    CHECK(text && fread(text, 1, (size_t)size, capture) == (size_t)size, "reading back stderr");
    fclose(capture);
    if (!text)
        return 1;

    int me = shmem_my_pe();
    /* Every PE's own time of each call, over the PEs (collective, so computed by all). */
    struct wall wall_armci = wall_over_pes((t_armci - t0) * 1e3);
    struct wall wall_shmem = wall_over_pes((t2 - t1) * 1e3);
    struct report reports[2];
    int lines;
    int n = parse(text, reports, 2, &lines);
    if (me != 0 || !expected) {
        CHECK(lines == 0, "PE %d printed %d startup lines (expected: %d)", me, lines, expected);
    } else if (armci) {
        CHECK(n == 2, "%d reports, want ARMCI_Init's and shmem_init's", n);
        if (n >= 1)
            check_phases(&reports[0], "ARMCI_Init", 1, 1, wall_armci);
        if (n >= 2)
            check_phases(&reports[1], "shmem_init", 0, 0, wall_shmem);
    } else {
        CHECK(n == 1, "%d reports, want shmem_init's", n);
        if (n == 1)
            check_phases(&reports[0], "shmem_init", 1, 0, wall_shmem);
    }
    if (me == 0 && env_is_one("SHMEM_INFO"))
        CHECK(strstr(text, "PANGEA_STARTUP_TIMING") != NULL, "SHMEM_INFO: no tunables table row");
    if (check_local_failures())
        fprintf(stderr, "PE %d: what the init calls wrote on stderr:\n%s", me, text);
    free(text);
    int status = check_finish();
    if (armci)
        ARMCI_Finalize();
    shmem_finalize();
    return status;
}
