#!/bin/sh
# launcher_basic.sh - encore-run with fake ranks (no MPI): exit statuses and
# the one-line reasons, exactly.  Every run is bounded by timeout(1).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

FAKE="$ENC_PROGRAMS/fake_rank"
enc_require_program "$ENC_ENCORE_RUN"
enc_require_program "$FAKE"
enc_tmpdir

# launch encore-run-args...: encore-run (no --timeout of its own, so that
# the --timeout case is the only one) bounded by ENC_LIMIT seconds; stdout in
# $ENC_TMP/job.raw (sorted: job.out), stderr in job.err, status in ENC_RC.
launch() {
    enc_run job enc_bounded "$ENC_LIMIT" "$ENC_ENCORE_RUN" "$@"
}

# check NAME EXPECTED_STATUS EXPECTED_LAST_LINE encore-run-args...: the exit
# status and encore-run's last "encore-run: " line on stderr, exactly (a pid
# in the line, "(pid N)", is compared as "(pid P)").
check() {
    _k_name=$1 _k_want=$2 _k_line=$3
    shift 3
    launch "$@"
    _k_last=$(enc_last_line "$ENC_TMP/job.err" '^encore-run: ')
    _k_last=$(printf '%s\n' "$_k_last" | sed 's/(pid [0-9]*)/(pid P)/')
    [ "$ENC_RC" -eq "$_k_want" ] || enc_log "$_k_name: exit status $ENC_RC, want $_k_want"
    enc_expect_status job "$_k_want"
    [ "$_k_last" = "$_k_line" ] ||
        { enc_show "$ENC_TMP/job.err"; enc_fail "$_k_name: line '$_k_last', want '$_k_line'"; }
    enc_log "ok   $_k_name"
}

check "all ranks finalize" 0 "" -n 4 "$FAKE"
check "no MPI_Init at all" 0 "" -n 2 "$FAKE" no-init
check "rank exits 3, no restarts" 1 \
    "encore-run: rank 1 exited with status 3 before MPI_Finalize; restart budget (0) spent" \
    -n 3 --max-restarts 0 "$FAKE" rank=1 exit=3
check "rank exits 3 every time" 1 \
    "encore-run: rank 2 exited with status 3 before MPI_Finalize; restart budget (2) spent" \
    -n 3 --max-restarts 2 "$FAKE" rank=2 exit=3
check "MPI_Abort code" 5 \
    "encore-run: rank 1 called MPI_Abort (errorcode 5): fake_rank abort" \
    -n 3 "$FAKE" rank=1 abort=5
check "MPI_Abort code out of range" 1 \
    "encore-run: rank 0 called MPI_Abort (errorcode 300): fake_rank abort" \
    -n 2 "$FAKE" rank=0 abort=300
check "kill -9 with --max-restarts 0" 1 \
    "encore-run: rank 2 (pid P) killed by signal 9 (Killed); restart budget (0) spent" \
    -n 3 --max-restarts 0 "$FAKE" rank=2 kill
check "kill -9 once is recovered" 0 "" -n 4 "$FAKE" rank=3 kill-once
enc_expect_grep "$ENC_TMP/job.err" "recovery 1: rank 3 died, epoch 1 resumed after" \
    "recovery summary"
check "fail-all recovers" 0 "" -n 3 --policy fail-all "$FAKE" rank=1 kill-once
ENCORE_HEARTBEAT_MS=50 ENCORE_HEARTBEAT_TIMEOUT_MS=400 check "SIGSTOP is detected" 1 \
    "encore-run: rank 1 (pid P) silent for more than 400 ms; killed; restart budget (0) spent" \
    -n 2 --max-restarts 0 "$FAKE" rank=1 stop
reg_ms=$((1500 * ENC_TIME_SCALE)) # the others must register in time
ENCORE_REGISTER_TIMEOUT_MS=$reg_ms check "a rank that never arrives" 1 \
    "encore-run: rank 1 did not register within $reg_ms ms (epoch 0)" \
    -n 3 "$FAKE" rank=1 hang
check "--timeout" 1 "encore-run: job timed out after 1 s (--timeout); killed all ranks" \
    -n 2 --timeout 1 "$FAKE" sleep=30000
check "plain program without MPI_Init" 0 "" -n 2 sh -c "exit 0"
check "command not found" 127 "encore-run: ./no-such-program: command not found or not executable" \
    -n 2 ./no-such-program

# --tag-output prefixes each line as mpirun does.
check "--tag-output" 0 "" -n 2 --tag-output sh -c 'echo "hi $ENCORE_RANK"'
printf '[1,0]<stdout>: hi 0\n[1,1]<stdout>: hi 1\n' >"$ENC_TMP/tag.want"
enc_expect_same "$ENC_TMP/tag.want" "$ENC_TMP/job.out" "--tag-output"

# The rank's environment: -x forwards and sets, encore's variables are set,
# Open MPI's rank variables are not.
check "rank environment" 0 "" -n 1 -x FOO=bar -x HOME sh -c \
    'test "$FOO" = bar && test -n "$HOME" && test -z "$OMPI_COMM_WORLD_RANK" && test "$ENCORE_SIZE" = 1 && test "$OMPI_MCA_ess_singleton_isolated" = 1 && test ${#ENCORE_SECRET} = 64'
enc_pass
