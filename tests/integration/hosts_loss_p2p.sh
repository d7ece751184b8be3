#!/bin/sh
# hosts_loss_p2p.sh - a host lost under a point-to-point program (network
# namespaces on a private bridge, --rsh "ip netns exec", 4 ranks on
# h1:2,h2:2 and 2 spare slots on h3):
#   ring     tests/programs/p2p_ring (named sources only: no determinant):
#            h2 lost mid-run, its ranks 2 and 3 re-execute on h3 from the
#            start, their re-sends are suppressed and the messages they
#            need come back from the survivors' logs (spilled, not freed,
#            on a job of several hosts); the output equals native's.
#   master   tests/programs/p2p_master (MPI_ANY_SOURCE), the master's host
#            lost mid-run: its matches were copied to encore-run before any
#            reply that depended on them left (docs/p2p.md 5.3, S2), so the
#            master re-executes on h3 from encore-run's copy and takes the
#            same matches: every task once, each with its value, the sum of
#            the native run; the lines it printed before the loss are
#            printed again identical (a different match would add a line).
#   poll     tests/programs/p2p_poll (a master acting on Iprobe, Testany,
#            Testsome, Waitsome, Test, Request_get_status and Cancel
#            outcomes, NONE runs with counts), the master's host lost
#            mid-run: its replay from encore-run's copy gives every task
#            to the same worker (one distinct line per task, native's
#            values and round sums) and finds nothing exactly as often (one
#            distinct count per poll loop).
#            In both the host's processes are killed before its cable is
#            pulled (host_dies, below).
#   nocopy   the same with ENCORE_P2P_DET_REPLICA=0: the matches were kept
#            only on that host, so the job ends with one line naming the
#            rank (exit 1), never a re-execution that could choose other
#            matches than the workers saw.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=150
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

ring="$ENC_PROGRAMS/p2p_ring"
master="$ENC_PROGRAMS/p2p_master"
poll="$ENC_PROGRAMS/p2p_poll"
netns_require
enc_require_program "$master"
enc_require_program "$poll"
rec_begin "$ring"
netns_create 3
h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3)
RSH="ip netns exec"
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000"

# -- ring: no determinant, the lost ranks re-execute on h3 ---------------------
RING="300 20000 4096"
# shellcheck disable=SC2086 # RING is three words
rec_ref ring 4 "$ring" $RING
# shellcheck disable=SC2086
rec_start lost_ring 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$ring" $RING
enc_wait_lines "$ENC_TMP/lost_ring.raw" "^progress 90$" 1 60 "ring: progress 90"
netns_lose 2
rec_finish lost_ring
rec_ok lost_ring ring
rec_restarts lost_ring "0 0 1 1"
rec_grep lost_ring "host $h2 lost: its agent" "ring: host loss not reported"
enc_log "ok ring: h2 lost, ranks 2 and 3 re-executed on h3"

# host_dies I: every process of the host killed, then its cable pulled: a
# host that stops at once.  (Pulling the cable first lets its ranks run on
# for a moment; here their output still reaches encore-run through the
# agent's pipe to "ip netns exec", which a real lost host's ssh would not
# carry, while what they send over the network cannot: lines printed after
# outcomes that could not be copied any more.)
host_dies() { netns_kill "$1" && netns_cut "$1"; }

# -- master: the ANY_SOURCE master's host lost, recovered from encore-run's copy --
TASKS=6000
enc_run_ok master.native enc_mpirun 4 "$master" "$TASKS"
grep '^task ' "$ENC_TMP/master.native.out" | awk '{print $2, $6}' | sort -n >"$ENC_TMP/master.tasks"
want=$(grep '^sum ' "$ENC_TMP/master.native.out")
netns_restore 2
rec_start lost_master 4 --rsh "$RSH" -H "$h2:2,$h1:2,$h3:2" "$master" "$TASKS"
enc_wait_lines "$ENC_TMP/lost_master.raw" "^task [0-9]+ worker [0-9]+ value" 200 60 "master: 200 results"
host_dies 2
rec_finish lost_master
[ "$REC_RC" -eq 0 ] || rec_show lost_master
enc_expect_status lost_master 0 "$REC_RC"
rec_restarts lost_master "1 1 0 0"
rec_grep lost_master "determinants: [0-9]+ records from encore-run's copy" \
    "master: the restarted master did not read encore-run's copy"
sort -u "$ENC_TMP/lost_master.raw" >"$ENC_TMP/lost_master.uniq"
enc_expect_grep "$ENC_TMP/lost_master.uniq" "^$want\$" "master: wrong sum after its host was lost"
[ "$(grep -c '^task ' "$ENC_TMP/lost_master.uniq")" -eq "$TASKS" ] || {
    grep '^task ' "$ENC_TMP/lost_master.uniq" | awk '{print $2}' | sort -n | uniq -d | head >&2
    enc_fail "master: a task's line printed twice with different workers (a match not replayed)"
}
grep '^task ' "$ENC_TMP/lost_master.uniq" | awk '{print $2, $6}' | sort -n >"$ENC_TMP/lost_master.tasks"
enc_expect_same "$ENC_TMP/master.tasks" "$ENC_TMP/lost_master.tasks" "master: tasks and values"
enc_log "ok master: h2 lost, the master re-executed on h3 with its copied matches"

# -- poll: every kind of determinant, the master's host lost -------------------
ROUNDS=12 PTASKS=150
enc_run_ok poll.native enc_mpirun 4 "$poll" "$ROUNDS" "$PTASKS"
# timing-free facts: each task's value, each round's sum and worker total
sort -u "$ENC_TMP/poll.native.out" | awk '$1 == "phase" {print $4, $8} $1 == "round"' | sort \
    >"$ENC_TMP/poll.want"
netns_restore 2
rec_start lost_poll 4 --rsh "$RSH" -H "$h2:2,$h1:2,$h3:2" "$poll" "$ROUNDS" "$PTASKS"
enc_wait_lines "$ENC_TMP/lost_poll.raw" "^round [0-9]+ sum" 3 90 "poll: three rounds"
host_dies 2
rec_finish lost_poll
[ "$REC_RC" -eq 0 ] || rec_show lost_poll
enc_expect_status lost_poll 0 "$REC_RC"
rec_restarts lost_poll "1 1 0 0"
rec_grep lost_poll "determinants: [0-9]+ records from encore-run's copy" \
    "poll: the restarted master did not read encore-run's copy"
sort -u "$ENC_TMP/lost_poll.raw" >"$ENC_TMP/lost_poll.uniq"
awk '$1 == "phase" {print $4, $8} $1 == "round"' "$ENC_TMP/lost_poll.uniq" | sort \
    >"$ENC_TMP/lost_poll.facts"
enc_expect_same "$ENC_TMP/poll.want" "$ENC_TMP/lost_poll.facts" "poll: tasks, values and sums"
# a replay that took another outcome prints a second line for a task or a
# second count for a poll loop
dup=$(awk '$1 == "phase" {print "task", $4} $1 == "probe" || $1 == "lone" || $1 == "spare" {print $1, $2}' \
    "$ENC_TMP/lost_poll.uniq" | sort | uniq -d | head -5)
[ -z "$dup" ] || enc_fail "poll: outcomes differ after the host loss: $dup"
enc_log "ok poll: h2 lost, the master replayed its polls, tests and cancels from the copy"

# -- nocopy: ENCORE_P2P_DET_REPLICA=0, the master's host lost ends the job -----
netns_restore 2
# shellcheck disable=SC2034 # read by lib.sh
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000 ENCORE_P2P_DET_REPLICA=0"
rec_start nocopy_master 4 --rsh "$RSH" -H "$h2:2,$h1:2,$h3:2" "$master" "$TASKS"
enc_wait_lines "$ENC_TMP/nocopy_master.raw" "^task [0-9]+ worker [0-9]+ value" 1 60 "nocopy: a first result"
netns_lose 2
rec_finish nocopy_master
[ "$REC_RC" -eq 1 ] || { rec_show nocopy_master; enc_fail "nocopy: exit $REC_RC, want 1"; }
rec_grep nocopy_master "^encore-run: host $h2 lost \(.*\) with rank 0, whose nondeterministic outcomes \(wildcard matches, Test/Iprobe/Waitany results\) were kept only on that host: re-executed elsewhere it could contradict messages the other ranks received; not recoverable$" \
    "nocopy: no one-line end naming rank 0"
grep -q "^sum " "$ENC_TMP/nocopy_master.out" && enc_fail "nocopy: the job printed a sum after the loss"
enc_log "ok nocopy: without the copy the master's host lost ends the job with one line"
enc_finish
