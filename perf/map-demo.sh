#!/usr/bin/env bash
# The profile-and-map demonstration (issue 19, docs/profile.md): perf/stencil2d on 4
# emulated nodes x 2 PEs (tests/netns, as root), started with a deliberately bad placement
# (no two grid neighbours on one node), profiled (PANGEA_PROFILE), mapped with pangea-map,
# and run again with the machine file it wrote. Prints the inter-node bytes and the time per
# iteration of both placements, and keeps the profiles, the summaries and the heatmaps.
#
#   perf/map-demo.sh [BUILD [OUTDIR]]      (after make all bench)
#
# BUILD defaults to build, OUTDIR to perf/results/map-demo. STENCIL_ARGS (default
# "1024 1024 300", the grid and iterations) and REPEAT (default 3: runs of each placement,
# alternated) may be set.
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
out=${2:-$here/results/map-demo}
read -ra args <<<"${STENCIL_ARGS:-1024 1024 300}"
repeat=${REPEAT:-3}
prog=$build/perf/stencil2d
for f in "$prog" "$build/bin/pangea-prof" "$build/bin/pangea-map"; do
    [ -x "$f" ] || { echo "map-demo: $f is not built (make all bench)" >&2; exit 1; }
done
"$here/../tests/netns/netns-run.sh" --can-run || { echo "map-demo: needs root (tests/netns)" >&2; exit 77; }
mkdir -p "$out" || exit 1

# The grid is 4 x 2 PEs (PE = 4 * row + column). Bad: nodes hold {0,2} {1,3} {4,6} {5,7},
# every neighbour pair is on two nodes.
printf 'pgnode0:1\npgnode1:1\npgnode0:1\npgnode1:1\npgnode2:1\npgnode3:1\npgnode2:1\npgnode3:1\n' \
    >"$out/bad.machinefile"
printf 'pgnode0:2\npgnode1:2\npgnode2:2\npgnode3:2\n' >"$out/hosts"

# run NAME MACHINEFILE: one job, profiled into $out/NAME; its time per iteration appended to
# the list in $times
times=""
run() {
    rm -rf "${out:?}/$1"
    mkdir -p "$out/$1"
    local log
    log=$(PANGEA_PROFILE="$out/$1" NETNS_TIMEOUT=300 "$here/../tests/netns/netns-run.sh" \
        -f "$2" 4x2 -- "$prog" "${args[@]}" 2>&1)
    local rc=$?
    echo "$log" >"$out/$1.log"
    if [ "$rc" -ne 0 ] || ! grep -q 'result equals the serial computation' <<<"$log"; then
        echo "map-demo: the $1 run failed (status $rc), see $out/$1.log" >&2
        exit 1
    fi
    if [ ! -s "$out/$1/topology.csv" ]; then
        echo "map-demo: the job wrote no profile in $out/$1: this Pangea has no PANGEA_PROFILE" >&2
        exit 1
    fi
    times+=" $(sed -n 's/.*iterations: \([0-9.]*\) us per iteration.*/\1/p' <<<"$log")"
}

echo "== bad placement, profiled"
run before "$out/bad.machinefile"
bad_times=$times
"$build/bin/pangea-prof" -o "$out/heatmaps-before" "$out/before" >"$out/before.summary" || exit 1
"$build/bin/pangea-map" --hosts "$out/hosts" -o "$out/mapped.machinefile" "$out/before" |
    tee "$out/map.txt" || exit 1
echo "== mapped placement, profiled"
times=""
run after "$out/mapped.machinefile"
good_times=$times
"$build/bin/pangea-prof" -o "$out/heatmaps-after" "$out/after" >"$out/after.summary" || exit 1
# More runs of each, alternated (the machine is shared: one run says little).
for ((r = 1; r < repeat; r++)); do
    times=""
    run before "$out/bad.machinefile"
    bad_times+=$times
    times=""
    run after "$out/mapped.machinefile"
    good_times+=$times
done

internode() { sed -n 's/^inter-node bytes \([0-9]*\),.*/\1/p' "$1"; }
printf '\n%-10s %18s %s\n' placement "inter-node bytes" "us per iteration (runs)"
printf '%-10s %18s %s\n' bad "$(internode "$out/before.summary")" "$bad_times"
printf '%-10s %18s %s\n' mapped "$(internode "$out/after.summary")" "$good_times"
echo "heatmaps: $out/heatmaps-before/{pe,node}-bytes.png, $out/heatmaps-after/{pe,node}-bytes.png"
