# recovery_lib.sh - helpers of the recovery tests (tests/integration/recovery_*.sh),
# sourced after lib.sh (which sets ENC_TMP, ENC_PROGRAMS, enc_mpirun, ...).
#
# Every job runs under timeout(1) (enc_run_with_timeout, ENC_LIMIT seconds),
# with ENCORE_LOG=info so the recovery events can be checked; stdout is kept
# sorted (ranks print in any order), stderr as is.
# shellcheck shell=sh disable=SC2034 # REC_* are read by the tests

REC_ITER="$ENC_PROGRAMS/recov_iter"
REC_KMEANS="$ENC_BUILDDIR/bench/kmeans"

# rec_begin PROGRAM: skip unless PROGRAM and the launchers are built; make
# the test's temporary directory.
rec_begin() {
    enc_require_program "$1"
    enc_require_launchers
    enc_tmpdir
}
rec_now_ms() { echo $(($(date +%s%N) / 1000000)); }

# rec_ref NAME N prog args...: the fault-free result, once under native
# mpirun and once under encore-run; both must agree bit for bit.  Leaves
# $ENC_TMP/NAME.ref (sorted stdout).
rec_ref() {
    _rname=$1 _rn=$2
    shift 2
    enc_mpirun "$_rn" "$@" >"$ENC_TMP/$_rname.native" 2>"$ENC_TMP/$_rname.native.err" ||
        { tail -n 20 "$ENC_TMP/$_rname.native.err" >&2; enc_fail "$_rname: native mpirun failed"; }
    sort "$ENC_TMP/$_rname.native" >"$ENC_TMP/$_rname.ref"
    [ "$(wc -l <"$ENC_TMP/$_rname.ref")" -ge "$_rn" ] ||
        enc_fail "$_rname: native run printed $(wc -l <"$ENC_TMP/$_rname.ref") lines, want >= $_rn"
    rec_run "$_rname.free" "$_rn" "$@"
    [ "$REC_RC" -eq 0 ] || { tail -n 30 "$ENC_TMP/$_rname.free.err" >&2; enc_fail "$_rname: fault-free encore-run exited $REC_RC"; }
    rec_same "$_rname.free" "$_rname"
    grep -q "restarts [1-9]" "$ENC_TMP/$_rname.free.err" &&
        enc_fail "$_rname: fault-free run restarted a rank"
    return 0
}

# rec_run NAME N encore-run-args...: runs encore-run -n N with ENCORE_LOG=info
# (plus REC_ENV, a list of VAR=value); sets REC_RC and REC_MS (elapsed
# milliseconds); leaves $ENC_TMP/NAME.out (sorted stdout) and NAME.err.
rec_run() {
    _qname=$1
    shift
    _t0=$(rec_now_ms)
    REC_RC=0
    # shellcheck disable=SC2086 # REC_ENV is a list of assignments
    (
        export ENCORE_LOG=info
        [ -z "${REC_ENV:-}" ] || export ${REC_ENV}
        enc_encore "$@"
    ) >"$ENC_TMP/$_qname.raw" 2>"$ENC_TMP/$_qname.err" || REC_RC=$?
    REC_MS=$(($(rec_now_ms) - _t0))
    sort "$ENC_TMP/$_qname.raw" >"$ENC_TMP/$_qname.out"
    enc_log "$_qname: exit $REC_RC after $REC_MS ms"
}

# rec_show NAME: the run's stderr without the per-collective lines.
rec_show() {
    grep -v -e ' coll: ' -e 'registered from' -e 'passed MPI_Finalize' "$ENC_TMP/$1.err" |
        tail -n 60 >&2
}

# rec_same NAME REF: NAME's sorted stdout equals REF's reference, bit for bit.
rec_same() {
    if ! cmp -s "$ENC_TMP/$2.ref" "$ENC_TMP/$1.out"; then
        diff "$ENC_TMP/$2.ref" "$ENC_TMP/$1.out" | head -n 20 >&2
        rec_show "$1"
        enc_fail "$1: output differs from the fault-free run ($2)"
    fi
}

# rec_ok NAME REF: exit 0 and output identical to REF.
rec_ok() {
    [ "$REC_RC" -eq 0 ] || { rec_show "$1"; enc_fail "$1: encore-run exited $REC_RC, want 0"; }
    rec_same "$1" "$2"
}

# rec_summary NAME RANK FIELD: a number from the job summary line of RANK
# ("  rank R restarts X collectives Y replayed Z"); FIELD is restarts,
# collectives or replayed.  Empty when the line is missing.
rec_summary() {
    awk -v r="$2" -v f="$3" '$1 == "rank" && $2 == r && $3 == "restarts" {
        for (i = 3; i < NF; i++) if ($i == f) { print $(i + 1); exit } }' "$ENC_TMP/$1.err"
}

# rec_expect NAME RANK FIELD VALUE...: the summary field is one of VALUEs.
rec_expect() {
    _ename=$1 _erank=$2 _efield=$3
    shift 3
    _egot=$(rec_summary "$_ename" "$_erank" "$_efield")
    for _ewant in "$@"; do
        [ "$_egot" = "$_ewant" ] && return 0
    done
    rec_show "$_ename"
    enc_fail "$_ename: rank $_erank $_efield is '$_egot', want $*"
}

# rec_restarts NAME SPEC: exact restarts per rank for ranks 0..N-1; SPEC is
# the list of the N values, e.g. "1 1 0 0".
rec_restarts() {
    _name=$1 _r=0
    for _want in $2; do
        rec_expect "$_name" "$_r" restarts "$_want"
        _r=$((_r + 1))
    done
    _total=0
    for _want in $2; do _total=$((_total + _want)); done
    grep -q "^encore: job summary: $_r ranks, $_total restarts," "$ENC_TMP/$_name.err" ||
        { rec_show "$_name"; enc_fail "$_name: summary does not report $_total restarts of $_r ranks"; }
}

# rec_grep NAME PATTERN WHAT: PATTERN (grep -E) occurs in NAME's stderr.
rec_grep() {
    grep -qE -e "$2" "$ENC_TMP/$1.err" || { rec_show "$1"; enc_fail "$1: $3 (no line matching '$2')"; }
}

# rec_count NAME PATTERN: number of stderr lines matching PATTERN (grep -E).
rec_count() { grep -cE -e "$2" "$ENC_TMP/$1.err" || true; }

# rec_within NAME MS: the run took at most MS milliseconds.
rec_within() {
    [ "$REC_MS" -le "$2" ] || { rec_show "$1"; enc_fail "$1: took $REC_MS ms, bound $2 ms"; }
}
