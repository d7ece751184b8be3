#!/bin/sh
# scale.sh - 256 ranks on this host under encore-run (the suite's
# scale_ranks.sh runs 64): start-up to finish time, exact result check and
# the peak-RSS line of the job summary.
#   top_builddir=_build top_srcdir=. sh bench/scale.sh [ranks]
set -eu
: "${top_builddir:=_build}" "${top_srcdir:=.}"
export top_builddir top_srcdir
ENC_SCALE_RANKS=${1:-256} ENC_LIMIT=${ENC_LIMIT:-600}
export ENC_SCALE_RANKS ENC_LIMIT
t0=$(date +%s)
sh "$top_srcdir/tests/integration/scale_ranks.sh"
echo "scale: $ENC_SCALE_RANKS ranks in $(($(date +%s) - t0)) s"
