/* Startup timing: what each phase of an init costs, reduced over the PEs once at the end. */
#include "runtime.h"

#include "startup/startup.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

static const char *const phase_names[PG_PHASE_COUNT] = {
#define PG_PHASE_NAME(id, name) name,
    PG_PHASES(PG_PHASE_NAME)
#undef PG_PHASE_NAME
};

static int timing;            /* inside a begin..report window */
static long long began, last; /* ns */
static long long spent[PG_PHASE_COUNT];
static unsigned char ran[PG_PHASE_COUNT];

uint64_t pg_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void pg_rtt_sample(struct pg_rtt *r, uint64_t sample)
{
    if (!r->srtt) {
        r->srtt = sample;
        r->rttvar = sample / 2;
        return;
    }
    uint64_t error = sample > r->srtt ? sample - r->srtt : r->srtt - sample;
    r->rttvar = (3 * r->rttvar + error) / 4;
    r->srtt = (7 * r->srtt + sample) / 8;
}

void pg_phases_begin(void)
{
    for (int p = 0; p < PG_PHASE_COUNT; p++) {
        spent[p] = 0;
        ran[p] = 0;
    }
    began = last = (long long)pg_now_ns();
    timing = 1;
}

void pg_phase_end(enum pg_phase phase)
{
    if (!timing)
        return;
    long long now = (long long)pg_now_ns();
    spent[phase] += now - last;
    ran[phase] = 1;
    last = now;
}

static struct pg_boot_stat stat_of(long long ns)
{
    double ms = (double)ns / 1e6;
    return (struct pg_boot_stat){ms, ms, ms, 1};
}

void pg_phases_report(const char *call)
{
    if (!timing)
        return;
    timing = 0;
    if (!pg_cfg.startup_timing && !pg_cfg.info)
        return;
    /* The phases, then the total. */
    struct pg_boot_stat stat[PG_PHASE_COUNT + 1];
    for (int p = 0; p < PG_PHASE_COUNT; p++)
        stat[p] = ran[p] ? stat_of(spent[p]) : (struct pg_boot_stat){INFINITY, -INFINITY, 0, 0};
    stat[PG_PHASE_COUNT] = stat_of((long long)pg_now_ns() - began);
    pg_boot_reduce_stats(stat, PG_PHASE_COUNT + 1);
    if (pg_world.me != 0)
        return;
    fprintf(stderr, "pangea: startup of %s on %d PEs, %d node%s: ms over the PEs that ran each:\n",
            call, pg_world.npes, pg_world.nnodes, pg_world.nnodes > 1 ? "s" : "");
    fprintf(stderr, "pangea: startup: %9s %9s %9s %5s  %s\n", "min", "mean", "max", "PEs", "phase");
    for (int p = 0; p <= PG_PHASE_COUNT; p++) {
        if (stat[p].count == 0)
            continue;
        fprintf(stderr, "pangea: startup: %9.3f %9.3f %9.3f %5.0f  %s\n", stat[p].min,
                stat[p].sum / stat[p].count, stat[p].max, stat[p].count,
                p < PG_PHASE_COUNT ? phase_names[p] : "total");
    }
}
