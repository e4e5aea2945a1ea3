#!/usr/bin/env bash
# Tests pangea-prof and pangea-map on generated profiles (tests.list: driver=prof/tools.sh);
# run-tests.sh calls it as
#
#   tests/prof/tools.sh BUILD_DIR NPES NODES PROGRAM
#
# PROGRAM is tests/prof/prof_tools, which writes a profile of a known pattern (see its header:
# 100-byte puts, PE i waits 1000 * (i + 1) ns and runs 1000000 * (i + 1) ns); TEST_PROF_CASE
# picks the checks:
#   summary  ring, 2-D stencil, all-to-one and alltoall on 4 nodes x 2 PEs under 2 leaf
#            switches: every total, level, inter-node and hop-bytes figure, pair and imbalance
#   heatmap  the PNG files (signature, gnuplot's success) and the --text matrix
#   map      a 4x2 stencil on 4 nodes x 2 and a 4x4 one on 4 x 4, each under a scrambled
#            placement, mapped (with --hosts and --topology, and onto the profiled nodes) to a
#            placement with the grid's optimal inter-node bytes; the machine file's lines
#   errors   a missing, truncated or corrupt profile (each message naming file and line), a
#            machine too small for the PEs, a host under no switch: a clear message, exit != 0
# Prints "PASS prof_tools" when every check held.
set -u

build=$1 prog=$4
tests=$(cd "$(dirname "$0")/.." && pwd)
prof=$build/bin/pangea-prof map=$build/bin/pangea-map
case=${TEST_PROF_CASE:?set TEST_PROF_CASE}
work=$(mktemp -d /tmp/pangea-prof.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
out=""
rc=0

fail() {
    echo "FAIL prof_tools ($case): $*"
    exit 1
}

# gen NAME PATTERN NODES PPN SWITCHES [NODE_OF]: a profile in $work/NAME
gen() {
    local name=$1
    shift
    mkdir -p "$work/$name" || fail "cannot create $work/$name"
    "$prog" "$work/$name" "$@" || fail "the generator failed: $*"
}

# run COMMAND...: its output in $out (shown indented), its status in $rc
run() {
    out=$("$@" 2>&1)
    rc=$?
    sed 's/^/  | /' <<<"$out"
}

has() { # has LINE: the output has this exact line
    grep -qxF -- "$1" <<<"$out" || fail "no line '$1' in the output of the last command"
}

expect_error() { # expect_error REGEX
    [ "$rc" -ne 0 ] || fail "exit status 0, want a failure"
    grep -Eq -- "$1" <<<"$out" || fail "the message does not match /$1/"
}

png() { # png FILE: PNG's 8-byte signature
    [ -s "$1" ] || fail "$1 is missing or empty"
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "$1 is not a PNG file"
}

case $case in
summary)
    # Ring 0->1->...->7->0 on nodes {0,1}{2,3}{4,5}{6,7}, nodes 0-1 under s0 and 2-3 under s1;
    # each node's two PEs on different packages: 4 pairs on a node, 2 across a leaf switch
    # (2 links), 2 across the top (4 links).
    gen ring ring 4 2 2
    run "$prof" --text "$work/ring"
    [ "$rc" -eq 0 ] || fail "pangea-prof exit status $rc"
    has "profile $work/ring: 8 PEs on 4 nodes under 2 leaf switches"
    has "total bytes 800, messages 8"
    has "  op put              bytes 800 count 8"
    has "bytes by level: core 0, numa 0, package 0, node 400, switch 200, system 200"
    has "inter-node bytes 400, hop-bytes 1200"
    has "  PE 3 -> PE 4: bytes 100 messages 1 (system)"
    has "  node 3 (h3) -> node 0 (h0): bytes 100"
    has "  PE 7                    0.008        0.000        0.000        0.000        0.008        8.000"
    # bytes 100 each: 1.00; waits and elapsed 1..8 units: max/mean = 8 / 4.5
    has "  bytes sent   max/mean 1.00 (max on PE 0)"
    has "  wait time    max/mean 1.78 (max on PE 7)"
    has "  elapsed      max/mean 1.78 (max on PE 7)"

    # 4x2 stencil, block placement: 10 grid edges, 20 puts; the 4 edges inside nodes (0-1,
    # 2-3, 4-5, 6-7) join two packages; 1-2 and 5-6 stay under a leaf switch (2 links); the 4
    # vertical ones (0-4, 1-5, 2-6, 3-7) cross the top (4 links).
    gen stencil stencil:4x2 4 2 2
    run "$prof" --top 3 "$work/stencil"
    has "total bytes 2000, messages 20"
    has "bytes by level: core 0, numa 0, package 0, node 800, switch 400, system 800"
    has "inter-node bytes 1200, hop-bytes 4000"
    has "busiest PE pairs (of 20):"
    has "  PE 0 -> PE 1: bytes 100 messages 1 (node)"
    has "  PE 1 -> PE 0: bytes 100 messages 1 (node)"
    grep -q "PE 1 -> PE 2" <<<"$out" && fail "--top 3 listed a fourth pair"
    # Interior PEs send 3 puts, the corners 2: mean 2.5, max 3 (PE 1 the first)
    has "  bytes sent   max/mean 1.20 (max on PE 1)"

    # All-to-one: 7 puts of 100 and 7 AMOs of 8 to PE 0.
    gen a2o all-to-one 4 2 2
    run "$prof" --text "$work/a2o"
    has "total bytes 756, messages 14"
    has "  op put              bytes 700 count 7"
    has "  op amo              bytes 56 count 7"
    has "bytes by level: core 0, numa 0, package 0, node 108, switch 216, system 432"
    has "inter-node bytes 648, hop-bytes 2160"
    has "  bytes sent   max/mean 1.14 (max on PE 1)"

    # Alltoall: 56 messages of 100 bytes, counted as the collective's own traffic.
    gen a2a alltoall 4 2 2
    run "$prof" "$work/a2a" -o "$work/a2a"
    has "total bytes 5600, messages 56"
    has "  coll alltoall       bytes 5600 count 56"
    grep -q "^  op " <<<"$out" && fail "collective traffic was counted as an op"
    # per PE: 1 on its node, 2 under its switch, 4 across the top
    has "bytes by level: core 0, numa 0, package 0, node 800, switch 1600, system 3200"
    has "inter-node bytes 4800, hop-bytes 16000"
    ;;
heatmap)
    gen stencil stencil:4x2 4 2 2
    mkdir -p "$work/png"
    run "$prof" -o "$work/png" "$work/stencil"
    [ "$rc" -eq 0 ] || fail "pangea-prof exit status $rc (gnuplot failed?)"
    has "heatmaps: $work/png/pe-bytes.png, $work/png/node-bytes.png"
    png "$work/png/pe-bytes.png"
    png "$work/png/node-bytes.png"
    [ ! -e "$work/stencil/pe-bytes.png" ] || fail "-o: a PNG went to the profile directory"
    # The matrices behind them, in node order (0,1 | 2,3 | ...): PE 1's row is 100 to 0, 2, 5.
    [ "$(sed -n 2p "$work/png/pe-bytes.dat")" = "100 0 100 0 0 100 0 0" ] ||
        fail "pe-bytes.dat row 2: $(sed -n 2p "$work/png/pe-bytes.dat")"
    [ "$(sed -n 1p "$work/png/node-bytes.dat")" = "200 100 200 0" ] ||
        fail "node-bytes.dat row 1: $(sed -n 1p "$work/png/node-bytes.dat")"

    gen ring ring 4 2 2
    run "$prof" --text "$work/ring"
    has "bytes PE to PE (rows send to columns; 1-9 log scale, 9 = 100 B, . = none):"
    has "  PE      0 .9......"
    has "  PE      7 9......."
    has "  node    3 9..9"
    [ ! -e "$work/ring/pe-bytes.png" ] || fail "--text drew PNG files"
    # Beyond 64 PEs only the node matrix: 17 nodes x 4 PEs.
    gen big ring 17 4 0
    run "$prof" --text "$work/big"
    grep -q "^bytes PE to PE" <<<"$out" && fail "a PE matrix for 68 PEs"
    # node 16: 300 bytes inside, 100 to node 0 (1 + 8 log 100 / log 300 = 7.5)
    has "  node   16 7...............9"
    ;;
map)
    # 4x2 stencil, every node holding two PEs that are not neighbours: all 20 puts cross
    # nodes. A grid with an even number of PEs has a perfect matching of neighbours, so with 2
    # PEs per node the optimum keeps px*py/2 of its edges inside nodes.
    optimum_pairs() { # px py: inter-node bytes with two neighbours per node
        echo $(((($1 - 1) * $2 + $1 * ($2 - 1) - $1 * $2 / 2) * 2 * 100))
    }
    gen scrambled stencil:4x2 4 2 2 0,1,0,1,2,3,2,3
    printf 'pgnode0:2\npgnode1:2\n# comment\npgnode2:2\n\npgnode3:2\n' >"$work/hosts"
    run "$map" --hosts "$work/hosts" --topology "$tests/topo/two-switches.conf" \
        -o "$work/machinefile" "$work/scrambled"
    [ "$rc" -eq 0 ] || fail "pangea-map exit status $rc"
    has "before: inter-node bytes 2000, hop-bytes 5600 (the profiled placement)"
    best=$(optimum_pairs 4 2)
    grep -Eq "^after:  inter-node bytes $best, " <<<"$out" || fail "want $best inter-node bytes"
    # Under two switches the best also keeps one grid half under each: 4 edges (8 puts) cross
    # a leaf switch (2 links), 2 edges (4 puts) the top (4 links).
    grep -Eq "^after:  inter-node bytes $best, hop-bytes 3200 " <<<"$out" ||
        fail "want hop-bytes 3200"
    # The machine file, rank by rank, says the placement printed: 8 ranks, 2 per host.
    ranks=$(awk -F: '{n += $2} END {print n}' "$work/machinefile")
    [ "$ranks" = 8 ] || fail "the machine file places $ranks ranks, want 8"
    for h in pgnode0 pgnode1 pgnode2 pgnode3; do
        listed=$(awk -F: -v h=$h '$1 == h {n += $2} END {print n + 0}' "$work/machinefile")
        [ "$listed" = 2 ] || fail "$h has $listed ranks in the machine file, want 2"
        want=$(grep "^  $h:" <<<"$out" | cut -d: -f2 | xargs)
        got=$(awk -F: '{for (i = 0; i < $2; i++) print $1}' "$work/machinefile" |
            awk -v h=$h '$1 == h {printf "%s%d", s, NR - 1; s = " "}')
        [ "$got" = "$want" ] || fail "$h: the machine file gives ranks '$got', printed '$want'"
    done
    # Among the optimal placements one keeps each host's ranks consecutive (hydra then starts
    # one proxy per host, which MPICH takes for one node): one line per host.
    [ "$(wc -l <"$work/machinefile")" = 4 ] || fail "the machine file has a host in two runs"
    grep -q "^note: " <<<"$out" && fail "a note about scattered ranks"
    # Onto the profiled job's own nodes (no --hosts): the same optimum.
    run "$map" "$work/scrambled"
    grep -Eq "^after:  inter-node bytes $best, " <<<"$out" || fail "own nodes: want $best"
    [ -s "$work/scrambled/machinefile" ] || fail "no DIR/machinefile by default"

    # 4x4 stencil on 4 nodes x 4 PEs, round-robin: the best are 2x2 blocks, 8 edges between
    # them, 16 puts of 100.
    gen rr stencil:4x4 4 4 0 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3
    run "$map" "$work/rr" -o "$work/mf44"
    grep -Eq "^after:  inter-node bytes 1600, hop-bytes 3200 " <<<"$out" ||
        fail "want 1600 inter-node bytes and hop-bytes 3200"
    ;;
errors)
    gen good ring 2 2 0
    for dir in missing truncated magic header fields number target; do
        cp -r "$work/good" "$work/$dir"
    done
    rm "$work/missing/pe-3.csv"
    run "$prof" "$work/missing"
    expect_error "pangea-prof: $work/missing/pe-3.csv: cannot be read: No such file"
    : >"$work/truncated/topology.csv"
    run "$prof" "$work/truncated"
    expect_error "topology.csv:1: not a Pangea profile"
    sed -i 1s/1/2/ "$work/magic/pe-1.csv"
    run "$map" "$work/magic"
    expect_error "pangea-map: $work/magic/pe-1.csv:1: not a Pangea profile \(the first line must be '# pangea-profile 1'\)"
    sed -i 2s/bytes/byte/ "$work/header/pe-0.csv"
    run "$prof" "$work/header"
    expect_error "pe-0.csv:2: bad header 'kind,name,target,count,byte,ns'"
    sed -i '4s/$/,7/' "$work/fields/pe-2.csv"
    run "$prof" "$work/fields"
    expect_error "pe-2.csv:4: 7 fields, want 6"
    sed -i '4s/,100,/,1x0,/' "$work/number/pe-2.csv"
    run "$prof" "$work/number"
    expect_error "pe-2.csv:4: bytes '1x0' is not a number >= 0"
    sed -i '4s/^op,put,[0-9]*,/op,put,4,/' "$work/target/pe-1.csv"
    run "$map" "$work/target"
    expect_error "pe-1.csv:4: target 4 is not a PE \(the profile has 4\)"
    # topology.csv's rows may come in any order, but each PE once and below the row count.
    cp -r "$work/good" "$work/reversed"
    { head -n 2 "$work/good/topology.csv"; tail -n +3 "$work/good/topology.csv" | tac; } \
        >"$work/reversed/topology.csv"
    run "$prof" --text "$work/reversed"
    [ "$rc" -eq 0 ] || fail "topology.csv in reverse order: status $rc"
    has "bytes by level: core 0, numa 0, package 0, node 200, switch 200, system 0"
    has "inter-node bytes 200, hop-bytes 400"
    sed -i 's/^1,0,h0,/2,0,h0,/' "$work/reversed/topology.csv"
    run "$prof" "$work/reversed"
    expect_error "topology.csv:5: pe 2 again \(line 4\)"
    sed -i 's/^2,0,h0,/9,0,h0,/' "$work/reversed/topology.csv"
    run "$prof" "$work/reversed"
    expect_error "topology.csv:5: pe 9, but the file has 4 PEs"
    run "$prof" "$work/nowhere"
    expect_error "nowhere/topology.csv: cannot be read"

    # Machines that cannot hold the 4 PEs, and a host the topology does not know.
    printf 'pgnode0:1\npgnode1:2\n' >"$work/small"
    run "$map" --hosts "$work/small" "$work/good"
    expect_error "the profile $work/good has 4 PEs but $work/small holds 3 \(2 hosts\)"
    printf 'pgnode0:2\npgnode9:2\n' >"$work/outside"
    run "$map" --hosts "$work/outside" --topology "$tests/topo/two-switches.conf" "$work/good"
    expect_error "node 'pgnode9' of the job is under no switch of .*two-switches.conf"
    printf 'pgnode0:2\npgnode1:x\n' >"$work/badslots"
    run "$map" --hosts "$work/badslots" "$work/good"
    expect_error "$work/badslots:2: slots 'x' of host 'pgnode1' are not a count from 1"
    printf 'pgnode0:2\npgnode0:2\n' >"$work/twice"
    run "$map" --hosts "$work/twice" "$work/good"
    expect_error "$work/twice:2: host 'pgnode0' is listed twice"
    run "$map" --topology "$tests/topo/two-switches.conf" "$work/good"
    expect_error "--topology .* needs --hosts FILE"
    run "$map" --hosts "$work/outside" --topology "$work/none.conf" "$work/good"
    expect_error "topology file $work/none.conf cannot be read: No such file"
    ;;
*)
    fail "unknown TEST_PROF_CASE"
    ;;
esac
echo "PASS prof_tools"
