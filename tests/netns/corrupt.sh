#!/usr/bin/env bash
# Runs a test across emulated nodes whose links corrupt about 1 packet in TEST_CORRUPT
# (default 1000; netns-run.sh --corrupt), with PANGEA_CHECKSUM=1 (tests.list: driver=
# netns/corrupt.sh). run-tests.sh calls it as
#
#   tests/netns/corrupt.sh BUILD_DIR NPES NODES PROGRAM
#
# The test must pass as it does on a clean network (its own checks: exact data and counts),
# and the PEs' finalize report (SHMEM_INFO) must show corrupt messages refused: more than
# zero over the job, or the corruption did not reach Pangea and the run proved nothing.
# Prints "PASS NAME" then. On one node there is no link to corrupt: the test is skipped.
set -u

build=$1 npes=$2 nodes=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
. "$here/job.sh"
name=${prog##*/}
one_in=${TEST_CORRUPT:-1000}
if [ "$nodes" -lt 2 ]; then
    echo "SKIP $name: corruption needs links between emulated nodes"
    exit 0
fi
k=$nodes
[ "$k" -gt "$npes" ] && k=$npes
out=$(env PANGEA_CHECKSUM=1 SHMEM_INFO=1 NETNS_TIMEOUT=${NETNS_TIMEOUT:-120} \
    "$here/netns-run.sh" --corrupt "$one_in" "$k" $(((npes + k - 1) / k)) -- "$prog" 2>&1 \
    </dev/null)
job_passed "$name" $? "$out" 'network faults|rror'
# "... N corrupt replies refused ...; its node's server: M corrupt requests refused ..."
refused=$(grep -o '[0-9]* corrupt [a-z]* refused' <<<"$out" | awk '{n += $1} END {print n + 0}')
[ "$refused" -gt 0 ] || { echo "FAIL $name: no corrupt message refused (1 in $one_in)"; exit 1; }
echo "$refused corrupt messages refused (about 1 packet in $one_in corrupted)"
echo "PASS $name"
