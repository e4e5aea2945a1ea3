#!/usr/bin/env bash
# Runs a profiled test program and checks its profile (tests.list: driver=prof/check.sh);
# run-tests.sh calls it as
#
#   tests/prof/check.sh BUILD_DIR NPES NODES PROGRAM
#
# PROGRAM (tests/shmem/profile, tests/armci/profile) runs with PANGEA_PROFILE set to a scratch
# directory and writes there, next to its profile, what it expects of it
# (tests/common/profile_expect.h). Checked: the format of every pe-N.csv and of topology.csv
# (docs/profile.md), each PE's op rows and the rows of the collectives it names exactly, its
# wait counts (and that the waits other than quiet took time), and its host and switch path
# in topology.csv. Prints "PASS NAME" when all hold.
set -u

build=$1 npes=$2 nodes=$3 prog=$4
tests=$(cd "$(dirname "$0")/.." && pwd)
name=${prog##*/}
work=$(mktemp -d /tmp/pangea-prof.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
dir=$work/profile/sub # made by the library

fail() {
    echo "FAIL $name: $*"
    exit 1
}

k=$nodes
[ "$k" -gt "$npes" ] && k=$npes
if [ "$k" -gt 1 ]; then
    per_node=$(((npes + k - 1) / k)) # as run-tests.sh places them: K nodes of this many
    npes=$((k * per_node))
    PANGEA_PROFILE=$dir NETNS_TIMEOUT=60 "$tests/netns/netns-run.sh" "$k" "$per_node" \
        -- "$prog" </dev/null
else
    PANGEA_PROFILE=$dir "$build/bin/oshrun" -np "$npes" "$prog" </dev/null
fi
rc=$?
[ "$rc" -eq 0 ] || fail "the job exited with status $rc"

first='# pangea-profile 1'
[ -f "$dir/topology.csv" ] || fail "no topology.csv"
[ "$(sed -n 1p "$dir/topology.csv")" = "$first" ] || fail "topology.csv: first line"
[ "$(sed -n 2p "$dir/topology.csv")" = "pe,node,host,package,numa,core,switches" ] ||
    fail "topology.csv: header"
rows=$(($(wc -l <"$dir/topology.csv") - 2))
[ "$rows" -eq "$npes" ] || fail "topology.csv has $rows PEs, not $npes"
awk -F, -v nodes="$k" 'NR > 2 && (NF != 7 || $1 != NR - 3 || $2 < 0 || $2 >= nodes ||
    $3 == "" || $4 !~ /^-?[0-9]+$/ || $5 !~ /^-?[0-9]+$/ || $6 !~ /^-?[0-9]+$/) {
        print "topology.csv line " NR ": " $0; bad = 1 }
    END { exit bad }' "$dir/topology.csv" || fail "topology.csv rows"
# The switch path of each node (TEST_PROFILE_SWITCHES: node 0's, node 1's, ... separated by
# commas, with PANGEA_TOPOLOGY_FILE), else none.
awk -F, -v paths="${TEST_PROFILE_SWITCHES:-}" 'BEGIN { split(paths, path, ",") }
    NR > 2 && $7 != path[$2 + 1] { print "topology.csv line " NR ": switches " $7 ", not " \
        path[$2 + 1]; bad = 1 } END { exit bad }' "$dir/topology.csv" || fail "switch paths"
used=$(awk -F, 'NR > 2 { print $2 }' "$dir/topology.csv" | sort -u | wc -l)
[ "$used" -eq "$k" ] || fail "topology.csv names $used nodes, the job ran on $k"

for ((pe = 0; pe < npes; pe++)); do
    file=$dir/pe-$pe.csv expect=$dir/expect-$pe.csv
    [ -f "$file" ] || fail "no pe-$pe.csv"
    [ -f "$expect" ] || fail "PE $pe wrote no expect-$pe.csv"
    [ "$(sed -n 1p "$file")" = "$first" ] || fail "pe-$pe.csv: first line"
    [ "$(sed -n 2p "$file")" = "kind,name,target,count,bytes,ns" ] || fail "pe-$pe.csv: header"
    awk -F, -v npes="$npes" 'NR > 2 && (NF != 6 || $3 !~ /^-?[0-9]+$/ || $3 >= npes ||
        $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ ||
        ($1 == "op" && ($4 == 0 || $6 != 0 || $3 < 0)) || ($1 == "coll" && $6 != 0) ||
        ($1 == "wait" || $1 == "info") && $3 != -1) { print FILENAME " line " NR ": " $0; bad = 1 }
        END { exit bad }' "$file" || fail "pe-$pe.csv rows"
    grep -q '^info,elapsed,-1,0,0,[1-9][0-9]*$' "$file" || fail "pe-$pe.csv: no elapsed row"
    host=$(sed -n 's/^host,//p' "$expect")
    awk -F, -v pe="$pe" -v host="$host" 'NR > 2 && $1 == pe && $3 == host { found = 1 }
        END { exit !found }' "$dir/topology.csv" || fail "topology.csv: PE $pe is not on $host"
    # The op rows, and the rows of each collective the program names, are exactly as expected.
    if ! grep -q '^ops,any$' "$expect"; then
        diff <(grep '^op,' "$expect" | sort) <(grep '^op,' "$file" | cut -d, -f1-5 | sort) ||
            fail "PE $pe: op rows differ (< expected, > profile)"
    fi
    for coll in $(grep '^coll,' "$expect" | cut -d, -f2 | sort -u); do
        diff <(grep "^coll,$coll," "$expect" | sort) \
            <(grep "^coll,$coll," "$file" | cut -d, -f1-5 | sort) ||
            fail "PE $pe: $coll rows differ (< expected, > profile)"
    done
    grep '^wait,' "$expect" | while IFS=, read -r _ wait count; do
        grep -Eq "^wait,$wait,-1,$count,0,[0-9]+$" "$file" ||
            fail "PE $pe: expected $count $wait waits: $(grep "^wait,$wait," "$file")"
        # A quiet on one node is a fence: counted, not timed.
        [ "$count" -eq 0 ] || [ "$wait" = quiet ] || grep -Eq "^wait,$wait,-1,$count,0,[1-9][0-9]*$" "$file" ||
            fail "PE $pe: $count $wait waits took no time"
    done || exit 1
done
echo "PASS $name"
