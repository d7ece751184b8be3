#!/bin/sh
# icoll_cross.sh - collectives that ranks start on different communicators
# in different orders all complete (tests/programs/icoll_cross: Comm_idups
# of overlapping communicators around a ring, an Iallreduce on the world
# against an Idup of a dup, Comm_create_group against an Idup, a blocking
# Allreduce while the peers first finish a pending Iallreduce on another
# communicator).  The program checks every sum itself and aborts on a wrong
# one.  Fault-free at 2, 3 and 4 ranks, every rank prints every line; with
# rank 1 SIGKILLed at its 7th and at its 41st collective (inside the
# overlapping nonblocking ones), the distinct lines equal the fault-free
# run's (a restarted rank prints its lines again).
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/icoll_cross"
iters=3
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 2 3 4; do
    enc_run_ok "free$n" enc_encore "$n" "$prog" "$iters"
    cases=$((n > 1 ? 4 : 3))
    want=$((n * (cases * iters + 1)))
    got=$(sort -u "$ENC_TMP/free$n.out" | wc -l)
    [ "$got" -eq "$want" ] || { enc_show "$ENC_TMP/free$n.out"; enc_fail "-n $n: $got lines, want $want"; }
    for r in $(seq 0 $((n - 1))); do
        enc_expect_grep "$ENC_TMP/free$n.out" "^rank $r done$" "-n $n: rank $r did not finish"
    done
    enc_log "ok -n $n fault-free (${ENC_MS} ms)"
done

sort -u "$ENC_TMP/free4.out" >"$ENC_TMP/free4.uniq"
for op in 7 41; do
    enc_run_ok "kill$op" enc_encore 4 --inject "kill:rank=1:op=$op" "$prog" "$iters"
    enc_expect_grep "$ENC_TMP/kill$op.err" "restarting it" "-n 4: rank 1 was not restarted"
    sort -u "$ENC_TMP/kill$op.out" >"$ENC_TMP/kill$op.uniq"
    enc_expect_same "$ENC_TMP/free4.uniq" "$ENC_TMP/kill$op.uniq" "-n 4, rank 1 killed at op $op"
    enc_log "ok -n 4 rank 1 killed at op $op (${ENC_MS} ms)"
done
enc_finish
