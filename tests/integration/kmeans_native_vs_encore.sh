#!/bin/sh
# kmeans_native_vs_encore.sh - bench/kmeans (Allreduce + Bcast only, int64
# sums) on 4 ranks prints bit-identical final centroids and inertia (hex
# floats) under encore-run and native mpirun.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_BUILDDIR/bench/kmeans"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

enc_mpirun 4 "$prog" 15 42 20000 5 4 >"$ENC_TMP/native.out" 2>"$ENC_TMP/native.err" ||
    { tail -n 20 "$ENC_TMP/native.err" >&2; enc_fail "native mpirun kmeans failed"; }
enc_second 4 "$prog" 15 42 20000 5 4 >"$ENC_TMP/encore.out" 2>"$ENC_TMP/encore.err" ||
    { tail -n 20 "$ENC_TMP/encore.err" >&2; enc_fail "encore-run kmeans failed"; }
if [ "$(grep -c '^centroid ' "$ENC_TMP/native.out")" -ne 5 ] ||
    ! grep -q '^inertia 0x' "$ENC_TMP/native.out"; then
    enc_fail "native kmeans output incomplete: $(cat "$ENC_TMP/native.out")"
fi
if ! diff "$ENC_TMP/native.out" "$ENC_TMP/encore.out" >&2; then
    enc_fail "kmeans: encore-run output differs from native mpirun"
fi
enc_finish
