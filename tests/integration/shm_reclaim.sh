#!/bin/sh
# shm_reclaim.sh - the host's shared-memory segment (encore-run's
# memfd_create("encore-shm"), inherited by every rank and snapshot image) is
# reclaimed however the job ends.  4 ranks of tests/programs/recov_iter on
# this host, 2 MiB allreduces through the segment (64 KiB chunks), snapshots
# every 0.5 s (parked encore-image processes map the segment too), all in
# one private TMPDIR, every process of the job marked in its environment
# (ENC_RECLAIM_JOB, set on encore-run's command line only).  Once every rank
# finished allreduces and parked a snapshot, the segment's inode is taken
# from encore-run's descriptors and every rank must have it (ENCORE_SHM_FD)
# and map it.  Then:
#   killall   encore-run, its ranks and images (and an agent if there were
#             one: whatever carries the mark) frozen with SIGSTOP until no
#             new one appears, then SIGKILLed by one kill(1); whatever is
#             left in TMPDIR is inside encore-run's job directory
#   normal    the job runs to its end (exit 0, every rank's line); it is also
#             the next job in that TMPDIR, which removes killall's directory
#   fail      --max-restarts 0 and rank 2 SIGKILLed from outside: the job
#             fails (exit 1, one line, no output) and encore-run ends the rest
#   background  tests/programs/spawn_child: every rank system()s a background
#             sleep that outlives the job (it inherits the rank's environment,
#             mark included), then allreduces (exact sums), exit 0.  While the
#             job waits at spawn_child's gate the segment is found as above
#             and each sleep is checked to be a child of its rank.  After the
#             job, every sleep is still alive and holds no encore-shm memfd
#             and no eventfd (a sleep makes none itself: any one is the
#             job's), then the common checks below with the sleeps exempt
#             from "no process carries the mark"; then they are SIGKILLed
#             (10 s bound), and killed too whenever the test exits early.
# After each: no process carries the mark (10 s bound); no process anywhere
# holds the job's segment, by descriptor (/proc/*/fd) or mapping
# (/proc/*/maps), nor a memfd named encore-shm while marked as this job's
# (other jobs' segments, on a shared machine, are only counted); nothing new
# and unused in /dev/shm (this test runs no native mpirun: everything there is
# encore's); after normal and fail, TMPDIR is empty.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"
SPAWN="$ENC_PROGRAMS/spawn_child"
enc_require_program "$SPAWN"
MARK=ENC_RECLAIM_JOB
JOBTMP="$ENC_TMP/jobtmp"
mkdir "$JOBTMP" || enc_fail "mkdir failed"
WAIT_S=$((30 * ENC_TIME_SCALE))

# start NAME ITERS USLEEP [encore-run options]: the job in the background
# (BOUND), ITERS iterations sleeping USLEEP us each; returns once every rank
# finished 3 allreduces and took a snapshot, with RUN (encore-run's pid) and
# INO (the segment's inode) set.
start() {
    _s_name=$1 _s_iters=$2 _s_nap=$3
    shift 3
    enc_shm_snapshot "$_s_name"
    enc_bounded "$ENC_LIMIT" env "$MARK=$ENC_TMP/$_s_name" TMPDIR="$JOBTMP" ENCORE_LOG=info \
        ENCORE_SNAPSHOT_S=0.5 ENCORE_SHM_CHUNK_BYTES=65536 "$ENC_ENCORE_RUN" -n 4 \
        --timeout $((ENC_LIMIT - 10)) "$@" "$REC_ITER" --iters "$_s_iters" --count 262144 \
        --usleep "$_s_nap" >"$ENC_TMP/$_s_name.raw" 2>"$ENC_TMP/$_s_name.err" &
    BOUND=$!
    for _s_r in 0 1 2 3; do
        enc_wait_lines "$ENC_TMP/$_s_name.err" "^encore\\[rank $_s_r\\] coll: allreduce .* finished" \
            3 "$WAIT_S" "$_s_name: rank $_s_r's allreduces"
        enc_wait_lines "$ENC_TMP/$_s_name.err" \
            "^encore\\[rank $_s_r\\] snapshot: snapshot at seq [0-9]+ taken" 1 "$WAIT_S" \
            "$_s_name: rank $_s_r's snapshot"
    done
    RUN=$(enc_bounded_pid "$BOUND")
    [ -n "$RUN" ] || enc_fail "$_s_name: encore-run not found"
    segment "$_s_name"
}

# segment NAME: INO, the inode of the memfd encore-run holds; every rank's
# ENCORE_SHM_FD is that file and the rank maps it.
segment() {
    INO=""
    for _g_f in /proc/"$RUN"/fd/*; do
        case $(readlink "$_g_f" 2>/dev/null || true) in
            /memfd:encore-shm*) INO=$(stat -L -c %i "$_g_f") || enc_fail "$1: stat failed" ;;
        esac
    done
    [ -n "$INO" ] || enc_fail "$1: encore-run (pid $RUN) holds no encore-shm memfd"
    for _g_r in 0 1 2 3; do
        _g_p=$(enc_rank_pid "$RUN" "$_g_r")
        [ -n "$_g_p" ] || enc_fail "$1: rank $_g_r not found"
        tr '\0' '\n' <"/proc/$_g_p/environ" >"$ENC_TMP/rank.env" || enc_fail "$1: environ of $_g_p"
        _g_fd=$(sed -n 's/^ENCORE_SHM_FD=//p' "$ENC_TMP/rank.env")
        _g_i=""
        [ -z "$_g_fd" ] || _g_i=$(stat -L -c %i "/proc/$_g_p/fd/$_g_fd" 2>/dev/null) || true
        [ "$_g_i" = "$INO" ] ||
            enc_fail "$1: rank $_g_r's ENCORE_SHM_FD ('$_g_fd') is not encore-run's segment"
        awk -v i="$INO" '$5 == i && /\/memfd:encore-shm/ { f = 1 } END { exit !f }' \
            "/proc/$_g_p/maps" || enc_fail "$1: rank $_g_r does not map the segment"
    done
    enc_log "$1: segment inode $INO in encore-run (pid $RUN) and its 4 ranks"
}

# job_pids NAME: the live processes carrying job NAME's mark, one a line.
# (grep -l over every environ: status 2 means some process ended meanwhile.)
job_pids() {
    _j_rc=0
    grep -lzxF "$MARK=$ENC_TMP/$1" /proc/[0-9]*/environ >"$ENC_TMP/$1.marked" 2>/dev/null ||
        _j_rc=$?
    [ "$_j_rc" -le 2 ] || enc_fail "$1: grep failed on /proc/*/environ"
    sed 's|^/proc/\([0-9]*\)/environ$|\1|' "$ENC_TMP/$1.marked"
}

# describe PID...: "pid (comm)" of each.
describe() {
    for _d_p in "$@"; do
        printf ' %s (%s)' "$_d_p" "$(cat "/proc/$_d_p/comm" 2>/dev/null || echo gone)"
    done
}

# expect_gone NAME [PID...]: within 10 s no live process carries NAME's
# mark, apart from the PIDs (a job's orphans that are meant to outlive it).
expect_gone() {
    _e_name=$1
    shift
    _e_t0=$(enc_now_ms)
    while :; do
        _e_left=$(job_pids "$_e_name" | tr '\n' ' ') || exit 1
        _e_live=""
        for _e_p in $_e_left; do
            case " $* " in *" $_e_p "*) continue ;; esac
            if enc_alive "$_e_p"; then _e_live="$_e_live $_e_p"; fi
        done
        [ -n "$_e_live" ] || return 0
        # shellcheck disable=SC2086 # a list of pids
        [ $(($(enc_now_ms) - _e_t0)) -lt $((10000 * ENC_TIME_SCALE)) ] ||
            enc_fail "$_e_name: processes of the job left:$(describe $_e_live)"
        sleep 0.1
    done
}

# expect_reclaimed NAME: no process holds the segment INO, by descriptor or
# mapping, and none of the job's holds any encore-shm memfd.  (find and grep
# over /proc: a process ending meanwhile makes them return nonzero.)
expect_reclaimed() {
    find /proc/[0-9]*/fd -lname '/memfd:encore-shm*' >"$ENC_TMP/$1.fds" 2>/dev/null || true
    _x_other=0
    while read -r _x_f; do
        _x_p=${_x_f#/proc/}
        _x_p=${_x_p%%/*}
        _x_i=$(stat -L -c %i "$_x_f" 2>/dev/null) || continue # gone meanwhile
        [ "$_x_i" != "$INO" ] ||
            enc_fail "$1: pid$(describe "$_x_p") still holds the job's segment ($_x_f)"
        ! grep -qzxF "$MARK=$ENC_TMP/$1" "/proc/$_x_p/environ" 2>/dev/null ||
            enc_fail "$1: pid$(describe "$_x_p") of the job still holds an encore-shm memfd"
        _x_other=$((_x_other + 1))
    done <"$ENC_TMP/$1.fds"
    _x_rc=0
    grep -H -F '/memfd:encore-shm' /proc/[0-9]*/maps >"$ENC_TMP/$1.maps" 2>/dev/null || _x_rc=$?
    [ "$_x_rc" -le 2 ] || enc_fail "$1: grep failed on /proc/*/maps"
    awk -v i="$INO" '$5 == i { print; f = 1 } END { exit f }' "$ENC_TMP/$1.maps" >&2 ||
        enc_fail "$1: the job's segment (inode $INO) is still mapped (lines above)"
    [ "$_x_other" -eq 0 ] || enc_log "$1: $_x_other descriptors of other jobs' segments (not ours)"
}

# clean NAME [PID...]: the checks after every job (PIDs: as expect_gone).
clean() {
    expect_gone "$@"
    expect_reclaimed "$1"
    enc_expect_no_shm_leak "$1" "$1"
}

# -- killall: every process of the job SIGKILLed at once ------------------------
start killall 100000 0
ranks=""
for r in 0 1 2 3; do
    p=$(enc_rank_pid "$RUN" "$r")
    [ -n "$p" ] || enc_fail "killall: rank $r not found"
    ranks="$ranks $p"
done
# Frozen first (SIGSTOP, until no new process of the job appears: a rank
# may be forking an image), so that the one SIGKILL reaches all of them.
victims="" tries=0
while :; do
    now=$(job_pids killall | tr '\n' ' ') || exit 1
    [ "$now" != "$victims" ] || break
    tries=$((tries + 1))
    [ "$tries" -le 20 ] || enc_fail "killall: the job's processes keep changing: $now"
    victims=$now
    # shellcheck disable=SC2086 # a list of pids
    kill -STOP $victims 2>/dev/null || true # one may have exited meanwhile
    sleep 0.1
done
# shellcheck disable=SC2086 # a list of pids
who=$(describe $victims)
# shellcheck disable=SC2086 # a list of pids
kill -KILL $victims || enc_fail "killall: kill failed"
enc_log "killall: SIGKILL at once to$who"
for p in "$RUN" $ranks; do
    case " $victims " in
        *" $p "*) ;;
        *) enc_fail "killall: pid $p (encore-run or a rank) is not among the job's marked processes" ;;
    esac
done
images=$(echo "$who" | grep -o '(encore-image)' | wc -l) || enc_fail "killall: grep failed"
[ "$images" -ge 4 ] || enc_fail "killall: want a parked image per rank, found$who"
# shellcheck disable=SC2086 # a list of pids
enc_wait_gone 10 "killall: the SIGKILLed processes" $victims
wait "$BOUND" || true
clean killall
find "$JOBTMP" -mindepth 1 -maxdepth 1 ! -name 'encore-run.*' >"$ENC_TMP/killall.left" ||
    enc_fail "find failed"
[ ! -s "$ENC_TMP/killall.left" ] ||
    { enc_show "$ENC_TMP/killall.left"; enc_fail "killall: TMPDIR holds more than a job directory"; }
enc_log "ok killall ($(enc_file_count "$JOBTMP") files left in the job directory)"

# -- normal: to the end, in the same TMPDIR -------------------------------------
start normal 60 50000
rc=0
wait "$BOUND" || rc=$?
[ "$rc" -eq 0 ] || enc_show "$ENC_TMP/normal.err"
enc_expect_status normal 0 "$rc"
[ "$(enc_count "$ENC_TMP/normal.raw" '^rank [0-3] iters 60 seed ')" -eq 4 ] ||
    { enc_show "$ENC_TMP/normal.raw"; enc_fail "normal: want one result line per rank"; }
clean normal
enc_expect_empty_dir "$JOBTMP" "normal (and killall's job directory)"
enc_log "ok normal"

# -- fail: a rank killed for good ------------------------------------------------
start fail 100000 0 --max-restarts 0
victim=$(enc_rank_pid "$RUN" 2)
[ -n "$victim" ] || enc_fail "fail: rank 2 not found"
kill -KILL "$victim" || enc_fail "fail: cannot kill rank 2"
rc=0
wait "$BOUND" || rc=$?
enc_expect_status fail 1 "$rc"
[ "$(enc_count "$ENC_TMP/fail.err" '^encore-run: ')" -eq 1 ] ||
    { enc_show "$ENC_TMP/fail.err"; enc_fail "fail: want exactly one encore-run line"; }
enc_expect_grep "$ENC_TMP/fail.err" \
    "^encore-run: rank 2 \\(pid $victim\\) killed by signal 9 \\(Killed\\); restart budget \\(0\\) spent\$" \
    "fail: the one line"
[ ! -s "$ENC_TMP/fail.raw" ] || { enc_show "$ENC_TMP/fail.raw"; enc_fail "fail: ranks printed results"; }
clean fail
enc_expect_empty_dir "$JOBTMP" fail
enc_log "ok fail"

# -- background: each rank's background sleep outlives the job -------------------
# children R...: the pids spawn_child's ranks R wrote (their sleeps), one line.
children() {
    _c_all=""
    for _c_r in "$@"; do
        _c_p=$(cat "$ENC_TMP/child.$_c_r") || enc_fail "background: no pid file of rank $_c_r"
        case $_c_p in '' | *[!0-9]*) enc_fail "background: rank $_c_r's pid file holds '$_c_p'" ;; esac
        _c_all="$_c_all${_c_all:+ }$_c_p"
    done
    echo "$_c_all"
}

# expect_child_alive WHEN PID...: every PID is alive and still a sleep (the
# checks on its descriptors mean something only then).
expect_child_alive() {
    _v_when=$1
    shift
    for _v_p in "$@"; do
        if ! enc_alive "$_v_p" || [ "$(cat "/proc/$_v_p/comm" 2>/dev/null)" != sleep ]; then
            enc_fail "background: child$(describe "$_v_p") is not a live sleep $_v_when"
        fi
    done
}

# expect_child_clean PID...: no PID holds an encore-shm memfd or an eventfd
# (all eventfds share one inode: the rank's ENCORE_SHM_* variables, which
# the sleep inherited, say which descriptors were the job's); names every
# such descriptor of each.
expect_child_clean() {
    _k_bad=""
    for _k_p in "$@"; do
        _k_held=""
        for _k_f in /proc/"$_k_p"/fd/*; do
            _k_l=$(readlink "$_k_f" 2>/dev/null) || continue # closed meanwhile
            case $_k_l in
                /memfd:encore-shm*)
                    _k_held="$_k_held${_k_held:+,} fd ${_k_f##*/} -> $_k_l (inode $(stat -L -c %i "$_k_f"))" ;;
                'anon_inode:[eventfd]') _k_held="$_k_held${_k_held:+,} fd ${_k_f##*/} -> $_k_l" ;;
            esac
        done
        [ -n "$_k_held" ] || continue
        _k_env=$(tr '\0' '\n' <"/proc/$_k_p/environ" |
            grep -E '^ENCORE_(RANK|SHM_FD|SHM_EVENTFDS)=' | tr '\n' ' ') || true
        _k_bad="$_k_bad
    pid $_k_p (${_k_env% }):$_k_held"
    done
    [ -z "$_k_bad" ] ||
        enc_fail "background: the ranks' background sleeps hold the job's descriptors (segment inode $INO):$_k_bad"
}

# on_exit: a failing check must not leave the sleeps behind (they would
# hold the segment if the bug is back): the pid files that exist name sleeps
# to kill (they are removed once the sleeps are gone); then what lib.sh's
# trap does.
on_exit() {
    _o_p=$(cat "$ENC_TMP"/child.[0-3] 2>/dev/null) || true
    # shellcheck disable=SC2086 # a list of pids
    [ -z "$_o_p" ] || kill -KILL $_o_p 2>/dev/null || true
    [ "$ENC_KEEP_TMP" = 1 ] || rm -rf "$ENC_TMP"
}
trap on_exit EXIT
enc_shm_snapshot background
enc_bounded "$ENC_LIMIT" env "$MARK=$ENC_TMP/background" TMPDIR="$JOBTMP" ENCORE_LOG=info \
    "$ENC_ENCORE_RUN" -n 4 --timeout $((ENC_LIMIT - 10)) "$SPAWN" --pidfile "$ENC_TMP/child" \
    --sleep $((3 * ENC_LIMIT)) --iters 5 --gate "$ENC_TMP/gate" \
    >"$ENC_TMP/background.raw" 2>"$ENC_TMP/background.err" &
BOUND=$!
for r in 0 1 2 3; do
    enc_wait_lines "$ENC_TMP/child.$r" '^[0-9]+$' 1 "$WAIT_S" "background: rank $r's child pid"
done
CHILDREN=$(children 0 1 2 3)
RUN=$(enc_bounded_pid "$BOUND")
[ -n "$RUN" ] || enc_fail "background: encore-run not found"
segment background
for r in 0 1 2 3; do
    p=$(children "$r")
    tr '\0' '\n' <"/proc/$p/environ" >"$ENC_TMP/child.env" 2>/dev/null ||
        enc_fail "background: rank $r's child (pid $p) ended during the job"
    if ! grep -qx "ENCORE_RANK=$r" "$ENC_TMP/child.env" ||
        ! grep -qxF "$MARK=$ENC_TMP/background" "$ENC_TMP/child.env"; then
        enc_fail "background: pid $p is not rank $r's child (no ENCORE_RANK=$r and mark)"
    fi
done
# shellcheck disable=SC2086 # a list of pids
expect_child_alive "during the job" $CHILDREN
: >"$ENC_TMP/gate" || enc_fail "background: cannot open the gate"
rc=0
wait "$BOUND" || rc=$?
[ "$rc" -eq 0 ] || enc_show "$ENC_TMP/background.err"
enc_expect_status background 0 "$rc"
for r in 0 1 2 3; do
    enc_expect_grep "$ENC_TMP/background.raw" "^rank $r child $(children "$r") iters 5 ok\$" \
        "background: rank $r's result line"
done
# shellcheck disable=SC2086 # a list of pids
expect_child_alive "after the job" $CHILDREN
# shellcheck disable=SC2086 # a list of pids
expect_child_clean $CHILDREN
# shellcheck disable=SC2086 # a list of pids
clean background $CHILDREN
# shellcheck disable=SC2086 # a list of pids
expect_child_alive "after the checks" $CHILDREN
# shellcheck disable=SC2086 # a list of pids
enc_log "background: the sleeps$(describe $CHILDREN) outlived the job, holding none of its descriptors"
# shellcheck disable=SC2086 # a list of pids
kill -KILL $CHILDREN || enc_fail "background: cannot kill the sleeps"
# shellcheck disable=SC2086 # a list of pids
enc_wait_gone 10 "background: the SIGKILLed sleeps" $CHILDREN
rm -f "$ENC_TMP"/child.[0-3] || enc_fail "background: rm failed"
enc_expect_empty_dir "$JOBTMP" background
enc_log "ok background"
enc_pass
