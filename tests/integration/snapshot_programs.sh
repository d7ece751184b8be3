#!/bin/sh
# snapshot_programs.sh - snapshots with other kinds of programs, a snapshot
# taken at every collective boundary (ENCORE_SNAPSHOT_S=0.001) so that one
# exists when the injected SIGKILL comes; every run must print exactly the
# native mpirun result, and the killed rank must have been restored from a
# snapshot:
#   ckmid     tests/programs/recov_ckpt (checkpoint API, a checkpoint every
#             5 iterations), rank 2 killed at collective 20: the snapshot
#             parked before checkpoint 2 was ended when it began, the one
#             taken right after it is used
#   ckentry   rank 1 killed entering the first checkpoint (collective 9)
#   mpi4py    tests/programs/mpi4py_coll.py on 3 ranks, rank 1 killed at 10
#   fortran   tests/programs/fortran_coll.F90 (use mpi_f08), rank 1 killed
#             at 27 (skipped when configure left Fortran out)
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

ckpt="$ENC_PROGRAMS/recov_ckpt"
rec_begin "$ckpt"

# snap_restored NAME RANK: RANK was restored from a snapshot in run NAME.
snap_restored() {
    rec_grep "$1" "rank $2\\] snapshot: restored from the snapshot at seq [0-9]+ as incarnation 1" \
        "rank $2 was not restored from a snapshot"
}

REC_ENV="ENCORE_SNAPSHOT_S=0"
rec_ref ck4 4 "$ckpt" 40
REC_ENV="ENCORE_SNAPSHOT_S=0.001"

rec_run ckmid 4 --inject kill:rank=2:op=20 "$ckpt" 40
rec_ok ckmid ck4
rec_restarts ckmid "0 0 1 0"
snap_restored ckmid 2
seq=$(sed -n 's/.*rank 2\] snapshot: restored from the snapshot at seq \([0-9]*\) .*/\1/p' \
    "$ENC_TMP/ckmid.err")
[ "$seq" -ge 14 ] || enc_fail "ckmid: restored from seq $seq, before checkpoint 2 (collective 15)"
enc_log "ok ckmid (restored from seq $seq)"

rec_run ckentry 4 --inject kill:rank=1:op=9 "$ckpt" 40
rec_ok ckentry ck4
rec_restarts ckentry "0 1 0 0"
snap_restored ckentry 1
enc_log "ok ckentry"

# -- mpi4py -----------------------------------------------------------------------
prog="$ENC_SRCDIR/tests/programs/mpi4py_coll.py"
if enc_bounded 60 "$MPI4PY_PYTHON" -c 'import mpi4py.MPI' >/dev/null 2>&1; then
    mkdir -p "$ENC_TMP/py.native" "$ENC_TMP/py.encore" || enc_fail "mkdir failed"
    enc_run_ok py.native enc_mpirun 3 "$MPI4PY_PYTHON" "$prog" "$ENC_TMP/py.native"
    rec_run py 3 --inject kill:rank=1:op=10 "$MPI4PY_PYTHON" "$prog" "$ENC_TMP/py.encore"
    enc_expect_status py 0 "$REC_RC"
    enc_compare_dirs "$ENC_TMP/py.native" "$ENC_TMP/py.encore" "mpi4py: results differ from native"
    rec_restarts py "0 1 0"
    snap_restored py 1
    enc_log "ok mpi4py"
else
    enc_log "mpi4py section skipped: $MPI4PY_PYTHON has no mpi4py"
fi

# -- Fortran ------------------------------------------------------------------------
if [ -f "$ENC_BUILDDIR/fortran/test.env" ]; then
    . "$ENC_BUILDDIR/fortran/test.env"
    ENC_MPIRUN=$MPIRUN
    # shellcheck disable=SC2046 # the flags are words
    enc_fortran_build "$ENC_TMP/f08" "$ENC_SRCDIR/tests/programs/fortran_coll.F90" \
        $(enc_fortran_flags f08)
    enc_run_ok f08.native enc_mpirun 4 "$ENC_TMP/f08"
    cp "$ENC_TMP/f08.native.out" "$ENC_TMP/f08.ref" || enc_fail "cp failed"
    rec_run f08 4 --inject kill:rank=1:op=27 "$ENC_TMP/f08"
    rec_ok f08 f08
    snap_restored f08 1
    enc_log "ok fortran"
else
    enc_log "Fortran section skipped: configure left Fortran out"
fi
enc_pass
