#!/bin/sh
# netns_selftest.sh - netns_lib.sh itself: 3 hosts and the launcher reach each
# other, a cut link is unreachable, a killed host has no process left, and
# nothing of the run (namespaces, links) survives it, also after a failure.
: "${top_srcdir:=.}"
. "$top_srcdir/tests/integration/netns_lib.sh"

netns_require
if ! command -v ping >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive timeout 300 apt-get install -y -q \
        --no-install-recommends iputils-ping >/dev/null 2>&1 ||
        netns_skip "ping not installed and apt-get install iputils-ping failed"
fi

fails=0
check() { # check WHAT cmd...: cmd must succeed
    _what=$1
    shift
    if "$@" >/dev/null 2>&1; then echo "ok   $_what"; else
        echo "FAIL $_what"
        fails=$((fails + 1))
    fi
}
check_not() { # check_not WHAT cmd...: cmd must fail
    _what=$1
    shift
    if "$@" >/dev/null 2>&1; then
        echo "FAIL $_what"
        fails=$((fails + 1))
    else echo "ok   $_what"; fi
}
# ping FROM TO: 1 packet, 2 s; FROM/TO a host index or "L" (the launcher)
reach() {
    _to=$NETNS_LAUNCHER_ADDR
    [ "$2" = L ] || _to=$(netns_addr "$2")
    if [ "$1" = L ]; then
        timeout 10 ping -n -q -c 1 -W 2 "$_to"
    else
        timeout 10 ip netns exec "$(netns_name "$1")" ping -n -q -c 1 -W 2 "$_to"
    fi
}
# what a run leaves behind: namespaces and links named after it
leftovers() {
    { ip netns list 2>/dev/null; ip -o link show; } | grep -c "$1" || true
}

# 1. a child test makes 3 hosts, checks them, then fails on purpose: its
#    trap must still remove everything
T=$(mktemp -d "${TMPDIR:-/tmp}/netns_selftest.XXXXXX")
trap 'rm -rf "$T"' EXIT
# shellcheck disable=SC2016 # expanded by the child
timeout 60 sh -c '
    . "$1/tests/integration/netns_lib.sh"
    netns_create 3
    echo "$NETNS_RUN" >"$2/run"
    (netns_exec 2 sleep 300 &)
    sleep 0.5
    [ "$(ip netns pids "$(netns_name 2)" | wc -l)" = 1 ] || exit 3
    exit 42' sh "$top_srcdir" "$T"
rc=$?
run=$(cat "$T/run")
check "a failing test keeps its status (42, got $rc)" [ "$rc" = 42 ]
check "nothing of $run left after a failure" [ "$(leftovers "$run")" = 0 ]

# 2. this test's own hosts
netns_create 3
echo "run $NETNS_RUN: bridge $NETNS_BRIDGE, launcher $NETNS_LAUNCHER_ADDR, hosts $NETNS_HOSTS"
check "3 namespaces" [ "$(ip netns list | grep -c "^${NETNS_RUN}h")" = 3 ]
check "launcher address on the bridge" \
    [ "$(ip -4 -o addr show dev "$NETNS_BRIDGE" | awk '{ print $4 }')" = "$NETNS_LAUNCHER_ADDR/24" ]
check "host 2 is $(netns_addr 2)" \
    [ "$(netns_exec 2 ip -4 -o addr show dev eth0 | awk '{ print $4 }')" = "$(netns_addr 2)/24" ]
check "host 1 has no route off the bridge" \
    [ "$(netns_exec 1 ip -4 route | awk '{ print $1 }')" = "$NETNS_NET.0/24" ]
for a in 1 2 3 L; do
    for b in 1 2 3 L; do
        [ "$a" = "$b" ] || check "ping $a -> $b" reach "$a" "$b"
    done
done

netns_cut 3
check_not "ping 1 -> cut 3" reach 1 3
check_not "ping cut 3 -> launcher" reach 3 L
check_not "ping launcher -> cut 3" reach L 3
check "ping 1 -> 2 with 3 cut" reach 1 2
netns_restore 3
check "ping 1 -> restored 3" timeout 20 sh -c \
    "until ip netns exec $(netns_name 1) ping -n -q -c 1 -W 1 $(netns_addr 3); do sleep 0.2; done"

(netns_exec 2 sleep 300 &)
(netns_exec 2 sh -c 'sleep 300 & exec sleep 300' &)
sleep 0.5
check "host 2 runs 3 processes" [ "$(ip netns pids "$(netns_name 2)" | wc -l)" = 3 ]
check "netns_kill 2" netns_kill 2
check "host 2 runs nothing" [ -z "$(ip netns pids "$(netns_name 2)")" ]

run=$NETNS_RUN
netns_destroy
check "nothing of $run left after netns_destroy" [ "$(leftovers "$run")" = 0 ]

[ "$fails" = 0 ] || { echo "$fails checks failed"; exit 1; }
echo PASS
