/* Malformed and truncated requests reaching a data server are rejected with a logged error
 * and never touch memory or stop the server (a batch of puts with one bad record applies none
 * of them). On one node only the validation is checked
 * (there is no server); across nodes PE 0 also sends each message to the last PE's server,
 * and an ordered request whose number was served already is refused too. */
#include "check.h"

#include "pipeline/pipeline.h"
#include "memory/memory.h"
#include "startup/startup.h"

#include <shmem.h>
#include <string.h>

#define GUARD_LONGS 4096

#define nfaults_of(faults) ((int)(sizeof(faults) / sizeof((faults)[0])))

struct fault {
    const char *what;
    struct pg_ds_header h;
    size_t len;
    int status;  /* what validation says */
    int answers; /* the server sends a NACK back */
};

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes(), target = npes - 1;
    long *guard = shmem_malloc(GUARD_LONGS * sizeof(long));
    for (int i = 0; i < GUARD_LONGS; i++)
        guard[i] = 0x5a5a0000L + i;
    size_t guard_off = 0;
    int heap = pg_mem_locate(guard, sizeof(long), &guard_off);
    shmem_barrier_all();

    const struct pg_ds_header ok = {.version = PG_DS_PROTOCOL_VERSION,
                                    .type = PG_DS_PUT,
                                    .segment = (uint8_t)heap,
                                    .source = (uint32_t)me,
                                    .target = (uint32_t)target,
                                    .offset = guard_off,
                                    .length = 0,
                                    .key = pg_world.job_key};
    struct fault faults[] = {
        {"truncated header", ok, 20, PG_DS_BAD_LENGTH, 0},
        {"unknown version", ok, sizeof ok, PG_DS_BAD_VERSION, 0},
        {"unknown type", ok, sizeof ok, PG_DS_BAD_TYPE, 1},
        {"source out of range", ok, sizeof ok, PG_DS_BAD_SOURCE, 0},
        {"target out of range", ok, sizeof ok, PG_DS_BAD_TARGET, 1},
        {"unknown segment", ok, sizeof ok, PG_DS_BAD_SEGMENT, 1},
        {"put longer than its message", ok, sizeof ok, PG_DS_BAD_LENGTH, 1},
        {"get with a payload", ok, sizeof ok + 8, PG_DS_BAD_LENGTH, 1},
        {"range past the segment", ok, sizeof ok, PG_DS_OK, 1},
        {"AMO of width 3", ok, sizeof ok, PG_DS_BAD_AMO, 1},
        {"unaligned AMO", ok, sizeof ok, PG_DS_BAD_AMO, 1},
        {"unknown AMO op", ok, sizeof ok, PG_DS_BAD_AMO, 1},
        {"strided put of 9 levels", ok, sizeof ok + 8, PG_DS_BAD_LAYOUT, 1},
        {"strided descriptor cut short", ok, sizeof ok + 16, PG_DS_BAD_LENGTH, 1},
        {"strided count of 0", ok, sizeof ok + 32, PG_DS_BAD_LAYOUT, 1},
        {"strided extent past the segment", ok, sizeof ok + 32, PG_DS_OK, 1},
        {"accumulate of 3 bytes of double (wire: 8)", ok, sizeof ok + 8, PG_DS_BAD_ACC, 1},
        {"vector piece past the segment", ok, sizeof ok + 24, PG_DS_OK, 1},
        {"ordered AMO numbered as already served", ok, sizeof ok, PG_DS_OK, 1},
        {"close with a payload", ok, sizeof ok + 8, PG_DS_BAD_LENGTH, 1},
        /* Batched puts (records): a bad record stops the whole message, before any is applied. */
        {"records: the second runs past the segment", ok, sizeof ok + 48, PG_DS_OK, 1},
        {"records: a record of 0 bytes", ok, sizeof ok + 16, PG_DS_BAD_LAYOUT, 1},
        {"records: a record cut short", ok, sizeof ok + 24, PG_DS_BAD_LENGTH, 1},
        {"records: an unknown segment", ok, sizeof ok + 24, PG_DS_BAD_SEGMENT, 1},
        {"records: a PE out of range", ok, sizeof ok + 24, PG_DS_BAD_TARGET, 1},
        {"records: the second to a PE of another node", ok, sizeof ok + 48, PG_DS_OK, 1},
        {"records in a get", ok, sizeof ok, PG_DS_BAD_LAYOUT, 1},
    };
    faults[1].h.version = 99;
    faults[2].h.type = 77;
    faults[3].h.source = (uint32_t)npes + 5;
    faults[4].h.target = (uint32_t)npes;
    faults[5].h.segment = 9;
    faults[6].h.length = 1 << 20;
    faults[7].h.type = PG_DS_GET;
    faults[7].h.length = 8;
    faults[8].h.type = PG_DS_GET;
    faults[8].h.offset = (uint64_t)1 << 50;
    faults[8].h.length = 64;
    for (int i = 9; i < 12; i++) {
        faults[i].h.type = PG_DS_AMO;
        faults[i].h.width = 8;
        faults[i].h.length = 8;
    }
    faults[9].h.width = 3;
    faults[9].h.length = 3;
    faults[10].h.offset += 4;
    faults[11].h.op = 200;
    /* Layout descriptors follow the header: u64 words. */
    uint64_t descriptors[6][4] = {
        {9},                          /* 9 levels */
        {2, 8, 2},                    /* needs 6 words, has 2 */
        {1, 8, 0, 16},                /* count[1] = 0 */
        {1, 8, 2, (uint64_t)1 << 40}, /* stride reaches past the heap */
        {0},                          /* (contiguous accumulate) */
        {1, 8, (uint64_t)1 << 45, 0}, /* one piece of 8 bytes at a huge offset */
    };
    for (int i = 12; i < 18; i++) {
        faults[i].h.layout = PG_DS_STRIDED;
        faults[i].h.type = PG_DS_GET;
        faults[i].h.length = 8;
    }
    faults[16].h.layout = PG_DS_CONTIG;
    faults[16].h.type = PG_DS_ACC;
    faults[16].h.op = PG_ACC_DOUBLE;
    faults[16].h.length = 3;
    faults[17].h.layout = PG_DS_VECTOR;
    /* PE 0 has sent the target's node a few ordered requests (the barrier's), far fewer than
     * 2^14, so number 0xc000 lies behind its stream: refused, the guard keeps its value. */
    faults[18].h.type = PG_DS_AMO;
    faults[18].h.op = PG_AMO_SET;
    faults[18].h.width = 8;
    faults[18].h.length = 8;
    faults[18].h.operand = 0x77;
    faults[18].h.flags = PG_DS_ORDERED;
    faults[18].h.order = 0xc000;
    faults[19].h.type = PG_DS_CLOSE;

    /* Records: a valid one that would overwrite guard[0], then the faulty one. */
    enum { FIRST_RECORDS = 20 };
    struct pg_ds_record good = {
        .offset = guard_off, .target = (uint32_t)target, .length = 8, .segment = (uint8_t)heap};
    struct pg_ds_record records[7][2] = {{good, good}, {good},       {good}, {good},
                                         {good},       {good, good}, {good}};
    records[0][1].offset = (uint64_t)1 << 50;
    records[1][0].length = 0;
    records[2][0].length = 64;
    records[3][0].segment = 9;
    records[4][0].target = (uint32_t)npes + 3;
    records[5][1].target = 0;
    for (int i = FIRST_RECORDS; i < nfaults_of(faults); i++) {
        faults[i].h.layout = PG_DS_RECORDS;
        faults[i].h.length = faults[i].len - sizeof ok;
    }
    faults[FIRST_RECORDS + 6].h.type = PG_DS_GET;
    faults[FIRST_RECORDS + 6].h.length = 8;

    int nfaults = nfaults_of(faults), answered = 0;
    for (int i = 0; i < nfaults; i++) {
        char message[sizeof(struct pg_ds_header) + 64] = {0};
        faults[i].h.seq = PG_DS_PROBE | (uint64_t)i;
        memcpy(message, &faults[i].h, sizeof faults[i].h);
        if (i >= 12 && i < 18)
            memcpy(message + sizeof faults[i].h, descriptors[i - 12], sizeof descriptors[0]);
        if (i >= FIRST_RECORDS) {
            /* Each record's 8 bytes of data follow it; the second record starts 24 bytes on. */
            const uint64_t data = 0x7777777777777777ull;
            char *at = message + sizeof faults[i].h;
            memcpy(at, &records[i - FIRST_RECORDS][0], sizeof good);
            memcpy(at + 16, &data, 8);
            memcpy(at + 24, &records[i - FIRST_RECORDS][1], sizeof good);
            memcpy(at + 40, &data, 8);
        }
        int status = pg_ds_validate((struct pg_ds_header *)message, faults[i].len, npes, NULL);
        CHECK(status == faults[i].status, "%s: validation says '%s', expected '%s'", faults[i].what,
              pg_ds_status_text(status), pg_ds_status_text(faults[i].status));
        if (me == 0 && pg_world.node_of[target] != pg_world.node) {
            pg_pipe_send_raw(pg_world.node_of[target], message, faults[i].len);
            answered += faults[i].answers;
        }
    }
    if (answered) {
        /* The server answers every NACK and keeps serving: a normal get still works. */
        for (int tries = 0; pg_pipe_probes_rejected() < (unsigned long)answered && tries < 1000000;
             tries++)
            ;
        CHECK(pg_pipe_probes_rejected() == (unsigned long)answered,
              "%lu rejections came back, expected %d", pg_pipe_probes_rejected(), answered);
        long copy[GUARD_LONGS];
        shmem_long_get(copy, guard, GUARD_LONGS, target);
        for (int i = 0; i < GUARD_LONGS; i++)
            CHECK(copy[i] == 0x5a5a0000L + i, "target memory changed at [%d]: %#lx", i, copy[i]);
    }
    shmem_barrier_all();
    for (int i = 0; i < GUARD_LONGS; i++)
        CHECK(guard[i] == 0x5a5a0000L + i, "my memory changed at [%d]: %#lx", i, guard[i]);
    shmem_free(guard);
    return check_finish();
}
