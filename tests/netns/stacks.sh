#!/usr/bin/env bash
# Checks that a job which times out in the emulator shows its stacks (netns-run.sh): runs a
# program that never ends (tests.list: left_early TEST_CAUSE=deadlock PANGEA_HANG_CHECK=0,
# every PE in shmem_long_wait_until) with a short NETNS_TIMEOUT, and wants exit status 124 and,
# for each PE, a stack line of the program naming main and the wait. run-tests.sh calls it as
#
#   tests/netns/stacks.sh BUILD_DIR NPES NODES PROGRAM
#
# On one node there is no emulator: skipped; without gdb the harness says so: skipped too.
set -u
npes=$2 nodes=$3 prog=$4
here=$(cd "$(dirname "$0")" && pwd)
name=${prog##*/}
if [ "$nodes" -lt 2 ]; then
    echo "SKIP $name: the stacks are the emulator's (netns-run.sh)"
    exit 0
fi
out=$(env NETNS_TIMEOUT=5 "$here/netns-run.sh" "$nodes" $(((npes + nodes - 1) / nodes)) \
    -- "$prog" 2>&1 </dev/null)
rc=$?
printf '%s\n' "$out"
if grep -q "gdb is not installed" <<<"$out"; then
    echo "SKIP $name: gdb is not installed"
    exit 0
fi
if [ "$rc" -ne 124 ]; then
    echo "FAIL $name: exit status $rc, want 124 (the timeout)"
    exit 1
fi
stacks=$(grep -F "stack of pid" <<<"$out" | grep -F "($name)" | grep -c " main\$\| main ")
waits=$(grep -F "stack of pid" <<<"$out" | grep -F "($name)" | grep -c "wait_until")
if [ "$stacks" -ne "$npes" ] || [ "$waits" -ne "$npes" ]; then
    echo "FAIL $name: $stacks stack lines through main and $waits through wait_until, want $npes of each"
    exit 1
fi
echo "PASS $name"
