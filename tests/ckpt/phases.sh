#!/usr/bin/env bash
# Runs a checkpoint/restart test in phases (tests.list: driver=ckpt/phases.sh); run-tests.sh
# calls it as
#
#   tests/ckpt/phases.sh BUILD_DIR NPES NODES PROGRAM
#
# and TEST_CKPT_CASE picks what happens (PROGRAM is tests/shmem/ckpt_stencil, which reads the
# TEST_CKPT_* variables set here). Every phase is a job of its own, on NODES emulated nodes
# (tests/netns) when NODES > 1, its output indented in ours; the checkpoints go to a scratch
# directory removed at the end. Prints "PASS NAME" when every phase did what it should.
#   kill        a reference run; a run the last PE SIGKILLs mid-step, once the checkpoint before
#               is committed; a restart from it whose RESULT equals the reference's
#   save_crash  PE 0 is SIGKILLed as checkpoint 2 returns (its write under way): the restart
#               must use checkpoint 1
#   layout      saved on 1 node x NPES and restored on 2 nodes x NPES/2, then the reverse
#   corrupt     a byte of an image's data, then of its header, changed: the restart names the
#               file and the PE
#   mismatch    the restarting program makes one more allocation: one message says so
#   npes        restored with half the PEs: one message names both counts
#   unwritable  the directory's parent is a file: a clear error
#   lock        a checkpoint while a PE holds a lock: an error naming the call that took it
#   once        one run that saves and restores in the same job (tests/armci/ckpt_groups); with
#               TEST_CKPT_ERROR=REGEX (dots for spaces) it must fail, saying so
set -u

build=$1 npes=$2 nodes=$3 prog=$4
tests=$(cd "$(dirname "$0")/.." && pwd)
name=${prog##*/}
case=${TEST_CKPT_CASE:?set TEST_CKPT_CASE}
work=$(mktemp -d /tmp/pangea-ckpt.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT
phase=""
out=""
rc=0

# run K NPES [VAR=VALUE ...]: the program on K nodes (of ceil(NPES/K) PEs, as run-tests.sh
# places them); its output in $out, its status in $rc.
run() {
    local k=$1 n=$2
    shift 2
    [ "$k" -gt "$n" ] && k=$n
    if [ "$k" -gt 1 ]; then
        out=$(env "$@" NETNS_TIMEOUT=60 "$tests/netns/netns-run.sh" "$k" $(((n + k - 1) / k)) \
            -- "$prog" 2>&1 </dev/null)
    else
        out=$(env "$@" "$build/bin/oshrun" -np "$n" "$prog" 2>&1 </dev/null)
    fi
    rc=$?
    sed "s/^/  [$phase] /" <<<"$out"
}

fail() {
    echo "FAIL $name ($case): $phase: $*"
    exit 1
}

expect_ok() {
    [ "$rc" -eq 0 ] || fail "exit status $rc"
    grep -qx "PASS $name" <<<"$out" || fail "no 'PASS $name' line"
}

expect_error() { # expect_error REGEX: the job failed, saying so
    [ "$rc" -ne 0 ] || fail "exit status 0, want a failure"
    grep -Eq -- "$1" <<<"$out" || fail "the output does not match /$1/"
}

result() {
    grep -m 1 '^RESULT ' <<<"$out"
}

# Saves every 5 steps of 40 on K nodes, killed in step 23 once checkpoint 4 (taken after step
# 20) is committed, without a later call into the library. Restores on K2 nodes.
kill_and_restart() { # kill_and_restart K K2 REFERENCE
    phase="killed on $1 node(s)"
    rm -rf "$work/run"
    run "$1" "$npes" TEST_CKPT_DIR="$work/run" TEST_CKPT_KILL_STEP=23
    [ "$rc" -ne 0 ] || fail "the job survived its SIGKILL"
    [ -d "$work/run/ckpt-4" ] || fail "no committed checkpoint 4 in $work/run: $(ls "$work/run")"
    phase="restarted on $2 node(s)"
    run "$2" "$npes" TEST_CKPT_DIR="$work/run" TEST_CKPT_RESTART=1 TEST_CKPT_EXPECT=4
    expect_ok
    [ "$(result)" = "$3" ] || fail "$(result), the uninterrupted run: $3"
}

reference() { # reference K: an uninterrupted run on K nodes; its RESULT in $ref
    phase="reference on $1 node(s)"
    run "$1" "$npes" TEST_CKPT_DIR="$work/ref"
    expect_ok
    ref=$(result)
    [ -n "$ref" ] || fail "no RESULT line"
    [ -d "$work/ref/ckpt-8" ] || fail "the last checkpoint is not committed: $(ls "$work/ref")"
}

# flip FILE OFFSET: changes one byte (OFFSET from the end when negative).
flip() {
    local size at
    size=$(stat -c %s "$1")
    at=$2
    [ "$at" -lt 0 ] && at=$((size + at))
    local byte
    byte=$(od -An -tu1 -j "$at" -N 1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte + 1) % 256)))" |
        dd of="$1" bs=1 seek="$at" conv=notrunc status=none
}

case "$case" in
kill)
    reference "$nodes"
    kill_and_restart "$nodes" "$nodes" "$ref"
    ;;
save_crash)
    reference "$nodes"
    phase="killed while writing checkpoint 2"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/run" TEST_CKPT_KILL_AFTER_SAVE=2
    [ "$rc" -ne 0 ] || fail "the job survived its SIGKILL"
    [ -d "$work/run/ckpt-1" ] && [ ! -d "$work/run/ckpt-2" ] ||
        fail "want checkpoint 1 committed and 2 not: $(ls "$work/run")"
    phase="restarted"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/run" TEST_CKPT_RESTART=1 TEST_CKPT_EXPECT=1
    expect_ok
    [ "$(result)" = "$ref" ] || fail "$(result), the uninterrupted run: $ref"
    ;;
layout)
    [ $((npes % 2)) -eq 0 ] || fail "needs an even number of PEs"
    reference 1
    kill_and_restart 1 2 "$ref"
    kill_and_restart 2 1 "$ref"
    ;;
corrupt)
    reference "$nodes"
    phase="data of PE 1 changed"
    cp -r "$work/ref" "$work/bad"
    flip "$work/bad/ckpt-8/pe-1.img" 4100 # the data start at 4096
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/bad" TEST_CKPT_RESTART=1
    expect_error "shmemx_restart: .*/ckpt-8/pe-1.img, the image of PE 1, is corrupt \(CRC32C 0x[0-9a-f]+ of its data"
    phase="header of PE $((npes - 1)) changed"
    rm -rf "$work/bad"
    cp -r "$work/ref" "$work/bad"
    flip "$work/bad/ckpt-8/pe-$((npes - 1)).img" 20
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/bad" TEST_CKPT_RESTART=1
    expect_error "shmemx_restart: .*/ckpt-8/pe-$((npes - 1)).img, the image of PE $((npes - 1)), is corrupt \(CRC32C of its header"
    ;;
mismatch)
    reference "$nodes"
    phase="restarted with one more allocation"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/ref" TEST_CKPT_RESTART=1 TEST_CKPT_EXTRA=1
    expect_error "shmemx_restart: the allocations differ from checkpoint 8's in .*: the checkpoint has 4 symmetric heap objects, this program 5"
    [ "$(grep -c 'allocations differ' <<<"$out")" -eq 1 ] || fail "more than one message"
    ;;
npes)
    reference "$nodes"
    phase="restarted on $((npes / 2)) PEs"
    npes_saved=$npes
    npes=$((npes / 2))
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/ref" TEST_CKPT_RESTART=1
    expect_error "shmemx_restart: checkpoint 8 in .* holds the images of $npes_saved PEs; this job has $npes"
    [ "$(grep -c 'holds the images' <<<"$out")" -eq 1 ] || fail "more than one message"
    ;;
unwritable)
    phase="a file as the directory's parent"
    touch "$work/file"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/file/ckpt"
    expect_error "shmemx_checkpoint: cannot create directory .*/file/ckpt: Not a directory"
    ;;
lock)
    phase="a lock held"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/run" TEST_CKPT_LOCK=1
    expect_error "shmemx_checkpoint: PE $((npes - 1)) holds 1 lock \(the last taken by (shmem_set_lock|ARMCI_Lock)\)"
    ;;
once)
    phase="saved and restored in one job"
    run "$nodes" "$npes" TEST_CKPT_DIR="$work/run"
    if [ -n "${TEST_CKPT_ERROR:-}" ]; then
        expect_error "$TEST_CKPT_ERROR"
    else
        expect_ok
    fi
    ;;
*)
    fail "unknown TEST_CKPT_CASE"
    ;;
esac
echo "PASS $name"
