#!/bin/sh
# recovery_comm.sh - SIGKILL during collectives on derived communicators and
# during their creation: tests/programs/recov_comm (dup, split,
# allreduce / allgather on the split, bcast on the dup, a split made and
# freed every 5th iteration) must print exactly what the fault-free native
# run prints.  Collective numbers (encore-run --inject ...:op=K count every
# communicator): 1 dup, 2 split, iteration i's allreduce / bcast /
# allgather, iteration 4's split at 18 and its allreduce at 19.
# With "more" (recov_comm 40 more) iteration 1 is ops 17-28: allreduce
# 17, bcast 18, allgather 19, gather 20-21 (sizes, data), scatter 22-23,
# alltoall 24 (one collective: no size exchange) on the split, an
# alltoall of 64 KiB blocks on the dup 25 (through the host's result
# buffer), scan 26 on the split, then the Iallreduce on the dup (27) and
# the Ibcast on the split (28), both pending while the rank computes: the
# kill lands in the progress thread.
# With "rest" (recov_comm 40 rest) iteration 0 is ops 3-11: allreduce 3,
# bcast 4, allgather 5, then on the split reduce 6, barrier 7,
# reduce_scatter_block 8, exscan 9, MPI_Comm_create on the dup 10 and, on
# ranks 0 and 3 (its members), an allreduce on the new communicator 11;
# so iteration 1 is ops 11-18 on ranks 1 and 2, 12-20 on ranks 0 and 3.
set -eu
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/recov_comm"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

# case N NAME inject...: encore-run with the injections vs native
# (MODE: "" or "more", set before the call).
MODE=
case_run() {
    _n=$1 _name=$2
    shift 2
    # shellcheck disable=SC2086 # MODE is one word or none
    enc_run_ok "$_name" enc_encore "$_n" "$@" "$prog" 40 $MODE
    if ! diff "$ENC_TMP/native$MODE.$_n" "$ENC_TMP/$_name.out" >&2; then
        enc_fail "$_name: output differs from the fault-free native run"
    fi
    grep -q 'restarting it' "$ENC_TMP/$_name.err" || enc_fail "$_name: no rank was restarted"
    enc_log "ok $_name"
}

for n in 4 7; do
    enc_mpirun "$n" "$prog" 40 >"$ENC_TMP/native.raw.$n" || enc_fail "native -n $n failed"
    sort "$ENC_TMP/native.raw.$n" >"$ENC_TMP/native.$n"
    enc_mpirun "$n" "$prog" 40 more >"$ENC_TMP/native.raw.$n" ||
        enc_fail "native -n $n more failed"
    sort "$ENC_TMP/native.raw.$n" >"$ENC_TMP/nativemore.$n"
done
enc_mpirun 4 "$prog" 40 rest >"$ENC_TMP/native.raw.4" || enc_fail "native -n 4 rest failed"
sort "$ENC_TMP/native.raw.4" >"$ENC_TMP/nativerest.4"
case_run 4 dup-creation --inject kill:rank=2:op=1
case_run 4 split-creation --inject kill:rank=1:op=2
case_run 4 split-allreduce --inject kill:rank=1:op=3
case_run 4 dup-bcast-root --inject kill:rank=0:op=4
case_run 4 split-allgather --inject kill:rank=3:op=11
case_run 4 loop-split --inject kill:rank=0:op=18
case_run 4 loop-split-allreduce --inject kill:rank=3:op=19
case_run 7 two-at-once --inject kill:rank=1:op=25 --inject kill:rank=4:op=25
case_run 7 again-in-replay --inject kill:rank=5:op=30 --inject kill:rank=5:op=10:incarnation=1
MODE=more
case_run 4 split-gather --inject kill:rank=2:op=21
case_run 4 split-scatter-root --inject kill:rank=3:op=23
case_run 4 split-alltoall --inject kill:rank=0:op=24
case_run 4 dup-alltoall-big --inject kill:rank=1:op=25
case_run 4 split-scan --inject kill:rank=1:op=26
# killed after it (op 40, iteration 2), no snapshot: the restored rank
# replays the 64 KiB alltoall from the host's result buffer, whose rows
# leave out each rank's own block (taken from its input, live or replayed)
(export ENCORE_SNAPSHOT_S=0 && case_run 4 dup-alltoall-replayed --inject kill:rank=2:op=40)
case_run 4 iallreduce-dup --inject kill:rank=2:op=27
case_run 4 ibcast-split --inject kill:rank=3:op=28
case_run 7 ibcast-two-at-once --inject kill:rank=1:op=28 --inject kill:rank=6:op=27
MODE=rest
case_run 4 split-reduce-root --inject kill:rank=1:op=14
case_run 4 split-barrier --inject kill:rank=2:op=15
case_run 4 split-reduce-scatter --inject kill:rank=0:op=17
case_run 4 split-exscan --inject kill:rank=3:op=18
case_run 4 create-nonmember --inject kill:rank=1:op=18
case_run 4 create-member --inject kill:rank=0:op=19
case_run 4 created-allreduce --inject kill:rank=3:op=20
enc_finish
