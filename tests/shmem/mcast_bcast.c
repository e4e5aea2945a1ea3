/* Broadcasts of 1 B to TEST_MCAST_MAX bytes (default 3 MiB + 1) from every root, checked byte by
 * byte with the guard bytes around dest: on WORLD, and on the even and odd PEs' teams
 * broadcasting at the same time (different data). Run across emulated nodes with PANGEA_MCAST
 * (tests/netns/mcast.sh) it exercises the multicast path, its retransmission (with datagrams
 * dropped) and its fall-back to the tree; elsewhere the tree. The sizes straddle one datagram's
 * payload and one window of them. */
#include "check.h"

#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define GUARD 64

static const size_t sizes[] = {1, 2, 1439, 1440, 1441, 46081, 65539, 1048583, 3145729};

static void broadcast_all(shmem_team_t team, const char *name, unsigned salt, char *src, char *area,
                          size_t most)
{
    if (team == SHMEM_TEAM_INVALID)
        return;
    int me = shmem_team_my_pe(team), n = shmem_team_n_pes(team);
    char *dest = area + GUARD;
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes && sizes[s] <= most; s++) {
        size_t len = sizes[s];
        for (int root = 0; root < n; root++) {
            test_fill_bytes(src, len, root, salt + (unsigned)s);
            for (size_t k = 0; k < len + 2 * GUARD; k++)
                area[k] = (char)test_guard_byte(k);
            shmem_team_sync(team);
            shmem_broadcastmem(team, dest, src, len, root);
            size_t bad = test_bad_byte(dest, len, root, salt + (unsigned)s);
            CHECK(bad == SIZE_MAX, "%s: %zu bytes from root %d: byte %zu wrong", name, len, root,
                  bad);
            long guards = 0;
            for (size_t k = 0; k < GUARD; k++) {
                guards += area[k] != (char)test_guard_byte(k);
                guards += area[GUARD + len + k] != (char)test_guard_byte(GUARD + len + k);
            }
            CHECK(guards == 0, "%s: %zu bytes from root %d (me %d): %ld guard bytes changed", name,
                  len, root, me, guards);
        }
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    const char *max_text = getenv("TEST_MCAST_MAX");
    size_t most = max_text ? strtoull(max_text, NULL, 0) : sizes[sizeof sizes / sizeof *sizes - 1];
    char *src = shmem_malloc(most);
    char *area = shmem_malloc(most + 2 * GUARD);
    CHECK(src && area, "shmem_malloc of %zu bytes failed", most);
    if (!src || !area)
        shmem_global_exit(1);

    broadcast_all(SHMEM_TEAM_WORLD, "WORLD", 1, src, area, most);
    shmem_team_t even = SHMEM_TEAM_INVALID, odd = SHMEM_TEAM_INVALID;
    if (npes > 1) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even);
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    }
    /* Both teams at once: each PE is in one of them. */
    broadcast_all(me % 2 ? odd : even, me % 2 ? "odd" : "even", me % 2 ? 7 : 3, src, area, most);
    broadcast_all(SHMEM_TEAM_WORLD, "WORLD again", 11, src, area, 65539);

    if (even != SHMEM_TEAM_INVALID)
        shmem_team_destroy(even);
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    shmem_free(area);
    shmem_free(src);
    int status = check_finish();
    shmem_finalize();
    return status;
}
