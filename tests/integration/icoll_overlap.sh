#!/bin/sh
# icoll_overlap.sh - a pending nonblocking collective progresses while its
# rank computes: tests/programs/icoll_overlap under encore-run at 2, 3 and
# 7 ranks; rank 0 computes (no MPI call) until every other rank has
# finished the Iallreduce it started, so each must print the exact sum
# and "overlapped".
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/icoll_overlap"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 2 3 7; do
    mkdir -p "$ENC_TMP/d$n"
    rc=0
    enc_encore "$n" "$prog" "$ENC_TMP/d$n" >"$ENC_TMP/out.$n" 2>"$ENC_TMP/err.$n" || rc=$?
    if [ "$rc" -ne 0 ]; then
        tail -n 20 "$ENC_TMP/err.$n" "$ENC_TMP/out.$n" >&2
        enc_fail "-n $n: encore-run exited with status $rc"
    fi
    sum=$((n * (n + 1) / 2))
    for r in $(seq 0 $((n - 1))); do
        grep -qx "rank $r sum $sum overlapped" "$ENC_TMP/out.$n" ||
            { cat "$ENC_TMP/out.$n" >&2; enc_fail "-n $n: rank $r did not print sum $sum overlapped"; }
    done
    enc_log "ok -n $n"
done
enc_finish
