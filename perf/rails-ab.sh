#!/usr/bin/env bash
# One rail against two (docs/reliability.md, "Rails"; perf/README.md): shmem_bench -s -q -m 4M
# across 2 emulated nodes with two links each (1 PE a node), PANGEA_RAILS=pgeth1 and
# PANGEA_RAILS=pgeth1,pgeth0 alternating, ROUNDS pairs in one run, so that the load of the
# machine falls on both alike. As root, after `make bench`:
#
#   perf/rails-ab.sh [BUILD_DIR [ROUNDS]]     # defaults: build, 4
#
# Prints per run the 1 MiB and 4 MiB put and get bandwidths (MB/s) and how many times a rail was
# taken out (SHMEM_INFO's counts at finalize, every endpoint of both nodes summed: 0 unless a
# link fails), then each side's medians.
set -u
build=${1:-build}
rounds=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/perf/shmem_bench
[ -x "$bench" ] || { echo "rails-ab.sh: $bench missing (make bench)" >&2; exit 1; }
results=$(mktemp /tmp/pangea-rails-ab.XXXXXX)
trap 'rm -f "$results"' EXIT

# run RAILS: one benchmark run; appends "RAILS put1M get1M put4M get4M outs" to $results.
run() {
    local out
    out=$(SHMEM_INFO=1 PANGEA_RAILS=$1 NETNS_TIMEOUT=180 "$here/../tests/netns/netns-run.sh" --rails 2 2 1 -- \
        "$bench" -s -q -m 4M 2>&1 </dev/null)
    grep -q "verification: ok" <<<"$out" || { echo "run with PANGEA_RAILS=$1 failed:"; \
        echo "$out" | tail -5; return 1; }
    awk -v rails="$1" '
        $1 == 1048576 && NF == 7 { p1 = $4; g1 = $5 }
        $1 == 4194304 && NF == 7 { p4 = $4; g4 = $5 }
        / rail .*taken out [0-9]+ times/ { for (i = 1; i < NF; i++) if ($i == "out") outs += $(i + 1) }
        END { printf "%s %s %s %s %s %d\n", rails, p1, g1, p4, g4, outs }
    ' <<<"$out" | tee -a "$results"
}

echo "# PANGEA_RAILS put1M get1M put4M get4M (MB/s) rails-taken-out"
for ((r = 0; r < rounds; r++)); do
    if ((r % 2)); then run pgeth1,pgeth0 && run pgeth1; else run pgeth1 && run pgeth1,pgeth0; fi ||
        exit 1
done
echo "# medians"
for rails in pgeth1 pgeth1,pgeth0; do
    line=$rails
    for col in 2 3 4 5; do
        values=$(awk -v r="$rails" -v c="$col" '$1 == r { print $c }' "$results" | sort -g)
        n=$(wc -l <<<"$values")
        line+=" $(awk -v n="$n" '{ v[NR] = $1 } END { print n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }' <<<"$values")"
    done
    echo "$line"
done
echo "# rails taken out over all runs"
awk '{ outs[$1] += $6 } END { for (r in outs) print r, outs[r] }' "$results" | sort
