#!/bin/sh
# recovery_kill.sh - retry-one recovery of SIGKILLed ranks:
# an unmodified MPI program (tests/programs/recov_iter: Allreduce + Bcast,
# integer-valued sums) ends bit-identical to its fault-free run, under native
# mpirun and under encore-run, while ranks are killed under it:
#   seed      10 ranks; ranks 0, 4 and 9 killed at the same collective (50),
#             then rank 1 at its next one (51)
#   again     rank 2 killed at 60, and its restarted incarnation killed again
#             at 20, while it replays
#   ring      4 ranks; a kill on entering a 16 MiB ring allreduce (40), and
#             one right after another (61): replays 16 MiB results too
#   bcastroot 4 ranks; the root of a bcast killed on entering it (25); its
#             replay re-draws the seed broadcast from rank 3 from the clock
#             and must get the logged value instead
#   finalize  rank 2 killed after passing the finalize barrier (injection
#             point 203: 201 collectives and the barrier come before it),
#             before telling the tracker: the others wait, serving their
#             logs, and it replays all 202
#   failall   --policy fail-all, one kill (kept for comparison)
# Each run also checks that the faults really happened: restarts per rank
# and replayed collectives in encore-run's job summary.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"

# -- seed: 10 ranks, three at once, then one more -------------------------------
rec_ref it10 10 "$REC_ITER" --iters 100
rec_run seed 10 --inject kill:rank=0:op=50 --inject kill:rank=4:op=50 \
    --inject kill:rank=9:op=50 --inject kill:rank=1:op=51 "$REC_ITER" --iters 100
rec_ok seed it10
rec_restarts seed "1 1 0 0 1 0 0 0 0 1"
for r in 0 4 9; do
    # 49 (nobody completes allreduce 50 without them), plus bcast 51 when
    # rank 1's death left them waiting in it while the root's side finished
    rec_expect seed "$r" replayed 49 50
done
rec_expect seed 1 replayed 50 51 # bcast 51 (root 4) may have reached some ranks
kills=$(rec_count seed 'injecting SIGKILL at collective 50')
[ "$kills" -eq 3 ] || enc_fail "seed: want 3 injected kills at collective 50, got $kills"
rec_grep seed 'rank 1\] inject: injecting SIGKILL at collective 51' "rank 1 was not killed at 51"
enc_log "ok seed ($REC_MS ms)"

# -- again: killed a second time while replaying --------------------------------
rec_ref it4 4 "$REC_ITER" --iters 100
rec_run again 4 --inject kill:rank=2:op=60 --inject kill:rank=2:op=20:incarnation=1 \
    "$REC_ITER" --iters 100
rec_ok again it4
rec_restarts again "0 0 2 0"
rec_expect again 2 replayed 59
rec_grep again 'rank 2 \(pid [0-9]+\) killed by signal 9 .*restarting it \(2 of 3\)' \
    "second restart of rank 2 missing"
rec_grep again 'tracker: rank 2 incarnation 1 lost' "incarnation 1 did not die"
rec_grep again 'rank 2\] inject: injecting SIGKILL at collective 20' "no kill at 20 in replay"
enc_log "ok again ($REC_MS ms)"

# -- ring: 16 MiB ring allreduces (iterations 9, 19, 29: collectives 20, 40, 60)
rec_ref big 4 "$REC_ITER" --iters 30 --big 2097152 --big-every 10
rec_run ring 4 --inject kill:rank=1:op=40 --inject kill:rank=3:op=61 \
    "$REC_ITER" --iters 30 --big 2097152 --big-every 10
rec_ok ring big
rec_restarts ring "0 1 0 1"
rec_expect ring 1 replayed 39
rec_expect ring 3 replayed 60 61
enc_log "ok ring ($REC_MS ms)"

# -- bcastroot: collective 25 is iteration 11's bcast, root 11 % 4 = 3 ----------
rec_run bcastroot 4 --inject kill:rank=3:op=25 "$REC_ITER" --iters 100
rec_ok bcastroot it4
rec_restarts bcastroot "0 0 0 1"
rec_expect bcastroot 3 replayed 24
enc_log "ok bcastroot ($REC_MS ms)"

# -- finalize: a death after the others passed MPI_Finalize ---------------------
rec_run finalize 4 --inject kill:rank=2:op=203 "$REC_ITER" --iters 100
rec_ok finalize it4
rec_restarts finalize "0 0 1 0"
rec_expect finalize 2 replayed 202
enc_log "ok finalize ($REC_MS ms)"

# -- failall: every rank restarts from scratch ----------------------------------
rec_run failall 4 --policy fail-all --inject kill:rank=2:op=50 "$REC_ITER" --iters 100 \
    --clock-seed 0 # every rank restarts: no log to overwrite a clock-drawn seed
rec_ok failall it4
rec_restarts failall "1 1 1 1"
rec_grep failall 'rank 2 \(pid [0-9]+\) killed by signal 9 .*restarting all ranks \(fail-all\)' \
    "fail-all restart missing"
for r in 0 1 2 3; do
    rec_expect failall "$r" replayed 0
done
enc_log "ok failall ($REC_MS ms)"
enc_finish
