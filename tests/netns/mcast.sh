#!/usr/bin/env bash
# Runs a test across emulated nodes with PANGEA_MCAST=auto SHMEM_INFO=1 (tests.list: driver=
# netns/mcast.sh; docs/multicast.md). run-tests.sh calls it as
#
#   tests/netns/mcast.sh BUILD_DIR NPES NODES PROGRAM
#
# The job runs on TEST_MCAST_NODES nodes (default NODES, at least 2) with NPES / nodes PEs each,
# and must pass; then what the PEs said must match the case:
#   default               every team's broadcasts went by multicast, and none fell back
#   TEST_MCAST_ROUTE=0    no multicast route (netns-run.sh --no-multicast): the teams fell back
#                         to the point-to-point tree and said so
#   TEST_MCAST_DROP=N     about 1 in N multicast datagrams dropped on the way into each node
#                         (--drop-multicast N): more than zero fragments retransmitted
#   TEST_MCAST_DROP_NODE=I  with TEST_MCAST_DROP: only into node I (--drop-node I); more than
#                         zero fragments resent point to point, to that node alone
#   TEST_MCAST_LOSSY=1    with TEST_MCAST_DROP: the teams began by multicast and fell back to
#                         the tree when a node's losses passed PANGEA_MCAST_MAX_LOSS
#   TEST_MCAST_SENT=N     exactly N broadcasts went by multicast (summed over the PEs), and
#   TEST_MCAST_BELOW=M    exactly M went by the tree for being below PANGEA_MCAST_MIN_SIZE
# On one node there is no link: skipped.
set -u

build=$1 npes=$2 nodes=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/job.sh"
name=${prog##*/}
if [ "$nodes" -lt 2 ]; then
    echo "SKIP $name: multicast needs links between emulated nodes"
    exit 0
fi
k=${TEST_MCAST_NODES:-$nodes}
opts=()
# The multicast channel opens the udp provider beside the transport's; a pin such as the tcp
# pass's FI_PROVIDER='tcp;ofi_rxm' would hide it.
case ${FI_PROVIDER:-udp} in *udp*) ;; *) export FI_PROVIDER="$FI_PROVIDER,udp" ;; esac
[ "${TEST_MCAST_ROUTE:-1}" = 0 ] && opts+=(--no-multicast)
[ -n "${TEST_MCAST_DROP:-}" ] && opts+=(--drop-multicast "$TEST_MCAST_DROP")
[ -n "${TEST_MCAST_DROP_NODE:-}" ] && opts+=(--drop-node "$TEST_MCAST_DROP_NODE")
out=$(env PANGEA_MCAST=${PANGEA_MCAST:-auto} SHMEM_INFO=1 NETNS_TIMEOUT=${NETNS_TIMEOUT:-120} \
    "$here/netns-run.sh" "${opts[@]}" "$k" $(((npes + k - 1) / k)) -- "$prog" 2>&1 </dev/null)
job_passed "$name" $? "$out" 'multicast|rror'
# sum WORD: the numbers before WORD in the PEs' final lines, added up.
sum() { grep -o "[0-9]* $1" <<<"$out" | awk '{n += $1} END {print n + 0}'; }
used=$(grep -c 'multicast between nodes' <<<"$out")
fell=$(grep -c 'fall back to the point-to-point tree' <<<"$out")
lossy=$(grep -c 'fall back to the point-to-point tree (a node lost .* above PANGEA_MCAST_MAX_LOSS' <<<"$out")
if [ "${TEST_MCAST_LOSSY:-0}" = 1 ]; then
    [ "$used" -gt 0 ] && [ "$lossy" -gt 0 ] ||
        { echo "FAIL $name: $used teams used multicast, $lossy fell back for their losses"; exit 1; }
elif [ "${TEST_MCAST_ROUTE:-1}" = 0 ]; then
    [ "$used" -eq 0 ] && [ "$fell" -gt 0 ] ||
        { echo "FAIL $name: without a multicast route, $used teams used multicast, $fell fell back"; exit 1; }
else
    [ "$used" -gt 0 ] && [ "$fell" -eq 0 ] ||
        { echo "FAIL $name: $used teams used multicast, $fell fell back"; exit 1; }
fi
# "multicast broadcast: B sent, R fragments retransmitted, C corrupt dropped, S below ..."
resent=$(sum 'fragments retransmitted')
if [ -n "${TEST_MCAST_DROP:-}" ]; then
    [ "$resent" -gt 0 ] ||
        { echo "FAIL $name: no fragment retransmitted (1 in $TEST_MCAST_DROP dropped)"; exit 1; }
fi
unicast=$(sum 'point to point')
if [ -n "${TEST_MCAST_DROP_NODE:-}" ]; then
    [ "$unicast" -gt 0 ] ||
        { echo "FAIL $name: of $resent fragments retransmitted, none point to point (drops into node $TEST_MCAST_DROP_NODE only)"; exit 1; }
fi
sent=$(sum sent) below=$(sum 'below PANGEA_MCAST_MIN_SIZE')
if [ -n "${TEST_MCAST_SENT:-}${TEST_MCAST_BELOW:-}" ]; then
    [ "$sent" = "${TEST_MCAST_SENT:-$sent}" ] && [ "$below" = "${TEST_MCAST_BELOW:-$below}" ] ||
        { echo "FAIL $name: $sent broadcasts by multicast (expected ${TEST_MCAST_SENT:-any}), $below below PANGEA_MCAST_MIN_SIZE by the tree (expected ${TEST_MCAST_BELOW:-any})"; exit 1; }
fi
echo "$used teams by multicast, $fell fell back, $resent fragments retransmitted ($unicast point to point), $sent broadcasts by multicast, $below below PANGEA_MCAST_MIN_SIZE"
echo "PASS $name"
