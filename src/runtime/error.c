/* Errors, logging and waiting. */
#include "runtime.h"

#include "startup/startup.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void pg_fatal(const char *call, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, "pangea: PE %d: %s: %s\n", pg_world.me, call, text);
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
    fflush(NULL);
    pg_boot_abort(status);
}

void (*pg_wait_progress)(void);

void pg_wait_yield(struct pg_waiter *w)
{
    (void)w;
    sched_yield();
}
