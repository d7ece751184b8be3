#!/bin/sh
# launcher_ends.sh - the ends of encore-run and of a standalone tracker, with
# real processes and signals.  4 ranks of k-means (long enough to be killed
# while running; a copy under a unique name, so pgrep finds only them), each
# case with a private TMPDIR and a /dev/shm listing before and after:
#   sigkill   SIGKILL of encore-run: every rank sees the tracker connection
#             close, prints one "tracker lost" line and exits (within the
#             heartbeat timeout, ENCORE_HEARTBEAT_TIMEOUT_MS=1000 here)
#   sigterm   SIGTERM to encore-run: forwarded to the ranks; exit status 143
#             and exactly one encore-run line saying so
#   sigint    the same with SIGINT: exit status 130
#   tracker   SIGKILL of a standalone encore-tracker: each of its 3 ranks
#             (started by hand, as in tracker_standalone.sh) exits with status
#             70 and one "tracker lost" line
#   stopinit  SIGSTOP of a rank right after it starts (before it registers,
#             so no heartbeats yet): killed and restarted, exact result
# After each: no process of the program, nothing in TMPDIR, no new unused
# entry in /dev/shm.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_KMEANS"
prog="$ENC_TMP/ends_kmeans"
cp "$REC_KMEANS" "$prog" || enc_fail "cp failed"
long="100000 42 2000 5 4" # runs for minutes: always killed first
export ENCORE_HEARTBEAT_MS=100 ENCORE_HEARTBEAT_TIMEOUT_MS=1000

# start NAME: encore-run -n 4 of the long k-means in the background at info
# level (registrations; the ranks' lines too, -x would change encore-run's
# own level); sets RUN (its pid) and PIDS (the ranks') once all 4 registered
# and each parked a snapshot image (snapshots are on by default: the images,
# encore-run's children, must end with it too).
start() {
    mkdir "$ENC_TMP/$1.tmp" || enc_fail "mkdir failed"
    enc_shm_snapshot "$1"
    # shellcheck disable=SC2086 # long is a list
    TMPDIR="$ENC_TMP/$1.tmp" ENCORE_LOG=info enc_bounded "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n 4 \
        "$prog" $long >"$ENC_TMP/$1.out" 2>"$ENC_TMP/$1.err" &
    BOUND=$!
    enc_wait_lines "$ENC_TMP/$1.err" 'incarnation 0 .* registered from' 4 30 "$1"
    for _r in 0 1 2 3; do
        enc_wait_lines "$ENC_TMP/$1.err" "^encore\[rank $_r\] snapshot: snapshot at seq [0-9]+ taken" \
            1 $((30 * ENC_TIME_SCALE)) "$1: rank $_r's snapshot"
    done
    RUN=$(enc_bounded_pid "$BOUND") && [ -n "$RUN" ] || enc_fail "$1: encore-run not found"
    PIDS=$(pgrep -P "$RUN" | tr '\n' ' ') || enc_fail "$1: ranks not found"
    [ "$(pgrep -f "$prog" | wc -l)" -gt 4 ] || enc_fail "$1: no snapshot image running"
}

# clean NAME: no process of the program, TMPDIR empty, /dev/shm as before.
clean() {
    # shellcheck disable=SC2046 # pids are words
    enc_wait_gone 10 "$1: ranks" $(pgrep -f "$prog" || true)
    enc_expect_empty_dir "$ENC_TMP/$1.tmp" "$1"
    enc_expect_no_shm_leak "$1" "$1"
}

# -- sigkill: encore-run dies; its ranks follow --------------------------------
start sigkill
kill -KILL "$RUN"
# shellcheck disable=SC2086 # PIDS is a list
enc_wait_gone 5 "sigkill: ranks after encore-run's SIGKILL" $PIDS
wait "$BOUND" || true
[ "$(enc_count "$ENC_TMP/sigkill.err" '^encore\[rank [0-3]\] tracker: error: tracker lost: .*; exiting$')" -eq 4 ] ||
    { enc_show "$ENC_TMP/sigkill.err"; enc_fail "sigkill: want one 'tracker lost' line per rank"; }
clean sigkill

# -- sigterm, sigint: forwarded, 128 + signal, one line -------------------------
for sig in TERM INT; do
    name=sig$(echo "$sig" | tr 'A-Z' 'a-z')
    start "$name"
    kill -"$sig" "$RUN"
    rc=0
    wait "$BOUND" || rc=$?
    case $sig in TERM) want=143 ;; INT) want=130 ;; esac
    enc_expect_status "$name" "$want" "$rc"
    [ "$(enc_count "$ENC_TMP/$name.err" '^encore-run: ')" -eq 1 ] &&
        enc_expect_grep "$ENC_TMP/$name.err" \
            "^encore-run: interrupted by signal $((want - 128)) \([A-Za-z]+\); forwarded to the ranks\$" \
            "$name: the one line" ||
        { enc_show "$ENC_TMP/$name.err"; enc_fail "$name: want exactly one encore-run line"; }
    clean "$name"
done

# -- tracker: a standalone encore-tracker killed under its ranks ---------------
mkdir "$ENC_TMP/tracker.tmp" || enc_fail "mkdir failed"
enc_shm_snapshot tracker
TMPDIR="$ENC_TMP/tracker.tmp" ENCORE_LOG=info enc_bounded "$ENC_LIMIT" \
    "$ENC_BUILDDIR/encore-tracker" -n 3 --secret-file "$ENC_TMP/secret" \
    >"$ENC_TMP/tracker.out" 2>"$ENC_TMP/tracker.err" &
tbound=$!
enc_wait_lines "$ENC_TMP/tracker.out" '^ENCORE_TRACKER=' 1 30 "tracker address"
addr=$(sed -n 's/^ENCORE_TRACKER=//p' "$ENC_TMP/tracker.out")
pids=""
for r in 0 1 2; do
    # shellcheck disable=SC2086 # long is a list
    TMPDIR="$ENC_TMP/tracker.tmp" enc_bounded "$ENC_LIMIT" env -u ENCORE_SECRET \
        ENCORE_TRACKER="$addr" ENCORE_SECRET_FILE="$ENC_TMP/secret" ENCORE_RANK=$r \
        ENCORE_SIZE=3 LD_PRELOAD="$ENC_LIBENCORE" "$prog" $long \
        >"$ENC_TMP/trank.$r" 2>"$ENC_TMP/trank.$r.err" &
    pids="$pids $!"
done
enc_wait_lines "$ENC_TMP/tracker.err" 'incarnation 0 .* registered from' 3 30 "tracker"
kill -KILL "$(enc_bounded_pid "$tbound")"
wait "$tbound" || true
r=0
for p in $pids; do
    rc=0
    wait "$p" || rc=$?
    enc_expect_status "trank.$r" 70 "$rc"
    [ "$(enc_count "$ENC_TMP/trank.$r.err" .)" -eq 1 ] &&
        enc_expect_grep "$ENC_TMP/trank.$r.err" \
            "^encore\[rank $r\] tracker: error: tracker lost: .*; exiting\$" "tracker: rank $r" ||
        { enc_show "$ENC_TMP/trank.$r.err"; enc_fail "tracker: rank $r: want exactly one line"; }
    r=$((r + 1))
done
clean tracker

# -- stopinit: SIGSTOP before registering ---------------------------------------
short="300 42 2000 5 4"
# shellcheck disable=SC2086 # short is a list
enc_run_ok ref enc_encore 4 "$prog" $short
mkdir "$ENC_TMP/stopinit.tmp" || enc_fail "mkdir failed"
enc_shm_snapshot stopinit
# shellcheck disable=SC2086 # short is a list
TMPDIR="$ENC_TMP/stopinit.tmp" enc_bounded "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n 4 "$prog" $short \
    >"$ENC_TMP/stopinit.raw" 2>"$ENC_TMP/stopinit.err" &
bound=$!
first=""
for _ in $(seq 1 1000); do
    run=$(enc_bounded_pid "$bound")
    [ -z "$run" ] || first=$(pgrep -P "$run" | head -n 1 || true)
    [ -z "$first" ] || break
    sleep 0.005
done
[ -n "$first" ] || enc_fail "stopinit: no rank started"
kill -STOP "$first"
rc=0
wait "$bound" || rc=$?
enc_expect_status stopinit 0 "$rc"
sort "$ENC_TMP/stopinit.raw" >"$ENC_TMP/stopinit.out" || enc_fail "sort failed"
enc_expect_same "$ENC_TMP/ref.out" "$ENC_TMP/stopinit.out" "stopinit: result"
[ "$(enc_count "$ENC_TMP/stopinit.err" "\(pid $first\) stopped before it registered; killed; restarting it")" -eq 1 ] ||
    { enc_show "$ENC_TMP/stopinit.err"; enc_fail "stopinit: the stopped rank was not restarted once"; }
clean stopinit
enc_pass
