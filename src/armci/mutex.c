/* Read-modify-write, mutexes and notification.
 *
 * ARMCI_Rmw goes through the engine's AMOs, so it is atomic with respect to OpenSHMEM's AMOs
 * on the same memory. A mutex is a ticket lock (two 64-bit counters in its owner's ARMCI
 * memory): waiters are served in arrival order, so none starves. */
#include "armci_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int PARMCI_Rmw(int op, void *ploc, void *prem, int value, int proc)
{
    const char *call = "ARMCI_Rmw";
    pg_armci_check_init(call);
    pg_armci_check_proc(call, "proc", proc);
    if (!ploc)
        pg_fatal(call, "argument 'ploc' is NULL");
    size_t width;
    enum pg_amo_op amo;
    uint64_t operand;
    switch (op) {
    case ARMCI_FETCH_AND_ADD:
        width = sizeof(int), amo = PG_AMO_ADD, operand = (uint32_t)value;
        break;
    case ARMCI_FETCH_AND_ADD_LONG:
        width = sizeof(long), amo = PG_AMO_ADD, operand = (uint64_t)(long)value;
        break;
    case ARMCI_SWAP:
        width = sizeof(int), amo = PG_AMO_SWAP, operand = *(uint32_t *)ploc;
        break;
    case ARMCI_SWAP_LONG:
        width = sizeof(long), amo = PG_AMO_SWAP, operand = *(uint64_t *)ploc;
        break;
    default:
        pg_fatal(call,
                 "argument 'op' = %d is not ARMCI_FETCH_AND_ADD, ARMCI_FETCH_AND_ADD_LONG, "
                 "ARMCI_SWAP or ARMCI_SWAP_LONG",
                 op);
    }
    void *remote = pg_armci_remote(call, "prem", proc, prem, width);
    uint64_t old = pg_amo(NULL, remote, proc, amo, width, operand, 0);
    if (width == sizeof(int)) {
        uint32_t narrow = (uint32_t)old;
        memcpy(ploc, &narrow, sizeof narrow);
    } else {
        memcpy(ploc, &old, sizeof old);
    }
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Rmw)

/* ---- Mutexes -------------------------------------------------------------------------------- */

struct ticket_lock {
    uint64_t next;    /* the ticket the next arrival draws */
    uint64_t serving; /* the ticket that holds the mutex */
};

/* The public handle and what only Pangea reads: every member's mutex count. */
struct mutex_batch {
    struct armcix_mutex_hdl_s pub;
    int *counts;
};

armcix_mutex_hdl_t ARMCIX_Create_mutexes_hdl(int count, ARMCI_Group *pgroup)
{
    const char *call = "ARMCIX_Create_mutexes_hdl";
    pg_armci_check_init(call);
    pg_group_check_member(call, pgroup);
    pg_armci_check_count(call, "count", count);
    struct mutex_batch *batch = calloc(1, sizeof *batch);
    if (!batch)
        pg_fatal(call, "out of memory");
    ARMCIX_Group_dup(pgroup, &batch->pub.grp);
    ARMCI_Group *grp = &batch->pub.grp;
    batch->counts = malloc((size_t)grp->size * sizeof(int));
    batch->pub.bases = malloc((size_t)grp->size * sizeof(uint8_t *));
    if (!batch->counts || !batch->pub.bases)
        pg_fatal(call, "out of memory");
    MPI_Allgather(&count, 1, MPI_INT, batch->counts, 1, MPI_INT, grp->comm);
    batch->pub.my_count = count;
    batch->pub.max_count = 0;
    for (int r = 0; r < grp->size; r++)
        if (batch->counts[r] > batch->pub.max_count)
            batch->pub.max_count = batch->counts[r];
    ARMCI_Malloc_group((void **)batch->pub.bases, (armci_size_t)count * sizeof(struct ticket_lock),
                       grp);
    if (count > 0)
        memset(batch->pub.bases[grp->rank], 0, (size_t)count * sizeof(struct ticket_lock));
    MPI_Barrier(grp->comm); /* nobody locks before every owner has cleared its mutexes */
    return &batch->pub;
}

int ARMCIX_Destroy_mutexes_hdl(armcix_mutex_hdl_t hdl)
{
    const char *call = "ARMCIX_Destroy_mutexes_hdl";
    if (!hdl)
        pg_fatal(call, "argument 'hdl' is NULL");
    struct mutex_batch *batch = (struct mutex_batch *)hdl;
    ARMCI_Free_group(hdl->bases[hdl->grp.rank], &hdl->grp);
    ARMCI_Group_free(&hdl->grp);
    free(hdl->bases);
    free(batch->counts);
    free(batch);
    return 0;
}

/* The ticket lock of mutex on group rank proc, as my address and the owner's process id. */
static struct ticket_lock *lock_of(const char *call, armcix_mutex_hdl_t hdl, int mutex, int proc,
                                   int *owner)
{
    if (!hdl)
        pg_fatal(call, "argument 'hdl' is NULL (no mutexes were created)");
    if (proc < 0 || proc >= hdl->grp.size)
        pg_fatal(call, "argument 'proc' = %d is not a process of the mutexes' group (0..%d)", proc,
                 hdl->grp.size - 1);
    int count = ((struct mutex_batch *)hdl)->counts[proc];
    if (mutex < 0 || mutex >= count)
        pg_fatal(call, "argument 'mutex' = %d: process %d owns %d mutexes", mutex, proc, count);
    *owner = hdl->grp.grp_to_abs[proc];
    struct ticket_lock *at = (struct ticket_lock *)hdl->bases[proc] + mutex;
    return pg_armci_remote(call, "mutex", *owner, at, sizeof *at);
}

void ARMCIX_Lock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    int owner;
    struct ticket_lock *lock = lock_of("ARMCI_Lock", hdl, mutex, proc, &owner);
    PG_PROF_WAIT(LOCK);
    uint64_t ticket = pg_amo(NULL, &lock->next, owner, PG_AMO_ADD, 8, 1, 0);
    PG_WATCHED_WAITER(w, pg_mem_doorbell(owner, &lock->serving), "ARMCI_Lock");
    while (pg_amo(NULL, &lock->serving, owner, PG_AMO_FETCH, 8, 0, 0) != ticket)
        pg_wait_step(&w);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    pg_lock_held_note("ARMCI_Lock", 1);
}

/* Takes the mutex only when nobody holds or waits for it: 0 when taken, 1 otherwise. */
int ARMCIX_Trylock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    int owner;
    struct ticket_lock *lock = lock_of("ARMCIX_Trylock_hdl", hdl, mutex, proc, &owner);
    uint64_t serving = pg_amo(NULL, &lock->serving, owner, PG_AMO_FETCH, 8, 0, 0);
    uint64_t drawn = pg_amo(NULL, &lock->next, owner, PG_AMO_CSWAP, 8, serving + 1, serving);
    if (drawn != serving)
        return 1;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    pg_lock_held_note("ARMCIX_Trylock_hdl", 1);
    return 0;
}

/* What the holder wrote under the mutex is complete before the next holder enters. */
void ARMCIX_Unlock_hdl(armcix_mutex_hdl_t hdl, int mutex, int proc)
{
    int owner;
    struct ticket_lock *lock = lock_of("ARMCI_Unlock", hdl, mutex, proc, &owner);
    pg_armci_all_fence();
    pg_lock_held_note(NULL, -1);
    pg_amo_nbi(&pg_armci_ctx, &lock->serving, owner, PG_AMO_ADD, 8, 1, 0, NULL);
}

static armcix_mutex_hdl_t world_mutexes; /* ARMCI_Create_mutexes */

int PARMCI_Create_mutexes(int count)
{
    if (world_mutexes)
        pg_fatal("ARMCI_Create_mutexes", "mutexes exist already: ARMCI_Destroy_mutexes first");
    world_mutexes = ARMCIX_Create_mutexes_hdl(count, &pg_armci_world_group);
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Create_mutexes)

int PARMCI_Destroy_mutexes(void)
{
    if (!world_mutexes)
        pg_fatal("ARMCI_Destroy_mutexes", "there are no mutexes (ARMCI_Create_mutexes)");
    ARMCIX_Destroy_mutexes_hdl(world_mutexes);
    world_mutexes = NULL;
    return 0;
}
PG_ARMCI_ALIAS(ARMCI_Destroy_mutexes)

void PARMCI_Lock(int mutex, int proc)
{
    pg_armci_check_init("ARMCI_Lock");
    pg_armci_check_proc("ARMCI_Lock", "proc", proc);
    ARMCIX_Lock_hdl(world_mutexes, mutex, proc);
}
PG_ARMCI_ALIAS(ARMCI_Lock)

void PARMCI_Unlock(int mutex, int proc)
{
    pg_armci_check_init("ARMCI_Unlock");
    pg_armci_check_proc("ARMCI_Unlock", "proc", proc);
    ARMCIX_Unlock_hdl(world_mutexes, mutex, proc);
}
PG_ARMCI_ALIAS(ARMCI_Unlock)

void pg_armci_mutex_fini(void)
{
    if (world_mutexes)
        PARMCI_Destroy_mutexes();
}

/* ---- Notification --------------------------------------------------------------------------- */

static uint64_t *notify_received; /* symmetric: [p] counts notifications from process p */
static uint64_t *notify_sent, *notify_waited;

void pg_armci_notify_init(void)
{
    size_t n = (size_t)pg_world.npes;
    notify_received = pg_heap_alloc(0, n * sizeof(uint64_t));
    notify_sent = calloc(n, sizeof(uint64_t));
    notify_waited = calloc(n, sizeof(uint64_t));
    if (!notify_received || !notify_sent || !notify_waited)
        pg_fatal("ARMCI_Init", "no memory for %zu notification counters", n);
    memset(notify_received, 0, n * sizeof(uint64_t));
}

void pg_armci_notify_fini(void)
{
    pg_heap_free(notify_received);
    free(notify_sent);
    free(notify_waited);
    notify_received = notify_sent = notify_waited = NULL;
}

int armci_notify(int proc)
{
    pg_armci_check_init("armci_notify");
    pg_armci_check_proc("armci_notify", "proc", proc);
    pg_armci_fence(proc); /* what I sent proc before arrives before the notification */
    pg_amo_nbi(&pg_armci_ctx, &notify_received[pg_world.me], proc, PG_AMO_ADD, 8, 1, 0, NULL);
    return (int)++notify_sent[proc];
}

int armci_notify_wait(int proc, int *pval)
{
    pg_armci_check_init("armci_notify_wait");
    pg_armci_check_proc("armci_notify_wait", "proc", proc);
    uint64_t want = ++notify_waited[proc];
    PG_WATCHED_WAITER(w, pg_mem_doorbell(pg_world.me, &notify_received[proc]), "armci_notify_wait");
    while (__atomic_load_n(&notify_received[proc], __ATOMIC_ACQUIRE) < want)
        pg_wait_step(&w);
    if (pval)
        *pval = (int)want;
    return (int)want;
}
