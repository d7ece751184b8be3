#!/bin/sh
# lammps.sh - LAMMPS (Debian's lmp) under encore-run against native Open MPI,
# in one run: the Lennard-Jones melt of tests/programs/lammps_melt.in
# (LAMMPS_SIZE fcc cells per edge, default 16: 16384 atoms; LAMMPS_STEPS,
# default 2000), at 2 and 4 ranks (LAMMPS_RANKS).  For each rank count,
# LAMMPS_REPS (default 3) alternating pairs of runs:
#   native   mpirun
#   encore   encore-run, recovery on (the default), snapshots auto
# and one encore-run with rank 1 SIGKILLing itself at half of its
# collectives.  Prints LAMMPS's own "Loop time" (median of the reps), the
# ratio encore/native, and the kill's cost: the killed run's wall time
# minus the median fault-free encore wall time.
# Run with nothing else on the machine; prints a markdown table on stdout.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
b=$(cd "${top_builddir:-$ROOT/_build}" && pwd)
run="$b/encore-run"
input="$ROOT/tests/programs/lammps_melt.in"
size=${LAMMPS_SIZE:-16}
steps=${LAMMPS_STEPS:-2000}
reps=${LAMMPS_REPS:-3}
command -v lmp >/dev/null || { echo "lammps.sh: lmp not installed (apt-get install lammps)" >&2; exit 1; }
[ -x "$run" ] || { echo "lammps.sh: no $run (./dev.sh build)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
set -- lmp -in "$input" -var size "$size" -var steps "$steps" -var every 100 -log none

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# timed NAME cmd...: runs cmd (bounded), appends its loop time and wall time.
timed() {
    _n=$1
    shift
    _t0=$(now)
    timeout 600 "$@" >"$tmp/out" 2>"$tmp/err" || { tail -5 "$tmp/err" >&2; echo "lammps.sh: $_n failed" >&2; exit 1; }
    _t1=$(now)
    awk '/^Loop time of/ { print $4 }' "$tmp/out" >>"$tmp/$_n.loop"
    echo "$_t1 - $_t0" | bc -l >>"$tmp/$_n.wall"
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "| ranks | native loop (s) | encore loop (s) | encore/native | kill cost (s) |"
echo "|---|---|---|---|---|"
for n in ${LAMMPS_RANKS:-2 4}; do
    rm -f "$tmp"/*.loop "$tmp"/*.wall
    i=0
    while [ "$i" -lt "$reps" ]; do
        timed native$n mpirun --oversubscribe -np "$n" "$@"
        timed encore$n "$run" -n "$n" --summary "$@"
        i=$((i + 1))
    done
    ncoll=$(awk '$1 == "rank" && $2 == 1 && $3 == "restarts" { for (i = 3; i < NF; i++) if ($i == "collectives") print $(i + 1) }' "$tmp/err")
    timed kill$n "$run" -n "$n" --inject "kill:rank=1:op=$((ncoll / 2))" "$@"
    nl=$(median <"$tmp/native$n.loop")
    el=$(median <"$tmp/encore$n.loop")
    ew=$(median <"$tmp/encore$n.wall")
    kw=$(cat "$tmp/kill$n.wall")
    printf '| %s | %.3f | %.3f | %.2f | %.2f |\n' "$n" "$nl" "$el" "$(echo "$el / $nl" | bc -l)" \
        "$(echo "$kw - $ew" | bc -l)"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
