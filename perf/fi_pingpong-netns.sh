#!/bin/sh
# The raw libfabric round trip between two emulated nodes, the reference for Pangea's
# off-node latency: fabtests' fi_pingpong (Debian's libfabric-bin) as a 2-rank job, rank 0
# the server on node 0 (10.213.7.11), rank 1 the client.
#   tests/netns/netns-run.sh 2 1 -- perf/fi_pingpong-netns.sh [PROVIDER] [BYTES] [ITERATIONS]
# fi_pingpong's usec/xfer is half a round trip.
prov=${1:-tcp;ofi_rxm}
bytes=${2:-8}
iters=${3:-20000}
if [ "$PMI_RANK" = 0 ]; then
    exec fi_pingpong -p "$prov" -e rdm -I "$iters" -S "$bytes"
fi
sleep 1 # the server listens first
exec fi_pingpong -p "$prov" -e rdm -I "$iters" -S "$bytes" 10.213.7.11
