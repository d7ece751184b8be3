#!/bin/sh
# snapshot_kill.sh - transparent snapshots: a rank killed from outside with
# SIGKILL is restored from its newest parked snapshot (incarnation + 1) and
# replays only the collectives after it, and the job ends bit-identical to
# native mpirun.  tests/programs/snap_iter: local work and one in-place
# allreduce per iteration.  Scenarios:
#   long      2 ranks, 128 KiB allreduces; rank 1 killed once a snapshot
#             exists: restored from seq S, RESUME finds it at S + 1, and it
#             replays fewer collectives than it had completed; the image's
#             copy of the allreduce buffer (snapshot/precopy.h) was used
#   drop      tests/programs/snap_drop: rank 1 restored from an image that
#             copied its 1 MiB buffer; the program drops half of it
#             (MADV_DONTNEED) after each allreduce and must read zeros there,
#             as from anonymous memory (the same output as native)
#   twice     the same rank killed again after its restored incarnation
#             parked a snapshot of its own
#   snapkill  rank 1's parked snapshot killed: the rank goes on, a newer
#             snapshot replaces it and is the one used when the rank dies
#   replay    the restored incarnation SIGKILLs itself at its 3rd collective,
#             while it replays (no snapshot of its own yet): restored again
#             from the spare copy its image left parked, at the same seq
#   early     rank 1 killed at its 2nd collective, before any snapshot: it
#             re-executes from the start (the fallback)
#   during    rank 1 SIGKILLs itself right after the fork of its 2nd
#             snapshot (--inject snapkill), before the image has parked:
#             restored from that image or the one before, exactly
#   trim      (checked on long) each rank's peak log is well below the
#             results of the run: snapshots trim the log
#   two       4 ranks, ranks 1 and 2 killed at once
#   both      2 ranks, both killed by one kill(1) once each parked a
#             snapshot: no survivor, both restored at once from snapshots
#             at different seqs; each registers where it stands, so the
#             one behind replays from the other's restored log (once both
#             registered as at seq 0 and ran different collectives live)
#   forks     the program runs system() and fork()+wait() every 10th
#             iteration: its children are never confused with snapshots,
#             and wait() never sees a snapshot
#   input     the program reads its input file in 8-byte chunks between
#             collectives; killed mid-file, the restored rank reads the same
#             bytes again (file offsets restored)
#   refetch   2 MiB results, whose log buffers an image does not copy
#             (recovery/log/bufpool.h), with the shared-memory result ring off
#             (ENCORE_SHM_LOG_BYTES=0): rank 0 runs a thread of its own, so it
#             never snapshots and the log is never trimmed; rank 1, restored
#             from its snapshot, fetches the results it holds again from
#             rank 0; then rank 0 is killed, re-executes from the start and
#             replays every result from rank 1 (without the fetch: "lost")
#   ring      the same with the ring on (the default): the results stay in
#             the host's ring, which rank 1's image uses as they are; rank 0,
#             re-executing from the start, replays from rank 1 exactly
#   launcher  encore-run itself SIGKILLed: ranks and parked snapshots all
#             exit (snapshots see EOF on encore-run's socket)
#   nonblock  every 3rd iteration is an MPI_Iallreduce overlapping the
#             local work: snapshots wait for the progress thread to be idle
#             (none is taken while a nonblocking collective is pending), and
#             the restored rank starts a new progress thread
# (A malformed ENCORE_SNAPSHOT_S: config_check.sh.)
# After each job no process of the program is left.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

PROG="$ENC_PROGRAMS/snap_iter"
rec_begin "$PROG"
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
. "$ENC_SRCDIR/tests/integration/snap_lib.sh"

ITER_ARGS="--iters 150 --count 16384 --work-us 10000"
# shellcheck disable=SC2086 # ITER_ARGS is a list of arguments
enc_run_ok ref2.native enc_mpirun 2 "$PROG" $ITER_ARGS
cp "$ENC_TMP/ref2.native.out" "$ENC_TMP/it2.ref" || enc_fail "cp failed"

# -- long ------------------------------------------------------------------------
# shellcheck disable=SC2086
snap_start long 2 "$PROG" $ITER_ARGS
snap_kill long 1 0 '([5-9][0-9]|[1-9][0-9][0-9]+)' # after seq 50
snap_end long
rec_ok long it2
rec_restarts long "0 1"
snap_restored long 1
rec_grep long '^encore: snapshots: [0-9]+ taken, 1 used$' "summary does not count 1 snapshot used"
# its 128 KiB buffer was copied into the image at the fork, not shared
# copy-on-write (snapshot/precopy.h), and mapped back exactly (rec_ok)
copied=$(enc_last_line "$ENC_TMP/long.err" "rank 1\] snapshot: snapshot at seq $SNAP_SEQ taken" |
    sed -n 's/.* ms, \([0-9.]*\) MiB of buffers copied.*/\1/p')
awk -v c="${copied:-0}" 'BEGIN { exit !(c >= 0.1) }' ||
    enc_fail "long: the image used (seq $SNAP_SEQ) had no buffer copied (${copied:-no line})"
# 150 results of 128 KiB (18.75 MiB) pass through the log; snapshots every
# 0.3 s (about 30 iterations) keep it to a few MiB
for r in 0 1; do
    peak=$(rec_summary long "$r" log)
    awk -v p="$peak" 'BEGIN { exit !(p > 0 && p < 10) }' ||
        enc_fail "long: rank $r peak log $peak MiB: the log was not trimmed by snapshots"
done
replayed=$(rec_summary long 1 replayed)
[ "$replayed" -lt 150 ] || enc_fail "long: rank 1 replayed $replayed collectives (the whole run?)"
enc_log "ok long (restored at seq $SNAP_SEQ, replayed $replayed)"

# -- drop: the copied buffer is anonymous memory again once restored --------------
drop="$ENC_PROGRAMS/snap_drop"
enc_require_program "$drop"
enc_run_ok drop.native enc_mpirun 2 "$drop" 300 10000
sort "$ENC_TMP/drop.native.out" >"$ENC_TMP/drop.ref" || enc_fail "sort failed"
grep -q 'dropped-nonzero 0$' "$ENC_TMP/drop.ref" || enc_fail "drop: native read nonzero dropped pages"
_prog=$PROG
PROG=$drop
snap_start drop 2 "$drop" 300 10000
snap_kill drop 1 0
snap_end drop
PROG=$_prog
rec_ok drop drop
copied=$(snap_image_copied drop 1)
awk -v c="$copied" 'BEGIN { exit !(c >= 0.9) }' ||
    enc_fail "drop: the image rank 1 was restored from had $copied MiB of buffers copied"
enc_log "ok drop (restored from an image with $copied MiB copied; dropped pages read zeros)"

# -- twice -----------------------------------------------------------------------
# shellcheck disable=SC2086
snap_start twice 2 "$PROG" $ITER_ARGS
snap_kill twice 1 0
snap_wait twice "rank 1\\] snapshot: restored from the snapshot"
snap_wait twice "rank 1 incarnation 1 \\(pid [0-9]+\\) registered"
pid1=$(snap_pid twice 1 1)
taken='rank 1\] snapshot: snapshot at seq [0-9]+ taken'
snap_wait_count twice "$taken" $(($(rec_count twice "$taken") + 1))
kill -KILL "$pid1" || enc_fail "twice: cannot kill incarnation 1"
snap_end twice
rec_ok twice it2
rec_restarts twice "0 2"
[ "$(rec_count twice 'rank 1\] snapshot: restored from the snapshot')" -eq 2 ] ||
    enc_fail "twice: rank 1 was not restored twice"
enc_log "ok twice"

# -- snapkill --------------------------------------------------------------------
# one snapshot a second: the first is killed long before the second comes
# shellcheck disable=SC2086
enc_run_ok ref2l.native enc_mpirun 2 "$PROG" --iters 400 --count 16384 --work-us 10000
cp "$ENC_TMP/ref2l.native.out" "$ENC_TMP/it2l.ref" || enc_fail "cp failed"
REC_ENV="ENCORE_SNAPSHOT_S=1"
snap_start snapkill 2 "$PROG" --iters 400 --count 16384 --work-us 10000
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
pid=$(snap_pid snapkill 1 0)
taken="rank 1\\] snapshot: snapshot at seq [0-9]+ taken"
snap_wait snapkill "$taken"
first=$(enc_last_line "$ENC_TMP/snapkill.err" "$taken")
spid=$(echo "$first" | sed -n 's/.*taken (pid \([0-9]*\)).*/\1/p')
sseq=$(echo "$first" | sed -n 's/.*at seq \([0-9]*\) taken.*/\1/p')
kill -KILL "$spid" || enc_fail "snapkill: cannot kill the snapshot (pid $spid)"
snap_wait_count snapkill "$taken" 2
kill -KILL "$pid" || enc_fail "snapkill: cannot kill rank 1"
snap_end snapkill
rec_ok snapkill it2l
snap_restored snapkill 1
[ "$SNAP_SEQ" -gt "$sseq" ] || enc_fail "snapkill: restored from seq $SNAP_SEQ, not newer than the killed snapshot's $sseq"
enc_log "ok snapkill (killed snapshot at seq $sseq, restored from $SNAP_SEQ)"

# -- replay: killed again while replaying, before a snapshot of its own ----------
# shellcheck disable=SC2086
snap_start replay 2 --inject kill:rank=1:op=3:incarnation=1 "$PROG" $ITER_ARGS
snap_kill replay 1 0
snap_end replay
rec_ok replay it2
rec_restarts replay "0 2"
rec_grep replay 'rank 1\] inject: injecting SIGKILL at collective 3' "no kill during replay"
seqs=$(sed -n 's/.*rank 1 incarnation [12] restored from its snapshot at seq \([0-9]*\) .*/\1/p' \
    "$ENC_TMP/replay.err" | tr '\n' ' ')
# shellcheck disable=SC2086 # split the two seqs
set -- $seqs
[ $# -eq 2 ] && [ "$1" = "$2" ] ||
    { rec_show replay; enc_fail "replay: incarnations 1 and 2 not restored from the same seq: $seqs"; }
enc_log "ok replay (restored twice at seq $1)"

# -- early: killed before any snapshot, re-executed from the start ---------------
# The first snapshot comes one interval after MPI_Init: 0.3 s was shorter
# than MPI_Init to the 2nd collective under ASan on a loaded machine.
_rec_env=$REC_ENV
REC_ENV="ENCORE_SNAPSHOT_S=$((5 * ENC_TIME_SCALE))"
# shellcheck disable=SC2086
rec_run early 2 --inject kill:rank=1:op=2 "$PROG" $ITER_ARGS
REC_ENV=$_rec_env
rec_ok early it2
rec_restarts early "0 1"
rec_grep early 'rank 1\] recover: epoch 1: .*this rank 0$' "early: rank 1 did not re-execute from the start"
enc_log "ok early"

# -- during: killed between the fork of a snapshot and its parking ---------------
# shellcheck disable=SC2086
rec_run during 2 --inject snapkill:rank=1:op=2 "$PROG" $ITER_ARGS
rec_ok during it2
rec_restarts during "0 1"
rec_grep during 'rank 1\] inject: injecting SIGKILL right after the fork of snapshot 2' "during: no kill at the 2nd snapshot"
snap_restored during 1
enc_log "ok during (restored at seq $SNAP_SEQ)"

# snap_kill_together NAME N RANK_A RANK_B: a job of N ranks where RANK_A and
# RANK_B are SIGKILLed by one kill(1) once each parked a snapshot; exact
# result (against itN), both restored from their snapshots.
snap_kill_together() {
    # shellcheck disable=SC2086
    snap_start "$1" "$2" "$PROG" $ITER_ARGS
    _t_pa=$(snap_pid "$1" "$3" 0)
    _t_pb=$(snap_pid "$1" "$4" 0)
    snap_wait "$1" "rank $3\\] snapshot: snapshot at seq [0-9]+ taken"
    snap_wait "$1" "rank $4\\] snapshot: snapshot at seq [0-9]+ taken"
    kill -KILL "$_t_pa" "$_t_pb" || enc_fail "$1: cannot kill ranks $3 and $4"
    snap_end "$1"
    rec_ok "$1" "it$2"
    snap_restored "$1" "$3"
    _t_sa=$SNAP_SEQ
    snap_restored "$1" "$4"
    enc_log "ok $1 (ranks $3 and $4 restored at seqs $_t_sa and $SNAP_SEQ)"
}

# -- two at once -----------------------------------------------------------------
# shellcheck disable=SC2086
enc_run_ok ref4.native enc_mpirun 4 "$PROG" $ITER_ARGS
cp "$ENC_TMP/ref4.native.out" "$ENC_TMP/it4.ref" || enc_fail "cp failed"
snap_kill_together two 4 1 2
rec_restarts two "0 1 1 0"

# -- both: every rank killed at the same moment ------------------------------------
snap_kill_together both 2 0 1
rec_restarts both "1 1"

# -- forks: the program's own children -------------------------------------------
# shellcheck disable=SC2086
enc_run_ok forks.native enc_mpirun 2 "$PROG" $ITER_ARGS --fork 1
cp "$ENC_TMP/forks.native.out" "$ENC_TMP/forks.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
snap_start forks 2 "$PROG" $ITER_ARGS --fork 1
snap_kill forks 1 0
snap_end forks
rec_ok forks forks
snap_restored forks 1
enc_log "ok forks"

# -- input: chunks of a file between collectives ----------------------------------
head -c 4096 /dev/urandom >"$ENC_TMP/input.bin" || enc_fail "cannot make the input file"
# shellcheck disable=SC2086
enc_run_ok input.native enc_mpirun 2 "$PROG" $ITER_ARGS --input "$ENC_TMP/input.bin"
cp "$ENC_TMP/input.native.out" "$ENC_TMP/input.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
snap_start input 2 "$PROG" $ITER_ARGS --input "$ENC_TMP/input.bin"
snap_kill input 1 0
snap_end input
rec_ok input input
snap_restored input 1
enc_log "ok input"

# -- nonblock: nonblocking collectives between snapshots --------------------------
# shellcheck disable=SC2086
enc_run_ok nonblock.native enc_mpirun 2 "$PROG" $ITER_ARGS --nonblocking 3
cp "$ENC_TMP/nonblock.native.out" "$ENC_TMP/nonblock.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
snap_start nonblock 2 "$PROG" $ITER_ARGS --nonblocking 3
snap_kill nonblock 1 0 '([5-9][0-9]|[1-9][0-9][0-9]+)'
snap_end nonblock
rec_ok nonblock nonblock
snap_restored nonblock 1
enc_log "ok nonblock (restored at seq $SNAP_SEQ)"

# -- refetch: held results an image left out, fetched again -----------------------
BIG_ARGS="--iters 160 --count 262144 --work-us 20000 --hold-rank 0"
# shellcheck disable=SC2086
enc_run_ok big.native enc_mpirun 2 "$PROG" $BIG_ARGS
cp "$ENC_TMP/big.native.out" "$ENC_TMP/big.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
ENCORE_SHM_LOG_BYTES=0 snap_start refetch 2 "$PROG" $BIG_ARGS
pid0=$(snap_pid refetch 0 0)
snap_kill refetch 1 0 '([3-9][0-9]|[1-9][0-9][0-9]+)' # after seq 30
snap_wait refetch "rank 1\\] snapshot: held results the snapshot left out: [1-9][0-9]* fetched again .*, 0 released everywhere, 0 not fetched\$"
kill -KILL "$pid0" || enc_fail "refetch: cannot kill rank 0"
snap_end refetch
rec_ok refetch big
rec_restarts refetch "1 1"
rec_grep refetch 'rank 0\] snapshot: snapshot skipped: ' "refetch: rank 0 took snapshots"
rec_grep refetch 'rank 0\] recover: epoch 2: .*this rank 0$' "refetch: rank 0 did not re-execute from the start"
enc_log "ok refetch"

# -- ring: the same, the results in the host's shared-memory ring ---------------
# shellcheck disable=SC2086
snap_start ring 2 "$PROG" $BIG_ARGS
pid0=$(snap_pid ring 0 0)
snap_kill ring 1 0 '([3-9][0-9]|[1-9][0-9][0-9]+)' # after seq 30
snap_wait ring "rank 1\\] snapshot: restored from the snapshot at seq [0-9]+"
kill -KILL "$pid0" || enc_fail "ring: cannot kill rank 0"
snap_end ring
rec_ok ring big
rec_restarts ring "1 1"
rec_grep ring 'rank 0\] recover: epoch 2: .*this rank 0$' "ring: rank 0 did not re-execute from the start"
enc_log "ok ring"

# -- launcher: encore-run SIGKILLed ----------------------------------------------
# shellcheck disable=SC2086
snap_start launcher 2 "$PROG" $ITER_ARGS
snap_wait launcher "rank 0\\] snapshot: snapshot at seq [0-9]+ taken"
snap_wait launcher "rank 1\\] snapshot: snapshot at seq [0-9]+ taken"
run_pid=$(pgrep -f "^$ENC_ENCORE_RUN -n 2 " | head -n 1)
[ -n "$run_pid" ] || enc_fail "launcher: encore-run not found"
kill -KILL "$run_pid" || enc_fail "launcher: cannot kill encore-run"
wait "$SNAP_BG" || true
snap_none_left launcher
enc_log "ok launcher"
enc_finish
