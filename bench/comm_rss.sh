#!/bin/sh
# comm_rss.sh - memory of a long job on derived communicators: their
# entries in the result log (shim/recovery/log/) must stay bounded when the
# program checkpoints.
#
# tests/programs/comm_ckpt on 4 ranks (per iteration one allreduce of two
# longs on an MPI_Comm_dup of the world and one allgather on an
# MPI_Comm_split of it) for COMM_RSS_SHORT (default 5000) and COMM_RSS_LONG
# (default 20000) iterations with a checkpoint every 100, and for the long
# run without checkpoints.  Prints the largest private RSS of any rank (the
# job summary of encore-run): with checkpoints, short and long agree within
# noise; without, the long run holds every result (several hundred bytes a
# collective on each holder).
# Run from the build directory, or set top_builddir.
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/..}"
. "$top_srcdir/tests/integration/lib.sh"
b=$ENC_BUILDDIR
prog="$b/tests/programs/comm_ckpt"
short=${COMM_RSS_SHORT:-5000}
long=${COMM_RSS_LONG:-20000}
[ -x "$prog" ] || { echo "comm_rss: build $prog first (make tests/programs/comm_ckpt)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# peak ITERS EVERY: the largest private RSS of any rank, as the summary prints it
peak() {
    "$b/encore-run" -n 4 --summary "$prog" "$1" "$2" >"$tmp/out" 2>"$tmp/err" ||
        { tail -n 20 "$tmp/err" >&2; echo "comm_rss: run of $1 iterations failed" >&2; exit 1; }
    sed -n 's/^  private RSS per rank: max \([0-9.]* [KMG]iB\) .*/\1/p' "$tmp/err"
}

printf '%-34s %s\n' "run (4 ranks)" "private RSS (largest rank)"
printf '%-34s %s\n' "$short iterations, checkpoint/100" "$(peak "$short" 100)"
printf '%-34s %s\n' "$long iterations, checkpoint/100" "$(peak "$long" 100)"
printf '%-34s %s\n' "$long iterations, no checkpoint" "$(peak "$long" 0)"
