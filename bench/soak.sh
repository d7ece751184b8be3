#!/bin/sh
# soak.sh - the kill soak: SOAK_TRIALS runs (default 1000) under encore-run,
# taking turns: bench/kmeans (Allreduce + Bcast), tests/programs/soak_mix
# (Allreduce, Bcast, Reduce, Allgather(v), Barrier, encore_checkpoint) and
# tests/programs/snap_iter with 2 MiB allreduces and a snapshot every 0.5 s
# (results whose log buffers images leave out and fetch again,
# recovery/log/bufpool.h), each with 1 to 3 faults drawn at random (seeded by
# SOAK_SEED):
#   kill     SIGKILL of a random rank at a random moment of the run
#   stop     SIGSTOP of a random rank at a random moment (found by heartbeats)
#   init     SIGKILL of a rank as soon as its process exists (inside MPI_Init)
#   replay   SIGKILL of a rank, then of its restarted process 0-300 ms after it
#            appears (while it replays)
#   ckpt     --inject kill at a checkpoint's collective (soak_mix; other
#            ranks are already inside it), or right after one
#   finalize --inject kill entering MPI_Finalize's barrier or just after it
# The moments come from a fault-free calibration run of each program
# (its duration; its collectives and checkpoints from ENCORE_LOG=info).
#
# Each trial is bounded (SOAK_TRIAL_LIMIT s, default 60) and ends as one of
#   exact    exit 0 and the output equals the fault-free native mpirun run
#   wrong    exit 0 and the output differs
#   failed   non-zero exit: the explanation is encore-run's last line (e.g.
#            restart budget spent, every replica of a result lost); a
#            failure without such a line is reported as unexplained
#   hung     the bound was reached
# Output is compared as sorted unique lines: a rank killed inside
# MPI_Finalize after printing prints again when it re-runs (the documented
# side effects of a replayed prefix), and duplicates of a correct line are
# not wrong.  After every trial no process of the program may be left
# (counted as leaked) and its private TMPDIR must be empty.
#
# Prints one line per failed, wrong, hung or leaking trial and ends with
#   soak: N trials: exact E, wrong W, failed F (unexplained U), hung H, leaked L
# Exit status 0 when W, H, U and L are 0.  SOAK_NP ranks (default 4);
# SOAK_VERBOSE=1 also prints a line for each exact trial (with its restarts);
# SOAK_KEEP=DIR keeps the stderr of every trial that did not exit 0 there, as
# DIR/trialN.err, so each failure can be read and explained afterwards.
# Run from the build directory or set top_builddir (make bench-soak does).
set -eu
: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/..}"
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=${SOAK_TRIAL_LIMIT:-60}
. "$top_srcdir/tests/integration/lib.sh"
. "$top_srcdir/bench/soak_lib.sh"

trials=${SOAK_TRIALS:-1000}
rng=${SOAK_SEED:-1}
np=${SOAK_NP:-4}
kmeans_args="300 42 2000 5 4"
mix_args="120 10"
big_args="--iters 80 --count 262144 --work-us 20000"
export ENCORE_HEARTBEAT_MS=100 ENCORE_HEARTBEAT_TIMEOUT_MS=1000
enc_require_program "$ENC_BUILDDIR/bench/kmeans"
enc_require_program "$ENC_PROGRAMS/soak_mix"
enc_require_program "$ENC_PROGRAMS/snap_iter"
enc_require_launchers
enc_tmpdir

# one_fault RUNPID KIND RANK MS: one external fault against encore-run RUNPID.
one_fault() {
    case $2 in
        init) _p=$(wait_rank "$1" "$3" 0) ;;
        *) msleep "$4"; _p=$(enc_rank_pid "$1" "$3") ;;
    esac
    [ -n "$_p" ] || return 0
    [ "$2" = stop ] && { kill -STOP "$_p" 2>/dev/null || true; return 0; }
    kill -KILL "$_p" 2>/dev/null || true
    [ "$2" = replay ] || return 0
    _p2=$(wait_rank "$1" "$3" "$_p")
    rand 300
    msleep "$R"
    [ -z "$_p2" ] || kill -KILL "$_p2" 2>/dev/null || true
}

# inject RUNPID PLAN: carries out the external faults of PLAN (words
# kind:rank:ms, each ms counted from the start) at the same time.
inject() {
    for _f in $2; do
        IFS=: read -r _k _r _t <<EOF
$_f
EOF
        one_fault "$1" "$_k" "$_r" "$_t" &
    done
    wait
}

# calibrate NAME PROG ARGS...: the fault-free reference (native mpirun,
# sorted unique lines) and, from one encore-run with ENCORE_LOG=info, the
# run time (NAME_ms), collectives per rank (NAME_ops) and the ordinals of
# its checkpoints (NAME_ckpts).
calibrate() {
    _c=$1
    shift
    cp "$1" "$ENC_TMP/$_c" || enc_fail "cp $1 failed"
    shift
    # shellcheck disable=SC2086 # args are lists
    enc_run_ok "$_c.native" enc_mpirun "$np" "$ENC_TMP/$_c" "$@"
    sort -u "$ENC_TMP/$_c.native.out" >"$ENC_TMP/$_c.ref" || enc_fail "sort failed"
    enc_run_ok "$_c.cal" env ENCORE_LOG=info TMPDIR="$ENC_TMP" \
        "$ENC_ENCORE_RUN" -n "$np" --timeout 60 "$ENC_TMP/$_c" "$@"
    sort -u "$ENC_TMP/$_c.cal.out" >"$ENC_TMP/$_c.cal.u" || enc_fail "sort failed"
    enc_expect_same "$ENC_TMP/$_c.ref" "$ENC_TMP/$_c.cal.u" "$_c: fault-free encore-run"
    grep -F 'encore[rank 0] coll: ' "$ENC_TMP/$_c.cal.err" >"$ENC_TMP/$_c.colls" || true
    eval "${_c}_ms=$ENC_MS ${_c}_ops=$(wc -l <"$ENC_TMP/$_c.colls")"
    eval "${_c}_ckpts=\"$(grep -n ' coll: checkpoint ' "$ENC_TMP/$_c.colls" | cut -d: -f1 | tr '\n' ' ')\""
}

# fault NAME: appends one random fault for program NAME to PLAN (external)
# or INJ (encore-run --inject options), and its label to LABEL.
fault() {
    eval "_ms=\$${1}_ms _ops=\$${1}_ops _ck=\$${1}_ckpts"
    rand "$np"
    _r=$R
    rand 6
    case $R in
        0 | 1 | 3)
            _k=kill
            [ "$R" -eq 1 ] && _k=stop
            [ "$R" -eq 3 ] && _k=replay
            rand "$_ms"
            PLAN="$PLAN $_k:$_r:$R"
            LABEL="$LABEL $_k:r$_r@${R}ms"
            ;;
        2) PLAN="$PLAN init:$_r:0" LABEL="$LABEL init:r$_r" ;;
        4)
            set -- $_ck
            if [ $# -gt 0 ]; then
                rand $#
                shift "$R"
                rand 2
                _op=$(($1 + R))
            else
                rand "$_ops"
                _op=$((R + 1))
            fi
            INJ="$INJ --inject kill:rank=$_r:op=$_op"
            LABEL="$LABEL ckpt:r$_r@op$_op"
            ;;
        5)
            rand 2
            _op=$((_ops + R))
            INJ="$INJ --inject kill:rank=$_r:op=$_op"
            LABEL="$LABEL finalize:r$_r@op$_op"
            ;;
    esac
}

# classify NAME I RC: one trial's verdict into the counters.
classify() {
    _tag="trial $2 $1 [$LABEL ]"
    if [ "$3" -eq 124 ]; then
        hung=$((hung + 1))
        echo "HUNG $_tag"
        enc_show "$ENC_TMP/t.err" 10
    elif [ "$3" -ne 0 ]; then
        failed=$((failed + 1))
        _why=$(grep -E '^encore-run: ' "$ENC_TMP/t.err" | tail -n 1 || true)
        [ -n "$_why" ] || { unexplained=$((unexplained + 1)); _why="(no encore-run line) exit $3"; }
        echo "FAILED $_tag: $_why"
    elif sort -u "$ENC_TMP/t.raw" | cmp -s - "$ENC_TMP/$1.ref"; then
        exact=$((exact + 1))
        [ "${SOAK_VERBOSE:-0}" = 0 ] || echo "exact $_tag:" \
            "$(sed -n 's/^encore: job summary: //p' "$ENC_TMP/t.err")"
    else
        wrong=$((wrong + 1))
        echo "WRONG $_tag"
        sort -u "$ENC_TMP/t.raw" | diff "$ENC_TMP/$1.ref" - | head -n 10 || true
    fi
}

# leftovers NAME I: no process of the program and no file in TMPDIR may
# outlive encore-run; kills and counts them.
leftovers() {
    _left=$(pgrep -f "$ENC_TMP/$1" || true)
    _files=$(find "$ENC_TMP/tmp" -mindepth 1 | head -n 3)
    [ -z "$_left$_files" ] && return 0
    leaked=$((leaked + 1))
    echo "LEAKED trial $2 $1 [$LABEL ]: pids ${_left:-none} files ${_files:-none}" | tr '\n' ' '
    echo
    [ -z "$_left" ] || kill -KILL $_left 2>/dev/null || true
    rm -rf "$ENC_TMP/tmp"
}

# trial I: one run with 1 to 3 faults.
trial() {
    case $(($1 % 3)) in
        0) _n=kmeans _args=$kmeans_args _snap=auto ;;
        1) _n=mix _args=$mix_args _snap=auto ;;
        *) _n=big _args=$big_args _snap=0.5 ;;
    esac
    PLAN="" INJ="" LABEL=""
    rand 3
    for _ in $(seq 0 "$R"); do fault "$_n"; done
    mkdir -p "$ENC_TMP/tmp"
    # shellcheck disable=SC2086 # INJ and _args are lists
    env TMPDIR="$ENC_TMP/tmp" ENCORE_SNAPSHOT_S="$_snap" timeout -k 5 "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n "$np" \
        --max-restarts 5 $INJ "$ENC_TMP/$_n" $_args >"$ENC_TMP/t.raw" 2>"$ENC_TMP/t.err" &
    _tp=$!
    _run=""
    for _ in $(seq 1 500); do
        _run=$(pgrep -P "$_tp" || true)
        [ -z "$_run" ] || break
        sleep 0.01
    done
    _ip=""
    if [ -n "$_run" ] && [ -n "$PLAN" ]; then
        inject "$_run" "$PLAN" &
        _ip=$!
    fi
    _rc=0
    wait "$_tp" || _rc=$?
    if [ -n "$_ip" ]; then # the injector and its fault subshells (not their sleeps)
        pkill -P "$_ip" 2>/dev/null || true
        kill "$_ip" 2>/dev/null || true
        wait "$_ip" 2>/dev/null || true
    fi
    [ "$_rc" -ne 137 ] || _rc=124
    if [ "$_rc" -ne 0 ] && [ -n "${SOAK_KEEP:-}" ]; then
        cp "$ENC_TMP/t.err" "$SOAK_KEEP/trial$1.err"
    fi
    classify "$_n" "$1" "$_rc"
    leftovers "$_n" "$1"
}

calibrate kmeans "$ENC_BUILDDIR/bench/kmeans" $kmeans_args
calibrate mix "$ENC_PROGRAMS/soak_mix" $mix_args
calibrate big "$ENC_PROGRAMS/snap_iter" $big_args
# shellcheck disable=SC2154 # set by calibrate
echo "soak: $trials trials of $np ranks; kmeans ${kmeans_ms} ms, $kmeans_ops collectives;" \
    "soak_mix ${mix_ms} ms, $mix_ops collectives, checkpoints at$(echo " $mix_ckpts" | cut -c1-40)...;" \
    "snap_iter ${big_ms} ms, $big_ops collectives"
exact=0 wrong=0 failed=0 unexplained=0 hung=0 leaked=0
t0=$(date +%s)
i=1
while [ "$i" -le "$trials" ]; do
    trial "$i"
    [ $((i % 50)) -ne 0 ] || echo "soak: $i trials done in $(enc_seconds_since "$t0") s" \
        "(exact $exact, wrong $wrong, failed $failed, hung $hung, leaked $leaked)"
    i=$((i + 1))
done
echo "soak: $trials trials: exact $exact, wrong $wrong, failed $failed (unexplained $unexplained)," \
    "hung $hung, leaked $leaked ($(enc_seconds_since "$t0") s)"
[ "$wrong" -eq 0 ] && [ "$hung" -eq 0 ] && [ "$unexplained" -eq 0 ] && [ "$leaked" -eq 0 ]
