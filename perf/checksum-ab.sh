#!/usr/bin/env bash
# What end-to-end checksums cost (docs/reliability.md): shmem_bench -s -q across 2 emulated
# nodes (1 PE each), PANGEA_CHECKSUM=0 and =1 alternating, ROUNDS pairs in one run, so that
# the load of the machine falls on both alike. As root, after `make bench`:
#
#   perf/checksum-ab.sh [BUILD_DIR [ROUNDS]]     # defaults: build, 5
#
# Prints per run the 8-byte put+quiet and get latencies, the fetch-add latency and the 1 MiB
# put and get bandwidths, then the medians of each side and the differences (perf/README.md).
set -u
build=${1:-build}
rounds=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
bench=$build/perf/shmem_bench
[ -x "$bench" ] || { echo "checksum-ab.sh: $bench missing (make bench)" >&2; exit 1; }
results=$(mktemp /tmp/pangea-checksum-ab.XXXXXX)
trap 'rm -f "$results"' EXIT

# run SUM: one benchmark run; appends "SUM put8 get8 fadd putbw1M getbw1M" to $results.
run() {
    local out
    out=$(PANGEA_CHECKSUM=$1 NETNS_TIMEOUT=120 "$here/../tests/netns/netns-run.sh" 2 1 -- \
        "$bench" -s -q 2>&1 </dev/null)
    grep -q "verification: ok" <<<"$out" || { echo "run with PANGEA_CHECKSUM=$1 failed:"; \
        echo "$out" | tail -5; return 1; }
    awk -v sum="$1" '
        $1 == 8 && NF == 7 { put8 = $2; get8 = $3 }
        $1 == 1048576 && NF == 7 { putbw = $4; getbw = $5 }
        /^shmem_long_atomic_fetch_add/ { fadd = $2 }
        END { printf "%s %s %s %s %s %s\n", sum, put8, get8, fadd, putbw, getbw }
    ' <<<"$out" | tee -a "$results"
}

echo "# PANGEA_CHECKSUM put8+quiet(us) get8(us) fetch_add(us) put1M(MB/s) get1M(MB/s)"
for ((r = 0; r < rounds; r++)); do
    if ((r % 2)); then run 1 && run 0; else run 0 && run 1; fi || exit 1
done
awk '
    function median(side, col,    n, i, j, t, v) {
        n = 0
        for (i = 1; i <= rows; i++) if (s[i] == side) v[++n] = x[i, col]
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    { rows++; s[rows] = $1; for (c = 2; c <= 6; c++) x[rows, c] = $c }
    END {
        split("put8+quiet(us) get8(us) fetch_add(us) put1M(MB/s) get1M(MB/s)", name, " ")
        printf "# medians       %16s %16s %10s\n", "PANGEA_CHECKSUM=0", "PANGEA_CHECKSUM=1", "change"
        for (c = 2; c <= 6; c++) {
            a = median(0, c); b = median(1, c)
            change = c <= 4 ? sprintf("%+.2f us", b - a) : sprintf("%+.1f%%", 100 * (b - a) / a)
            printf "%-15s %16.3f %16.3f %10s\n", name[c - 1], a, b, change
        }
    }' "$results"
