#!/bin/sh
# recovery_random.sh - 8 ranks of an iterative k-means (tests/programs/
# bench/kmeans: Allreduce + Bcast only, int64 sums)
# under --inject random:every=T:seed=S:count=4 (a SIGKILL of a random rank
# every T s, a third of the fault-free run's time, at most 4 kills: a
# loaded machine stretches the run, and a fixed interval would either
# outpace the restarts of a slow run or end a fast one after a single kill;
# T is at least ENC_TIME_SCALE s: under ASan on a loaded
# machine one recovery took 8.8 s, all 4 kills fell into it and, more
# simultaneous failures than ENCORE_REPLICAS, ended the job with "logged
# results lost", as it should).  The fault-free run takes about 4 s here, so
# a few ranks die, some while others replay; the final centroids and
# inertia (hex floats) must be bit-identical to the fault-free encore-run
# (tests/integration/kmeans_native_vs_encore.sh shows that equals native
# mpirun), and at least 2 restarts must really have happened.
# REC_RANDOM_SEED overrides the seed (default 2).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=150
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_KMEANS"

seed=${REC_RANDOM_SEED:-2}
args="10000 42 400 16 8" # iterations seed points-per-rank k dim
# shellcheck disable=SC2086 # args is a list
rec_run free 8 "$REC_KMEANS" $args
[ "$REC_RC" -eq 0 ] || rec_show free
enc_expect_status free 0 "$REC_RC"
centroids=$(enc_count "$ENC_TMP/free.out" '^centroid ')
[ "$centroids" -eq 16 ] && grep -q '^inertia 0x' "$ENC_TMP/free.out" ||
    { enc_show "$ENC_TMP/free.out"; enc_fail "fault-free output incomplete"; }
cp "$ENC_TMP/free.out" "$ENC_TMP/free.ref" || enc_fail "cp failed"
free_ms=$REC_MS

# A kill every third of the fault-free run (at least ENC_TIME_SCALE s):
# a fixed 2 s let a run that got faster (3.2 s fault-free) end after one.
every=$(awk -v ms="$free_ms" -v scale="$ENC_TIME_SCALE" \
    'BEGIN { e = ms / 3000; if (e < scale) e = scale; printf "%.2f", e }')
# shellcheck disable=SC2086 # args is a list
rec_run random 8 --max-restarts 30 --inject "random:every=$every:seed=$seed:count=4" "$REC_KMEANS" $args
rec_ok random free
kills=$(rec_count random 'run: warning: inject: killing rank')
restarts=$(sed -n 's/^encore: job summary: 8 ranks, \([0-9]*\) restarts,.*/\1/p' "$ENC_TMP/random.err")
[ "${restarts:-0}" -ge 2 ] && [ "$kills" -ge 2 ] ||
    { rec_show random; enc_fail "want >= 2 random kills and restarts, got $kills kills, ${restarts:-no} restarts"; }
enc_log "ok random: seed $seed, $kills kills, $restarts restarts, $REC_MS ms (fault-free $free_ms ms)"
enc_finish
