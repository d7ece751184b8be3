#!/bin/sh
# p2p_soak.sh - the point-to-point kill soak: P2P_SOAK_TRIALS runs (default
# 100) under encore-run, at most P2P_SOAK_SECONDS (default 3600; no trial
# starts after it), each of a program drawn at random among
#   halo2d   tests/programs/p2p_halo2d (2-D halo exchange, Cartesian grid)
#   farm     tests/programs/p2p_farm (master/worker, ANY_SOURCE/ANY_TAG)
#   stencil  tests/programs/p2p_stencil (1-D halo, Allreduce every step)
#   master   tests/programs/p2p_master (master/worker, results as they come)
# with one random rank SIGKILLed at a random moment of the run (drawn from
# 0 to the time the fault-free encore-run's ranks ran, counted from the
# rank's process appearing; a kill after the job ended is counted as such,
# and the trial still has to be exact).  Every trial must
# exit 0 (or, when the kill landed after the rank's MPI_Finalize, end with
# encore-run's documented "... after MPI_Finalize" line: a rank's exit
# after MPI_Finalize is final, docs/running.md) with the distinct lines of
# the fault-free native mpirun run (a
# restarted rank prints its lines again; p2p_master's lines name the worker
# that did a task, which changes from run to run, so the worker is left
# out of its comparison) and leave no process of the program behind.
#
# Trial I draws from the seed P2P_SOAK_SEED+I-1 (P2P_SOAK_SEED, default 1),
# so a failure is reproduced by its own seed with P2P_SOAK_TRIALS=1; each
# failure prints that command and the encore-run command with the kill.
# Ends with "p2p_soak: P passed, F failed (K killed mid-run, Z after
# MPI_Finalize, S s)"; exit
# status 0 when F is 0.  P2P_SOAK_NP ranks (default 4); each trial bounded
# by P2P_SOAK_TRIAL_LIMIT s (default 60); P2P_SOAK_KEEP=DIR keeps each failed
# trial's stdout and stderr there.  Run from the build directory or set
# top_builddir (tests/integration/soak_p2p_short.sh runs 5 trials).
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/..}"
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=${P2P_SOAK_TRIAL_LIMIT:-60}
# shellcheck source=/dev/null
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/bench/soak_lib.sh"

trials=${P2P_SOAK_TRIALS:-100}
budget=${P2P_SOAK_SECONDS:-3600}
seed=${P2P_SOAK_SEED:-1}
np=${P2P_SOAK_NP:-4}
programs="halo2d farm stencil master"
# shellcheck disable=SC2034 # read through eval
{
    halo2d_args="8000 64 400 400"
    farm_args="1500 40000 100"
    stencil_args="6000 2000"
    master_args="300"
}
for p in p2p_halo2d p2p_farm p2p_stencil p2p_master; do
    enc_require_program "$ENC_PROGRAMS/$p"
done
enc_require_launchers
enc_tmpdir

# canon NAME FILE: FILE's distinct lines as compared (p2p_master's without
# the worker that did each task).
canon() {
    if [ "$1" = master ]; then
        sed 's/ worker [0-9]*//' "$2" | sort -u
    else
        sort -u "$2"
    fi
}

# start NAME ARGS...: encore-run -n np of NAME's copy in the background
# (bounded), stdout to t.raw, stderr to t.err; sets RUN (encore-run's pid,
# empty if it did not start) and TP (the background job).
start() {
    _s_n=$1
    shift
    timeout -k 5 "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n "$np" --timeout "$((ENC_LIMIT - 5))" \
        "$ENC_TMP/$_s_n" "$@" >"$ENC_TMP/t.raw" 2>"$ENC_TMP/t.err" &
    TP=$! RUN=""
    for _ in $(seq 1 500); do
        RUN=$(pgrep -P "$TP" || true)
        [ -z "$RUN" ] || break
        sleep 0.01
    done
}

# calibrate NAME PROG: a copy of PROG in ENC_TMP (so its processes can be
# told from any other job's), the reference (native mpirun) and a fault-free
# encore-run, which must give the reference; NAME_ms is how long its ranks
# ran (from rank 0's process appearing to the job's end).
calibrate() {
    cp "$ENC_PROGRAMS/$2" "$ENC_TMP/$1" || enc_fail "cp $2 failed"
    eval "_args=\$${1}_args"
    # shellcheck disable=SC2154,SC2086 # _args is set by eval, a list
    enc_run_ok "$1.native" enc_mpirun "$np" "$ENC_TMP/$1" $_args
    canon "$1" "$ENC_TMP/$1.native.raw" >"$ENC_TMP/$1.ref" || enc_fail "sort failed"
    # shellcheck disable=SC2086
    start "$1" $_args
    [ -n "$(wait_rank "$RUN" 0 0)" ] || enc_fail "$1: no rank 0 process in the fault-free encore-run"
    _c_t0=$(enc_now_ms)
    ENC_RC=0
    # shellcheck disable=SC2034 # read by enc_expect_status
    wait "$TP" || ENC_RC=$?
    eval "${1}_ms=$(($(enc_now_ms) - _c_t0))"
    cp "$ENC_TMP/t.err" "$ENC_TMP/$1.cal.err" || enc_fail "cp failed"
    enc_expect_status "$1.cal" 0
    canon "$1" "$ENC_TMP/t.raw" >"$ENC_TMP/$1.cal.u" || enc_fail "sort failed"
    enc_expect_same "$ENC_TMP/$1.ref" "$ENC_TMP/$1.cal.u" "$1: fault-free encore-run"
}

# kill_later RANK MS: MS ms after RANK's process of encore-run RUN appears,
# SIGKILLs it; prints "killed", or "late" when the job had ended.
kill_later() {
    _k=$(wait_rank "$RUN" "$1" 0)
    [ -n "$_k" ] && msleep "$2" && kill -KILL "$_k" 2>/dev/null && echo killed || echo late
}

# trial I: one run with one SIGKILL; counts it passed or failed.
trial() {
    _i=$1
    _tseed=$((seed + _i - 1))
    rng=$((_tseed * 2654435761 % 2147483648)) # spreads neighbouring seeds apart
    # shellcheck disable=SC2086 # a list
    set -- $programs
    rand $#
    shift "$R"
    _n=$1
    eval "_args=\$${_n}_args _ms=\$${_n}_ms"
    rand "$np"
    _r=$R
    # shellcheck disable=SC2154 # set by eval
    rand "$_ms"
    _t=$R
    # shellcheck disable=SC2086 # _args is a list
    start "$_n" $_args
    _how=late
    [ -z "$RUN" ] || _how=$(kill_later "$_r" "$_t")
    _rc=0
    wait "$TP" || _rc=$?
    [ "$_how" = late ] || killed=$((killed + 1))
    _why=""
    if [ "$_rc" -eq 124 ] || [ "$_rc" -eq 137 ]; then
        _why="hung (bound ${ENC_LIMIT} s)"
    elif [ "$_rc" -ne 0 ] &&
        ! grep -qE '^encore-run: rank [0-9]+ .* after MPI_Finalize' "$ENC_TMP/t.err"; then
        _why="exit $_rc: $(grep -E '^encore-run: ' "$ENC_TMP/t.err" | tail -n 1 || true)"
    elif ! canon "$_n" "$ENC_TMP/t.raw" | cmp -s - "$ENC_TMP/$_n.ref"; then
        _why="output differs from the fault-free run"
    fi
    _left=$(pgrep -f "$ENC_TMP/$_n" || true)
    if [ -n "$_left" ]; then
        _why="${_why:+$_why; }processes left: $(echo "$_left" | tr '\n' ' ')"
        # shellcheck disable=SC2086 # a list of pids
        kill -KILL $_left 2>/dev/null || true
    fi
    if [ -z "$_why" ]; then
        [ "$_rc" -eq 0 ] || finalized=$((finalized + 1))
        passed=$((passed + 1))
        [ "${P2P_SOAK_VERBOSE:-0}" = 0 ] || echo "ok trial $_i $_n: rank $_r at ${_t} ms ($_how)"
        return 0
    fi
    failed=$((failed + 1))
    echo "FAILED trial $_i $_n: rank $_r SIGKILLed at ${_t} ms ($_how): $_why"
    echo "  reproduce: P2P_SOAK_SEED=$_tseed P2P_SOAK_TRIALS=1 top_builddir=$ENC_BUILDDIR sh $0"
    echo "  the run: $ENC_ENCORE_RUN -n $np $ENC_PROGRAMS/p2p_$_n $_args (rank $_r SIGKILLed at ${_t} ms)"
    if [ -n "${P2P_SOAK_KEEP:-}" ]; then
        cp "$ENC_TMP/t.raw" "$P2P_SOAK_KEEP/trial$_i.out" || enc_fail "cannot keep trial $_i"
        cp "$ENC_TMP/t.err" "$P2P_SOAK_KEEP/trial$_i.err" || enc_fail "cannot keep trial $_i"
    fi
    canon "$_n" "$ENC_TMP/t.raw" | diff "$ENC_TMP/$_n.ref" - | head -n 6 || true
    grep -E '^encore' "$ENC_TMP/t.err" | tail -n 4 || true
}

for p in $programs; do calibrate "$p" "p2p_$p"; done
# shellcheck disable=SC2154 # set by calibrate
echo "p2p_soak: up to $trials trials in $budget s, $np ranks, seed $seed; fault-free encore-run:" \
    "halo2d $halo2d_ms ms, farm $farm_ms ms, stencil $stencil_ms ms, master $master_ms ms"
passed=0 failed=0 killed=0 finalized=0
t0=$(date +%s)
i=1
while [ "$i" -le "$trials" ] && [ "$(enc_seconds_since "$t0")" -lt "$budget" ]; do
    trial "$i"
    i=$((i + 1))
done
echo "p2p_soak: $passed passed, $failed failed ($killed killed mid-run, $finalized after" \
    "MPI_Finalize, $(enc_seconds_since "$t0") s)"
[ "$failed" -eq 0 ]
