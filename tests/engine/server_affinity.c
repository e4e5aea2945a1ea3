/* The data server may run on every CPU the job may use, even when the launcher binds its host
 * PE to one core: every PE binds itself to its first CPU before shmem_init, and the node's
 * server thread ("pangea-server", in node-local rank 0) must still have the whole original
 * set. On one node there is no server, and none may be running. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "check.h"

#include "startup/startup.h"

#include <dirent.h>
#include <sched.h>
#include <shmem.h>
#include <string.h>

/* The thread id of this process's thread named `name`, or 0. */
static pid_t thread_named(const char *name)
{
    DIR *dir = opendir("/proc/self/task");
    struct dirent *d;
    pid_t found = 0;
    while (dir && (d = readdir(dir)) && !found) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", d->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && strncmp(comm, name, strlen(name)) == 0)
            found = (pid_t)atoi(d->d_name);
        fclose(f);
    }
    if (dir)
        closedir(dir);
    return found;
}

int main(void)
{
    cpu_set_t original, first;
    CHECK(sched_getaffinity(0, sizeof original, &original) == 0, "sched_getaffinity failed");
    CPU_ZERO(&first);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &original)) {
            CPU_SET(cpu, &first);
            break;
        }
    CHECK(sched_setaffinity(0, sizeof first, &first) == 0, "binding to one CPU failed");
    shmem_init();
    pid_t server = thread_named("pangea-server");
    if (pg_world.nnodes > 1 && pg_world.local_rank == 0) {
        CHECK(server != 0, "PE %d hosts its node's server, but no thread is named pangea-server",
              shmem_my_pe());
        cpu_set_t its;
        if (server && sched_getaffinity(server, sizeof its, &its) == 0)
            CHECK(CPU_EQUAL(&its, &original),
                  "the server may run on %d CPUs, the job on %d (its host PE is bound to one)",
                  CPU_COUNT(&its), CPU_COUNT(&original));
    } else {
        CHECK(server == 0, "PE %d runs a server thread it should not have", shmem_my_pe());
    }
    return check_finish();
}
