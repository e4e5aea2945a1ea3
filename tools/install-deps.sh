#!/bin/sh
# The Debian 12 packages Pangea builds, tests and runs with. As root, installs what is
# missing; otherwise prints the exact apt-get line and fails.
set -e
# libarmci-mpi-dev, libglobalarrays-dev, libscalapack-mpich-dev: the ARMCI binary-compatibility
# tests and the ARMCI benchmark's reference build (Debian's ARMCI-MPI and prebuilt Global Arrays).
# gnuplot-nox: pangea-tune's PNG plots (without it the tool still runs and says so).
packages="build-essential pkg-config mpich libmpich-dev libfabric-dev libfabric-bin libhwloc-dev
clang iproute2 libarmci-mpi-dev libglobalarrays-dev libscalapack-mpich-dev gnuplot-nox"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
    echo "pangea: missing Debian packages. Run as root:" >&2
    echo "    apt-get update && apt-get install -y$missing" >&2
    exit 1
fi
echo "pangea: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q $missing >/dev/null
# Global Arrays' packages pull in Open MPI, whose alternatives outrank MPICH's: mpicc and
# mpiexec must stay MPICH's (Pangea and Debian's libga-mpich are built with it).
update-alternatives --set mpi /usr/bin/mpicc.mpich >/dev/null
update-alternatives --set mpirun /usr/bin/mpirun.mpich >/dev/null
