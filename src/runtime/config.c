/* The tunables table: defaults, tuning file, environment, printing. */
#define _GNU_SOURCE /* dladdr */
#include "runtime.h"

#include <ctype.h>
#include <dlfcn.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct pg_config pg_cfg;

struct tunable {
    const char *env;
    enum pg_tunable_kind kind;
    const char *def;
    enum pg_category category;
    const char *meaning;
    long long *value;
    const char *const *words; /* of a choice kind */
};

#define TUNABLE_COUNT (sizeof tunables / sizeof tunables[0])

static const struct tunable tunables[] = {
#define PG_TUNABLE_ROW(field, kind, env, def, category, meaning) \
    {env, PG_KIND_##kind, def, PG_CAT_##category, meaning, &pg_cfg.field, PG_WORDS_##kind},
    PG_TUNABLES(PG_TUNABLE_ROW)
#undef PG_TUNABLE_ROW
};

#define PG_CATEGORY_HEADING(name, heading) heading,
static const char *const category_heading[] = {PG_CATEGORIES(PG_CATEGORY_HEADING)};
#undef PG_CATEGORY_HEADING

static enum pg_tunable_source sources[TUNABLE_COUNT];
static struct pg_tuning_file tuning;
static int provider_line, host_line; /* of the tuning file, for the mismatch warnings */

int pg_parse_size(const char *text, size_t *out)
{
    const char *p = text;
    double whole = 0;
    int digits = 0;
    while (isdigit((unsigned char)*p)) {
        whole = whole * 10 + (*p++ - '0');
        digits++;
    }
    double frac = 0, scale = 1;
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            scale /= 10;
            frac += (*p++ - '0') * scale;
            digits++;
        }
    }
    if (digits == 0)
        return -1;
    double mult = 1;
    switch (*p) {
    case '\0':
        break;
    case 'k':
    case 'K':
        mult = 0x1p10;
        break;
    case 'm':
    case 'M':
        mult = 0x1p20;
        break;
    case 'g':
    case 'G':
        mult = 0x1p30;
        break;
    case 't':
    case 'T':
        mult = 0x1p40;
        break;
    default:
        return -1; /* exponents and garbage are not in the grammar */
    }
    double bytes = ceil((whole + frac) * mult);
    if (bytes >= 0x1p63)
        return -1;
    *out = (size_t)bytes;
    return 0;
}

static int parse_value(const struct tunable *t, const char *text, long long *out)
{
    char *end;
    switch (t->kind) {
    case PG_KIND_SIZE: {
        size_t bytes;
        if (pg_parse_size(text, &bytes) != 0)
            return -1;
        *out = (long long)bytes;
        return 0;
    }
    case PG_KIND_INT:
        *out = strtoll(text, &end, 0);
        return (end == text || *end != '\0') ? -1 : 0;
    case PG_KIND_BOOL:
        /* The spec's SHMEM_DEBUG/INFO/VERSION take "any" value; only an explicit 0/no/off
         * switches a boolean off. */
        *out = !(strcmp(text, "0") == 0 || strcasecmp(text, "no") == 0 ||
                 strcasecmp(text, "off") == 0 || strcasecmp(text, "false") == 0);
        return 0;
    case PG_KIND_TEXT: /* kept for the whole run: tuning-file lines are not */
        *out = 0;
        if (*text && !(*out = (long long)(intptr_t)strdup(text)))
            return -1;
        return 0;
    case PG_KIND_CHOICE:
        for (long long i = 0; t->words[i]; i++) {
            if (strcasecmp(text, t->words[i]) == 0) {
                *out = i;
                return 0;
            }
        }
        return -1;
    }
    return -1;
}

/* What a valid value of t looks like, for the message about an invalid one: the words of a
 * choice, else the meaning. */
static const char *valid_values(const struct tunable *t, char *text, size_t size)
{
    if (t->kind != PG_KIND_CHOICE)
        return t->meaning;
    size_t used = (size_t)snprintf(text, size, "one of");
    for (size_t i = 0; t->words[i] && used < size; i++)
        used += (size_t)snprintf(text + used, size - used, "%s %s", i ? "," : "", t->words[i]);
    return text;
}

/* The value as the user writes it: the word of a choice, else the number. */
static const char *value_text(const struct tunable *t, char *text, size_t size)
{
    if (t->kind == PG_KIND_CHOICE)
        return t->words[*t->value];
    if (t->kind == PG_KIND_TEXT)
        return *t->value ? pg_cfg_text(*t->value) : "";
    snprintf(text, size, "%lld", *t->value);
    return text;
}

static const char *lookup_env(const char *name)
{
    const char *value = getenv(name);
    if (!value && strncmp(name, "SHMEM_", 6) == 0) {
        char alias[64];
        snprintf(alias, sizeof alias, "SMA_%s", name + 6);
        value = getenv(alias);
    }
    return value;
}

static const struct tunable *find_tunable(const char *env)
{
    for (size_t i = 0; i < TUNABLE_COUNT; i++)
        if (strcmp(tunables[i].env, env) == 0)
            return &tunables[i];
    return NULL;
}

/* The default of t for the transport chosen: over MPI the pipeline's chunk is larger, since
 * every chunk costs the library a matched probe, a receive and polls of its own while the
 * bytes cost about what they cost over libfabric (docs/transport.md, "Chunks"). */
static const char *default_of(const struct tunable *t, int over_mpi)
{
    if (over_mpi && t->value == &pg_cfg.pipeline_buffer_size)
        return PG_MPI_PIPELINE_BUFFER_SIZE;
    return t->def;
}

static int over_mpi(void)
{
    return pg_cfg.transport == PG_TRANSPORT_MPI;
}

size_t pg_config_early_size(const char *env)
{
    const struct tunable *t = find_tunable(env);
    const char *value = getenv(env), *transport = getenv("PANGEA_TRANSPORT");
    size_t size = 0;
    if (!t || t->kind != PG_KIND_SIZE)
        pg_fatal("config", "%s is not a size tunable", env);
    if (!value || pg_parse_size(value, &size) != 0)
        pg_parse_size(default_of(t, transport && strcasecmp(transport, "mpi") == 0), &size);
    return size;
}

enum pg_tunable_source pg_config_source(const char *env)
{
    const struct tunable *t = find_tunable(env);
    return t ? sources[t - tunables] : PG_SOURCE_DEFAULT;
}

const struct pg_tuning_file *pg_config_tuning(void)
{
    return &tuning;
}

int pg_config_default_tuning_path(char *path, size_t size)
{
    Dl_info where;
    if (!dladdr((void *)pg_config_default_tuning_path, &where) || !where.dli_fname ||
        !strchr(where.dli_fname, '/'))
        return 0;
    const char *slash = strrchr(where.dli_fname, '/');
    int n = snprintf(path, size, "%.*s/../share/pangea/tuning.conf", (int)(slash - where.dli_fname),
                     where.dli_fname);
    return n > 0 && (size_t)n < size;
}

static char *trim(char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    char *end = text + strlen(text);
    while (end > text && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return text;
}

static void copy_field(char *field, size_t size, const char *value)
{
    snprintf(field, size, "%s", value);
}

/* Reads a tuning file into values[] (a value per tunable, set[] where the file sets one) and
 * the metadata. Returns the number of problems, each printed with file, line and key. */
static int read_tuning_file(FILE *f, const char *path, long long *values, int *set)
{
    char line[1024];
    int problems = 0;
    for (int number = 1; fgets(line, sizeof line, f); number++) {
        char *text = trim(line);
        if (*text == '\0' || *text == '#')
            continue;
        char *equals = strchr(text, '=');
        if (!equals) {
            fprintf(stderr, "pangea: tuning file %s line %d: expected 'KEY = VALUE', got '%s'\n",
                    path, number, text);
            problems++;
            continue;
        }
        *equals = '\0';
        char *key = trim(text), *value = trim(equals + 1);
        if (strcmp(key, "provider") == 0) {
            copy_field(tuning.provider, sizeof tuning.provider, value);
            provider_line = number;
            continue;
        }
        if (strcmp(key, "host") == 0) {
            copy_field(tuning.host, sizeof tuning.host, value);
            host_line = number;
            continue;
        }
        if (strcmp(key, "date") == 0) {
            copy_field(tuning.date, sizeof tuning.date, value);
            continue;
        }
        const struct tunable *t = find_tunable(key);
        if (!t) {
            fprintf(stderr,
                    "pangea: tuning file %s line %d: unknown key '%s' (not a tunable: see "
                    "pangea-info)\n",
                    path, number, key);
            problems++;
            continue;
        }
        size_t i = (size_t)(t - tunables);
        if (parse_value(t, value, &values[i]) != 0) {
            char valid[256];
            fprintf(stderr, "pangea: tuning file %s line %d: invalid value '%s' for key %s (%s)\n",
                    path, number, value, key, valid_values(t, valid, sizeof valid));
            problems++;
            continue;
        }
        set[i] = 1;
    }
    return problems;
}

/* Applies the tuning file, if any, over the defaults. */
static void load_tuning_file(void)
{
    memset(&tuning, 0, sizeof tuning);
    const char *path = getenv("PANGEA_TUNING_FILE");
    char fallback[PG_TUNING_PATH_MAX];
    int explicit = path != NULL;
    if (!path) {
        if (!pg_config_default_tuning_path(fallback, sizeof fallback))
            return;
        path = fallback;
    }
    if (*path == '\0')
        return;
    FILE *f = fopen(path, "r");
    if (!f) {
        if (explicit)
            fprintf(stderr, "pangea: PANGEA_TUNING_FILE %s cannot be read: defaults kept\n", path);
        return;
    }
    copy_field(tuning.path, sizeof tuning.path, path);
    long long values[TUNABLE_COUNT];
    int set[TUNABLE_COUNT] = {0};
    int problems = read_tuning_file(f, path, values, set);
    fclose(f);
    if (problems) {
        fprintf(stderr, "pangea: tuning file %s not applied (%d problem%s): defaults kept\n", path,
                problems, problems > 1 ? "s" : "");
        return;
    }
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    if (tuning.host[0] && fnmatch(tuning.host, host, 0) != 0) {
        fprintf(stderr,
                "pangea: tuning file %s line %d: key host: measured on '%s', this is '%s': not "
                "applied, defaults kept\n",
                path, host_line, tuning.host, host);
        return;
    }
    for (size_t i = 0; i < TUNABLE_COUNT; i++) {
        if (set[i]) {
            *tunables[i].value = values[i];
            sources[i] = PG_SOURCE_FILE;
        }
    }
    tuning.applied = 1;
}

int pg_config_load(void)
{
    int status = 0;
    for (size_t i = 0; i < TUNABLE_COUNT; i++) {
        if (parse_value(&tunables[i], tunables[i].def, tunables[i].value) != 0)
            abort(); /* a default that does not parse is a bug in the table */
        sources[i] = PG_SOURCE_DEFAULT;
    }
    load_tuning_file();
    for (size_t i = 0; i < TUNABLE_COUNT; i++) {
        const struct tunable *t = &tunables[i];
        const char *text = lookup_env(t->env);
        if (!text)
            continue;
        if (parse_value(t, text, t->value) != 0) {
            char valid[256];
            fprintf(stderr, "pangea: shmem_init: invalid value '%s' for %s (%s)\n", text, t->env,
                    valid_values(t, valid, sizeof valid));
            status = -1;
        }
        sources[i] = PG_SOURCE_ENV;
    }
    for (size_t i = 0; i < TUNABLE_COUNT; i++) {
        const char *def = default_of(&tunables[i], over_mpi());
        if (sources[i] == PG_SOURCE_DEFAULT && def != tunables[i].def)
            parse_value(&tunables[i], def, tunables[i].value);
    }
    return status;
}

void pg_config_check_provider(const char *provider)
{
    if (!tuning.applied || !tuning.provider[0] || strcmp(tuning.provider, provider) == 0)
        return;
    fprintf(stderr,
            "pangea: tuning file %s line %d: key provider: measured with '%s', this job uses "
            "'%s': its values are not applied, defaults kept\n",
            tuning.path, provider_line, tuning.provider, provider);
    for (size_t i = 0; i < TUNABLE_COUNT; i++) {
        if (sources[i] == PG_SOURCE_FILE) {
            parse_value(&tunables[i], default_of(&tunables[i], over_mpi()), tunables[i].value);
            sources[i] = PG_SOURCE_DEFAULT;
        }
    }
    tuning.applied = 0;
}

void pg_print_wrapped(void *stream, int indent, const char *text)
{
    FILE *out = stream;
    const int width = 100 - indent;
    while (*text) {
        int len = (int)strlen(text);
        if (len > width) {
            len = width;
            while (len > 0 && text[len] != ' ')
                len--;
            if (len == 0)
                len = width; /* one word longer than the line */
        }
        fprintf(out, "%*s%.*s\n", indent, "", len, text);
        text += len;
        while (*text == ' ')
            text++;
    }
}

static const char *const source_names[] = {"default", "file", "env"};

static void print_row(FILE *out, size_t i, int meanings)
{
    const struct tunable *t = &tunables[i];
    char value[32];
    fprintf(out, "%-28s %-12s %-8s %s\n", t->env, value_text(t, value, sizeof value),
            source_names[sources[i]], default_of(t, over_mpi()));
    if (meanings)
        pg_print_wrapped(out, 4, t->meaning);
}

void pg_config_print(void *stream, int meanings)
{
    FILE *out = stream;
    char path[PG_TUNING_PATH_MAX];
    if (tuning.path[0])
        fprintf(out, "tuning file %s (%s; provider %s, host %s, date %s)\n", tuning.path,
                tuning.applied ? "applied" : "not applied",
                tuning.provider[0] ? tuning.provider : "-", tuning.host[0] ? tuning.host : "-",
                tuning.date[0] ? tuning.date : "-");
    else if (getenv("PANGEA_TUNING_FILE") || !pg_config_default_tuning_path(path, sizeof path))
        fprintf(out, "tuning file: none\n");
    else
        fprintf(out, "tuning file: none (PANGEA_TUNING_FILE unset and no %s)\n", path);
    fprintf(out, "%-28s %-12s %-8s %s\n", "variable", "value", "from", "default");
    for (int c = 0; c < PG_CATEGORY_COUNT; c++) {
        fprintf(out, "-- %s\n", category_heading[c]);
        for (size_t i = 0; i < TUNABLE_COUNT; i++)
            if (tunables[i].category == (enum pg_category)c)
                print_row(out, i, meanings);
    }
}

int pg_config_print_one(void *stream, const char *name)
{
    const struct tunable *t = find_tunable(name);
    if (!t)
        return -1;
    print_row(stream, (size_t)(t - tunables), 1);
    return 0;
}

/* Variables that are not tunables of the library but are read by Pangea's wrappers and at
 * init, with their meaning (documented with the tunables, and known to the misspelling check). */
static const struct {
    const char *name, *meaning;
} other_variables[] = {
    {"PANGEA_TUNING_FILE", "Tuning file to read at startup instead of "
                           "<prefix>/share/pangea/tuning.conf; empty: read none"},
    {"PANGEA_TOPOLOGY_FILE", "Switch tree of the job's nodes, in the syntax of Slurm's "
                             "topology.conf (used when SLURM_TOPOLOGY_ADDR names no switch)"},
    {"PANGEA_MPICC", "MPI C compiler wrapper oshcc runs (default: MPICH's mpicc)"},
    {"PANGEA_MPICXX", "MPI C++ compiler wrapper oshc++ runs (default: MPICH's mpicxx)"},
    {"PANGEA_MPIEXEC", "MPI launcher oshrun runs (default: MPICH's mpiexec, hydra)"},
};
#define OTHER_COUNT (sizeof other_variables / sizeof other_variables[0])

void pg_config_print_doc(void *stream)
{
    FILE *out = stream;
    fprintf(out, "<!-- generated by pangea-info --doc from the tunables table -->\n");
    fprintf(out, "One line per variable; the [user guide](user-guide.md) and the pages it links "
                 "tell the longer story.\n\n");
    for (int c = 0; c < PG_CATEGORY_COUNT; c++) {
        fprintf(out, "%s## %s\n\n| variable | default | meaning |\n|---|---|---|\n", c ? "\n" : "",
                category_heading[c]);
        for (size_t i = 0; i < TUNABLE_COUNT; i++)
            if (tunables[i].category == (enum pg_category)c)
                fprintf(out, "| `%s` | %s | %s |\n", tunables[i].env, tunables[i].def,
                        tunables[i].meaning);
    }
    fprintf(out, "\nRead by the wrappers and at startup, outside the table:\n\n");
    fprintf(out, "| variable | meaning |\n|---|---|\n");
    for (size_t i = 0; i < OTHER_COUNT; i++)
        fprintf(out, "| `%s` | %s |\n", other_variables[i].name, other_variables[i].meaning);
}

/* Edits (insert, delete, substitute, swap two neighbours) between two names of at most 63
 * characters: the "did you mean" distance. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 63), lb = strnlen(b, 63);
    size_t d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

extern char **environ;

int pg_config_warn_unknown(void *stream)
{
    int unknown = 0;
    for (char **e = environ; *e; e++) {
        if (strncmp(*e, "SHMEM_", 6) != 0 && strncmp(*e, "PANGEA_", 7) != 0)
            continue;
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
        const char *closest = NULL;
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < TUNABLE_COUNT + OTHER_COUNT; i++) {
            const char *known =
                i < TUNABLE_COUNT ? tunables[i].env : other_variables[i - TUNABLE_COUNT].name;
            size_t d = edit_distance(name, known);
            if (d < best) {
                best = d;
                closest = known;
            }
        }
        if (best == 0)
            continue;
        fprintf(stream,
                "pangea: warning: unknown variable %s is ignored (closest: %s; pangea-info "
                "lists them all)\n",
                name, closest);
        unknown++;
    }
    return unknown;
}
