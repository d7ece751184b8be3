#!/bin/sh
# p2p.sh - point-to-point latency, bandwidth, message rate,
# bidirectional bandwidth and, from 32 KiB, steady bandwidth (after 1 GiB
# untimed: the log's memory reused, not touched the first time) of 2
# ranks (bench/p2p_bench.c, 8 B to 4 MiB),
# encore against native Open MPI back to back in one run, the sender's
# log on (and, on one host, off), P2P_REPS times (default 3) in turn; each figure is the
# best of the reps (the 2-core machine is shared: the best is the least
# disturbed); P2P_MAX (bytes, default 4 MiB) bounds the sizes.  Placements (P2P_PLACES, default "host netns"):
#   host   one host: native Open MPI (vader shared memory, its default
#          binding), encore through the segment's rings (the default),
#          the same with ENCORE_RECOVERY=0 (no log: no sender's payload
#          log, no snapshots; its cost is shm against it) and encore forced
#          on TCP (ENCORE_P2P_SHM=0).
#   netns  two hosts, one rank on each: network namespaces on a private
#          bridge with link-local addresses (tests/integration/netns_lib.sh,
#          made here and removed at exit; needs root, else skipped with one
#          line): native Open MPI over TCP (ob1, btl tcp) against
#          encore-run --rsh "ip netns exec".
#   bench/p2p.sh [build dir]       (default _build)
# Prints the load average and one markdown table per placement with the
# ratios to native (latency: encore/native, lower is better; the others:
# encore/native, higher is better).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
REPS=${P2P_REPS:-3}
PLACES=${P2P_PLACES:-host netns}
MAX=${P2P_MAX:-4194304} # the largest message, bytes
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-p2p.XXXXXX")
cleanup() { rm -rf "$T"; }
trap cleanup EXIT
mpicc -O2 -o "$T/p2p_bench" "$ROOT/bench/p2p_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=bench/netns_pair.sh
. "$ROOT/bench/netns_pair.sh"

# best FILE: per size the lowest latency and the highest bandwidth, rate,
# bidirectional and steady bandwidth of the reps (complete lines only),
# sorted as join(1) wants; joined rows are put back in size order with
# sort -n
best() {
    awk '$1 == "size" && NF == 12 {
             s = $2; if (!(s in l) || $4 < l[s]) l[s] = $4
             if ($6 > b[s]) b[s] = $6; if ($8 > r[s]) r[s] = $8; if ($10 > bb[s]) bb[s] = $10
             if (!(s in st) || $12 > st[s]) st[s] = $12 }
         END { for (s in l) print s, l[s], b[s], r[s], bb[s], st[s] }' "$1" | LC_ALL=C sort -k1,1
}
# steady N E: "N | E | E/N" for the table, "- | - | -" below 32 KiB
steady() { if [ "$1" = 0.0 ] || [ "$1" = 0 ]; then echo "- | - | -"; else echo "$1 | $2 | $(ratio "$2" "$1")"; fi; }
ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }'; }

host_runs() {
    for _ in $(seq "$REPS"); do
        timeout 300 mpirun -n 2 "$T/p2p_bench" "$MAX" >>"$T/native"
        timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" "$MAX" >>"$T/shm" 2>"$T/shm.err"
        ENCORE_RECOVERY=0 timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" "$MAX" \
            >>"$T/nolog" 2>"$T/nolog.err"
        ENCORE_P2P_SHM=0 timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" \
            >>"$T/tcp" 2>"$T/tcp.err"
    done
    best "$T/native" >"$T/n"
    best "$T/shm" >"$T/s"
    best "$T/tcp" >"$T/t"
    best "$T/nolog" >"$T/o"
    echo
    echo "One host, 2 ranks:"
    echo
    echo "| size | latency native (us) | shm (us) | no log (us) | TCP (us) | shm/native | bandwidth native (MB/s) | shm (MB/s) | no log (MB/s) | TCP (MB/s) | shm/native | steady native (MB/s) | shm (MB/s) | shm/native | bidirectional native (MB/s) | shm (MB/s) | shm/native | rate native (k/s) | shm (k/s) | shm/native |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    LC_ALL=C join "$T/n" "$T/s" | LC_ALL=C join - "$T/t" | LC_ALL=C join - "$T/o" | sort -n |
        while read -r s ln bn rn bbn stn ls bs rs bbs sts lt bt _ _ _ lo bo _ _ _; do
            echo "| $s | $ln | $ls | $lo | $lt | $(ratio "$ls" "$ln") | $bn | $bs | $bo | $bt | $(ratio "$bs" "$bn") | $(steady "$stn" "$sts") | $bbn | $bbs | $(ratio "$bbs" "$bbn") | $rn | $rs | $(ratio "$rs" "$rn") |"
        done
}

# Two namespace hosts (bench/netns_pair.sh).
netns_runs() {
    netns_pair_up p2p.sh cleanup || return 0
    for _ in $(seq "$REPS"); do
        netns_pair_native "$T/p2p_bench" "$MAX" >>"$T/xnative" 2>"$T/xnative.err"
        netns_pair_encore "$T/p2p_bench" "$MAX" >>"$T/xenc" 2>"$T/xenc.err"
    done
    best "$T/xnative" >"$T/xn"
    best "$T/xenc" >"$T/xe"
    echo
    echo "Two network-namespace hosts, one rank on each (TCP):"
    echo
    echo "| size | latency native (us) | encore (us) | encore/native | bandwidth native (MB/s) | encore (MB/s) | encore/native | steady native (MB/s) | encore (MB/s) | encore/native | bidirectional native (MB/s) | encore (MB/s) | encore/native | rate native (k/s) | encore (k/s) | encore/native |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    LC_ALL=C join "$T/xn" "$T/xe" | sort -n | while read -r s ln bn rn bbn stn le be re bbe ste; do
        echo "| $s | $ln | $le | $(ratio "$le" "$ln") | $bn | $be | $(ratio "$be" "$bn") | $(steady "$stn" "$ste") | $bbn | $bbe | $(ratio "$bbe" "$bbn") | $rn | $re | $(ratio "$re" "$rn") |"
    done
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for place in $PLACES; do
    case $place in
    host) host_runs ;;
    netns) netns_runs ;;
    *) echo "p2p.sh: unknown placement $place (P2P_PLACES: host netns)" >&2; exit 2 ;;
    esac
done
echo
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
