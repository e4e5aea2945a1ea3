/* startup's own: the node board, a small shared object through which the PEs of a node make
 * their init-time exchanges. MPI's collectives poll while they wait, and with more PEs on a
 * node than cores each step costs a scheduler round (tens of ms at 16 PEs per core); the
 * board's waiters sleep on a futex, so a step costs a wake-up. */
#ifndef PG_STARTUP_BOARD_H
#define PG_STARTUP_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* Bytes one exchange step carries; longer exchanges take several steps. */
#define PG_BOARD_DATA (64 * 1024)

/* Maps the board named by key (the same on every PE of the node, unknown elsewhere), creating
 * it if I come first; the last of the node's local_size PEs to map it unlinks the name. 0, or
 * -1 with errno-based text in why. */
int pg_board_attach(unsigned long long key, int local_size, int local_rank, char *why,
                    size_t why_len);
void pg_board_detach(void);
int pg_board_attached(void);
/* A word the node's PEs share for their count of waits asleep; NULL while detached. */
uint32_t *pg_board_asleep(void);
void pg_board_barrier(void);
/* Every local rank's len bytes (len <= PG_BOARD_DATA), in local-rank order. */
void pg_board_allgather(const void *mine, void *all, size_t len);
/* Local rank 0's len bytes to every PE of the node, any length. */
void pg_board_bcast(void *buf, size_t len);

#endif
