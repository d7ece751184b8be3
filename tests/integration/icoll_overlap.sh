#!/bin/sh
# icoll_overlap.sh - a pending nonblocking collective progresses while its
# rank computes: tests/programs/icoll_overlap under encore-run at 2, 3 and
# 7 ranks; rank 0 computes (no MPI call) until every other rank has
# finished the Iallreduce it started, so each must print the exact sum
# and "overlapped".
set -eu
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/icoll_overlap"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 2 3 7; do
    mkdir -p "$ENC_TMP/d$n"
    enc_run_ok "run.$n" enc_encore "$n" "$prog" "$ENC_TMP/d$n"
    sum=$((n * (n + 1) / 2))
    for r in $(seq 0 $((n - 1))); do
        grep -qx "rank $r sum $sum overlapped" "$ENC_TMP/run.$n.out" ||
            { cat "$ENC_TMP/run.$n.out" >&2; enc_fail "-n $n: rank $r did not print sum $sum overlapped"; }
    done
    enc_log "ok -n $n"
done
enc_finish
