# slurm_lib.sh - a real Slurm cluster on this machine for one test: munged
# and slurmctld in the root namespace, one slurmd per netns_lib.sh host
# (sourced, POSIX sh; needs root; Debian's slurm-wlm 22.05 and munge).
#
# Usage:
#     . "$top_srcdir/tests/integration/slurm_lib.sh"   # sources netns_lib.sh
#     slurm_require          # root + netns, installs slurmctld slurmd
#                            # slurm-client munge if missing; else exit 77
#     slurm_start 3          # hosts 1..3 (netns_create 3 unless made before),
#                            # nodes idle within 60 s; stopped by the exit trap
#     slurm_start 3 4        # same with CPUs=4 per node (config_overrides)
#     timeout 120 salloc -N2 --no-kill sh -c 'srun --ntasks-per-node=1 hostname'
#     slurm_kill_node 2      # the node is lost: every process of host 2 SIGKILLed
#     slurm_wait_state 2 down 60   # bounded wait for a node state (sinfo %T)
#     slurm_stop             # stop everything now (else the trap does it)
#
# Node i is named like its host, $(netns_name i) (e.g. enc4242qxh1, so
# SLURM_JOB_NODELIST reads enc4242qxh[1-3]); its slurmd runs in that
# namespace as `slurmd -D -N <name>` under `unshare --uts` with the hostname
# set to the node name, so `srun hostname` prints the node name.  slurmctld
# listens on $NETNS_LAUNCHER_ADDR (SlurmctldHost=<this host>(<that address>))
# on a free port; salloc/srun/sbatch run in the root namespace and find the
# cluster through SLURM_CONF, which slurm_start exports.  Configuration,
# state, spool, logs and the munge key and socket live in $SLURM_DIR.
# On failure slurm_start prints the daemon logs' tails.  Leftovers of a
# SIGKILLed run (daemons, directory) are removed by the next slurm_start.
# Never `wait` without arguments in a test using this: the daemons are
# children of the test shell; wait for your own pids.
#
# Slurm 22.05 facts the tests rely on (checked by slurm_selftest.sh):
# * slurmd runs under nsenter --net, not `ip netns exec`: the latter mounts a
#   fresh /sys without /sys/fs/cgroup and slurmd 22.05 then refuses to start
#   ("Unable to initialize cgroup plugin") even with proctrack/pgid.
# * munged wants its socket directory and every parent mode 0755 and its key
#   0600; it runs as root here; clients and slurmd reach it through
#   AuthInfo=socket=... (a path socket works across network namespaces).
# * Inside `salloc -n5`, `srun --ntasks-per-node=1` alone starts 5 tasks
#   (SLURM_NTASKS wins): one task per node needs -N<nodes> -n<nodes> too.
# * A step beside a running one needs --overlap ("Requested nodes are busy").
# * On node loss under `salloc --no-kill` the job shrinks to the live nodes
#   (SLURM_JOB_NODELIST in the job's environment does not change), but a
#   running step spanning the lost node is force-terminated, its tasks on
#   live nodes SIGKILLed, unless that srun was also given --no-kill.
# * SlurmdTimeout=10: a killed node is "down" about 20 s later.
#
# Variables set: SLURM_DIR, SLURM_CONF (exported), SLURM_NODES (names),
# SLURM_CTLD_PORT.
# shellcheck shell=sh disable=SC2034 # variables are for the tests that source this

# shellcheck source=/dev/null # found through top_srcdir
. "${top_srcdir:-.}/tests/integration/netns_lib.sh"

SLURM_DIR=
SLURM_NODES=
SLURM_PIDS=

# slurm_require: root, namespaces, and the Slurm and munge programs
# (apt-get install when missing); exit 77 with one line otherwise.
slurm_require() {
    netns_require
    if ! command -v slurmctld >/dev/null 2>&1 || ! command -v slurmd >/dev/null 2>&1 ||
        ! command -v srun >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1 ||
        ! command -v mungekey >/dev/null 2>&1; then
        netns_log "installing slurmctld slurmd slurm-client munge"
        DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -q \
            --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null 2>&1 ||
            netns_skip "apt-get install slurmctld slurmd slurm-client munge failed"
    fi
}

# slurm_node I|NAME: the node name of host I.
slurm_node() { netns_name "$1"; }

# Starts "$@" in the background, its output in log $1; remembers the pid.
slurm_spawn() {
    _log=$1
    shift
    "$@" >"$SLURM_DIR/log/$_log" 2>&1 </dev/null &
    SLURM_PIDS="$SLURM_PIDS $!"
}

# A free TCP port of the root namespace near 20000 + PID % 20000.
slurm_free_port() {
    _p=$((20000 + $$ % 20000))
    _i=0
    while [ "$_i" -lt 100 ]; do
        if [ -z "$(ss -Htln "sport = :$_p")" ]; then
            echo "$_p"
            return 0
        fi
        _p=$((_p + 1))
        _i=$((_i + 1))
    done
    return 1
}

# slurm_until SECS WHAT cmd...: polls cmd every 0.2 s until it succeeds;
# fails after SECS seconds with a line naming WHAT.
slurm_until() {
    _secs=$1
    _n=$(($1 * 5))
    _what=$2
    shift 2
    while [ "$_n" -gt 0 ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
        _n=$((_n - 1))
    done
    netns_log "$_what: not after $_secs s"
    return 1
}

# munged with a fresh key; its socket directory must be reachable (0755 up
# to /) and the key private (0600), or munged refuses to start.
slurm_start_munge() {
    mkdir -p "$SLURM_DIR/munge" "$SLURM_DIR/msock" &&
        chmod 700 "$SLURM_DIR/munge" && chmod 755 "$SLURM_DIR" "$SLURM_DIR/msock" &&
        mungekey -c -b 1024 -k "$SLURM_DIR/munge/munge.key" || return 1
    slurm_spawn munged.out munged -F --key-file="$SLURM_DIR/munge/munge.key" \
        --socket="$SLURM_DIR/msock/munge.socket" \
        --pid-file="$SLURM_DIR/munge/munged.pid" --log-file="$SLURM_DIR/log/munged.log" \
        --seed-file="$SLURM_DIR/munge/munged.seed"
    slurm_until 10 "munged answering on $SLURM_DIR/msock/munge.socket" \
        sh -c "munge -S '$SLURM_DIR/msock/munge.socket' -n | unmunge -S '$SLURM_DIR/msock/munge.socket'"
}

# The node line of slurmd -C without its name (CPUs, sockets, memory), or
# CPUs=$1 when given.
slurm_node_hw() {
    if [ -n "$1" ]; then
        echo "CPUs=$1 Boards=1 SocketsPerBoard=1 CoresPerSocket=$1 ThreadsPerCore=1"
    else
        slurmd -C | sed -n 's/^NodeName=[^ ]* //p'
    fi
}

# slurm_write_conf CPUS: $SLURM_CONF for the nodes in SLURM_NODES.
slurm_write_conf() {
    _hw=$(slurm_node_hw "$1")
    [ -n "$_hw" ] || { netns_log "slurmd -C printed no node line"; return 1; }
    {
        cat <<EOF
# written by slurm_lib.sh for one test run
ClusterName=$NETNS_RUN
SlurmctldHost=$(hostname -s)($NETNS_LAUNCHER_ADDR)
SlurmctldPort=$SLURM_CTLD_PORT
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SLURM_DIR/msock/munge.socket
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool/%n
SlurmctldPidFile=$SLURM_DIR/run/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/run/slurmd-%n.pid
SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_DIR/log/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobContainerType=job_container/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
SlurmdTimeout=10
SlurmctldTimeout=10
MessageTimeout=5
InactiveLimit=0
KillWait=5
MinJobAge=10
SlurmctldDebug=info
SlurmdDebug=info
EOF
        [ -z "$1" ] || echo "SlurmdParameters=config_overrides"
        for _n in $SLURM_NODES; do
            echo "NodeName=$_n NodeAddr=$(netns_addr "$_n") $_hw State=UNKNOWN"
        done
        echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    } >"$SLURM_CONF"
}

# Every node of SLURM_NODES idle (sinfo, one line per node).
slurm_all_idle() {
    _idle=$(sinfo -h -N -o '%N %T' | awk '$2 == "idle"' | wc -l)
    [ "$_idle" = "$(echo "$SLURM_NODES" | wc -w)" ]
}

# slurm_reap_stale: stops the daemons and removes the directory of runs
# whose test PID is gone (a SIGKILLed test); their slurmd went with their
# namespaces (netns_reap_stale).  A daemon is killed only when its command
# line names that run's directory.
slurm_reap_stale() {
    for _d in "${TMPDIR:-/tmp}"/encore-slurm-*.*; do
        [ -d "$_d" ] || continue
        _pid=${_d##*/encore-slurm-}
        _pid=${_pid%%.*}
        kill -0 "$_pid" 2>/dev/null && continue
        for _f in "$_d/run/slurmctld.pid" "$_d/munge/munged.pid"; do
            _p=$(cat "$_f" 2>/dev/null) || continue
            case $({ tr '\0' ' ' <"/proc/$_p/cmdline"; } 2>/dev/null) in
            *"$_d/"*) kill -9 "$_p" ;;
            esac
        done
        rm -rf "$_d"
    done
}

# slurm_start N [CPUS]: munged, slurmctld and N slurmd, all nodes idle.
slurm_start() {
    [ -z "$SLURM_DIR" ] || netns_die "slurm_start called twice"
    slurm_reap_stale
    [ "$NETNS_COUNT" -ge "$1" ] || netns_create "$1"
    netns_at_exit slurm_stop
    SLURM_DIR=$(mktemp -d "${TMPDIR:-/tmp}/encore-slurm-$$.XXXXXX")
    SLURM_CONF="$SLURM_DIR/slurm.conf"
    export SLURM_CONF
    mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/run" "$SLURM_DIR/log" "$SLURM_DIR/spool"
    SLURM_NODES=
    _i=1
    while [ "$_i" -le "$1" ]; do
        SLURM_NODES="$SLURM_NODES${SLURM_NODES:+ }$(slurm_node "$_i")"
        _i=$((_i + 1))
    done
    SLURM_CTLD_PORT=$(slurm_free_port) || netns_die "no free port for slurmctld"
    slurm_write_conf "${2:-}" || netns_die "cannot write $SLURM_CONF"
    slurm_start_munge || slurm_start_failed "munged did not start"
    slurm_spawn slurmctld.out slurmctld -D -f "$SLURM_CONF"
    slurm_until 30 "slurmctld answering on port $SLURM_CTLD_PORT" scontrol ping ||
        slurm_start_failed "slurmctld did not start"
    for _n in $SLURM_NODES; do
        mkdir -p "$SLURM_DIR/spool/$_n"
        # shellcheck disable=SC2016 # expanded by sh -c
        slurm_spawn "slurmd-$_n.out" nsenter --net="/run/netns/$_n" unshare --uts \
            sh -c 'hostname "$1" && exec slurmd -D -N "$1" -f "$2"' sh "$_n" "$SLURM_CONF"
    done
    slurm_until 60 "all nodes idle" slurm_all_idle ||
        slurm_start_failed "nodes not idle: $(sinfo -h -N -o '%N=%T' | tr '\n' ' ')"
}

# The logs' tails, then exit 1 (the trap stops the rest).
slurm_start_failed() {
    for _f in "$SLURM_DIR"/log/*; do
        [ -s "$_f" ] || continue
        netns_log "--- $_f"
        tail -n 15 "$_f" >&2
    done
    netns_die "$1"
}

# slurm_kill_node I|NAME: the node is lost: SIGKILL its slurmd, its steps'
# processes and everything else in its namespace.
slurm_kill_node() { netns_kill "$(slurm_node "$1")"; }

# slurm_state I|NAME: the node's state as sinfo prints it (%T: idle, mixed,
# allocated, down, ...; a '*' suffix, not responding, is dropped).
slurm_state() {
    sinfo -h -n "$(slurm_node "$1")" -N -o '%T' | head -n 1 | tr -d '*'
}

# slurm_wait_state I|NAME STATE SECS: bounded wait until the node is in STATE.
slurm_wait_state() {
    _node=$(slurm_node "$1")
    _want=$2
    slurm_until "$3" "node $_node $_want" sh -c \
        "[ \"\$(sinfo -h -n '$_node' -N -o '%T' | head -n 1 | tr -d '*')\" = '$_want' ]"
}

# Is pid $1 gone (or a zombie)?
slurm_gone() {
    _st=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
    case $_st in Z*) return 0 ;; esac
    return 1
}

# slurm_kill_clients: SIGKILL every process (but this shell) started with
# this cluster's SLURM_CONF in its environment: salloc, srun, sbatch and
# what they run in the root namespace, left by a test that failed or was
# killed mid-run.
slurm_kill_clients() {
    # shellcheck disable=SC2013 # one path per word
    for _e in $(grep -lxzF "SLURM_CONF=$SLURM_CONF" /proc/[0-9]*/environ 2>/dev/null); do
        _p=${_e#/proc/}
        _p=${_p%/environ}
        [ "$_p" = $$ ] || kill -9 "$_p" 2>/dev/null
    done
    return 0
}

# slurm_stop: SIGKILL the cluster's clients (slurm_kill_clients), SIGTERM
# then (5 s later) SIGKILL every daemon slurm_start started, every process
# left in the nodes' namespaces, and removes SLURM_DIR (idempotent).
slurm_stop() {
    [ -n "$SLURM_DIR" ] || return 0
    slurm_kill_clients
    # shellcheck disable=SC2086 # one pid per word
    kill $SLURM_PIDS 2>/dev/null
    for _p in $SLURM_PIDS; do
        _i=0
        while [ "$_i" -lt 25 ] && ! slurm_gone "$_p"; do
            sleep 0.2
            _i=$((_i + 1))
        done
        kill -9 "$_p" 2>/dev/null
    done
    for _n in $SLURM_NODES; do netns_kill "$_n" || true; done
    # shellcheck disable=SC2086 # one pid per word
    wait $SLURM_PIDS 2>/dev/null
    rm -rf "$SLURM_DIR"
    SLURM_DIR=
    SLURM_PIDS=
    return 0
}
