#!/bin/sh
# p2p_shm.sh - point-to-point between ranks of one host through the
# segment's rings and, forced with ENCORE_P2P_SHM=0, over TCP: both paths
# give exactly native Open MPI's output for tests/programs/p2p_check (every
# mode, probes, ANY_SOURCE, cancel, 4 MiB both ways) and
# tests/programs/p2p_flood (each rank sends 10000 small and 6 large
# messages before receiving any: more than a ring holds, so senders wait
# for room while their receivers do the same, and must not deadlock; then
# a synchronous send whose receiver sits in a barrier), at 2 and 4 ranks.
# The per-rank debug line at MPI_Finalize proves which path was taken
# (messages through shared memory: N sent, M received), without timing.
# p2p_flood also runs at 8 ranks (more than this host's cores).
# Rank 1 SIGKILLed in the middle of p2p_check on each path recovers exactly.
set -eu
ENC_LIMIT=150
. "${top_srcdir:-.}/tests/integration/lib.sh"

check="$ENC_PROGRAMS/p2p_check"
flood="$ENC_PROGRAMS/p2p_flood"
enc_require_program "$check"
enc_require_program "$flood"
enc_require_launchers
enc_tmpdir

# with_shm 0|1 cmd...: cmd with ENCORE_P2P_SHM set, and the debug log on
with_shm() { (export ENCORE_P2P_SHM="$1" ENCORE_LOG=debug && shift && "$@"); }

for n in 2 4; do
    enc_run_ok "native_check$n" enc_mpirun "$n" "$check"
    enc_expect_grep "$ENC_TMP/native_check$n.out" "^rank 0: all ok$" "-n $n: native p2p_check failed"
    enc_run_ok "native_flood$n" enc_mpirun "$n" "$flood"
    enc_expect_grep "$ENC_TMP/native_flood$n.out" "^rank 0: flood of 10000 ok" "-n $n: native p2p_flood failed"
    for shm in 1 0; do
        for prog in check flood; do
            name="${prog}_shm${shm}_$n"
            eval "path=\$$prog"
            enc_run_ok "$name" with_shm "$shm" enc_second "$n" "$path"
            enc_expect_same "$ENC_TMP/native_$prog$n.out" "$ENC_TMP/$name.out" "$prog -n $n, ENCORE_P2P_SHM=$shm"
            [ "$ENC_NATIVE_ONLY" = 1 ] && continue
            lines=$(enc_count "$ENC_TMP/$name.err" "p2p: messages through shared memory: ")
            [ "$lines" = "$n" ] || enc_fail "$name: $lines ranks printed their shared-memory count, want $n"
            if [ "$shm" = 1 ]; then
                used=$(enc_count "$ENC_TMP/$name.err" "p2p: messages through shared memory: [1-9][0-9]* sent, [1-9][0-9]* received")
                [ "$used" = "$n" ] || enc_fail "$name: $used of $n ranks sent and received through shared memory"
            else
                enc_expect_no_grep "$ENC_TMP/$name.err" "p2p: messages through shared memory: [1-9]" \
                    "$name: ENCORE_P2P_SHM=0 still used shared memory"
            fi
            enc_log "ok $prog -n $n ENCORE_P2P_SHM=$shm (${ENC_MS} ms)"
        done
    done
done
# Messages from ENCORE_P2P_CMA_MIN bytes are read by the receiver straight
# from the sender's log (cross-memory attach): at the default (32K)
# p2p_check's 4 MiB messages are, with 1 every message with a payload is,
# with 0 none is, and the output is native's each time.
# tests/programs/p2p_behind: a synchronous 4-byte message behind a 4 MiB
# one, its receiver in a barrier (the large one read out of the log ends
# the reader's turn: the small one behind it once waited for ever).
# tests/programs/p2p_quiet: eager messages to a computing rank ring no bell.
if [ "$ENC_NATIVE_ONLY" != 1 ]; then
    remote="read out of the sender's process"
    with_cma() { (export ENCORE_P2P_CMA_MIN="$1" ENCORE_P2P_SHM=1 ENCORE_LOG=debug && shift && "$@"); }
    # count_n FILE WHAT: the messages of the finalize lines "(N of them WHAT)"
    count_n() { grep -o "([0-9]* of them $2)" "$1" | tr -dc '0-9\n' | awk '{s += $1} END {print s + 0}'; }
    # read_n FILE: those read out of the sender's process (its log, or
    # the buffer it lent, lend.h)
    read_n() { echo $(($(count_n "$1" "read from the sender's log") + $(count_n "$1" "read from its lent buffer"))); }
    [ "$(read_n "$ENC_TMP/check_shm1_4.err")" -gt 0 ] ||
        enc_fail "check -n 4: no message $remote with ENCORE_P2P_CMA_MIN at its default"
    behind="$ENC_PROGRAMS/p2p_behind"
    enc_require_program "$behind"
    enc_run_ok native_behind enc_mpirun 2 "$behind" 20 4
    enc_run_ok behind with_shm 1 enc_second 2 "$behind" 20 4
    enc_expect_same "$ENC_TMP/native_behind.out" "$ENC_TMP/behind.out" "p2p_behind"
    [ "$(read_n "$ENC_TMP/behind.err")" = 20 ] ||
        enc_fail "behind: $(read_n "$ENC_TMP/behind.err") of its 20 large messages $remote, want 20"
    enc_log "ok p2p_behind: 20 rounds of a small synchronous message behind a large one (${ENC_MS} ms)"
    # tests/programs/p2p_quiet: 1016 eager messages to a rank that computes
    # ring no bell (nothing waits for their read before its next call; a
    # bell wakes its progress thread, preempting the computation)
    quiet="$ENC_PROGRAMS/p2p_quiet"
    enc_require_program "$quiet"
    enc_run_ok native_quiet enc_mpirun 2 "$quiet"
    enc_run_ok quiet with_shm 1 enc_second 2 "$quiet"
    enc_expect_same "$ENC_TMP/native_quiet.out" "$ENC_TMP/quiet.out" "p2p_quiet"
    enc_expect_grep "$ENC_TMP/quiet.err" "rank 0\] p2p: bells rung on TCP for readers of this rank's rings: 0$" \
        "p2p_quiet: rank 0 rang bells for eager messages to a computing rank"
    enc_log "ok p2p_quiet: eager messages to a computing rank, no bell (${ENC_MS} ms)"
    for min in 1 0; do
        name="check_cma$min"
        enc_run_ok "$name" with_cma "$min" enc_encore 4 "$check"
        enc_expect_same "$ENC_TMP/native_check4.out" "$ENC_TMP/$name.out" "check -n 4, ENCORE_P2P_CMA_MIN=$min"
        got=$(read_n "$ENC_TMP/$name.err")
        if [ "$min" = 0 ]; then
            [ "$got" = 0 ] || enc_fail "$name: $got messages $remote with ENCORE_P2P_CMA_MIN=0"
        else
            [ "$got" -gt 0 ] || enc_fail "$name: no message $remote with ENCORE_P2P_CMA_MIN=$min"
        fi
        enc_log "ok check -n 4 ENCORE_P2P_CMA_MIN=$min: $got messages $remote (${ENC_MS} ms)"
    done
fi
# 8 ranks on this small host (oversubscribed: waits yield and sleep
# instead of spinning), rings of 256 KiB
enc_run_ok native_flood8 enc_mpirun 8 "$flood" 2000
enc_run_ok flood_shm1_8 with_shm 1 enc_second 8 "$flood" 2000
enc_expect_same "$ENC_TMP/native_flood8.out" "$ENC_TMP/flood_shm1_8.out" "flood -n 8"
enc_log "ok flood -n 8 (${ENC_MS} ms)"
[ "$ENC_NATIVE_ONLY" = 1 ] && enc_finish
sort -u "$ENC_TMP/native_check4.out" >"$ENC_TMP/native4.uniq"
for shm in 1 0; do
    enc_run_ok "kill_shm$shm" with_shm "$shm" enc_encore 4 --inject "kill:rank=1:op=5" "$check"
    enc_expect_grep "$ENC_TMP/kill_shm$shm.err" "restarting it" "ENCORE_P2P_SHM=$shm: rank 1 was not restarted"
    sort -u "$ENC_TMP/kill_shm$shm.out" >"$ENC_TMP/kill_shm$shm.uniq"
    enc_expect_same "$ENC_TMP/native4.uniq" "$ENC_TMP/kill_shm$shm.uniq" "ENCORE_P2P_SHM=$shm, rank 1 killed"
    enc_log "ok: ENCORE_P2P_SHM=$shm, rank 1 killed at op 5, recovered (${ENC_MS} ms)"
done
enc_finish
