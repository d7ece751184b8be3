#!/bin/sh
# hosts_loss.sh - losing a whole host: every process of a namespace host is
# SIGKILLed and its link pulled while the job runs.  encore-run notices the
# agent's silence, declares the host's ranks dead, excludes the host, and
# restarts those ranks (retry-one, same ranks) on hosts with free slots; the
# job ends bit-identical to native mpirun.
#   midrun   4 ranks on h1:2,h2:2 (h3 has 2 free slots): h2 lost mid-run,
#            ranks 2 and 3 move to h3
#   replicas2 the same with ENCORE_REPLICAS=2: each result is held on two
#            distinct hosts, so the lost host never takes the last copy
#   replay   4 ranks on h1:2,h2:2, spare h3:2 and h4:2: h2 lost, and h3 lost
#            while ranks 2 and 3 replay there; they move on to h4
#   noslot   4 ranks on h1:2,h2:2 and no spare slot: h2 lost ends the job
#            with one line saying so
# Every job has its own TMPDIR ($JOBS, as the hosts share one file system):
# after each, it holds only the job directory of each lost host (SIGKILLed
# with its agent and ranks, nobody is left there to clean up), with exactly
# the lost ranks' directories; the next job's encore-run removes it (its
# owner is gone), and after a last local job TMPDIR is empty.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

REC_ITER="$ENC_PROGRAMS/recov_iter"
netns_require
rec_begin "$REC_ITER"
netns_create 4
h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3) h4=$(netns_name 4)
RSH="ip netns exec"
JOBS="$ENC_TMP/jobs"
mkdir "$JOBS" || enc_fail "mkdir failed"
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000 TMPDIR=$JOBS"
ITERS="--iters 60 --usleep 50000"

# wait_for NAME PATTERN: bounded wait until NAME's stderr has PATTERN.
wait_for() {
    _w_i=0
    until grep -qE -e "$2" "$ENC_TMP/$1.err" 2>/dev/null; do
        _w_i=$((_w_i + 1))
        [ "$_w_i" -le 400 ] || enc_fail "$1: no line matching '$2' within 40 s"
        sleep 0.1
    done
}

# left NAME DIRS: TMPDIR holds job directories with only these rank
# directories (sorted, space separated) besides their .owner files.
left() {
    _l=$(cd "$JOBS" && find . -mindepth 2 -maxdepth 2 ! -name .owner |
        sed 's|^\./encore-run\.[^/]*/||' | sort | tr '\n' ' ') || enc_fail "find failed"
    [ "$_l" = "$2 " ] || { find "$JOBS" >&2; enc_fail "$1: left in TMPDIR: '$_l', want '$2'"; }
}

rec_ref it4 4 "$REC_ITER" $ITERS

# -- midrun ---------------------------------------------------------------------
rec_start midrun 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$REC_ITER" $ITERS
wait_for midrun "finished version 0, seq 20,"
netns_lose 2
rec_finish midrun
rec_ok midrun it4
rec_restarts midrun "0 0 1 1"
left midrun "rank2.0 rank3.0"
rec_grep midrun "host $h2 lost: its agent" "host loss not reported"
rec_grep midrun "rank 2 incarnation 1 \(pid [0-9]+\) registered from $(netns_addr 3):" \
    "rank 2 did not move to $h3"

# -- replicas2: two copies of each result, on distinct hosts ------------------
# (ranks 2 and 3 share h2: consecutive holders would lose both copies of half
# of the results with it)
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000 ENCORE_REPLICAS=2 TMPDIR=$JOBS"
netns_restore 2
rec_start replicas2 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2" "$REC_ITER" $ITERS
wait_for replicas2 "finished version 0, seq 30,"
netns_lose 2
rec_finish replicas2
rec_ok replicas2 it4
rec_restarts replicas2 "0 0 1 1"
left replicas2 "rank2.0 rank3.0"
REC_ENV="ENCORE_HEARTBEAT_TIMEOUT_MS=2000 TMPDIR=$JOBS"

# -- replay: lost again while the moved ranks replay --------------------------
netns_restore 2
rec_start replay 4 --rsh "$RSH" -H "$h1:2,$h2:2,$h3:2,$h4:2" "$REC_ITER" $ITERS
wait_for replay "finished version 0, seq 30,"
netns_lose 2
wait_for replay "rank 3 incarnation 1 \(pid [0-9]+\) registered from $(netns_addr 3):"
netns_lose 3
rec_finish replay
rec_ok replay it4
rec_restarts replay "0 0 2 2"
left replay "rank2.0 rank2.1 rank3.0 rank3.1"
rec_grep replay "rank 2 incarnation 2 \(pid [0-9]+\) registered from $(netns_addr 4):" \
    "rank 2 did not move on to $h4"

# -- noslot ---------------------------------------------------------------------
netns_restore 2
rec_start noslot 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$REC_ITER" $ITERS
wait_for noslot "finished version 0, seq 20,"
netns_lose 2
rec_finish noslot
rec_fails noslot
rec_grep noslot "^encore-run: host $h2 lost \(.*\) and no free slot is left for its rank 2$" \
    "no one-line failure"
left noslot "rank2.0 rank3.0"

# -- the next job on the same TMPDIR removes what the lost host left -----------
rec_run after 2 "$REC_ITER" --iters 2
enc_expect_status after 0 "$REC_RC"
enc_expect_empty_dir "$JOBS" "after the lost hosts"
enc_pass
