#!/bin/sh
# hosts_agent.sh - the per-host agent's failure modes, each one line and a
# bounded non-zero exit, never a hang:
#   badrsh    --rsh /bin/false: the agent never comes up
#   noagent   ENCORE_AGENT names a missing program: the rsh fails
#   noprog    the program is missing on one host (hidden by a tmpfs in that
#             host's mount namespace): the line names the host and the cause
#   foreign   a second agent with a wrong secret connects: it is refused
#             (one warning), the job completes with native mpirun's results,
#             and the secret appears on no agent command line
#   runkill   encore-run SIGKILLed while its 3 ranks run under the agents:
#             every process of both hosts (agents, ranks) ends within the
#             heartbeat timeout (1 s here; the agents see encore-run's
#             connection close, SIGKILL their ranks and exit), and the job's
#             TMPDIR (the hosts share this file system) is left empty
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

REC_ITER="$ENC_PROGRAMS/recov_iter"
netns_require
enc_require_command unshare
rec_begin "$REC_ITER"
netns_create 2
h1=$(netns_name 1) h2=$(netns_name 2)
HOSTS="$h1:2,$h2:1"

# -- badrsh, noagent --------------------------------------------------------------
rec_run badrsh 3 --rsh /bin/false -H "$HOSTS" "$REC_ITER" --iters 10
rec_fails badrsh
rec_grep badrsh "^encore-run: the agent for host ($h1|$h2) did not start \(--rsh '/bin/false'\): it exited with status 1$" \
    "no one-line report of the agent that never came up"
REC_ENV="ENCORE_AGENT=/nonexistent/encore-agent"
rec_run noagent 3 --rsh "ip netns exec" -H "$HOSTS" "$REC_ITER" --iters 10
REC_ENV=
rec_fails noagent
rec_grep noagent "^encore-run: the agent for host ($h1|$h2) did not start \(--rsh 'ip netns exec'\): it exited with status [0-9]+$" \
    "no one-line report of the missing agent"

# -- noprog: recov_iter's directory is empty on h2 -----------------------------
cat >"$ENC_TMP/rsh-hide" <<EOS
#!/bin/sh
host=\$1; shift
if [ "\$host" = "$h2" ]; then
    exec unshare -m sh -c 'mount -t tmpfs none "\$0" && exec ip netns exec "\$@"' "$ENC_PROGRAMS" "\$host" "\$@"
fi
exec ip netns exec "\$host" "\$@"
EOS
chmod +x "$ENC_TMP/rsh-hide" || enc_fail "chmod failed"
rec_run noprog 3 --rsh "$ENC_TMP/rsh-hide" -H "$HOSTS" "$REC_ITER" --iters 10
rec_fails noprog
rec_grep noprog "^encore-run: cannot start rank 2 on host $h2: cannot run $REC_ITER: No such file or directory$" \
    "no one-line report naming the host"

# -- foreign: a wrong-secret agent next to the real one ------------------------
cat >"$ENC_TMP/rsh-foreign" <<EOS
#!/bin/sh
host=\$1; shift
printf '%s\n' "\$*" >>"$ENC_TMP/agent-argv"
if [ "\$host" = "$h2" ]; then
    printf '%064d\n' 0 | ip netns exec "\$host" "\$@" 2>>"$ENC_TMP/intruder.err"
fi
exec ip netns exec "\$host" "\$@"
EOS
chmod +x "$ENC_TMP/rsh-foreign" || enc_fail "chmod failed"
rec_ref it3 3 "$REC_ITER" --iters 10
rec_run foreign 3 --rsh "$ENC_TMP/rsh-foreign" -H "$HOSTS" "$REC_ITER" --iters 10
rec_ok foreign it3
rec_grep foreign "rejected connection from $(netns_addr 2):[0-9]+: bad proof \(wrong job secret\?\)" \
    "the foreign agent was not refused"
grep -q "cannot reach encore-run" "$ENC_TMP/intruder.err" ||
    { enc_show "$ENC_TMP/intruder.err"; enc_fail "foreign: the foreign agent did not fail"; }
[ "$(wc -l <"$ENC_TMP/agent-argv")" -eq 2 ] || enc_fail "foreign: not one agent per host"
if grep -qiE '[0-9a-f]{64}' "$ENC_TMP/agent-argv"; then
    enc_fail "foreign: a secret-like string on an agent command line"
fi

# -- runkill: encore-run SIGKILLed under its agents ----------------------------
mkdir "$ENC_TMP/runkill.tmp" || enc_fail "mkdir failed"
enc_shm_snapshot runkill
TMPDIR="$ENC_TMP/runkill.tmp" ENCORE_LOG=info ENCORE_HEARTBEAT_MS=100 \
    ENCORE_HEARTBEAT_TIMEOUT_MS=1000 enc_bounded "$ENC_LIMIT" "$ENC_ENCORE_RUN" -n 3 \
    --rsh "ip netns exec" -H "$HOSTS" "$REC_ITER" --iters 100000 --usleep 20000 \
    >"$ENC_TMP/runkill.out" 2>"$ENC_TMP/runkill.err" &
bound=$!
enc_wait_lines "$ENC_TMP/runkill.err" 'incarnation 0 .* registered from' 3 \
    $((30 * ENC_TIME_SCALE)) runkill
run=$(enc_bounded_pid "$bound")
[ -n "$run" ] || enc_fail "runkill: encore-run not found"
hostpids=$(ip netns pids "$h1"; ip netns pids "$h2")
[ "$(echo "$hostpids" | wc -w)" -ge 5 ] || enc_fail "runkill: want 2 agents and 3 ranks, got: $hostpids"
kill -KILL "$run"
wait "$bound" || true
# shellcheck disable=SC2086 # one pid per word
enc_wait_gone $((5 * ENC_TIME_SCALE)) "runkill: agents and ranks after encore-run's SIGKILL" $hostpids
enc_expect_empty_dir "$ENC_TMP/runkill.tmp" runkill
enc_expect_no_shm_leak runkill runkill

enc_pass
