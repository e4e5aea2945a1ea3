#!/bin/bash
# The off-node reference run: Pangea and the figures it is measured against, in one go, between
# two emulated nodes (network namespaces joined by veths, one PE per node), unbound, then the
# small-message latencies again with PEs bound to a core (the launcher's -bind-to core):
#   1. raw TCP over the same veth (perf/tcp_reference): 8 B and 1 MiB round trips with a
#      spinning and a blocking receiver, and a stream of 4 MiB writes (bound: blocking only);
#   2. libfabric's own round trip (fi_pingpong, 8 B) over net and over tcp;ofi_rxm;
#   3. Pangea's shmem_bench (put+quiet, get, fetch-add latency, put/get bandwidth, barrier),
#      over the default provider (net where libfabric has it) and over tcp;ofi_rxm;
#   4. the same shmem_bench built with Open MPI's oshcc, run with Open MPI's OSHMEM (UCX over
#      TCP between the nodes) — skipped when oshcc is not installed;
#   5. Pangea's pipeline_bench (2-D strided put/get, 1 KiB rows) for 1, 2, 4 and 8 pipeline
#      buffers of 16K, 64K and 256K.
# Needs root (namespaces) and a built tree: make all bench. Run it on an otherwise idle machine:
#   perf/reference-netns.sh [BUILD_DIR] > perf/results/reference-netns-DATE.txt
set -u
BUILD=${1:-build}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
RUN="$ROOT/tests/netns/netns-run.sh"
cd "$ROOT" || exit 1
for prog in tcp_reference shmem_bench pipeline_bench; do
    [[ -x $BUILD/perf/$prog ]] || { echo "reference-netns.sh: build first (make all bench): $BUILD/perf/$prog" >&2; exit 2; }
done

section() { echo; echo "## $* (load average $(cut -d' ' -f1-3 /proc/loadavg))"; }
# Binding for MPICH's hydra and Open MPI's mpirun; Open MPI binds by default, hydra does not.
bound() { HYDRA_BINDING=$1 OMPI_MCA_hwloc_base_binding_policy=$1 "${@:2}"; }
export OMPI_MCA_hwloc_base_binding_policy=none

echo "# reference-netns.sh: $(date -u '+%F %T') UTC, $(nproc) cores, 2 nodes x 1 PE"
have_oshmem=0
if command -v oshcc >/dev/null && oshcc -O3 -o "/tmp/shmem_bench_ompi.$$" perf/shmem_bench.c 2>/dev/null; then
    have_oshmem=1
fi

section "raw TCP, unbound"
"$RUN" 2 1 -- "$BUILD/perf/tcp_reference" -s 1048576 2>&1 | grep -v '^$'
for prov in net 'tcp;ofi_rxm'; do
    fi_info -p "$prov" >/dev/null 2>&1 || continue
    section "libfabric fi_pingpong, $prov, 8 B (usec/xfer is half a round trip), unbound"
    "$RUN" 2 1 -- "$HERE/fi_pingpong-netns.sh" "$prov" 8 2>&1 | grep -E 'bytes|usec|^ *8 ' | sort -u
done
section "Pangea shmem_bench, default provider, unbound"
"$RUN" 2 1 -- "$BUILD/bin/pangea-info" 2>/dev/null | grep -m1 'ofi .*provider'
"$RUN" 2 1 -- "$BUILD/perf/shmem_bench" -s 2>&1 | grep -v '^#'
section "Pangea shmem_bench over tcp;ofi_rxm (FI_PROVIDER), unbound"
FI_PROVIDER='tcp;ofi_rxm' "$RUN" 2 1 -- "$BUILD/perf/shmem_bench" -s 2>&1 | grep -v '^#'
if ((have_oshmem)); then
    section "Open MPI OSHMEM shmem_bench (UCX over TCP), unbound"
    UCX_TLS=tcp,self "$RUN" -o 2 1 -- "/tmp/shmem_bench_ompi.$$" -s 2>&1 | grep -v '^#'
fi

# Bound to a core: on this machine both nodes' PEs land on core 0. Small messages only, and
# time limits: a library whose progress needs a second thread on that core stalls here.
section "bound to a core: raw TCP, blocking receivers"
bound core "$RUN" 2 1 -- "$BUILD/perf/tcp_reference" -B 2>&1 | grep -v '^$'
section "bound to a core: fi_pingpong, tcp;ofi_rxm, 8 B, 200 round trips"
bound core "$RUN" 2 1 -- "$HERE/fi_pingpong-netns.sh" 'tcp;ofi_rxm' 8 200 2>&1 | grep -E 'bytes|usec|^ *8 ' | sort -u
section "bound to a core: Pangea shmem_bench, 8 B"
bound core "$RUN" 2 1 -- "$BUILD/perf/shmem_bench" -s -q -m 8 2>&1 | grep -v '^#'
if ((have_oshmem)); then
    section "bound to a core: Open MPI OSHMEM shmem_bench, 8 B (stopped after 120 s)"
    UCX_TLS=tcp,self NETNS_TIMEOUT=120 bound core "$RUN" -o 2 1 -- "/tmp/shmem_bench_ompi.$$" -s -q -m 8 2>&1 | grep -v '^#'
fi
rm -f "/tmp/shmem_bench_ompi.$$"

section "Pangea pipeline_bench: buffers x buffer size, unbound"
printf '%-8s %7s  %-26s %10s %12s\n' size buffers transfer bytes MB/s
for size in 16K 64K 256K; do
    for buffers in 1 2 4 8; do
        PANGEA_PIPELINE_BUFFERS=$buffers PANGEA_PIPELINE_BUFFER_SIZE=$size \
            "$RUN" 2 1 -- "$BUILD/perf/pipeline_bench" 2>&1 |
            awk -v s=$size -v b=$buffers '/^strided/ && $(NF-3) >= 1048576 {
                printf "%-8s %7s  %-26s %10s %12s\n", s, b, $1 " " $2, $(NF-3), $(NF-1) }'
    done
done
