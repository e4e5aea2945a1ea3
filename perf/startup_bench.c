/* startup_bench: how long shmem_init takes and how much memory a PE holds once it is up.
 *
 * Every PE times its own shmem_init (CLOCK_MONOTONIC around the call) and reads its peak
 * resident memory (VmHWM of /proc/self/status) after a barrier that follows the init. PE 0
 * gathers the records and prints one summary line:
 *
 *   startup_bench: impl=NAME pes=N nodes=K init_ms_max=.. init_ms_mean=.. init_ms_min=..
 *       hwm_kb_max=.. host_hwm_kb_max=.. host_hwm_kb_min=.. other_hwm_kb_max=.. server_kb=..
 *
 * and, with -v, one line per PE. A node is a host name; its host PE is its lowest PE, the one
 * that runs the node's data server in Pangea, so host_hwm_* (over the host PEs) and
 * other_hwm_kb_max (over the others, '-' when every PE is a host) are reported apart.
 * server_kb is the data servers' own memory as the library reports it (see server_kb below).
 *
 * Uses only OpenSHMEM 1.4 calls, so the same source builds with Pangea and with Open MPI's
 * OSHMEM (perf/startup-bench.sh runs both). */
#define _POSIX_C_SOURCE 200809L

#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HOST_LEN 64

struct record {
    long init_ns;
    long hwm_kb;
    long server_kb; /* -1: not reported */
    char host[HOST_LEN];
};

static struct record mine; /* static data is symmetric: PE 0 reads every PE's with a get */

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Peak resident set of this process in KiB, -1 if /proc does not say. */
static long vm_hwm_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

/* The node's data-server memory in KiB, as the library reports it, on a node's host PE; -1
 * while no library reports it (Pangea does not yet, and OSHMEM has no such server). This is
 * the one place to read such a report; the summary line and the script's table already carry
 * it as server_kb. */
static long server_kb(void)
{
    return -1;
}

static void print_kb(const char *key, long kb)
{
    if (kb < 0)
        printf(" %s=-", key);
    else
        printf(" %s=%ld", key, kb);
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
    if (argc > 1 && !verbose) {
        fprintf(stderr, "usage: %s [-v]\n", argv[0]);
        return 2;
    }
    long start = now_ns();
    shmem_init();
    mine.init_ns = now_ns() - start;
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (gethostname(mine.host, HOST_LEN - 1) != 0)
        strcpy(mine.host, "?");
    shmem_barrier_all();
    mine.hwm_kb = vm_hwm_kb();
    mine.server_kb = server_kb();
    shmem_barrier_all();

    if (me == 0) {
        struct record *all = malloc((size_t)npes * sizeof *all);
        if (!all) {
            fprintf(stderr, "startup_bench: out of memory for %d records\n", npes);
            shmem_global_exit(1);
        }
        for (int pe = 0; pe < npes; pe++)
            shmem_getmem(&all[pe], &mine, sizeof mine, pe);
        long init_max = 0, init_min = all[0].init_ns, hwm_max = -1, host_max = -1, host_min = -1,
             other_max = -1, server = -1;
        double init_sum = 0;
        int nodes = 0;
        for (int pe = 0; pe < npes; pe++) {
            const struct record *r = &all[pe];
            init_max = r->init_ns > init_max ? r->init_ns : init_max;
            init_min = r->init_ns < init_min ? r->init_ns : init_min;
            init_sum += (double)r->init_ns;
            hwm_max = r->hwm_kb > hwm_max ? r->hwm_kb : hwm_max;
            int host = 1; /* the lowest PE of its host name */
            for (int q = 0; q < pe && host; q++)
                host = strcmp(all[q].host, r->host) != 0;
            if (host) {
                nodes++;
                host_max = r->hwm_kb > host_max ? r->hwm_kb : host_max;
                host_min = host_min < 0 || r->hwm_kb < host_min ? r->hwm_kb : host_min;
                server = r->server_kb > server ? r->server_kb : server;
            } else {
                other_max = r->hwm_kb > other_max ? r->hwm_kb : other_max;
            }
            if (verbose)
                printf("pe %d host %s %s init_ms %.3f hwm_kb %ld\n", pe, r->host,
                       host ? "host-pe" : "other", r->init_ns / 1e6, r->hwm_kb);
        }
        char name[SHMEM_MAX_NAME_LEN];
        shmem_info_get_name(name);
        for (char *c = name; *c; c++)
            if (*c == ' ')
                *c = '_';
        printf("startup_bench: impl=%s pes=%d nodes=%d init_ms_max=%.3f init_ms_mean=%.3f "
               "init_ms_min=%.3f",
               name, npes, nodes, init_max / 1e6, init_sum / npes / 1e6, init_min / 1e6);
        print_kb("hwm_kb_max", hwm_max);
        print_kb("host_hwm_kb_max", host_max);
        print_kb("host_hwm_kb_min", host_min);
        print_kb("other_hwm_kb_max", other_max);
        print_kb("server_kb", server);
        printf("\n");
        fflush(stdout);
        free(all);
    }
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
