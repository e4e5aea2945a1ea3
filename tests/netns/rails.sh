#!/usr/bin/env bash
# Runs a test across 2 emulated nodes with two links each (netns-run.sh --rails 2), over both
# rails (PANGEA_RAILS=pgeth1,pgeth0 unless the line sets it; tests.list: driver=netns/rails.sh).
# run-tests.sh calls it as
#
#   tests/netns/rails.sh BUILD_DIR NPES NODES PROGRAM
#
# With TEST_LINK_DOWN=IF the test takes that link of a node down in the middle of its traffic
# (tests/shmem/rail_failover.c): it must pass as over healthy links, and a PE must have said
# that the rail IF was taken out; with TEST_LINK_UP=1 too, the link comes back up and a PE
# must have said that the rail is back in use. With SHMEM_INFO=1 PE 0 reports each rail's counts
# at finalize, and TEST_STRIPED=1 checks that large messages of its client took both rails;
# TEST_PROBED=1 that its client probed the rail TEST_LINK_DOWN in at least one round that got
# no answer (reopened while the other end's link was down, and not used then) and used it
# again after a probe was answered. With TEST_RAILS_PER_NODE=RAILS0:RAILS1 node i runs with
# PANGEA_RAILS=RAILSi (a rail list that reaches no other node: expect= checks the message).
# The job's output and status are passed on. On one node there are no links: skipped.
set -u

build=$1 npes=$2 nodes=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
name=${prog##*/}
if [ "$nodes" -lt 2 ]; then
    echo "SKIP $name: rails need links between emulated nodes"
    exit 0
fi
export PANGEA_RAILS=${PANGEA_RAILS-pgeth1,pgeth0}
launch=("$prog")
if [ -n "${TEST_RAILS_PER_NODE:-}" ]; then
    # each node's rails by its host name (pgnode<i>), set in the node
    launch=(/bin/sh -c 'IFS=:; set -- $TEST_RAILS_PER_NODE; shift "$(hostname | sed s/pgnode//)";
        PANGEA_RAILS=$1 exec "$0"' "$prog")
fi
out=$(env NETNS_TIMEOUT=${NETNS_TIMEOUT:-150} "$here/netns-run.sh" --rails 2 2 $(((npes + 1) / 2)) \
    -- "${launch[@]}" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] && exit "$rc"
if [ -n "${TEST_LINK_DOWN:-}" ] && ! grep -q "rail $TEST_LINK_DOWN taken out" <<<"$out"; then
    echo "FAIL $name: no PE took the rail $TEST_LINK_DOWN out after its link went down"
    exit 1
fi
if [ -n "${TEST_LINK_UP:-}" ] && ! grep -q "rail $TEST_LINK_DOWN back in use" <<<"$out"; then
    echo "FAIL $name: no PE used the rail $TEST_LINK_DOWN again after its link came back up"
    exit 1
fi
# count RAIL WHAT: the number before WHAT in PE 0's report for its client's rail RAIL
count() {
    sed -n "s/^pangea: PE 0: client rail $1: .*[^0-9]\([0-9][0-9]*\) $2.*/\1/p" <<<"$out" | head -1
}
if [ -n "${TEST_STRIPED:-}" ]; then
    for rail in pgeth0 pgeth1; do
        striped=$(count $rail striped)
        if [ "${striped:-0}" -eq 0 ]; then
            echo "FAIL $name: PE 0 sent no large message over the rail $rail (${striped:-no report})"
            exit 1
        fi
    done
fi
if [ -n "${TEST_PROBED:-}" ]; then
    unanswered=$(count "$TEST_LINK_DOWN" "rounds unanswered") reuses=$(count "$TEST_LINK_DOWN" times)
    if [ "${unanswered:-0}" -eq 0 ] || [ "${reuses:-0}" -eq 0 ]; then
        echo "FAIL $name: PE 0's rail $TEST_LINK_DOWN: ${unanswered:-no} rounds of probes" \
            "unanswered, back in use ${reuses:-no} times (want at least 1 of each)"
        exit 1
    fi
fi
exit 0
