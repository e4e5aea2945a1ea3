#!/usr/bin/env bash
# Runs the multi-PE tests of tests/tests.list under oshrun, one line of the list at a time.
# NAME is a test of tests/shmem; DIR/NAME one of tests/DIR (armci/contig, unit/size_grammar).
#
#   tests/run-tests.sh [BUILD_DIR [REGEX]]
#
# BUILD_DIR defaults to build; REGEX (extended) keeps only the lines whose test name matches.
# Each run is `BUILD_DIR/bin/oshrun -np NPES BUILD_DIR/tests/shmem/NAME` under timeout (180 s,
# or TEST_TIMEOUT) with the line's environment variables, its output in
# BUILD_DIR/test-logs/NAME-npN[-VALUES].log. Prints one line per run, the last 20 lines of the
# log of a failed run, and at the end "N passed, N failed" (", N skipped" when some were).
# Besides the listed runs it checks that no /dev/shm/pangea-* object was left behind: after
# lines marked check-shm and once at the end (a test named no-shm-leak). Exit status 0 only if
# nothing failed.
#
# List format (tests/tests.list): NAME NPES [ENV=VALUE ...] [expect=...] [check-shm]
#   expect=fail          the job must exit non-zero within the timeout
#   expect=fail:REGEX    ... and its stdout+stderr must match REGEX (grep -E; no spaces)
#   expect=status:N      the job must exit with status N
#   only-nodes=K         the line runs only in a pass across K emulated nodes
#   within=S             the job must end within S seconds (2S in a pass across nodes)
#   driver=SCRIPT        run tests/SCRIPT BUILD_DIR NPES NODES PROGRAM instead of the job: a
#                        test in several jobs (checkpoint/restart: tests/ckpt/phases.sh), which
#                        launches them itself and prints "PASS NAME" when all did their part
# Without expect=, the job must exit 0 and print "PASS NAME", or "SKIP NAME: why" when this
# machine lacks what the run tests (it is counted as skipped, not passed).
#
# TEST_NODES="1 K ..." runs the list once per value: 1 is this node (oshrun); K > 1 runs every
# multi-PE line across K emulated nodes (network namespaces, see tests/netns/README.md), NPES
# PEs becoming K nodes of ceil(NPES/K) PEs (fewer nodes when NPES < K). Unit tests
# (unit/NAME lines) run only in the first pass; engine/NAME tests run in every pass. Logs of a
# K-node pass go to BUILD_DIR/test-logs/nodesK (nodesK-PROVIDER under FI_PROVIDER, nodesK-mpi
# under PANGEA_TRANSPORT=mpi).
# TEST_PINNED_ONLY=1 runs only the lines with only-nodes= (those of each pass's node count).
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
filter=${2:-}
list=$here/tests.list
limit=${TEST_TIMEOUT:-180}
passes=${TEST_NODES:-1}

passed=0
failed=0
skipped=0
ran=0

one_line() {
    paste -sd ' '
}

shm_objects() {
    find /dev/shm -maxdepth 1 -name 'pangea-*' -printf '%f\n' 2>/dev/null | sort
}

# pangea-* objects present before this runner started belong to somebody else's job or to an
# earlier run: reported once, not counted.
preexisting=$(shm_objects)
if [ -n "$preexisting" ]; then
    echo "note: /dev/shm already holds pangea objects (not counted): $(one_line <<<"$preexisting")"
fi

# Objects that appeared since the runner started and are still there two seconds later (a job
# that is starting at this moment unlinks its own within milliseconds).
new_shm_objects() {
    local now
    now=$(comm -13 <(echo "$preexisting") <(shm_objects))
    [ -z "$now" ] && return 0
    sleep 2
    comm -12 <(echo "$now") <(shm_objects)
}

report() { # report ok|skip|FAIL LABEL SECONDS-OR-REASON [LOG]
    if [ "$1" = ok ]; then
        passed=$((passed + 1))
        printf 'ok   %s  (%s)\n' "$2" "$3"
    elif [ "$1" = skip ]; then
        skipped=$((skipped + 1))
        printf 'skip %s  (%s)\n' "$2" "$3"
    else
        failed=$((failed + 1))
        printf 'FAIL %s  (%s)\n' "$2" "$3"
        if [ -n "${4:-}" ] && [ -f "$4" ]; then
            # a hung job's stacks (netns-run.sh) come before its last lines
            { grep -F 'netns-run.sh: stack of pid' "$4" | cut -c 1-400
                grep -vF 'netns-run.sh: stack of pid' "$4" | tail -n 20; } |
                sed 's/^/    | /'
        fi
    fi
}

check_leak() { # check_leak LABEL
    local leaked
    leaked=$(new_shm_objects)
    if [ -z "$leaked" ]; then
        report ok "$1" "none left"
    else
        report FAIL "$1" "left in /dev/shm: $(one_line <<<"$leaked")"
    fi
}

run_pass() { # run_pass NODES FIRST-PASS
local nodes=$1 first=$2
logdir=$build/test-logs
[ "$nodes" -gt 1 ] && logdir=$logdir/nodes$nodes${FI_PROVIDER:+-${FI_PROVIDER//[^A-Za-z0-9_]/_}}${PANGEA_TRANSPORT:+-$PANGEA_TRANSPORT}
mkdir -p "$logdir" || exit 1
[ "$nodes" -gt 1 ] && echo "== the list again across $nodes emulated nodes (network namespaces)${FI_PROVIDER:+, FI_PROVIDER=$FI_PROVIDER}${PANGEA_TRANSPORT:+, PANGEA_TRANSPORT=$PANGEA_TRANSPORT}"
while read -r name npes rest; do
    case "$name" in '' | '#'*) continue ;; esac
    if [ -n "$filter" ] && ! [[ "$name" =~ $filter ]]; then
        continue
    fi
    ran=$((ran + 1))
    envs=()
    suffix=""
    expect_fail=0
    regex=""
    status=""
    shm_check=0
    only_nodes=""
    within=""
    driver=""
    bad=""
    read -ra tokens <<<"$rest" # no globbing: regexes contain '*'
    for tok in "${tokens[@]}"; do
        case "$tok" in
        expect=fail) expect_fail=1 ;;
        expect=fail:*) expect_fail=1 regex=${tok#expect=fail:} ;;
        expect=status:*) status=${tok#expect=status:} ;;
        check-shm) shm_check=1 ;;
        only-nodes=*) only_nodes=${tok#only-nodes=} ;;
        within=*) within=${tok#within=} ;;
        driver=*) driver=${tok#driver=} ;;
        [A-Za-z_]*=*)
            envs+=("$tok")
            suffix+="-${tok#*=}"
            ;;
        *) bad="unknown token '$tok' in tests.list" ;;
        esac
    done
    [ -n "$only_nodes" ] && [ "$only_nodes" != "$nodes" ] && continue
    [ -n "${TEST_PINNED_ONLY:-}" ] && [ -z "$only_nodes" ] && continue
    label="$name np=$npes${envs[*]:+ ${envs[*]}}"
    [ "$nodes" -gt 1 ] && label="$label nodes=$nodes"
    log="$logdir/${name//\//_}-np$npes${suffix//[^A-Za-z0-9_.=-]/_}.log"
    # NAME is a test of tests/shmem, or DIR/NAME for another folder (unit/size_grammar).
    case "$name" in
    unit/*)
        [ "$first" = 1 ] || continue
        exe="$build/tests/$name"
        ;;
    */*)
        exe="$build/tests/$name"
        ;;
    *) exe="$build/tests/shmem/$name" ;;
    esac
    if [ -n "$bad" ]; then
        report FAIL "$label" "$bad"
        continue
    fi
    if [ ! -x "$exe" ]; then
        report FAIL "$label" "$exe not built"
        continue
    fi

    start=$(date +%s%N)
    launch=("$build/bin/oshrun" -np "$npes")
    if [ "$nodes" -gt 1 ]; then
        k=$((npes < nodes ? npes : nodes))
        launch=(env NETNS_TIMEOUT=$((limit - 5)) "$here/netns/netns-run.sh" "$k"
            $(((npes + k - 1) / k)) --)
    fi
    [ -n "$driver" ] && launch=("$here/$driver" "$build" "$npes" "$nodes")
    env "${envs[@]}" timeout -k 10 "$limit" "${launch[@]}" "$exe" \
        >"$log" 2>&1 </dev/null
    rc=$?
    ms=$((($(date +%s%N) - start) / 1000000))
    took=$(printf '%d.%ds' $((ms / 1000)) $((ms % 1000 / 100)))

    why=""
    skip=""
    bound=$within
    [ -n "$within" ] && [ "$nodes" -gt 1 ] && bound=$((within * 2))
    if [ "$rc" -eq 124 ] || { [ "$rc" -eq 137 ] && [ "$ms" -ge $((limit * 1000)) ]; }; then
        why="timed out after ${limit}s"
    elif [ -n "$bound" ] && [ "$ms" -gt $((bound * 1000)) ]; then
        why="took $took, more than the ${bound}s the line allows"
    elif [ -n "$status" ] || [ "$expect_fail" = 1 ]; then
        if [ -n "$status" ] && [ "$rc" -ne "$status" ]; then
            why="exit status $rc, want $status"
        elif [ "$rc" -eq 0 ]; then
            why="exit status 0, want a failure"
        elif [ -n "$regex" ] && ! grep -Eq -- "$regex" "$log"; then
            why="exit status $rc, but the output does not match /$regex/"
        fi
    elif [ "$rc" -ne 0 ]; then
        why="exit status $rc, see $log"
    elif skip=$(grep -m 1 "^SKIP ${name##*/}: " "$log"); then
        skip=${skip#SKIP "${name##*/}": }
    elif ! grep -qx "PASS ${name##*/}" "$log"; then
        why="exit status 0 but no 'PASS ${name##*/}' line, see $log"
    fi
    if [ -n "$skip" ]; then
        report skip "$label" "$skip"
    elif [ -z "$why" ]; then
        report ok "$label" "$took"
    else
        report FAIL "$label" "$why" "$log"
    fi
    if [ "$shm_check" = 1 ]; then
        check_leak "no-shm-leak after $name np=$npes"
    fi
done <"$list"
}

first=1
for nodes in $passes; do
    run_pass "$nodes" "$first"
    first=0
done

if [ "$ran" -eq 0 ]; then
    echo "no line of $list matches '${filter}'"
    exit 1
fi
check_leak "no-shm-leak"
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary+=", $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
