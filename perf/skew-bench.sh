#!/bin/bash
# Process skew (issue 27, item 4): perf/skew_bench — with one PE late by D (0, 1, 10 ms), the
# time the on-time PEs spend in barrier and in a broadcast from an on-time root, the late PE a
# leaf and a forwarding PE — on 1 node x 8 PEs and on 2 x 2 and 4 x 2 emulated nodes, ROUNDS
# times in turn. SKEW_VARIANTS="A B ..." runs each shape once per variant in turn, a variant
# being environment assignments joined by commas ("-" for none), e.g.
# SKEW_VARIANTS="PANGEA_COLL_FLAT_NODE=0 -" for the binomial tree on the node against the
# default. SKEW_SHAPES="2x2 4x2" runs only those shapes.
#   perf/skew-bench.sh [BUILD_DIR] [ROUNDS] [SKEW_BENCH_ARGS...] > perf/results/skew-bench-DATE.txt
# Needs root (namespaces) for the emulated nodes and a built tree (make all bench).
set -u
BUILD=${1:-build}
ROUNDS=${2:-1}
shift $(($# < 2 ? $# : 2))
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 1
[[ -x $BUILD/perf/skew_bench ]] || { echo "skew_bench: build first (make all bench)" >&2; exit 2; }
for round in $(seq "$ROUNDS"); do
    for shape in ${SKEW_SHAPES:-1x8 2x2 4x2}; do
        for variant in ${SKEW_VARIANTS:--}; do
            echo "== round $round, $shape, $variant"
            vars=()
            [ "$variant" = - ] || IFS=, read -ra vars <<<"$variant"
            if [ "$shape" = 1x8 ]; then
                env "${vars[@]}" timeout 300 "$BUILD/bin/oshrun" -np 8 "$BUILD/perf/skew_bench" "$@"
            else
                env "${vars[@]}" NETNS_TIMEOUT=300 tests/netns/netns-run.sh "$shape" -- \
                    "$BUILD/perf/skew_bench" "$@"
            fi
        done
    done
done
