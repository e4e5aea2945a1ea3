#!/bin/bash
# Broadcast between emulated nodes, multicast against the tree (issue 27, item 4): perf/mcast_bench
# (bytes all nodes' links transmitted per broadcast, and latency) for 8 B, 64 KiB and 4 MiB from
# PE 0 to NODES emulated nodes x 1 PE, each node count run with PANGEA_MCAST=on, PANGEA_MCAST=off
# (the point-to-point tree) and Open MPI's OSHMEM (UCX over TCP on the same links; skipped
# without oshcc, and above 8 nodes: there its 8 B broadcasts alone outlast the 300 s limit on 2
# cores), in that order, ROUNDS times.
#   perf/mcast-bench.sh [BUILD_DIR] [ROUNDS] [NODES...] > perf/results/mcast-bench-DATE.txt
# With MCAST_WINDOWS="16 32 ..." it runs multicast only, once per PANGEA_MCAST_WINDOW given.
# With MCAST_DATAGRAMS="0 8972 ..." it runs multicast once per PANGEA_MCAST_DATAGRAM given
# (0: the provider's), then the tree and OSHMEM. MCAST_MTU=N gives every node's link that MTU
# (netns-run.sh --mtu), for every implementation alike. MCAST_OSHMEM=0 leaves OSHMEM out.
# MCAST_SIZES="8 1K ..." broadcasts those sizes instead of 8 B, 64 KiB and 4 MiB. Multicast
# runs take it for every size (PANGEA_MCAST_MIN_SIZE=0): the sweep is what sets that tunable.
# Needs root (namespaces) and a built tree (make all bench). Default nodes: 2 4 8 16.
set -u
BUILD=${1:-build}
ROUNDS=${2:-1}
shift $(($# < 2 ? $# : 2))
NODE_COUNTS=${*:-2 4 8 16}
. "$(dirname "${BASH_SOURCE[0]}")/bench-setup.sh"
bench_setup mcast_bench
trap 'rm -f "$OMPI_BENCH"' EXIT
export OMPI_MCA_hwloc_base_binding_policy=none

# run IMPL NODES: one mcast_bench run on NODES x 1 PE, its lines prefixed by what ran.
run() {
    local impl=$1 nodes=$2
    case $impl in
    multicast-d*)
        env PANGEA_MCAST_DATAGRAM="${impl#multicast-d}" PANGEA_MCAST=on PANGEA_MCAST_MIN_SIZE=0 SHMEM_INFO=1 NETNS_TIMEOUT=300 \
            "$RUN" "${mtu[@]}" "$nodes" 1 -- "$BUILD/perf/mcast_bench" $sizes ;;
    multicast*)
        local window=${impl#multicast}
        env ${window:+PANGEA_MCAST_WINDOW=${window#-}} PANGEA_MCAST=on PANGEA_MCAST_MIN_SIZE=0 SHMEM_INFO=1 NETNS_TIMEOUT=300 \
            "$RUN" "${mtu[@]}" "$nodes" 1 -- "$BUILD/perf/mcast_bench" $sizes ;;
    tree) PANGEA_MCAST=off NETNS_TIMEOUT=300 "$RUN" "${mtu[@]}" "$nodes" 1 -- "$BUILD/perf/mcast_bench" $sizes ;;
    oshmem) UCX_TLS=tcp,self NETNS_TIMEOUT=300 "$RUN" -o "${mtu[@]}" "$nodes" 1 -- "$OMPI_BENCH" $sizes ;;
    esac 2>&1 | grep -E '^ *[0-9]+ +[0-9]+ +([0-9]|n/a)|retransmitted|fall back|TIMEOUT|rror' |
        sed "s/^/$(printf '%-12s %2d  ' "$impl" "$nodes")/"
}

mtu=()
sizes=${MCAST_SIZES:-}
[[ -n ${MCAST_MTU:-} ]] && mtu=(--mtu "$MCAST_MTU")
impls="multicast tree"
[[ -n ${MCAST_DATAGRAMS:-} ]] && impls="$(printf 'multicast-d%s ' $MCAST_DATAGRAMS)tree"
((have_oshmem)) && [[ ${MCAST_OSHMEM:-1} != 0 ]] && impls="$impls oshmem"
[[ -n ${MCAST_WINDOWS:-} ]] && impls=$(printf 'multicast-%s ' $MCAST_WINDOWS)
echo "# mcast-bench.sh: $(date -u '+%F %T') UTC, $(nproc) cores, $ROUNDS rounds, nodes: $NODE_COUNTS, MTU ${MCAST_MTU:-1500}, sizes ${MCAST_SIZES:-8 64K 4M}"
echo "# impl      nodes      bytes  iters  bytes/bcast     x size  median(us)  x (nodes-1)"
for round in $(seq "$ROUNDS"); do
    for nodes in $NODE_COUNTS; do
        echo "## round $round, $nodes nodes x 1 PE (load average $(cut -d' ' -f1-3 /proc/loadavg))"
        for impl in $impls; do
            [[ $impl == oshmem ]] && ((nodes > 8)) && continue
            run "$impl" "$nodes"
        done
    done
done
