/* Broadcasts by the data servers (dataserver.h, "Broadcasts by the servers"): a team's
 * broadcasts land on a node in their order. PE 0 sends the last node's server both chunks of a
 * team's broadcast 1 before those of broadcast 0, as a server on a shorter path could (raw,
 * unordered PG_DS_FORWARD messages, as servers send them to each other). While only broadcast 1
 * has come (a probe sent behind it was answered, so the server has served it), every PE of
 * that node finds its word still at 0 and broadcast 1's dest untouched: the server keeps it.
 * Once broadcast 0 has come too, the word is 2 and both dests are exact, every byte and the
 * guards around them. Likewise a barrier's arrivals (check_arrivals). Also the validation of
 * malformed forwards and arrivals (on one node: only that). */
#include "check.h"

#include "memory/memory.h"
#include "pipeline/pipeline.h"
#include "startup/startup.h"

#include <shmem.h>
#include <string.h>

#define LEN 3000
#define CHUNK 1504 /* a multiple of 8: the second chunk is 1496 bytes */
#define GUARD 64

static unsigned char pattern(int number, size_t i)
{
    return (unsigned char)(number * 101 + i * 7 + 1);
}

/* A PG_DS_FORWARD of bytes [position, position + len) of broadcast `number` into dest. */
static size_t forward_message(char *message, const struct pg_ds_header *proto,
                              const struct pg_ds_forward *team, int number, size_t dest_off,
                              size_t position, size_t len)
{
    struct pg_ds_header h = *proto;
    struct pg_ds_forward f = *team;
    f.number = (uint64_t)number;
    h.offset = dest_off;
    h.position = position;
    h.length = len;
    memcpy(message, &h, sizeof h);
    memcpy(message + sizeof h, &f, sizeof f);
    char *data = message + sizeof h + sizeof f;
    for (size_t i = 0; i < len; i++)
        data[i] = (char)pattern(number, position + i);
    size_t wire = pg_ds_wire_bytes(len);
    memset(data + len, 0, wire - len);
    return sizeof h + sizeof f + wire;
}

static void check_validation(const struct pg_ds_header *proto, const struct pg_ds_forward *team,
                             int npes)
{
    static char message[sizeof(struct pg_ds_header) + sizeof(struct pg_ds_forward) + LEN + 8];
    size_t len = forward_message(message, proto, team, 0, 0, 0, CHUNK);
    struct pg_ds_header *h = (struct pg_ds_header *)message;
    struct pg_ds_forward *f = (struct pg_ds_forward *)(h + 1);
    CHECK(pg_ds_validate(h, len, npes, NULL) == PG_DS_OK, "a good forward is refused");
    CHECK(pg_ds_validate(h, len - 8, npes, NULL) == PG_DS_BAD_LENGTH, "a short forward passes");
    f->root = f->size;
    CHECK(pg_ds_validate(h, len, npes, NULL) == PG_DS_BAD_LAYOUT, "a root outside the team");
    f->root = 0;
    f->size = npes + 1;
    CHECK(pg_ds_validate(h, len, npes, NULL) == PG_DS_BAD_LAYOUT, "a team past the job");
    f->size = npes;
    f->total = CHUNK - 1;
    CHECK(pg_ds_validate(h, len, npes, NULL) == PG_DS_BAD_LAYOUT, "a chunk past the broadcast");
    f->total = LEN;
    h->type = PG_DS_ARRIVED;
    CHECK(pg_ds_validate(h, len, npes, NULL) == PG_DS_BAD_LENGTH, "an arrival with data");
    h->length = 0;
    CHECK(pg_ds_validate(h, sizeof *h + sizeof *f, npes, NULL) == PG_DS_OK,
          "a good arrival is refused");
}

static void arrive(const struct pg_ds_forward *team, int number, int nodes)
{
    struct pg_ds_forward f = *team;
    f.number = (uint64_t)number;
    for (int k = 0; k < nodes; k++)
        pg_pipe_arrived(shmem_n_pes() - 1, &f);
    pg_pipe_quiet(NULL); /* served */
}

/* A barrier's arrivals (PG_DS_ARRIVED) as the last node's server counts them: barrier 1's from
 * all nodes but one come first (nodes released from barrier 0 early), then barrier 0's from all
 * but one: nothing is released; barrier 0's last releases barrier 0, and barrier 1's last
 * barrier 1. PE 0 sends them all, for every node; the node's PEs check their word after each
 * step. */
static void check_arrivals(struct pg_ds_forward_words *words, const struct pg_ds_forward *team,
                           int across, int watched)
{
    const struct {
        int number, count;
        uint64_t synced;
    } steps[] = {{1, pg_world.nnodes - 1, 0}, {0, pg_world.nnodes - 1, 0}, {0, 1, 1}, {1, 1, 2}};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        if (across && shmem_my_pe() == 0)
            arrive(team, steps[k].number, steps[k].count);
        shmem_barrier_all();
        if (watched)
            CHECK(__atomic_load_n(&words->synced, __ATOMIC_ACQUIRE) == steps[k].synced,
                  "step %zu: synced is %llu, expected %llu", k, (unsigned long long)words->synced,
                  (unsigned long long)steps[k].synced);
        shmem_barrier_all();
    }
    if (watched)
        CHECK(words->nodes[0] == 0 && words->nodes[1] == 0,
              "the counts of nodes arrived are %llu and %llu after both barriers",
              (unsigned long long)words->nodes[0], (unsigned long long)words->nodes[1]);
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), last = npes - 1;
    struct pg_ds_forward_words *words = shmem_calloc(1, sizeof *words);
    unsigned char *dest[2];
    for (int b = 0; b < 2; b++) {
        dest[b] = shmem_malloc(GUARD + LEN + GUARD);
        memset(dest[b], 0xa5, GUARD + LEN + GUARD);
    }
    size_t words_off = 0, dest_off[2] = {0, 0};
    int heap = pg_mem_locate(words, sizeof *words, &words_off);
    for (int b = 0; b < 2; b++)
        pg_mem_locate(dest[b] + GUARD, LEN, &dest_off[b]);
    const struct pg_ds_header proto = {.version = PG_DS_PROTOCOL_VERSION,
                                       .type = PG_DS_FORWARD,
                                       .segment = (uint8_t)heap,
                                       .source = (uint32_t)me,
                                       .target = (uint32_t)last,
                                       .key = pg_world.job_key};
    const struct pg_ds_forward team = {
        .start = 0, .stride = 1, .size = npes, .root = 0, .total = LEN, .words = words_off};
    check_validation(&proto, &team, npes);
    int across = pg_world.node_of[last] != pg_world.node_of[0];
    int watched = across && pg_world.node_of[me] == pg_world.node_of[last];
    shmem_barrier_all();

    if (across && me == 0) {
        static char message[sizeof(struct pg_ds_header) + sizeof(struct pg_ds_forward) + LEN + 8];
        for (size_t at = LEN; at > 0;) { /* broadcast 1, its chunks in reverse too */
            size_t position = (at - 1) / CHUNK * CHUNK;
            size_t len =
                forward_message(message, &proto, &team, 1, dest_off[1], position, at - position);
            pg_pipe_send_raw(pg_world.node_of[last], message, len);
            at = position;
        }
        struct pg_ds_header probe = proto; /* refused, and answered after what came before */
        probe.type = 0;
        probe.seq = PG_DS_PROBE;
        pg_pipe_send_raw(pg_world.node_of[last], &probe, sizeof probe);
        while (pg_pipe_probes_rejected() < 1)
            shmem_quiet();
    }
    shmem_barrier_all();
    if (watched) {
        CHECK(__atomic_load_n(&words->done, __ATOMIC_ACQUIRE) == 0,
              "broadcast 1 counted before broadcast 0 came (done %llu)",
              (unsigned long long)words->done);
        for (size_t i = 0; i < GUARD + LEN + GUARD; i++)
            if (dest[1][i] != 0xa5) {
                CHECK(0, "broadcast 1 landed before broadcast 0 came: byte %zu", i);
                break;
            }
    }
    shmem_barrier_all();

    if (across && me == 0) {
        static char message[sizeof(struct pg_ds_header) + sizeof(struct pg_ds_forward) + LEN + 8];
        for (size_t position = 0; position < LEN; position += CHUNK) {
            size_t n = LEN - position < CHUNK ? LEN - position : CHUNK;
            size_t len = forward_message(message, &proto, &team, 0, dest_off[0], position, n);
            pg_pipe_send_raw(pg_world.node_of[last], message, len);
        }
    }
    if (watched) {
        shmem_uint64_wait_until((uint64_t *)&words->done, SHMEM_CMP_GE, 2);
        CHECK(words->done == 2, "done is %llu after both broadcasts, expected 2",
              (unsigned long long)words->done);
        for (int b = 0; b < 2; b++)
            for (size_t i = 0; i < GUARD + LEN + GUARD; i++) {
                int inside = i >= GUARD && i < GUARD + LEN;
                unsigned char want = inside ? pattern(b, i - GUARD) : 0xa5;
                if (dest[b][i] != want) {
                    CHECK(0, "broadcast %d: byte %ld is %#x, expected %#x", b, (long)i - GUARD,
                          dest[b][i], want);
                    break;
                }
            }
    }
    /* The first member's count of the broadcast under way is back at 0 on every node. */
    CHECK(words->bytes == 0, "%llu bytes counted after the broadcasts",
          (unsigned long long)words->bytes);
    shmem_barrier_all();
    check_arrivals(words, &team, across, watched);
    shmem_barrier_all();
    for (int b = 0; b < 2; b++)
        shmem_free(dest[b]);
    shmem_free(words);
    return check_finish();
}
