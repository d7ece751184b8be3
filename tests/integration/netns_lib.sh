# netns_lib.sh - test "hosts" as network namespaces on a private bridge
# (sourced, POSIX sh; needs root and iproute2).
#
# Usage:
#     . "$top_srcdir/tests/integration/netns_lib.sh"
#     netns_require                  # exit 77 (one line) unless root and netns work
#     netns_create 3                 # bridge + hosts 1..3; cleanup trap installed
#     h1=$(netns_name 1)             # e.g. enc4242qxh1, also the `ip netns` name
#     netns_exec 1 ping -c 1 -W 2 "$(netns_addr 2)"
#     encore-run --rsh "ip netns exec" --host "$h1:2,$(netns_name 2):2" ...
#     netns_cut 2                    # pull host 2's cable (its bridge port down)
#     netns_restore 2                # plug it back
#     netns_kill 2                   # SIGKILL every process of host 2 (bounded)
#     netns_lose 2                   # the host is lost: both of the above
#     netns_at_exit "kill $pid"      # extra cleanup, run before the hosts go
#
# Hosts are named by index (1..N) or by full name everywhere.  Every run gets
# its own names, enc<PID><2 letters>{br,h1,h2,...} (15 characters at most,
# the limit for a link name), used for the bridge, the
# namespaces and the bridge ports (veths); inside a host the link is eth0
# and lo is up.  Addresses are link-local only: each run takes a free
# 169.254.K.0/24 (K=0 when no other run is active, never K=169 which holds the
# cloud metadata address): the launcher side (this, the root namespace) is
# 169.254.K.1 ($NETNS_LAUNCHER_ADDR) and host i is 169.254.K.(10+i).  A /24
# rather than the whole /16, so two runs at once never share a route and the
# machine's other link-local routes are untouched.
#
# The EXIT trap (also after INT/TERM/HUP and failures) runs the netns_at_exit
# commands in reverse order, then kills every process of every host, deletes
# the namespaces, veths and the bridge, and keeps the test's exit status.
# It replaces any EXIT trap set before: with lib.sh, call enc_tmpdir first;
# its directory ($ENC_TMP) is removed by this trap too.  Leftovers of runs
# whose PID is gone (a SIGKILLed test) are removed by netns_create.
#
# Variables set: NETNS_RUN, NETNS_BRIDGE, NETNS_NET (169.254.K),
# NETNS_LAUNCHER_ADDR, NETNS_HOSTS (full names, space separated), NETNS_COUNT.
# shellcheck shell=sh disable=SC2034 # variables are for the tests that source this

NETNS_LOCK=/run/lock/encore-netns.lock
NETNS_HOSTS=
NETNS_COUNT=0
NETNS_BRIDGE=
NETNS_EXIT_HOOKS=

netns_log() { printf '%s: %s\n' "$(basename "$0" .sh)" "$*" >&2; }
netns_skip() { netns_log "SKIP: $*"; exit 77; }
netns_die() { netns_log "FAIL: $*"; exit 1; }

# netns_require: skip (77) with one line unless we can make namespaces.
netns_require() {
    [ "$(id -u)" = 0 ] || netns_skip "network namespaces need root"
    command -v ip >/dev/null 2>&1 || netns_skip "ip (iproute2) not installed"
    _probe="encprobe$$"
    if ! ip netns add "$_probe" 2>/dev/null; then
        netns_skip "ip netns add fails here (no network namespace support)"
    fi
    ip netns del "$_probe"
}

# netns_name I|NAME: the full name of host I (NAME is printed unchanged).
netns_name() {
    case $1 in
    *[!0-9]*) printf '%s\n' "$1" ;;
    *) printf '%sh%s\n' "$NETNS_RUN" "$1" ;;
    esac
}

# netns_index I|NAME: the index of a host of this run.
netns_index() {
    case $1 in
    *[!0-9]*) printf '%s\n' "${1##"${NETNS_RUN}h"}" ;;
    *) printf '%s\n' "$1" ;;
    esac
}

# netns_addr I|NAME: the host's address on the bridge.
netns_addr() { printf '%s.%s\n' "$NETNS_NET" "$(($(netns_index "$1") + 10))"; }

# netns_exec I|NAME cmd...: runs cmd in the host's network namespace.
netns_exec() {
    _h=$(netns_name "$1")
    shift
    ip netns exec "$_h" "$@"
}

# netns_cut I|NAME / netns_restore I|NAME: the host's bridge port down / up,
# as a pulled cable: the host keeps its address, its packets go nowhere.
netns_cut() { ip link set "$(netns_name "$1")" down; }
netns_restore() {
    ip link set "$(netns_name "$1")" up && netns_reachable "$1"
}

# netns_reachable I|NAME: the host reaches the launcher's address (at most
# 10 tries of 1 s): a port just set up may drop the first packets, and an
# agent started then fails at once.
netns_reachable() {
    _r=0
    while [ "$_r" -lt 10 ]; do
        ip netns exec "$(netns_name "$1")" ping -c 1 -W 1 "$NETNS_LAUNCHER_ADDR" \
            >/dev/null 2>&1 && return 0
        _r=$((_r + 1))
    done
    netns_log "$(netns_name "$1") cannot reach $NETNS_LAUNCHER_ADDR"
    return 1
}

# netns_kill I|NAME: SIGKILL every process in the host; fails if some are
# still there after 10 s.
netns_kill() {
    _h=$(netns_name "$1")
    _i=0
    while [ "$_i" -lt 100 ]; do
        _pids=$(ip netns pids "$_h" 2>/dev/null)
        [ -n "$_pids" ] || return 0
        # shellcheck disable=SC2086 # one pid per word
        kill -9 $_pids 2>/dev/null
        sleep 0.1
        _i=$((_i + 1))
    done
    netns_log "processes of $_h survive SIGKILL: $_pids"
    return 1
}

# netns_lose I|NAME: the whole host is lost: its cable pulled, every process
# in it SIGKILLed.
netns_lose() {
    netns_cut "$1" && netns_kill "$1"
}

# netns_at_exit CMD: run CMD (eval) at exit, before the hosts are removed.
netns_at_exit() {
    NETNS_EXIT_HOOKS="$1
$NETNS_EXIT_HOOKS"
}

# The EXIT trap: hooks (last registered first), hosts, bridge, ENC_TMP.
netns_on_exit() {
    _rc=$?
    # timeout(1) signals the test and then its whole process group: a second
    # TERM must not cut the cleanup short
    trap '' HUP INT TERM
    trap - EXIT
    printf '%s\n' "$NETNS_EXIT_HOOKS" | while IFS= read -r _cmd; do
        [ -z "$_cmd" ] || eval "$_cmd" || true
    done
    netns_destroy
    [ -z "${ENC_TMP:-}" ] || [ "${ENC_KEEP_TMP:-0}" = 1 ] || rm -rf "$ENC_TMP"
    exit "$_rc"
}

# netns_destroy: removes this run's hosts and bridge (idempotent).
netns_destroy() {
    for _h in $NETNS_HOSTS; do
        netns_kill "$_h" || true
        # under set -e a failure here would end the EXIT trap with status 1;
        # the veth may already be gone with its namespace
        ip netns del "$_h" 2>/dev/null || true
        ip link del "$_h" 2>/dev/null || true
    done
    [ -z "$NETNS_BRIDGE" ] || ip link del "$NETNS_BRIDGE" 2>/dev/null || true
    NETNS_HOSTS=
    NETNS_BRIDGE=
    return 0
}

# netns_reap_stale: removes namespaces and links of runs whose PID is gone.
netns_reap_stale() {
    { ip netns list 2>/dev/null; ip -o link show | sed 's/^[0-9]*: \([^:@]*\).*/\1/'; } |
        sed -n 's/^\(enc\([0-9][0-9]*\)[a-z][a-z]\(br\|h[0-9][0-9]*\)\)\( .*\)\{0,1\}$/\2 \1/p' |
        sort -u | while read -r _pid _name; do
            kill -0 "$_pid" 2>/dev/null && continue
            if ip netns list 2>/dev/null | grep -q "^$_name\( \|$\)"; then
                netns_kill "$_name" || true
                ip netns del "$_name" 2>/dev/null
            fi
            ip link del "$_name" 2>/dev/null || true
        done
}

# Picks a free 169.254.K (K != 169) and puts NETNS_LAUNCHER_ADDR on the new
# bridge; runs under the lock so two runs never pick the same K.
netns_make_bridge() {
    _used=$(ip -4 -o addr show | sed -n 's/.* inet 169\.254\.\([0-9]*\)\..*/\1/p')
    _k=0
    while [ "$_k" -lt 255 ]; do
        if [ "$_k" != 169 ] && ! printf '%s\n' "$_used" | grep -qx "$_k"; then
            break
        fi
        _k=$((_k + 1))
    done
    [ "$_k" -lt 255 ] || { netns_log "no free 169.254.K.0/24"; return 1; }
    NETNS_NET="169.254.$_k"
    NETNS_LAUNCHER_ADDR="$NETNS_NET.1"
    ip link add "$NETNS_BRIDGE" type bridge &&
        ip addr add "$NETNS_LAUNCHER_ADDR/24" dev "$NETNS_BRIDGE" &&
        ip link set "$NETNS_BRIDGE" up
}

# netns_add_host I: namespace, veth pair (bridge port named like the host,
# eth0 made inside), address, links up.
netns_add_host() {
    _h=$(netns_name "$1")
    NETNS_HOSTS="$NETNS_HOSTS${NETNS_HOSTS:+ }$_h"
    ip netns add "$_h" &&
        ip link add "$_h" type veth peer name eth0 netns "$_h" &&
        ip link set "$_h" master "$NETNS_BRIDGE" &&
        ip link set "$_h" up &&
        ip -n "$_h" addr add "$(netns_addr "$1")/24" dev eth0 &&
        ip -n "$_h" link set eth0 up &&
        ip -n "$_h" link set lo up
}

# netns_wait_up: bounded (10 s) wait until every bridge port forwards.
netns_wait_up() {
    _i=0
    while [ "$_i" -lt 100 ]; do
        if ! ip -o link show master "$NETNS_BRIDGE" | grep -qv 'state UP'; then
            return 0
        fi
        sleep 0.1
        _i=$((_i + 1))
    done
    netns_log "bridge ports of $NETNS_BRIDGE not up after 10 s"
    return 1
}

# netns_create N: the bridge and hosts 1..N of this run; installs the trap.
netns_create() {
    [ -z "$NETNS_BRIDGE" ] || netns_die "netns_create called twice"
    netns_reap_stale
    _rr=$(od -An -N2 -tu1 /dev/urandom | awk '{ printf "%c%c", 97 + $1 % 26, 97 + $2 % 26 }')
    NETNS_RUN="enc$$$_rr"
    NETNS_BRIDGE="${NETNS_RUN}br"
    NETNS_COUNT=$1
    trap 'netns_on_exit' EXIT
    trap 'exit 129' HUP
    trap 'exit 130' INT
    trap 'exit 143' TERM
    mkdir -p "$(dirname "$NETNS_LOCK")"
    (
        flock -w 30 9 || { netns_log "lock $NETNS_LOCK busy for 30 s"; exit 1; }
        netns_make_bridge
    ) 9>"$NETNS_LOCK" || netns_die "cannot create bridge $NETNS_BRIDGE"
    # the subshell's choice, read back from the bridge
    NETNS_LAUNCHER_ADDR=$(ip -4 -o addr show dev "$NETNS_BRIDGE" |
        sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p')
    NETNS_NET=${NETNS_LAUNCHER_ADDR%.1}
    _i=1
    while [ "$_i" -le "$1" ]; do
        netns_add_host "$_i" || netns_die "cannot create host $(netns_name "$_i")"
        _i=$((_i + 1))
    done
    netns_wait_up || netns_die "hosts of $NETNS_RUN not ready"
}
