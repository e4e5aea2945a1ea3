#!/usr/bin/env bash
# Small-message latency over one rail and over two (docs/reliability.md, "Rails";
# perf/README.md): across 2 emulated nodes with two links each (1 PE a node),
# PANGEA_RAILS=pgeth1 and PANGEA_RAILS=pgeth1,pgeth0 alternating, ROUNDS pairs in one run:
# shmem_bench -s -q -m 8 (8-byte put+quiet, get, fetch-add) and wait_bench -t pingpong -s 2
# (a wait_until ping-pong). As root, after `make bench`:
#
#   perf/rails-latency.sh [BUILD_DIR [ROUNDS]]     # defaults: build, 3
#
# Prints per run the medians in us, then each side's median over its runs.
set -u
build=${1:-build}
rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
for prog in shmem_bench wait_bench; do
    [ -x "$build/perf/$prog" ] || { echo "rails-latency.sh: $build/perf/$prog missing (make bench)" >&2; exit 1; }
done
results=$(mktemp /tmp/pangea-rails-latency.XXXXXX)
trap 'rm -f "$results"' EXIT

# on RAILS PROG ARGS...: one run across the 2 nodes, its output on stdout.
on() {
    PANGEA_RAILS=$1 NETNS_TIMEOUT=120 "$here/../tests/netns/netns-run.sh" --rails 2 2 1 -- \
        "$build/perf/$2" "${@:3}" 2>&1 </dev/null
}

# run RAILS: appends "RAILS put get fetch-add ping-pong" to $results.
run() {
    local bench ping
    bench=$(on "$1" shmem_bench -s -q -m 8)
    grep -q "verification: ok" <<<"$bench" || { echo "shmem_bench with PANGEA_RAILS=$1 failed:"; \
        echo "$bench" | tail -5; return 1; }
    ping=$(on "$1" wait_bench -t pingpong -s 2)
    grep -q "ping-pong" <<<"$ping" || { echo "wait_bench with PANGEA_RAILS=$1 failed:"; \
        echo "$ping" | tail -5; return 1; }
    printf '%s\n%s\n' "$bench" "$ping" | awk -v rails="$1" '
        $1 == 8 && NF == 7 { put = $2; get = $3 }
        /^shmem_long_atomic_fetch_add/ { fadd = $2 }
        /ping-pong/ { for (i = 1; i < NF; i++) if ($(i + 1) == "us") { ping = $i; break } }
        END { printf "%s %s %s %s %s\n", rails, put, get, fadd, ping }
    ' | tee -a "$results"
}

echo "# PANGEA_RAILS put+quiet get fetch-add wait_until-ping-pong (us, 8 B, medians)"
for ((r = 0; r < rounds; r++)); do
    if ((r % 2)); then run pgeth1,pgeth0 && run pgeth1; else run pgeth1 && run pgeth1,pgeth0; fi ||
        exit 1
done
echo "# medians over the runs"
for rails in pgeth1 pgeth1,pgeth0; do
    line=$rails
    for col in 2 3 4 5; do
        values=$(awk -v r="$rails" -v c="$col" '$1 == r { print $c }' "$results" | sort -g)
        n=$(wc -l <<<"$values")
        line+=" $(awk -v n="$n" '{ v[NR] = $1 } END { print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }' <<<"$values")"
    done
    echo "$line"
done
