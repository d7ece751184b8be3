#!/bin/sh
# p2p_snapshot.sh - snapshots at point-to-point call boundaries (4 ranks,
# one host, real processes and SIGKILL; docs/p2p.md, 7):
#   late      tests/programs/p2p_ring, which makes no collective call at
#             all (send right, receive left, work): rank 2 SIGKILLed from
#             outside once 70 % of the ring is done.  It is restored from a
#             snapshot taken at a point-to-point call (nonzero channel
#             positions), so it re-sends fewer messages than it had sent;
#             its neighbour re-sends only what the image had not received;
#             every rank's checksum equals the fault-free run's, which
#             equals native Open MPI's
#   pending   the same ring with a persistent receive started before the
#             work and completed with the send after it: the snapshots,
#             taken at MPI_Isend, carry the pending receive; rank 1
#             SIGKILLed at 70 % is restored with it pending: exact
#   arena     the ring with its blocks allocated by a helper thread (in
#             that thread's malloc arena, which fork resets in the child):
#             rank 2 is restored from a snapshot image, exact (an image
#             that copied the arena's mapping whole died in fork)
#   big       the pending ring with 128 KiB messages: the image used had
#             the message buffers copied at its fork (snapshot/precopy.h),
#             and rank 1 restored from it ends exactly
#   halo      tests/programs/p2p_halo2d (rows of 2 KiB out of arrays the
#             program rewrites at every step): rank 1 restored from an image
#             that copied those arrays whole at its fork ends exactly
#   bounded   a long fault-free ring with 32 KiB messages: each rank's peak
#             log (job summary) stays below a quarter of the payload bytes
#             it sent (the receivers' snapshots trim the senders' logs)
#   master    tests/programs/p2p_master (MPI_ANY_SOURCE): the master
#             SIGKILLed once it parked a snapshot after some matches: it is
#             restored at a nonzero determinant clock, replays the recorded
#             matches after it, and every task has exactly one worker and
#             the sum equals native's
#   threads   tests/programs/p2p_mt_recv (MPI_THREAD_MULTIPLE, two threads
#             of rank 0 in MPI_Recv at once): native serves it; encore
#             refuses it with one line naming the combination (which
#             receive takes a message is not recorded for a replay)
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

PROG="$ENC_PROGRAMS/p2p_ring"
master="$ENC_PROGRAMS/p2p_master"
mt="$ENC_PROGRAMS/p2p_mt_recv"
rec_begin "$PROG"
enc_require_program "$master"
enc_require_program "$mt"
# shellcheck disable=SC2034 # read by rec_encore
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
. "$ENC_SRCDIR/tests/integration/snap_lib.sh"

iters=600
args="$iters 5000 16384"

# kill_late NAME RANK MODE: the ring (MODE: "" or pending) with RANK
# SIGKILLed once rank 0 printed 14 of its 20 progress lines and RANK parked
# a snapshot; then the run's output must equal the reference.
kill_late() {
    # shellcheck disable=SC2086 # args is a list of arguments
    snap_start "$1" 4 "$PROG" $args $3
    enc_wait_lines "$ENC_TMP/$1.raw" '^progress' 14 "$WAIT_S" "$1"
    snap_kill "$1" "$2" 0 '-?[0-9]+'
    snap_end "$1"
    rec_ok "$1" ring
    rec_grep "$1" "rank $2 incarnation 1 restored from its snapshot" "rank $2 was not restored from a snapshot"
}

# restored_sent NAME RANK: messages the image rank RANK was restored from had sent.
restored_sent() {
    _l=$(enc_last_line "$ENC_TMP/$1.err" "rank $2\\] p2p: restored at the image's positions")
    [ -n "$_l" ] || { rec_show "$1"; enc_fail "$1: rank $2 has no restored positions line"; }
    echo "$_l" | sed -n 's/.*positions: \([0-9]*\) messages sent and \([0-9]*\) received.*/\1 \2/p'
}

# -- reference -----------------------------------------------------------------
# shellcheck disable=SC2086
enc_run_ok ring.native enc_mpirun 4 "$PROG" $args
sort "$ENC_TMP/ring.native.out" >"$ENC_TMP/ring.ref" || enc_fail "sort failed"
# shellcheck disable=SC2086
rec_run ring.free 4 "$PROG" $args
enc_expect_status ring.free 0 "$REC_RC"
rec_same ring.free ring
rec_grep ring.free "rank [0-9]\\] snapshot: snapshot at seq -1 taken" \
    "no snapshot was taken at a point-to-point call before any collective"

# -- late ----------------------------------------------------------------------
kill_late late 2 ""
pos=$(restored_sent late 2)
sent=${pos% *} received=${pos#* }
# it had sent at least 14/20 of the ring minus one message when killed
had=$((iters * 14 / 20 - 1))
if [ "$sent" -eq 0 ] || [ "$received" -eq 0 ]; then
    rec_show late
    enc_fail "late: rank 2 restored at positions sent $sent received $received: want nonzero"
fi
[ $((iters - sent)) -lt "$had" ] ||
    { rec_show late; enc_fail "late: rank 2 replays $((iters - sent)) sends, not fewer than the $had it had sent"; }
rec_grep late "rank 1\\] p2p: rank 2 restarted: re-sending [0-9]+ of the [0-9]+ messages" \
    "rank 1 did not re-send from the restored positions"
enc_log "ok: late (rank 2 restored at $sent sent / $received received of $iters, replays $((iters - sent)) sends)"

# -- pending -------------------------------------------------------------------
kill_late pending 1 pending
pos=$(restored_sent pending 1)
[ "${pos% *}" -gt 0 ] || { rec_show pending; enc_fail "pending: rank 1 restored at position 0"; }
rec_grep pending "rank 1\] p2p: restored at the image's positions: .* 1 receives pending" \
    "rank 1's image had no receive pending"
rec_grep pending "rank 1\] snapshot: snapshot at seq -1 taken" "rank 1 took no snapshot at a point-to-point call"
enc_log "ok: pending (rank 1 restored at ${pos% *} sent with a receive pending)"

# -- arena ---------------------------------------------------------------------
kill_late arena 2 arena
enc_log "ok: arena (rank 2 restored from an image, blocks in a thread's malloc arena)"

# -- big -----------------------------------------------------------------------
# 128 KiB messages into buffers of their own mappings, a receive pending at
# each snapshot: the image used had those buffers copied at its fork
# (snapshot/precopy.h), not shared copy-on-write, and the pending receive
# completes into the copy mapped back: exact
bigargs="300 5000 131072"
# shellcheck disable=SC2086
enc_run_ok bigring.native enc_mpirun 4 "$PROG" $bigargs pending
sort "$ENC_TMP/bigring.native.out" >"$ENC_TMP/bigring.ref" || enc_fail "sort failed"
# shellcheck disable=SC2086
snap_start big 4 "$PROG" $bigargs pending
enc_wait_lines "$ENC_TMP/big.raw" '^progress' 14 "$WAIT_S" big
snap_kill big 1 0 '-?[0-9]+'
snap_end big
rec_ok big bigring
copied=$(snap_image_copied big 1)
awk -v c="$copied" 'BEGIN { exit !(c >= 0.1) }' ||
    { rec_show big; enc_fail "big: the image rank 1 was restored from had $copied MiB of buffers copied"; }
enc_log "ok: big ($copied MiB of buffers copied into the image used)"

# -- halo ----------------------------------------------------------------------
# tests/programs/p2p_halo2d, no collective: rows of 2 KiB sent out of
# arrays of their own mappings (516 KiB), rewritten at every step: an image
# copies those whole at its fork; rank 1 restored from one ends exactly
ring_prog=$PROG
PROG="$ENC_PROGRAMS/p2p_halo2d"
enc_require_program "$PROG"
haloargs="20000 256 1000 1000000000"
# shellcheck disable=SC2086
enc_run_ok halo.native enc_mpirun 4 "$PROG" $haloargs
sort -u "$ENC_TMP/halo.native.out" >"$ENC_TMP/halo.ref" || enc_fail "sort failed"
# shellcheck disable=SC2086
snap_start halo 4 "$PROG" $haloargs
enc_wait_lines "$ENC_TMP/halo.raw" '^step [0-9]+ rank 0 checksum' 4 "$WAIT_S" halo
snap_kill halo 1 0 '-?[0-9]+'
snap_end halo
enc_expect_status halo 0 "$REC_RC"
sort -u "$ENC_TMP/halo.raw" >"$ENC_TMP/halo.uniq" || enc_fail "sort failed"
enc_expect_same "$ENC_TMP/halo.ref" "$ENC_TMP/halo.uniq" "halo: output differs from native's"
copied=$(snap_image_copied halo 1)
awk -v c="$copied" 'BEGIN { exit !(c >= 0.5) }' ||
    { rec_show halo; enc_fail "halo: the image rank 1 was restored from had $copied MiB of buffers copied"; }
PROG=$ring_prog
enc_log "ok: halo ($copied MiB of buffers copied into the image used)"

# -- bounded -------------------------------------------------------------------
rec_run bounded 4 "$PROG" 1500 2000 32768
enc_expect_status bounded 0 "$REC_RC"
for r in 0 1 2 3; do
    peak=$(rec_summary bounded "$r" log)
    bytes=$(sed -n "s/^rank $r checksum [0-9a-f]* sent \\([0-9]*\\)\$/\\1/p" "$ENC_TMP/bounded.out")
    [ -n "$peak" ] && [ -n "$bytes" ] || { rec_show bounded; enc_fail "bounded: rank $r: no peak log or sent bytes"; }
    awk -v p="$peak" -v b="$bytes" 'BEGIN { exit !(p > 0 && p * 1048576 < b / 4) }' ||
        { rec_show bounded; enc_fail "bounded: rank $r peak log $peak MiB of $bytes bytes sent: the payload log was not trimmed"; }
    enc_log "ok: bounded: rank $r peak log $peak MiB, sent $bytes bytes"
done

# -- master ------------------------------------------------------------------------
PROG=$master
tasks=3000
enc_run_ok mw.native enc_mpirun 4 "$master" "$tasks"
want=$(grep '^sum ' "$ENC_TMP/mw.native.out")
snap_start master 4 "$master" "$tasks"
enc_wait_lines "$ENC_TMP/master.raw" '^task ' 1500 "$WAIT_S" master
snap_kill master 0 0 '-?[0-9]+'
snap_end master
enc_expect_status master 0 "$REC_RC"
enc_expect_grep "$ENC_TMP/master.out" "^$want\$" "master: wrong sum"
[ "$(grep -c '^task ' "$ENC_TMP/master.out" | tr -d ' ')" -ge "$tasks" ] &&
    [ "$(sort -u "$ENC_TMP/master.out" | grep -c '^task ')" -eq "$tasks" ] || {
    sort -u "$ENC_TMP/master.out" | grep '^task ' | awk '{print $2}' | uniq -d | head >&2
    enc_fail "master: a task was given to two workers, or one is missing"
}
rec_grep master "rank 0 incarnation 1 restored from its snapshot" "the master was not restored from a snapshot"
clock=$(enc_last_line "$ENC_TMP/master.err" "rank 0\\] p2p: restored at the image's positions" |
    sed -n 's/.*determinant clock \([0-9]*\)$/\1/p')
[ -n "$clock" ] && [ "$clock" -gt 0 ] ||
    { rec_show master; enc_fail "master: restored at determinant clock '$clock', want nonzero"; }
enc_log "ok: master (restored at determinant clock $clock)"

# -- threads -----------------------------------------------------------------------
PROG=$mt
enc_run_ok mt.native enc_mpirun 2 "$mt"
rec_run mt 2 "$mt"
rec_fails mt
rec_grep mt "rank 0\\] p2p: error: receives posted concurrently from several threads \\(MPI_THREAD_MULTIPLE" \
    "two threads' concurrent receives were not refused"
enc_log "ok: threads (concurrent receives from two threads refused with one line)"
enc_finish
