#!/bin/bash
# The hand-off across 2 emulated nodes, A/B: perf/wait_bench (barrier, wait_until ping-pong)
# built against two Pangea libraries, and Open MPI's OSHMEM, in alternating rounds (A, B,
# OSHMEM, then B, A, OSHMEM, ...) so that a load that comes and goes hits each alike.
#   [SHAPES="2x1 2x2"] [HOGS=1] [TESTS=aftercompute] perf/wait-handoff-ab.sh BUILD_A BUILD_B [ROUNDS] [SECONDS_PER_TEST]
#       > perf/results/X.txt
# Each BUILD is a built tree (make lib, then make BUILD/perf/wait_bench in it); extra settings
# for both go in the environment (PANGEA_*). SHAPES: nodes x PEs per node, each round runs
# every shape (default 2x1). HOGS=1: one CPU-bound process per core, at this script's own
# priority, for the whole run. TESTS: wait_bench's -t (default barrier,pingpong). Summarise with medians and minimums over the rounds: on a
# shared machine one round says little.
set -u
A=$1 B=$2 ROUNDS=${3:-5} SECONDS_PER_TEST=${4:-0.5}
SHAPES=${SHAPES:-2x1}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN="$(dirname "$HERE")/tests/netns/netns-run.sh"
for b in "$A" "$B"; do
    [[ -x $b/perf/wait_bench ]] || { echo "wait-handoff-ab.sh: no $b/perf/wait_bench" >&2; exit 2; }
done
OMPI_BENCH=/tmp/wait_handoff_ompi.$$
hogs=()
trap 'rm -f "$OMPI_BENCH"; ((${#hogs[@]})) && kill "${hogs[@]}" 2>/dev/null' EXIT
if [[ ${HOGS:-0} == 1 ]]; then
    for _ in $(seq "$(nproc)"); do
        (while :; do :; done) &
        hogs+=($!)
    done
fi
oshcc -O3 -o "$OMPI_BENCH" "$HERE/wait_bench.c" 2>/dev/null || OMPI_BENCH=
export OMPI_MCA_hwloc_base_binding_policy=none
args=(-t "${TESTS:-barrier,pingpong}" -s "$SECONDS_PER_TEST")
run() {
    local tag=$1 nodes=${2%x*} per=${2#*x}
    case $tag in
    A) NETNS_TIMEOUT=120 "$RUN" "$nodes" "$per" -- "$A/perf/wait_bench" "${args[@]}" ;;
    B) NETNS_TIMEOUT=120 "$RUN" "$nodes" "$per" -- "$B/perf/wait_bench" "${args[@]}" ;;
    oshmem) UCX_TLS=tcp,self NETNS_TIMEOUT=120 "$RUN" -o "$nodes" "$per" -- "$OMPI_BENCH" "${args[@]}" ;;
    esac 2>&1 | grep -E '^(barrier|wait_until)' | sed "s/^/$tag $2  /"
}
echo "# wait-handoff-ab.sh: $(date -u '+%F %T') UTC, $(nproc) cores, $ROUNDS rounds, ${SECONDS_PER_TEST} s per test, shapes $SHAPES, tests ${TESTS:-barrier,pingpong}, ${#hogs[@]} CPU hogs"
echo "# A = $A, B = $B"
for round in $(seq "$ROUNDS"); do
    echo "## round $round (load average $(cut -d' ' -f1-3 /proc/loadavg))"
    order="A B"
    ((round % 2 == 0)) && order="B A"
    [[ -n $OMPI_BENCH ]] && order="$order oshmem"
    for shape in $SHAPES; do
        for tag in $order; do
            run "$tag" "$shape"
        done
    done
done
