#!/usr/bin/env bash
# The pause at a rail failover (perf/failover_pause.c; perf/README.md): RUNS runs of each of
# its modes across 2 emulated nodes with two links each, pgeth1 (the first rail) taken down on
# node 1 half-way. As root, after make bench.
#
#   perf/failover-pause.sh [BUILD_DIR] [RUNS]
set -u
build=${1:-build} runs=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
for ((i = 0; i < runs; i++)); do
    for mode in amo put; do
        PANGEA_RAILS=pgeth1,pgeth0 NETNS_TIMEOUT=120 "$here/../tests/netns/netns-run.sh" \
            --rails 2 2x1 -- "$build/perf/failover_pause" "$mode" pgeth1 2>&1 |
            grep -E '^failover_pause|taken out|rror'
    done
done
