# shellcheck shell=sh
# netns_pair.sh - sourced by the point-to-point benchmarks (p2p.sh,
# det_cost.sh): two network-namespace hosts with one rank on each, and the
# command lines that run a program there under native Open MPI and under
# encore-run.  Needs ROOT (the checkout) and B (the build directory).
#
#   netns_pair_up WHO CLEANUP   creates the hosts (tests/integration/
#                               netns_lib.sh; removed at exit, after
#                               CLEANUP); prints "WHO: two-host rows
#                               skipped" and fails when namespaces cannot
#                               be made (not root, no iproute2)
#   netns_pair_native CMD...    native mpirun, TCP between the hosts, its
#                               daemons started by bench/netns_rsh.sh
#   netns_pair_encore CMD...    encore-run --rsh "ip netns exec", unbound
# Each run is bounded by 300 s.

netns_pair_up() {
    # shellcheck source=tests/integration/netns_lib.sh
    if ! (. "$ROOT/tests/integration/netns_lib.sh" && netns_require) 2>/dev/null; then
        echo
        echo "$1: two-host rows skipped (network namespaces need root and iproute2)"
        return 1
    fi
    # shellcheck source=tests/integration/netns_lib.sh
    . "$ROOT/tests/integration/netns_lib.sh"
    netns_create 2
    netns_at_exit "$2" # netns_create replaced the EXIT trap
    NETNS_PAIR_HOSTS="$(netns_name 1):1,$(netns_name 2):1"
}

netns_pair_native() {
    timeout 300 mpirun -n 2 --host "$NETNS_PAIR_HOSTS" --bind-to none \
        --mca plm_rsh_agent "$ROOT/bench/netns_rsh.sh" --mca pml ob1 --mca btl tcp,self \
        --mca oob_tcp_if_include "$NETNS_NET.0/24" --mca btl_tcp_if_include "$NETNS_NET.0/24" \
        "$@"
}

# --bind-to none, as native's: each namespace host's agent would bind its
# rank to its first core, the same core of this machine for both (session
# 17: a stream of 2 MiB messages went at 258-276 MB/s with both ranks on
# core 0, 850-1493 MB/s unbound; every two-host figure before was taken so).
netns_pair_encore() {
    timeout 300 "$B/encore-run" -n 2 --rsh "ip netns exec" --host "$NETNS_PAIR_HOSTS" \
        --bind-to none --timeout 290 "$@"
}
