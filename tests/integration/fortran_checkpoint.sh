#!/bin/sh
# fortran_checkpoint: tests/programs/fortran_ckpt.f90 (use mpi_f08 + the
# encore module) checkpoints every 4 iterations; rank 1 of 4 is killed at
# collective 45, restarts, resumes from encore_load_checkpoint's version and
# the job prints exactly the native / fault-free result.  Resuming (rather
# than replaying everything) shows as fewer than 20 replayed collectives.
. "$(dirname "$0")/fortran_lib.sh"
dir=$b/tests/integration/fortran_checkpoint.dir
rm -rf "$dir" && mkdir -p "$dir"
k=45
# It calls encore_*: it must link libencore (no plain / LD_PRELOAD build).
fbuild_enc "$dir/ckpt" "$src/tests/programs/fortran_ckpt.f90"
native ckpt.native 4 "$dir/ckpt.enc"
encore ckpt.faultfree 4 "$dir/ckpt.enc"
same ckpt.native ckpt.faultfree
encore ckpt.kill 4 "$dir/ckpt.enc" --inject kill:rank=1:op=$k
grep -q "rank 1 .*killed by signal 9" "$dir/ckpt.kill.err" || fail "rank 1 was not killed"
same ckpt.native ckpt.kill
replayed=$(awk '$1 == "rank" && $2 == "1" { for (i = 3; i < NF; i++) if ($i == "replayed") print $(i + 1) }' \
           "$dir/ckpt.kill.err")
[ -n "$replayed" ] || fail "no replay count for rank 1 in encore-run's summary"
[ "$replayed" -lt 20 ] || fail "rank 1 replayed $replayed collectives: it did not resume from its checkpoint"
echo "ok: killed at collective $k, resumed from a checkpoint ($replayed replayed), native result"
cat "$dir/ckpt.kill.out"
rm -rf "$dir"
