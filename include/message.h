/* Pangea: ARMCI's message-passing helpers (armci_msg_*), over MPI.
 *
 * Scopes: SCOPE_ALL is every process (of the group, for the group_ forms), SCOPE_NODE the
 * processes of my node, SCOPE_MASTERS the lowest process of every node (only masters call
 * with it). Roots are process ids (group ranks in the group_ forms). Reduction operators:
 * "+", "*", "max", "min", "absmax", "absmin" (results are absolute values), "or", "and"
 * (logical, result 0 or 1). */
#ifndef HAVE_ARMCI_MSG_H
#define HAVE_ARMCI_MSG_H

#include <armci.h>

#ifdef __cplusplus
extern "C" {
#endif

enum armci_scope_e { SCOPE_ALL, SCOPE_NODE, SCOPE_MASTERS };

enum armci_type_e { ARMCI_INT, ARMCI_LONG, ARMCI_LONG_LONG, ARMCI_FLOAT, ARMCI_DOUBLE };

int armci_msg_me(void);
int armci_msg_nproc(void);

void armci_msg_abort(int code);
double armci_timer(void);

/* Point to point (tags match between snd and rcv; lengths in bytes). */
void armci_msg_snd(int tag, void *buffer, int len, int to);
void armci_msg_rcv(int tag, void *buffer, int buflen, int *msglen, int from);
int armci_msg_rcvany(int tag, void *buffer, int buflen, int *msglen);

void armci_msg_barrier(void);
void armci_msg_group_barrier(ARMCI_Group *group);
/* A binary tree over the scope's processes (process ids; -1 where there is none). */
void armci_msg_bintree(int scope, int *Root, int *Up, int *Left, int *Right);

void armci_msg_bcast(void *buffer, int len, int root);
void armci_msg_bcast_scope(int scope, void *buffer, int len, int root);
void armci_msg_brdcst(void *buffer, int len, int root);
void armci_msg_group_bcast_scope(int scope, void *buf, int len, int root, ARMCI_Group *group);

/* Reduction to process 0 (x is meaningful there only afterwards). */
void armci_msg_reduce(void *x, int n, char *op, int type);
void armci_msg_reduce_scope(int scope, void *x, int n, char *op, int type);

/* x is n bytes whose first element, of the type, is the key: every process gets the x of the
 * contributing process whose key is the largest ("max") or smallest ("min"). */
void armci_msg_sel(void *x, int n, char *op, int type, int contribute);
void armci_msg_sel_scope(int scope, void *x, int n, char *op, int type, int contribute);

/* ptr_ar[me] is mine; afterwards every entry is its process's pointer (n = processes). */
void armci_exchange_address(void *ptr_ar[], int n);

/* Within my node, from its master. */
void armci_msg_clus_brdcst(void *buf, int len);
void armci_msg_clus_igop(int *x, int n, char *op);
void armci_msg_clus_fgop(float *x, int n, char *op);
void armci_msg_clus_lgop(long *x, int n, char *op);
void armci_msg_clus_llgop(long long *x, int n, char *op);
void armci_msg_clus_dgop(double *x, int n, char *op);

void armci_exchange_address_grp(void *ptr_arr[], int n, ARMCI_Group *group);
/* Broadcast among the group's processes on my node from grp_master (a group rank on it). */
void armci_grp_clus_brdcst(void *buf, int len, int grp_master, int grp_clus_nproc,
                           ARMCI_Group *mastergroup);

/* Global (all-reduce) operations: every process gets the result. */
void armci_msg_gop_scope(int scope, void *x, int n, char *op, int type);
void armci_msg_igop(int *x, int n, char *op);
void armci_msg_lgop(long *x, int n, char *op);
void armci_msg_llgop(long long *x, int n, char *op);
void armci_msg_fgop(float *x, int n, char *op);
void armci_msg_dgop(double *x, int n, char *op);

void armci_msg_group_gop_scope(int scope, void *x, int n, char *op, int type, ARMCI_Group *group);
void armci_msg_group_igop(int *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_lgop(long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_llgop(long long *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_fgop(float *x, int n, char *op, ARMCI_Group *group);
void armci_msg_group_dgop(double *x, int n, char *op, ARMCI_Group *group);

/* Global Arrays' forms: bring MPI up (if nobody has) and down (if armci_msg_init did). */
void armci_msg_init(int *argc, char ***argv);
void armci_msg_finalize(void);

#ifdef __cplusplus
}
#endif

#endif /* HAVE_ARMCI_MSG_H */
