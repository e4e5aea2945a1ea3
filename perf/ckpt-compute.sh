#!/usr/bin/env bash
# The computation beside a checkpoint's flush, next to the same beside dd (perf/README.md,
# "Computation beside the flush and beside dd"): ckpt_bench with 2 PEs (every vCPU computing)
# and 1 PE with its kernel bound to one vCPU (-p: a core left for the I/O), alternating, RUNS
# times each, so that the machine's load falls on all alike. After `make bench`:
#
#   perf/ckpt-compute.sh [BUILD_DIR [DIR [RUNS [ROUNDS [SIZES]]]]]
#   # defaults: build, BUILD_DIR/ckpt-bench (a directory on the file system to measure), 2, 5,
#   # 64M,256M,1G
#
# Prefix the runs with CKPT_RUN_PREFIX (e.g. "nice -n 19 ionice -c3" on a shared machine).
# Prints every run's rounds, then each run's medians (the `med` lines) by shape.
set -u
build=${1:-build}
dir=${2:-$build/ckpt-bench}
runs=${3:-2}
rounds=${4:-5}
sizes=${5:-64M,256M,1G}
bench=$build/perf/ckpt_bench
[ -x "$bench" ] || { echo "ckpt-compute.sh: $bench missing (make bench)" >&2; exit 1; }
mkdir -p "$dir" || exit 1
largest=$(tr ',' '\n' <<<"$sizes" | numfmt --from=iec | sort -n | tail -1)
summary=$(mktemp /tmp/pangea-ckpt-compute.XXXXXX)
trap 'rm -f "$summary"' EXIT

# run PES [-p]: one benchmark run (the heap holds the largest size / PES and a margin).
run() {
    local pes=$1 label="$1 PE(s)${2:+, kernel bound (-p)}" out
    echo "## $label, $(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
    out=$(SHMEM_SYMMETRIC_SIZE=$((largest / pes + (64 << 20))) ${CKPT_RUN_PREFIX:-} \
        "$build/bin/oshrun" -np "$pes" "$bench" -d "$dir" -s "$sizes" -r "$rounds" ${2:-} 2>&1)
    echo "$out"
    awk -v label="$label" '$2 == "med" { print label ":" $0 }' <<<"$out" >>"$summary"
}

for ((k = 0; k < runs; k++)); do
    if ((k % 2)); then run 1 -p && run 2; else run 2 && run 1 -p; fi || exit 1
done
echo "## medians of each run: job bytes, med, memcpy ms, block ms, x, flush MB/s, dd MB/s," \
    "ddD MB/s, %dd, compute+ beside the flush, dd oflag=direct, dd"
sort -s -t: -k1,1 "$summary"
