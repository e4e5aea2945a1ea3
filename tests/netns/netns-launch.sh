#!/bin/bash
# netns-launch.sh - "ssh" replacement for MPICH hydra, used by tests/netns/netns-run.sh.
#
# hydra's ssh launcher runs   LAUNCHER [-x] HOST '"/usr/bin/hydra_pmi_proxy"' --control-port ...
# i.e. ssh options, the host, then the proxy command as separate words, some of them carrying
# literal double quotes (ssh would join the words and hand them to the remote shell).  This
# script does the same locally: it looks HOST up in the node table that netns-run.sh wrote
# ($NETNS_RUNDIR/nodes, lines "ADDRESS HOSTNAME NETNS HOLDER_PID"), enters the network, UTS,
# IPC and mount namespaces of that node's holder process with nsenter, changes to the current
# directory and runs the joined command through /bin/sh -c, as sshd would.
#
# HOST may be the node's address (what netns-run.sh gives hydra) or its hostname (pgnodeN).
# On any error it prints a message, records it in $NETNS_RUNDIR/launch-failed (netns-run.sh
# watches that file and stops the job: hydra itself waits forever for a proxy that never
# starts) and exits 255, like ssh.
set -u

fail() {
    echo "netns-launch.sh: $*" >&2
    if [[ -n "${NETNS_RUNDIR:-}" && -d "$NETNS_RUNDIR" ]]; then
        echo "$*" >>"$NETNS_RUNDIR/launch-failed"
    fi
    exit 255
}

# Skip ssh-style options: hydra passes -x; accept the other common ones for robustness.
while [[ $# -gt 0 ]]; do
    case "$1" in
    -[1246AaCfGgKkMNnqsTtVvXxYy]) shift ;;
    -[bcDEeFIiJLlmOopQRSWw]) shift 2 ;;
    -[bcDEeFIiJLlmOopQRSWw]?*) shift ;;
    --) shift; break ;;
    -*) fail "unsupported ssh option '$1'" ;;
    *) break ;;
    esac
done
[[ $# -ge 2 ]] || fail "usage: netns-launch.sh [ssh options] HOST COMMAND..."
host=$1
shift
host=${host#*@} # user@host

[[ -n "${NETNS_RUNDIR:-}" && -r "$NETNS_RUNDIR/nodes" ]] ||
    fail "NETNS_RUNDIR is not set or has no node table (run through netns-run.sh)"

pid=
while read -r addr name ns holder; do
    if [[ "$host" == "$addr" || "$host" == "$name" ]]; then
        pid=$holder
        break
    fi
done <"$NETNS_RUNDIR/nodes"
[[ -n "$pid" ]] || fail "unknown host '$host' (not in $NETNS_RUNDIR/nodes)"

# Make sure the pid still is our holder (and not a recycled pid).
cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) ||
    fail "holder process $pid of host '$host' is gone"
[[ "$cmdline" == *"pangea-netns-holder"* ]] ||
    fail "pid $pid of host '$host' is not a node holder process ($cmdline)"

if [[ "${NETNS_VERBOSE:-0}" != 0 ]]; then
    echo "netns-launch.sh: $host ($name, ns $ns, holder $pid): $*" >&2
fi

# Entering the holder's mount namespace moves us to its root directory; go back to the
# directory mpiexec runs in (hydra also passes the working directory to the proxy).
# "$*" joins the command words with spaces, as ssh does before handing them to the shell.
# shellcheck disable=SC2016 # $1 and $* expand in the inner shell
exec nsenter --target "$pid" --net --uts --ipc --mount -- \
    /bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; eval "exec $*"' netns-launch "$PWD" "$*"
