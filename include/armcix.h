/* Pangea: ARMCI-MPI's extensions (group split/dup, mutex handles, progress). */
#ifndef _ARMCIX_H_
#define _ARMCIX_H_

#include <armci.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int ARMCIX_Group_split(ARMCI_Group *parent, int color, int key, ARMCI_Group *new_group);
int ARMCIX_Group_dup(ARMCI_Group *parent, ARMCI_Group *new_group);

/* A batch of mutexes over a group: every member owns my_count of them (max_count the largest
 * count of any member). Layout of ARMCI-MPI's; Pangea keeps windows NULL and in bases[r] the
 * address, in group rank r's address space, of r's mutexes. */
struct armcix_mutex_hdl_s {
    int my_count;
    int max_count;
    ARMCI_Group grp;
    MPI_Win *windows;
    uint8_t **bases;
};

typedef struct armcix_mutex_hdl_s *armcix_mutex_hdl_t;

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup);
int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl);
/* proc is a rank of the handle's group. Trylock returns 0 when it took the mutex. */
void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc);

/* Pangea's data server makes progress by itself; this drives the network client once. */
void ARMCIX_Progress(void);

#ifdef __cplusplus
}
#endif

#endif /* _ARMCIX_H_ */
