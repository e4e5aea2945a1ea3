/* Tuning files (src/runtime/config.c): a good file is applied below the environment; an
 * unknown key, a bad value, a line without '=', another host or another provider give a
 * warning naming the file, the line and the key, and the defaults are kept. */
#define _GNU_SOURCE /* mkdtemp */
#define UNIT_NAME "tuning_file"
#include "unit.h"

#include "runtime/runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_BUFFERS 16

static char dir[64] = "/tmp/pangea-tuning-XXXXXX";
static char messages[4096];

static const char *write_file(const char *name, const char *text)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        printf("FAIL tuning_file: cannot write %s\n", path);
        exit(1);
    }
    return path;
}

/* What the library prints on stderr between begin_capture and end_capture lands in
 * messages. */
static int saved_stderr;

static void begin_capture(void)
{
    char log[128];
    snprintf(log, sizeof log, "%s/stderr", dir);
    fflush(stderr);
    saved_stderr = dup(2);
    if (!freopen(log, "w", stderr))
        exit(1);
}

static void end_capture(void)
{
    char log[128];
    snprintf(log, sizeof log, "%s/stderr", dir);
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(log, "r");
    size_t n = f ? fread(messages, 1, sizeof messages - 1, f) : 0;
    messages[n] = '\0';
    if (f)
        fclose(f);
}

/* Loads the configuration with PANGEA_TUNING_FILE = path. */
static int load(const char *path)
{
    begin_capture();
    setenv("PANGEA_TUNING_FILE", path, 1);
    int status = pg_config_load();
    end_capture();
    return status;
}

/* The chunk's default is the transport's: 256K over MPI (runtime.h), else 64K. */
static long long default_size(void)
{
    return pg_cfg.transport == PG_TRANSPORT_MPI ? 262144 : 65536;
}

static void expect_defaults(const char *what)
{
    EXPECT(pg_cfg.pipeline_buffers == DEFAULT_BUFFERS &&
               pg_cfg.pipeline_buffer_size == default_size(),
           "%s: buffers %lld size %lld, want the defaults", what, pg_cfg.pipeline_buffers,
           pg_cfg.pipeline_buffer_size);
    EXPECT(pg_config_source("PANGEA_PIPELINE_BUFFERS") == PG_SOURCE_DEFAULT, "%s: source", what);
    EXPECT(!pg_config_tuning()->applied, "%s: marked applied", what);
}

static void expect_message(const char *what, const char *text)
{
    EXPECT(strstr(messages, text), "%s: no '%s' in the warnings:\n%s", what, text, messages);
}

static const char good[] = "# written by hand\n"
                           "provider = verbs;ofi_rxm\n"
                           "host = *\n"
                           "\n"
                           "date = 2026-11-21T10:00:00Z\n"
                           "PANGEA_PIPELINE_BUFFERS = 6\n"
                           "  PANGEA_PIPELINE_BUFFER_SIZE=128K  \n";

int main(void)
{
    if (!mkdtemp(dir)) {
        printf("FAIL tuning_file: mkdtemp\n");
        return 1;
    }
    unsetenv("PANGEA_PIPELINE_BUFFERS");
    unsetenv("PANGEA_PIPELINE_BUFFER_SIZE");

    const char *path = write_file("good.conf", good);
    EXPECT(load(path) == 0 && messages[0] == '\0', "good file: status or warnings: %s", messages);
    EXPECT(pg_cfg.pipeline_buffers == 6 && pg_cfg.pipeline_buffer_size == 131072,
           "good file: buffers %lld size %lld", pg_cfg.pipeline_buffers,
           pg_cfg.pipeline_buffer_size);
    EXPECT(pg_config_source("PANGEA_PIPELINE_BUFFER_SIZE") == PG_SOURCE_FILE, "good: source");
    EXPECT(pg_config_source("PANGEA_SERVER_SPIN_US") == PG_SOURCE_DEFAULT, "good: spin source");
    const struct pg_tuning_file *t = pg_config_tuning();
    EXPECT(t->applied && strcmp(t->path, path) == 0 && strcmp(t->provider, "verbs;ofi_rxm") == 0 &&
               strcmp(t->host, "*") == 0 && strcmp(t->date, "2026-11-21T10:00:00Z") == 0,
           "good file: metadata '%s' '%s' '%s'", t->provider, t->host, t->date);
    /* The provider in use matches: nothing changes. */
    pg_config_check_provider("verbs;ofi_rxm");
    EXPECT(pg_cfg.pipeline_buffers == 6 && pg_config_tuning()->applied, "same provider");

    /* The environment wins over the file. */
    setenv("PANGEA_PIPELINE_BUFFERS", "3", 1);
    load(path);
    EXPECT(pg_cfg.pipeline_buffers == 3 &&
               pg_config_source("PANGEA_PIPELINE_BUFFERS") == PG_SOURCE_ENV,
           "environment over file: %lld", pg_cfg.pipeline_buffers);
    EXPECT(pg_cfg.pipeline_buffer_size == 131072, "file value beside an environment one");
    /* Another provider: the file's values go back to their defaults, the environment's stay. */
    begin_capture();
    pg_config_check_provider("tcp;ofi_rxm");
    end_capture();
    expect_message("provider", "good.conf line 2: key provider: measured with 'verbs;ofi_rxm', "
                               "this job uses 'tcp;ofi_rxm'");
    EXPECT(pg_cfg.pipeline_buffer_size == default_size() && pg_cfg.pipeline_buffers == 3,
           "provider mismatch: size %lld buffers %lld", pg_cfg.pipeline_buffer_size,
           pg_cfg.pipeline_buffers);
    unsetenv("PANGEA_PIPELINE_BUFFERS");

    load(write_file("unknown.conf", "PANGEA_PIPELINE_BUFFERS = 6\n"
                                    "# comment\n"
                                    "PANGEA_NO_SUCH_THING = 1\n"));
    expect_message("unknown key", "unknown.conf line 3: unknown key 'PANGEA_NO_SUCH_THING'");
    expect_message("unknown key", "not applied");
    expect_defaults("unknown key");

    load(write_file("bad.conf", "PANGEA_PIPELINE_BUFFER_SIZE = 1M\n"
                                "PANGEA_PIPELINE_BUFFERS = lots\n"));
    expect_message("bad value", "bad.conf line 2: invalid value 'lots' for key "
                                "PANGEA_PIPELINE_BUFFERS");
    expect_defaults("bad value");

    /* A choice: a word of its list, in any case; another word names the list. */
    unsetenv("PANGEA_HUGE_PAGES");
    EXPECT(load(write_file("choice.conf", "PANGEA_HUGE_PAGES = THP\n")) == 0 &&
               pg_cfg.huge_pages == PG_HUGE_THP &&
               pg_config_source("PANGEA_HUGE_PAGES") == PG_SOURCE_FILE,
           "choice: value %lld, warnings %s", pg_cfg.huge_pages, messages);
    load(write_file("badchoice.conf", "PANGEA_HUGE_PAGES = maybe\n"));
    expect_message("bad choice", "badchoice.conf line 1: invalid value 'maybe' for key "
                                 "PANGEA_HUGE_PAGES (one of auto, hugetlb, thp, off)");
    EXPECT(pg_cfg.huge_pages == PG_HUGE_AUTO, "bad choice: value %lld, want auto's",
           pg_cfg.huge_pages);

    load(write_file("syntax.conf", "PANGEA_PIPELINE_BUFFERS 6\n"));
    expect_message("no '='", "syntax.conf line 1: expected 'KEY = VALUE'");
    expect_defaults("no '='");

    load(write_file("host.conf", "PANGEA_PIPELINE_BUFFERS = 6\nhost = no-such-host-*\n"));
    expect_message("host", "host.conf line 2: key host: measured on 'no-such-host-*'");
    expect_defaults("host");

    char missing[128];
    snprintf(missing, sizeof missing, "%s/missing.conf", dir);
    load(missing);
    expect_message("missing file", "missing.conf cannot be read");
    expect_defaults("missing file");

    /* An empty PANGEA_TUNING_FILE reads no file, not even the default one. */
    load("");
    EXPECT(messages[0] == '\0' && pg_config_tuning()->path[0] == '\0', "empty path: %s", messages);
    expect_defaults("empty path");

    const char *names[] = {"good.conf",      "unknown.conf", "bad.conf",  "choice.conf",
                           "badchoice.conf", "syntax.conf",  "host.conf", "stderr"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    return unit_finish();
}
