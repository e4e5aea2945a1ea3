/* Signal channels: a team's signals from PE a to PE b add 1 to b's flag[a] in the team's
 * channel set; b remembers how many it has consumed. Adding (not storing a sequence number)
 * keeps counts exact even when off-node AMOs complete out of order. */
#include "coll_internal.h"

#include "atomics/atomics.h"
#include "memory/memory.h"
#include "onesided/onesided.h"
#include "runtime/runtime.h"
#include "startup/startup.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct pangea_ctx pg_coll_ctx;
size_t pg_coll_slot_size;
size_t pg_coll_stream_bytes;
static char *channels; /* PG_COLL_CHANNELS channel states, channel_stride bytes apart */
static size_t channel_stride;
static char *slots;        /* [channel][sender PE]: pg_coll_slot_size bytes each */
static uint64_t *consumed; /* [channel][sender PE]: signals that a wait has accounted for */
static struct pangea_team world;

/* The landing slots of all channels share this much internal symmetric memory. */
#define SLOT_BUDGET ((size_t)2 << 20)

/* From sysfs, which describes the caches this machine (or VM) has; glibc's sysconf reports
 * the host's in some VMs (384 MiB of L3 for a VM given 32 MiB). */
static size_t largest_cache(void)
{
    size_t largest = 0;
    for (int index = 0;; index++) {
        char path[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        unsigned long size;
        char unit = 0;
        if (fscanf(f, "%lu%c", &size, &unit) >= 1) {
            size_t bytes = (size_t)size << (unit == 'K' ? 10 : unit == 'M' ? 20 : 0);
            if (bytes > largest)
                largest = bytes;
        }
        fclose(f);
    }
    if (largest == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        largest = l3 > 0 ? (size_t)l3 : 0;
    }
    return largest;
}

/* Each channel holds the flags, then the collect sizes, npes words each. */
static size_t channel_bytes(size_t npes)
{
    return sizeof(struct pg_coll_channel) + 2 * ((npes * sizeof(uint64_t) + 63) & ~(size_t)63);
}

static size_t slot_bytes(size_t npes)
{
    size_t cap = SLOT_BUDGET / (npes * PG_COLL_CHANNELS);
    size_t size = (size_t)pg_cfg.coll_reduce_gather < cap ? (size_t)pg_cfg.coll_reduce_gather : cap;
    return size & ~(size_t)63;
}

size_t pg_coll_internal_bytes(size_t npes)
{
    return (channel_bytes(npes) + slot_bytes(npes) * npes) * PG_COLL_CHANNELS;
}

size_t pg_coll_table_bytes(size_t npes)
{
    return npes * PG_COLL_CHANNELS * sizeof *consumed;
}

int pg_coll_init(void)
{
    pg_coll_stream_bytes = pg_cfg.coll_stream ? (size_t)pg_cfg.coll_stream : largest_cache();
    size_t npes = (size_t)pg_world.npes;
    /* A new segment is zero-filled, so the flags start at 0 without a racy reset. */
    channel_stride = channel_bytes(npes);
    channels = pg_mem_internal_alloc(channel_stride * PG_COLL_CHANNELS);
    pg_coll_slot_size = slot_bytes(npes);
    slots = pg_coll_slot_size ? pg_mem_internal_alloc(pg_coll_slot_size * npes * PG_COLL_CHANNELS)
                              : NULL;
    consumed = calloc(1, pg_coll_table_bytes(npes));
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
    channels = slots = NULL;
}

void pg_sync_all(void)
{
    pg_team_sync(&world);
}

struct pg_coll_channel *pg_coll_channel(const struct pangea_team *team)
{
    return (struct pg_coll_channel *)(channels + (size_t)team->channel * channel_stride);
}

uint64_t *pg_coll_sizes(const struct pangea_team *team)
{
    size_t flags = ((size_t)pg_world.npes * sizeof(uint64_t) + 63) & ~(size_t)63;
    return (uint64_t *)((char *)pg_coll_channel(team)->flag + flags);
}

char *pg_coll_slot(const struct pangea_team *team, int sender)
{
    return slots +
           ((size_t)team->channel * (size_t)pg_world.npes + (size_t)sender) * pg_coll_slot_size;
}

static uint64_t *my_flag_at(const struct pangea_team *team)
{
    return &pg_coll_channel(team)->flag[pg_world.me];
}

void pg_coll_notify(const struct pangea_team *team, int pe)
{
    uint64_t *flag = my_flag_at(team);
    uint64_t *peer = pg_mem_peer_ptr(flag, pe);
    if (peer)
        __atomic_fetch_add(peer, 1, __ATOMIC_RELEASE);
    else
        pg_amo_nbi(&pg_coll_ctx, flag, pe, PG_AMO_ADD, sizeof *flag, 1, 0, NULL);
}

void pg_coll_put_notify(const struct pangea_team *team, void *dest, const void *src, size_t len,
                        int pe)
{
    pg_put_signal(&pg_coll_ctx, dest, src, len, my_flag_at(team), 1, PG_SIGNAL_ADD, pe);
}

void pg_coll_wait(const struct pangea_team *team, int pe, uint64_t count)
{
    uint64_t *done = &consumed[(size_t)team->channel * (size_t)pg_world.npes + (size_t)pe];
    uint64_t want = *done += count;
    const uint64_t *flag = &pg_coll_channel(team)->flag[pe];
    struct pg_waiter w = {0};
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) < want)
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
