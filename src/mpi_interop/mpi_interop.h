/* mpi_interop: what a PGAS front-end needs from MPI beyond bootstrap — ARMCI process groups
 * as MPI communicators, and the communicators of the armci_msg_* helpers. Called by the
 * ARMCI front-end; the armci_msg_* and ARMCI_Group_* calls themselves live here too. */
#ifndef PG_MPI_INTEROP_H
#define PG_MPI_INTEROP_H

#include <armci.h>
#include <armcix.h>
#include <mpi.h>

/* Duplicates the world, node and node-master communicators and sets up the ARMCI world and
 * default groups. Collective over the world, after the runtime is up. */
void pg_mpi_interop_init(void);
void pg_mpi_interop_fini(void);

/* The ARMCI world group (every process, ranks = process ids) and the default group. */
extern ARMCI_Group pg_armci_world_group;
ARMCI_Group *pg_armci_default_group(void);

/* A group is the world when it has every process in process-id order. */
int pg_group_is_world(const ARMCI_Group *group);
/* Checks that I belong to group (a collective call over it); names call in the error. */
void pg_group_check_member(const char *call, const ARMCI_Group *group);

/* The node and node-master communicators of the armci_msg_* scopes (collective; called by
 * pg_mpi_interop_init/fini). */
void pg_msg_scopes_init(void);
void pg_msg_scopes_fini(void);

/* MPI datatype of an armci_type_e (ARMCI_INT..ARMCI_DOUBLE), or MPI_DATATYPE_NULL. */
MPI_Datatype pg_msg_datatype(int type);

#endif
