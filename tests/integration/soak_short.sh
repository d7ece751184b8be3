#!/bin/sh
# soak_short.sh - the short kill soak: bench/soak.sh with SOAK_TRIALS=20
# (default seed): k-means, tests/programs/soak_mix and snap_iter (2 MiB
# results, snapshots every 0.5 s) on 4 ranks, each run
# with 1 to 3 SIGKILLs or SIGSTOPs at random moments, inside MPI_Init,
# during a replay, at a checkpoint and inside MPI_Finalize.  Asserts the
# summary line: 0 wrong, 0 hung, 0 leaked (processes or files in TMPDIR),
# and every failed trial explained by encore-run's failure line.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=400
. "$(dirname "$0")/lib.sh"

enc_require_program "$ENC_BUILDDIR/bench/kmeans"
enc_require_program "$ENC_PROGRAMS/soak_mix"
enc_require_program "$ENC_PROGRAMS/snap_iter"
enc_require_launchers
enc_tmpdir
enc_run soak enc_bounded "$ENC_LIMIT" env SOAK_TRIALS="${SOAK_TRIALS:-20}" \
    top_builddir="$ENC_BUILDDIR" top_srcdir="$ENC_SRCDIR" sh "$ENC_SRCDIR/bench/soak.sh"
cat "$ENC_TMP/soak.raw" >&2
enc_expect_status soak 0
enc_expect_grep "$ENC_TMP/soak.raw" \
    '^soak: [0-9]+ trials: exact [0-9]+, wrong 0, failed [0-9]+ \(unexplained 0\), hung 0, leaked 0 ' \
    "soak summary"
enc_pass
