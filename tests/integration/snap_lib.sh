# snap_lib.sh - running a job in the background and acting on it as its
# snapshots park: the helpers of the snapshot tests (sourced after lib.sh,
# POSIX sh).  The caller sets PROG (the program, for snap_none_left) and
# REC_ENV (ENCORE_SNAPSHOT_S=...).  Every wait is bounded by WAIT_S.
# shellcheck shell=sh disable=SC2034 # SNAP_BG, SNAP_SEQ are for the tests that source this

# snap_start NAME N args...: encore-run (ENCORE_LOG=info, REC_ENV) in the background.
snap_start() {
    _s_name=$1
    shift
    rm -f "$ENC_TMP/$_s_name.rc"
    (
        _s_rc=0
        rec_encore "$@" >"$ENC_TMP/$_s_name.raw" 2>"$ENC_TMP/$_s_name.err" || _s_rc=$?
        echo "$_s_rc" >"$ENC_TMP/$_s_name.rc"
    ) &
    SNAP_BG=$!
}

# The waits' bound: 30 s, times ENC_TIME_SCALE (TSan's ranks missed 30 s).
WAIT_S=$((30 * ENC_TIME_SCALE))

# snap_wait NAME PATTERN: until NAME's stderr has a line matching PATTERN (WAIT_S bound).
snap_wait() {
    _w_i=0
    while ! grep -qE -e "$2" "$ENC_TMP/$1.err" 2>/dev/null; do
        _w_i=$((_w_i + 1))
        [ "$_w_i" -le $((WAIT_S * 10)) ] ||
            { rec_show "$1"; enc_fail "$1: no line matching '$2' within $WAIT_S s"; }
        sleep 0.1
    done
}

# snap_wait_count NAME PATTERN N: until N lines of NAME's stderr match (WAIT_S bound).
snap_wait_count() {
    _c_i=0
    while [ "$(rec_count "$1" "$2")" -lt "$3" ]; do
        _c_i=$((_c_i + 1))
        [ "$_c_i" -le $((WAIT_S * 10)) ] ||
            { rec_show "$1"; enc_fail "$1: fewer than $3 lines matching '$2' within $WAIT_S s"; }
        sleep 0.1
    done
}

# snap_pid NAME RANK INC: the pid of incarnation INC of RANK (tracker registration).
snap_pid() {
    snap_wait "$1" "rank $2 incarnation $3 \\(pid [0-9]+\\) registered"
    sed -n "s/.*rank $2 incarnation $3 (pid \\([0-9]*\\)) registered.*/\\1/p" \
        "$ENC_TMP/$1.err" | tail -n 1
}

# snap_kill NAME RANK INC [SEQ_RE]: SIGKILLs that process once it parked a
# snapshot (at a seq matching SEQ_RE, default any).
snap_kill() {
    _k_pid=$(snap_pid "$1" "$2" "$3")
    snap_wait "$1" "rank $2\\] snapshot: snapshot at seq ${4:-[0-9]+} taken \\(pid [0-9]+\\)"
    kill -KILL "$_k_pid" || enc_fail "$1: cannot kill rank $2 (pid $_k_pid)"
    enc_log "$1: killed rank $2 incarnation $3 (pid $_k_pid)"
}

# snap_end NAME: waits for the job; REC_RC, sorted NAME.out; no process left.
snap_end() {
    wait "$SNAP_BG" || true
    REC_RC=$(cat "$ENC_TMP/$1.rc") || enc_fail "$1: no exit status"
    sort "$ENC_TMP/$1.raw" >"$ENC_TMP/$1.out" || enc_fail "sort failed"
    snap_none_left "$1"
}

# snap_none_left NAME: no process of the program is left (10 s bound).
snap_none_left() {
    _n_i=0
    while pgrep -f "$PROG" >"$ENC_TMP/left" 2>/dev/null; do
        _n_i=$((_n_i + 1))
        [ "$_n_i" -le 100 ] || enc_fail "$1: processes left after the job: $(tr '\n' ' ' <"$ENC_TMP/left")"
        sleep 0.1
    done
}

# snap_restored NAME RANK: the restore line of RANK: replay starts at S + 1,
# and RESUME found the rank at S + 1 collectives.
snap_restored() {
    _r_line=$(enc_last_line "$ENC_TMP/$1.err" "rank $2\\] snapshot: restored from the snapshot at seq")
    [ -n "$_r_line" ] || { rec_show "$1"; enc_fail "$1: rank $2 was not restored from a snapshot"; }
    _r_s=$(echo "$_r_line" | sed -n 's/.*at seq \([0-9]*\) as incarnation.*/\1/p')
    echo "$_r_line" | grep -q "replay starts at seq $((_r_s + 1))\$" ||
        enc_fail "$1: replay does not start after the snapshot: $_r_line"
    rec_grep "$1" "rank $2\\] recover: epoch [0-9]+: ranks completed [0-9]+\\.\\.[0-9]+ collectives; this rank $((_r_s + 1))\$" \
        "rank $2 did not resume at seq $((_r_s + 1))"
    SNAP_SEQ=$_r_s
}

# snap_image_copied NAME RANK: MiB of buffers the image RANK was last
# restored from copied at its fork (snapshot/precopy.h), from the image's
# own restore line (the rank that forked it may have died before saying
# "taken"); fails without one.
snap_image_copied() {
    _c_mib=$(enc_last_line "$ENC_TMP/$1.err" "rank $2\\] snapshot: restored from the snapshot at seq" |
        sed -n 's/.* as incarnation [0-9]* (\([0-9.]*\) MiB of buffers copied at its fork).*/\1/p')
    [ -n "$_c_mib" ] || { rec_show "$1"; enc_fail "$1: rank $2 was not restored from a snapshot that says what it copied"; }
    echo "$_c_mib"
}
