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

void pg_debug(const char *fmt, ...)
{
    if (!pg_cfg.debug)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pangea: PE %d: ", pg_world.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void pg_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "pangea: PE %d: warning: ", pg_world.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
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
