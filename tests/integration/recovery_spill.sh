#!/bin/sh
# recovery_spill.sh - the result log spills to disk by default, within a
# budget (ENCORE_SPILL_MAX), and recoverability never ends silently.  Each
# job runs with its own TMPDIR.  Scenarios:
#   default   2 ranks of tests/programs/recov_iter (128 KiB allreduces, 12.5
#             MiB of results), ENCORE_LOG_MEM_MAX=1M, snapshots off, nothing
#             else set: old results spill into the rank's private directory
#             under TMPDIR; rank 1 SIGKILLed late (collective 180) is
#             answered from rank 0's spill file and the result is exact; no
#             drop is reported; nothing is left in TMPDIR
#   dropped   the same with ENCORE_SPILL_MAX=2M: encore-run prints exactly
#             one line naming the dropped range and what to do, each rank
#             warns at most once, the summary reports the unrecoverable
#             range; the late kill needs a dropped result and the job ends
#             (exit 1, bounded) with a message naming that range and the
#             advice
#   trimmed   2 ranks of tests/programs/snap_iter (600 iterations of 128 KiB,
#             75 MiB of results), snapshots every 0.3 s, ENCORE_LOG_MEM_MAX=1M,
#             ENCORE_SPILL_MAX=16M: trimming gives spilled space back, so
#             nothing is ever dropped, each rank spilled and its peak spill
#             stays within the budget; the result is exact
#   snapshots the same program with snapshots every 1.5 s and the default
#             budget, rank 1 killed at collective 300, then rank 0 at 500:
#             each is restored from its snapshot (an image sharing the spill
#             file with the rank it was taken from) and replays from the
#             other's log, part of it spilled before and part after a
#             restore; the result is exact and nothing is dropped
# (A malformed ENCORE_SPILL_MAX: config_check.sh.)
# Every job runs with ENCORE_SHM_LOG_BYTES=0: with the host's shared-memory
# result ring these results would stay in the ring and never reach the
# rank's own log memory, which is what spills.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"

SNAP="$ENC_PROGRAMS/snap_iter"
enc_require_program "$SNAP"
rec_begin "$REC_ITER"
ARGS="--iters 100 --count 16384"
rec_ref it2 2 "$REC_ITER" $ARGS

DROP_LINE='^encore-run: rank [0-9]+ dropped the results of collectives [0-9]+\.\.[0-9]+ from its log \(log memory ENCORE_LOG_MEM_MAX and spill budget ENCORE_SPILL_MAX full; the job summary has the final range\): a rank lost now may not be recoverable; call encore_checkpoint, raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger disk$'

# fresh_tmp NAME: an empty private TMPDIR for job NAME, in REC_ENV.
fresh_tmp() {
    mkdir -p "$ENC_TMP/$1.tmp" || enc_fail "mkdir failed"
    REC_ENV="TMPDIR=$ENC_TMP/$1.tmp ENCORE_LOG_MEM_MAX=1M ENCORE_SHM_LOG_BYTES=0${2:+ $2}"
}

# spill_mib NAME RANK: the rank's peak spill (MiB) from the summary, > 0.
spill_mib() {
    _p=$(rec_summary "$1" "$2" spill)
    awk -v p="$_p" 'BEGIN { exit !(p > 0) }' ||
        { rec_show "$1"; enc_fail "$1: rank $2 peak spill '$_p' MiB: nothing was spilled"; }
    echo "$_p"
}

fresh_tmp default
rec_run default 2 --inject kill:rank=1:op=180 "$REC_ITER" $ARGS
rec_ok default it2
rec_restarts default "0 1"
rec_expect default 1 replayed 179
[ "$(rec_count default 'dropp')" -eq 0 ] || { rec_show default; enc_fail "default: results were dropped"; }
rec_grep default '^  unrecoverable results: none$' "default: the summary does not say nothing was dropped"
peak=$(spill_mib default 0)
enc_expect_empty_dir "$ENC_TMP/default.tmp" "default: spill file or job directory left behind"
enc_log "ok default (rank 0 spilled up to $peak MiB, $REC_MS ms)"

fresh_tmp dropped ENCORE_SPILL_MAX=2M
rec_run dropped 2 --inject kill:rank=1:op=180 "$REC_ITER" $ARGS
rec_fails dropped
[ "$(rec_count dropped "$DROP_LINE")" -eq 1 ] ||
    { rec_show dropped; enc_fail "dropped: encore-run did not print the dropped range exactly once"; }
for r in 0 1; do
    [ "$(rec_count dropped "^encore\[rank $r\] reclog: warning: result log above")" -le 1 ] ||
        enc_fail "dropped: rank $r warned more than once"
done
rec_grep dropped '^  unrecoverable results: collectives [0-9]+\.\.[0-9]+ \(dropped by [12] ranks?: ENCORE_LOG_MEM_MAX and ENCORE_SPILL_MAX full\)$' \
    "dropped: the summary does not report the unrecoverable range"
rec_grep dropped 'replay: error: result of collective seq [0-9]+ is lost: rank 0 dropped results [0-9]+\.\.[0-9]+ from its log \(log memory ENCORE_LOG_MEM_MAX and spill budget ENCORE_SPILL_MAX full\), and no other rank holds it; call encore_checkpoint, raise ENCORE_SPILL_MAX, or set ENCORE_SPILL_DIR to a larger disk$' \
    "dropped: the replay failure does not name the dropped range"
# the lost result lies in the range the summary reports
awk '/unrecoverable results: collectives/ { split($4, r, "\\.\\."); lo = r[1]; hi = r[2] }
     /is lost: rank 0 dropped/ { for (i = 1; i < NF; i++) if ($i == "seq") s = $(i + 1) }
     END { exit !(s != "" && s + 0 >= lo + 0 && s + 0 <= hi + 0) }' "$ENC_TMP/dropped.err" ||
    { rec_show dropped; enc_fail "dropped: the lost seq is outside the reported range"; }
enc_expect_empty_dir "$ENC_TMP/dropped.tmp" "dropped: spill file or job directory left behind"
enc_log "ok dropped (exit $REC_RC, $REC_MS ms)"

SARGS="--iters 600 --count 16384 --work-us 10000"
rec_ref snap2 2 "$SNAP" $SARGS
fresh_tmp trimmed "ENCORE_SNAPSHOT_S=0.3 ENCORE_SPILL_MAX=16M"
rec_run trimmed 2 --summary "$SNAP" $SARGS
rec_ok trimmed snap2
[ "$(rec_count trimmed 'dropp')" -eq 0 ] || { rec_show trimmed; enc_fail "trimmed: results were dropped"; }
rec_grep trimmed '^  unrecoverable results: none$' "trimmed: the summary does not say nothing was dropped"
for r in 0 1; do
    peak=$(spill_mib trimmed "$r")
    awk -v p="$peak" 'BEGIN { exit !(p <= 16) }' ||
        enc_fail "trimmed: rank $r peak spill $peak MiB is above ENCORE_SPILL_MAX=16M"
done
enc_expect_empty_dir "$ENC_TMP/trimmed.tmp" "trimmed: spill file or job directory left behind"
enc_log "ok trimmed (peak spill $peak MiB, $REC_MS ms)"

fresh_tmp snapshots "ENCORE_SNAPSHOT_S=1.5"
rec_run snapshots 2 --inject kill:rank=1:op=300 --inject kill:rank=0:op=500 "$SNAP" $SARGS
rec_ok snapshots snap2
rec_restarts snapshots "1 1"
for r in 0 1; do
    rec_grep snapshots "^encore\[run\] run: rank $r incarnation 1 restored from its snapshot at seq [0-9]+" \
        "snapshots: rank $r was not restored from a snapshot"
done
[ "$(rec_count snapshots 'dropp')" -eq 0 ] || { rec_show snapshots; enc_fail "snapshots: results were dropped"; }
spill_mib snapshots 0 >/dev/null
enc_expect_empty_dir "$ENC_TMP/snapshots.tmp" "snapshots: spill file or job directory left behind"
enc_log "ok snapshots (replayed $(rec_summary snapshots 0 replayed) and $(rec_summary snapshots 1 replayed), $REC_MS ms)"
enc_finish
