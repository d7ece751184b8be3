#!/bin/sh
# mpi4py.sh - an unmodified mpi4py program (tests/programs/mpi4py_coll.py:
# buffer Allreduce/Bcast/Allgather/Reduce/Barrier and pickled bcast/
# allreduce/allgather) under encore-run gives exactly the lines it gives
# under native mpirun, on every rank, for N in 1 2 3 4.  Uses $MPI4PY_PYTHON
# (Debian's /usr/bin/python3 by default: the python3 first on PATH may lack
# mpi4py); skips only when that interpreter has no mpi4py.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

ranks=${MPI4PY_RANKS:-1 2 3 4}
prog="$ENC_SRCDIR/tests/programs/mpi4py_coll.py"

enc_bounded 60 "$MPI4PY_PYTHON" -c 'import mpi4py.MPI' >/dev/null 2>&1 ||
    enc_skip "$MPI4PY_PYTHON has no mpi4py (install python3-mpi4py or set MPI4PY_PYTHON)"
enc_require_launchers
enc_tmpdir

for n in $ranks; do
    for side in native encore; do
        d="$ENC_TMP/$side.$n"
        mkdir -p "$d/out"
        launch=enc_second
        [ "$side" = encore ] || launch=enc_mpirun
        enc_run_ok "$side.$n/job" "$launch" "$n" "$MPI4PY_PYTHON" "$prog" "$d/out"
        files=$(enc_file_count "$d/out")
        [ "$files" -eq "$n" ] || enc_fail "$side -n $n: $files rank files, expected $n"
    done
    enc_compare_dirs "$ENC_TMP/native.$n/out" "$ENC_TMP/encore.$n/out" \
        "mpi4py_coll.py -n $n: encore-run results differ from native mpirun"
    grep -q "^allgather str " "$ENC_TMP/encore.$n/out/rank.0" ||
        enc_fail "mpi4py -n $n: output incomplete"
    enc_log "-n $n: identical on every rank"
done
enc_finish
