#!/bin/sh
# fortran_recovery: for each binding style, rank 1 of 4 is SIGKILLed in the
# middle of fortran_coll's loop (collective 27 of 64) and restarted; the job
# must still print exactly the native mpirun result.  The mpif.h style runs
# both preloaded and relinked.
. "$(dirname "$0")/fortran_lib.sh"
dir=$b/tests/integration/fortran_recovery.dir
rm -rf "$dir" && mkdir -p "$dir"
k=27
for style in mpifh usempi f08; do
    fbuild "$dir/$style" "$src/tests/programs/fortran_coll.F90" $(style_flags $style)
    native "$style.native" 4 "$dir/$style"
    encore "$style.kill" 4 "$dir/$style" --inject kill:rank=1:op=$k
    grep -q "rank 1 .*killed by signal 9" "$dir/$style.kill.err" || fail "$style: rank 1 was not killed"
    same "$style.native" "$style.kill"
    echo "ok: $style, rank 1 killed at collective $k: native result"
done
encore "mpifh.kill.relinked" 4 "$dir/mpifh.enc" --inject kill:rank=1:op=$k
same "mpifh.native" "mpifh.kill.relinked"
echo "ok: mpifh relinked, rank 1 killed at collective $k: native result"
rm -rf "$dir"
