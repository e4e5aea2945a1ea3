/* The tunables table: defaults, environment, printing. */
#include "runtime.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pg_config pg_cfg;

struct tunable {
    const char *env;
    enum pg_tunable_kind kind;
    const char *def;
    const char *meaning;
    long long *value;
};

static const struct tunable tunables[] = {
#define PG_TUNABLE_ROW(field, kind, env, def, meaning) \
    {env, PG_KIND_##kind, def, meaning, &pg_cfg.field},
    PG_TUNABLES(PG_TUNABLE_ROW)
#undef PG_TUNABLE_ROW
};

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
    }
    return -1;
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

int pg_config_load(void)
{
    int status = 0;
    for (size_t i = 0; i < sizeof tunables / sizeof tunables[0]; i++) {
        const struct tunable *t = &tunables[i];
        if (parse_value(t, t->def, t->value) != 0)
            abort(); /* a default that does not parse is a bug in the table */
        const char *text = lookup_env(t->env);
        if (text && parse_value(t, text, t->value) != 0) {
            fprintf(stderr, "pangea: shmem_init: invalid value '%s' for %s (%s)\n", text, t->env,
                    t->meaning);
            status = -1;
        }
    }
    return status;
}

void pg_config_print(void *stream)
{
    FILE *out = stream;
    fprintf(out, "%-24s %-14s %-10s %s\n", "variable", "value", "default", "meaning");
    for (size_t i = 0; i < sizeof tunables / sizeof tunables[0]; i++) {
        const struct tunable *t = &tunables[i];
        fprintf(out, "%-24s %-14lld %-10s %s\n", t->env, *t->value, t->def, t->meaning);
    }
}
