#!/bin/sh
# launcher_basic.sh - encore-run with fake ranks (no MPI): exit statuses and
# the one-line reasons, exactly.  Every run is bounded by timeout(1).
# Run from the build directory (make check does), or set ENCORE_BUILDDIR.
B=${ENCORE_BUILDDIR:-.}
RUN="$B/encore-run"
FAKE="$B/tests/programs/fake_rank"
T=${TMPDIR:-/tmp}/launcher_basic.$$
fails=0
trap 'rm -f "$T".*' EXIT

[ -x "$RUN" ] && [ -x "$FAKE" ] || { echo "encore-run or fake_rank not built"; exit 99; }

# check NAME EXPECTED_STATUS EXPECTED_LAST_STDERR_LINE encore-run-args...
check() {
    name=$1 want=$2 line=$3
    shift 3
    timeout 60 "$RUN" "$@" >"$T.out" 2>"$T.err"
    got=$?
    last=$(grep '^encore-run: ' "$T.err" | tail -n 1)
    if [ "$got" -ne "$want" ] || [ "$last" != "$line" ]; then
        echo "FAIL $name: status $got (want $want), line '$last' (want '$line')"
        sed 's/^/    /' "$T.err"
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
}

# Lines naming a pid are checked up to the pid.
check_pid() {
    name=$1 want=$2 pattern=$3
    shift 3
    timeout 60 "$RUN" "$@" >"$T.out" 2>"$T.err"
    got=$?
    last=$(grep '^encore-run: ' "$T.err" | tail -n 1 | sed 's/(pid [0-9]*)/(pid P)/')
    if [ "$got" -ne "$want" ] || [ "$last" != "$pattern" ]; then
        echo "FAIL $name: status $got (want $want), line '$last' (want '$pattern')"
        sed 's/^/    /' "$T.err"
        fails=$((fails + 1))
    else
        echo "ok   $name"
    fi
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
check_pid "kill -9 with --max-restarts 0" 1 \
    "encore-run: rank 2 (pid P) killed by signal 9 (Killed); restart budget (0) spent" \
    -n 3 --max-restarts 0 "$FAKE" rank=2 kill
check "kill -9 once is recovered" 0 "" -n 4 "$FAKE" rank=3 kill-once
grep -q "recovery 1: rank 3 died, epoch 1 resumed after" "$T.err" ||
    { echo "FAIL recovery summary"; sed 's/^/    /' "$T.err"; fails=$((fails + 1)); }
check "fail-all recovers" 0 "" -n 3 --policy fail-all "$FAKE" rank=1 kill-once
ENCORE_HEARTBEAT_MS=50 ENCORE_HEARTBEAT_TIMEOUT_MS=400 check_pid "SIGSTOP is detected" 1 \
    "encore-run: rank 1 (pid P) silent for more than 400 ms; killed; restart budget (0) spent" \
    -n 2 --max-restarts 0 "$FAKE" rank=1 stop
ENCORE_REGISTER_TIMEOUT_MS=1500 check "a rank that never arrives" 1 \
    "encore-run: rank 1 did not register within 1500 ms (epoch 0)" \
    -n 3 "$FAKE" rank=1 hang
check "--timeout" 1 "encore-run: job timed out after 1 s (--timeout); killed all ranks" \
    -n 2 --timeout 1 "$FAKE" sleep=30000
check "plain program without MPI_Init" 0 "" -n 2 sh -c "exit 0"
check "command not found" 127 "encore-run: ./no-such-program: command not found or not executable" \
    -n 2 ./no-such-program
timeout 30 "$RUN" -n 2 --tag-output sh -c 'echo "hi $ENCORE_RANK"' >"$T.out" 2>"$T.err"
if [ "$(sort "$T.out")" != "$(printf '[1,0]<stdout>: hi 0\n[1,1]<stdout>: hi 1')" ]; then
    echo "FAIL --tag-output"; cat "$T.out"; fails=$((fails + 1))
else
    echo "ok   --tag-output"
fi
timeout 30 "$RUN" -n 1 -x FOO=bar -x HOME sh -c \
    'test "$FOO" = bar && test -n "$HOME" && test -z "$OMPI_COMM_WORLD_RANK" && test "$ENCORE_SIZE" = 1 && test "$OMPI_MCA_ess_singleton_isolated" = 1 && test ${#ENCORE_SECRET} = 64' \
    && echo "ok   rank environment" || { echo "FAIL rank environment"; fails=$((fails + 1)); }
[ "$fails" -eq 0 ]
