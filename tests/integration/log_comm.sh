#!/bin/sh
# log_comm.sh - one result log for every communicator (shim/recovery/log/):
# collectives on a communicator made from the world are counted, bounded,
# trimmed and spilled like the world's.  Scenarios:
#   summary   the job summary counts the collectives of every communicator:
#             tests/programs/recov_iter --iters 10 on 4 ranks makes 22 world
#             collectives (the seed's broadcast, an allreduce and a broadcast
#             per iteration, MPI_Finalize's barrier); with --comm dup all but
#             the last run on a dup of the world, whose creation is one more
#             world collective (a barrier) and whose setup (its shared-memory
#             channels, engine/group_chan.c) one on the dup: 24 on each rank;
#             with --comm rev (a split in reversed order, made by one
#             allgather, and its setup) also 24
#   trim      tests/programs/snap_iter --dup 1, 2 ranks, 150 allreduces of
#             128 KiB on the dup, snapshots every 0.3 s: each image says
#             where it stands on the dup, encore-run trims the dup's log by
#             the lowest position, so each rank's peak log stays far below
#             the 18.75 MiB that pass through it; rank 1, killed once it
#             parked two snapshots, is restored, replays only what follows
#             its image, and the result is exact
#   slots     snap_iter with 8-byte allreduces on the world, 1,000,000 of
#             them, 2 ranks: each is one slot of its communicator's table of
#             entries (104 bytes, more than its result), and the peak log
#             counts the table: without snapshots it holds every slot (at
#             least 95 MiB; before session 21 the peak said a few MiB while
#             the tables took 1.2 GiB per rank in a long IMB run); with
#             snapshots every 0.2 s the trims give the pages back and a
#             moved table is sized by what it holds, so the peak stays under
#             half of that; both results exact
#   spill     recov_iter --comm rev, ENCORE_LOG_MEM_MAX=4096 and a spill
#             directory: the communicator's held entries go to the spill file
#             (one memory budget and one spill file for every communicator);
#             rank 1 killed at collective 50 replays from its peers' logs, the
#             result is exact, nothing is dropped, and ranks spilled
# Every job runs with ENCORE_SHM_LOG_BYTES=0, so results live in the ranks'
# own log memory (what is bounded and spilled), not in a host's result ring.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"
SNAP="$ENC_PROGRAMS/snap_iter"
enc_require_program "$SNAP"

# -- summary ---------------------------------------------------------------------
for c in dup rev; do
    rec_run "sum$c" 4 "$REC_ITER" --comm "$c" --iters 10
    enc_expect_status "sum$c" 0 "$REC_RC"
    for r in 0 1 2 3; do
        rec_expect "sum$c" "$r" collectives 24
    done
done
enc_log "ok summary"

# -- trim --------------------------------------------------------------------------
WAIT_S=$((30 * ENC_TIME_SCALE))
SNAP_ARGS="--dup 1 --iters 150 --count 16384 --work-us 10000"
# shellcheck disable=SC2086 # SNAP_ARGS is a list of words
enc_run_ok snapref.native enc_mpirun 2 "$SNAP" $SNAP_ARGS
cp "$ENC_TMP/snapref.native.out" "$ENC_TMP/snapref.ref" || enc_fail "cp failed"

REC_ENV="ENCORE_SNAPSHOT_S=0.3 ENCORE_SHM_LOG_BYTES=0"
rm -f "$ENC_TMP/trim.rc"
(
    _rc=0
    # shellcheck disable=SC2086 # SNAP_ARGS is a list of words
    rec_encore 2 "$SNAP" $SNAP_ARGS >"$ENC_TMP/trim.raw" 2>"$ENC_TMP/trim.err" || _rc=$?
    echo "$_rc" >"$ENC_TMP/trim.rc"
) &
bg=$!
enc_wait_lines "$ENC_TMP/trim.err" 'rank 1 incarnation 0 \(pid [0-9]+\) registered' 1 "$WAIT_S" trim
pid1=$(sed -n 's/.*rank 1 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$ENC_TMP/trim.err")
enc_wait_lines "$ENC_TMP/trim.err" 'rank 1\] snapshot: snapshot at seq [0-9]+ taken' 2 "$WAIT_S" trim
kill -KILL "$pid1" || enc_fail "trim: cannot kill rank 1 (pid $pid1)"
wait "$bg" || true
REC_RC=$(cat "$ENC_TMP/trim.rc") || enc_fail "trim: no exit status"
sort "$ENC_TMP/trim.raw" >"$ENC_TMP/trim.out" || enc_fail "sort failed"
rec_ok trim snapref
rec_restarts trim "0 1"
rec_grep trim 'rank 1\] snapshot: restored from the snapshot at seq' "rank 1 was not restored"
for r in 0 1; do
    peak=$(rec_summary trim "$r" log)
    awk -v p="$peak" 'BEGIN { exit !(p > 0 && p < 10) }' ||
        { rec_show trim; enc_fail "trim: rank $r peak log $peak MiB: the dup's log was not trimmed by snapshots"; }
done
replayed=$(rec_summary trim 1 replayed)
[ "$replayed" -lt 150 ] || enc_fail "trim: rank 1 replayed $replayed collectives (the whole run?)"
enc_log "ok trim (peak log $(rec_summary trim 0 log) and $(rec_summary trim 1 log) MiB, replayed $replayed)"

# -- slots -------------------------------------------------------------------------
SLOT_ARGS="--iters 1000000 --count 1 --work-us 0"
# shellcheck disable=SC2086 # SLOT_ARGS is a list of words
enc_run_ok slotref.native enc_mpirun 2 "$SNAP" $SLOT_ARGS
cp "$ENC_TMP/slotref.native.out" "$ENC_TMP/slotref.ref" || enc_fail "cp failed"
for mode in off on; do
    case $mode in
        off) REC_ENV="ENCORE_SNAPSHOT_S=0 ENCORE_SHM_LOG_BYTES=0" ;;
        on) REC_ENV="ENCORE_SNAPSHOT_S=0.2 ENCORE_SHM_LOG_BYTES=0" ;;
    esac
    # shellcheck disable=SC2086 # SLOT_ARGS is a list of words
    rec_run "slots$mode" 2 "$SNAP" $SLOT_ARGS
    sort "$ENC_TMP/slots$mode.out" -o "$ENC_TMP/slots$mode.out" || enc_fail "sort failed"
    rec_ok "slots$mode" slotref
done
for r in 0 1; do
    off=$(rec_summary slotsoff "$r" log) on=$(rec_summary slotson "$r" log)
    awk -v p="$off" 'BEGIN { exit !(p >= 95) }' ||
        { rec_show slotsoff; enc_fail "slots: rank $r peak log $off MiB without snapshots: the table of 1,000,000 entries (99 MiB) is not counted"; }
    awk -v p="$on" -v q="$off" 'BEGIN { exit !(p > 0 && p < q / 2) }' ||
        { rec_show slotson; enc_fail "slots: rank $r peak log $on MiB with snapshots every 0.2 s against $off without: the table was not trimmed"; }
done
enc_log "ok slots (peak log without snapshots $(rec_summary slotsoff 0 log) MiB, with $(rec_summary slotson 0 log))"

# -- spill -------------------------------------------------------------------------
REC_ENV=
rec_ref rev4 4 "$REC_ITER" --comm rev --iters 100
mkdir -p "$ENC_TMP/spill" || enc_fail "mkdir failed"
REC_ENV="ENCORE_LOG_MEM_MAX=4096 ENCORE_SPILL_DIR=$ENC_TMP/spill ENCORE_SHM_LOG_BYTES=0"
rec_run spill 4 --inject kill:rank=1:op=50 "$REC_ITER" --comm rev --iters 100
rec_ok spill rev4
rec_restarts spill "0 1 0 0"
[ "$(rec_count spill 'dropping results')" -eq 0 ] || enc_fail "spill: results were dropped"
spilled=0
for r in 0 2 3; do
    p=$(rec_summary spill "$r" spill)
    awk -v p="$p" 'BEGIN { exit !(p > 0) }' && spilled=$((spilled + 1))
done
[ "$spilled" -eq 3 ] || { rec_show spill; enc_fail "spill: only $spilled of the 3 survivors spilled"; }
left=$(ls -A "$ENC_TMP/spill")
[ -z "$left" ] || enc_fail "spill: spill files left behind: $left"
enc_log "ok spill ($REC_MS ms)"
enc_finish
