#!/bin/sh
# compare.sh - MPI_Allreduce (doubles, SUM) under encore-run next to native
# Open MPI, measured in one run.
#
# For ranks in BENCH_RANKS (default 2 4 8; 4 and 8 oversubscribe a 2-core
# machine) runs bench/allreduce_bench for the sizes in BENCH_SIZES (default
# 8 1024 65536 1048576 16777216 268435456 bytes) in the modes of BENCH_MODES
# (default all five):
#   encore   encore-run -n N (shared memory on one host, result log on)
#   norec    encore-run -n N with ENCORE_RECOVERY=0 (same engine, no result
#            log): encore/norec is the fault-free cost of recovery
#   noshm    encore-run -n N with ENCORE_SHM=0 (TCP on loopback, log on)
#   native   mpirun -n N (default transports: shared memory)
#   tcp      mpirun -n N --mca pml ob1 --mca btl tcp,self (TCP on loopback)
# and prints a table of median times with the ratios, then the issue's
# targets, each "met" or "MISSED" in this run ("-" where a mode or size was
# not run).  Writes bench/results/<mode>.dat (size ranks median_us busbw),
# table.txt and, when gnuplot is installed, bench/results/allreduce.png.
# bench/profile.sh shows where the time goes for one size.
# Run from the build directory (make bench does), or set top_builddir.
set -eu
b=$(cd "${top_builddir:-.}" && pwd)
prog="$b/bench/allreduce_bench"
run="$b/encore-run"
out=${BENCH_OUT:-$b/bench/results}
ranks=${BENCH_RANKS:-2 4 8}
sizes=${BENCH_SIZES:-8 1024 65536 1048576 16777216 268435456}
modes=${BENCH_MODES:-encore norec noshm native tcp}
limit=${BENCH_TIMEOUT:-600}

for f in "$prog" "$run"; do
    [ -x "$f" ] || { echo "compare.sh: $f not built (make bench)" >&2; exit 1; }
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# shellcheck disable=SC2086 # $sizes is a list of words
measure() { # mode ranks
    case $1 in
    encore) timeout "$limit" "$run" -n "$2" "$prog" $sizes ;;
    norec) ENCORE_RECOVERY=0 timeout "$limit" "$run" -n "$2" "$prog" $sizes ;;
    noshm) ENCORE_SHM=0 timeout "$limit" "$run" -n "$2" "$prog" $sizes ;;
    native) timeout "$limit" mpirun -n "$2" --oversubscribe "$prog" $sizes ;;
    tcp) timeout "$limit" mpirun -n "$2" --oversubscribe --mca pml ob1 --mca btl tcp,self \
        "$prog" $sizes ;;
    esac
}

for mode in encore norec noshm native tcp; do
    : >"$out/$mode.dat"
done
for n in $ranks; do
    for mode in $modes; do
        echo "compare.sh: $mode -n $n ..." >&2
        measure "$mode" "$n" >>"$out/$mode.dat" ||
            { echo "compare.sh: $mode -n $n failed" >&2; exit 1; }
    done
done

{
    echo "# allreduce_bench (doubles, MPI_SUM), median of iterations; $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "# command: top_builddir=$b sh bench/compare.sh  (BENCH_RANKS='$ranks' BENCH_SIZES='$sizes' BENCH_MODES='$modes')"
    printf '%-10s %5s %11s %11s %11s %11s %11s %9s %9s %9s %9s\n' bytes ranks encore_us \
        norec_us noshm_us native_us tcp_us enc/nat enc/norec enc/noshm enc/tcp
    awk 'function r(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
         function v(a) { return a > 0 ? sprintf("%.2f", a) : "-" }
         { m = FILENAME; sub(/.*\//, "", m); sub(/\.dat$/, "", m)
           key = $1 " " $2; t[m, key] = $3; if (!(key in seen)) { seen[key] = 1; keys[++nk] = key } }
         END {
           for (i = 1; i <= nk; i++) {
             split(keys[i], k, " ")
             e = t["encore", keys[i]]; rr = t["norec", keys[i]]; s = t["noshm", keys[i]]
             n = t["native", keys[i]]; c = t["tcp", keys[i]]
             printf "%-10s %5s %11s %11s %11s %11s %11s %9s %9s %9s %9s\n", k[1], k[2], v(e), v(rr),
                    v(s), v(n), v(c), r(e, n), r(e, rr), r(e, s), r(e, c)
             ratio[keys[i], "nat"] = r(e, n); ratio[keys[i], "rec"] = r(e, rr)
           }
           # the targets of issue 11 (2 ranks unless said)
           print ""
           print "# targets"
           target("16 MiB, 2 ranks: encore/native <= 1.0", ratio["16777216 2", "nat"], 1.0)
           target("8 B, 2 ranks: encore/native <= 2.0", ratio["8 2", "nat"], 2.0)
           worst = "-"
           for (i = 1; i <= nk; i++) {
             split(keys[i], k, " ")
             if (k[2] == 4 && ratio[keys[i], "nat"] != "-" &&
                 (worst == "-" || ratio[keys[i], "nat"] + 0 > worst + 0))
               worst = ratio[keys[i], "nat"]
           }
           target("4 ranks, every size: encore/native <= 1.5 (worst)", worst, 1.5)
           target("16 MiB, 2 ranks: encore/norec <= 1.10", ratio["16777216 2", "rec"], 1.10)
           target("8 B, 2 ranks: encore/norec <= 1.3", ratio["8 2", "rec"], 1.3)
         }
         function target(what, got, bound) {
           if (got == "")
             got = "-"
           printf "%-52s %6s  %s\n", what, got, got == "-" ? "-" : (got + 0 <= bound ? "met" : "MISSED")
         }' "$out/encore.dat" "$out/norec.dat" "$out/noshm.dat" "$out/native.dat" "$out/tcp.dat"
} | tee "$out/table.txt"

if command -v gnuplot >/dev/null 2>&1; then
    for n in $ranks; do
        for mode in encore native; do
            awk -v n="$n" '$2 == n' "$out/$mode.dat" >"$out/$mode.$n.dat"
        done
    done
    plots=""
    for n in $ranks; do
        for mode in encore native; do
            [ -s "$out/$mode.$n.dat" ] || continue
            plots="$plots${plots:+, }'$out/$mode.$n.dat' using 1:3 with linespoints title '$mode $n ranks'"
        done
    done
    gnuplot <<GP
set terminal pngcairo size 900,600
set output '$out/allreduce.png'
set logscale xy
set xlabel 'message size (bytes)'
set ylabel 'median MPI_Allreduce time (us)'
set title 'MPI_Allreduce, doubles SUM: encore-run vs native Open MPI'
set key left top
plot $plots
GP
    echo "compare.sh: plot in $out/allreduce.png" >&2
fi
