#!/bin/sh
# fortran_checkpoint: tests/programs/fortran_ckpt.f90 (use mpi_f08 + the
# encore module) checkpoints every 4 iterations; rank 1 of 4 is killed at
# collective 45, restarts, resumes from encore_load_checkpoint's version and
# the job prints exactly the native / fault-free result.  Resuming (rather
# than replaying everything) shows as fewer than 20 replayed collectives.
# Skips (77) only when configure left Fortran out.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

enc_fortran_begin
k=45
# It calls encore_*: it must link libencore (no plain / LD_PRELOAD build).
enc_fortran_build_enc "$ENC_TMP/ckpt" "$ENC_SRCDIR/tests/programs/fortran_ckpt.f90"
enc_run_ok ckpt.native enc_mpirun 4 "$ENC_TMP/ckpt.enc"
[ -s "$ENC_TMP/ckpt.native.out" ] || { enc_show "$ENC_TMP/ckpt.native.err"; enc_fail "native run printed nothing"; }
enc_run_ok ckpt.faultfree enc_encore 4 "$ENC_TMP/ckpt.enc"
enc_expect_same "$ENC_TMP/ckpt.native.out" "$ENC_TMP/ckpt.faultfree.out" "fault-free run"
enc_run_ok ckpt.kill enc_encore 4 --inject kill:rank=1:op=$k "$ENC_TMP/ckpt.enc"
enc_expect_grep "$ENC_TMP/ckpt.kill.err" "rank 1 .*killed by signal 9" "rank 1 was not killed"
enc_expect_same "$ENC_TMP/ckpt.native.out" "$ENC_TMP/ckpt.kill.out" "killed run"
replayed=$(awk '$1 == "rank" && $2 == "1" { for (i = 3; i < NF; i++) if ($i == "replayed") print $(i + 1) }' \
           "$ENC_TMP/ckpt.kill.err")
[ -n "$replayed" ] || enc_fail "no replay count for rank 1 in encore-run's summary"
[ "$replayed" -lt 20 ] || enc_fail "rank 1 replayed $replayed collectives: it did not resume from its checkpoint"
enc_log "ok: killed at collective $k, resumed from a checkpoint ($replayed replayed), native result"
cat "$ENC_TMP/ckpt.kill.out"
enc_pass
