/* A PE that ends abnormally ends the job (the list gives each cause a time bound, within=S).
 * After init and a barrier, PE 1 waits 200 ms (the others are in shmem_barrier_all by then)
 * and then, by TEST_CAUSE:
 *  - segv: stores to NULL; bus: touches a mapping past the end of its file; fpe: divides an
 *    integer by zero; ill: executes an invalid instruction; abort: calls abort();
 *  - handler: as segv, in a program that installed its own SIGSEGV handler before shmem_init,
 *    one that never returns (the PE must still end);
 *  - exit3: calls exit(3) (before shmem_finalize);
 *  - bad_team: passes a team handle that is no team to shmem_team_sync.
 * The job must end with a non-zero status and a line naming PE 1, its host and the cause
 * (the list's regex); the others never get past their barrier. */
#define _GNU_SOURCE
#include "check.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

static void never_returns(int sig)
{
    (void)sig;
    for (;;)
        pause();
}

static void bus_error(void)
{
    char path[] = "/tmp/pangea-crash-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    volatile char *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    page[0] = 1; /* the file is empty: no page backs this */
}

int main(void)
{
    const char *cause = getenv("TEST_CAUSE") ? getenv("TEST_CAUSE") : "segv";
    if (strcmp(cause, "handler") == 0)
        signal(SIGSEGV, never_returns);
    shmem_init();
    int me = shmem_my_pe();
    shmem_barrier_all();
    if (me == 1) {
        test_sleep_us(200000);
        volatile int zero = 0;
        if (strcmp(cause, "segv") == 0 || strcmp(cause, "handler") == 0)
            *(volatile int *)(uintptr_t)zero = 1;
        else if (strcmp(cause, "bus") == 0)
            bus_error();
        else if (strcmp(cause, "fpe") == 0)
            zero = 7 / zero; /* not 1 / zero, which compilers turn into a comparison */
        else if (strcmp(cause, "ill") == 0)
            __builtin_trap();
        else if (strcmp(cause, "abort") == 0)
            abort();
        else if (strcmp(cause, "exit3") == 0)
            exit(3);
        else if (strcmp(cause, "bad_team") == 0)
            shmem_team_sync((shmem_team_t)(uintptr_t)12345);
        fprintf(stderr, "crash: PE 1 survived TEST_CAUSE=%s\n", cause);
    }
    shmem_barrier_all();
    fprintf(stderr, "PE %d: shmem_barrier_all completed although PE 1 ended\n", me);
    return 1;
}
