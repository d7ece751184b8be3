# lib.sh - shared helpers of the integration tests (sourced, POSIX sh).
#
# The automake test environment exports top_builddir, top_srcdir and
# MPI4PY_PYTHON (tests/local.mk); run by hand, set top_builddir to the build
# directory, e.g.  top_builddir=/tmp/b top_srcdir=. sh tests/integration/x.sh
#
# Environment knobs:
#   ENC_MPIRUN          native launcher (default: mpirun on PATH)
#   ENC_NATIVE_ONLY=1   do not use encore-run: the native run is compared with
#                       a second native run and the test then exits 77 (skip),
#                       for validating a test before encore-run works
#   ENC_TEST_TIMEOUT    seconds one job may take (default ENC_LIMIT, which a
#                       test may set before sourcing this file; else 300)
# shellcheck shell=sh disable=SC2034 # variables are for the tests that source this

: "${top_builddir:=.}"
: "${top_srcdir:=.}"
ENC_BUILDDIR=$(cd "$top_builddir" && pwd)
ENC_SRCDIR=$(cd "$top_srcdir" && pwd)
ENC_ENCORE_RUN="$ENC_BUILDDIR/encore-run"
ENC_PROGRAMS="$ENC_BUILDDIR/tests/programs"
: "${ENC_MPIRUN:=mpirun}"
: "${ENC_NATIVE_ONLY:=0}"
: "${MPI4PY_PYTHON:=/usr/bin/python3}"
: "${ENC_LIMIT:=300}"
ENC_LIMIT=${ENC_TEST_TIMEOUT:-$ENC_LIMIT}
ENC_TEST_NAME=$(basename "$0" .sh)

enc_log() { printf '%s: %s\n' "$ENC_TEST_NAME" "$*" >&2; }
enc_skip() { enc_log "SKIP: $*"; exit 77; }
enc_fail() { enc_log "FAIL: $*"; exit 1; }

# enc_tmpdir: a fresh directory removed when the test exits; sets ENC_TMP.
enc_tmpdir() {
    ENC_TMP=$(mktemp -d "${TMPDIR:-/tmp}/encore-$ENC_TEST_NAME.XXXXXX")
    # shellcheck disable=SC2064 # expand now: the path is fixed
    trap "rm -rf '$ENC_TMP'" EXIT
    trap 'exit 130' INT TERM
}

# enc_run_with_timeout SECS cmd...: runs cmd, killing its process group
# (TERM, then KILL 10 s later) when it takes longer; status 124 on timeout.
enc_run_with_timeout() {
    _secs=$1
    shift
    _rc=0
    timeout --kill-after=10 "$_secs" "$@" || _rc=$?
    if [ "$_rc" -eq 124 ] || [ "$_rc" -eq 137 ]; then
        enc_log "timed out after ${_secs}s: $*"
        return 124
    fi
    return "$_rc"
}

# enc_mpirun N cmd...: native Open MPI with the flags root and
# oversubscription (8 ranks on 2 cores) need, bounded by ENC_LIMIT seconds.
enc_mpirun() {
    _n=$1
    shift
    enc_run_with_timeout "$ENC_LIMIT" env OMPI_ALLOW_RUN_AS_ROOT=1 \
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$ENC_MPIRUN" -n "$_n" --oversubscribe "$@"
}

# enc_encore N cmd...: encore-run from the build tree, bounded by ENC_LIMIT
# seconds (encore-run's own --timeout a little earlier, so it reports).
enc_encore() {
    _n=$1
    shift
    enc_run_with_timeout "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n "$_n" \
        --timeout "$((ENC_LIMIT > 20 ? ENC_LIMIT - 10 : ENC_LIMIT))" "$@"
}

# enc_require_program PATH: fails (not skips) when a test program was not built.
enc_require_program() {
    [ -x "$1" ] || enc_fail "$1 not built (run make check, or make $1)"
}

# enc_require_launchers: native mpirun must exist; encore-run too unless
# ENC_NATIVE_ONLY=1.
enc_require_launchers() {
    command -v "$ENC_MPIRUN" >/dev/null 2>&1 || enc_fail "$ENC_MPIRUN not found (openmpi-bin)"
    if [ "$ENC_NATIVE_ONLY" != 1 ]; then
        [ -x "$ENC_ENCORE_RUN" ] || enc_fail "$ENC_ENCORE_RUN not built"
    fi
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

# enc_compare_dirs A B WHAT: every file of A equals the same file of B and the
# two hold the same file names; shows the first differences on failure.
enc_compare_dirs() {
    if ! diff -r "$1" "$2" >"$ENC_TMP/diff.out" 2>&1; then
        enc_log "$3: native ($1) and encore ($2) differ:"
        head -n 40 "$ENC_TMP/diff.out" >&2
        return 1
    fi
}

# enc_seconds_since T0: whole seconds elapsed since T0 (from date +%s).
enc_seconds_since() { echo $(($(date +%s) - $1)); }

# enc_finish: exit status at the end of a comparing test.
enc_finish() {
    if [ "$ENC_NATIVE_ONLY" = 1 ]; then
        enc_skip "ENC_NATIVE_ONLY=1: native runs agreed, encore-run not exercised"
    fi
    enc_log "PASS"
    exit 0
}
