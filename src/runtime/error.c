/* Errors, logging and waiting. */
#define _GNU_SOURCE /* dladdr */
#include "runtime.h"

#include "startup/startup.h"

#include <dlfcn.h>
#include <sched.h>
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

/* Debian's libfabric links the PSM libraries (libpsm2; libpsm_infinipath and its
 * libinfinipath), whose load-time constructors take over the crash signals: a segfault then
 * writes PROG.80s-PID,HOST.btr into the working directory and exits with status 1, and SIGINT
 * or SIGTERM run the exit handlers of a program still running. UCX (MPICH's transport) passes
 * a signal on to the handler it found, which is PSM's when PSM loaded first. Our constructor
 * runs after those of the libraries we depend on: it gives such signals their default action,
 * so a crash ends the process by the signal as it would without PSM (the launcher reports it,
 * a core file is written where the system allows), and a handler the program or a sanitizer
 * installs is left alone. */
static int psm_loaded(void)
{
    static const char *const names[] = {"libpsm2.so.2", "libinfinipath.so.4",
                                        "libpsm_infinipath.so.1"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
        if (h) {
            dlclose(h);
            return 1;
        }
    }
    return 0;
}

static int handler_in(const struct sigaction *act, const char *const *libraries)
{
    void *code = (act->sa_flags & SA_SIGINFO) ? (void *)act->sa_sigaction : (void *)act->sa_handler;
    Dl_info where;
    if (act->sa_handler == SIG_DFL || act->sa_handler == SIG_IGN || !dladdr(code, &where) ||
        !where.dli_fname)
        return 0;
    for (; *libraries; libraries++)
        if (strstr(where.dli_fname, *libraries))
            return 1;
    return 0;
}

__attribute__((constructor)) static void drop_crash_file_handlers(void)
{
    static const char *const takers[] = {"psm", "infinipath", "libucs.so", NULL};
    static const int signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGINT, SIGTERM};
    if (!psm_loaded())
        return;
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction act;
        if (sigaction(signals[i], NULL, &act) == 0 && handler_in(&act, takers))
            signal(signals[i], SIG_DFL);
    }
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
