/* The ARMCI front-end's shared helpers: argument checks, address translation, profiling
 * aliases. Internal to src/armci. */
#ifndef PG_ARMCI_INTERNAL_H
#define PG_ARMCI_INTERNAL_H

#include <armci.h>
#include <armcix.h>

#include "atomics/atomics.h"
#include "coll/coll.h"
#include "memory/memory.h"
#include "mpi_interop/mpi_interop.h"
#include "onesided/onesided.h"
#include "prof/prof.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stddef.h>

/* Every call is defined as PARMCI_NAME (or parmci_name); ARMCI_NAME is a weak alias. */
#define PG_ARMCI_ALIAS(name) \
    extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)));

/* The context every ARMCI transfer goes through (set up by ARMCI_Init). */
extern struct pangea_ctx pg_armci_ctx;

/* ARMCI checks every argument always: the checks cost little next to a transfer, and a bad
 * process id or address must stop the job with a message, never corrupt memory. Each names
 * the call and the argument. */
void pg_armci_check_init(const char *call);
void pg_armci_check_proc(const char *call, const char *arg, int proc);
void pg_armci_check_count(const char *call, const char *arg, long count);
void pg_armci_check_local(const char *call, const char *arg, const void *addr, long bytes);
/* My address of [addr, addr+len) in proc's ARMCI memory; fatal when it is not. */
void *pg_armci_remote(const char *call, const char *arg, int proc, const void *addr, size_t len);
/* The engine's accumulate type of an ARMCI_ACC_ value; fatal when there is none. */
enum pg_acc_type pg_armci_acc_type(const char *call, int datatype);

/* Complete my transfers to proc, to the processes procs[0..n-1], or to everybody. */
void pg_armci_fence(int proc);
void pg_armci_fence_procs(const int *procs, size_t n);
void pg_armci_all_fence(void);

/* Memory of the ARMCI front-end, set up by ARMCI_Init and released by ARMCI_Finalize. */
void pg_armci_memory_init(void);
void pg_armci_memory_fini(void);
void pg_armci_notify_init(void);
void pg_armci_notify_fini(void);
void pg_armci_mutex_fini(void);

#endif
