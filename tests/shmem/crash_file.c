/* A crashing PE leaves no crash file behind. Debian's libfabric loads the PSM libraries, whose
 * load-time signal handlers write PROG.80s-PID,HOST.btr into the working directory and exit
 * with status 1; Pangea gives those signals their default action again. Each PE starts a copy
 * of this program in an empty temporary directory, as a one-PE job of its own (no launcher
 * variables), which initializes and then segfaults, and another that is sent SIGTERM: both must
 * end by their signal (not exit 1), and the directory must stay empty. */
#define _GNU_SOURCE /* environ, mkdtemp */
#include "check.h"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* An address the compiler cannot see is invalid. */
static int *volatile nowhere;

static void child(const char *what)
{
    shmem_init();
    if (strcmp(what, "segv") == 0)
        *nowhere = 1; /* a real fault, not raise(): as a bug would */
    else
        kill(getpid(), SIGTERM);
    pause();
    _exit(3);
}

/* Runs this program as "crash_file WHAT" in dir without the launcher's PMI_/HYDRA_/MPI
 * variables (it would otherwise join this job); returns its wait status. */
static int run_child(const char *self, const char *dir, const char *what)
{
    pid_t pid = fork();
    if (pid == 0) {
        for (char **e = environ; *e;) {
            if (strncmp(*e, "PMI_", 4) == 0 || strncmp(*e, "HYDRA_", 6) == 0 ||
                strncmp(*e, "MPIR_", 5) == 0 || strncmp(*e, "MPI_LOCALNRANKS", 15) == 0 ||
                strncmp(*e, "MPI_LOCALRANKID", 15) == 0) {
                char name[128];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                unsetenv(name);
            } else {
                e++;
            }
        }
        if (chdir(dir) != 0)
            _exit(4);
        execl(self, self, what, (char *)NULL);
        _exit(5);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static int entries(const char *dir, char *names, size_t size)
{
    DIR *d = opendir(dir);
    int n = 0;
    names[0] = '\0';
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        strncat(names, e->d_name, size - strlen(names) - 2);
        strcat(names, " ");
    }
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    if (argc == 2)
        child(argv[1]);
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    char dir[] = "/tmp/pangea-crash-XXXXXX";
    if (len <= 0 || !mkdtemp(dir)) {
        printf("FAIL crash_file: no executable path or temporary directory\n");
        return 1;
    }
    self[len] = '\0';
    /* Before shmem_init: the children must not inherit this job's MPI state. */
    int segv = run_child(self, dir, "segv");
    int term = run_child(self, dir, "term");
    char names[1024];
    int left = entries(dir, names, sizeof names);
    shmem_init();
    CHECK(WIFSIGNALED(segv) && WTERMSIG(segv) == SIGSEGV,
          "the segfaulting PE did not end by SIGSEGV (wait status %#x: exit %d)", segv,
          WIFEXITED(segv) ? WEXITSTATUS(segv) : -1);
    CHECK(WIFSIGNALED(term) && WTERMSIG(term) == SIGTERM,
          "the PE sent SIGTERM did not end by it (wait status %#x: exit %d)", term,
          WIFEXITED(term) ? WEXITSTATUS(term) : -1);
    CHECK(left == 0, "files left in the working directory: %s", names);
    char cleanup[256];
    snprintf(cleanup, sizeof cleanup, "rm -rf %s", dir);
    if (system(cleanup) != 0)
        fprintf(stderr, "crash_file: could not remove %s\n", dir);
    int status = check_finish();
    shmem_finalize();
    return status;
}
