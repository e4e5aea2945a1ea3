#include "board.h"

#include "runtime/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Zero-filled at creation, which is every counter's starting value: no PE initializes it, so
 * whichever maps it first needs no head start on the others. */
struct board {
    uint32_t attached;   /* PEs that have mapped the board */
    uint32_t arrived;    /* PEs in the current barrier */
    uint32_t generation; /* barriers completed: the futex word */
    uint32_t asleep;     /* the node's waits asleep (pg_board_asleep) */
    char pad[64 - 4 * sizeof(uint32_t)];
    char data[PG_BOARD_DATA];
};

static struct board *board;
static int board_size; /* PEs of the node */
static int board_rank; /* my local rank */
static int board_spins;

/* When the node's PEs outnumber its cores the peer we wait for needs our core: sleep at once. */
#define BOARD_SPINS 4000

static long futex(uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, value, timeout, NULL, 0);
}

int pg_board_attach(unsigned long long key, int local_size, int local_rank, char *why,
                    size_t why_len)
{
    char name[64];
    snprintf(name, sizeof name, "/pangea-%u-%016llx-node", (unsigned)geteuid(), key);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, why_len, "opening %s: %s", name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    /* The key is random: an object of another owner under its name was put there to hijack. */
    if (st.st_uid != geteuid()) {
        snprintf(why, why_len, "%s belongs to uid %u, not to this job", name, (unsigned)st.st_uid);
        close(fd);
        return -1;
    }
    /* Every PE sets the same size, so the order of the calls does not matter. */
    void *at = MAP_FAILED;
    if (ftruncate(fd, sizeof *board) == 0)
        at = mmap(NULL, sizeof *board, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd);
    if (at == MAP_FAILED) {
        snprintf(why, why_len, "mapping %s: %s", name, strerror(saved));
        shm_unlink(name);
        return -1;
    }
    board = at;
    board_size = local_size;
    board_rank = local_rank;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    board_spins = cores > 0 && local_size > cores ? 0 : BOARD_SPINS;
    if (__atomic_add_fetch(&board->attached, 1, __ATOMIC_ACQ_REL) == (uint32_t)local_size)
        shm_unlink(name);
    return 0;
}

void pg_board_detach(void)
{
    if (board)
        munmap(board, sizeof *board);
    board = NULL;
}

int pg_board_attached(void)
{
    return board != NULL;
}

uint32_t *pg_board_asleep(void)
{
    return board ? &board->asleep : NULL;
}

void pg_board_barrier(void)
{
    uint32_t generation = __atomic_load_n(&board->generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&board->arrived, 1, __ATOMIC_ACQ_REL) == (uint32_t)board_size) {
        /* Reset before the release: nobody re-enters until it sees the new generation. */
        __atomic_store_n(&board->arrived, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&board->generation, generation + 1, __ATOMIC_RELEASE);
        futex(&board->generation, FUTEX_WAKE, INT_MAX, NULL);
        return;
    }
    for (int spin = 0; __atomic_load_n(&board->generation, __ATOMIC_ACQUIRE) == generation;
         spin++) {
        if (spin < board_spins)
            pg_cpu_relax();
        else
            futex(&board->generation, FUTEX_WAIT, generation, NULL);
    }
}

void pg_board_allgather(const void *mine, void *all, size_t len)
{
    if (len == 0)
        return;
    int per_step = (int)(PG_BOARD_DATA / len);
    for (int first = 0; first < board_size; first += per_step) {
        int count = board_size - first < per_step ? board_size - first : per_step;
        if (board_rank >= first && board_rank < first + count)
            memcpy(board->data + (size_t)(board_rank - first) * len, mine, len);
        pg_board_barrier();
        memcpy((char *)all + (size_t)first * len, board->data, (size_t)count * len);
        pg_board_barrier();
    }
}

void pg_board_bcast(void *buf, size_t len)
{
    for (size_t done = 0; done < len; done += PG_BOARD_DATA) {
        size_t step = len - done < PG_BOARD_DATA ? len - done : PG_BOARD_DATA;
        if (board_rank == 0)
            memcpy(board->data, (char *)buf + done, step);
        pg_board_barrier();
        if (board_rank != 0)
            memcpy((char *)buf + done, board->data, step);
        pg_board_barrier();
    }
}
