#!/bin/sh
# kmeans_native_vs_encore.sh - bench/kmeans (Allreduce + Bcast only, int64
# sums) on 4 ranks prints bit-identical final centroids and inertia (hex
# floats) under encore-run and native mpirun.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_BUILDDIR/bench/kmeans"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

enc_run_ok native enc_mpirun 4 "$prog" 15 42 20000 5 4
enc_run_ok encore enc_second 4 "$prog" 15 42 20000 5 4
centroids=$(enc_count "$ENC_TMP/native.raw" '^centroid ')
if [ "$centroids" -ne 5 ] || ! grep -q '^inertia 0x' "$ENC_TMP/native.raw"; then
    enc_show "$ENC_TMP/native.raw"
    enc_fail "native kmeans output incomplete"
fi
enc_expect_same "$ENC_TMP/native.raw" "$ENC_TMP/encore.raw" \
    "kmeans: encore-run output differs from native mpirun"
enc_finish
