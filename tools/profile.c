/* Reading a profile directory: topology.csv first (it gives the PE count), then every
 * pe-N.csv; any defect stops the read with the file and line named. */
#define _GNU_SOURCE
#include "profile.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const prof_level_names[PROF_LEVELS] = {"core", "numa",   "package",
                                                   "node", "switch", "system"};
#define PROF_NAME(id, name) name,
const char *const prof_op_names[PROF_OP_KINDS] = {PG_PROF_OPS(PROF_NAME)};
const char *const prof_wait_names[PROF_WAIT_KINDS] = {PG_PROF_WAITS(PROF_NAME)};
#undef PROF_NAME

#define MAGIC "# pangea-profile 1"
#define MAX_FIELDS 8

__attribute__((format(printf, 2, 3))) static int fail(char error[PROF_ERROR_TEXT], const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, PROF_ERROR_TEXT, fmt, ap);
    va_end(ap);
    return -1;
}

/* A CSV file read line by line: the magic line, comments, the header, then rows split into
 * fields. */
struct csv {
    FILE *in;
    const char *path;
    int line;
    char *text;
    size_t room;
    char *field[MAX_FIELDS];
    int nfields;
};

static int csv_open(struct csv *c, const char *path, const char *header,
                    char error[PROF_ERROR_TEXT])
{
    memset(c, 0, sizeof *c);
    c->path = path;
    if (!(c->in = fopen(path, "r")))
        return fail(error, "%s: cannot be read: %s", path, strerror(errno));
    ssize_t n = getline(&c->text, &c->room, c->in);
    c->line = 1;
    if (n < 0 || strcmp(strtok(c->text, "\n"), MAGIC) != 0)
        return fail(error, "%s:1: not a Pangea profile (the first line must be '%s')", path, MAGIC);
    while ((n = getline(&c->text, &c->room, c->in)) >= 0) {
        c->line++;
        if (c->text[0] == '#')
            continue;
        c->text[strcspn(c->text, "\n")] = '\0';
        if (strcmp(c->text, header) != 0)
            return fail(error, "%s:%d: bad header '%s' (want '%s')", path, c->line, c->text,
                        header);
        return 0;
    }
    return fail(error, "%s:%d: no header line (want '%s')", path, c->line, header);
}

static void csv_close(struct csv *c)
{
    if (c->in)
        fclose(c->in);
    free(c->text);
}

/* The next row's fields: 1, 0 at the end, -1 when it has not `want` fields. */
static int csv_row(struct csv *c, int want, char error[PROF_ERROR_TEXT])
{
    while (getline(&c->text, &c->room, c->in) >= 0) {
        c->line++;
        if (c->text[0] == '#')
            continue;
        c->text[strcspn(c->text, "\n")] = '\0';
        c->nfields = 0;
        char *s = c->text;
        for (;;) {
            if (c->nfields == MAX_FIELDS)
                break;
            c->field[c->nfields++] = s;
            char *comma = strchr(s, ',');
            if (!comma)
                break;
            *comma = '\0';
            s = comma + 1;
        }
        if (c->nfields != want || strchr(s, ','))
            return fail(error, "%s:%d: %d fields, want %d", c->path, c->line,
                        c->nfields == MAX_FIELDS ? MAX_FIELDS : c->nfields, want);
        return 1;
    }
    return 0;
}

static int csv_number(struct csv *c, int i, const char *column, int64_t min, int64_t *out,
                      char error[PROF_ERROR_TEXT])
{
    const char *text = c->field[i];
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno || v < min)
        return fail(error, "%s:%d: %s '%s' is not a number%s", c->path, c->line, column, text,
                    min == 0    ? " >= 0"
                    : min == -1 ? " >= -1"
                                : "");
    *out = v;
    return 0;
}

static int read_topology(const char *dir, struct profile *p, char error[PROF_ERROR_TEXT])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/topology.csv", dir);
    struct csv c;
    int status = csv_open(&c, path, "pe,node,host,package,numa,core,switches", error);
    int room = 0, r, *row = NULL; /* [2 * rows]: each row's PE and line */
    while (status == 0 && (r = csv_row(&c, 7, error)) != 0) {
        if (r < 0) {
            status = -1;
            break;
        }
        int64_t v[6];
        static const char *const names[] = {"pe", "node", NULL, "package", "numa", "core"};
        for (int i = 0; i < 6 && status == 0; i++)
            if (names[i])
                status = csv_number(&c, i, names[i], i < 2 ? 0 : -1, &v[i], error);
        if (status != 0)
            break;
        if (strlen(c.field[2]) >= PROF_HOST_TEXT || strlen(c.field[6]) >= PROF_SWITCHES_TEXT ||
            !c.field[2][0]) {
            status = fail(error, "%s:%d: host empty or longer than %d, or switches longer than %d",
                          path, c.line, PROF_HOST_TEXT - 1, PROF_SWITCHES_TEXT - 1);
            break;
        }
        if (p->npes == room) {
            room = room ? 2 * room : 64;
            struct prof_place *grown = realloc(p->place, (size_t)room * sizeof *grown);
            int *more = realloc(row, (size_t)room * 2 * sizeof *more);
            p->place = grown ? grown : p->place;
            row = more ? more : row;
            if (!grown || !more) {
                status = fail(error, "%s:%d: out of memory", path, c.line);
                break;
            }
        }
        row[2 * p->npes] = v[0] > INT32_MAX ? INT32_MAX : (int)v[0]; /* the PE ... */
        row[2 * p->npes + 1] = c.line;                               /* ... and its line */
        struct prof_place *pl = &p->place[p->npes++];
        pl->node = (int)v[1];
        pl->package = (int)v[3];
        pl->numa = (int)v[4];
        pl->core = (int)v[5];
        snprintf(pl->host, sizeof pl->host, "%s", c.field[2]);
        snprintf(pl->switches, sizeof pl->switches, "%s", c.field[6]);
        if (pl->node >= p->nnodes)
            p->nnodes = pl->node + 1;
    }
    if (status == 0 && p->npes == 0)
        status = fail(error, "%s:%d: no PE", path, c.line);
    /* Rows in any order, each PE 0..npes-1 once. */
    struct prof_place *by_pe = status == 0 ? calloc((size_t)p->npes, sizeof *by_pe) : NULL;
    int *line_of = status == 0 ? calloc((size_t)p->npes, sizeof *line_of) : NULL;
    if (status == 0 && (!by_pe || !line_of))
        status = fail(error, "%s: out of memory", path);
    for (int r = 0; status == 0 && r < p->npes; r++) {
        int pe = row[2 * r], line = row[2 * r + 1];
        if (pe >= p->npes)
            status = fail(error, "%s:%d: pe %d, but the file has %d PEs (rows)", path, line, pe,
                          p->npes);
        else if (line_of[pe])
            status = fail(error, "%s:%d: pe %d again (line %d)", path, line, pe, line_of[pe]);
        else {
            line_of[pe] = line;
            by_pe[pe] = p->place[r];
        }
    }
    if (status == 0) {
        free(p->place);
        p->place = by_pe;
        by_pe = NULL;
    }
    free(by_pe);
    free(line_of);
    free(row);
    /* Nodes are numbered 0..nnodes-1, each with one host and switch path. */
    for (int n = 0; status == 0 && n < p->nnodes; n++) {
        int first = -1;
        for (int i = 0; i < p->npes && status == 0; i++) {
            if (p->place[i].node != n)
                continue;
            if (first < 0)
                first = i;
            else if (strcmp(p->place[i].host, p->place[first].host) != 0 ||
                     strcmp(p->place[i].switches, p->place[first].switches) != 0)
                status = fail(error,
                              "%s: PEs %d and %d are both on node %d but name different "
                              "hosts or switch paths",
                              path, first, i, n);
        }
        if (status == 0 && first < 0)
            status = fail(error, "%s: node %d has no PE (nodes are numbered 0..%d)", path, n,
                          p->nnodes - 1);
    }
    csv_close(&c);
    return status;
}

static int kind_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

static int add_coll(struct profile *p, const char *name, uint64_t bytes, uint64_t count)
{
    int i = 0;
    while (i < p->ncoll && strcmp(p->coll[i].name, name) != 0)
        i++;
    if (i == p->ncoll) {
        struct prof_coll *grown = realloc(p->coll, (size_t)(p->ncoll + 1) * sizeof *grown);
        if (!grown)
            return -1;
        p->coll = grown;
        memset(&p->coll[i], 0, sizeof p->coll[i]);
        snprintf(p->coll[i].name, sizeof p->coll[i].name, "%s", name);
        p->ncoll++;
    }
    p->coll[i].bytes += bytes;
    p->coll[i].count += count;
    return 0;
}

static int read_pe(const char *dir, struct profile *p, int me, char error[PROF_ERROR_TEXT])
{
    char path[4096];
    snprintf(path, sizeof path, "%s/pe-%d.csv", dir, me);
    struct csv c;
    int status = csv_open(&c, path, "kind,name,target,count,bytes,ns", error), r;
    struct prof_pe *pe = &p->pe[me];
    while (status == 0 && (r = csv_row(&c, 6, error)) != 0) {
        int64_t target, count, bytes, ns;
        if (r < 0 || csv_number(&c, 2, "target", -1, &target, error) != 0 ||
            csv_number(&c, 3, "count", 0, &count, error) != 0 ||
            csv_number(&c, 4, "bytes", 0, &bytes, error) != 0 ||
            csv_number(&c, 5, "ns", 0, &ns, error) != 0) {
            status = -1;
            break;
        }
        const char *kind = c.field[0], *name = c.field[1];
        int is_op = strcmp(kind, "op") == 0, is_coll = strcmp(kind, "coll") == 0;
        int k = -1;
        if (is_op || is_coll) {
            if (target < 0 || target >= p->npes) {
                status = fail(error, "%s:%d: target %" PRId64 " is not a PE (the profile has %d)",
                              path, c.line, target, p->npes);
                break;
            }
            if (is_op && (k = kind_index(name, prof_op_names, PROF_OP_KINDS)) < 0) {
                status = fail(error, "%s:%d: unknown op '%s'", path, c.line, name);
                break;
            }
            if (is_coll && (!name[0] || strlen(name) >= sizeof p->coll[0].name)) {
                status = fail(error, "%s:%d: bad collective name '%s'", path, c.line, name);
                break;
            }
            size_t at = (size_t)me * (size_t)p->npes + (size_t)target;
            p->bytes[at] += (uint64_t)bytes;
            p->count[at] += (uint64_t)count;
            if (is_op) {
                pe->op_bytes[k] += (uint64_t)bytes;
                pe->op_count[k] += (uint64_t)count;
            } else {
                pe->coll_bytes += (uint64_t)bytes;
                pe->coll_count += (uint64_t)count;
                if (add_coll(p, name, (uint64_t)bytes, (uint64_t)count) != 0) {
                    status = fail(error, "%s:%d: out of memory", path, c.line);
                    break;
                }
            }
        } else if (strcmp(kind, "wait") == 0) {
            if ((k = kind_index(name, prof_wait_names, PROF_WAIT_KINDS)) < 0) {
                status = fail(error, "%s:%d: unknown wait '%s'", path, c.line, name);
                break;
            }
            pe->wait_ns[k] += (uint64_t)ns;
            pe->wait_count[k] += (uint64_t)count;
        } else if (strcmp(kind, "info") == 0) {
            if (strcmp(name, "elapsed") == 0)
                pe->elapsed_ns = (uint64_t)ns;
        } else {
            status =
                fail(error, "%s:%d: unknown kind '%s' (op, coll, wait, info)", path, c.line, kind);
        }
    }
    csv_close(&c);
    return status;
}

int prof_read(const char *dir, struct profile *p, char error[PROF_ERROR_TEXT])
{
    memset(p, 0, sizeof *p);
    if (read_topology(dir, p, error) != 0)
        return -1;
    size_t cells = (size_t)p->npes * (size_t)p->npes;
    p->pe = calloc((size_t)p->npes, sizeof *p->pe);
    p->bytes = calloc(cells, sizeof *p->bytes);
    p->count = calloc(cells, sizeof *p->count);
    if (!p->pe || !p->bytes || !p->count)
        return fail(error, "%s: out of memory for %d PEs", dir, p->npes);
    for (int i = 0; i < p->npes; i++)
        if (read_pe(dir, p, i, error) != 0)
            return -1;
    return 0;
}

void prof_usage_exit(int c, void (*usage)(FILE *))
{
    usage(c == 'h' ? stdout : stderr);
    exit(c == 'h' ? 0 : 2);
}

const char *prof_load_argument(const char *tool, int argc, char **argv, int next,
                               void (*usage)(FILE *), struct profile *p)
{
    if (next != argc - 1) {
        usage(stderr);
        exit(2);
    }
    char error[PROF_ERROR_TEXT];
    if (prof_read(argv[next], p, error) != 0) {
        fprintf(stderr, "%s: %s\n", tool, error);
        exit(1);
    }
    return argv[next];
}

void prof_free(struct profile *p)
{
    free(p->place);
    free(p->pe);
    free(p->bytes);
    free(p->count);
    free(p->coll);
    memset(p, 0, sizeof *p);
}

enum prof_level prof_level_of(const struct prof_place *a, const struct prof_place *b, int same_pe)
{
    if (same_pe)
        return LEVEL_CORE;
    if (a->node == b->node) {
        if (a->core >= 0 && a->core == b->core)
            return LEVEL_CORE;
        if (a->numa >= 0 && a->numa == b->numa)
            return LEVEL_NUMA;
        if (a->package >= 0 && a->package == b->package)
            return LEVEL_PACKAGE;
        return LEVEL_NODE;
    }
    char leaf_a[PROF_SWITCHES_TEXT], leaf_b[PROF_SWITCHES_TEXT];
    prof_switch_names(a->switches, &leaf_a, 1);
    prof_switch_names(b->switches, &leaf_b, 1);
    return strcmp(leaf_a, leaf_b) == 0 ? LEVEL_SWITCH : LEVEL_SYSTEM;
}

int prof_switch_names(const char *switches, char names[][PROF_SWITCHES_TEXT], int max)
{
    int n = 0;
    if (max > 0)
        names[0][0] = '\0';
    for (const char *s = switches; *s && n < max;) {
        size_t len = strcspn(s, "/");
        snprintf(names[n++], PROF_SWITCHES_TEXT, "%.*s", (int)len, s);
        s += len + (s[len] == '/');
    }
    return n;
}

#define MAX_DEPTH 16

int prof_hops(const struct prof_place *a, const struct prof_place *b)
{
    if (a->node == b->node)
        return 0;
    char pa[MAX_DEPTH][PROF_SWITCHES_TEXT], pb[MAX_DEPTH][PROF_SWITCHES_TEXT];
    int na = prof_switch_names(a->switches, pa, MAX_DEPTH);
    int nb = prof_switch_names(b->switches, pb, MAX_DEPTH);
    /* The lowest switch of a's path that is also on b's: links up to it from both nodes. */
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++)
            if (strcmp(pa[i], pb[j]) == 0)
                return i + 1 + j + 1;
    return (na ? na : 0) + (nb ? nb : 0) + 2;
}

const char *prof_bytes_text(uint64_t bytes, char *text, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(text, len, "%" PRIu64 " B", bytes);
    else
        snprintf(text, len, "%.1f %s", v, units[u]);
    return text;
}
