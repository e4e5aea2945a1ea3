#!/usr/bin/env bash
# The profile's cost, two builds alternated (perf/README.md, "The profile's cost"): whole runs
# of each build's perf/prof_bench (which itself alternates counting off and on, round by
# round), the build that goes first alternating, so that both see the same load.
#
#   perf/prof-ab.sh BUILD_A BUILD_B PAIRS [NODES [PROF_BENCH ARGS...]]
#
# NODES 1 (the default): both PEs on this node, `oshrun -np 2` (the on-node put rate; default
# arguments -r 10 -n 2000000); NODES 2: one PE on each of 2 emulated nodes (tests/netns, root;
# the off-node put + quiet latency; default -r 16 -n 10000). Prints every run's two medians and
# cost, then per build the median over the runs of its off and on medians and of its cost
# (rate off / rate on - 1 for the rate, latency on / latency off - 1 for the latency), and the
# median over the pairs of B's on and off medians against A's.
set -u
if [ $# -lt 3 ]; then
    echo "usage: $0 BUILD_A BUILD_B PAIRS [NODES [PROF_BENCH ARGS...]]" >&2
    exit 2
fi
a=$1 b=$2 pairs=$3 nodes=${4:-1}
shift $(($# < 4 ? $# : 4))
here=$(cd "$(dirname "$0")/.." && pwd)
if [ "$nodes" = 1 ]; then
    [ $# -gt 0 ] || set -- -r 10 -n 2000000
else
    [ $# -gt 0 ] || set -- -r 16 -n 10000
fi
for build in "$a" "$b"; do
    [ -x "$build/perf/prof_bench" ] || {
        echo "$0: no $build/perf/prof_bench (make bench)" >&2
        exit 1
    }
done

# run LABEL BUILD ARGS...: one run; prints "LABEL rate_off rate_on lat_off lat_on".
run() {
    local label=$1 build=$2 out
    shift 2
    if [ "$nodes" = 1 ]; then
        out=$("$build/bin/oshrun" -np 2 "$build/perf/prof_bench" "$@" 2>&1)
    else
        out=$("$here/tests/netns/netns-run.sh" "$nodes" 1 -- "$build/perf/prof_bench" "$@" 2>&1)
    fi
    echo "$out" | awk -v label="$label" '$1 == "median" && $2 == "off" { roff = $3; loff = $4 }
        $1 == "median" && $2 == "on" { ron = $3; lon = $4 }
        END { if (roff == "" || ron == "") exit 1; print label, roff, ron, loff, lon }' ||
        echo "# $label: no medians: $(echo "$out" | tail -3 | tr '\n' ' ')"
}

raw=$(mktemp /tmp/prof-ab.XXXXXX) || exit 1
trap 'rm -f "$raw"' EXIT
echo "# prof-ab: A=$a B=$b pairs=$pairs nodes=$nodes args: $*"
echo "# build rate_off rate_on lat_off lat_on   (load: $(cut -d' ' -f1-3 /proc/loadavg))"
for ((p = 0; p < pairs; p++)); do
    if ((p % 2 == 0)); then
        run A "$a" "$@"
        run B "$b" "$@"
    else
        run B "$b" "$@"
        run A "$a" "$@"
    fi
    echo "# pair $p done (load: $(cut -d' ' -f1-3 /proc/loadavg))"
done | tee "$raw"
awk '
    BEGIN { pair = 0 }
    function median(v, n,    i, j, t) {
        for (i = 2; i <= n; i++)
            for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
        return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    /^#/ { if ($2 == "pair") { pair++ }; next }
    {
        n[$1]++; k = n[$1]
        roff[$1, k] = $2; ron[$1, k] = $3; loff[$1, k] = $4; lon[$1, k] = $5
        at[$1, pair] = k
    }
    END {
        for (s = 0; s < 2; s++) {
            b = s ? "B" : "A"
            if (!n[b]) continue
            for (k = 1; k <= n[b]; k++) {
                x[k] = roff[b, k]; y[k] = ron[b, k]; c[k] = roff[b, k] / ron[b, k] - 1
                u[k] = loff[b, k]; w[k] = lon[b, k]; l[k] = lon[b, k] / loff[b, k] - 1
            }
            m = n[b]
            printf "%s: %d runs; rate off %.2f on %.2f M/s, cost %+.1f%%; latency off %.3f on %.3f us, cost %+.1f%%\n",
                b, m, median(x, m), median(y, m), 100 * median(c, m), median(u, m), median(w, m), 100 * median(l, m)
        }
        q = 0
        for (p = 0; p < pair; p++)
            if ((("A", p) in at) && (("B", p) in at)) {
                q++; i = at["A", p]; j = at["B", p]
                off[q] = roff["B", j] / roff["A", i]; on[q] = ron["B", j] / ron["A", i]
                d[q] = (roff["B", j] / ron["B", j]) - (roff["A", i] / ron["A", i])
            }
        if (q)
            printf "B vs A over %d pairs (medians): rate off %.3f, rate on %.3f, cost minus A cost %+.1f points\n",
                q, median(off, q), median(on, q), 100 * median(d, q)
    }' "$raw"
