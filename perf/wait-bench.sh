#!/bin/bash
# Waiting, A/B: perf/wait_bench (barrier, wait_until ping-pong, Synch_p2p-style pipeline) with
# Pangea's sleeping waits (PANGEA_WAIT=sleep), Pangea's spinning waits (PANGEA_WAIT=spin) and
# Open MPI's OSHMEM, in alternating rounds; idle and with one CPU-bound process per core;
# 2 and 8 PEs on one node, and 2 emulated nodes x 1 and x 4 PEs (network namespaces, root).
#   perf/wait-bench.sh [BUILD_DIR] [ROUNDS] [SECONDS_PER_TEST] > perf/results/wait-bench-DATE.txt
# Needs a built tree (make all bench) and, for the OSHMEM lines, Open MPI's oshcc with its
# headers (tools/install-deps.sh all); without them those lines are skipped.
set -u
BUILD=${1:-build}
ROUNDS=${2:-3}
SECONDS_PER_TEST=${3:-0.3}
. "$(dirname "${BASH_SOURCE[0]}")/bench-setup.sh"
bench_setup wait_bench
export OMPI_MCA_hwloc_base_binding_policy=none
hogs=()
start_hogs() {
    for _ in $(seq "$(nproc)"); do
        (while :; do :; done) &
        hogs+=($!)
    done
}
stop_hogs() {
    for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
    wait "${hogs[@]}" 2>/dev/null
    hogs=()
}
trap 'stop_hogs; rm -f "$OMPI_BENCH"' EXIT

# run IMPL NODES PES: one wait_bench run, its lines prefixed by what ran.
run() {
    local impl=$1 nodes=$2 pes=$3 np=$(($2 * $3)) tag="$1 ${2}x$3"
    local args=(-s "$SECONDS_PER_TEST")
    case "$impl:$nodes" in
    sleep:1 | spin:1)
        PANGEA_WAIT=$impl timeout 120 "$BUILD/bin/oshrun" -np "$np" "$BUILD/perf/wait_bench" "${args[@]}" ;;
    sleep:* | spin:*)
        PANGEA_WAIT=$impl NETNS_TIMEOUT=120 "$RUN" "$nodes" "$pes" -- "$BUILD/perf/wait_bench" "${args[@]}" ;;
    oshmem:1)
        timeout 120 oshrun --allow-run-as-root --oversubscribe --mca osc ^rdma -np "$np" "$OMPI_BENCH" "${args[@]}" ;;
    oshmem:*)
        UCX_TLS=tcp,self NETNS_TIMEOUT=120 "$RUN" -o "$nodes" "$pes" -- "$OMPI_BENCH" "${args[@]}" ;;
    esac 2>&1 | grep -E '^(barrier|wait_until|pipeline)' | sed "s/^/$tag  /"
}

impls="sleep spin"
((have_oshmem)) && impls="$impls oshmem"
echo "# wait-bench.sh: $(date -u '+%F %T') UTC, $(nproc) cores, $ROUNDS rounds, ${SECONDS_PER_TEST} s per test"
for round in $(seq "$ROUNDS"); do
    for load in idle loaded; do
        [[ $load == loaded ]] && start_hogs
        echo "## round $round, $load (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        for shape in "1 2" "1 8" "2 1" "2 4"; do
            for impl in $impls; do
                run "$impl" $shape
            done
        done
        stop_hogs
    done
done
