#!/bin/sh
# compare.sh - MPI_Allreduce (doubles, SUM) under encore-run next to native
# Open MPI, measured in one run.
#
# For ranks in BENCH_RANKS (default 2 4 8; 4 and 8 oversubscribe a 2-core
# machine) runs bench/allreduce_bench for the sizes in BENCH_SIZES (default
# 8 1024 65536 1048576 16777216 268435456 bytes) in the variants of
# BENCH_VARIANTS (default all four):
#   world          on MPI_COMM_WORLD, out of place
#   world-inplace  on MPI_COMM_WORLD, MPI_IN_PLACE
#   dup            on an MPI_Comm_dup of the world, out of place
#   dup-inplace    on an MPI_Comm_dup of the world, MPI_IN_PLACE
# and, for the variant world, in the modes of BENCH_MODES (default all five):
#   encore   encore-run -n N (shared memory on one host, result log on)
#   norec    encore-run -n N with ENCORE_RECOVERY=0 (same engine, no result
#            log): encore/norec is the fault-free cost of recovery
#   noshm    encore-run -n N with ENCORE_SHM=0 (TCP on loopback, log on)
#   native   mpirun -n N (default transports: shared memory)
#   tcp      mpirun -n N --mca pml ob1 --mca btl tcp,self (TCP on loopback)
# and for the other variants in those of BENCH_VARIANT_MODES (default
# "encore native").  encore-run runs with --bind-to core when the ranks fit
# the cores, else none (BENCH_ENCORE_BIND overrides): what native mpirun does
# by default (bench/README.md, "IMB attribution").  Every run is bounded by BENCH_TIMEOUT seconds (600).
# Prints a table of median times with the ratios per variant (enc/world:
# encore in this variant over encore in the same placement on the world),
# then the issues' targets, each "met" or "MISSED" in this run ("-" where a
# mode or size was not run).  Writes bench/results/<mode>.dat (the variant
# world: size ranks median_us busbw) and <mode>.<variant>.dat (the others),
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
variants=${BENCH_VARIANTS:-world world-inplace dup dup-inplace}
vmodes=${BENCH_VARIANT_MODES:-encore native}
limit=${BENCH_TIMEOUT:-600}

for f in "$prog" "$run"; do
    [ -x "$f" ] || { echo "compare.sh: $f not built (make bench)" >&2; exit 1; }
done
mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# args VARIANT: allreduce_bench's options for it
args() {
    case $1 in
    world) echo "--comm world" ;;
    world-inplace) echo "--comm world --inplace" ;;
    dup) echo "--comm dup" ;;
    dup-inplace) echo "--comm dup --inplace" ;;
    *) echo "compare.sh: unknown variant $1 (BENCH_VARIANTS)" >&2; exit 1 ;;
    esac
}

# dat MODE VARIANT: the results file (the variant world keeps <mode>.dat)
dat() {
    if [ "$2" = world ]; then echo "$out/$1.dat"; else echo "$out/$1.$2.dat"; fi
}

# bind RANKS: encore-run's --bind-to
bind() {
    if [ -n "${BENCH_ENCORE_BIND:-}" ]; then echo "$BENCH_ENCORE_BIND"
    elif [ "$1" -le "$(nproc)" ]; then echo core
    else echo none
    fi
}

# shellcheck disable=SC2086 # $sizes and $a are lists of words
measure() { # mode ranks variant
    a=$(args "$3")
    bt=$(bind "$2")
    case $1 in
    encore) timeout "$limit" "$run" --bind-to "$bt" -n "$2" "$prog" $a $sizes ;;
    norec) ENCORE_RECOVERY=0 timeout "$limit" "$run" --bind-to "$bt" -n "$2" "$prog" $a $sizes ;;
    noshm) ENCORE_SHM=0 timeout "$limit" "$run" --bind-to "$bt" -n "$2" "$prog" $a $sizes ;;
    native) timeout "$limit" mpirun -n "$2" --oversubscribe "$prog" $a $sizes ;;
    tcp) timeout "$limit" mpirun -n "$2" --oversubscribe --mca pml ob1 --mca btl tcp,self \
        "$prog" $a $sizes ;;
    esac
}

for v in world world-inplace dup dup-inplace; do
    for mode in encore norec noshm native tcp; do
        : >"$(dat "$mode" "$v")"
    done
done
for n in $ranks; do
    for v in $variants; do
        args "$v" >/dev/null
        vm=$vmodes
        [ "$v" != world ] || vm=$modes
        for mode in $vm; do
            echo "compare.sh: $mode $v -n $n ..." >&2
            measure "$mode" "$n" "$v" >>"$(dat "$mode" "$v")" ||
                { echo "compare.sh: $mode $v -n $n failed" >&2; exit 1; }
        done
    done
done

files=""
for v in world world-inplace dup dup-inplace; do
    for mode in encore norec noshm native tcp; do
        files="$files $(dat "$mode" "$v")"
    done
done
{
    echo "# allreduce_bench (doubles, MPI_SUM), median of iterations; $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "# command: top_builddir=$b sh bench/compare.sh  (BENCH_RANKS='$ranks' BENCH_SIZES='$sizes' BENCH_MODES='$modes' BENCH_VARIANTS='$variants' BENCH_VARIANT_MODES='$vmodes'); encore-run --bind-to$(for n in $ranks; do printf ' %s at %s ranks' "$(bind "$n")" "$n"; done)"
    # shellcheck disable=SC2086 # $files is a list of paths without blanks
    awk 'function r(a, b) { return (a > 0 && b > 0) ? sprintf("%.2f", a / b) : "-" }
         function v(a) { return a > 0 ? sprintf("%.2f", a) : "-" }
         { f = FILENAME; sub(/.*\//, "", f); sub(/\.dat$/, "", f)
           m = f; var = "world"
           if (index(f, ".")) { m = substr(f, 1, index(f, ".") - 1); var = substr(f, index(f, ".") + 1) }
           key = $1 " " $2; t[m, var, key] = $3; have[var] = 1
           if (!(key in seen)) { seen[key] = 1; keys[++nk] = key } }
         END {
           nv = split("world world-inplace dup dup-inplace", vs, " ")
           for (j = 1; j <= nv; j++) {
             var = vs[j]
             if (!(var in have))
               continue
             base = var ~ /inplace/ ? "world-inplace" : "world"
             print ""
             printf "# %s, %s\n", var ~ /^dup/ ? "MPI_Comm_dup of the world" : "MPI_COMM_WORLD",
                    var ~ /inplace/ ? "in place (MPI_IN_PLACE)" : "out of place"
             printf "%-10s %5s %11s %11s %11s %11s %11s %9s %9s %9s %9s %9s\n", "bytes", "ranks",
                    "encore_us", "norec_us", "noshm_us", "native_us", "tcp_us", "enc/nat",
                    "enc/norec", "enc/noshm", "enc/tcp", "enc/world"
             for (i = 1; i <= nk; i++) {
               key = keys[i]
               e = t["encore", var, key]; rr = t["norec", var, key]; s = t["noshm", var, key]
               n = t["native", var, key]; c = t["tcp", var, key]; w = t["encore", base, key]
               if (e == "" && rr == "" && s == "" && n == "" && c == "")
                 continue
               split(key, k, " ")
               printf "%-10s %5s %11s %11s %11s %11s %11s %9s %9s %9s %9s %9s\n", k[1], k[2],
                      v(e), v(rr), v(s), v(n), v(c), r(e, n), r(e, rr), r(e, s), r(e, c),
                      var ~ /^dup/ ? r(e, w) : "-"
               ratio[var, key, "nat"] = r(e, n); ratio[var, key, "rec"] = r(e, rr)
               if (var ~ /^dup/ && r(e, w) != "-" &&
                   (dupworst == "" || r(e, w) + 0 > dupworst + 0))
                 dupworst = r(e, w)
             }
           }
           # the targets of issue 11 (2 ranks unless said, world, out of place)
           print ""
           print "# targets"
           target("16 MiB, 2 ranks: encore/native <= 1.0", ratio["world", "16777216 2", "nat"], 1.0)
           target("8 B, 2 ranks: encore/native <= 2.0", ratio["world", "8 2", "nat"], 2.0)
           worst = "-"
           for (i = 1; i <= nk; i++) {
             split(keys[i], k, " ")
             if (k[2] == 4 && ratio["world", keys[i], "nat"] != "-" &&
                 ratio["world", keys[i], "nat"] != "" &&
                 (worst == "-" || ratio["world", keys[i], "nat"] + 0 > worst + 0))
               worst = ratio["world", keys[i], "nat"]
           }
           target("4 ranks, every size: encore/native <= 1.5 (worst)", worst, 1.5)
           target("16 MiB, 2 ranks: encore/norec <= 1.10", ratio["world", "16777216 2", "rec"], 1.10)
           target("8 B, 2 ranks: encore/norec <= 1.3", ratio["world", "8 2", "rec"], 1.3)
           # the targets of issue 20
           target("dup within 1.1x of world in encore, every size (worst)", dupworst, 1.1)
           target("world, in place, 2 ranks, 16 MiB: encore/native <= 1.0",
                  ratio["world-inplace", "16777216 2", "nat"], 1.0)
         }
         function target(what, got, bound) {
           if (got == "")
             got = "-"
           printf "%-56s %6s  %s\n", what, got, got == "-" ? "-" : (got + 0 <= bound ? "met" : "MISSED")
         }' $files
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
