#!/bin/sh
# p2p.sh - point-to-point latency and bandwidth of 2 ranks on one host:
# native Open MPI (vader shared memory, its default binding), encore with
# the same-host rings (the default) and encore forced on TCP
# (ENCORE_P2P_SHM=0), the sender's log always on, back to back in one
# run, P2P_REPS times (default 3) in turn; each figure is the best of the
# reps (the 2-core machine is shared: the best is the least disturbed).
#   bench/p2p.sh [build dir]       (default _build)
# Prints the load average and a markdown table with the ratios to native
# (latency: encore/native, lower is better; bandwidth: encore/native,
# higher is better).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
REPS=${P2P_REPS:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-p2p.XXXXXX")
trap 'rm -rf "$T"' EXIT
mpicc -O2 -o "$T/p2p_bench" "$ROOT/bench/p2p_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$REPS"); do
    timeout 300 mpirun -n 2 "$T/p2p_bench" >>"$T/native"
    timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" >>"$T/shm" 2>"$T/shm.err"
    ENCORE_P2P_SHM=0 timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" \
        >>"$T/tcp" 2>"$T/tcp.err"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# best of the reps per size: lowest latency, highest bandwidth
best() { awk '{ if (!($2 in l) || $4 < l[$2]) l[$2] = $4; if ($6 > b[$2]) b[$2] = $6 }
              END { for (s in l) print s, l[s], b[s] }' "$1" | sort -n; }
best "$T/native" >"$T/n"
best "$T/shm" >"$T/s"
best "$T/tcp" >"$T/t"
echo
echo "| size | latency native (us) | shm (us) | TCP (us) | shm/native | bandwidth native (MB/s) | shm (MB/s) | TCP (MB/s) | shm/native |"
echo "|---|---|---|---|---|---|---|---|---|"
join "$T/n" "$T/s" | join - "$T/t" | while read -r s ln bn ls bs lt bt; do
    echo "| $s | $ln | $ls | $lt | $(echo "$ls $ln" | awk '{printf "%.2f", $1 / $2}') | $bn | $bs | $bt | $(echo "$bs $bn" | awk '{printf "%.2f", $1 / $2}') |"
done
