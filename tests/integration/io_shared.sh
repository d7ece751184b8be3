#!/bin/sh
# io_shared.sh - the noncollective shared file pointer under encore-run
# (shim/mpi/io/io_pointer.c, docs/io.md), 4 ranks of
# tests/programs/io_shared_check, each run in its own directory:
#   native    mpirun alone: the program's own checks pass (every rank's
#             block in the file exactly once, read back exactly once); its
#             positions are not compared (Open MPI 4's own
#             get_position_shared right after write_shared sometimes says 0)
#   free      fault-free: sorted output identical to the expected one
#             (the same checks, and every position as the standard says)
#   kill      rank 1 SIGKILLed at collective 10 and rank 3 at 13 (inside
#             the write loop): the restored ranks' repeated write_shared
#             calls get the offsets of their first run, so the output is
#             the same and the file has the same size and the same blocks;
#             the order of blocks is whichever serialization the lock
#             gave, so the file is compared as a set of blocks
#   late      rank 2 killed at collective 21 (in the read-back loop):
#             its repeated read_shared calls read the same blocks
#   closed    rank 1 killed at collective 28, after MPI_File_close removed
#             the pointer's sidecar: its repeated write_shared cannot get
#             its first offset back, so the job stops (exit 1) with one line
#             naming the call, never a fresh (wrong) offset
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"

PROG="$ENC_PROGRAMS/io_shared_check"
ITERS=8
rec_begin "$PROG"

# blocks NAME: NAME's file as sorted 64-byte blocks, one hex line each.
blocks() {
    od -An -v -tx1 -w64 "$ENC_TMP/$1.d/shared" | sort >"$ENC_TMP/$1.blocks" ||
        enc_fail "$1: od failed"
}

# same_blocks NAME REF: the same blocks as REF's file; no sidecar left.
same_blocks() {
    blocks "$1"
    enc_expect_same "$ENC_TMP/$2.blocks" "$ENC_TMP/$1.blocks" "$1: blocks of the file"
    ! ls "$ENC_TMP/$1.d/" | grep -q encore-shfp || enc_fail "$1: a sidecar file is left"
}

mkdir "$ENC_TMP/native.d" "$ENC_TMP/free.d" "$ENC_TMP/kill.d" "$ENC_TMP/late.d" \
    "$ENC_TMP/closed.d"
enc_run_ok native enc_mpirun 4 "$PROG" "$ENC_TMP/native.d" "$ITERS"
[ "$(grep -c ' bad 0$' "$ENC_TMP/native.out")" -eq 5 ] || enc_fail "native run's own checks"
blocks native
# The expected output, sorted as rec_run sorts it.
{
    echo 'rank 0 file size 2048 blocks 32 bad 0'
    for _r in 0 1 2 3; do
        printf 'rank %s after set_view position 8\n' "$_r"
        printf 'rank %s after write_ordered position 2304\n' "$_r"
        printf 'rank %s after writes position 2048\n' "$_r"
        printf 'rank %s read_shared bad 0\n' "$_r"
    done
} | sort >"$ENC_TMP/native.ref"

rec_run free 4 "$PROG" "$ENC_TMP/free.d" "$ITERS"
rec_ok free native
same_blocks free native
enc_log "ok free ($REC_MS ms)"

rec_run kill 4 --inject kill:rank=1:op=10 --inject kill:rank=3:op=13 \
    "$PROG" "$ENC_TMP/kill.d" "$ITERS"
rec_ok kill native
rec_restarts kill "0 1 0 1"
same_blocks kill native
enc_log "ok kill ($REC_MS ms)"

rec_run late 4 --inject kill:rank=2:op=21 "$PROG" "$ENC_TMP/late.d" "$ITERS"
rec_ok late native
rec_restarts late "0 0 1 0"
same_blocks late native
enc_log "ok late ($REC_MS ms)"

rec_run closed 4 --inject kill:rank=1:op=28 "$PROG" "$ENC_TMP/closed.d" "$ITERS"
[ "$REC_RC" -eq 1 ] || rec_show closed
enc_expect_status closed 1 "$REC_RC"
rec_grep closed 'MPI_File_write_shared: the shared pointer file .* is gone \(this rank was restored after the file was closed\)' \
    "no refusal line"
enc_log "ok closed"
enc_pass
