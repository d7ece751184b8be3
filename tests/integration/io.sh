#!/bin/sh
# io.sh - MPI-IO on MPI_COMM_WORLD under encore-run (shim/mpi/io/io_*.c,
# docs/io.md), 4 ranks of tests/programs/io_check, each run in its own
# directory:
#   free      fault-free: sorted output identical to native mpirun's, and
#             the files it wrote (data, ordered) identical to native's (cmp)
#   kill      rank 0 SIGKILLed at collective 20 (inside the write loop) and
#             rank 2 at 45: output and files identical to the fault-free run
#   late      rank 0 killed at collective 74 (the barrier before the file
#             grows), after all data was written: its replay of the early
#             MPI_File_set_size(fh, 0) must not truncate what the others
#             wrote (output and files still identical).  A kill after the
#             file grew would make its repeated MPI_File_get_size see the
#             later size: docs/io.md, what is not exact.
#   amode     rank 1 opens with another access mode: one error line, exit 1
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"

PROG="$ENC_PROGRAMS/io_check"
ITERS=20
rec_begin "$PROG"

# same_files NAME REF: NAME's data files equal REF's, byte for byte.
same_files() {
    for _f in data ordered; do
        enc_expect_same "$ENC_TMP/$2.d/$_f" "$ENC_TMP/$1.d/$_f" "$1: file $_f"
    done
    [ ! -e "$ENC_TMP/$1.d/scratch" ] && [ ! -e "$ENC_TMP/$1.d/temp" ] ||
        enc_fail "$1: a deleted file is still there"
}

mkdir "$ENC_TMP/native.d" "$ENC_TMP/free.d" "$ENC_TMP/kill.d" "$ENC_TMP/late.d" \
    "$ENC_TMP/amode.d"
enc_run_ok native enc_mpirun 4 "$PROG" "$ENC_TMP/native.d" "$ITERS"
cp "$ENC_TMP/native.out" "$ENC_TMP/native.ref"
[ "$(wc -l <"$ENC_TMP/native.ref")" -eq 44 ] || enc_fail "native: want 44 lines"
enc_expect_no_grep "$ENC_TMP/native.ref" 'MISMATCH|other error' "native run's own checks"
same_files native native

rec_run free 4 "$PROG" "$ENC_TMP/free.d" "$ITERS"
rec_ok free native
same_files free native
enc_log "ok free ($REC_MS ms)"

rec_run kill 4 --inject kill:rank=0:op=20 --inject kill:rank=2:op=45 \
    "$PROG" "$ENC_TMP/kill.d" "$ITERS"
rec_ok kill native
rec_restarts kill "1 0 1 0"
same_files kill native
enc_log "ok kill ($REC_MS ms)"

rec_run late 4 --inject kill:rank=0:op=74 "$PROG" "$ENC_TMP/late.d" "$ITERS"
rec_ok late native
rec_restarts late "1 0 0 0"
same_files late native
enc_log "ok late ($REC_MS ms)"

rec_run amode 4 "$PROG" "$ENC_TMP/amode.d" "$ITERS" amode
rec_fails amode
rec_grep amode 'MPI_File_open: ranks passed different access modes' "no amode error line"
enc_log "ok amode"
enc_pass
