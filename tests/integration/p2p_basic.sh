#!/bin/sh
# p2p_basic.sh - point-to-point on the world and a derived communicator
# (tests/programs/p2p_check: blocking and nonblocking sends of every mode,
# ANY_SOURCE/ANY_TAG, PROC_NULL, zero-size and 4 MiB messages both ways at
# once, a vector datatype, truncation, cancel, probes, point-to-point and
# a nonblocking collective in one Waitall).  The program checks every value
# itself; at 2, 3 and 4 ranks the sorted output under encore-run equals
# native Open MPI's, line for line.  With rank 1 SIGKILLed at its 3rd, 5th
# and 9th collective (in the middle of the messages), it restarts,
# re-executes, its peers send it their logs again and drop its re-sent
# messages: the distinct lines equal native's.
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/p2p_check"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 2 3 4; do
    enc_run_ok "native$n" enc_mpirun "$n" "$prog"
    enc_expect_grep "$ENC_TMP/native$n.out" "^rank 0: all ok$" "-n $n: native run failed"
    enc_run_ok "encore$n" enc_second "$n" "$prog"
    enc_expect_same "$ENC_TMP/native$n.out" "$ENC_TMP/encore$n.out" "-n $n"
    enc_log "ok -n $n (${ENC_MS} ms)"
done
sort -u "$ENC_TMP/native4.out" >"$ENC_TMP/native4.uniq"
for op in 3 5 9; do
    enc_run_ok "kill$op" enc_encore 4 --inject "kill:rank=1:op=$op" "$prog"
    enc_expect_grep "$ENC_TMP/kill$op.err" "restarting it" "op $op: rank 1 was not restarted"
    sort -u "$ENC_TMP/kill$op.out" >"$ENC_TMP/kill$op.uniq"
    enc_expect_same "$ENC_TMP/native4.uniq" "$ENC_TMP/kill$op.uniq" "rank 1 killed at op $op"
    enc_log "ok: rank 1 killed at op $op, recovered (${ENC_MS} ms)"
done
enc_finish
