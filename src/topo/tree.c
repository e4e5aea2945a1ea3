/* A node's place in the switch tree: from Slurm's tree-topology variables, from a file in the
 * syntax of Slurm's topology.conf (PANGEA_TOPOLOGY_FILE), or one switch over every node. */
#include "topo_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_SWITCH "all"
/* A hostlist expression naming more than this many names is taken for a mistake. */
#define MAX_EXPANSION (1 << 20)

__attribute__((format(printf, 2, 3))) static int fail(char error[TOPO_ERROR_TEXT], const char *fmt,
                                                      ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error, TOPO_ERROR_TEXT, fmt, ap);
    va_end(ap);
    return -1;
}

/* ---- Hostlist expressions: "tux[0-3,12],login1", "s[01-16]x[1-2]" ---------------------- */

typedef int (*name_fn)(const char *name, void *ctx); /* non-zero stops the expansion */

struct expansion {
    name_fn fn;
    void *ctx;
    long names;
    int stopped;
    const char *why; /* the syntax error found */
};

/* Expands item (no top-level comma) after the name's first `have` bytes in name[]. */
static void expand_item(struct expansion *x, char *name, size_t have, size_t room, const char *item,
                        size_t len)
{
    const char *open = memchr(item, '[', len);
    size_t plain = open ? (size_t)(open - item) : len;
    if (memchr(item, ']', plain)) {
        x->why = "a ']' without its '['";
        return;
    }
    if (have + plain >= room) {
        x->why = "a name longer than 255 characters";
        return;
    }
    memcpy(name + have, item, plain);
    have += plain;
    if (!open) {
        name[have] = '\0';
        x->names++;
        if (x->names > MAX_EXPANSION)
            x->why = "more than 1048576 names";
        else if (x->fn(name, x->ctx))
            x->stopped = 1;
        return;
    }
    const char *close = memchr(open, ']', len - plain);
    if (!close) {
        x->why = "a '[' without its ']'";
        return;
    }
    if (close == open + 1) {
        x->why = "an empty '[]'";
        return;
    }
    const char *rest = close + 1;
    size_t rest_len = len - (size_t)(rest - item);
    for (const char *r = open + 1; r < close && !x->why && !x->stopped;) {
        const char *end = memchr(r, ',', (size_t)(close - r));
        end = end ? end : close;
        char *after;
        errno = 0;
        if (!isdigit((unsigned char)*r)) {
            x->why = "a range that is not a number or LOW-HIGH";
            return;
        }
        unsigned long lo = strtoul(r, &after, 10), hi = lo;
        int width = (int)(after - r);
        if (after < end && *after == '-' && isdigit((unsigned char)after[1]))
            hi = strtoul(after + 1, &after, 10);
        if (after != end || errno || hi < lo) {
            x->why = "a range that is not a number or LOW-HIGH (LOW <= HIGH)";
            return;
        }
        if (hi - lo >= MAX_EXPANSION) {
            x->why = "more than 1048576 names";
            return;
        }
        for (unsigned long n = lo; n <= hi && !x->why && !x->stopped; n++) {
            int w = snprintf(name + have, room - have, "%0*lu", width, n);
            if (w < 0 || (size_t)w >= room - have) {
                x->why = "a name longer than 255 characters";
                return;
            }
            expand_item(x, name, have + (size_t)w, room, rest, rest_len);
        }
        r = end < close ? end + 1 : close;
    }
}

/* Calls fn on every name of the expression until it returns non-zero. 0 (also when stopped
 * early), or -1 with the syntax error in *why. */
static int expand_hostlist(const char *text, name_fn fn, void *ctx, const char **why)
{
    struct expansion x = {fn, ctx, 0, 0, NULL};
    char name[256];
    const char *item = text;
    while (!x.why && !x.stopped) {
        const char *end = item;
        for (int depth = 0; *end && (depth || *end != ','); end++)
            depth += *end == '[' ? 1 : *end == ']' ? -1 : 0;
        if (end == item)
            x.why = "an empty name";
        else
            expand_item(&x, name, 0, sizeof name, item, (size_t)(end - item));
        if (!*end)
            break;
        item = end + 1;
    }
    *why = x.why;
    return x.why ? -1 : 0;
}

/* Whether host is one of the names: its full name, or its name up to the first '.'. */
struct host_match {
    const char *host;
    size_t short_len;
    int found;
};

static int match_host(const char *name, void *ctx)
{
    struct host_match *m = ctx;
    m->found = strcmp(name, m->host) == 0 ||
               (strlen(name) == m->short_len && strncmp(name, m->host, m->short_len) == 0);
    return m->found;
}

static int syntax_only(const char *name, void *ctx)
{
    (void)name;
    (void)ctx;
    return 0;
}

/* ---- Slurm's variables -------------------------------------------------------------------- */

/* SLURM_TOPOLOGY_ADDR lists the switches from the top down to the leaf, then the node, joined
 * by '.'; SLURM_TOPOLOGY_ADDR_PATTERN gives each one's kind, "switch" or "node". 1 when they
 * describe a tree (at least one switch), 0 when they are absent or name no switch, -1 when
 * they disagree. */
static int path_from_slurm(struct topo_path *path, char error[TOPO_ERROR_TEXT])
{
    const char *addr = getenv("SLURM_TOPOLOGY_ADDR");
    const char *pattern = getenv("SLURM_TOPOLOGY_ADDR_PATTERN");
    if (!addr || !pattern || !strstr(pattern, "switch"))
        return 0;
    memset(path, 0, sizeof *path);
    int depth = 0;
    size_t at = 0;
    const char *a = addr, *p = pattern;
    for (;;) {
        size_t alen = strcspn(a, "."), plen = strcspn(p, ".");
        int is_switch = plen == 6 && strncmp(p, "switch", 6) == 0;
        int is_node = plen == 4 && strncmp(p, "node", 4) == 0;
        int a_last = a[alen] == '\0', p_last = p[plen] == '\0';
        if (alen == 0 || (!is_switch && !is_node) || a_last != p_last || (is_node && !p_last))
            return fail(error,
                        "SLURM_TOPOLOGY_ADDR '%s' and SLURM_TOPOLOGY_ADDR_PATTERN '%s' do not "
                        "describe switches down to a node (components 'switch'...'node')",
                        addr, pattern);
        if (is_switch) {
            if (depth == TOPO_MAX_DEPTH || at + alen + 2 > sizeof path->names)
                return fail(error,
                            "SLURM_TOPOLOGY_ADDR '%s': more than %d switches or %d "
                            "characters",
                            addr, TOPO_MAX_DEPTH, TOPO_PATH_TEXT - 1);
            at += (size_t)snprintf(path->names + at, sizeof path->names - at, "%s%.*s",
                                   depth ? "." : "", (int)alen, a);
            depth++;
        }
        if (a_last)
            break;
        a += alen + 1;
        p += plen + 1;
    }
    return 1;
}

/* ---- The file ----------------------------------------------------------------------------- */

struct file_switch {
    char *name;
    char *switches, *nodes; /* hostlist expressions, NULL when absent */
    unsigned long speed;
    int line;
    int parent; /* index, -1 for a top switch */
};

struct topo_file {
    const char *path;
    const char *what; /* how a message names the file when it cannot be read */
    struct file_switch *sw;
    int n, room;
};

static void free_file(struct topo_file *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->sw[i].name);
        free(f->sw[i].switches);
        free(f->sw[i].nodes);
    }
    free(f->sw);
}

static int find_switch(const struct topo_file *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->sw[i].name, name) == 0)
            return i;
    return -1;
}

/* One line: "SwitchName=NAME [Switches=LIST] [Nodes=LIST] [LinkSpeed=N]", keys in any case,
 * after '#' comments are cut. */
static int parse_line(struct topo_file *f, char *text, int line, char error[TOPO_ERROR_TEXT])
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    struct file_switch s = {.line = line, .parent = -1};
    int status = 0, any = 0;
    for (char *save = NULL, *tok = strtok_r(text, " \t\r\n", &save); tok && status == 0;
         tok = strtok_r(NULL, " \t\r\n", &save)) {
        any = 1;
        char *eq = strchr(tok, '=');
        if (!eq || eq[1] == '\0') {
            status = fail(error, "%s:%d: '%s' is not KEY=VALUE", f->path, line, tok);
            break;
        }
        *eq = '\0';
        char *value = eq + 1, **slot = NULL;
        if (strcasecmp(tok, "SwitchName") == 0)
            slot = &s.name;
        else if (strcasecmp(tok, "Switches") == 0)
            slot = &s.switches;
        else if (strcasecmp(tok, "Nodes") == 0)
            slot = &s.nodes;
        else if (strcasecmp(tok, "LinkSpeed") == 0) {
            char *end;
            errno = 0;
            s.speed = strtoul(value, &end, 10);
            if (*end || errno || !isdigit((unsigned char)*value))
                status = fail(error, "%s:%d: LinkSpeed '%s' is not a whole number", f->path, line,
                              value);
            continue;
        } else {
            status = fail(error, "%s:%d: unknown key '%s' (SwitchName, Switches, Nodes, LinkSpeed)",
                          f->path, line, tok);
            break;
        }
        if (*slot)
            status = fail(error, "%s:%d: %s given twice", f->path, line, tok);
        else if (!(*slot = strdup(value)))
            status = fail(error, "%s:%d: out of memory", f->path, line);
    }
    const char *why = NULL;
    if (status == 0 && any) {
        if (!s.name)
            status = fail(error, "%s:%d: no SwitchName", f->path, line);
        else if (!s.switches && !s.nodes)
            status = fail(error, "%s:%d: switch '%s' has neither Switches= nor Nodes=", f->path,
                          line, s.name);
        else if (find_switch(f, s.name) >= 0)
            status = fail(error, "%s:%d: switch '%s' is defined twice", f->path, line, s.name);
        else if ((s.switches && expand_hostlist(s.switches, syntax_only, NULL, &why) != 0) ||
                 (s.nodes && expand_hostlist(s.nodes, syntax_only, NULL, &why) != 0))
            status = fail(error, "%s:%d: bad host list: %s", f->path, line, why);
    }
    if (status == 0 && any && f->n == f->room) {
        int room = f->room ? 2 * f->room : 16;
        struct file_switch *grown = realloc(f->sw, (size_t)room * sizeof *grown);
        if (!grown)
            status = fail(error, "%s:%d: out of memory", f->path, line);
        else {
            f->sw = grown;
            f->room = room;
        }
    }
    if (status == 0 && any)
        f->sw[f->n++] = s;
    else {
        free(s.name);
        free(s.switches);
        free(s.nodes);
    }
    return status;
}

struct child_link {
    struct topo_file *f;
    int parent;
    char *error;
};

static int link_child(const char *name, void *ctx)
{
    struct child_link *c = ctx;
    struct topo_file *f = c->f;
    const struct file_switch *p = &f->sw[c->parent];
    int i = find_switch(f, name);
    if (i < 0)
        fail(c->error, "%s:%d: switch '%s' lists switch '%s', which no line defines", f->path,
             p->line, p->name, name);
    else if (f->sw[i].parent >= 0)
        fail(c->error, "%s:%d: switch '%s' is under both '%s' and '%s'", f->path, p->line, name,
             f->sw[f->sw[i].parent].name, p->name);
    else if (i == c->parent)
        fail(c->error, "%s:%d: switch '%s' lists itself", f->path, p->line, name);
    else {
        f->sw[i].parent = c->parent;
        return 0;
    }
    return 1;
}

static int read_file(struct topo_file *f, char error[TOPO_ERROR_TEXT])
{
    FILE *in = fopen(f->path, "r");
    if (!in)
        return fail(error, "%s %s cannot be read: %s", f->what, f->path, strerror(errno));
    char *text = NULL;
    size_t room = 0;
    int status = 0;
    for (int line = 1; status == 0 && getline(&text, &room, in) >= 0; line++)
        status = parse_line(f, text, line, error);
    free(text);
    fclose(in);
    if (status == 0 && f->n == 0)
        status = fail(error, "%s:1: no switch is defined", f->path);
    for (int i = 0; i < f->n && status == 0; i++) {
        if (!f->sw[i].switches)
            continue;
        struct child_link c = {f, i, error};
        const char *why;
        error[0] = '\0';
        expand_hostlist(f->sw[i].switches, link_child, &c, &why);
        status = error[0] ? -1 : 0;
    }
    return status;
}

struct leaf_search {
    struct host_match match;
    const struct topo_file *f;
    int leaf;
    char *error;
};

static int path_from_file(const char *file, const char *what, const char *host,
                          struct topo_path *path, char error[TOPO_ERROR_TEXT])
{
    struct topo_file f = {.path = file, .what = what};
    int status = read_file(&f, error);
    int leaf = -1;
    for (int i = 0; i < f.n && status == 0; i++) {
        if (!f.sw[i].nodes)
            continue;
        struct host_match m = {host, strcspn(host, "."), 0};
        const char *why;
        expand_hostlist(f.sw[i].nodes, match_host, &m, &why);
        if (!m.found)
            continue;
        if (leaf >= 0)
            status = fail(error, "%s:%d: node '%s' is under both '%s' (line %d) and '%s'", file,
                          f.sw[i].line, host, f.sw[leaf].name, f.sw[leaf].line, f.sw[i].name);
        leaf = i;
    }
    if (status == 0 && leaf < 0)
        status = fail(error, "node '%s' of the job is under no switch of %s", host, file);
    if (status == 0) {
        /* From the leaf up; a chain longer than the switches can only be a cycle. */
        int chain[TOPO_MAX_DEPTH], depth = 0;
        for (int s = leaf; s >= 0 && status == 0; s = f.sw[s].parent) {
            if (depth == TOPO_MAX_DEPTH)
                status = fail(error,
                              "%s:%d: the switches above '%s' form a cycle or are more "
                              "than %d levels deep",
                              file, f.sw[leaf].line, f.sw[leaf].name, TOPO_MAX_DEPTH);
            else
                chain[depth++] = s;
        }
        memset(path, 0, sizeof *path);
        size_t at = 0;
        for (int d = 0; d < depth && status == 0; d++) {
            const struct file_switch *s = &f.sw[chain[depth - 1 - d]];
            int w =
                snprintf(path->names + at, sizeof path->names - at, "%s%s", d ? "." : "", s->name);
            if (w < 0 || (size_t)w >= sizeof path->names - at || strchr(s->name, '.'))
                status = fail(error,
                              "%s:%d: switch names must be free of '.' and their path "
                              "from the top at most %d characters",
                              file, s->line, TOPO_PATH_TEXT - 1);
            at += (size_t)w;
            path->speed[d] = (uint32_t)s->speed;
        }
    }
    free_file(&f);
    return status;
}

int topo_path_of_host(const char *host, struct topo_path *path, enum topo_source *source,
                      char error[TOPO_ERROR_TEXT])
{
    error[0] = '\0';
    int slurm = path_from_slurm(path, error);
    if (slurm != 0) {
        *source = SOURCE_SLURM;
        return slurm < 0 ? -1 : 0;
    }
    const char *file = getenv("PANGEA_TOPOLOGY_FILE");
    if (file && *file) {
        *source = SOURCE_FILE;
        return path_from_file(file, "PANGEA_TOPOLOGY_FILE", host, path, error);
    }
    *source = SOURCE_DEFAULT;
    memset(path, 0, sizeof *path);
    snprintf(path->names, sizeof path->names, "%s", DEFAULT_SWITCH);
    return 0;
}

int pg_topo_file_switches(const char *file, const char *host, char *switches, size_t len,
                          char error[PG_TOPO_ERROR_TEXT])
{
    struct topo_path path;
    error[0] = '\0';
    if (path_from_file(file, "topology file", host, &path, error) != 0)
        return -1;
    /* names is top-down and '.'-separated: turn it around. */
    size_t at = 0;
    switches[0] = '\0';
    for (size_t end = strlen(path.names); end > 0;) {
        size_t start = end;
        while (start > 0 && path.names[start - 1] != '.')
            start--;
        int w = snprintf(switches + at, len - at, "%s%.*s", at ? "/" : "", (int)(end - start),
                         path.names + start);
        if (w < 0 || (size_t)w >= len - at)
            return fail(error, "%s: the switch path of '%s' is longer than %zu characters", file,
                        host, len - 1);
        at += (size_t)w;
        end = start ? start - 1 : 0;
    }
    return 0;
}
