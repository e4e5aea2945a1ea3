/* ARMCI process groups as MPI communicators, and the communicators of the message helpers.
 * A group's ranks are its communicator's; grp_to_abs/abs_to_grp translate them to process
 * ids (ranks of the runtime's world, pg_startup_world) and back. */
#include "mpi_interop.h"

#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdlib.h>
#include <string.h>

ARMCI_Group pg_armci_world_group;
static ARMCI_Group default_group;
static int have_default; /* ARMCI_Group_set_default was called */

static void group_from_comm(ARMCI_Group *group, MPI_Comm comm)
{
    *group = (ARMCI_Group){.comm = comm, .noncoll_pgroup_comm = MPI_COMM_NULL, .rank = -1};
    if (comm == MPI_COMM_NULL)
        return;
    MPI_Comm_rank(comm, &group->rank);
    MPI_Comm_size(comm, &group->size);
    group->grp_to_abs = malloc((size_t)group->size * sizeof(int));
    group->abs_to_grp = malloc((size_t)pg_world.npes * sizeof(int));
    int *ranks = malloc((size_t)group->size * sizeof(int));
    if (!group->grp_to_abs || !group->abs_to_grp || !ranks)
        pg_fatal("ARMCI_Group_create", "out of memory for a group of %d", group->size);
    MPI_Group mine, world;
    MPI_Comm_group(comm, &mine);
    MPI_Comm_group(pg_startup_world(), &world);
    for (int r = 0; r < group->size; r++)
        ranks[r] = r;
    MPI_Group_translate_ranks(mine, group->size, ranks, world, group->grp_to_abs);
    MPI_Group_free(&mine);
    MPI_Group_free(&world);
    free(ranks);
    for (int p = 0; p < pg_world.npes; p++)
        group->abs_to_grp[p] = -1;
    for (int r = 0; r < group->size; r++)
        group->abs_to_grp[group->grp_to_abs[r]] = r;
}

void pg_mpi_interop_init(void)
{
    MPI_Comm world;
    MPI_Comm_dup(pg_startup_world(), &world);
    group_from_comm(&pg_armci_world_group, world);
    have_default = 0;
    pg_msg_scopes_init();
}

void pg_mpi_interop_fini(void)
{
    pg_msg_scopes_fini();
    ARMCI_Group_free(&pg_armci_world_group);
    have_default = 0;
}

ARMCI_Group *pg_armci_default_group(void)
{
    return have_default ? &default_group : &pg_armci_world_group;
}

int pg_group_is_world(const ARMCI_Group *group)
{
    if (group->size != pg_world.npes)
        return 0;
    for (int r = 0; r < group->size; r++)
        if (group->grp_to_abs[r] != r)
            return 0;
    return 1;
}

void pg_group_check_member(const char *call, const ARMCI_Group *group)
{
    if (!group)
        pg_fatal(call, "argument 'group' is NULL");
    if (group->comm == MPI_COMM_NULL || group->rank < 0)
        pg_fatal(call,
                 "process %d is not a member of the group (it was excluded when the "
                 "group was created, or the group was freed)",
                 pg_world.me);
}

void ARMCI_Group_create_child(int grp_size, int *pid_list, ARMCI_Group *group_out,
                              ARMCI_Group *group_parent)
{
    const char *call = "ARMCI_Group_create_child";
    pg_group_check_member(call, group_parent);
    if (grp_size < 0 || grp_size > group_parent->size)
        pg_fatal(call, "argument 'grp_size' = %d is outside 0..%d (the parent's size)", grp_size,
                 group_parent->size);
    for (int i = 0; i < grp_size; i++)
        if (pid_list[i] < 0 || pid_list[i] >= group_parent->size)
            pg_fatal(call, "argument 'pid_list[%d]' = %d is not a rank of the parent group (0..%d)",
                     i, pid_list[i], group_parent->size - 1);
    MPI_Group parent, child;
    MPI_Comm comm;
    MPI_Comm_group(group_parent->comm, &parent);
    MPI_Group_incl(parent, grp_size, pid_list, &child);
    MPI_Comm_create(group_parent->comm, child, &comm);
    MPI_Group_free(&child);
    MPI_Group_free(&parent);
    group_from_comm(group_out, comm);
}

void ARMCI_Group_create(int grp_size, int *pid_list, ARMCI_Group *group_out)
{
    ARMCI_Group_create_child(grp_size, pid_list, group_out, pg_armci_default_group());
}

void ARMCI_Group_free(ARMCI_Group *group)
{
    if (!group)
        pg_fatal("ARMCI_Group_free", "argument 'group' is NULL");
    if (group->comm != MPI_COMM_NULL)
        MPI_Comm_free(&group->comm);
    free(group->grp_to_abs);
    free(group->abs_to_grp);
    group_from_comm(group, MPI_COMM_NULL);
}

int ARMCI_Group_rank(ARMCI_Group *group, int *rank)
{
    *rank = group->rank;
    return 0;
}

void ARMCI_Group_size(ARMCI_Group *group, int *size)
{
    *size = group->size;
}

/* The default group is held by reference, as in ARMCI-MPI: the caller keeps it alive. */
void ARMCI_Group_set_default(ARMCI_Group *group)
{
    pg_group_check_member("ARMCI_Group_set_default", group);
    default_group = *group;
    have_default = 1;
}

void ARMCI_Group_get_default(ARMCI_Group *group_out)
{
    *group_out = *pg_armci_default_group();
}

void ARMCI_Group_get_world(ARMCI_Group *group_out)
{
    *group_out = pg_armci_world_group;
}

int ARMCI_Absolute_id(ARMCI_Group *group, int group_rank)
{
    if (!group || group_rank < 0 || group_rank >= group->size)
        pg_fatal("ARMCI_Absolute_id",
                 "argument 'group_rank' = %d is not a rank of the group (0..%d)", group_rank,
                 group ? group->size - 1 : -1);
    return group->grp_to_abs[group_rank];
}

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group)
{
    pg_group_check_member("ARMCIX_Group_split", parent);
    MPI_Comm comm;
    int rc = MPI_Comm_split(parent->comm, color < 0 ? MPI_UNDEFINED : color, key, &comm);
    group_from_comm(new_group, comm);
    return rc == MPI_SUCCESS ? 0 : FAIL;
}

int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group)
{
    pg_group_check_member("ARMCIX_Group_dup", parent);
    MPI_Comm comm;
    int rc = MPI_Comm_dup(parent->comm, &comm);
    group_from_comm(new_group, comm);
    return rc == MPI_SUCCESS ? 0 : FAIL;
}

MPI_Comm armci_group_comm(ARMCI_Group *group)
{
    return group ? group->comm : MPI_COMM_NULL;
}
