/* ckpt: coordinated checkpoint/restart of the PGAS state, and the quiesce/resume hooks a
 * transparent process checkpointer needs (docs/checkpoint.md).
 *
 * A checkpoint brings the job to a consistent state (every PE's operations complete and
 * applied, no request in any server, nothing in flight), copies each PE's live symmetric
 * allocations and registered regions into an image in its own memory, and lets the program go
 * on while a thread of the PE writes the image, with its CRC32C, to DIR/ckpt-N.tmp/pe-P.img.
 * The write that ends last in the job renames the directory to DIR/ckpt-N: a checkpoint exists
 * whole or not at all, as soon as it is on disk. The next checkpoint (or restart, quiesce,
 * finalize) waits for the writes and reports one that failed. It sits
 * beside coll: it calls coll, onesided, pipeline, atomics, memory and runtime; nothing below
 * calls it but the runtime's finalize. */
#ifndef PG_CKPT_H
#define PG_CKPT_H

#include <stddef.h>
#include <stdint.h>

/* Private (or static) memory of this PE to save and restore along with the symmetric heap,
 * identified by the order of registration. Local. 0, or -1 when out of memory. */
int pg_ckpt_register(void *addr, size_t bytes);

/* Collective. Saves checkpoint N (one more than the last in dir, or than the one restored);
 * returns once my image is in memory. Errors (a held lock, an unwritable dir, a failed write of
 * the previous checkpoint) stop the job with one message naming call. Returns 0. */
int pg_ckpt_save(const char *call, const char *dir);

/* Collective, after the program made the same symmetric allocations and registrations as the
 * saving run: restores the newest complete checkpoint of dir and returns its number, or 0 when
 * dir holds none. A different PE count, different allocations or a corrupt image stop the job
 * with one message naming call and what differs (or the file and the PE). */
int pg_ckpt_restore(const char *call, const char *dir);

/* Collective. Quiesce drains all traffic (and the write of the last checkpoint) and closes the
 * network endpoints and the servers; resume reopens them. Between them only on-node
 * communication works. */
void pg_ckpt_quiesce(const char *call);
void pg_ckpt_resume(const char *call);

/* The finalize's part (collective): waits for the last write. */
void pg_ckpt_fini(void);

#endif
