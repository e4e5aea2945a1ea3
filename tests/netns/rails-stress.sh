#!/usr/bin/env bash
# Repeats the 8-PE link-down AMO storm over tcp;ofi_rxm (the tests.list line that runs over net
# in make check: docs/reliability.md, "What is left"), to find its rare stall:
#
#   tests/netns/rails-stress.sh BUILD_DIR [RUNS] [SLOW_SECONDS]
#
# Each run's output goes to a log in a temporary folder; a run that fails or takes longer than
# SLOW_SECONDS (default 20; a run takes 3-8 s here) keeps its log, whose end has the stacks of
# every PE when the job timed out (netns-run.sh). Exit status 1 when a run failed.
set -u
build=${1:?usage: rails-stress.sh BUILD_DIR [RUNS] [SLOW_SECONDS]}
runs=${2:-50} slow=${3:-20}
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d /tmp/rails-stress.XXXXXX)
passed=0 failed=0 slowed=0
for ((i = 1; i <= runs; i++)); do
    log=$logs/run-$i.log
    start=$SECONDS
    env TEST_CASE=amo TEST_LINK_DOWN=pgeth1 FI_PROVIDER='tcp;ofi_rxm' NETNS_TIMEOUT=120 \
        "$here/rails.sh" "$build" 8 2 "$build/tests/shmem/rail_failover" >"$log" 2>&1 </dev/null
    rc=$? took=$((SECONDS - start))
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        echo "run $i: FAIL (status $rc, ${took}s): $log"
    elif [ "$took" -gt "$slow" ]; then
        slowed=$((slowed + 1))
        echo "run $i: passed in ${took}s, slow: $log"
    else
        passed=$((passed + 1))
        rm -f "$log"
    fi
done
echo "rails-stress: $runs runs: $passed passed, $slowed passed slowly (> ${slow}s), $failed failed; logs in $logs"
[ "$failed" -eq 0 ]
