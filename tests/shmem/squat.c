/* Another user cannot stop shmem_init by creating its shared-memory objects first. Before
 * shmem_init each PE starts a squatter: a child that becomes user nobody, watches /dev/shm and,
 * as soon as a Pangea object appears, creates every name it can derive from it (each PE's heap
 * and static data under the job's key, with and without a random part it tries to copy). The
 * job must start and work all the same; the squatter must have created objects (else the test
 * proves nothing), and they are removed at the end. Needs root (to become nobody). */
#define _GNU_SOURCE
#include "check.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define PES_GUESSED 64

static long ring[4];

/* Creates /dev/shm/NAME as the squatter; counts it when it was not there. */
static int squat(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "/dev/shm/%s", name);
    int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* Every name the squatter can derive from one it saw. */
static int squat_around(const char *seen)
{
    unsigned uid;
    unsigned long long key;
    int made = 0;
    char name[256];
    if (sscanf(seen, "pangea-%u-%llx-node", &uid, &key) == 2 ||
        sscanf(seen, "pangea-%llx-", &key) == 1) {
        static const char *const segs[] = {"heap", "data"};
        for (int pe = 0; pe < PES_GUESSED; pe++)
            for (int s = 0; s < 2; s++) {
                snprintf(name, sizeof name, "pangea-%llx-%d-%s", key, pe, segs[s]);
                made += squat(name);
                const char *nonce = strrchr(seen, '-'); /* a random part, reused */
                if (nonce && strstr(seen, segs[s])) {
                    snprintf(name, sizeof name, "pangea-%llx-%d-%s%s", key, pe, segs[s], nonce);
                    made += squat(name);
                }
            }
    }
    return made;
}

static void run_squatter(int report)
{
    if (setgid(NOBODY) != 0 || setuid(NOBODY) != 0)
        _exit(2);
    int in = inotify_init();
    if (in < 0 || inotify_add_watch(in, "/dev/shm", IN_CREATE) < 0)
        _exit(3);
    ssize_t unused = write(report, "r", 1); /* watching */
    int made = 0;
    char events[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(in, events, sizeof events);
        if (n <= 0)
            break;
        for (char *p = events; p < events + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if (e->len && strncmp(e->name, "pangea-", 7) == 0) {
                int more = squat_around(e->name);
                made += more;
                if (more)
                    unused = write(report, "m", 1);
            }
            p += sizeof *e + e->len;
        }
    }
    (void)unused;
    _exit(0);
}

/* Removes what squatters of this node left. */
static void remove_squatted(void)
{
    DIR *dir = opendir("/dev/shm");
    struct dirent *d;
    while (dir && (d = readdir(dir))) {
        char path[300];
        struct stat st;
        snprintf(path, sizeof path, "/dev/shm/%s", d->d_name);
        if (strncmp(d->d_name, "pangea-", 7) == 0 && stat(path, &st) == 0 && st.st_uid == NOBODY)
            unlink(path);
    }
    if (dir)
        closedir(dir);
}

int main(void)
{
    if (geteuid() != 0) {
        printf("SKIP squat: needs root, to start a squatter as another user\n");
        return 0;
    }
    int pipefd[2];
    if (pipe(pipefd) != 0)
        return 1;
    pid_t squatter = fork();
    if (squatter == 0) {
        close(pipefd[0]);
        run_squatter(pipefd[1]);
    }
    close(pipefd[1]);
    char c;
    if (read(pipefd[0], &c, 1) != 1)
        return 1;
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    for (int round = 0; round < 4; round++)
        shmem_long_p(&ring[round], me * 10 + round, (me + 1) % npes);
    long *heap = shmem_malloc(sizeof *heap);
    *heap = 0;
    shmem_barrier_all();
    shmem_long_atomic_add(heap, me + 1, 0);
    shmem_barrier_all();
    int left = (me + npes - 1) % npes;
    for (int round = 0; round < 4; round++)
        CHECK(ring[round] == left * 10 + round, "ring[%d] = %ld", round, ring[round]);
    if (me == 0)
        CHECK(*heap == (long)npes * (npes + 1) / 2, "sum %ld", *heap);
    kill(squatter, SIGKILL);
    waitpid(squatter, NULL, 0);
    fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
    long made = 0;
    while (read(pipefd[0], &c, 1) == 1)
        made += c == 'm';
    static long total;
    shmem_long_atomic_add(&total, made, 0);
    shmem_barrier_all();
    long all_made = shmem_long_atomic_fetch(&total, 0);
    CHECK(all_made > 0, "the squatters created nothing: the test proves nothing");
    remove_squatted();
    shmem_free(heap);
    return check_finish();
}
