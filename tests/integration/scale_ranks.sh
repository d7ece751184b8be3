#!/bin/sh
# scale_ranks.sh - many ranks on one host (oversubscribed, small
# collectives) start and finish under encore-run: tests/programs/scale_loop
# checks every allreduce and bcast result on every rank and rank 0 prints
# the total, compared exactly here.  The job summary (--summary) reports the
# private RSS of every rank and the host's shared segment once.  64 ranks in the suite (about 20 s on 2 cores);
# bench/scale.sh runs 256 (ENC_SCALE_RANKS overrides both).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=${ENC_LIMIT:-300}
. "$(dirname "$0")/lib.sh"

n=${ENC_SCALE_RANKS:-64}
rounds=5
prog="$ENC_PROGRAMS/scale_loop"
enc_require_program "$prog"
[ -x "$ENC_ENCORE_RUN" ] || enc_fail "$ENC_ENCORE_RUN not built"
enc_tmpdir

enc_run_ok job enc_encore "$n" --summary "$prog" "$rounds"
total=$((rounds * n * (n - 1) / 2 + n * rounds * (rounds - 1) / 2))
want="scale_loop: $n ranks, $rounds rounds, total $total"
[ "$(cat "$ENC_TMP/job.raw")" = "$want" ] ||
    enc_fail "output '$(cat "$ENC_TMP/job.raw")', want '$want'"
grep -q "^encore: job summary: $n ranks, 0 restarts, 0 recoveries, final epoch 0\$" "$ENC_TMP/job.err" ||
    enc_fail "no clean job summary for $n ranks"
grep -q '^  private RSS per rank: max [0-9.]* MiB (rank [0-9]*), mean [0-9.]* MiB, total [0-9.]* MiB$' \
    "$ENC_TMP/job.err" || enc_fail "no private RSS line in the job summary"
grep -q '^  shared segment on this host: [0-9.]* MiB in use, [0-9.]* MiB allocated$' \
    "$ENC_TMP/job.err" || enc_fail "no shared segment line in the job summary"
lines=$(grep -c '^  rank [0-9 ]*restarts 0   collectives 16 .*private RSS [0-9.]* MiB$' "$ENC_TMP/job.err" || true)
[ "$lines" -eq "$n" ] || enc_fail "$lines of $n rank lines show 16 collectives and a private RSS"
grep -m2 -e 'private RSS per rank' -e 'shared segment' "$ENC_TMP/job.err" >&2
enc_log "PASS ($n ranks)"
