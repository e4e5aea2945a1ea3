# Sourced by the drivers that run a test as a job and then check what its PEs said
# (corrupt.sh, mcast.sh). job_passed NAME RC OUTPUT SHOW: prints the output's lines that match
# the extended regex SHOW (and the verdicts); exits the driver with a FAIL line when the job
# failed (its last lines shown) or printed no PASS line, and with the SKIP line when it skipped.
# Returns when the job passed: the driver's own checks follow.
job_passed() {
    local name=$1 rc=$2 out=$3 show=$4 pass
    grep -E "^(PASS|FAIL|SKIP)|check failed|$show" <<<"$out" | sed 's/^/  | /'
    if [ "$rc" -ne 0 ]; then
        tail -n 30 <<<"$out" | sed 's/^/  | /'
        echo "FAIL $name: exit status $rc"
        exit 1
    fi
    pass=$(grep -Em 1 '^(PASS|SKIP) ' <<<"$out") || { echo "FAIL $name: no PASS line"; exit 1; }
    case $pass in SKIP*) echo "$pass"; exit 0 ;; esac
}
