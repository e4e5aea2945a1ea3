/* What a profiled test program (PANGEA_PROFILE, docs/profile.md) expects in its profile: it
 * notes every operation and wait it makes, then writes DIR/expect-<PE>.csv before it
 * finalizes, for tests/prof/check.sh to compare with DIR/pe-<PE>.csv:
 *   host,NAME                         this PE's host (its row of topology.csv)
 *   op,KIND,TARGET,COUNT,BYTES        the op rows, all of them (unless "ops,any")
 *   coll,NAME,TARGET,COUNT,BYTES      the rows of collective NAME, all of them
 *   wait,NAME,COUNT                   the count of a wait row (its time must be > 0 if COUNT is) */
#ifndef PANGEA_TESTS_PROFILE_EXPECT_H
#define PANGEA_TESTS_PROFILE_EXPECT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#define PROF_MAX_PES 64
enum prof_op { PROF_PUT, PROF_GET, PROF_AMO, PROF_ACC, PROF_SIGNAL, PROF_OPS };
enum prof_wait { PROF_QUIET, PROF_SYNC, PROF_WAIT_UNTIL, PROF_LOCK, PROF_WAITS };
static const char *const prof_op_name[PROF_OPS] = {"put", "get", "amo", "acc", "signal"};
static const char *const prof_wait_name[PROF_WAITS] = {"quiet", "sync", "wait_until", "lock"};

static uint64_t prof_ops[PROF_OPS][PROF_MAX_PES][2];
static uint64_t prof_waits[PROF_WAITS];
static char prof_colls[4096];
static int prof_any_ops;

static inline void prof_expect_op(enum prof_op kind, int pe, uint64_t bytes)
{
    prof_ops[kind][pe][0]++;
    prof_ops[kind][pe][1] += bytes;
}

static inline void prof_expect_wait(enum prof_wait kind)
{
    prof_waits[kind]++;
}

static inline void prof_expect_coll(const char *name, int pe, uint64_t count, uint64_t bytes)
{
    size_t at = strlen(prof_colls);
    snprintf(prof_colls + at, sizeof prof_colls - at, "coll,%s,%d,%llu,%llu\n", name, pe,
             (unsigned long long)count, (unsigned long long)bytes);
}

/* Writes DIR/expect-<me>.csv; 0, or -1 with a message. */
static inline int prof_expect_write(int me, int npes)
{
    const char *dir = getenv("PANGEA_PROFILE");
    char path[4096];
    struct utsname host;
    if (!dir)
        return fprintf(stderr, "PE %d: PANGEA_PROFILE is not set\n", me), -1;
    snprintf(path, sizeof path, "%s/expect-%d.csv", dir, me);
    FILE *f = fopen(path, "w");
    if (!f)
        return fprintf(stderr, "PE %d: cannot write %s\n", me, path), -1;
    fprintf(f, "host,%s\n", uname(&host) == 0 ? host.nodename : "");
    if (prof_any_ops)
        fprintf(f, "ops,any\n");
    for (int k = 0; k < PROF_OPS; k++)
        for (int pe = 0; pe < npes; pe++)
            if (prof_ops[k][pe][0])
                fprintf(f, "op,%s,%d,%llu,%llu\n", prof_op_name[k], pe,
                        (unsigned long long)prof_ops[k][pe][0],
                        (unsigned long long)prof_ops[k][pe][1]);
    fputs(prof_colls, f);
    for (int w = 0; w < PROF_WAITS; w++)
        fprintf(f, "wait,%s,%llu\n", prof_wait_name[w], (unsigned long long)prof_waits[w]);
    return fclose(f) == 0 ? 0 : -1;
}

#endif
