#!/bin/bash
# startup-bench.sh: shmem_init time and peak memory per PE, Pangea beside Open MPI's OSHMEM.
#
#   perf/startup-bench.sh [-b BUILD] [-a BUILD] [-r ROUNDS] [-n "PES..."] [-N "NODES..."]
#                         [-p "PPN..."] [-P] [-t]
#
#   -b BUILD   build directory (default build; make all bench first)
#   -a BUILD   also run Pangea from this build ("before": another commit built with
#              make BUILD=... all bench), in the same rotation, for before/after figures
#   -r ROUNDS  runs per configuration and library, alternating the libraries (default 3); the
#              table gives the median of the rounds
#   -n LIST    PE counts on this node (default "2 4 8 16 32"; "" for none)
#   -N LIST    emulated node counts, network namespaces (default "2 4 8 16"; "" for none; root)
#   -p LIST    PEs per emulated node (default "1 2")
#   -P         Pangea only (without Open MPI's OSHMEM)
#   -t         also run Pangea with PANGEA_STARTUP_TIMING=1 and tabulate each phase's max over
#              the PEs (median of the rounds)
#
# Every run is build/perf/startup_bench (perf/startup_bench.c); Open MPI's is the same source
# built with its oshcc (build/perf/startup_bench_oshmem, made by `make bench` when Open MPI is
# installed). One node: oshrun -np N; emulated nodes: tests/netns/netns-run.sh (-o for Open
# MPI). Prints each run's summary line as it comes, then the table:
#   init ms   max over the PEs of each PE's shmem_init time (mean over the PEs in brackets)
#   hwm MiB   peak resident memory (VmHWM) after init: the largest of any PE, of the nodes' host
#             PEs (lowest PE of a host name, where Pangea runs the node's data server), of the
#             other PEs ('-': every PE is a host PE)
#   srv KiB   the data servers' own memory as the library reports it ('-': not reported; see
#             server_kb in perf/startup_bench.c)
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
BUILD=build
BASE=
ROUNDS=3
ONE_NODE="2 4 8 16 32"
NODES="2 4 8 16"
PPN="1 2"
OSHMEM=1
PHASES=0
usage() {
    sed -n '2,29p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
while getopts ":b:a:r:n:N:p:Pth" opt; do
    case $opt in
    b) BUILD=$OPTARG ;;
    a) BASE=$OPTARG ;;
    r) ROUNDS=$OPTARG ;;
    n) ONE_NODE=$OPTARG ;;
    N) NODES=$OPTARG ;;
    p) PPN=$OPTARG ;;
    P) OSHMEM=0 ;;
    t) PHASES=1 ;;
    *) usage ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || usage
cd "$ROOT" || exit 1
OSHMEM_PROG=$BUILD/perf/startup_bench_oshmem
for build in "$BUILD" $BASE; do
    [[ -x $build/perf/startup_bench ]] ||
        { echo "startup-bench.sh: $build/perf/startup_bench missing: make all bench" >&2; exit 2; }
done
if ((OSHMEM)) && [[ ! -x $OSHMEM_PROG ]]; then
    echo "startup-bench.sh: $OSHMEM_PROG missing: install openmpi-bin libopenmpi-dev (see" \
        "perf/README.md) and make bench, or run with -P" >&2
    exit 2
fi
if [[ -n $NODES ]] && ! tests/netns/netns-run.sh --can-run; then
    echo "startup-bench.sh: cannot run emulated nodes here (root and namespaces needed)" >&2
    exit 2
fi
LIMIT=${STARTUP_BENCH_TIMEOUT:-300} # seconds per run
export OMPI_MCA_hwloc_base_binding_policy=none # Open MPI binds by default; hydra does not

# The rotation: pangea (BUILD), base (-a), oshmem; with -t the Pangea builds again as phases
# and basephases, under PANGEA_STARTUP_TIMING=1.
LIBS=(pangea)
[[ -n $BASE ]] && LIBS+=(base)
((OSHMEM)) && LIBS+=(oshmem)
((PHASES)) && LIBS+=(phases)
((PHASES)) && [[ -n $BASE ]] && LIBS+=(basephases)
LOG=$(mktemp /tmp/startup-bench.XXXXXX)
trap 'rm -f "$LOG" "$LOG".*' EXIT

# run LIB NODES PPN: one job; its summary line (and, for phases, its phase lines) to stdout.
run() {
    local lib=$1 nodes=$2 ppn=$3 np=$(($2 * $3)) cmd env=() build=$BUILD
    [[ $lib == base* ]] && build=$BASE
    local prog=$build/perf/startup_bench
    [[ $lib == oshmem ]] && prog=$OSHMEM_PROG
    [[ $lib == *phases ]] && env=(PANGEA_STARTUP_TIMING=1)
    if ((nodes == 0)); then
        np=$ppn
        if [[ $lib == oshmem ]]; then
            cmd=(oshrun --allow-run-as-root --mca osc ^rdma --oversubscribe -np "$np" "$prog")
        else
            cmd=("$build/bin/oshrun" -np "$np" "$prog")
        fi
    else
        cmd=(env NETNS_TIMEOUT=$((LIMIT - 5)) tests/netns/netns-run.sh)
        [[ $lib == oshmem ]] && cmd+=(-o)
        cmd+=("${nodes}x$ppn" -- "$prog")
    fi
    env "${env[@]}" timeout -k 10 "$LIMIT" "${cmd[@]}" >"$LOG.out" 2>"$LOG.err" </dev/null
    local rc=$?
    if ! grep -q '^startup_bench: ' "$LOG.out"; then
        echo "FAILED $lib nodes=$nodes np=$np: exit status $rc: $(tail -n 3 "$LOG.err" | tr '\n' ' ')"
        return
    fi
    grep '^startup_bench: ' "$LOG.out" | sed "s/^startup_bench: /startup_bench: lib=$lib /"
    [[ $lib == *phases ]] && grep '^pangea: startup: ' "$LOG.err" | grep -v ' phase$'
}

# field KEY LINE: the value of KEY=... in a summary line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# median of the numbers on stdin ('-' when there are none)
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

CONFIGS=()
for n in $ONE_NODE; do CONFIGS+=("0 $n"); done
for ppn in $PPN; do for n in $NODES; do CONFIGS+=("$n $ppn"); done; done

echo "# startup-bench.sh: $(date -u '+%F %T') UTC, $(nproc) cores, $(git -C "$ROOT" describe --always --dirty 2>/dev/null), $ROUNDS rounds"
echo "# libraries: ${LIBS[*]}; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
: >"$LOG"
for cfg in "${CONFIGS[@]}"; do
    read -r nodes ppn <<<"$cfg"
    for ((r = 1; r <= ROUNDS; r++)); do
        for lib in "${LIBS[@]}"; do
            run "$lib" "$nodes" "$ppn" | sed "s/^/$nodes $ppn $r $lib /" | tee -a "$LOG" | cut -d' ' -f5-
        done
    done
done
echo "# load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"

# cell CFG LIB KEY: the median over the rounds of KEY in the summary lines of LIB for CFG
cell() {
    local key=$3
    grep "^$1 [0-9]* $2 startup_bench: " "$LOG" | while read -r line; do field "$key" "$line"; done |
        grep -v '^-$' | median
}
mib() { [[ $1 == - ]] && echo - || awk -v k="$1" 'BEGIN {printf "%.1f", k / 1024}'; }
where() { (($1 == 0)) && echo "1 node" || echo "$1 x $2"; }
pes() { (($1 == 0)) && echo "$2" || echo $(($1 * $2)); }

echo
echo "shmem_init: init ms = max over the PEs (mean), median of $ROUNDS rounds; peak memory (VmHWM) in MiB"
for lib in pangea base oshmem; do
    [[ " ${LIBS[*]} " == *" $lib "* ]] || continue
    case $lib in
    pangea) name="Pangea ($BUILD)" ;;
    base) name="Pangea ($BASE)" ;;
    oshmem) name="Open MPI OSHMEM" ;;
    esac
    echo
    echo "$name"
    printf '%-8s %4s | %9s %11s | %7s %8s %8s | %7s\n' where PEs "init ms" "(mean)" "hwm max" \
        "host PE" "others" "srv KiB"
    for cfg in "${CONFIGS[@]}"; do
        read -r nodes ppn <<<"$cfg"
        c="$nodes $ppn"
        printf '%-8s %4s | %9s %11s | %7s %8s %8s | %7s\n' "$(where $nodes $ppn)" \
            "$(pes $nodes $ppn)" "$(cell "$c" $lib init_ms_max)" "($(cell "$c" $lib init_ms_mean))" \
            "$(mib "$(cell "$c" $lib hwm_kb_max)")" "$(mib "$(cell "$c" $lib host_hwm_kb_max)")" \
            "$(mib "$(cell "$c" $lib other_hwm_kb_max)")" "$(cell "$c" $lib server_kb)"
    done
done

# phase_table LIB TITLE: each phase's max over the PEs, median of the rounds, per configuration
phase_table() {
    echo
    echo "$2"
    # Phase names in the library's order: that of the run reporting the most phases first.
    names=$(grep " $1 pangea: startup: " "$LOG" |
        awk '{run = $1 " " $2 " " $3; name = $11; for (i = 12; i <= NF; i++) name = name " " $i
              n[run]++; list[run] = list[run] name "\n"}
             END {for (r in n) if (n[r] > best) {best = n[r]; longest = r}
                  printf "%s", list[longest]; for (r in list) printf "%s", list[r]}' |
        awk '!seen[$0]++')
    printf '%-18s' phase
    for cfg in "${CONFIGS[@]}"; do
        read -r nodes ppn <<<"$cfg"
        printf ' %8s' "$( ((nodes == 0)) && echo "np$ppn" || echo "${nodes}x$ppn")"
    done
    echo
    while IFS= read -r phase; do
        printf '%-18s' "$phase"
        for cfg in "${CONFIGS[@]}"; do
            printf ' %8s' "$(grep "^$cfg [0-9]* $1 pangea: startup: .*  $phase\$" "$LOG" |
                awk '{print $9}' | median)"
        done
        echo
    done <<<"$names"
}

if ((PHASES)); then
    phase_table phases "Pangea ($BUILD), PANGEA_STARTUP_TIMING=1: each phase's max over the PEs in ms, median of $ROUNDS rounds"
    [[ -n $BASE ]] && phase_table basephases "Pangea ($BASE), the same"
fi
