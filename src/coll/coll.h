/* coll: teams and collective operations. So far: the world barrier and sync. */
#ifndef PG_COLL_H
#define PG_COLL_H

struct pangea_team {
    int start, stride, size; /* members: start + i*stride (world PEs), i < size */
    int my_pe;               /* my index in the team, -1 when not a member */
};

/* Allocates the synchronization state (internal symmetric memory). Collective. */
int pg_coll_init(void);
void pg_coll_fini(void);

/* All PEs arrive before any leaves; stores made before are visible after. */
void pg_sync_all(void);

#endif
