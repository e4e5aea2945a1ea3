# Sourced by the perf/*-bench.sh drivers that compare with Open MPI's OSHMEM:
#   bench_setup NAME      (after BUILD is set)
# goes to the source tree (ROOT; RUN is its netns-run.sh), stops unless BUILD/perf/NAME is
# built, and builds perf/NAME.c with Open MPI's oshcc into OMPI_BENCH (have_oshmem=1), removed
# at exit; without oshcc have_oshmem=0 and the OSHMEM lines are skipped.
bench_setup() {
    local name=$1
    ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    RUN="$ROOT/tests/netns/netns-run.sh"
    cd "$ROOT" || exit 1
    [[ -x $BUILD/perf/$name ]] || { echo "$name: build first (make all bench)" >&2; exit 2; }
    OMPI_BENCH=/tmp/${name}_ompi.$$
    have_oshmem=0
    if command -v oshcc >/dev/null && oshcc -O3 -o "$OMPI_BENCH" "perf/$name.c" 2>/dev/null; then
        have_oshmem=1
    fi
}
