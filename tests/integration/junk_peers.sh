#!/bin/sh
# junk_peers.sh - junk on encore's listening sockets is rejected, the job is
# not disturbed, and the job secret never shows up in its output.
#
# Starts tests/programs/junk_target on 3 ranks under encore-run (allreduce +
# bcast loop with exact checks), waits until every rank finished its first
# collectives, then junk_client.py sends random bytes, a bad-magic header, a
# truncated header, a 4 GiB length, a wrong-secret handshake and a silent
# connection to the tracker and to every rank's encore port, and requires each
# connection to be closed without AUTH_OK.  Then the job is let finish:
# exit 0, rank 0's exact-result line, the tracker's "rejected connection"
# warnings in stderr, and no trace of ENCORE_SECRET in stdout or stderr.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=180
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/junk_target"
py=${JUNK_PYTHON:-/usr/bin/python3}
enc_require_program "$prog"
[ "$ENC_NATIVE_ONLY" != 1 ] || enc_skip "ENC_NATIVE_ONLY=1: this test needs encore-run"
enc_require_launchers
command -v ss >/dev/null 2>&1 || enc_skip "ss (iproute2) not installed"
enc_tmpdir
d="$ENC_TMP/job"
mkdir -p "$d"

# The silent connection is closed after the connect timeout: keep it short.
ENCORE_CONNECT_TIMEOUT_MS=4000
export ENCORE_CONNECT_TIMEOUT_MS
enc_encore 3 -x ENCORE_CONNECT_TIMEOUT_MS "$prog" "$d" 150 \
    >"$ENC_TMP/stdout" 2>"$ENC_TMP/stderr" &
job=$!

# Bounded wait (no fixed sleeps): ready files or the job ending.
i=0
while ! { [ -e "$d/ready.0" ] && [ -e "$d/ready.1" ] && [ -e "$d/ready.2" ]; }; do
    kill -0 "$job" 2>/dev/null || { enc_show "$ENC_TMP/stderr" 40; enc_fail "job ended early"; }
    i=$((i + 1))
    [ "$i" -lt 600 ] || { kill "$job"; enc_fail "ranks not ready within 60 s"; }
    sleep 0.1
done

crc=0
enc_bounded 120 "$py" "$ENC_SRCDIR/tests/integration/junk_client.py" "$d" 15 \
    >"$ENC_TMP/client" 2>&1 || crc=$?
touch "$d/go-on"
jrc=0
wait "$job" || jrc=$?
enc_show "$ENC_TMP/client" 100
[ "$crc" -eq 0 ] || enc_fail "junk_client: an attack was not rejected (status $crc)"
if [ "$jrc" -ne 0 ]; then
    enc_show "$ENC_TMP/stderr"
    enc_fail "the attacked job exited with status $jrc"
fi
grep -q '^junk_target: 3 ranks ok after [0-9]* iterations$' "$ENC_TMP/stdout" ||
    { enc_show "$ENC_TMP/stdout"; enc_fail "missing exact-result line"; }
n=$(enc_count "$ENC_TMP/stderr" 'rejected connection')
[ "$n" -ge 4 ] || enc_fail "expected 'rejected connection' warnings in stderr, found $n"
secret=$(cat "$d/secret") || enc_fail "the ranks wrote no secret file"
[ -n "$secret" ] || enc_fail "ENCORE_SECRET was not set in the ranks"
if grep -qiF "$secret" "$ENC_TMP/stdout" "$ENC_TMP/stderr" "$ENC_TMP/client"; then
    enc_fail "the job secret appears in the job's output"
fi
last=$(tail -n 1 "$ENC_TMP/client")
enc_log "$last; $n rejections logged"
enc_finish
