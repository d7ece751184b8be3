#!/bin/sh
# fortran_recovery: for each binding style, rank 1 of 4 is SIGKILLed in the
# middle of fortran_coll's loop (collective 27 of 64) and restarted; the job
# must still print exactly the native mpirun result.  The mpif.h style runs
# both preloaded and relinked.  Skips (77) only when configure left Fortran out.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

enc_fortran_begin
k=27
for style in mpifh usempi f08; do
    # shellcheck disable=SC2046 # the flags are words
    enc_fortran_build "$ENC_TMP/$style" "$ENC_SRCDIR/tests/programs/fortran_coll.F90" \
        $(enc_fortran_flags $style)
    enc_run_ok "$style.native" enc_mpirun 4 "$ENC_TMP/$style"
    [ -s "$ENC_TMP/$style.native.out" ] || enc_fail "native $style printed nothing"
    enc_run_ok "$style.kill" enc_encore 4 --inject kill:rank=1:op=$k "$ENC_TMP/$style"
    enc_expect_grep "$ENC_TMP/$style.kill.err" "rank 1 .*killed by signal 9" \
        "$style: rank 1 was not killed"
    enc_expect_same "$ENC_TMP/$style.native.out" "$ENC_TMP/$style.kill.out" "$style.kill"
    enc_log "ok: $style, rank 1 killed at collective $k: native result"
done
enc_run_ok mpifh.kill.relinked enc_encore 4 --inject kill:rank=1:op=$k "$ENC_TMP/mpifh.enc"
enc_expect_same "$ENC_TMP/mpifh.native.out" "$ENC_TMP/mpifh.kill.relinked.out" "mpifh.kill.relinked"
enc_log "ok: mpifh relinked, rank 1 killed at collective $k: native result"
enc_pass
