/* idle_cost: what an idle job costs. Every PE initializes, synchronizes, then sleeps for the
 * given number of seconds (default 30) without calling the library; each PE reports the CPU
 * time all threads of its process used meanwhile (the data server thread lives in the process
 * of node-local rank 0), read from /proc/self/task/N/stat. Standard API plus Linux /proc. */
#define _DEFAULT_SOURCE /* gethostname */
#include <dirent.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* CPU ticks (user + system) of every thread of this process. */
static long long process_ticks(int *threads)
{
    long long total = 0;
    *threads = 0;
    DIR *dir = opendir("/proc/self/task");
    if (!dir)
        return -1;
    struct dirent *d;
    while ((d = readdir(dir))) {
        if (d->d_name[0] == '.')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", d->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        unsigned long long utime = 0, stime = 0;
        /* Fields 14 and 15; the command name (field 2) has no spaces for our programs. */
        if (fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &utime,
                   &stime) == 2)
            total += (long long)(utime + stime);
        fclose(f);
        (*threads)++;
    }
    closedir(dir);
    return total;
}

int main(int argc, char **argv)
{
    int seconds = argc > 1 ? atoi(argv[1]) : 30;
    shmem_init();
    int threads;
    shmem_barrier_all();
    long long before = process_ticks(&threads);
    sleep((unsigned)seconds);
    long long used = process_ticks(&threads) - before;
    double hz = (double)sysconf(_SC_CLK_TCK);
    char host[64];
    gethostname(host, sizeof host);
    printf("PE %d on %s: %d threads used %.2f s of CPU in %d s idle = %.2f%% of one core\n",
           shmem_my_pe(), host, threads, (double)used / hz, seconds,
           100.0 * (double)used / hz / seconds);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
