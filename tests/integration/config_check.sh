#!/bin/sh
# config_check.sh - every encore-run and encore-tracker option and every
# ENCORE_* variable is checked at start: a bad value gets exactly one line
# naming it, its value and what is allowed, and exit status 2 (1 for a rank
# whose MPI_Init refuses it), before any rank starts; good values run.
# Table-driven: each row is one command, its status and its exact stderr.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

FAKE="$ENC_PROGRAMS/fake_rank"
PROG="$ENC_PROGRAMS/scale_loop"
TRACKER="$ENC_BUILDDIR/encore-tracker"
LIB="$ENC_BUILDDIR/.libs/libencore.so"
SECRET=$(printf '%064d' 7)
enc_require_program "$FAKE"
enc_require_program "$PROG"
enc_require_program "$TRACKER"
[ -x "$ENC_ENCORE_RUN" ] || enc_fail "$ENC_ENCORE_RUN not built"
enc_tmpdir
fails=0

# expect STATUS 'EXACT STDERR' cmd...: status and the whole of stderr
# (encore[...] log lines of the ranks aside) must match.
expect() {
    _want=$1 _line=$2
    shift 2
    enc_run check enc_bounded "$ENC_LIMIT" "$@"
    _rc=$ENC_RC
    _got=$(grep -v '^encore\[' "$ENC_TMP/check.err" || true)
    if [ "$_rc" -ne "$_want" ] || [ "$_got" != "$_line" ]; then
        enc_log "FAIL: $*"
        enc_log "  status $_rc (want $_want)"
        enc_log "  stderr '$_got'"
        enc_log "  want   '$_line'"
        fails=$((fails + 1))
    fi
}

# run STATUS 'LINE' encore-run-args...
run() { _s=$1 _l=$2; shift 2; expect "$_s" "$_l" "$ENC_ENCORE_RUN" "$@"; }
# var STATUS 'LINE' VAR=value: encore-run -n 2 fake_rank under that variable
var() { expect "$1" "$2" env "$3" "$ENC_ENCORE_RUN" -n 2 "$FAKE"; }
# rank STATUS 'LINE' VAR=value: a rank started by hand (no encore-run) with
# a complete job environment plus that variable; MPI_Init must refuse it
# before contacting the (absent) tracker
rank() {
    expect "$1" "$2" env ENCORE_TRACKER=127.0.0.1:9 ENCORE_RANK=0 ENCORE_SIZE=2 \
        ENCORE_SECRET="$SECRET" LD_PRELOAD="$LIB" "$3" "$PROG" 1
}
trk() { _s=$1 _l=$2; shift 2; expect "$_s" "$_l" "$TRACKER" "$@"; }

R="encore-run:"
# -- encore-run options -------------------------------------------------
run 2 "$R -n N is required (the number of ranks, 1..4096)" "$FAKE"
run 2 "$R -n '0': expected an integer in 1..4096" -n 0 "$FAKE"
run 2 "$R -n 'abc': expected an integer in 1..4096" -n abc "$FAKE"
run 2 "$R -n '4097': expected an integer in 1..4096" -np 4097 "$FAKE"
run 2 "$R -n needs a value" -n
run 2 "$R no program given (usage: encore-run -n N [options] prog [args...])" -n 2
run 2 "$R unknown option '--frobnicate' (see encore-run --help)" -n 2 --frobnicate "$FAKE"
run 2 "$R unknown option '-q' (see encore-run --help)" -n 2 -q "$FAKE"
run 2 "$R --timeout needs a value" -n 2 --timeout
run 2 "$R --timeout '0': expected seconds, a number > 0" -n 2 --timeout 0 "$FAKE"
run 2 "$R --timeout '-1': expected seconds, a number > 0" -n 2 --timeout -1 "$FAKE"
run 2 "$R --timeout '5s': expected seconds, a number > 0" -n 2 --timeout 5s "$FAKE"
run 2 "$R --max-restarts '-1': expected an integer in 0..1000000" -n 2 --max-restarts -1 "$FAKE"
run 2 "$R --max-restarts 'two': expected an integer in 0..1000000" -n 2 --max-restarts two "$FAKE"
run 2 "$R --policy 'retry-all': expected retry-one or fail-all" -n 2 --policy retry-all "$FAKE"
run 2 "$R --bind-to 'socket': expected core, package, none or auto" -n 2 --bind-to socket "$FAKE"
run 2 "$R --openmp 'intel': expected gnu or llvm" -n 2 --openmp intel "$FAKE"
run 2 "$R -x '1X=2': expected VAR or VAR=value with VAR a variable name" -n 2 -x 1X=2 "$FAKE"
run 2 "$R -x '=2': expected VAR or VAR=value with VAR a variable name" -n 2 -x =2 "$FAKE"
run 2 "$R -x 'A-B': expected VAR or VAR=value with VAR a variable name" -n 2 -x A-B "$FAKE"
run 2 "$R ENCORE_REPLICAS='abc': expected an integer in 1..256" -n 2 -x ENCORE_REPLICAS=abc "$FAKE"
I="--inject"
run 2 "$R $I 'kill:rank=9:op=2': rank 9 out of range for -n 2 (ranks 0..1)" -n 2 $I kill:rank=9:op=2 "$FAKE"
run 2 "$R $I 'stop:rank=2:op=1': rank 2 out of range for -n 2 (ranks 0..1)" -n 2 $I stop:rank=2:op=1 "$FAKE"
run 2 "$R $I 'kill:rank=1': op=K is missing" -n 2 $I kill:rank=1 "$FAKE"
run 2 "$R $I 'kill:op=3': rank=R is missing" -n 2 $I kill:op=3 "$FAKE"
run 2 "$R $I 'kill:rank=1:op=0': op='0': expected an integer in 1..2147483647" -n 2 $I kill:rank=1:op=0 "$FAKE"
run 2 "$R $I 'kill:rank=x:op=1': rank='x': expected an integer in 0..4095" -n 2 $I kill:rank=x:op=1 "$FAKE"
run 2 "$R $I 'kill:rank=1:op=1:incarnation=-1': incarnation='-1': expected an integer in 0..4294967295" \
    -n 2 $I kill:rank=1:op=1:incarnation=-1 "$FAKE"
run 2 "$R $I 'kill:rank=1:op=1:when=now': unknown field 'when=now' (kill, stop and snapkill take rank=R, op=K, incarnation=I)" \
    -n 2 $I kill:rank=1:op=1:when=now "$FAKE"
run 2 "$R $I 'random:every=0': every='0': expected seconds, a number > 0" -n 2 $I random:every=0 "$FAKE"
run 2 "$R $I 'random:seed=4': every=T is missing" -n 2 $I random:seed=4 "$FAKE"
run 2 "$R $I 'random:every=1:seed=x': seed='x': expected an integer in 0..18446744073709551615" \
    -n 2 $I random:every=1:seed=x "$FAKE"
run 2 "$R $I 'random:every=1:count=0': count='0': expected an integer in 1..1000000" \
    -n 2 $I random:every=1:count=0 "$FAKE"
run 2 "$R $I 'explode': expected kill:rank=R:op=K[:incarnation=I], stop:rank=R:op=K[:incarnation=I], snapkill:rank=R:op=K[:incarnation=I] or random:every=T[:seed=S][:count=N]" \
    -n 2 $I explode "$FAKE"
run 0 "" -n 2 --timeout 30 --max-restarts 0 --policy fail-all --bind-to none --tag-output \
    -x ENCORE_LOG=warn -x FOO $I kill:rank=1:op=5:incarnation=2 "$FAKE"

# -- hosts: -H/--host, --hostfile, --map-by, --oversubscribe, --rsh, Slurm --
HF="$ENC_TMP/hostfile"
HN="(a name of 1..63 characters, N in 1..1048576)"
printf 'a slots=2\nb slots=two\n' >"$HF" || enc_fail "cannot write $HF"
run 2 "$R --host 'a:2,h:0': entry 'h:0': expected name or name:N $HN" -n 2 --host a:2,h:0 "$FAKE"
run 2 "$R --host 'h:x': entry 'h:x': expected name or name:N $HN" -n 2 -H h:x "$FAKE"
run 2 "$R --host 'a,,b': entry '': expected name or name:N $HN" -n 2 -H a,,b "$FAKE"
run 2 "$R -H needs a value" -n 2 -H
run 2 "$R --hostfile '$HF': line 2 'b slots=two': expected host [slots=N] [max_slots=M] $HN" \
    -n 2 --hostfile "$HF" "$FAKE"
run 2 "$R --hostfile '$ENC_TMP/nohosts': cannot read it: No such file or directory" \
    -n 2 --hostfile "$ENC_TMP/nohosts" "$FAKE"
printf '# nothing\n\n' >"$HF" || enc_fail "cannot write $HF"
run 2 "$R --hostfile '$HF': names no host" -n 2 --hostfile "$HF" "$FAKE"
run 2 "$R --map-by 'foo': expected slot or node" -n 2 -H a:2 --map-by foo "$FAKE"
run 2 "$R --rsh '': expected a command" -n 2 -H a:2 --rsh "" "$FAKE"
run 2 "$R -n 4: more ranks than the 3 slots of the hosts (add slots or use --oversubscribe)" \
    -n 4 -H a:2,b "$FAKE"
printf 'localhost slots=1 max_slots=4 # this host\n' >"$HF" || enc_fail "cannot write $HF"
run 2 "$R -n 2: more ranks than the 1 slot of the hosts (add slots or use --oversubscribe)" \
    -n 2 --hostfile "$HF" "$FAKE"
S="env SLURM_JOB_ID=7 SLURM_JOB_NODELIST=n[1-2] SLURM_TASKS_PER_NODE=1(x2)"
expect 2 "$R -n 3: more ranks than the 2 slots of the hosts (add slots or use --oversubscribe)" \
    $S "$ENC_ENCORE_RUN" -n 3 "$FAKE"
expect 2 "$R cannot read the Slurm allocation (SLURM_JOB_NODELIST='n[1-', SLURM_TASKS_PER_NODE='2')" \
    env SLURM_JOB_ID=7 SLURM_JOB_NODELIST='n[1-' SLURM_TASKS_PER_NODE=2 "$ENC_ENCORE_RUN" -n 2 "$FAKE"
# hosts that are all this one need no agent
run 0 "" -n 2 -H localhost:2 --map-by node "$FAKE"
run 0 "" -n 2 --hostfile "$HF" --oversubscribe --rsh false "$FAKE"

# -- user tunables, through encore-run -------------------------------------
var 2 "$R ENCORE_LOG='loud': expected one of error|warn|info|debug|trace" ENCORE_LOG=loud
var 2 "$R ENCORE_TREE_MAX_BYTES='1X': expected a byte count in 0..1T (suffixes K, M, G, T, P allowed)" ENCORE_TREE_MAX_BYTES=1X
var 2 "$R ENCORE_BCAST_SEGMENT_BYTES='100': expected a byte count in 4K..1G (suffixes K, M, G, T, P allowed)" ENCORE_BCAST_SEGMENT_BYTES=100
var 2 "$R ENCORE_RING_MIN_COUNT='0': expected an integer in 1..1000000000" ENCORE_RING_MIN_COUNT=0
var 2 "$R ENCORE_SPIN_US='fast': expected auto or an integer in 0..1000000" ENCORE_SPIN_US=fast
var 2 "$R ENCORE_CONNECT_TIMEOUT_MS='0': expected milliseconds, an integer in 1..86400000" ENCORE_CONNECT_TIMEOUT_MS=0
var 2 "$R ENCORE_REGISTER_TIMEOUT_MS='1e3': expected milliseconds, an integer in 1..86400000" ENCORE_REGISTER_TIMEOUT_MS=1e3
var 2 "$R ENCORE_COLL_TIMEOUT_MS='2147483648': expected milliseconds, an integer in 1..2147483647" ENCORE_COLL_TIMEOUT_MS=2147483648
var 2 "$R ENCORE_HEARTBEAT_MS='-5': expected milliseconds, an integer in 1..3600000" ENCORE_HEARTBEAT_MS=-5
var 2 "$R ENCORE_HEARTBEAT_TIMEOUT_MS=' 5': expected milliseconds, an integer in 1..86400000" "ENCORE_HEARTBEAT_TIMEOUT_MS= 5"
var 2 "$R ENCORE_HEARTBEAT_TIMEOUT_MS=5000 must be greater than ENCORE_HEARTBEAT_MS=5000" ENCORE_HEARTBEAT_MS=5000
var 2 "$R ENCORE_RECOVERY='maybe': expected 1 or 0 (or yes/no, true/false, on/off)" ENCORE_RECOVERY=maybe
var 2 "$R ENCORE_REPLICAS='abc': expected an integer in 1..256" ENCORE_REPLICAS=abc
var 2 "$R ENCORE_REPLICAS='257': expected an integer in 1..256" ENCORE_REPLICAS=257
var 2 "$R ENCORE_LOG_MEM_MAX='lots': expected a byte count in 0..1P (suffixes K, M, G, T, P allowed)" ENCORE_LOG_MEM_MAX=lots
var 2 "$R ENCORE_SPILL_DIR='$ENC_TMP/none': expected a writable directory" ENCORE_SPILL_DIR="$ENC_TMP/none"
for bad in lots -1 2P " 1M" 1.5G auto0; do
    var 2 "$R ENCORE_SPILL_MAX='$bad': expected auto or a byte count in 0..1P (suffixes K, M, G, T, P allowed)" "ENCORE_SPILL_MAX=$bad"
done
var 2 "$R ENCORE_LIB='$ENC_TMP': expected a readable file" ENCORE_LIB="$ENC_TMP"
for bad in abc -1 2x " 3" nan 1e400 86401; do
    var 2 "$R ENCORE_SNAPSHOT_S='$bad': expected auto or seconds, a decimal number in 0..86400" "ENCORE_SNAPSHOT_S=$bad"
done
var 2 "$R ENCORE_AGENT_START_TIMEOUT_MS='0': expected milliseconds, an integer in 1..86400000" ENCORE_AGENT_START_TIMEOUT_MS=0
var 2 "$R ENCORE_THREAD_LEVEL='many': expected one of single|funneled|serialized|multiple" ENCORE_THREAD_LEVEL=many
var 0 "$R warning: ENCORE_REPLICA is not an encore variable; did you mean ENCORE_REPLICAS? (see encore-run --info)" ENCORE_REPLICA=2
var 0 "$R warning: ENCORE_FROB is not an encore variable (see encore-run --info)" ENCORE_FROB=1
for ok in ENCORE_LOG=error ENCORE_TREE_MAX_BYTES=64K ENCORE_BCAST_SEGMENT_BYTES=4k \
    ENCORE_RING_MIN_COUNT=8 ENCORE_SPIN_US=0 ENCORE_SPIN_US=auto ENCORE_CONNECT_TIMEOUT_MS=1000 \
    ENCORE_REGISTER_TIMEOUT_MS=20000 ENCORE_COLL_TIMEOUT_MS=60000 ENCORE_HEARTBEAT_MS=100 \
    ENCORE_HEARTBEAT_TIMEOUT_MS=3000 ENCORE_RECOVERY=off ENCORE_REPLICAS=256 \
    ENCORE_LOG_MEM_MAX=1G ENCORE_SPILL_DIR="$ENC_TMP" ENCORE_LIB="$LIB" \
    ENCORE_SPILL_MAX=0 ENCORE_SPILL_MAX=64M ENCORE_SPILL_MAX=auto \
    ENCORE_SNAPSHOT_S=0 ENCORE_SNAPSHOT_S=0.25 ENCORE_SNAPSHOT_S=auto \
    ENCORE_AGENT=/elsewhere/encore-agent ENCORE_AGENT_START_TIMEOUT_MS=1000 \
    ENCORE_THREAD_LEVEL=funneled ENCORE_THREAD_LEVEL=multiple \
    ENCORE_RANK=x ENCORE_SECRET=bad; do # job variables are the launcher's to set
    var 0 "" "$ok"
done

# -- job variables, checked by a rank's MPI_Init ---------------------------
M="encore: MPI_Init:"
rank 1 "$M ENCORE_REPLICAS='abc': expected an integer in 1..256" ENCORE_REPLICAS=abc
rank 1 "$M ENCORE_HEARTBEAT_TIMEOUT_MS=5000 must be greater than ENCORE_HEARTBEAT_MS=9000" ENCORE_HEARTBEAT_MS=9000
rank 1 "$M ENCORE_TRACKER='localhost': expected host:port with a port in 1..65535" ENCORE_TRACKER=localhost
rank 1 "$M ENCORE_RANK='-1': expected an integer in 0..4095" ENCORE_RANK=-1
rank 1 "$M ENCORE_RANK=2 must be less than ENCORE_SIZE=2" ENCORE_RANK=2
rank 1 "$M ENCORE_RANK is not set (a rank joining ENCORE_TRACKER=127.0.0.1:9 needs it)" ENCORE_RANK=
rank 1 "$M ENCORE_SIZE='0': expected an integer in 1..4096" ENCORE_SIZE=0
rank 1 "$M ENCORE_INCARNATION='x': expected an integer in 0..4294967295" ENCORE_INCARNATION=x
rank 1 "$M ENCORE_SECRET (value not shown): expected 64 hex digits" ENCORE_SECRET=abc
rank 1 "$M ENCORE_SECRET_FILE is not set (a rank joining ENCORE_TRACKER=127.0.0.1:9 needs it)" ENCORE_SECRET=
rank 1 "$M ENCORE_SECRET_FILE='$ENC_TMP/nosecret': expected a readable file" ENCORE_SECRET_FILE="$ENC_TMP/nosecret"
rank 1 "$M ENCORE_INJECT='kill:0': expected kill:K, stop:K or snapkill:K with K >= 1" ENCORE_INJECT=kill:0
rank 1 "$M ENCORE_HOST='a b': expected a host name or address (< 64 characters, no spaces)" "ENCORE_HOST=a b"
rank 1 "$M ENCORE_ADDR='a b': expected a host name or address (< 64 characters, no spaces)" "ENCORE_ADDR=a b"
rank 1 "$M ENCORE_SIM_CPUBIND='all': expected a CPU list such as 0-3,8" ENCORE_SIM_CPUBIND=all
rank 1 "$M ENCORE_SNAPSHOT_S='soon': expected auto or seconds, a decimal number in 0..86400" ENCORE_SNAPSHOT_S=soon
rank 1 "$M ENCORE_SPILL_MAX='big': expected auto or a byte count in 0..1P (suffixes K, M, G, T, P allowed)" ENCORE_SPILL_MAX=big

# -- encore-tracker options ------------------------------------------------
T="encore-tracker:"
trk 2 "$T -n N is required (the number of ranks, 1..4096)" --secret-file "$ENC_TMP/s"
trk 2 "$T -n '0': expected an integer in 1..4096" -n 0 --secret-file "$ENC_TMP/s"
trk 2 "$T -n 'x': expected an integer in 1..4096" --np x --secret-file "$ENC_TMP/s"
trk 2 "$T --port '65536': expected an integer in 0..65535" -n 2 --port 65536 --secret-file "$ENC_TMP/s"
trk 2 "$T --bind '': expected an address" -n 2 --bind "" --secret-file "$ENC_TMP/s"
trk 2 "$T --secret-file '': expected a file name" -n 2 --secret-file ""
trk 2 "$T --port needs a value" -n 2 --port
trk 2 "$T unknown option '--size' (see encore-tracker --help)" --size 2
trk 2 "$T unexpected argument 'extra' (encore-tracker takes options only)" -n 2 extra
expect 2 "$T ENCORE_HEARTBEAT_MS='0': expected milliseconds, an integer in 1..3600000" \
    env ENCORE_HEARTBEAT_MS=0 "$TRACKER" -n 2 --secret-file "$ENC_TMP/s"

# -- the open-file limit ---------------------------------------------------
# too low a hard limit: one line naming RLIMIT_NOFILE, before any rank starts
expect 2 "$R -n 256: RLIMIT_NOFILE (open files) hard limit 200 is below the 1088 this job needs; raise it (ulimit -Hn, /etc/security/limits.conf) or use fewer ranks" \
    sh -c "ulimit -n 200 && exec \"\$0\" -n 256 \"\$1\"" "$ENC_ENCORE_RUN" "$FAKE"
# a low soft limit is raised to the hard one, for encore-run and its ranks
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -ge 400 ]; then
    expect 0 "" sh -c "ulimit -Sn 100 && exec \"\$0\" -n 40 sh -c 'ulimit -n'" "$ENC_ENCORE_RUN"
    [ "$(sort -u "$ENC_TMP/check.raw")" = "$hard" ] ||
        { enc_log "FAIL: ranks see open-file limit '$(sort -u "$ENC_TMP/check.raw")', want $hard"; fails=$((fails + 1)); }
fi

[ "$fails" -eq 0 ] || enc_fail "$fails rows failed"
enc_log "PASS"
