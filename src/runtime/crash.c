/* A PE that ends abnormally ends the job. A fatal signal gets one line naming the PE, its host
 * and the signal, then dies of that signal (the launcher sees a PE killed and tears the job
 * down); a non-zero exit before finalize ends the job with that status instead of finalizing
 * collectively with PEs that may be waiting for something else. Handlers that libraries
 * installed (UCX, PSM at load time; providers probed by libfabric) never run: one blocked the
 * crashed PE, and with it the job, forever, and another writes files into the working
 * directory. The program's own handlers (in its executable) still run, under an alarm. */
#define _GNU_SOURCE
#include "runtime.h"

#include "startup/startup.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FATAL_SIGNALS(X) X(SIGSEGV) X(SIGBUS) X(SIGILL) X(SIGFPE) X(SIGABRT)
#define SIGNAL_NUMBER(sig) sig,
#define SIGNAL_NAME(sig) #sig,
static const int fatal_signal[] = {FATAL_SIGNALS(SIGNAL_NUMBER)};
static const char *const fatal_name[] = {FATAL_SIGNALS(SIGNAL_NAME)};
#define NFATAL (sizeof fatal_signal / sizeof *fatal_signal)

#define BACKTRACE_FRAMES 32

/* Seconds the program's own handler may take before the PE is ended anyway. */
#define PROGRAM_HANDLER_SECONDS 2

static struct sigaction program_action[NFATAL]; /* the executable's own, before Pangea started */
static int program_saved, installed;
static char who[300]; /* "pangea: PE N on HOST: ", composed before any crash */
static volatile sig_atomic_t crashing;

/* Appends text at *end (async-signal-safe). */
static void append(char **end, const char *limit, const char *text)
{
    while (*text && *end < limit)
        *(*end)++ = *text++;
}

static void append_hex(char **end, const char *limit, unsigned long value)
{
    char digits[2 + 2 * sizeof value + 1], *d = digits + sizeof digits - 1;
    *d = '\0';
    do
        *--d = "0123456789abcdef"[value & 15];
    while (value >>= 4);
    *--d = 'x';
    *--d = '0';
    append(end, limit, d);
}

static void die_of(int sig)
{
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(128 + sig); /* a signal the process blocks or ignores elsewhere */
}

static void on_fatal_signal(int sig, siginfo_t *info, void *context)
{
    if (crashing++)
        die_of(sig); /* a second fault, in here or in another thread */
    size_t i = 0;
    while (i < NFATAL && fatal_signal[i] != sig)
        i++;
    char line[512], *end = line;
    const char *limit = line + sizeof line - 1;
    append(&end, limit, who);
    append(&end, limit, "killed by ");
    append(&end, limit, i < NFATAL ? fatal_name[i] : "a signal");
    if ((sig == SIGSEGV || sig == SIGBUS) && info) {
        append(&end, limit, " at address ");
        append_hex(&end, limit, (unsigned long)info->si_addr);
    }
    append(&end, limit, "; ending the job\n");
    ssize_t unused = write(STDERR_FILENO, line, (size_t)(end - line));
    (void)unused;
    void *frames[BACKTRACE_FRAMES];
    backtrace_symbols_fd(frames, backtrace(frames, BACKTRACE_FRAMES), STDERR_FILENO);
    if (i < NFATAL) {
        const struct sigaction *program = &program_action[i];
        if (program->sa_handler != SIG_DFL) {
            signal(SIGALRM, SIG_DFL); /* if it never returns, the alarm ends the PE */
            alarm(PROGRAM_HANDLER_SECONDS);
            if (program->sa_flags & SA_SIGINFO)
                program->sa_sigaction(sig, info, context);
            else
                program->sa_handler(sig);
        }
    }
    die_of(sig);
}

struct address_lookup {
    uintptr_t address;
    int in_executable;
};

/* The first object dl_iterate_phdr reports is the executable. */
static int in_first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct address_lookup *lookup = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && lookup->address - start < ph->p_memsz)
            lookup->in_executable = 1;
    }
    return 1;
}

static int executable_handler(const struct sigaction *action)
{
    void *handler =
        (action->sa_flags & SA_SIGINFO) ? (void *)action->sa_sigaction : (void *)action->sa_handler;
    if (handler == (void *)SIG_DFL || handler == (void *)SIG_IGN)
        return 0;
    struct address_lookup lookup = {(uintptr_t)handler, 0};
    dl_iterate_phdr(in_first_object, &lookup);
    return lookup.in_executable;
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

void pg_crash_save_program_handlers(void)
{
    if (program_saved)
        return;
    for (size_t i = 0; i < NFATAL; i++) {
        sigaction(fatal_signal[i], NULL, &program_action[i]);
        if (!executable_handler(&program_action[i]))
            program_action[i].sa_handler = SIG_DFL, program_action[i].sa_flags = 0;
    }
    program_saved = 1;
}

void pg_crash_install(void)
{
    char host[256];
    if (gethostname(host, sizeof host) != 0)
        snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(who, sizeof who, "pangea: PE %d on %s: ", pg_world.me, host);
    if (installed)
        return;
    /* The first backtrace() loads the unwinder, which allocates: not in the handler. */
    void *frame;
    backtrace(&frame, 1);
    /* A stack of its own, so that a PE that overflowed its stack still says so. */
    static char alternate_stack[64 * 1024];
    stack_t stack = {.ss_sp = alternate_stack, .ss_size = sizeof alternate_stack};
    sigaltstack(&stack, NULL);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fatal_signal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signal[i], &action, NULL);
    installed = 1;
}

void pg_crash_exit_check(int status, const char *finalize_call)
{
    if (status == 0 || !pg_runtime_initialized())
        return;
    fflush(stdout);
    fprintf(stderr, "%sexit(%d) before %s; ending the job\n", who, status, finalize_call);
    fflush(stderr);
    pg_boot_abort(status);
}
