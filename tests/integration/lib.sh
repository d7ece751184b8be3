# lib.sh - the one helper library of the integration tests (sourced, POSIX sh).
#
# Every script starts with
#     . "$(dirname "$0")/lib.sh"
# (after setting ENC_LIMIT if it wants another per-job bound).  Every job runs
# under timeout(1); every command's exit status is checked (no status is lost
# in a pipe: outputs go to files under $ENC_TMP first).  A test exits 0
# (pass), 1 (enc_fail) or 77 (enc_skip, with a message).
#
# The automake test environment exports top_builddir, top_srcdir and
# MPI4PY_PYTHON (tests/local.mk) and runs the scripts from the build
# directory; run by hand, set top_builddir to the build directory, e.g.
#     top_builddir=_build sh tests/integration/x.sh
#
# Environment knobs:
#   ENC_MPIRUN          native launcher (default: mpirun on PATH; the Fortran
#                       tests use configure's MPIRUN)
#   ENC_NATIVE_ONLY=1   do not use encore-run: the native run is compared with
#                       a second native run and the test then exits 77 (skip),
#                       for validating a test before encore-run works
#   ENC_TEST_TIMEOUT    seconds one job may take (default ENC_LIMIT, which a
#                       test may set before sourcing this file; else 300,
#                       times ENC_TIME_SCALE)
#   ENC_TIME_SCALE      factor for the bounds of jobs and waits (default 1;
#                       make check in a sanitizer build sets it: instrumented
#                       ranks start and run several times slower)
#   ENC_KEEP_TMP=1      keep the test's temporary directory (its path is logged)
# shellcheck shell=sh disable=SC2034 # variables are for the tests that source this

: "${top_builddir:=.}"
: "${top_srcdir:=$(dirname "$0")/../..}"
ENC_BUILDDIR=$(cd "$top_builddir" && pwd)
ENC_SRCDIR=$(cd "$top_srcdir" && pwd)
ENC_ENCORE_RUN="$ENC_BUILDDIR/encore-run"
ENC_LIBENCORE="$ENC_BUILDDIR/.libs/libencore.so"
ENC_PROGRAMS="$ENC_BUILDDIR/tests/programs"
: "${ENC_MPIRUN:=mpirun}"
: "${ENC_NATIVE_ONLY:=0}"
: "${ENC_KEEP_TMP:=0}"
: "${MPI4PY_PYTHON:=/usr/bin/python3}"
: "${ENC_LIMIT:=300}"
: "${ENC_TIME_SCALE:=1}"
ENC_LIMIT=${ENC_TEST_TIMEOUT:-$((ENC_LIMIT * ENC_TIME_SCALE))}
ENC_TEST_NAME=$(basename "$0" .sh)
ENC_RC=0
ENC_MS=0

# ---- reporting ---------------------------------------------------------------

enc_log() { printf '%s: %s\n' "$ENC_TEST_NAME" "$*" >&2; }
enc_skip() { enc_log "SKIP: $*"; exit 77; }
enc_fail() { enc_log "FAIL: $*"; exit 1; }

# enc_show FILE [LINES]: the last LINES (default 20) lines of FILE on stderr.
enc_show() { tail -n "${2:-20}" "$1" >&2 || true; }

# enc_pass: the test passed (exit 0).
enc_pass() { enc_log "PASS"; exit 0; }

# enc_finish: the end of a test comparing encore-run with native mpirun
# (enc_second): passes, or skips under ENC_NATIVE_ONLY=1.
enc_finish() {
    if [ "$ENC_NATIVE_ONLY" = 1 ]; then
        enc_skip "ENC_NATIVE_ONLY=1: native runs agreed, encore-run not exercised"
    fi
    enc_pass
}

# ---- setup -------------------------------------------------------------------

# enc_tmpdir: a fresh directory removed when the test exits; sets ENC_TMP.
enc_tmpdir() {
    ENC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/encore-$ENC_TEST_NAME.XXXXXX") ||
        enc_fail "cannot make a temporary directory"
    if [ "$ENC_KEEP_TMP" = 1 ]; then
        enc_log "temporary files in $ENC_TMP (kept)"
    else
        # shellcheck disable=SC2064 # expand now: the path is fixed
        trap "rm -rf '$ENC_TMP'" EXIT
    fi
    trap 'exit 130' INT TERM
}

# enc_require_program PATH: fails (not skips) when a program the build makes is missing.
enc_require_program() {
    [ -x "$1" ] || enc_fail "$1 not built (run make check, or make $1)"
}

# enc_require_file PATH: fails when a file the build makes is missing.
enc_require_file() {
    [ -f "$1" ] || enc_fail "$1 not built (run make check)"
}

# enc_require_command CMD WHAT: skips when a tool the test needs is not installed.
enc_require_command() {
    command -v "$1" >/dev/null 2>&1 || enc_skip "$1 not found ($2)"
}

# enc_require_launchers: native mpirun must exist; encore-run and libencore
# too unless ENC_NATIVE_ONLY=1.
enc_require_launchers() {
    command -v "$ENC_MPIRUN" >/dev/null 2>&1 || enc_fail "$ENC_MPIRUN not found (openmpi-bin)"
    if [ "$ENC_NATIVE_ONLY" != 1 ]; then
        [ -x "$ENC_ENCORE_RUN" ] || enc_fail "$ENC_ENCORE_RUN not built"
        [ -f "$ENC_LIBENCORE" ] || enc_fail "$ENC_LIBENCORE not built"
    fi
}

# ---- running (every job bounded) ----------------------------------------------

enc_now_ms() { echo $(($(date +%s%N) / 1000000)); }

# enc_seconds_since T0: whole seconds elapsed since T0 (from date +%s).
enc_seconds_since() { echo $(($(date +%s) - $1)); }

# enc_bounded SECS cmd...: runs cmd, killing it (TERM, then KILL 10 s later)
# when it takes longer; returns cmd's status, or 124 on timeout.
enc_bounded() {
    _b_secs=$1
    shift
    _b_rc=0
    timeout --kill-after=10 "$_b_secs" "$@" || _b_rc=$?
    if [ "$_b_rc" -eq 124 ] || [ "$_b_rc" -eq 137 ]; then
        enc_log "timed out after ${_b_secs}s: $*"
        return 124
    fi
    return "$_b_rc"
}

# enc_mpirun N cmd...: native Open MPI with the variables root needs and
# --oversubscribe (8 ranks on 2 cores), bounded by ENC_LIMIT seconds.  Its
# shared-memory segments (vader) go to $ENC_TMP, not /dev/shm: ranks of a
# SIGKILLed mpirun (the timeout's KILL) never unlink theirs.  encore's own
# ranks are isolated singletons and make none.
enc_mpirun() {
    _m_n=$1
    shift
    enc_bounded "$ENC_LIMIT" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        OMPI_MCA_btl_vader_backing_directory="${ENC_TMP:-/dev/shm}" \
        "$ENC_MPIRUN" -n "$_m_n" --oversubscribe "$@"
}

# enc_encore N [encore-run options] cmd...: encore-run from the build tree,
# bounded by ENC_LIMIT seconds (encore-run's own --timeout a little earlier,
# so that it reports which rank hung).
enc_encore() {
    _e_n=$1
    shift
    enc_bounded "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n "$_e_n" \
        --timeout "$((ENC_LIMIT > 20 ? ENC_LIMIT - 10 : ENC_LIMIT))" "$@"
}

# enc_second N cmd...: the run compared with native: encore-run, or native
# again under ENC_NATIVE_ONLY=1.
enc_second() {
    if [ "$ENC_NATIVE_ONLY" = 1 ]; then
        enc_mpirun "$@"
    else
        enc_encore "$@"
    fi
}

# enc_run NAME cmd...: runs cmd, which bounds itself (enc_mpirun, enc_encore,
# enc_second, enc_bounded SECS ..., or a function built on them);
# stdout goes to $ENC_TMP/NAME.raw and, sorted (ranks print in any order),
# to NAME.out; stderr to NAME.err.  Sets ENC_RC (cmd's exit status) and
# ENC_MS (elapsed milliseconds).  Never fails by itself: check ENC_RC.
enc_run() {
    _r_name=$1
    shift
    _r_t0=$(enc_now_ms)
    ENC_RC=0
    "$@" >"$ENC_TMP/$_r_name.raw" 2>"$ENC_TMP/$_r_name.err" || ENC_RC=$?
    ENC_MS=$(($(enc_now_ms) - _r_t0))
    sort "$ENC_TMP/$_r_name.raw" >"$ENC_TMP/$_r_name.out" || enc_fail "$_r_name: sort failed"
}

# enc_run_ok NAME cmd...: enc_run, and cmd must exit 0.
enc_run_ok() {
    enc_run "$@"
    enc_expect_status "$1" 0
}

# ---- checking ------------------------------------------------------------------

# enc_expect_status NAME WANT [GOT]: the exit status GOT (default ENC_RC) of
# run NAME is exactly WANT; otherwise shows NAME's stderr and fails.
enc_expect_status() {
    _s_got=${3:-$ENC_RC}
    if [ "$_s_got" -ne "$2" ]; then
        [ ! -f "$ENC_TMP/$1.err" ] || enc_show "$ENC_TMP/$1.err" 30
        enc_fail "$1: exit status $_s_got, want $2"
    fi
}

# enc_expect_same A B WHAT: files A and B are byte-identical (diff shown).
enc_expect_same() {
    if ! cmp -s "$1" "$2"; then
        diff "$1" "$2" >"$ENC_TMP/same.diff" 2>&1 || true
        enc_show "$ENC_TMP/same.diff" 20
        enc_fail "$3: $2 differs from $1"
    fi
}

# enc_same_as_native PROG FIRST N...: at each size N, PROG under mpirun and
# under encore-run (enc_second) exits 0 and prints exactly the same lines;
# native's output must hold a line starting with FIRST (so both printing
# nothing does not pass).
enc_same_as_native() {
    _n_prog=$1 _n_first=$2
    shift 2
    _n_name=$(basename "$_n_prog")
    for _n in "$@"; do
        enc_run_ok "$_n_name.native$_n" enc_mpirun "$_n" "$_n_prog"
        enc_expect_grep "$ENC_TMP/$_n_name.native$_n.out" "^$_n_first" "$_n_name -n $_n: no output"
        enc_run_ok "$_n_name.encore$_n" enc_second "$_n" "$_n_prog"
        enc_expect_same "$ENC_TMP/$_n_name.native$_n.out" "$ENC_TMP/$_n_name.encore$_n.out" \
            "$_n_name -n $_n: encore differs from native"
        enc_log "ok $_n_name -n $_n: $(wc -l <"$ENC_TMP/$_n_name.encore$_n.out") lines as native's"
    done
}

# enc_compare_dirs A B WHAT: every file of A equals the same file of B and the
# two hold the same file names; shows the first differences on failure.
enc_compare_dirs() {
    if ! diff -r "$1" "$2" >"$ENC_TMP/diff.out" 2>&1; then
        enc_log "$3: $1 and $2 differ:"
        head -n 40 "$ENC_TMP/diff.out" >&2
        enc_fail "$3: results differ"
    fi
}

# enc_outdir_matches N PROG WHAT: PROG --out-dir DIR (each rank writes its
# result lines to DIR/rank.R) at N ranks under native mpirun and under
# enc_second; both must exit 0 and write the same files, bit for bit.
enc_outdir_matches() {
    _o_n=$1 _o_prog=$2 _o_what=$3
    for _o_side in native encore; do
        mkdir -p "$ENC_TMP/$_o_side.$_o_n"
        _o_rc=0
        if [ "$_o_side" = native ]; then
            enc_mpirun "$_o_n" "$_o_prog" --out-dir "$ENC_TMP/$_o_side.$_o_n" \
                >"$ENC_TMP/$_o_side.$_o_n.log" 2>&1 || _o_rc=$?
        else
            enc_second "$_o_n" "$_o_prog" --out-dir "$ENC_TMP/$_o_side.$_o_n" \
                >"$ENC_TMP/$_o_side.$_o_n.log" 2>&1 || _o_rc=$?
        fi
        if [ "$_o_rc" -ne 0 ]; then
            enc_show "$ENC_TMP/$_o_side.$_o_n.log"
            enc_fail "$_o_side -n $_o_n $_o_what exited with status $_o_rc"
        fi
    done
    enc_compare_dirs "$ENC_TMP/native.$_o_n" "$ENC_TMP/encore.$_o_n" "$_o_what -n $_o_n"
    enc_log "-n $_o_n: $(cat "$ENC_TMP/native.$_o_n/"* | wc -l) result lines identical"
}

# enc_expect_grep FILE PATTERN WHAT: a line of FILE matches PATTERN (grep -E).
enc_expect_grep() {
    grep -qE -e "$2" "$1" || { enc_show "$1" 30; enc_fail "$3 (no line matching '$2' in $1)"; }
}

# enc_expect_no_grep FILE PATTERN WHAT: no line of FILE matches PATTERN.
enc_expect_no_grep() {
    ! grep -qE -e "$2" "$1" || { enc_show "$1" 30; enc_fail "$3 (a line matches '$2' in $1)"; }
}

# enc_count FILE PATTERN: number of lines of FILE matching PATTERN (grep -E).
enc_count() {
    _c_rc=0
    grep -cE -e "$2" "$1" || _c_rc=$?
    [ "$_c_rc" -le 1 ] || enc_fail "grep failed on $1"
}

# enc_last_line FILE PATTERN: the last line of FILE matching PATTERN (awk ERE),
# empty when none does.
enc_last_line() {
    awk -v re="$2" '$0 ~ re { l = $0 } END { print l }' "$1" || enc_fail "awk failed on $1"
}

# enc_file_count DIR: number of regular files under DIR.
enc_file_count() {
    find "$1" -type f >"$ENC_TMP/files.list" || enc_fail "find failed in $1"
    wc -l <"$ENC_TMP/files.list"
}

# enc_exports LIB: the names of the dynamic symbols LIB defines, one a line.
enc_exports() {
    nm -D --defined-only "$1" >"$ENC_TMP/nm.out" || enc_fail "nm failed on $1"
    awk 'NF >= 3 { print $3 }' "$ENC_TMP/nm.out"
}

# enc_expect_exports LIB SYMBOL...: LIB exports every SYMBOL.
enc_expect_exports() {
    _x_lib=$1
    shift
    enc_exports "$_x_lib" >"$ENC_TMP/exports" || exit 1
    for _x_s in "$@"; do
        grep -qx -e "$_x_s" "$ENC_TMP/exports" || enc_fail "$_x_s is not exported by $_x_lib"
    done
}

# ---- recovery jobs (encore-run with ENCORE_LOG=info) --------------------------
# rec_run leaves $ENC_TMP/NAME.out (sorted stdout) and NAME.err and sets
# REC_RC / REC_MS; the other rec_* helpers read those files.

REC_ITER="$ENC_PROGRAMS/recov_iter"
REC_KMEANS="$ENC_BUILDDIR/bench/kmeans"

# rec_begin PROGRAM: PROGRAM and the launchers must be built; makes ENC_TMP.
rec_begin() {
    enc_require_program "$1"
    enc_require_launchers
    enc_tmpdir
}

# rec_encore N args...: enc_encore with ENCORE_LOG=info and REC_ENV (a list
# of VAR=value) exported to it only.  Snapshots are off unless REC_ENV (or
# the caller's environment) sets ENCORE_SNAPSHOT_S: the recovery tests
# assert what re-execution replays; the snapshot_*.sh tests turn them on.
rec_encore() (
    export ENCORE_LOG=info
    export ENCORE_SNAPSHOT_S="${ENCORE_SNAPSHOT_S:-0}"
    # shellcheck disable=SC2086,SC2163 # REC_ENV is a list of assignments
    [ -z "${REC_ENV:-}" ] || export ${REC_ENV}
    enc_encore "$@"
)

# rec_run NAME N encore-run-args...: runs encore-run -n N with ENCORE_LOG=info
# (plus REC_ENV); sets REC_RC and REC_MS.
rec_run() {
    _q_name=$1
    shift
    enc_run "$_q_name" rec_encore "$@"
    REC_RC=$ENC_RC
    REC_MS=$ENC_MS
    enc_log "$_q_name: exit $REC_RC after $REC_MS ms"
}

# rec_start NAME N encore-run-args...: rec_run in the background (its pid
# in REC_JOB); rec_finish NAME waits for it and sets REC_RC.
rec_start() {
    (rec_run "$@"; echo "$REC_RC" >"$ENC_TMP/$1.rc") &
    REC_JOB=$!
}
rec_finish() {
    wait "$REC_JOB" || enc_fail "$1: the background job failed"
    REC_RC=$(cat "$ENC_TMP/$1.rc") || enc_fail "$1: no exit status"
}

# rec_ref NAME N prog args...: the fault-free result, once under native
# mpirun and once under encore-run; both must exit 0 and agree bit for bit.
# Leaves $ENC_TMP/NAME.ref (sorted stdout).
rec_ref() {
    _f_name=$1 _f_n=$2
    shift 2
    enc_run_ok "$_f_name.native" enc_mpirun "$_f_n" "$@"
    cp "$ENC_TMP/$_f_name.native.out" "$ENC_TMP/$_f_name.ref" || enc_fail "cp failed"
    _f_lines=$(wc -l <"$ENC_TMP/$_f_name.ref")
    [ "$_f_lines" -ge "$_f_n" ] ||
        enc_fail "$_f_name: native run printed $_f_lines lines, want >= $_f_n"
    rec_run "$_f_name.free" "$_f_n" "$@"
    enc_expect_status "$_f_name.free" 0 "$REC_RC"
    rec_same "$_f_name.free" "$_f_name"
    [ "$(enc_count "$ENC_TMP/$_f_name.free.err" "restarts [1-9]")" -eq 0 ] ||
        enc_fail "$_f_name: fault-free run restarted a rank"
}

# rec_kill_parked NAME N SEQ_RE encore-run-args...: encore-run -n N (as
# rec_run) in the background; once rank 1 parked a snapshot at a seq matching
# SEQ_RE (grep -E), SIGKILLs rank 1's first incarnation from outside and waits
# for the job: REC_RC, sorted NAME.out.  Fails when the job ends first or no
# such snapshot comes within 60 s (times ENC_TIME_SCALE).
rec_kill_parked() {
    _p_name=$1 _p_n=$2 _p_seq=$3
    shift 3
    rm -f "$ENC_TMP/$_p_name.rc"
    (
        _p_rc=0
        rec_encore "$_p_n" "$@" >"$ENC_TMP/$_p_name.raw" 2>"$ENC_TMP/$_p_name.err" || _p_rc=$?
        echo "$_p_rc" >"$ENC_TMP/$_p_name.rc"
    ) &
    _p_bg=$! _p_i=0
    until grep -qE "rank 1\\] snapshot: snapshot at seq $_p_seq taken" "$ENC_TMP/$_p_name.err" 2>/dev/null; do
        _p_i=$((_p_i + 1))
        [ "$_p_i" -le $((600 * ENC_TIME_SCALE)) ] && [ ! -f "$ENC_TMP/$_p_name.rc" ] ||
            { rec_show "$_p_name"; enc_fail "$_p_name: rank 1 parked no snapshot at seq $_p_seq"; }
        sleep 0.1
    done
    _p_pid=$(sed -n 's/.*rank 1 incarnation 0 (pid \([0-9]*\)) registered.*/\1/p' "$ENC_TMP/$_p_name.err")
    kill -KILL "$_p_pid" || enc_fail "$_p_name: cannot kill rank 1 (pid $_p_pid)"
    enc_log "$_p_name: killed rank 1 (pid $_p_pid)"
    wait "$_p_bg" || true
    REC_RC=$(cat "$ENC_TMP/$_p_name.rc")
    sort "$ENC_TMP/$_p_name.raw" >"$ENC_TMP/$_p_name.out" || enc_fail "sort failed"
}

# rec_show NAME: the run's stderr without the per-collective lines.
rec_show() {
    grep -v -e ' coll: ' -e 'registered from' -e 'passed MPI_Finalize' "$ENC_TMP/$1.err" \
        >"$ENC_TMP/$1.shown" || true
    enc_show "$ENC_TMP/$1.shown" 60
}

# rec_same NAME REF: NAME's sorted stdout equals REF's reference, bit for bit.
rec_same() {
    cmp -s "$ENC_TMP/$2.ref" "$ENC_TMP/$1.out" || rec_show "$1"
    enc_expect_same "$ENC_TMP/$2.ref" "$ENC_TMP/$1.out" "$1: output differs from the fault-free run ($2)"
}

# rec_ok NAME REF: exit 0 and output identical to REF.
rec_ok() {
    [ "$REC_RC" -eq 0 ] || rec_show "$1"
    enc_expect_status "$1" 0 "$REC_RC"
    rec_same "$1" "$2"
}

# rec_fails NAME: exit status exactly 1 (the job ended with one reason, not
# a timeout), no program output, within 15 s.
rec_fails() {
    [ "$REC_RC" -eq 1 ] || rec_show "$1"
    enc_expect_status "$1" 1 "$REC_RC"
    [ ! -s "$ENC_TMP/$1.out" ] || { enc_show "$ENC_TMP/$1.out"; enc_fail "$1: ranks printed results"; }
    rec_within "$1" 15000
}

# rec_summary NAME RANK FIELD: a number from the job summary line of RANK
# ("  rank R restarts X collectives Y replayed Z"); FIELD is restarts,
# collectives or replayed.  Empty when the line is missing.
rec_summary() {
    awk -v r="$2" -v f="$3" '$1 == "rank" && $2 == r && $3 == "restarts" {
        for (i = 3; i < NF; i++) if ($i == f) { print $(i + 1); exit } }' "$ENC_TMP/$1.err" ||
        enc_fail "awk failed on $1.err"
}

# rec_expect NAME RANK FIELD VALUE...: the summary field is one of VALUEs.
rec_expect() {
    _x_name=$1 _x_rank=$2 _x_field=$3
    shift 3
    _x_got=$(rec_summary "$_x_name" "$_x_rank" "$_x_field") || exit 1
    for _x_want in "$@"; do
        [ "$_x_got" = "$_x_want" ] && return 0
    done
    rec_show "$_x_name"
    enc_fail "$_x_name: rank $_x_rank $_x_field is '$_x_got', want $*"
}

# rec_restarts NAME SPEC: exact restarts per rank for ranks 0..N-1; SPEC is
# the list of the N values, e.g. "1 1 0 0".
rec_restarts() {
    _t_name=$1 _t_r=0 _t_total=0
    for _t_want in $2; do
        rec_expect "$_t_name" "$_t_r" restarts "$_t_want"
        _t_r=$((_t_r + 1))
        _t_total=$((_t_total + _t_want))
    done
    grep -q "^encore: job summary: $_t_r ranks, $_t_total restarts," "$ENC_TMP/$_t_name.err" ||
        { rec_show "$_t_name"; enc_fail "$_t_name: summary does not report $_t_total restarts of $_t_r ranks"; }
}

# rec_grep NAME PATTERN WHAT: PATTERN (grep -E) occurs in NAME's stderr.
rec_grep() {
    grep -qE -e "$2" "$ENC_TMP/$1.err" || { rec_show "$1"; enc_fail "$1: $3 (no line matching '$2')"; }
}

# rec_count NAME PATTERN: number of stderr lines matching PATTERN (grep -E).
rec_count() { enc_count "$ENC_TMP/$1.err" "$2"; }

# rec_within NAME MS: the run took at most MS milliseconds (a bound on a
# failure's detection, not a performance assertion).
rec_within() {
    [ "$REC_MS" -le "$2" ] || { rec_show "$1"; enc_fail "$1: took $REC_MS ms, bound $2 ms"; }
}

# ---- Fortran programs ----------------------------------------------------------

# enc_fortran_begin: skips (77) when configure left Fortran out; otherwise
# reads fortran/test.env (MPIFC, ENC_FMODDIR, MPIRUN, FC_MODOUT), uses its
# MPIRUN as the native launcher, checks what the tests need and makes ENC_TMP.
enc_fortran_begin() {
    [ -f "$ENC_BUILDDIR/fortran/test.env" ] ||
        enc_skip "Fortran support was not configured (see configure's 'Fortran' line)"
    . "$ENC_BUILDDIR/fortran/test.env"
    ENC_MPIRUN=$MPIRUN
    enc_require_launchers
    enc_require_file "$ENC_FMODDIR/encore.mod"
    unset ENCORE_TRACKER
    enc_tmpdir
}

# enc_fortran_flags STYLE: compile flags of tests/programs/fortran_coll.F90
# for STYLE mpifh, usempi or f08.  mpif.h has no interfaces: gfortran >= 10
# needs -fallow-argument-mismatch for it.
enc_fortran_flags() {
    case $1 in
        mpifh) echo "-DSTYLE=1 -fallow-argument-mismatch -w" ;;
        usempi) echo "-DSTYLE=2" ;;
        f08) echo "-DSTYLE=3" ;;
        *) enc_fail "unknown Fortran style $1" ;;
    esac
}

# enc_fortran_build_enc OUT SOURCE FLAGS...: OUT.enc, relinked with -lencore
# ahead of Open MPI's libraries.
enc_fortran_build_enc() {
    _fe_out=$1 _fe_src=$2
    shift 2
    # shellcheck disable=SC2086 # FC_MODOUT and MPIFC are words
    $MPIFC "$@" -I"$ENC_FMODDIR" ${FC_MODOUT}"$(dirname "$_fe_out")" -o "$_fe_out.enc" \
        "$_fe_src" -L"$ENC_BUILDDIR/.libs" -lencore -Wl,-rpath,"$ENC_BUILDDIR/.libs" \
        >>"$_fe_out.build.log" 2>&1 ||
        { enc_show "$_fe_out.build.log" 40; enc_fail "cannot relink $_fe_out"; }
}

# enc_fortran_build OUT SOURCE FLAGS...: plain OUT (libencore comes in through
# encore-run's LD_PRELOAD) and relinked OUT.enc.
enc_fortran_build() {
    _fb_out=$1 _fb_src=$2
    shift 2
    # shellcheck disable=SC2086 # FC_MODOUT and MPIFC are words
    $MPIFC "$@" ${FC_MODOUT}"$(dirname "$_fb_out")" -o "$_fb_out" "$_fb_src" \
        >"$_fb_out.build.log" 2>&1 ||
        { enc_show "$_fb_out.build.log" 40; enc_fail "cannot build $_fb_out"; }
    enc_fortran_build_enc "$_fb_out" "$_fb_src" "$@"
}

# ---- leftovers: processes and files that must not outlive a job ---------------

# enc_rank_pid PARENT RANK: the pid of the child of PARENT (an encore-run)
# that runs RANK (ENCORE_RANK in its environment), or nothing.
enc_rank_pid() {
    for _k_p in $(pgrep -P "$1" 2>/dev/null || true); do
        # a parked snapshot image has the rank's environment too
        [ "$(cat "/proc/$_k_p/comm" 2>/dev/null)" != encore-image ] || continue
        if tr '\0' '\n' 2>/dev/null <"/proc/$_k_p/environ" | grep -qx "ENCORE_RANK=$2"; then
            echo "$_k_p"
            return 0
        fi
    done
}

# enc_bounded_pid BOUND: the pid of the program that enc_bounded, run in the
# background as BOUND (a subshell, then timeout), started; empty until then.
enc_bounded_pid() {
    _bp_t=$(pgrep -P "$1" || true)
    [ -z "$_bp_t" ] || pgrep -P "$_bp_t" || true
}

# enc_alive PID: PID exists and is not a zombie.
enc_alive() {
    _a_st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null || true)
    [ -n "$_a_st" ] && [ "$_a_st" != Z ]
}

# enc_wait_gone SECS WHAT PID...: every PID ends (or is a zombie) within SECS
# seconds (a bound on detection); fails naming the ones still alive.
enc_wait_gone() {
    _g_secs=$1 _g_what=$2
    shift 2
    _g_t0=$(enc_now_ms)
    while :; do
        _g_left=""
        for _g_p in "$@"; do
            if enc_alive "$_g_p"; then _g_left="$_g_left $_g_p"; fi
        done
        [ -n "$_g_left" ] || return 0
        [ $(($(enc_now_ms) - _g_t0)) -lt $((_g_secs * 1000)) ] ||
            enc_fail "$_g_what: still running after ${_g_secs} s:$_g_left"
        sleep 0.05
    done
}

# enc_wait_lines FILE PATTERN N SECS WHAT: waits until FILE has N lines
# matching PATTERN (grep -E), at most SECS seconds; FILE may not exist yet.
enc_wait_lines() {
    _w_t0=$(enc_now_ms)
    while [ ! -f "$1" ] || [ "$(enc_count "$1" "$2")" -lt "$3" ]; do
        [ $(($(enc_now_ms) - _w_t0)) -lt $(($4 * 1000)) ] ||
            { enc_show "$1"; enc_fail "$5: fewer than $3 lines matching '$2' after $4 s"; }
        sleep 0.05
    done
}

# enc_signal_at NAME NP RANK SIGNAL PATTERN LINES prog args...: runs prog
# under encore-run on NP ranks (stdout in $ENC_TMP/NAME.raw), sends SIGNAL
# to RANK once stdout has LINES lines matching PATTERN, waits for the end
# and expects status 0.
enc_signal_at() {
    _k_name=$1 _k_np=$2 _k_rank=$3 _k_sig=$4 _k_pat=$5 _k_lines=$6
    shift 6
    enc_encore "$_k_np" "$@" >"$ENC_TMP/$_k_name.raw" 2>"$ENC_TMP/$_k_name.err" &
    _k_bg=$!
    enc_wait_lines "$ENC_TMP/$_k_name.raw" "$_k_pat" "$_k_lines" 60 "$_k_name"
    _k_run=$(enc_bounded_pid "$_k_bg")
    _k_pid=$(enc_rank_pid "$_k_run" "$_k_rank")
    [ -n "$_k_pid" ] || enc_fail "$_k_name: rank $_k_rank not found"
    kill -"$_k_sig" "$_k_pid"
    ENC_RC=0
    wait "$_k_bg" || ENC_RC=$?
    enc_expect_status "$_k_name" 0
}

# enc_shm_snapshot NAME: the entries of /dev/shm now (for enc_expect_no_shm_leak).
enc_shm_snapshot() {
    ls -A /dev/shm >"$ENC_TMP/$1.shm" 2>/dev/null || : >"$ENC_TMP/$1.shm"
}

# enc_expect_no_shm_leak NAME WHAT: every /dev/shm entry that appeared since
# enc_shm_snapshot NAME is mapped or held open by a live process (another
# job's, on a shared machine); one that nobody uses was left behind: fails.
enc_expect_no_shm_leak() {
    ls -A /dev/shm >"$ENC_TMP/$1.shm2" 2>/dev/null || : >"$ENC_TMP/$1.shm2"
    sort "$ENC_TMP/$1.shm" >"$ENC_TMP/$1.shm.a" && sort "$ENC_TMP/$1.shm2" >"$ENC_TMP/$1.shm.b" &&
        comm -13 "$ENC_TMP/$1.shm.a" "$ENC_TMP/$1.shm.b" >"$ENC_TMP/$1.shm.new" ||
        enc_fail "$2: cannot compare /dev/shm listings"
    while read -r _h_f; do
        [ -e "/dev/shm/$_h_f" ] || continue
        # LLVM OpenMP's registration file of any process that loaded libomp
        # and was killed (another job's on a shared machine: the programs
        # these checks watch do not load it); named after a pid, not ours.
        case $_h_f in __KMP_REGISTERED_LIB_*) continue ;; esac
        grep -qsF "/dev/shm/$_h_f" /proc/[0-9]*/maps && continue
        find /proc/[0-9]*/fd -lname "/dev/shm/$_h_f*" 2>/dev/null | grep -q . && continue
        enc_fail "$2: /dev/shm/$_h_f left behind"
    done <"$ENC_TMP/$1.shm.new"
}

# enc_expect_empty_dir DIR WHAT: DIR exists and holds nothing.
enc_expect_empty_dir() {
    find "$1" -mindepth 1 >"$ENC_TMP/left.list" || enc_fail "find failed in $1"
    [ ! -s "$ENC_TMP/left.list" ] || { enc_show "$ENC_TMP/left.list"; enc_fail "$2: files left in $1"; }
}
