#!/bin/sh
# profile.sh - where the time of one MPI_Allreduce size goes under encore-run.
#
#   profile.sh [ranks] [bytes] [mode]     (default: 2 16777216 encore)
#
# mode is one of compare.sh's encore modes: encore, norec (ENCORE_RECOVERY=0)
# or noshm (ENCORE_SHM=0).  Runs bench/allreduce_bench with that one size
# (repeated so the timed part dominates start-up) under `perf record -g`
# (Debian package linux-perf), then prints the ranks' hottest symbols and a
# split of their samples: copies (memcpy/memmove), reduction kernels,
# waiting (spin, yield, sleep), the kernel (system calls, page faults) and
# the rest.  Bounded by BENCH_TIMEOUT (default 300 s).
# Run from the build directory, or set top_builddir.
set -eu
b=$(cd "${top_builddir:-.}" && pwd)
n=${1:-2} bytes=${2:-16777216} mode=${3:-encore}
limit=${BENCH_TIMEOUT:-300}
reps=${PROFILE_REPS:-4}
out=${BENCH_OUT:-$b/bench/results}
data="$out/perf.$mode.$n.$bytes.data"

command -v perf >/dev/null 2>&1 ||
    { echo "profile.sh: perf not found (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$b/bench/allreduce_bench" ] && [ -x "$b/encore-run" ] ||
    { echo "profile.sh: build bench/allreduce_bench and encore-run first (make bench)" >&2; exit 1; }
case $mode in
encore) set -- ;;
norec) set -- ENCORE_RECOVERY=0 ;;
noshm) set -- ENCORE_SHM=0 ;;
*) echo "profile.sh: mode is encore, norec or noshm, not '$mode'" >&2; exit 2 ;;
esac
mkdir -p "$out"
sizes=$(i=0; while [ "$i" -lt "$reps" ]; do printf '%s ' "$bytes"; i=$((i + 1)); done)
# shellcheck disable=SC2086 # $sizes is a list of words
timeout "$limit" env "$@" perf record -q -g -F 4000 -o "$data" -- \
    "$b/encore-run" -n "$n" "$b/bench/allreduce_bench" $sizes
echo "# perf profile: allreduce_bench $bytes bytes x $reps, $n ranks, mode $mode ($data)"
perf report -i "$data" --stdio --no-children --comm allreduce_bench --sort dso,sym -g none \
    --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
perf report -i "$data" --stdio --no-children --comm allreduce_bench --sort sym -g none \
    2>/dev/null | awk '
    /^ *[0-9.]+%/ {
        p = $1; sub(/%/, "", p); s = $0
        if (s ~ /enc_shm_attach/) c["start-up: writing the segment once"] += p
        else if (s ~ /memmove|memcpy/) c["copies"] += p
        else if (s ~ /k_[A-Z0-9]+_[A-Z]+|combine|apply/) c["reduction kernels"] += p
        else if (s ~ /wait_for|sched_yield|vdso|clock_gettime|enc_now_ns|cpu_relax/) c["waiting (spin, yield, clock)"] += p
        else if (s ~ /\[k\]/) c["kernel (syscalls, faults, sleep)"] += p
        else c["other"] += p
    }
    END {
        print "# split of the samples of the ranks"
        for (k in c) printf "%6.1f%%  %s\n", c[k], k
    }'
