/* Errors, logging and waiting. */
#define _GNU_SOURCE /* dladdr */
#include "runtime.h"

#include "prof/prof.h"
#include "startup/startup.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__thread const char *pg_api_call __attribute__((tls_model("initial-exec")));

void pg_fatal(const char *call, const char *fmt, ...)
{
    char text[512], who[32] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    /* Before init (or after finalize) the PE number is not known. */
    if (pg_runtime_initialized())
        snprintf(who, sizeof who, "PE %d: ", pg_world.me);
    fflush(stdout);
    if (pg_api_call && strcmp(pg_api_call, call) != 0)
        fprintf(stderr, "pangea: %s%s: %s (in %s)\n", who, pg_api_call, text, call);
    else
        fprintf(stderr, "pangea: %s%s: %s\n", who, call, text);
    fflush(stderr);
    pg_boot_abort(1);
}

/* One line on stderr in a single write, so that lines of PEs sharing the output are never
 * spliced into each other (or into a test's PASS line). */
static void say(const char *kind, const char *fmt, va_list ap)
{
    char text[1024];
    vsnprintf(text, sizeof text, fmt, ap);
    fprintf(stderr, "pangea: PE %d: %s%s\n", pg_world.me, kind, text);
}

void pg_debug(const char *fmt, ...)
{
    if (!pg_cfg.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    say("", fmt, ap);
    va_end(ap);
}

void pg_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    say("warning: ", fmt, ap);
    va_end(ap);
}

void pg_global_exit(int status)
{
    pg_prof_write(1);
    fflush(NULL);
    pg_boot_abort(status);
}
