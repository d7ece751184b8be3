#!/bin/sh
# tracker_standalone.sh - ranks started by another launcher join a
# standalone encore-tracker: encore-tracker -n 3 writes the
# job secret to a file and prints its address; three ranks of
# tests/programs/passthrough_prog are started by hand with ENCORE_TRACKER,
# ENCORE_SECRET_FILE, ENCORE_RANK, ENCORE_SIZE and LD_PRELOAD; their output
# must equal the same program under native mpirun, and the tracker must
# exit 0 once all of them finalized.  Tracker and ranks share a private
# TMPDIR (each rank makes its own directory there for Open MPI's session
# files): it is empty at the end.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/passthrough_prog"
tracker="$ENC_BUILDDIR/encore-tracker"
lib="$ENC_LIBENCORE"
enc_require_program "$prog"
enc_require_program "$tracker"
enc_require_launchers
enc_tmpdir

mkdir -p "$ENC_TMP/native" "$ENC_TMP/encore" "$ENC_TMP/jobs.tmp"
enc_run_ok native enc_mpirun 3 "$prog"
cp "$ENC_TMP/native.out" "$ENC_TMP/native/out" || enc_fail "cp failed"

TMPDIR="$ENC_TMP/jobs.tmp" enc_bounded "$ENC_LIMIT" "$tracker" -n 3 --secret-file "$ENC_TMP/secret" \
    >"$ENC_TMP/tracker.out" 2>"$ENC_TMP/tracker.err" &
tpid=$!
addr=""
for _ in $(seq 1 100); do # the address line appears once it listens
    addr=$(sed -n 's/^ENCORE_TRACKER=//p' "$ENC_TMP/tracker.out")
    [ -n "$addr" ] && [ -s "$ENC_TMP/secret" ] && break
    sleep 0.1
done
[ -n "$addr" ] || { enc_show "$ENC_TMP/tracker.err"; enc_fail "encore-tracker printed no address"; }
mode=$(stat -c %a "$ENC_TMP/secret")
[ "$mode" = 600 ] || enc_fail "secret file is mode $mode, want 0600"

pids=""
for r in 0 1 2; do
    TMPDIR="$ENC_TMP/jobs.tmp" enc_bounded "$ENC_LIMIT" env -u ENCORE_SECRET ENCORE_TRACKER="$addr" \
        ENCORE_SECRET_FILE="$ENC_TMP/secret" ENCORE_RANK=$r ENCORE_SIZE=3 LD_PRELOAD="$lib" \
        OMPI_MCA_ess_singleton_isolated=1 "$prog" >"$ENC_TMP/rank.$r" 2>"$ENC_TMP/rank.$r.err" &
    pids="$pids $!"
done
for p in $pids; do
    prc=0
    wait "$p" || prc=$?
    [ "$prc" -eq 0 ] || { cat "$ENC_TMP"/rank.*.err >&2; enc_fail "a rank exited with status $prc"; }
done
trc=0
wait "$tpid" || trc=$?
[ "$trc" -eq 0 ] || { enc_show "$ENC_TMP/tracker.err"; enc_fail "encore-tracker exited with status $trc"; }
grep -q "libencore loaded" "$ENC_TMP/rank.0.err" || enc_fail "libencore was not loaded"
sort "$ENC_TMP"/rank.0 "$ENC_TMP"/rank.1 "$ENC_TMP"/rank.2 >"$ENC_TMP/encore/out" ||
    enc_fail "sort failed"
enc_compare_dirs "$ENC_TMP/native" "$ENC_TMP/encore" "standalone tracker: output differs from native"
enc_expect_empty_dir "$ENC_TMP/jobs.tmp" "standalone tracker"
enc_log "ok: 3 ranks joined a standalone tracker at $addr"
enc_pass
