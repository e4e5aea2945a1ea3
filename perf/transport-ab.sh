#!/bin/sh
# ofi against mpi transport builds on 2 emulated nodes x 1 PE, variants alternated in each round.
# Usage (root, after make bench in each build):
#   perf/transport-ab.sh ROUNDS LABEL:BUILD_DIR:TRANSPORT[:VAR=VALUE,...] ...  (BUILD_DIR: absolute
#   or under the repository)
#   e.g. perf/transport-ab.sh 3 ofi:build-main:ofi mpi-main:build-main:mpi mpi-new:build:mpi \
#        mpi-256K:build:mpi:PANGEA_PIPELINE_BUFFER_SIZE=256K
# One line per run: 8-byte put+quiet / get / fetch-add medians (us), put/get bandwidth at 1 MiB
# and 4 MiB (MB/s), and the load average before the run. UCX_TLS=tcp,self so that MPICH's UCX
# crosses the emulated network over TCP as libfabric does; the job may then hang in
# MPI_Finalize (tests/netns/README.md), so NETNS_TIMEOUT is short and the figures are read from
# what was printed. BENCH_MAX=8 runs the 8-byte latencies alone (shmem_bench -m), a few seconds a
# run.
set -u
rounds=$1
shift
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
field() { # size column: 2 put+quiet, 3 get, 4 put BW, 5 get BW
    awk -v s="$1" -v c="$2" '$1 == s && NF >= 6 { print $c; exit }' "$out"
}
for r in $(seq 1 "$rounds"); do
    echo "## round $r $(date -u +%H:%M) load $(cut -d' ' -f1 /proc/loadavg)"
    for variant in "$@"; do
        label=${variant%%:*}
        rest=${variant#*:}
        build=${rest%%:*}
        rest=${rest#*:}
        transport=${rest%%:*}
        settings=
        [ "$rest" = "$transport" ] || settings=$(echo "${rest#*:}" | tr ',' ' ')
        case $build in /*) ;; *) build=$here/$build ;; esac
        load=$(cut -d' ' -f1 /proc/loadavg)
        # shellcheck disable=SC2086 # settings: VAR=VALUE words
        env $settings UCX_TLS=tcp,self PANGEA_TRANSPORT=$transport \
            NETNS_TIMEOUT=${NETNS_TIMEOUT:-120} \
            "$here/tests/netns/netns-run.sh" 2x1 -- "$build/perf/shmem_bench" -s -q -m "${BENCH_MAX:-4M}" \
            >"$out" 2>&1
        fadd=$(awk '/^shmem_long_atomic_fetch_add/ { print $2; exit }' "$out")
        printf '%-10s put8 %9s get8 %9s fadd %9s | put1M %8s get1M %8s put4M %8s get4M %8s load %s\n' \
            "$label" "$(field 8 2)" "$(field 8 3)" "$fadd" "$(field 1048576 4)" \
            "$(field 1048576 5)" "$(field 4194304 4)" "$(field 4194304 5)" "$load"
        grep -q '^# verification: ok' "$out" || echo "   ($label: no verification line)"
    done
done
