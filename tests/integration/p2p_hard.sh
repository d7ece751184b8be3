#!/bin/sh
# p2p_hard.sh - the hard cases of point-to-point recovery on real processes
# (one host, SIGKILL and SIGSTOP), each checked exactly against native Open
# MPI and encore's fault-free run:
#   poll      tests/programs/p2p_poll (4 ranks): a master that acts on
#             Iprobe(ANY_SOURCE), Testany, Testsome, Waitsome, Test,
#             Request_get_status and the Cancel of a receive, each outcome a
#             determinant.  The master SIGKILLed at a collective and at a
#             random moment (pending Irecvs, mid-poll); killed again while
#             it replays (its second incarnation at an earlier collective);
#             master and worker 1, which talk to each other, killed together;
#             a worker SIGKILLed; the master SIGSTOPped past the heartbeat
#             bound.  Every run prints each task exactly once (a replay
#             that took another outcome would give a task to two workers)
#             with native's values, and native's round sums; and each poll
#             loop's number of empty Iprobes, Tests or Request_get_status
#             once (the replay saw "nothing" exactly as often), and each
#             spare receive's cancel outcome once.
#   big       tests/programs/p2p_big (3 ranks, 64 rounds of 6 MiB messages around a
#             ring with Isend/Irecv/Waitall): the receiver SIGKILLed while
#             the transfers stream, and at a collective: the same distinct
#             lines as the fault-free run, whose sums equal native's.
#   lend      the same ring exchanged with MPI_Sendrecv, whose blocking
#             sends lend their buffers to the reader while they log them
#             (shim/p2p/lend.h): native's lines, some payloads read from a
#             lent buffer (none with ENCORE_P2P_LEND=0), and native's lines
#             again with the reader (rank 1) and then the lender (rank 0)
#             SIGKILLed mid-stream, with every claimed lend revoked
#             (ENCORE_P2P_LEND_WAIT_MS=0: the readers read the log again),
#             and with the reader SIGSTOPped for 1 s.
#   late      tests/programs/p2p_late_reader (2 ranks, 1 MiB messages read
#             by the receiver straight out of the sender's log,
#             ENCORE_P2P_CMA_MIN=32K): the
#             receiver SIGSTOPped, the sender SIGKILLed once it has written
#             a round's messages (their locators wait in the stopped
#             receiver's ring), the receiver continued: it drops what it
#             cannot read any more (and says so), the restored sender sends
#             it again, and the lines are native's.
set -eu
ENC_LIMIT=150
. "${top_srcdir:-.}/tests/integration/lib.sh"

poll="$ENC_PROGRAMS/p2p_poll"
big="$ENC_PROGRAMS/p2p_big"
late="$ENC_PROGRAMS/p2p_late_reader"
enc_require_program "$poll"
enc_require_program "$big"
enc_require_program "$late"
enc_require_launchers
enc_tmpdir

# kill_at NAME ...: enc_signal_at (lib.sh), stdout in NAME.out.
kill_at() {
    enc_signal_at "$@"
    cp "$ENC_TMP/$1.raw" "$ENC_TMP/$1.out"
}

# -- poll ------------------------------------------------------------------------
rounds=3 tasks=100
enc_run_ok poll.native enc_mpirun 4 "$poll" "$rounds" "$tasks"
# what must not depend on timing: each task's value, each round's sums
poll_facts() {
    sort -u "$1" | awk '$1 == "phase" {print $4, $8} $1 == "round"' | sort
}
poll_facts "$ENC_TMP/poll.native.out" >"$ENC_TMP/poll.want"
total=$((rounds * (3 * tasks + 2)))
[ "$(grep -c '^phase ' "$ENC_TMP/poll.native.out")" -eq "$total" ] ||
    enc_fail "poll: native printed a wrong number of results"

# check_poll NAME: the run's distinct lines hold each task once, with
# native's values and sums, and each poll loop's count of empty polls and
# each cancel's outcome once (a replayed master saw what the first saw).
check_poll() {
    poll_facts "$ENC_TMP/$1.out" >"$ENC_TMP/$1.facts"
    enc_expect_same "$ENC_TMP/poll.want" "$ENC_TMP/$1.facts" "$1: tasks and sums"
    sort -u "$ENC_TMP/$1.out" | awk '$1 == "probe" || $1 == "lone" || $1 == "spare" {print $1, $2}' |
        sort >"$ENC_TMP/$1.polls"
    [ "$(grep -c '^lone' "$ENC_TMP/$1.polls")" -eq "$rounds" ] ||
        enc_fail "$1: not one 'lone' poll count per round"
    [ -z "$(uniq -d "$ENC_TMP/$1.polls")" ] || {
        uniq -d "$ENC_TMP/$1.polls" | head >&2
        enc_fail "$1: a poll loop printed two counts (a replay polled differently)"
    }
    _c_n=$(sort -u "$ENC_TMP/$1.out" | grep -c '^phase ' || true)
    [ "$_c_n" -eq "$total" ] || {
        sort -u "$ENC_TMP/$1.out" | awk '$1 == "phase" {print $4}' | sort | uniq -d | head >&2
        enc_fail "$1: $_c_n distinct results for $total tasks (a replay took another outcome)"
    }
}

enc_run_ok poll.free enc_encore 4 "$poll" "$rounds" "$tasks"
check_poll poll.free
enc_log "ok: poll fault-free equals native (${ENC_MS} ms)"

enc_run_ok poll.kill0 enc_encore 4 --inject kill:rank=0:op=5 "$poll" "$rounds" "$tasks"
enc_expect_grep "$ENC_TMP/poll.kill0.err" "rank 0 .*restarting it" "master was not restarted"
check_poll poll.kill0
enc_log "ok: poll, master SIGKILLed at its 5th collective (${ENC_MS} ms)"

enc_run_ok poll.replay enc_encore 4 --inject kill:rank=0:op=6 \
    --inject kill:rank=0:op=2:incarnation=1 "$poll" "$rounds" "$tasks"
[ "$(grep -c 'rank 0 .*restarting it' "$ENC_TMP/poll.replay.err")" -ge 2 ] ||
    enc_fail "poll.replay: the master was not restarted twice"
check_poll poll.replay
enc_log "ok: poll, master killed again while replaying (${ENC_MS} ms)"

enc_run_ok poll.two enc_encore 4 --inject kill:rank=0:op=4 --inject kill:rank=1:op=4 \
    "$poll" "$rounds" "$tasks"
check_poll poll.two
enc_log "ok: poll, master and worker 1 killed together (${ENC_MS} ms)"

kill_at poll.sig0 4 0 KILL '^phase B' 15 "$poll" "$rounds" "$tasks"
check_poll poll.sig0
enc_log "ok: poll, master SIGKILLed in phase B (pending receives, Testany)"

kill_at poll.sig2 4 2 KILL '^phase A' 50 "$poll" "$rounds" "$tasks"
check_poll poll.sig2
enc_log "ok: poll, worker 2 SIGKILLed mid-run"

ENCORE_HEARTBEAT_TIMEOUT_MS=1500 kill_at poll.stop 4 0 STOP '^phase C' 10 \
    "$poll" "$rounds" "$tasks"
enc_expect_grep "$ENC_TMP/poll.stop.err" "rank 0 .*restarting it" "SIGSTOP: master not restarted"
check_poll poll.stop
enc_log "ok: poll, master SIGSTOPped past the heartbeat bound"

# -- big -------------------------------------------------------------------------
iters=64 mib=6 # room after the 4th line for the kill to land before the end
enc_run_ok big.native enc_mpirun 3 "$big" "$iters" "$mib"
enc_run_ok big.free enc_encore 3 "$big" "$iters" "$mib"
sort -u "$ENC_TMP/big.native.out" >"$ENC_TMP/big.native.uniq"
sort -u "$ENC_TMP/big.free.out" >"$ENC_TMP/big.free.uniq"
enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/big.free.uniq" "big: fault-free vs native"
enc_run_ok big.op enc_encore 3 --inject kill:rank=1:op=6 "$big" "$iters" "$mib"
sort -u "$ENC_TMP/big.op.out" >"$ENC_TMP/big.op.uniq"
enc_expect_same "$ENC_TMP/big.free.uniq" "$ENC_TMP/big.op.uniq" "big: receiver killed at a collective"
enc_log "ok: big, rank 1 killed at its 6th collective (${ENC_MS} ms)"
kill_at big.sig 3 1 KILL '^iter' 4 "$big" "$iters" "$mib"
sort -u "$ENC_TMP/big.sig.out" >"$ENC_TMP/big.sig.uniq"
enc_expect_same "$ENC_TMP/big.free.uniq" "$ENC_TMP/big.sig.uniq" "big: receiver SIGKILLed mid-transfer"
enc_log "ok: big, rank 1 SIGKILLed while $mib MiB messages stream"

# -- lend ------------------------------------------------------------------------
# The same ring with MPI_Sendrecv: each blocking send lends its buffer to
# the receiver while it copies the payload into its log (shim/p2p/lend.h).
if [ "$ENC_NATIVE_ONLY" != 1 ]; then
    lent_n() { grep -o "([0-9]* of them read from its lent buffer)" "$1" | tr -dc '0-9\n' | awk '{s += $1} END {print s + 0}'; }
    ENCORE_LOG=debug enc_run_ok lend.free enc_encore 3 "$big" "$iters" "$mib" sendrecv
    sort -u "$ENC_TMP/lend.free.out" >"$ENC_TMP/lend.free.uniq"
    enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/lend.free.uniq" "lend: fault-free vs native"
    lent=$(lent_n "$ENC_TMP/lend.free.err")
    [ "$lent" -gt 0 ] || enc_fail "lend: no payload of $((3 * iters)) was read from a lent buffer"
    ENCORE_P2P_LEND=0 ENCORE_LOG=debug enc_run_ok lend.off enc_encore 3 "$big" "$iters" "$mib" sendrecv
    sort -u "$ENC_TMP/lend.off.out" >"$ENC_TMP/lend.off.uniq"
    enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/lend.off.uniq" "lend: ENCORE_P2P_LEND=0 vs native"
    [ "$(lent_n "$ENC_TMP/lend.off.err")" = 0 ] || enc_fail "lend: a buffer was lent with ENCORE_P2P_LEND=0"
    enc_log "ok: lend, $lent of $((3 * iters)) payloads read from the lent buffer, none with ENCORE_P2P_LEND=0"
    # the reader of rank 0's buffer (rank 1), then the lender (rank 0), SIGKILLed mid-stream
    for victim in 1 0; do
        kill_at "lend.sig$victim" 3 "$victim" KILL '^iter' 4 "$big" "$iters" "$mib" sendrecv
        sort -u "$ENC_TMP/lend.sig$victim.out" >"$ENC_TMP/lend.sig$victim.uniq"
        enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/lend.sig$victim.uniq" \
            "lend: rank $victim SIGKILLed mid-transfer"
        enc_log "ok: lend, rank $victim SIGKILLed while $mib MiB buffers are lent"
    done
    # every claimed lend revoked at once (ENCORE_P2P_LEND_WAIT_MS=0): the
    # readers read those payloads again from the senders' logs
    ENCORE_P2P_LEND_WAIT_MS=0 ENCORE_LOG=debug enc_run_ok lend.revoke enc_encore 3 "$big" \
        "$iters" "$mib" sendrecv
    sort -u "$ENC_TMP/lend.revoke.out" >"$ENC_TMP/lend.revoke.uniq"
    enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/lend.revoke.uniq" \
        "lend: every claimed lend revoked"
    revoked=$(enc_count "$ENC_TMP/lend.revoke.err" "lend [0-9]+ revoked")
    [ "$revoked" -gt 0 ] || enc_fail "lend.revoke: no lend was revoked with ENCORE_P2P_LEND_WAIT_MS=0"
    enc_log "ok: lend, $revoked claimed lends revoked and read again from the log"
    # the reader SIGSTOPped for 1 s, below the heartbeat bound: a lend it
    # claimed before it stopped is revoked after 50 ms (lend.h), and the
    # reader, continued, reads that payload again from the sender's log
    ENCORE_LOG=debug enc_encore 3 "$big" "$iters" "$mib" sendrecv \
        >"$ENC_TMP/lend.stop.out" 2>"$ENC_TMP/lend.stop.err" &
    bg=$!
    enc_wait_lines "$ENC_TMP/lend.stop.out" '^iter' 4 60 lend.stop
    pid=$(enc_rank_pid "$(enc_bounded_pid "$bg")" 1)
    [ -n "$pid" ] || enc_fail "lend.stop: rank 1 not found"
    kill -STOP "$pid"
    sleep 1
    kill -CONT "$pid"
    ENC_RC=0
    wait "$bg" || ENC_RC=$?
    enc_expect_status lend.stop 0
    sort -u "$ENC_TMP/lend.stop.out" >"$ENC_TMP/lend.stop.uniq"
    enc_expect_same "$ENC_TMP/big.native.uniq" "$ENC_TMP/lend.stop.uniq" "lend: reader SIGSTOPped for 1 s"
    enc_log "ok: lend, reader SIGSTOPped for 1 s ($(grep -c 'revoked' "$ENC_TMP/lend.stop.err") lends revoked)"
fi

# -- late ------------------------------------------------------------------------
go="$ENC_TMP/late.go"
: >"$go"
enc_run_ok late.native enc_mpirun 2 "$late" "$go"
sort -u "$ENC_TMP/late.native.out" >"$ENC_TMP/late.native.uniq"
[ "$ENC_NATIVE_ONLY" = 1 ] && enc_finish
rm -f "$go"
(export ENCORE_LOG=info ENCORE_P2P_CMA_MIN=32K && enc_encore 2 "$late" "$go") \
    >"$ENC_TMP/late.raw" 2>"$ENC_TMP/late.err" &
late_bg=$!
enc_wait_lines "$ENC_TMP/late.raw" '^round 1 waiting' 1 60 late
late_run=$(enc_bounded_pid "$late_bg")
reader=$(enc_rank_pid "$late_run" 1)
writer=$(enc_rank_pid "$late_run" 0)
[ -n "$reader" ] && [ -n "$writer" ] || enc_fail "late: ranks not found"
kill -STOP "$reader"
: >"$go"
enc_wait_lines "$ENC_TMP/late.raw" '^round 1 sent' 1 60 late
kill -KILL "$writer"
kill -CONT "$reader"
ENC_RC=0
wait "$late_bg" || ENC_RC=$?
enc_expect_status late 0
sort -u "$ENC_TMP/late.raw" >"$ENC_TMP/late.uniq"
enc_expect_same "$ENC_TMP/late.native.uniq" "$ENC_TMP/late.uniq" "late: sender killed before its stopped receiver read"
enc_expect_grep "$ENC_TMP/late.err" "rank 0 ended before its message [0-9]* could be read from its log" \
    "late: the receiver did not find the sender's messages unreadable"
enc_log "ok: late, sender SIGKILLed with 1 MiB messages its stopped receiver had not read"
enc_finish
