#!/bin/sh
# threads_multiple.sh - MPI_THREAD_MULTIPLE.  tests/programs/mt_comms on 3
# ranks: threads "comm-a" and "comm-b" each run collectives on a
# communicator of their own while the main thread runs allreduces on the
# world (three threads in MPI at once), comm-a's nonblocking requests are
# completed by the main thread (MPI_Test, MPI_Wait) and comm-b's by itself;
# then the main thread alone goes on on the world.  Every run must print
# exactly what native mpirun prints:
#   free      fault-free; MPI_Init_thread provides MPI_THREAD_MULTIPLE; no
#             snapshot while the threads run (postponed while one is inside
#             MPI, else skipped with a line naming comm-a or comm-b),
#             snapshots once they have ended
#   threads   rank 1 SIGKILLed at its 150th collective, the three threads in
#             MPI: it re-executes, each communicator replayed from the log
#   two       ranks 1 and 2 SIGKILLed at their 300th and 400th collectives
#   serial    rank 1 SIGKILLed from outside once it parked a snapshot in the
#             main thread's phase alone: restored from it
#   level     ENCORE_THREAD_LEVEL=serialized: the program asking for
#             MPI_THREAD_MULTIPLE is told in one line at start (rank 0) what it
#             gets, and mt_comms stops itself (it needs MULTIPLE)
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

PROG="$ENC_PROGRAMS/mt_comms"
rec_begin "$PROG"
ARGS="--iters 300 --world 200 --serial 200 --count 4096 --work-us 5000"

# shellcheck disable=SC2086 # ARGS is a list of arguments
rec_ref mt 3 "$PROG" $ARGS
grep -q " level 3 " "$ENC_TMP/mt.free.out" || enc_fail "free: MPI_THREAD_MULTIPLE not provided"

REC_ENV="ENCORE_SNAPSHOT_S=0.3"
# -- free: snapshots only once the threads have ended --------------------------------
# shellcheck disable=SC2086
rec_run free 3 "$PROG" $ARGS
rec_ok free mt
# at a world collective comm-a or comm-b is inside MPI (postponed) or not
# (skipped); at one of comm-a's or comm-b's, the main thread is what the copy
# would miss (skipped, naming mt_comms): which comes first depends on where
# the schedule's line falls
rec_grep free "snapshot: snapshot (skipped: thread [0-9]+ 'comm-[ab]' \\(the program's own, started in mt_comms\\) would be missing in the copy|skipped: thread [0-9]+ 'mt_comms' \\(the program's main thread, while MPI is called from another one\\) would be missing in the copy|postponed: another thread of the program is inside MPI)" \
    "free: no line saying why no snapshot is taken while the threads run"
# the world's seq after the dups and the world phase: 3 + 200
rec_grep free "rank [0-9]\\] snapshot: snapshot at seq ([2-9][0-9][0-9]) taken" "free: no snapshot after the threads"
enc_log "ok free"

# -- threads: killed while three threads are in MPI -----------------------------------
# shellcheck disable=SC2086
rec_run threads 3 --inject kill:rank=1:op=150 "$PROG" $ARGS
rec_ok threads mt
rec_restarts threads "0 1 0"
rec_grep threads 'rank 1\] inject: injecting SIGKILL at collective 150' "threads: no kill"
rec_grep threads 'rank 1\] recover: epoch 1: .*this rank 0$' "threads: rank 1 did not re-execute from the start"
enc_log "ok threads"

# -- two: two ranks killed at different points -----------------------------------------
# shellcheck disable=SC2086
rec_run two 3 --inject kill:rank=1:op=300 --inject kill:rank=2:op=400 "$PROG" $ARGS
rec_ok two mt
rec_restarts two "0 1 1"
enc_log "ok two"

# -- serial: restored from a snapshot of the main thread's phase alone ----------------
# shellcheck disable=SC2086
rec_kill_parked serial 3 '(2[5-9][0-9]|3[0-9][0-9])' "$PROG" $ARGS
rec_ok serial mt
rec_restarts serial "0 1 0"
rec_grep serial 'rank 1\] snapshot: restored from the snapshot at seq (2[5-9][0-9]|3[0-9][0-9]) as incarnation 1' \
    "serial: rank 1 not restored from its snapshot"
enc_log "ok serial"

# -- level: more than ENCORE_THREAD_LEVEL allows ---------------------------------------
REC_ENV="ENCORE_THREAD_LEVEL=serialized"
rec_run level 2 "$PROG" --iters 2
[ "$REC_RC" -ne 0 ] || enc_fail "level: mt_comms ran without MPI_THREAD_MULTIPLE"
[ "$(rec_count level '^encore: MPI_Init_thread: ')" -eq 1 ] &&
    rec_grep level "^encore: MPI_Init_thread: the program asks for MPI_THREAD_MULTIPLE \\(3\\); it gets MPI_THREAD_SERIALIZED, the most ENCORE_THREAD_LEVEL allows\$" \
        "level: no line naming the level" || { rec_show level; enc_fail "level: not one line at start"; }
enc_log "ok level"
enc_finish
