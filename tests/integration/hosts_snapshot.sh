#!/bin/sh
# hosts_snapshot.sh - snapshots on every host (network namespaces on a
# private bridge, reached with --rsh "ip netns exec"): the images of a rank
# park with its own host's owner (the host's encore-agent; encore-run on its
# own host), encore-run learns of each, so the log is trimmed by every
# rank's newest image and the summary counts them, and a rank SIGKILLed
# from outside on a live host is restored there from its image.
# tests/programs/snap_iter (local work and one 512 KiB allreduce per
# iteration, 200 iterations), snapshots every 0.3 s.  Scenarios:
#   late       4 ranks on h1:2,h2:2 (no rank on encore-run's host): rank 3
#              killed on h2 once it parked a snapshot past seq 100; its
#              agent restores it there (encore-run's line names the host),
#              it replays fewer collectives than the snapshot's seq; every
#              rank's snapshots are counted; each rank's peak log stays far
#              below the 100 MiB that pass through it (trimmed)
#   mixed      4 ranks on localhost:2,h2:2: encore-run owns ranks 0 and 1's
#              images, h2's agent those of ranks 2 and 3; rank 2 killed on
#              h2 and restored there; snapshots counted on both hosts
#   imagekill  rank 3's newest image (an encore-image process on h2) and
#              rank 3 itself killed at once: it falls back to the image
#              before, if that one was still parked, or re-executes from the
#              start (rank 0 runs a thread of its own, so it never
#              snapshots and the log is never trimmed: everything can
#              still be replayed)
#   failall    --policy fail-all: rank 3 killed on h2 once it parked a
#              snapshot; every rank restarts from the start (their agents
#              forget the images; none is activated)
#   hostlost   4 ranks on h1:2,h2:2, spare h3:2: h2 lost (cable pulled,
#              every process SIGKILLed) after ranks 2 and 3 parked images
#              there; the images die with the host, so both re-execute from
#              the start on h3, replaying the history the survivors spilled
#              when snapshots trimmed their logs (a survivor's summary shows
#              a peak spill above zero)
# Every job's output equals native mpirun's bit for bit.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

PROG="$ENC_PROGRAMS/snap_iter"
netns_require
rec_begin "$PROG"
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
. "$ENC_SRCDIR/tests/integration/snap_lib.sh"

netns_create 3
h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3)
RSH="ip netns exec"
ARGS="--iters 200 --count 65536 --work-us 10000"
# shellcheck disable=SC2086 # ARGS is a list of arguments
enc_run_ok ref.native enc_mpirun 4 "$PROG" $ARGS
cp "$ENC_TMP/ref.native.out" "$ENC_TMP/it4.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
enc_run_ok refh.native enc_mpirun 4 "$PROG" $ARGS --hold-rank 0
cp "$ENC_TMP/refh.native.out" "$ENC_TMP/hold.ref" || enc_fail "cp failed"

# counted NAME RANK USED: the summary counts snapshots taken (at least one)
# and USED used for RANK.
counted() {
    rec_grep "$1" "^  rank $2 +snapshots taken [1-9][0-9]* +used $3\$" \
        "rank $2's snapshots are not counted (want some taken, $3 used)"
}

# restored_on NAME RANK HOST: RANK was restored on HOST by its agent, from
# the snapshot its own line names (SNAP_SEQ), and replayed fewer
# collectives than re-execution would.
restored_on() {
    snap_restored "$1" "$2"
    rec_grep "$1" "run: rank $2 incarnation 1 restored from its snapshot at seq $SNAP_SEQ on host $3 \\(pid [0-9]+\\)\$" \
        "rank $2 was not restored on host $3"
    _o_replayed=$(rec_summary "$1" "$2" replayed)
    [ "$_o_replayed" -lt "$SNAP_SEQ" ] ||
        { rec_show "$1"; enc_fail "$1: rank $2 replayed $_o_replayed collectives, restored at seq $SNAP_SEQ"; }
}

# images_of RANK: the pids of RANK's parked images (processes named
# encore-image whose environment says ENCORE_RANK=RANK), space separated.
images_of() {
    for _c in /proc/[0-9]*/comm; do
        [ "$(cat "$_c" 2>/dev/null)" = encore-image ] || continue
        _d=${_c%/comm}
        tr '\0' '\n' <"$_d/environ" 2>/dev/null | grep -qx "ENCORE_RANK=$1" && printf '%s ' "${_d#/proc/}"
    done
    return 0
}

# -- late: a rank killed on another host, restored there ------------------------
# shellcheck disable=SC2086
snap_start late 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$PROG" $ARGS
snap_kill late 3 0 '1[0-9][0-9]' # past seq 100 of 200
snap_end late
rec_ok late it4
rec_restarts late "0 0 0 1"
restored_on late 3 "$h2"
for r in 0 1 2; do counted late "$r" 0; done
counted late 3 1
rec_grep late '^encore: snapshots: [0-9]+ taken, 1 used$' "summary does not count 1 snapshot used"
for r in 0 1 2 3; do
    peak=$(rec_summary late "$r" log)
    awk -v p="$peak" 'BEGIN { exit !(p > 0 && p < 40) }' ||
        { rec_show late; enc_fail "late: rank $r peak log $peak MiB: the log was not trimmed by snapshots"; }
done
enc_log "ok late (restored at seq $SNAP_SEQ, replayed $_o_replayed)"

# -- mixed: encore-run's host and an agent's host ---------------------------------
# shellcheck disable=SC2086
snap_start mixed 4 --rsh "$RSH" -H "localhost:2,$h2:2" "$PROG" $ARGS
snap_kill mixed 2 0 '1[0-9][0-9]'
snap_end mixed
rec_ok mixed it4
rec_restarts mixed "0 0 1 0"
restored_on mixed 2 "$h2"
for r in 0 1 3; do counted mixed "$r" 0; done
counted mixed 2 1
enc_log "ok mixed (restored at seq $SNAP_SEQ, replayed $_o_replayed)"

# -- imagekill: the newest image dies with its rank ----------------------------------
# shellcheck disable=SC2086
snap_start imagekill 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$PROG" $ARGS --hold-rank 0
rank=$(snap_pid imagekill 3 0)
snap_wait imagekill "rank 3\\] snapshot: snapshot at seq [5-9][0-9] taken"
kill -STOP "$rank" || enc_fail "imagekill: cannot stop rank 3 (pid $rank)"
# stopped, the rank takes no newer snapshot: once its newest image parked
# (an older one exits then), rank 3 has exactly one encore-image process
# (its environment names the rank), and its line says at which seq
i=0
until [ "$(echo "$(images_of 3)" | wc -w)" -eq 1 ] &&
    img=$(images_of 3 | tr -d " ") && grep -q "rank 3\] snapshot: snapshot at seq [0-9]* taken (pid $img)" \
        "$ENC_TMP/imagekill.err"; do
    i=$((i + 1))
    [ "$i" -le 100 ] || { rec_show imagekill; enc_fail "imagekill: no parked image of rank 3 (pids: $(images_of 3))"; }
    sleep 0.1
done
iseq=$(sed -n "s/.*rank 3\] snapshot: snapshot at seq \([0-9]*\) taken (pid $img).*/\1/p" \
    "$ENC_TMP/imagekill.err")
kill -KILL "$img" "$rank" || enc_fail "imagekill: cannot kill image $img and rank $rank"
enc_log "imagekill: killed rank 3 (pid $rank) and its image at seq $iseq (pid $img)"
snap_end imagekill
rec_ok imagekill hold
rec_restarts imagekill "0 0 0 1"
if grep -q "rank 3\\] snapshot: restored from the snapshot" "$ENC_TMP/imagekill.err"; then
    snap_restored imagekill 3
    [ "$SNAP_SEQ" -lt "$iseq" ] || enc_fail "imagekill: restored from seq $SNAP_SEQ, the killed image's ($iseq) or later"
    enc_log "ok imagekill (fell back to the image at seq $SNAP_SEQ)"
else
    rec_grep imagekill "rank 3 incarnation 1 \\(pid [0-9]+\\) registered from $(netns_addr 2):" \
        "rank 3 did not re-execute on $h2"
    enc_log "ok imagekill (re-executed, replayed $(rec_summary imagekill 3 replayed))"
fi

# -- failall: everyone restarts from scratch, images or not -------------------------
# shellcheck disable=SC2086
snap_start failall 4 --rsh "$RSH" -H "$h1:2,$h2:2" --policy fail-all "$PROG" $ARGS
snap_kill failall 3 0 '[5-9][0-9]'
snap_end failall
rec_ok failall it4
rec_restarts failall "1 1 1 1"
[ "$(rec_count failall "restored from (its|the) snapshot")" -eq 0 ] ||
    { rec_show failall; enc_fail "failall: a rank was restored from an image"; }
enc_log "ok failall"

# -- hostlost: the images die with their host -----------------------------------------
mkdir "$ENC_TMP/jobs" || enc_fail "mkdir failed"
REC_ENV="ENCORE_SNAPSHOT_S=0.3 ENCORE_HEARTBEAT_TIMEOUT_MS=2000 TMPDIR=$ENC_TMP/jobs"
# shellcheck disable=SC2086
snap_start hostlost 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$PROG" $ARGS
snap_wait hostlost "rank 2\\] snapshot: snapshot at seq [5-9][0-9] taken"
snap_wait hostlost "rank 3\\] snapshot: snapshot at seq [5-9][0-9] taken"
netns_lose 2 || enc_fail "hostlost: cannot lose $h2"
snap_end hostlost
rec_ok hostlost it4
# snapshots trimmed the survivors' logs before the loss: on several hosts
# what a trim passes is spilled, not released, and the re-execution of the
# lost ranks replayed it from there
spilled=$(awk '$1 == "rank" && ($2 == 0 || $2 == 1) && $3 == "restarts" {
    for (i = 3; i < NF; i++) if ($i == "spill" && $(i + 1) + 0 > 0) n++ } END { print n + 0 }' \
    "$ENC_TMP/hostlost.err")
[ "$spilled" -ge 1 ] || { rec_show hostlost; enc_fail "hostlost: no survivor spilled its trimmed history"; }
rec_restarts hostlost "0 0 1 1"
rec_grep hostlost "host $h2 lost: its agent" "host loss not reported"
for r in 2 3; do
    rec_grep hostlost "rank $r incarnation 1 \\(pid [0-9]+\\) registered from $(netns_addr 3):" \
        "rank $r did not move to $h3"
done
[ "$(rec_count hostlost "restored from (its|the) snapshot")" -eq 0 ] ||
    { rec_show hostlost; enc_fail "hostlost: a rank was restored from an image of the lost host"; }
enc_log "ok hostlost"

enc_pass
