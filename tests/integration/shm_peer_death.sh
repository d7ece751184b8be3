#!/bin/sh
# shm_peer_death.sh - a peer that dies in the middle of a shared-memory
# collective.  4 ranks on this host under encore-run run
# tests/programs/recov_iter with a 16 MiB allreduce in every iteration
# (--big 2097152 --big-every 1) and ENCORE_SHM_CHUNK_BYTES=65536: 256 chunks,
# two steps each, in the host's segment, results in its result ring.  A rank
# is first caught inside one of those allreduces (catch: stopped by the test
# once its last finished collective is the bcast before it and its main
# thread is in a system call, a wait for its peers), then:
#   kill      SIGKILLed by the test: encore-run restarts it, the survivors
#             regroup (epoch 1) and re-run the collective they were in with
#             the new epoch's tickets; it replays what they completed
#   stop      left stopped: silent for more than ENCORE_HEARTBEAT_TIMEOUT_MS
#             (1500 here), it is declared dead, killed (fenced) and restarted
#   stopcont  the same, and SIGCONT as soon as the tracker declared it lost
#             (the seed broadcast's root: its replay must overwrite the seed
#             it draws from the clock)
# Each run ends bit-identical to the fault-free run (native mpirun and
# encore-run agree first), restarts exactly that rank once and says why, the
# survivors resume in epoch 1 and the new incarnation catches up with them;
# every incarnation says (ENCORE_LOG=debug) that world collectives use the
# shared-memory segment, and the caught rank had it mapped.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"
ARGS="--iters 30 --big 2097152 --big-every 1"
REC_ENV="ENCORE_LOG=debug ENCORE_SHM_CHUNK_BYTES=65536"
REC_ENV="$REC_ENV ENCORE_HEARTBEAT_MS=100 ENCORE_HEARTBEAT_TIMEOUT_MS=1500"
SHM_LINE="shm: segment of [0-9]+ bytes mapped; world collectives use it\$"
BIG_DONE="coll: allreduce \\(.*#2097152xdouble\\) finished"
WAIT_S=$((30 * ENC_TIME_SCALE))

# shm_used NAME RESTARTED: every rank said once (RESTARTED: twice) that its
# world collectives use the segment.
shm_used() {
    for _u_r in 0 1 2 3; do
        _u_want=1
        [ "$_u_r" != "$2" ] || _u_want=2
        _u_n=$(enc_count "$ENC_TMP/$1.err" "^encore\\[rank $_u_r\\] $SHM_LINE")
        [ "$_u_n" -eq "$_u_want" ] || {
            rec_show "$1"
            enc_fail "$1: rank $_u_r said $_u_n times (want $_u_want) that collectives use the segment"
        }
    done
}

# start NAME: the job in the background (rec_encore, so ENCORE_LOG and
# REC_ENV as rec_run); sets BG and RUN (encore-run's pid) once rank 0 registered.
start() {
    rm -f "$ENC_TMP/$1.rc"
    enc_shm_snapshot "$1"
    (
        _s_rc=0
        # shellcheck disable=SC2086 # ARGS is a list of words
        rec_encore 4 "$REC_ITER" $ARGS >"$ENC_TMP/$1.raw" 2>"$ENC_TMP/$1.err" || _s_rc=$?
        echo "$_s_rc" >"$ENC_TMP/$1.rc"
    ) &
    BG=$!
    START_MS=$(enc_now_ms)
    enc_wait_lines "$ENC_TMP/$1.err" 'rank 0 incarnation 0 .* registered from' 1 "$WAIT_S" "$1"
    # BG's child is rec_encore's subshell, which runs the bounded encore-run
    RUN=$(enc_bounded_pid "$(pgrep -P "$BG")")
    [ -n "$RUN" ] || enc_fail "$1: encore-run not found under pid $BG"
}

# catch NAME RANK: stops RANK (found with enc_rank_pid) at a moment it is
# inside a 16 MiB allreduce: its last "coll:" line is a bcast (an even seq:
# seq 0 is the seed broadcast, then allreduce 2i+1 and bcast 2i+2) and its
# main thread is in a system call other than write (waiting for its peers,
# not computing its input or writing its log line).  Otherwise it goes on
# for a moment and is tried again (at most 60 times).  Sets CAUGHT (pid) and
# CAUGHT_SEQ (the allreduce's seq); checks the segment is mapped in it.
catch() {
    enc_wait_lines "$ENC_TMP/$1.err" "^encore\\[rank $2\\] $BIG_DONE" 4 "$WAIT_S" "$1"
    CAUGHT=$(enc_rank_pid "$RUN" "$2")
    [ -n "$CAUGHT" ] || enc_fail "$1: rank $2 not found under encore-run $RUN"
    _c_try=0
    while :; do
        _c_try=$((_c_try + 1))
        [ "$_c_try" -le 60 ] || { rec_show "$1"; enc_fail "$1: rank $2 not caught in an allreduce"; }
        kill -STOP "$CAUGHT" || enc_fail "$1: rank $2 (pid $CAUGHT) is gone"
        sleep 0.2 # its last lines reach encore-run and the file
        _c_sys=$(cut -d' ' -f1 "/proc/$CAUGHT/syscall" 2>/dev/null) || _c_sys=gone
        _c_line=$(enc_last_line "$ENC_TMP/$1.err" \
            "^encore\\[rank $2\\] coll: .* (finished|replayed) version [0-9]+, seq [0-9]+,")
        _c_seq=$(echo "$_c_line" | sed -n 's/.*, seq \([0-9]*\),.*/\1/p')
        case $_c_sys in
            -1 | 1 | 20 | running | gone | "") ;; # user space; x86_64 write, writev
            *)
                if [ -n "$_c_seq" ] && [ $((_c_seq % 2)) -eq 0 ]; then
                    CAUGHT_SEQ=$((_c_seq + 1))
                    break
                fi
                ;;
        esac
        kill -CONT "$CAUGHT" || enc_fail "$1: rank $2 (pid $CAUGHT) is gone"
        sleep "0.0$((_c_try % 9 + 1))"
    done
    grep -q '/memfd:encore-shm' "/proc/$CAUGHT/maps" ||
        enc_fail "$1: rank $2 (pid $CAUGHT) has no shared-memory segment mapped"
    enc_log "$1: rank $2 (pid $CAUGHT) stopped in allreduce seq $CAUGHT_SEQ (system call $_c_sys, try $_c_try)"
}

# finish NAME: waits for the job; REC_RC, REC_MS, sorted NAME.out; the caught
# process is gone and nothing new is left in /dev/shm.
finish() {
    wait "$BG" || true
    REC_RC=$(cat "$ENC_TMP/$1.rc") || enc_fail "$1: no exit status"
    REC_MS=$(($(enc_now_ms) - START_MS))
    sort "$ENC_TMP/$1.raw" >"$ENC_TMP/$1.out" || enc_fail "$1: sort failed"
    enc_log "$1: exit $REC_RC after $REC_MS ms"
    enc_wait_gone 10 "$1: the caught rank" "$CAUGHT"
    enc_expect_no_shm_leak "$1" "$1"
}

# recovered NAME RANK: exact result, RANK restarted once (and nobody else),
# the survivors resumed in epoch 1, RANK's new incarnation registered and
# caught up with them, having replayed what they completed: CAUGHT_SEQ
# collectives (they re-ran the interrupted allreduce live in epoch 1), or
# one more when they had finished it (RANK stopped in its last wait, after
# posting its last step).
recovered() {
    rec_ok "$1" big
    _v_spec=""
    for _v_r in 0 1 2 3; do
        if [ "$_v_r" = "$2" ]; then _v_spec="$_v_spec 1"; else _v_spec="$_v_spec 0"; fi
    done
    rec_restarts "$1" "$_v_spec"
    [ "$(rec_count "$1" '\] recover: resumed in epoch 1 after')" -eq 3 ] ||
        { rec_show "$1"; enc_fail "$1: want 3 survivors resumed in epoch 1"; }
    rec_grep "$1" "tracker: rank $2 incarnation 1 \\(pid [0-9]+\\) registered from" \
        "rank $2 was not restarted"
    rec_grep "$1" "^encore\\[rank $2\\] replay: caught up with the survivors at seq" \
        "rank $2 did not catch up"
    rec_expect "$1" "$2" replayed "$CAUGHT_SEQ" $((CAUGHT_SEQ + 1))
    shm_used "$1" "$2"
    rec_within "$1" 30000
}

# -- the fault-free result: native mpirun and encore-run ------------------------
# shellcheck disable=SC2086 # ARGS is a list of words
rec_ref big 4 "$REC_ITER" $ARGS
shm_used big.free none
enc_log "ok fault-free ($REC_MS ms)"

# -- kill: rank 1 SIGKILLed from outside, inside a 16 MiB allreduce -------------
start kill
catch kill 1
kill -KILL "$CAUGHT" || enc_fail "kill: cannot SIGKILL rank 1 (pid $CAUGHT)"
finish kill
recovered kill 1
rec_grep kill "tracker: rank 1 incarnation 0 lost: closed its tracker connection" \
    "the tracker did not see rank 1 go"
rec_grep kill "rank 1 \\(pid $CAUGHT\\) killed by signal 9 \\(Killed\\); restarting it \\(1 of 3\\)" \
    "the SIGKILL of rank 1 was not reported"
enc_log "ok kill ($REC_MS ms)"

# -- stop: rank 0 stopped inside one and left so --------------------------------
start stop
catch stop 0
finish stop
recovered stop 0
rec_grep stop "rank 0 \\(pid $CAUGHT\\) silent for more than 1500 ms; killed; restarting it \\(1 of 3\\)" \
    "the stopped rank 0 was not detected by heartbeat"
enc_log "ok stop ($REC_MS ms)"

# -- stopcont: rank 3 stopped, continued once declared dead ---------------------
start stopcont
catch stopcont 3
enc_wait_lines "$ENC_TMP/stopcont.err" "tracker: rank 3 incarnation 0 lost: silent for more than 1500 ms" \
    1 "$WAIT_S" "stopcont: rank 3 not declared dead"
kill -CONT "$CAUGHT" 2>/dev/null || true # fenced already: gone, or killed while stopped
finish stopcont
recovered stopcont 3
rec_grep stopcont "rank 3 \\(pid $CAUGHT\\) silent for more than 1500 ms; killed; restarting it \\(1 of 3\\)" \
    "the stopped rank 3 was not detected by heartbeat"
enc_log "ok stopcont ($REC_MS ms)"
enc_finish
