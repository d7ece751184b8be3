#!/bin/sh
# soak_p2p_short.sh - the short point-to-point kill soak: bench/p2p_soak.sh
# with 5 trials (P2P_SOAK_TRIALS; default seed), each one of p2p_halo2d,
# p2p_farm, p2p_stencil and p2p_master on 4 ranks with a random rank
# SIGKILLed at a random moment.  Asserts the summary line: every trial exact
# (exit 0, or encore-run's "after MPI_Finalize" line when the kill came
# after the rank's MPI_Finalize; the fault-free native run's distinct
# lines; no process left).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=300
. "$(dirname "$0")/lib.sh"

enc_require_launchers
enc_tmpdir
enc_run soak enc_bounded "$ENC_LIMIT" env P2P_SOAK_TRIALS="${P2P_SOAK_TRIALS:-5}" \
    top_builddir="$ENC_BUILDDIR" top_srcdir="$ENC_SRCDIR" sh "$ENC_SRCDIR/bench/p2p_soak.sh"
cat "$ENC_TMP/soak.raw" >&2
enc_expect_status soak 0
enc_expect_grep "$ENC_TMP/soak.raw" '^p2p_soak: [0-9]+ passed, 0 failed ' "p2p soak summary"
enc_pass
