#!/bin/sh
# hosts_p2p_snapshot.sh - snapshots of a message-passing program on several
# hosts (network namespaces, --rsh "ip netns exec").  tests/programs/
# p2p_ring (no collective at all, 16 KiB messages) on 4 ranks, h1:2,h2:2,
# snapshots every 0.3 s.  Scenarios:
#   late      rank 3 SIGKILLed on h2 once the ring is 70 % done: restored
#             from its image there; its left neighbour (rank 2) re-sends
#             only what the image had not received (on several hosts the
#             logs are not released, so it skips what the image had: the
#             POSITIONS the restored rank sent)
#   late_big  the same with 256 KiB messages and rank 2 killed: payloads
#             written across hosts are spilled as they are written, and the
#             re-send to the restored rank reads them back
#   hostlost  spare h3:2; h2 lost (every process of it SIGKILLed) once
#             ranks 2 and 3 parked images: they re-execute from the start
#             on h3, and rank 1 re-sends rank 2 its messages from the first,
#             reading back the payloads it had spilled when rank 2's images
#             trimmed them (rank 1's summary shows a peak spill above zero)
# Every run's output equals native mpirun's.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

PROG="$ENC_PROGRAMS/p2p_ring"
args="600 5000 16384"
netns_require
rec_begin "$PROG"
# shellcheck disable=SC2086 # args is a list of arguments
enc_run_ok ring.native enc_mpirun 4 "$PROG" $args
sort "$ENC_TMP/ring.native.out" >"$ENC_TMP/ring.ref" || enc_fail "sort failed"

# shellcheck disable=SC2034 # read by rec_encore
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
. "$ENC_SRCDIR/tests/integration/snap_lib.sh"
netns_create 3
RSH="ip netns exec" h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3)

# -- late ----------------------------------------------------------------------
# shellcheck disable=SC2086
snap_start late 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$PROG" $args
enc_wait_lines "$ENC_TMP/late.raw" '^progress' 14 "$WAIT_S" late
snap_kill late 3 0 '-?[0-9]+'
snap_end late
rec_ok late ring
rec_grep late "rank 3 incarnation 1 restored from its snapshot at seq -?[0-9]+ on host $h2" \
    "rank 3 was not restored from its image on $h2"
rec_grep late "rank 2\\] p2p: rank 3 restarted: re-sending [0-9]+ of the [0-9]+ messages in its log \\(its image had received the other [1-9][0-9]*\\)" \
    "rank 2 re-sent what rank 3's image had received"
enc_log "ok late"

# -- late_big ------------------------------------------------------------------
# 256 KiB messages: the payloads written across hosts (rank 1 to rank 2,
# rank 3 to rank 0) go to the sender's spill file as they are written
# (p2p/conn_spill.c), not only when the receiver's image covers them; rank
# 2 is killed and restored from its image, and rank 1 re-sends what the
# image had not received, read back from its spill file.
big="300 5000 262144"
# shellcheck disable=SC2086
enc_run_ok ringbig.native enc_mpirun 4 "$PROG" $big
sort "$ENC_TMP/ringbig.native.out" >"$ENC_TMP/ringbig.ref" || enc_fail "sort failed"
# shellcheck disable=SC2034 # read by rec_encore
REC_ENV="ENCORE_SNAPSHOT_S=0.3 ENCORE_LOG=debug"
# shellcheck disable=SC2086
snap_start late_big 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$PROG" $big
enc_wait_lines "$ENC_TMP/late_big.raw" '^progress' 14 "$WAIT_S" late_big
snap_kill late_big 2 0 '-?[0-9]+'
snap_end late_big
rec_ok late_big ringbig
rec_grep late_big "rank 2 incarnation 1 restored from its snapshot at seq -?[0-9]+ on host $h2" \
    "rank 2 was not restored from its image on $h2"
rec_grep late_big "rank 1\\] p2p: payload log: [0-9]+ bytes written to rank 2 spilled early" \
    "rank 1 spilled no payload early"
rec_grep late_big "rank 1\\] p2p: rank 2 restarted: re-sending [0-9]+ of the [0-9]+ messages" \
    "rank 1 did not re-send to rank 2"
enc_log "ok late_big"

# -- hostlost ------------------------------------------------------------------
mkdir "$ENC_TMP/jobs" || enc_fail "mkdir failed"
# shellcheck disable=SC2034 # read by rec_encore
REC_ENV="ENCORE_SNAPSHOT_S=0.3 ENCORE_HEARTBEAT_TIMEOUT_MS=2000 TMPDIR=$ENC_TMP/jobs"
# shellcheck disable=SC2086
snap_start hostlost 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$PROG" $args
enc_wait_lines "$ENC_TMP/hostlost.raw" '^progress' 12 "$WAIT_S" hostlost
snap_wait hostlost "rank 2\\] snapshot: snapshot at seq -?[0-9]+ taken"
snap_wait hostlost "rank 3\\] snapshot: snapshot at seq -?[0-9]+ taken"
netns_lose 2 || enc_fail "hostlost: cannot lose $h2"
snap_end hostlost
rec_ok hostlost ring
rec_restarts hostlost "0 0 1 1"
spill=$(rec_summary hostlost 1 spill)
awk -v s="$spill" 'BEGIN { exit !(s > 0) }' ||
    { rec_show hostlost; enc_fail "hostlost: rank 1 spilled no payload (peak spill '$spill' MiB)"; }
[ "$(rec_count hostlost "restored from (its|the) snapshot")" -eq 0 ] ||
    { rec_show hostlost; enc_fail "hostlost: a rank was restored from an image of the lost host"; }
enc_log "ok hostlost (rank 1 peak spill $spill MiB)"
enc_pass
