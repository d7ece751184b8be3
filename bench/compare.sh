#!/bin/sh
# compare.sh - MPI_Allreduce (doubles, SUM) under encore-run next to native
# Open MPI, measured in one run.
#
# For ranks in BENCH_RANKS (default 2 4) runs bench/allreduce_bench for the
# sizes in BENCH_SIZES (default 8 65536 1048576 16777216 bytes) under
#   encore   encore-run -n N
#   norec    encore-run -n N with ENCORE_RECOVERY=0 (same engine, no result
#            log): encore/norec is the fault-free cost of recovery
#   native   mpirun -n N (default transports: shared memory)
#   tcp      mpirun -n N --mca pml ob1 --mca btl tcp,self (TCP on loopback)
# and prints a table of median times with the ratios encore/native and
# encore/tcp.  Writes bench/results/<mode>.dat (size ranks median_us busbw)
# and, when gnuplot is installed, bench/results/allreduce.png.
# Run from the build directory (make bench does), or set top_builddir.
set -eu
b=$(cd "${top_builddir:-.}" && pwd)
prog="$b/bench/allreduce_bench"
run="$b/encore-run"
out=${BENCH_OUT:-$b/bench/results}
ranks=${BENCH_RANKS:-2 4}
sizes=${BENCH_SIZES:-8 65536 1048576 16777216}
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
    native) timeout "$limit" mpirun -n "$2" --oversubscribe "$prog" $sizes ;;
    tcp) timeout "$limit" mpirun -n "$2" --oversubscribe --mca pml ob1 --mca btl tcp,self \
        "$prog" $sizes ;;
    esac
}

for mode in encore norec native tcp; do
    : >"$out/$mode.dat"
done
for n in $ranks; do
    for mode in encore norec native tcp; do
        echo "compare.sh: $mode -n $n ..." >&2
        measure "$mode" "$n" >>"$out/$mode.dat" ||
            { echo "compare.sh: $mode -n $n failed" >&2; exit 1; }
    done
done

{
    echo "# allreduce_bench (doubles, MPI_SUM), median of iterations; $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores"
    echo "# command: top_builddir=$b sh bench/compare.sh  (BENCH_RANKS='$ranks' BENCH_SIZES='$sizes')"
    printf '%-10s %5s %12s %12s %12s %12s %9s %9s %9s\n' bytes ranks encore_us norec_us \
        native_us tcp_us enc/norec enc/nat enc/tcp
    awk 'FNR == 1 { f++ }
         { key = $1 " " $2; t[f, key] = $3; if (f == 1) keys[++nk] = key }
         END {
           for (i = 1; i <= nk; i++) {
             split(keys[i], k, " ")
             e = t[1, keys[i]]; r = t[2, keys[i]]; n = t[3, keys[i]]; c = t[4, keys[i]]
             printf "%-10s %5s %12.2f %12.2f %12.2f %12.2f %9.2f %9.2f %9.2f\n", k[1], k[2],
                    e, r, n, c, (r > 0 ? e / r : 0), (n > 0 ? e / n : 0), (c > 0 ? e / c : 0)
           }
         }' "$out/encore.dat" "$out/norec.dat" "$out/native.dat" "$out/tcp.dat"
} | tee "$out/table.txt"

if command -v gnuplot >/dev/null 2>&1; then
    for n in $ranks; do
        for mode in encore native tcp; do
            awk -v n="$n" '$2 == n' "$out/$mode.dat" >"$out/$mode.$n.dat"
        done
    done
    plots=""
    for n in $ranks; do
        for mode in encore native tcp; do
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
