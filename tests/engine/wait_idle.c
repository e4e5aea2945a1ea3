/* A PE blocked in wait_until costs no CPU: PE 1 waits for TEST_IDLE_SECONDS until PE 0 sets
 * its flag, and the CPU time of its process over the wait (user + system, from
 * /proc/self/stat, its data-server thread included when it hosts one) is under 1% of the
 * wall time. The wait ends by a wake-up, not by the sleep's timeout (no stall). */
#define _GNU_SOURCE
#include "check.h"
#include "runtime/runtime.h"

#include <shmem.h>
#include <unistd.h>

static long flag;

/* utime + stime of this process, in seconds. */
static double cpu_seconds(void)
{
    char text[2048];
    FILE *f = fopen("/proc/self/stat", "r");
    size_t len = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f)
        fclose(f);
    text[len] = '\0';
    const char *after = strrchr(text, ')'); /* the command may contain spaces */
    unsigned long utime = 0, stime = 0;
    if (!after || sscanf(after + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &utime,
                         &stime) != 2)
        return -1;
    return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe();
    const char *s = getenv("TEST_IDLE_SECONDS");
    double seconds = s ? atof(s) : 10;
    if (shmem_n_pes() < 2) {
        if (me == 0)
            printf("SKIP wait_idle: needs 2 PEs\n");
        shmem_finalize();
        return 0;
    }
    shmem_barrier_all();
    if (me == 0) {
        test_sleep_us((long)(seconds * 1e6));
        shmem_long_atomic_set(&flag, 1, 1);
    } else if (me == 1) {
        double cpu0 = cpu_seconds(), t0 = test_now();
        shmem_long_wait_until(&flag, SHMEM_CMP_EQ, 1);
        double cpu = cpu_seconds() - cpu0, wall = test_now() - t0;
        struct pg_wait_counts counts;
        pg_wait_counts(&counts);
        printf("wait_idle: PE 1 waited %.2f s using %.3f s of CPU (%.2f%%), %llu sleeps, "
               "%llu timeouts, %llu stalls\n",
               wall, cpu, 100 * cpu / wall, (unsigned long long)counts.sleeps,
               (unsigned long long)counts.timeouts, (unsigned long long)counts.stalls);
        CHECK(cpu0 >= 0, "cannot read /proc/self/stat");
        CHECK(wall >= seconds * 0.9, "the wait ended after %.2f s, before the flag was set", wall);
        CHECK(cpu < 0.01 * wall, "%.3f s of CPU over a %.2f s wait (%.2f%%)", cpu, wall,
              100 * cpu / wall);
        CHECK(counts.stalls == 0, "the wait ended by a timeout: %llu stalls",
              (unsigned long long)counts.stalls);
    }
    int status = check_finish();
    shmem_finalize();
    return status;
}
