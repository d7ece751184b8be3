#!/bin/sh
# hosts_p2p.sh - point-to-point across hosts (network namespaces on a
# private bridge, --rsh "ip netns exec"): tests/programs/p2p_check on 4
# ranks, 2 per host, so every case has pairs on one host and pairs across
# hosts; the sorted output equals native Open MPI's (one host) line for
# line.  Then rank 1 SIGKILLed in the middle (at its 5th collective): it
# restarts on its host and the distinct lines equal native's.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

prog="$ENC_PROGRAMS/p2p_check"
netns_require
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir
netns_create 2
h1=$(netns_name 1) h2=$(netns_name 2)
RSH="ip netns exec"

enc_run_ok native enc_mpirun 4 "$prog"
enc_run_ok two enc_encore 4 --rsh "$RSH" -H "$h1:2,$h2:2" "$prog"
enc_expect_same "$ENC_TMP/native.out" "$ENC_TMP/two.out" "4 ranks on 2 hosts"
enc_log "ok: 4 ranks on 2 hosts (${ENC_MS} ms)"

enc_run_ok killed enc_encore 4 --rsh "$RSH" -H "$h1:2,$h2:2" --inject "kill:rank=1:op=5" "$prog"
enc_expect_grep "$ENC_TMP/killed.err" "restarting it" "killed: rank 1 was not restarted"
sort -u "$ENC_TMP/native.out" >"$ENC_TMP/native.uniq"
sort -u "$ENC_TMP/killed.out" >"$ENC_TMP/killed.uniq"
enc_expect_same "$ENC_TMP/native.uniq" "$ENC_TMP/killed.uniq" "rank 1 killed across hosts"
enc_log "ok: rank 1 killed across hosts, recovered (${ENC_MS} ms)"
enc_finish
