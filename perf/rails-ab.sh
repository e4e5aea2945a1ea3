#!/usr/bin/env bash
# One rail against two (docs/reliability.md, "Rails"; perf/README.md) across 2 emulated nodes
# with two links each (1 PE a node), PANGEA_RAILS=pgeth1 and PANGEA_RAILS=pgeth1,pgeth0
# alternating, ROUNDS pairs in one run, so that the load of the machine falls on both alike.
# As root, after `make bench`:
#
#   perf/rails-ab.sh [-l] [BUILD_DIR [ROUNDS]]     # defaults: build, 4
#
# Bandwidth (default): shmem_bench -s -q -m 4M; prints per run the 1 MiB and 4 MiB put and get
# bandwidths (MB/s) and how many times a rail was taken out (SHMEM_INFO's counts at finalize,
# every endpoint of both nodes summed: 0 unless a link fails).
# Latency (-l): shmem_bench -s -q -m 8 and wait_bench -t pingpong -s 2; prints per run the
# 8-byte put+quiet, get and fetch-add medians and the wait_until ping-pong's (us).
# Then each side's medians over its runs.
set -u
latency=0
if [ "${1:-}" = -l ]; then
    latency=1
    shift
fi
build=${1:-build}
rounds=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
for prog in shmem_bench wait_bench; do
    [ -x "$build/perf/$prog" ] || { echo "rails-ab.sh: $build/perf/$prog missing (make bench)" >&2; exit 1; }
done
results=$(mktemp /tmp/pangea-rails-ab.XXXXXX)
trap 'rm -f "$results"' EXIT

# on RAILS PROG ARGS...: one run across the 2 nodes, its output on stdout.
on() {
    SHMEM_INFO=1 PANGEA_RAILS=$1 NETNS_TIMEOUT=180 "$here/../tests/netns/netns-run.sh" --rails 2 \
        2 1 -- "$build/perf/$2" "${@:3}" 2>&1 </dev/null
}

# failed RAILS WHAT OUTPUT: says that the run failed, with the end of its output.
failed() {
    echo "$2 with PANGEA_RAILS=$1 failed:"
    echo "$3" | tail -5
    return 1
}

# bandwidth RAILS: appends "RAILS put1M get1M put4M get4M outs" to $results.
bandwidth() {
    local out
    out=$(on "$1" shmem_bench -s -q -m 4M)
    grep -q "verification: ok" <<<"$out" || { failed "$1" shmem_bench "$out"; return 1; }
    awk -v rails="$1" '
        $1 == 1048576 && NF == 7 { p1 = $4; g1 = $5 }
        $1 == 4194304 && NF == 7 { p4 = $4; g4 = $5 }
        / rail .*taken out [0-9]+ times/ { for (i = 1; i < NF; i++) if ($i == "out") outs += $(i + 1) }
        END { printf "%s %s %s %s %s %d\n", rails, p1, g1, p4, g4, outs }
    ' <<<"$out" | tee -a "$results"
}

# latency RAILS: appends "RAILS put get fetch-add ping-pong" to $results.
latency() {
    local bench ping
    bench=$(on "$1" shmem_bench -s -q -m 8)
    grep -q "verification: ok" <<<"$bench" || { failed "$1" shmem_bench "$bench"; return 1; }
    ping=$(on "$1" wait_bench -t pingpong -s 2)
    grep -q "ping-pong" <<<"$ping" || { failed "$1" wait_bench "$ping"; return 1; }
    printf '%s\n%s\n' "$bench" "$ping" | awk -v rails="$1" '
        $1 == 8 && NF == 7 { put = $2; get = $3 }
        /^shmem_long_atomic_fetch_add/ { fadd = $2 }
        /ping-pong/ { for (i = 1; i < NF; i++) if ($(i + 1) == "us") { ping = $i; break } }
        END { printf "%s %s %s %s %s\n", rails, put, get, fadd, ping }
    ' | tee -a "$results"
}

if ((latency)); then
    run=latency
    echo "# PANGEA_RAILS put+quiet get fetch-add wait_until-ping-pong (us, 8 B, medians)"
else
    run=bandwidth
    echo "# PANGEA_RAILS put1M get1M put4M get4M (MB/s) rails-taken-out"
fi
for ((r = 0; r < rounds; r++)); do
    if ((r % 2)); then $run pgeth1,pgeth0 && $run pgeth1; else $run pgeth1 && $run pgeth1,pgeth0; fi ||
        exit 1
done
echo "# medians over the runs"
for rails in pgeth1 pgeth1,pgeth0; do
    line=$rails
    for col in 2 3 4 5; do
        values=$(awk -v r="$rails" -v c="$col" '$1 == r { print $c }' "$results" | sort -g)
        line+=" $(awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' <<<"$values")"
    done
    echo "$line"
done
if ! ((latency)); then
    echo "# rails taken out over all runs"
    awk '{ outs[$1] += $6 } END { for (r in outs) print r, outs[r] }' "$results" | sort
fi
