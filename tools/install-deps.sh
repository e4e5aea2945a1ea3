#!/bin/sh
# The Debian 12 packages Pangea needs, by purpose:
#   tools/install-deps.sh run    building and running Pangea and its examples (make demo)
#   tools/install-deps.sh test   that, and what the test suite needs (make check)
#   tools/install-deps.sh [all]  that, and what the benchmarks and pangea-tune's plots use (CI)
# As root, installs what is missing and says what; otherwise prints the exact apt-get line and
# fails.
set -e
mode=${1:-all}
# Build and run: a compiler, MPICH (the bootstrap), libfabric (the network between nodes),
# and Scotch (pangea-map's graph mapping of PEs onto nodes and cores).
run="build-essential pkg-config mpich libmpich-dev libfabric-dev libfabric-bin libhwloc-dev
     libscotch-dev"
# Tests: clang (the clang build, and the BPF program that corrupts emulated links:
# tests/netns/corrupt.bpf.c, its headers from build-essential), gdb (the stacks of a job that
# timed out, tests/netns/netns-run.sh), iproute2 (the emulated nodes:
# network namespaces, and tc), man-db (the man-page check), gnuplot-nox (the PNG heatmaps of
# pangea-prof and the plots of pangea-tune; without it both tools still run and write no PNG
# files), and Debian's ARMCI-MPI, Global Arrays and ScaLAPACK (the ARMCI binary-compatibility
# tests and the ARMCI benchmark's reference build).
test="clang gdb iproute2 man-db gnuplot-nox libarmci-mpi-dev libglobalarrays-dev libscalapack-mpich-dev"
# Benchmarks: libopenmpi-dev gives Open MPI's oshcc its headers, for the OSHMEM builds of the
# benchmarks that Pangea is compared with (perf/wait-bench.sh, perf/reference-netns.sh).
perf="libopenmpi-dev"
case "$mode" in
run) packages="$run" ;;
test) packages="$run $test" ;;
all) packages="$run $test $perf" ;;
*)
    echo "usage: tools/install-deps.sh [run|test|all]" >&2
    exit 2
    ;;
esac
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "pangea: missing Debian packages ($mode). Run as root:" >&2
        echo "    apt-get update && apt-get install -y$missing" >&2
        exit 1
    fi
    echo "pangea: installing the Debian packages $mode needs:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q $missing >/dev/null
fi
# Global Arrays' packages pull in Open MPI, whose alternatives outrank MPICH's: mpicc and
# mpiexec must stay MPICH's, which Pangea (and Debian's libga-mpich) are built with.
for alt in mpi:/usr/bin/mpicc.mpich mpirun:/usr/bin/mpirun.mpich; do
    name=${alt%%:*} target=${alt#*:}
    current=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p')
    [ -z "$current" ] || [ "$current" = "$target" ] && continue
    if [ "$(id -u)" != 0 ]; then
        echo "pangea: the '$name' alternative is $current; Pangea needs MPICH's. As root:" >&2
        echo "    update-alternatives --set $name $target" >&2
        exit 1
    fi
    echo "pangea: setting the '$name' alternative to MPICH's $target (was $current): Pangea is" \
        "built with MPICH, and Open MPI's alternatives (pulled in by Global Arrays) outrank it"
    update-alternatives --set "$name" "$target" >/dev/null
done
