/* Signal channels: PE a's signals to PE b add 1 to b's flag[a]; b remembers how many it has
 * consumed. Adding (not storing a sequence number) keeps counts exact even when off-node AMOs
 * complete out of order. */
#include "coll_internal.h"

#include "atomics/atomics.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdlib.h>

struct pg_coll_state *pg_coll_state;
struct pangea_ctx pg_coll_ctx;
char *pg_coll_slots;
size_t pg_coll_slot_size;
static uint64_t *consumed; /* [npes]: signals from each PE that a wait has accounted for */
static struct pangea_team world;

int pg_coll_init(void)
{
    /* A new segment is zero-filled, so the flags start at 0 without a racy reset. */
    pg_coll_state = pg_mem_internal_alloc(sizeof *pg_coll_state +
                                          (size_t)pg_world.npes * sizeof pg_coll_state->flag[0]);
    size_t cap = ((size_t)1 << 20) / (size_t)pg_world.npes;
    pg_coll_slot_size =
        (size_t)pg_cfg.coll_reduce_gather < cap ? (size_t)pg_cfg.coll_reduce_gather : cap;
    pg_coll_slot_size &= ~(size_t)63;
    pg_coll_slots =
        pg_coll_slot_size ? pg_mem_internal_alloc(pg_coll_slot_size * (size_t)pg_world.npes) : NULL;
    consumed = calloc((size_t)pg_world.npes, sizeof *consumed);
    if (!consumed || pg_team_init(&world, 0, 1, pg_world.npes) != 0)
        return -1;
    pg_ctx_init(&pg_coll_ctx, &world, 0);
    return 0;
}

void pg_coll_fini(void)
{
    pg_ctx_fini(&pg_coll_ctx);
    pg_team_fini(&world);
    free(consumed);
    consumed = NULL;
    pg_coll_state = NULL;
}

void pg_sync_all(void)
{
    pg_team_sync(&world);
}

void pg_coll_notify(int pe)
{
    uint64_t *flag = &pg_coll_state->flag[pg_world.me];
    uint64_t *peer = pg_mem_peer_ptr(flag, pe);
    if (peer)
        __atomic_fetch_add(peer, 1, __ATOMIC_RELEASE);
    else
        pg_amo(&pg_coll_ctx, flag, pe, PG_AMO_ADD, sizeof *flag, 1, 0);
}

void pg_coll_put_notify(void *dest, const void *src, size_t len, int pe)
{
    pg_put_signal(&pg_coll_ctx, dest, src, len, &pg_coll_state->flag[pg_world.me], 1, PG_SIGNAL_ADD,
                  pe);
}

void pg_coll_wait(int pe, uint64_t count)
{
    uint64_t want = consumed[pe] += count;
    struct pg_waiter w = {0};
    while (__atomic_load_n(&pg_coll_state->flag[pe], __ATOMIC_ACQUIRE) < want)
        pg_wait_step(&w);
}

const void *pg_coll_fetch(const void *addr, size_t len, int pe, void *tmp)
{
    if (pe == pg_world.me)
        return addr;
    const void *peer = pg_mem_peer_ptr(addr, pe);
    if (peer)
        return peer;
    pg_get(&pg_coll_ctx, tmp, addr, len, pe);
    return tmp;
}
