#!/usr/bin/env bash
# pangea-tune --quick across two emulated nodes (network namespaces, one PE each) must finish
# within a minute, pass its correctness check and write a tuning file that the library then
# applies without a warning (pangea-info shows the pipeline values coming from the file).
# Part of `make check` when the multi-node passes run; prints "PASS tune_quick" or FAIL lines.
#
#   tests/tune/quick-netns.sh [BUILD_DIR]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
if ! "$here/netns/netns-run.sh" --can-run; then
    echo "tune_quick: SKIPPED (needs root and network namespaces)"
    exit 0
fi
dir=$(mktemp -d /tmp/pangea-tune-test.XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() {
    echo "FAIL tune_quick: $*"
    sed 's/^/    | /' "$dir/log" | tail -n 30
    exit 1
}

NETNS_TIMEOUT=170 timeout -k 10 180 "$here/netns/netns-run.sh" 2 1 -- "$build/bin/pangea-tune" \
    --quick --host '*' --out "$dir/tuning.conf" --plots "$dir/plots" >"$dir/log" 2>&1 </dev/null
rc=$?
[ "$rc" -eq 0 ] || fail "pangea-tune exited with status $rc"
grep -q 'every byte, guard and total right' "$dir/log" || fail "no correctness check in the output"
for step in 1 2 3 4 5 6 7 8 9; do
    grep -q "^\[$step/9\]" "$dir/log" || fail "no progress line [$step/9]"
done
seconds=$(sed -n 's/^pangea-tune: done in \([0-9.]*\) s$/\1/p' "$dir/log")
[ -n "$seconds" ] || fail "no 'done in' line"
awk -v s="$seconds" 'BEGIN { exit !(s < 60) }' || fail "--quick took $seconds s (limit 60)"

f=$dir/tuning.conf
[ -f "$f" ] || fail "no tuning file written"
grep -Eq '^provider = .+' "$f" || fail "no provider line in $f"
grep -Eq '^host = \*$' "$f" || fail "no 'host = *' line in $f"
grep -Eq '^date = [0-9]{4}-[0-9]{2}-[0-9]{2}T' "$f" || fail "no date line in $f"
grep -Eq '^PANGEA_PIPELINE_BUFFERS = [1-9][0-9]*$' "$f" || fail "no buffer count in $f"
grep -Eq '^PANGEA_PIPELINE_BUFFER_SIZE = [0-9]+[KM]?$' "$f" || fail "no buffer size in $f"
grep -Eq '^PANGEA_DIRECT_RMA_THRESHOLD = [0-9]+[KM]?$' "$f" || fail "no direct-RMA threshold in $f"

# The library reads it back: applied, no warning, both values from the file.
PANGEA_TUNING_FILE=$f "$build/bin/pangea-info" >"$dir/info" 2>"$dir/info.err" ||
    fail "pangea-info failed with the file"
[ ! -s "$dir/info.err" ] || fail "warnings reading the file: $(cat "$dir/info.err")"
grep -q "tuning file $f (applied;" "$dir/info" || fail "pangea-info does not show the file applied"
for key in PANGEA_PIPELINE_BUFFERS PANGEA_PIPELINE_BUFFER_SIZE PANGEA_DIRECT_RMA_THRESHOLD; do
    grep -Eq "^$key +[0-9]+ +file " "$dir/info" || fail "pangea-info: $key not from the file"
done
if command -v gnuplot >/dev/null; then
    for p in bandwidth-vs-size bandwidth-vs-buffers latencies; do
        [ -s "$dir/plots/$p.png" ] || fail "no plot $p.png"
    done
fi
echo "PASS tune_quick (${seconds} s; $(grep -E '^PANGEA_' "$f" | paste -sd ' '))"
