#!/bin/sh
# p2p.sh - point-to-point latency and bandwidth of 2 ranks on one host:
# native Open MPI (vader shared memory) and encore (TCP connections, the
# sender's log always on), back to back in one run, with the load average.
#   bench/p2p.sh [build dir]       (default _build)
# Prints a markdown table (bench/README.md keeps one).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/_build}
T=$(mktemp -d "${TMPDIR:-/tmp}/encore-p2p.XXXXXX")
trap 'rm -rf "$T"' EXIT
mpicc -O2 -o "$T/p2p_bench" "$ROOT/bench/p2p_bench.c"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
timeout 300 mpirun -n 2 "$T/p2p_bench" >"$T/native"
timeout 300 "$B/encore-run" -n 2 --timeout 290 "$T/p2p_bench" >"$T/encore" 2>"$T/encore.err"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| size | latency native (us) | latency encore (us) | bandwidth native (MB/s) | bandwidth encore (MB/s) |"
echo "|---|---|---|---|---|"
join "$T/native" "$T/encore" -j 2 -o 1.2,1.4,2.4,1.6,2.6 | while read -r s ln le bn be; do
    echo "| $s | $ln | $le | $bn | $be |"
done
