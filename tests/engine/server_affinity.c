/* Where the node's data server runs (pg_topo_server_cpus): near the NIC, on cores no PE is bound
 * to. With TEST_BIND=1 (the default) every PE binds itself to its first CPU before shmem_init,
 * as a launcher would; the node's server thread ("pangea-server", in node-local rank 0) must
 * then run on exactly the CPUs TEST_SERVER_CPUS lists ("1", "0-1"), whatever its host PE's
 * binding. The lines fake the machine with HWLOC_XMLFILE (tests/topo/nic-on-package*.xml: two
 * packages of one core, the emulated nodes' NIC pgeth0 on one of them). Over a transport whose
 * device is not known (PANGEA_TRANSPORT=mpi: the MPI library picks the interface) the NIC's
 * place is unknown, and TEST_SERVER_CPUS_NO_NIC, when given, is what the server must get then.
 * On one node there is no server, and none may be running. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "check.h"

#include "startup/startup.h"
#include "transport/transport.h"

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

/* "1", "0-1", "0,2-3" as a set. */
static void parse_cpus(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    for (const char *c = text; *c;) {
        char *end;
        long first = strtol(c, &end, 10), last = first;
        if (*end == '-')
            last = strtol(end + 1, &end, 10);
        for (long cpu = first; cpu <= last; cpu++)
            CPU_SET((int)cpu, set);
        c = *end == ',' ? end + 1 : end;
        if (end == c && *c)
            break;
    }
}

int main(void)
{
    const char *want_text = getenv("TEST_SERVER_CPUS");
    CHECK(want_text != NULL, "set TEST_SERVER_CPUS");
    cpu_set_t original, first;
    CHECK(sched_getaffinity(0, sizeof original, &original) == 0, "sched_getaffinity failed");
    CPU_ZERO(&first);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &original)) {
            CPU_SET(cpu, &first);
            break;
        }
    const char *bind = getenv("TEST_BIND");
    if (!bind || atoi(bind))
        CHECK(sched_setaffinity(0, sizeof first, &first) == 0, "binding to one CPU failed");
    shmem_init();
    const char *no_nic = getenv("TEST_SERVER_CPUS_NO_NIC");
    if (no_nic && pg_world.nnodes > 1 && !pg_net_domain())
        want_text = no_nic;
    cpu_set_t want;
    parse_cpus(want_text ? want_text : "", &want);
    pid_t server = thread_named("pangea-server");
    if (pg_world.nnodes > 1 && pg_world.local_rank == 0) {
        CHECK(server != 0, "PE %d hosts its node's server, but no thread is named pangea-server",
              shmem_my_pe());
        cpu_set_t its;
        if (server && sched_getaffinity(server, sizeof its, &its) == 0) {
            char seen[256] = "";
            for (int cpu = 0, at = 0; cpu < CPU_SETSIZE && at < 200; cpu++)
                if (CPU_ISSET(cpu, &its))
                    at += snprintf(seen + at, sizeof seen - (size_t)at, "%s%d", at ? "," : "", cpu);
            CHECK(CPU_EQUAL(&its, &want), "the server may run on cpus %s, want %s", seen,
                  want_text);
        }
    } else {
        CHECK(server == 0, "PE %d runs a server thread it should not have", shmem_my_pe());
    }
    return check_finish();
}
