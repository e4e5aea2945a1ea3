#!/bin/bash
# netns-run.sh - run an MPI (MPICH hydra) job whose PEs sit on several emulated "nodes".
#
# Usage:
#   tests/netns/netns-run.sh [-k] [-v] [-o] [-t] [-f FILE] [-c N] [-r N] [-M] [-d N [-D I]] [-m N] NODES PES_PER_NODE -- PROGRAM [ARGS...]
#   tests/netns/netns-run.sh [-k] [-v] [-o] [-t] [-f FILE] [-c N] [-r N] [-M] [-d N [-D I]] [-m N] NODESxPES_PER_NODE -- PROGRAM [ARGS...]
#   tests/netns/netns-run.sh -C       # remove leftovers of runs that were SIGKILLed
#
#   -k  keep the run directory (node table, holder logs) in /tmp after the run and print its
#       path; namespaces, links and processes are removed as always
#   -v  verbose: print every setup step, every launch, the mpiexec command line, the cleanup
#   -o  start the job with Open MPI's oshrun (its OSHMEM, for comparison runs) instead of
#       MPICH's mpiexec: the same nodes, ranks in the same blocks, TCP/UCX kept on the veths
#   -t  TCP between nodes: every node also gets its own IPC namespace, so UCX cannot use
#       shared memory between nodes and MPI traffic between nodes goes over TCP on the veths
#       (same as NETNS_TCP=1).  Beware: with MPICH 4.0.2 + UCX 1.13.1, TCP endpoints hang in
#       MPI_Finalize in a good part of the runs (see README.md); the timeout then ends the job.
#   -f  place the ranks by a hydra machine file whose hosts are pgnode<i> (i < NODES) instead
#       of in blocks: "pgnode2:1" lines, one per rank in rank order, put each rank on its node
#       (what pangea-map writes); the job still has NODES x PES_PER_NODE ranks
#   -c N, --corrupt N
#       corrupt about 1 in N of the TCP packets each node sends to another node: a tc BPF
#       program (corrupt.bpf.c, built here with clang) on each of the node's links flips one
#       byte of a Pangea message in them (never hydra's traffic to the head namespace); not
#       with -t
#   -r N, --rails N
#       N links per node (1 to 4, default 1), each on a bridge and subnet of its own: link k
#       of node i is pgeth<k>, 10.213.(7+k).(11+i)/24, a port of the head's pgbr<k>. Host
#       names, hydra and MPI use link 0 only; the others are for Pangea's rails
#       (PANGEA_RAILS), and a test may take one down (ip link set pgeth1 down) in its node
#   -M, --no-multicast
#       no multicast route: by default each node's pgeth0 has a 224.0.0.0/4 route, so IP
#       multicast (Pangea's PANGEA_MCAST) crosses the bridge; -M leaves it out (joining a
#       group then fails), for the tests of the fall-back to the point-to-point tree
#   -d N, --drop-multicast N
#       drop about 1 in N of the multicast UDP datagrams reaching each node: a tc BPF program
#       (drop.bpf.c, built here with clang) on the way into each node's pgeth0
#   -D I, --drop-node I
#       with -d: drop only on the way into node I (0 <= I < NODES), a single lossy port
#   -m N, --mtu N
#       MTU of link 0 (pgeth0 and its bridge port), 68 to 65535 (default: veth's 1500), to
#       emulate jumbo frames (9000) or an InfiniBand-like 4 KiB MTU
#   -C  remove namespaces pgns<PID>-* (and their processes) whose netns-run.sh is gone
#
# Examples:
#   tests/netns/netns-run.sh 2 2 -- /tmp/mpi_nodes 2        # 2 nodes x 2 PEs = 4 ranks
#   NETNS_TIMEOUT=60 tests/netns/netns-run.sh 3x1 -- ./prog # 3 nodes x 1 PE
#
# Ranks are placed in blocks: node i holds ranks i*P .. i*P+P-1 (hydra -hosts A:P,B:P,...).
#
# What one run builds (all names carry the PID $$ of this script, so parallel runs never
# collide; all addresses live only inside the run's own namespaces):
#   pgns$$-head       network namespace for mpiexec: lo + bridge "pgbr0" 10.213.7.1/24
#   pgns$$-n<i>       network namespace of node i: lo + "pgeth0" 10.213.7.(11+i)/24 (IPv6 off);
#                     the other end of the veth pair ("pgv<i>") is a port of pgbr0; with -r N
#                     also "pgeth<k>" 10.213.(7+k).(11+i)/24, its peer "pg<k>v<i>" a port of
#                     the head's "pgbr<k>" 10.213.(7+k).1/24 (k = 1 .. N-1)
#   holder process    one per node, "pangea-netns-holder-$$-<i>" (a sleep): sits in the node's
#                     network namespace and in its own UTS and mount namespaces (and IPC with
#                     -t): hostname pgnode<i>; /etc/hosts bind-mounted to a file that maps
#                     pgnode<k> -> 10.213.7.(11+k); /dev/shm a private tmpfs, so POSIX shared
#                     memory (shm_open) of one node is invisible on the others, as on a cluster
# Nothing is added to the root network namespace: the bridge lives in the head namespace, so
# the machine's `ip link` / `ip addr` / routes do not change, and no packet can leave the
# run's namespaces (no default route, no forwarding, no link to a physical interface).
#
# mpiexec runs in the head namespace:
#   mpiexec.mpich -launcher ssh -launcher-exec tests/netns/netns-launch.sh -iface pgbr0 \
#                 -hosts 10.213.7.11:P,10.213.7.12:P,... -n N PROGRAM ARGS
# hydra calls "netns-launch.sh -x ADDRESS <proxy command>" once per node; the wrapper nsenters
# the holder's net+uts+ipc+mnt namespaces and runs the proxy there.  -iface pgbr0 makes hydra
# advertise 10.213.7.1 as its control address (by default it advertises the machine's
# hostname, which the nodes cannot reach).  hydra's node list is what MPICH's
# MPI_COMM_TYPE_SHARED splits by, so every node is a separate shared-memory group.  hydra
# forwards the whole environment (-genvall is its default): SHMEM_DEBUG etc. reach the PEs.
#
# Environment:
#   NETNS_TIMEOUT    seconds before the job is killed (default 300); exit status 124 then,
#                    after one line per thread of every program on the nodes, its functions
#                    innermost first ("netns-run.sh: stack of pid ..."; gdb, when installed)
#   NETNS_TCP=1      same as -t
#   NETNS_VERBOSE=1  same as -v
#   MPIEXEC          mpiexec to use (default: mpiexec.mpich)
#   UCX_TLS          default here: tcp,self,sm (set it to override)
#   UCX_NET_DEVICES  default here: pgeth0, the node's veth (keeps UCX's TCP off loopback)
#   Anything else is passed to the PEs unchanged.
#
# When the job has ended, files still in a node's /dev/shm are reported on stderr as
#   netns-run.sh: /dev/shm leak on pgnode<i>: NAME...
# (that tmpfs disappears with the node, so a leak check of the machine's /dev/shm sees nothing).
#
# Exit status: the job's (mpiexec's) status; 124 on timeout; 255 when a node could not be
# launched; 130/143/129 on SIGINT/SIGTERM/SIGHUP; 77 (skipped) when not root, when ip,
# unshare, nsenter or mpiexec is missing or namespaces/veth/bridge cannot be created; 2 on a
# usage error; 1 when the setup fails otherwise.  Namespaces, veths, bridge, holder processes
# and the run directory are removed on every exit path (normal end, failure, timeout, signal).
set -u
set -o pipefail

ME=netns-run.sh
SKIP=77
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LAUNCHER="$HERE/netns-launch.sh"
SUBNET=10.213.7
HEAD_ADDR=$SUBNET.1
FIRST_NODE_HOST=11
BRIDGE=pgbr0
NODE_IF=pgeth0
TAG="pgns$$"
HEAD_NS="$TAG-head"

usage() {
    sed -n '3,/^#   -C/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
}
msg() { echo "$ME: $*" >&2; }
vmsg() { [[ $VERBOSE == 0 ]] || echo "$ME: $*" >&2; }
skip() {
    msg "SKIP: $*"
    exit $SKIP
}
die() {
    msg "ERROR: $*"
    exit 1
}
# run a setup command, showing it in verbose mode; failures are fatal (cleanup still runs)
run() {
    vmsg "+ $*"
    "$@" || die "setup command failed: $*"
}

# ---- stale cleanup (-C) ----------------------------------------------------------------------
run_alive() { # is netns-run.sh with this PID still running?
    [[ -d /proc/$1 ]] && tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -q netns-run
}
remove_namespace() { # a dead run's namespace NS, with every process still inside it
    local p
    for p in $(ip netns pids "$1" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
    ip netns del "$1" 2>/dev/null
}
cleanup_stale() {
    local ns dir n=0
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
        [[ $ns =~ ^pgns([0-9]+)-(head|n[0-9]+)$ ]] || continue
        run_alive "${BASH_REMATCH[1]}" && continue
        remove_namespace "$ns" && n=$((n + 1))
        echo "removed stale namespace $ns"
    done
    for dir in /tmp/pangea-netns.*; do
        [[ -d $dir && $dir =~ ^/tmp/pangea-netns\.([0-9]+)\.[A-Za-z0-9]+$ ]] || continue
        run_alive "${BASH_REMATCH[1]}" && continue
        rm -rf -- "$dir" && echo "removed stale run directory $dir"
    done
    echo "$ME: removed $n stale namespace(s)"
}

# The whole run is one function, so bash has parsed all of it before anything runs (editing
# this file while runs are in progress cannot break them).
# Anything missing means "skipped" (exit 77).
check_requirements() {
    [[ $(id -u) == 0 ]] || skip "must run as root (creates network namespaces)"
    for cmd in ip unshare nsenter mount hostname "$MPIEXEC"; do
        command -v "$cmd" >/dev/null 2>&1 || skip "'$cmd' not found"
    done
    [[ -x $LAUNCHER ]] || skip "$LAUNCHER is missing or not executable"
    unshare --net --uts --ipc --mount true 2>/dev/null ||
        skip "cannot create network/UTS/IPC/mount namespaces here (unshare failed)"
}

# The clsact qdisc on node i's link, once (both --corrupt and --drop-multicast use it).
add_clsact() {
    ip netns exec "$TAG-n$1" tc qdisc show dev "$2" | grep -q clsact ||
        run ip netns exec "$TAG-n$1" tc qdisc add dev "$2" clsact
}

# --drop-multicast N: builds drop.bpf.c for this rate and attaches it to the way into every
# node's link 0 (where the multicast route is), or node DROP_NODE's alone (--drop-node).
attach_drop() {
    local obj=$RUNDIR/drop.o
    command -v clang >/dev/null || skip "--drop-multicast needs clang (tools/install-deps.sh test)"
    clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DDROP_ONE_IN="$DROP" \
        -c "$HERE/drop.bpf.c" -o "$obj" || die "cannot build the drop program $HERE/drop.bpf.c"
    for ((i = 0; i < NODES; i++)); do
        [[ -z $DROP_NODE || $i == "$DROP_NODE" ]] || continue
        add_clsact "$i" "$NODE_IF"
        run ip netns exec "$TAG-n$i" tc filter add dev "$NODE_IF" ingress bpf da obj "$obj" \
            sec classifier
    done
}

# --corrupt N: builds corrupt.bpf.c for this rate and the head's address, and attaches it to
# the egress of every node's link.
attach_corruption() {
    local obj=$RUNDIR/corrupt.o head
    IFS=. read -r a b c d <<<"$HEAD_ADDR"
    head=$(printf '0x%02x%02x%02x%02x' "$d" "$c" "$b" "$a") # network order, read little-endian
    command -v clang >/dev/null || skip "--corrupt needs clang (tools/install-deps.sh test)"
    clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DCORRUPT_ONE_IN="$CORRUPT" \
        -DHEAD_ADDR="$head" -c "$HERE/corrupt.bpf.c" -o "$obj" ||
        die "cannot build the corruption program $HERE/corrupt.bpf.c"
    for ((i = 0; i < NODES; i++)); do
        for ((k = 0; k < RAILS; k++)); do
            add_clsact "$i" "pgeth$k"
            run ip netns exec "$TAG-n$i" tc filter add dev "pgeth$k" egress bpf da obj "$obj" \
                sec classifier
        done
    done
}

# A hung job: the stacks of its programs (every process in a node's namespace but the launcher
# and the shells), so that a hang seen once, in CI, can be told from its output.
dump_stacks() {
    command -v gdb >/dev/null || {
        msg "(gdb is not installed: no stacks)"
        return
    }
    local i pid exe
    for ((i = 0; i < NODES; i++)); do
        for pid in $(ip netns pids "$TAG-n$i" 2>/dev/null); do
            exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || continue
            case "${exe##*/}" in hydra_* | sshd | bash | sh | dash | sleep | orted | prted) continue ;; esac
            # one line per thread: its functions, innermost first
            timeout 30 gdb -p "$pid" -batch -nx -ex 'set pagination off' \
                -ex 'thread apply all bt 24' 2>/dev/null |
                awk -v who="$ME: stack of pid $pid on pgnode$i (${exe##*/})" '
                    function flush() { if (line != "") print line; line = "" }
                    /^Thread / { flush(); line = who " thread " $2 ":"; next }
                    /^#[0-9]/ { f = ($3 == "in") ? $4 : $2; line = line " " f }
                    END { flush() }' >&2
        done
    done
}

main() {
    # ---- arguments ---------------------------------------------------------------------------
    if [[ ${1:-} == --can-run ]]; then # exit 0 if runs are possible here, else 77 (skipped)
        MPIEXEC=${MPIEXEC:-mpiexec.mpich}
        check_requirements
        exit 0
    fi
    KEEP=0
    VERBOSE=${NETNS_VERBOSE:-0}
    [[ $VERBOSE == 0 ]] || VERBOSE=1
    TCP=${NETNS_TCP:-0}
    [[ $TCP == 0 ]] || TCP=1
    OPENMPI=0
    MACHINEFILE=
    CORRUPT=0
    RAILS=1
    MULTICAST=1
    DROP=0
    DROP_NODE=
    MTU=0
    local args=()
    while [[ $# -gt 0 && $1 != -- ]]; do # --corrupt N is -c N, --rails N is -r N
        case $1 in
        --corrupt) args+=(-c) ;;
        --rails) args+=(-r) ;;
        --no-multicast) args+=(-M) ;;
        --drop-multicast) args+=(-d) ;;
        --drop-node) args+=(-D) ;;
        --mtu) args+=(-m) ;;
        *) args+=("$1") ;;
        esac
        shift
    done
    set -- "${args[@]}" "$@"
    while getopts ":kvotf:c:r:Md:D:m:Ch" opt; do
        case $opt in
        r)
            [[ $OPTARG =~ ^[1-4]$ ]] || { msg "--rails takes N from 1 to 4, not '$OPTARG'"; exit 2; }
            RAILS=$OPTARG
            ;;
        f) MACHINEFILE=$OPTARG ;;
        c)
            [[ $OPTARG =~ ^[0-9]+$ ]] && ((10#$OPTARG >= 1)) ||
                { msg "--corrupt takes N >= 1 (about 1 packet in N), not '$OPTARG'"; exit 2; }
            CORRUPT=$((10#$OPTARG))
            ;;
        k) KEEP=1 ;;
        M) MULTICAST=0 ;;
        d)
            [[ $OPTARG =~ ^[0-9]+$ ]] && ((10#$OPTARG >= 1)) ||
                { msg "--drop-multicast takes N >= 1 (about 1 datagram in N), not '$OPTARG'"; exit 2; }
            DROP=$((10#$OPTARG))
            ;;
        D)
            [[ $OPTARG =~ ^[0-9]+$ ]] || { msg "--drop-node takes a node number, not '$OPTARG'"; exit 2; }
            DROP_NODE=$((10#$OPTARG))
            ;;
        m)
            [[ $OPTARG =~ ^[0-9]+$ ]] && ((10#$OPTARG >= 68 && 10#$OPTARG <= 65535)) ||
                { msg "--mtu takes N from 68 to 65535, not '$OPTARG'"; exit 2; }
            MTU=$((10#$OPTARG))
            ;;
        o) OPENMPI=1 ;;
        v) VERBOSE=1 ;;
        t) TCP=1 ;;
        C)
            [[ $(id -u) == 0 ]] || skip "must run as root"
            cleanup_stale
            exit 0
            ;;
        h) usage ;;
        *) msg "unknown option -$OPTARG"; usage ;;
        esac
    done
    shift $((OPTIND - 1))

    if [[ $# -ge 1 && $1 =~ ^([0-9]+)x([0-9]+)$ ]]; then
        NODES=${BASH_REMATCH[1]}
        PPN=${BASH_REMATCH[2]}
        shift
    elif [[ $# -ge 2 && $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]; then
        NODES=$1
        PPN=$2
        shift 2
    else
        msg "missing NODES PES_PER_NODE (or NODESxPES_PER_NODE)"
        usage
    fi
    [[ $# -ge 1 && $1 == -- ]] && shift
    [[ $# -ge 1 ]] || { msg "missing PROGRAM"; usage; }
    NODES=$((10#$NODES))
    PPN=$((10#$PPN))
    ((NODES >= 1 && NODES <= 200)) || { msg "NODES must be 1..200"; usage; }
    ((PPN >= 1 && PPN <= 1024)) || { msg "PES_PER_NODE must be 1..1024"; usage; }
    [[ -z $DROP_NODE ]] || ((DROP && DROP_NODE < NODES)) ||
        { msg "--drop-node $DROP_NODE needs --drop-multicast and a node below $NODES"; exit 2; }
    NPROCS=$((NODES * PPN))

    TIMEOUT=${NETNS_TIMEOUT:-300}
    if ! [[ $TIMEOUT =~ ^[0-9]+$ && $TIMEOUT -gt 0 ]]; then
        msg "NETNS_TIMEOUT must be a positive number of seconds"
        exit 2
    fi
    MPIEXEC=${MPIEXEC:-mpiexec.mpich}
    ((OPENMPI)) && MPIEXEC=oshrun
    if ((CORRUPT && TCP)); then
        msg "--corrupt with -t: MPI's own traffic would cross the corrupted links"
        exit 2
    fi

    check_requirements

    # ---- cleanup: runs on every exit path ----------------------------------------------------
    RUNDIR=
    CHILD=
    NS_LIST=()
    CLEANED=0

    ns_pids() { # pids of all processes inside our namespaces
        local ns
        for ns in "${NS_LIST[@]}"; do ip netns pids "$ns" 2>/dev/null; done
    }

    cleanup() {
        ((CLEANED)) && return
        CLEANED=1
        local i pids
        # 1. the job: mpiexec gets a TERM first so hydra can tear its proxies down politely
        if [[ -n $CHILD ]] && kill -0 "$CHILD" 2>/dev/null; then
            vmsg "stopping mpiexec (pid $CHILD)"
            kill -TERM "$CHILD" 2>/dev/null
            for ((i = 0; i < 20; i++)); do
                kill -0 "$CHILD" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "$CHILD" 2>/dev/null
        fi
        # 2. everything still inside our namespaces (PEs, proxies, launchers, holders)
        # shellcheck disable=SC2086 # $pids is a word list
        for ((i = 0; i < 50; i++)); do
            pids=$(ns_pids)
            [[ -z $pids ]] && break
            ((i == 0)) && vmsg "killing remaining processes:" $pids
            kill -KILL $pids 2>/dev/null
            sleep 0.1
        done
        [[ -n $pids ]] && msg "WARNING: processes still in the namespaces after SIGKILL:" "$pids"
        # 3. namespaces; veths and the bridge go away with them
        for ((i = ${#NS_LIST[@]} - 1; i >= 0; i--)); do
            [[ -e /run/netns/${NS_LIST[i]} ]] || continue
            vmsg "+ ip netns del ${NS_LIST[i]}"
            ip netns del "${NS_LIST[i]}" 2>/dev/null ||
                msg "WARNING: could not delete namespace ${NS_LIST[i]}"
        done
        # 4. run directory
        if [[ -n $RUNDIR && -d $RUNDIR ]]; then
            if ((KEEP)); then
                msg "kept run directory $RUNDIR"
            else
                rm -rf -- "$RUNDIR"
            fi
        fi
    }
    # shellcheck disable=SC2317 # called from the traps
    on_signal() {
        trap '' INT TERM HUP
        msg "caught SIG$1, stopping the job and cleaning up"
        cleanup
        exit $((128 + $2))
    }
    trap cleanup EXIT
    trap 'on_signal INT 2' INT
    trap 'on_signal TERM 15' TERM
    trap 'on_signal HUP 1' HUP

    # ---- setup -------------------------------------------------------------------------------
    RUNDIR=$(mktemp -d "/tmp/pangea-netns.$$.XXXXXX") || die "mktemp failed"
    chmod 755 "$RUNDIR"
    export NETNS_RUNDIR=$RUNDIR NETNS_VERBOSE=$VERBOSE

    # Namespaces named after my PID are a dead run's (one with my PID before me, killed before
    # its cleanup): no live run can hold them, so they go, with their processes.
    local stale
    for stale in $(ip netns list 2>/dev/null | awk '{print $1}'); do
        [[ $stale == "$TAG"-head || $stale =~ ^$TAG-n[0-9]+$ ]] || continue
        remove_namespace "$stale" || die "namespace $stale is a dead run's and cannot be removed"
        msg "removed namespace $stale, left by a dead run with my PID"
    done

    node_addr() { echo "$SUBNET.$((FIRST_NODE_HOST + $1))"; }
    # link k's subnet: 10.213.(7+k)
    rail_subnet() { echo "${SUBNET%.*}.$((${SUBNET##*.} + $1))"; }

    {
        echo "127.0.0.1 localhost"
        echo "$HEAD_ADDR pgnode-head"
        for ((i = 0; i < NODES; i++)); do echo "$(node_addr $i) pgnode$i"; done
    } >"$RUNDIR/hosts"

    # head namespace with the bridge
    NS_LIST+=("$HEAD_NS")
    vmsg "+ ip netns add $HEAD_NS"
    ip netns add "$HEAD_NS" || skip "cannot create a network namespace (ip netns add failed)"
    run ip -n "$HEAD_NS" link set lo up
    ip -n "$HEAD_NS" link add "$BRIDGE" type bridge ||
        skip "cannot create a bridge (kernel without bridge support?)"
    run ip -n "$HEAD_NS" addr add "$HEAD_ADDR/24" dev "$BRIDGE"
    run ip -n "$HEAD_NS" link set "$BRIDGE" up
    for ((k = 1; k < RAILS; k++)); do
        run ip -n "$HEAD_NS" link add "pgbr$k" type bridge
        run ip -n "$HEAD_NS" addr add "$(rail_subnet $k).1/24" dev "pgbr$k"
        run ip -n "$HEAD_NS" link set "pgbr$k" up
    done

    HOLDERS=()
    # Default: the nodes share the machine's IPC namespace, so UCX moves MPI data between nodes
    # through shared memory (SysV segments, CMA), which MPI_Finalize handles reliably; with -t
    # each node gets its own IPC namespace and UCX has to use TCP.  /dev/shm is private per node
    # in both modes.
    UNSHARE_NS=(--uts --mount)
    ((TCP)) && UNSHARE_NS+=(--ipc)
    : >"$RUNDIR/nodes.tmp"
    for ((i = 0; i < NODES; i++)); do
        ns="$TAG-n$i"
        addr=$(node_addr $i)
        NS_LIST+=("$ns")
        run ip netns add "$ns"
        # both ends are created directly in their namespaces: nothing appears in the root one
        ip link add "pgv$i" netns "$HEAD_NS" type veth peer name "$NODE_IF" netns "$ns" ||
            skip "cannot create a veth pair (kernel without veth support?)"
        run ip -n "$HEAD_NS" link set "pgv$i" master "$BRIDGE" up
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
        ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 2>/dev/null || true
        run ip -n "$ns" link set lo up
        run ip -n "$ns" addr add "$addr/24" dev "$NODE_IF"
        run ip -n "$ns" link set "$NODE_IF" up
        if ((MTU)); then
            run ip -n "$HEAD_NS" link set "pgv$i" mtu "$MTU"
            run ip -n "$ns" link set "$NODE_IF" mtu "$MTU"
        fi
        # IP multicast leaves by the route to 224.0.0.0/4 (there is no default route here)
        [[ $MULTICAST == 0 ]] || run ip -n "$ns" route add 224.0.0.0/4 dev "$NODE_IF"
        for ((k = 1; k < RAILS; k++)); do
            run ip link add "pg${k}v$i" netns "$HEAD_NS" type veth peer name "pgeth$k" netns "$ns"
            run ip -n "$HEAD_NS" link set "pg${k}v$i" master "pgbr$k" up
            run ip -n "$ns" addr add "$(rail_subnet $k).$((FIRST_NODE_HOST + i))/24" dev "pgeth$k"
            run ip -n "$ns" link set "pgeth$k" up
        done
        # holder: own UTS (hostname) and mount (/etc/hosts, /dev/shm) namespaces, IPC with -t
        vmsg "+ holder for pgnode$i in $ns"
        # shellcheck disable=SC2016 # expands in the inner shell
        ip netns exec "$ns" unshare "${UNSHARE_NS[@]}" --propagation private -- \
            /bin/bash -c '
                set -e
                hostname "$1"
                mount --bind "$2/hosts" /etc/hosts
                mount -t tmpfs -o mode=1777 pangea-shm /dev/shm
                : >"$2/ready.$3"
                exec -a "pangea-netns-holder-$4-$3" sleep infinity' \
            holder "pgnode$i" "$RUNDIR" "$i" "$$" \
            </dev/null >"$RUNDIR/holder.$i.log" 2>&1 &
        HOLDERS[i]=$!
        disown "${HOLDERS[i]}" # no "Killed" job report when cleanup kills it
        echo "$addr pgnode$i $ns ${HOLDERS[i]}" >>"$RUNDIR/nodes.tmp"
    done
    mv "$RUNDIR/nodes.tmp" "$RUNDIR/nodes"

    # wait for the holders to have set their node up
    for ((i = 0; i < NODES; i++)); do
        for ((t = 0; t < 100; t++)); do
            [[ -e $RUNDIR/ready.$i ]] && break
            kill -0 "${HOLDERS[i]}" 2>/dev/null || break
            sleep 0.1
        done
        [[ -e $RUNDIR/ready.$i ]] ||
            die "node pgnode$i did not come up: $(cat "$RUNDIR/holder.$i.log" 2>/dev/null)"
    done
    if ((VERBOSE)); then
        msg "nodes (address hostname netns holder-pid):"
        sed 's/^/    /' "$RUNDIR/nodes" >&2
    fi

    ((CORRUPT)) && attach_corruption
    ((DROP)) && attach_drop

    # bridge ports need a moment to reach forwarding state (no STP: immediate, but be safe)
    for ((t = 0; t < 50; t++)); do
        down=0
        for ((k = 0; k < RAILS; k++)); do
            ip -n "$HEAD_NS" -o link show master "pgbr$k" |
                grep -q 'state DOWN\|LOWERLAYERDOWN' && down=1
        done
        ((down)) || break
        sleep 0.1
    done

    # ---- run ---------------------------------------------------------------------------------
    export UCX_TLS=${UCX_TLS-tcp,self,sm}
    export UCX_NET_DEVICES=${UCX_NET_DEVICES-$NODE_IF}

    HOSTS=
    for ((i = 0; i < NODES; i++)); do HOSTS+="${HOSTS:+,}$(node_addr $i):$PPN"; done
    PLACEMENT=(-hosts "$HOSTS")
    if [[ -n $MACHINEFILE ]]; then
        # hydra is given addresses, as with -hosts: pgnode<i> resolves only on the nodes.
        ((OPENMPI)) && die "-f and -o cannot be combined"
        [[ -r $MACHINEFILE ]] || die "machine file $MACHINEFILE cannot be read"
        while IFS= read -r line || [[ -n $line ]]; do
            line=${line%%#*}
            [[ -z ${line//[[:space:]]/} ]] && continue
            [[ $line =~ ^[[:space:]]*pgnode([0-9]+)(:[0-9]+)?[[:space:]]*$ ]] ||
                die "$MACHINEFILE: '$line' is not pgnode<i>[:N]"
            ((10#${BASH_REMATCH[1]} < NODES)) ||
                die "$MACHINEFILE: pgnode${BASH_REMATCH[1]} is not one of the $NODES nodes"
            echo "$(node_addr $((10#${BASH_REMATCH[1]})))${BASH_REMATCH[2]}"
        done <"$MACHINEFILE" >"$RUNDIR/machinefile" || exit 1
        PLACEMENT=(-f "$RUNDIR/machinefile")
    fi
    if ((OPENMPI)); then
        # Open MPI's rsh launcher runs "AGENT HOST orted ..." like hydra's ssh launcher; its
        # out-of-band and TCP traffic stays on the run's subnet. osc ^rdma: without it Open
        # MPI 4.1 crashes in finalize here.
        CMD=("$MPIEXEC" --allow-run-as-root --oversubscribe --mca plm_rsh_agent "$LAUNCHER"
            --mca oob_tcp_if_include "$SUBNET.0/24" --mca btl_tcp_if_include "$SUBNET.0/24"
            --mca osc ^rdma -H "$HOSTS" -np "$NPROCS" "$@")
    else
        CMD=("$MPIEXEC" -launcher ssh -launcher-exec "$LAUNCHER" -iface "$BRIDGE"
            "${PLACEMENT[@]}" -n "$NPROCS" "$@")
    fi
    vmsg "UCX_TLS=$UCX_TLS UCX_NET_DEVICES=$UCX_NET_DEVICES timeout=${TIMEOUT}s" \
        "between nodes: $( ((TCP)) && echo TCP || echo 'shared memory (IPC namespace shared)')"
    vmsg "+ ip netns exec $HEAD_NS ${CMD[*]}"

    # Background + poll so that signals are handled at once and the timeout can be enforced.
    # (A background job of a non-interactive shell reads /dev/null: hydra forwards no stdin.)
    ip netns exec "$HEAD_NS" "${CMD[@]}" &
    CHILD=$!
    START=$SECONDS
    STATUS=
    FINISHED=0
    while :; do
        if ! kill -0 "$CHILD" 2>/dev/null; then
            wait "$CHILD"
            STATUS=$?
            FINISHED=1
            break
        fi
        if ((SECONDS - START >= TIMEOUT)); then
            msg "TIMEOUT: job still running after ${TIMEOUT}s (NETNS_TIMEOUT), killing it"
            dump_stacks
            STATUS=124
            break
        fi
        if [[ -s $RUNDIR/launch-failed ]]; then
            msg "a node could not be launched: $(head -n 1 "$RUNDIR/launch-failed")"
            STATUS=255
            break
        fi
        sleep 0.2
    done
    vmsg "job exit status $STATUS"
    # Each node's /dev/shm disappears with the node, so a segment a PE failed to unlink would
    # go unnoticed: report what is left (seen through the holder's root, /proc/PID/root).
    if ((FINISHED)); then
        for ((i = 0; i < NODES; i++)); do
            # shellcheck disable=SC2012 # names only, for a message
            left=$(ls -A "/proc/${HOLDERS[i]}/root/dev/shm" 2>/dev/null | tr '\n' ' ')
            [[ -z $left ]] || msg "/dev/shm leak on pgnode$i: $left"
        done
    fi
    cleanup
    exit "$STATUS"
}

main "$@"
