#!/bin/bash
# imb.sh - the Intel MPI Benchmarks (IMB-MPI1 of intel/mpi-benchmarks) under
# encore-run next to native Open MPI.
#
# Extracts src_c from a local git copy of intel/mpi-benchmarks into a
# temporary directory (nothing of IMB enters this repository), builds
# IMB-MPI1 there with Open MPI's mpicc and IMB's own src_c Makefile, and runs
#     IMB-MPI1 -msglog 3:24 -npmin N -time IMB_TIME -iter IMB_ITER BENCHMARK
# (sizes 8 B to 16 MiB, at the full rank count N only), one process per
# benchmark, for each N of IMB_RANKS on each placement of IMB_PLACES:
#   host    one host: native mpirun -n N --oversubscribe (default transports:
#           shared memory) against encore-run -n N
#   netns   two hosts, network namespaces on a private bridge with link-local
#           addresses (tests/integration/netns_lib.sh; created here and
#           removed at exit), N/2 ranks on each: encore-run --rsh "ip netns
#           exec" --host A:N/2,B:N/2 against native mpirun on the same hosts,
#           its daemons started in the namespaces by a plm_rsh_agent wrapper
#           (`ip netns exec` and `unshare --uts`, the host's name as
#           hostname: Open MPI names its shared-memory files by hostname, and
#           two "hosts" called alike overwrite each other's), TCP between the
#           hosts and shared memory inside one (--mca pml ob1 --mca btl
#           tcp,vader,self, interfaces limited to the bridge), --bind-to none
#           (each namespace's daemon would bind its first rank to the same
#           core as the other's: 8 ms per collective) and, beyond one rank
#           per core, --mca mpi_yield_when_idle 1 (what --oversubscribe sets
#           on one host; each daemon sees only its own ranks)
# encore-run runs with its defaults (recovery on).  Every run is bounded by
# IMB_TIMEOUT seconds, and every process of it by an address-space limit
# (ulimit -v, IMB_VMEM_MB; default half the machine's memory over N ranks,
# at least 2 GiB): a rank whose memory grows (encore's result log on IMB's
# communicator does; bench/README.md) fails alone instead of the machine
# running out.  A failed run is listed after the tables with its last line.
#
# Prints on stdout, in markdown, a table per benchmark: size, then for each
# run IMB's t_avg (us) native, under encore and encore/native; then the
# issue's targets per benchmark, rank count and placement: "every size from
# 8 B to 16 MiB within 1.5x native" and "at most 1.0x native from 1 MiB",
# each with the worst ratio and "met" or "MISSED" ("-" where not measured).
# "fail" stands where native gave a figure and encore did not (IMB's time
# limit, "time-out", or the run ended); it counts as MISSED.  IMB's 0-byte
# row is left out.  Progress goes to stderr.
#
# Environment:
#   IMB_GIT         git directory of intel/mpi-benchmarks (bare mirror or a
#                   clone; default /work/.mirror/intel+mpi-benchmarks/repo)
#   IMB_REV         revision to extract (default HEAD)
#   IMB_RANKS       rank counts (default "2 4 8"; odd ones skip netns)
#   IMB_PLACES      placements (default "host netns")
#   IMB_BENCHMARKS  default "Allreduce Reduce Bcast Allgather Alltoall
#                   Reduce_scatter Barrier"
#   IMB_MSGLOG      IMB's -msglog (default 3:24: 8 B to 16 MiB)
#   IMB_TIME        IMB's -time, seconds per size at most (default 1; IMB
#                   stops a benchmark after IMB_TIME x the number of sizes)
#   IMB_ITER        IMB's -iter: repetitions at most[,MB per size at most]
#                   (default 100: IMB's 40 MB, 2 repetitions of 16 MiB)
#   IMB_VMEM_MB     address space per process in MiB (default above)
#   IMB_TIMEOUT     seconds per run (default 600)
#   IMB_REPS        runs of each benchmark and mode (default 1), native and
#                   encore alternating; the tables keep each size's fastest
#                   t_avg of each mode (on a shared machine a run that lost
#                   its cores to another program says nothing of either)
#   IMB_KEEP=1      keep the temporary directory (IMB's outputs; its path is
#                   printed)
#   IMB_ENCORE_ENV  environment of the encore runs, as NAME=VALUE words
#                   (default none: the defaults; "ENCORE_SNAPSHOT_S=0" or
#                   "ENCORE_RECOVERY=0" attribute a cost to snapshots or to
#                   the log); printed with the tables
#   IMB_ENCORE_BIND encore-run's --bind-to on one host (default: core when
#                   the ranks fit the cores, else none: what native mpirun
#                   does by default, which binds up to 2 ranks to cores and
#                   none when oversubscribed; encore-run's own default is
#                   none, and unbound ranks on a loaded host share a core:
#                   bench/README.md, "IMB attribution")
#   ENCORE_RUN      the launcher (default _install/bin/encore-run of this
#                   checkout, else encore-run on PATH)
#
#   bench/imb.sh > imb.md
#   IMB_RANKS="2 4" IMB_PLACES=host bench/imb.sh > imb.md
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GITDIR=${IMB_GIT:-/work/.mirror/intel+mpi-benchmarks/repo}
REV=${IMB_REV:-HEAD}
RANKS=${IMB_RANKS:-2 4 8}
PLACES=${IMB_PLACES:-host netns}
BENCHMARKS=${IMB_BENCHMARKS:-Allreduce Reduce Bcast Allgather Alltoall Reduce_scatter Barrier}
MSGLOG=${IMB_MSGLOG:-3:24}
SECS=${IMB_TIME:-1}
ITER=${IMB_ITER:-100}
LIMIT=${IMB_TIMEOUT:-600}
REPS=${IMB_REPS:-1}
read -ra ENCORE_ENV <<<"${IMB_ENCORE_ENV:-}"
ENCORE_RUN=${ENCORE_RUN:-$ROOT/_install/bin/encore-run}
[ -x "$ENCORE_RUN" ] || ENCORE_RUN=$(command -v encore-run) || {
    echo "imb.sh: no encore-run (build with ./dev.sh build, or set ENCORE_RUN)" >&2
    exit 2
}
[ -d "$GITDIR/.git" ] && GITDIR=$GITDIR/.git
if ! git --git-dir="$GITDIR" rev-parse -q --verify "$REV^{commit}" >/dev/null 2>&1; then
    cat >&2 <<EOF
imb.sh: no intel/mpi-benchmarks git repository at IMB_GIT=$GITDIR (revision $REV).
Get one (a mirror is a few MB) and point IMB_GIT at it:
    git clone --mirror https://github.com/intel/mpi-benchmarks.git /path/to/imb.git
    IMB_GIT=/path/to/imb.git bench/imb.sh
EOF
    exit 2
fi
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "imb.sh: mpicc and mpirun (Open MPI) are needed" >&2
    exit 2
fi
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/encore-imb.XXXXXX")
cleanup() {
    if [ "${IMB_KEEP:-0}" = 1 ]; then
        echo "imb.sh: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
IMB=$WORK/src_c/IMB-MPI1
say() { printf '%s\n' "$*" >&2; }

# --- build IMB-MPI1 ------------------------------------------------------------

build() {
    git --git-dir="$GITDIR" archive "$REV" src_c | tar -x -C "$WORK" || exit 1
    if ! make -C "$WORK/src_c" -f Makefile TARGET=MPI1 CC=mpicc >"$WORK/build.log" 2>&1 ||
        [ ! -x "$IMB" ]; then
        say "imb.sh: IMB-MPI1 does not build:"
        tail -20 "$WORK/build.log" >&2
        exit 1
    fi
}

# --- runs ----------------------------------------------------------------------

# bind_of N: encore-run's --bind-to for N ranks on one host
bind_of() {
    if [ -n "${IMB_ENCORE_BIND:-}" ]; then
        echo "$IMB_ENCORE_BIND"
    elif [ "$1" -le "$(nproc)" ]; then
        echo core
    else
        echo none
    fi
}

# command_of PLACE N MODE BENCHMARK: the command line of one run in CMD
command_of() {
    local hosts="${H1:-}:$(($2 / 2)),${H2:-}:$(($2 / 2))"
    case $1.$3 in
    host.native) CMD=(mpirun -n "$2" --oversubscribe) ;;
    host.encore) CMD=(env "${ENCORE_ENV[@]}" "$ENCORE_RUN" --bind-to "$(bind_of "$2")" -n "$2") ;;
    netns.native)
        CMD=(mpirun -n "$2" --host "$hosts" --bind-to none --mca plm_rsh_agent "$WORK/nsrsh"
            --mca pml ob1 --mca btl "tcp,vader,self" --mca oob_tcp_if_include "$NETNS_NET.0/24"
            --mca btl_tcp_if_include "$NETNS_NET.0/24")
        [ "$2" -le "$(nproc)" ] || CMD+=(--mca mpi_yield_when_idle 1) ;;
    netns.encore) CMD=(env "${ENCORE_ENV[@]}" "$ENCORE_RUN" -n "$2" --rsh "ip netns exec" --host "$hosts") ;;
    esac
    CMD+=("$IMB" -msglog "$MSGLOG" -npmin "$2" -time "$SECS" -iter "$ITER" "$4")
}

# vmem N: the address-space limit (KiB) of every process of a run of N ranks
vmem() {
    if [ -n "${IMB_VMEM_MB:-}" ]; then
        echo $((IMB_VMEM_MB * 1024))
    else
        awk -v n="$1" '/^MemTotal:/ { k = $2 / (2 * n); printf "%d\n", (k > 2097152 ? k : 2097152) }' \
            /proc/meminfo
    fi
}

# run PLACE N MODE BENCHMARK: one bounded run, IMB's output in
# $WORK/out/PLACE-N-MODE-BENCHMARK.txt; appends "place n mode benchmark
# bytes t_avg|timeout" to $WORK/results, and a line to $WORK/failed if it
# failed
run() {
    local o=$WORK/out/$1-$2-$3-$4-$rep.txt rc t0=$SECONDS
    command_of "$@"
    (ulimit -v "$(vmem "$2")" && exec timeout "$LIMIT" "${CMD[@]}") >"$o" 2>&1
    rc=$?
    say "imb.sh: $3, $2 ranks, $1, $4: exit $rc, $((SECONDS - t0)) s"
    if [ "$rc" -ne 0 ]; then
        tail -3 "$o" >&2
        printf '%s, %s ranks, %s, %s: exit %s%s: %s\n' "$3" "$2" "$1" "$4" "$rc" \
            "$([ "$rc" -eq 124 ] && echo " (timeout ${LIMIT} s)")" \
            "$(grep -v '^[[:space:]#]' "$o" | grep -v '^-*$' | tail -1)" >>"$WORK/failed"
    fi
    awk -v pl="$1" -v n="$2" -v m="$3" '
        /^# Benchmarking / { b = $3 }
        /^#/ { next }
        /time-out/ { if ($1 + 0 > 0) print pl, n, m, b, $1, "timeout"; next }
        NF == 5 && $1 ~ /^[0-9]+$/ && $1 > 0 { print pl, n, m, b, $1, $5 }
        NF == 4 && $1 ~ /^[0-9]+$/ { print pl, n, m, b, "-", $4 }' "$o" >>"$WORK/results"
}

# netns_up: two namespace hosts H1 H2 and the rsh wrapper for native mpirun
netns_up() {
    # shellcheck source=tests/integration/netns_lib.sh
    . "$ROOT/tests/integration/netns_lib.sh"
    netns_create 2
    netns_at_exit cleanup # netns_create replaced the EXIT trap
    H1=$(netns_name 1) H2=$(netns_name 2)
    # Open MPI passes the daemon's command line as one string, for a shell;
    # the host's own hostname keeps Open MPI's shared-memory files apart
    cat >"$WORK/nsrsh" <<'EOF'
#!/bin/sh
h=$1
shift
exec ip netns exec "$h" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$h" "$*"
EOF
    chmod +x "$WORK/nsrsh"
}

# --- tables --------------------------------------------------------------------

report() {
    awk -v benches="$BENCHMARKS" '
        function key(p, n) { return n " " p }
        function label(k,   a) { split(k, a, " "); return a[1] " ranks, " (a[2] == "host" ? "one host" : "2 netns hosts") }
        function ratio(e, n) {
            if (n == "" || n == "timeout") return "-"
            if (e == "" || e == "timeout") return "fail"
            return sprintf("%.2f", e / n)
        }
        function worse(a, b) { return a == "-" ? b : b == "-" ? a : a == "fail" || b == "fail" ? "fail" : (a + 0 > b + 0 ? a : b) }
        function verdict(w, bound) { return w == "-" ? "-" : (w != "fail" && w + 0 <= bound ? "met" : "MISSED") }
        { k5 = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4 SUBSEP $5 # the fastest of the reps
          if (!(k5 in t) || t[k5] == "timeout" || ($6 != "timeout" && $6 + 0 < t[k5] + 0))
              t[k5] = $6
          k = key($1, $2); if (!(k in seenk)) { seenk[k] = 1; ks[++nk] = k }
          if (!(($4, $5) in seens)) { seens[$4, $5] = 1; sz[$4, ++ns[$4]] = $5 } }
        END {
            nb = split(benches, bs, " ")
            for (i = 1; i <= nb; i++) {
                b = bs[i]
                printf "\n### %s (t_avg, us)\n\n| bytes |", b
                for (j = 1; j <= nk; j++) printf " %s: native | encore | x |", label(ks[j])
                printf "\n|---|"
                for (j = 1; j <= nk; j++) printf "---|---|---|"
                printf "\n"
                for (s = 1; s <= ns[b]; s++) {
                    bytes = sz[b, s]
                    printf "| %s |", bytes
                    for (j = 1; j <= nk; j++) {
                        split(ks[j], a, " ")
                        n = t[a[2], a[1], "native", b, bytes]; e = t[a[2], a[1], "encore", b, bytes]
                        r = ratio(e, n)
                        printf " %s | %s | %s |", n == "" ? "-" : n, e == "" ? "-" : e, r
                        all[b, ks[j]] = worse(all[b, ks[j]] == "" ? "-" : all[b, ks[j]], r)
                        if (bytes != "-" && bytes + 0 >= 1048576)
                            big[b, ks[j]] = worse(big[b, ks[j]] == "" ? "-" : big[b, ks[j]], r)
                    }
                    printf "\n"
                }
            }
            printf "\n### Targets\n\n| benchmark | run | worst x, 8 B-16 MiB | within 1.5x | worst x from 1 MiB | at most 1.0x |\n|---|---|---|---|---|---|\n"
            for (i = 1; i <= nb; i++)
                for (j = 1; j <= nk; j++) {
                    w = all[bs[i], ks[j]]; if (w == "") w = "-"
                    g = big[bs[i], ks[j]]; if (g == "") g = "-"
                    printf "| %s | %s | %s | %s | %s | %s |\n", bs[i], label(ks[j]), w,
                           verdict(w, 1.5), g, verdict(g, 1.0)
                }
        }' "$WORK/results"
    if [ -s "$WORK/failed" ]; then
        printf '\nRuns that failed (the last line of their output):\n\n'
        sed 's/^/* /' "$WORK/failed"
    fi
}

# --- main ----------------------------------------------------------------------

mkdir -p "$WORK/out"
: >"$WORK/results"
: >"$WORK/failed"
build
say "imb.sh: IMB-MPI1 built ($(git --git-dir="$GITDIR" rev-parse --short=12 "$REV"))"
start=$(date -u +%Y-%m-%dT%H:%MZ) load0=$(cut -d' ' -f1-3 /proc/loadavg) t0=$SECONDS
for place in $PLACES; do
    case $place in
    host) ;;
    netns)
        if ! (. "$ROOT/tests/integration/netns_lib.sh" && netns_require) 2>/dev/null; then
            say "imb.sh: netns skipped (needs root and network namespaces)"
            continue
        fi
        netns_up ;;
    *) say "imb.sh: unknown placement $place (IMB_PLACES: host netns)"; exit 2 ;;
    esac
    for n in $RANKS; do
        if [ "$place" = netns ] && [ $((n % 2)) -ne 0 ]; then
            say "imb.sh: netns needs an even rank count; $n skipped"
            continue
        fi
        for bench in $BENCHMARKS; do
            for rep in $(seq "$REPS"); do
                run "$place" "$n" native "$bench"
                run "$place" "$n" encore "$bench"
            done
        done
    done
done

echo "## IMB-MPI1 under encore-run against native Open MPI"
echo
echo "IMB $(git --git-dir="$GITDIR" rev-parse --short=12 "$REV"), $(mpirun --version 2>/dev/null | head -1),"
echo "encore-run $ENCORE_RUN${IMB_ENCORE_ENV:+ with $IMB_ENCORE_ENV}; $start, $(nproc) cores, load average $load0 at the start,"
echo "$(cut -d' ' -f1-3 /proc/loadavg) at the end, $((SECONDS - t0)) s."
echo "IMB-MPI1 -msglog $MSGLOG -npmin N -time $SECS -iter $ITER BENCHMARK, $REPS run(s) per benchmark"
echo "and mode (the fastest t_avg of each size); encore-run on one host --bind-to$(for n in $RANKS; do printf ' %s at %s ranks' "$(bind_of "$n")" "$n"; done);"
sep=' '
printf 'address space per process (ulimit -v):'
for n in $RANKS; do
    printf '%s%s MiB at %s ranks' "$sep" "$(($(vmem "$n") / 1024))" "$n"
    sep=', '
done
echo "."
report
