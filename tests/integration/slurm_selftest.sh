#!/bin/sh
# slurm_selftest.sh - slurm_lib.sh itself, and the Slurm behaviour encore-run
# relies on: a 3-node allocation made with salloc --no-kill, the
# environment encore-run reads, one agent-like task per node in its own
# namespace, a second step beside it (--overlap), and the loss of a node:
# the allocation and (with srun --no-kill) the running step survive, and a
# new step starts on the remaining nodes.  Every command is bounded.
: "${top_srcdir:=.}"
. "$top_srcdir/tests/integration/slurm_lib.sh"

slurm_require
slurm_start 3
D=$SLURM_DIR/test
mkdir "$D"
fails=0
expect() { # expect WHAT GOT WANT
    if [ "$2" = "$3" ]; then echo "ok   $1"; else
        printf 'FAIL %s\n  got:  %s\n  want: %s\n' "$1" "$2" "$3"
        fails=$((fails + 1))
    fi
}
# wait_file PATH SECS: bounded wait for a handshake file
wait_file() { slurm_until "$2" "$1" test -e "$1"; }
# sleeps NODE: how many sleep processes run in the node's namespace
sleeps() {
    for _p in $(ip netns pids "$(slurm_node "$1")"); do ps -o comm= -p "$_p"; done |
        grep -c '^sleep$'
}
all_nodes_sleep() { [ "$(sleeps 1)$(sleeps 2)$(sleeps 3)" = 111 ]; }
h1=$(slurm_node 1) h2=$(slurm_node 2) h3=$(slurm_node 3)
addr() { echo "$(slurm_node "$1") $(($1 - 1)) $(netns_addr "$1")/24"; }

expect "3 idle nodes" "$(sinfo -h -N -o '%N %T' | sort | tr '\n' ' ')" \
    "$h1 idle $h2 idle $h3 idle "

# The job: runs in the root namespace, as encore-run will; each step's output
# and the handshakes with this shell go to files in $D.
cat >"$D/job.sh" <<'EOF'
D=$1
wait_file() { i=0; while [ ! -e "$1" ] && [ $i -lt 600 ]; do sleep 0.2; i=$((i + 1)); done; }
echo "$SLURM_JOB_ID" >"$D/jobid"
for v in SLURM_JOB_NODELIST SLURM_TASKS_PER_NODE SLURM_JOB_NUM_NODES; do
    eval "echo $v=\$$v"
done >"$D/env"
timeout 30 srun -N3 -n3 --ntasks-per-node=1 sh -c \
    'echo "$(hostname) $SLURM_NODEID $(ip -4 -o addr show dev eth0 | awk "{ print \$4 }")"' \
    2>&1 | sort >"$D/step1"
# the agents: one task per node, kept alive by --no-kill when a node fails
timeout 300 srun --no-kill -N3 -n3 --ntasks-per-node=1 sleep 200 >"$D/agents.out" 2>&1 &
echo $! >"$D/agents.pid"
touch "$D/agents.started"
wait_file "$D/agents.running"
timeout 30 srun --immediate=5 -N1 -n1 -w "$(cat "$D/node3")" true >"$D/no_overlap" 2>&1
echo "rc=$?" >>"$D/no_overlap"
timeout 30 srun --overlap -N3 -n3 --ntasks-per-node=1 hostname 2>&1 | sort >"$D/overlap"
touch "$D/ready"
wait_file "$D/node3.down"
timeout 30 srun --overlap -N2 -n2 --ntasks-per-node=1 hostname 2>&1 | sort >"$D/after"
kill "$(cat "$D/agents.pid")"
wait "$(cat "$D/agents.pid")"
echo "rc=$?" >"$D/agents.rc"
EOF
echo "$h3" >"$D/node3"
timeout 240 salloc -N3 -n5 --no-kill sh "$D/job.sh" "$D" >"$D/salloc.out" 2>&1 &
salloc_pid=$!

wait_file "$D/agents.started" 60 || slurm_start_failed "the job did not start"
expect "SLURM_* in the allocation" "$(tr '\n' ' ' <"$D/env")" \
    "SLURM_JOB_NODELIST=${NETNS_RUN}h[1-3] SLURM_TASKS_PER_NODE=2(x2),1 SLURM_JOB_NUM_NODES=3 "
expect "one task per node, in its namespace" "$(tr '\n' ' ' <"$D/step1")" \
    "$(addr 1) $(addr 2) $(addr 3) "
slurm_until 30 "an agent task on each node" all_nodes_sleep
expect "agents: one sleep per node" "$(sleeps 1)$(sleeps 2)$(sleeps 3)" 111
touch "$D/agents.running"

wait_file "$D/ready" 60
expect "a second step without --overlap is refused" "$(tr '\n' ' ' <"$D/no_overlap")" \
    "srun: error: Unable to create step for job $(cat "$D/jobid"): Requested nodes are busy rc=1 "
expect "a second step with --overlap runs" "$(tr '\n' ' ' <"$D/overlap")" "$h1 $h2 $h3 "

# node 3 is lost: its slurmd, its agent and everything else in it SIGKILLed
slurm_kill_node 3
slurm_wait_state 3 down 90
expect "node 3 down, 1 and 2 allocated" "$(sinfo -h -N -o '%N %T' | tr -d '*' | sort | tr '\n' ' ')" \
    "$h1 allocated $h2 allocated $h3 down "
expect "the job survives on nodes 1-2" \
    "$(squeue -h -j "$(cat "$D/jobid")" -o '%T %N')" "RUNNING ${NETNS_RUN}h[1-2]"
expect "the agents of nodes 1 and 2 survive (srun --no-kill)" "$(sleeps 1)$(sleeps 2)" 11
touch "$D/node3.down"

rc=0
wait "$salloc_pid" || rc=$?
expect "salloc exit status" "$rc" 0
expect "a relaunched step on the remaining nodes" "$(tr '\n' ' ' <"$D/after")" "$h1 $h2 "
# srun answers SIGTERM by SIGKILLing the step's tasks
expect "the agent step ends when its srun is killed" "$(cat "$D/agents.rc")" "rc=137"
expect "no agent left on nodes 1 and 2" "$(sleeps 1)$(sleeps 2)" 00
expect "salloc reports the node failure" \
    "$(grep -c "^salloc: error: Node failure on $h3\$" "$D/salloc.out")" 1
# shellcheck disable=SC2016 # expanded by sh -c
slurm_until 30 "job gone" sh -c '[ -z "$(squeue -h)" ]'
expect "no job left" "$(squeue -h)" ""

if [ "$fails" != 0 ]; then
    echo "$fails checks failed; salloc said:"
    cat "$D/salloc.out"
    exit 1
fi
echo PASS
