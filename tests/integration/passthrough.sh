#!/bin/sh
# passthrough: under a plain mpirun (no encore tracker), preloading
# libencore.so must not change what a program does: the output of
# tests/programs/passthrough_prog with LD_PRELOAD is identical to without.
# Also checks that libencore.so exports only MPI_*/PMPI_*/mpi_*/pmpi_*/
# encore_* and defines both MPI_Allreduce and PMPI_Allreduce.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/passthrough_prog"
enc_require_command "$ENC_MPIRUN" "openmpi-bin"
enc_require_command nm "binutils"
enc_require_program "$prog"
enc_require_file "$ENC_LIBENCORE"
unset ENCORE_TRACKER
enc_tmpdir

# -- exported symbols ---------------------------------------------------------
enc_exports "$ENC_LIBENCORE" >"$ENC_TMP/exports"
rc=0
grep -v -E '^(MPI_|PMPI_|mpi_|pmpi_|encore_|_init$|_fini$)' "$ENC_TMP/exports" >"$ENC_TMP/bad" ||
    rc=$?
[ "$rc" -le 1 ] || enc_fail "grep failed on the export list"
[ ! -s "$ENC_TMP/bad" ] || { enc_show "$ENC_TMP/bad"; enc_fail "libencore.so exports internal names"; }
enc_expect_exports "$ENC_LIBENCORE" MPI_Allreduce PMPI_Allreduce MPI_Init_thread \
    PMPI_Init_thread MPI_Send PMPI_Send encore_active
enc_log "ok: exports"

# -- output identical with and without the preload ----------------------------
# preloaded N cmd...: enc_mpirun with libencore preloaded (mpirun included).
preloaded() (
    LD_PRELOAD="$ENC_LIBENCORE"
    export LD_PRELOAD
    enc_mpirun "$@"
)
enc_run_ok plain enc_mpirun 3 "$prog"
enc_run_ok preload preloaded 3 "$prog"
enc_expect_grep "$ENC_TMP/plain.err" "libencore not loaded" "plain run: libencore was loaded?"
enc_expect_grep "$ENC_TMP/preload.err" "libencore loaded" "preload run did not load libencore"
[ -s "$ENC_TMP/plain.raw" ] || enc_fail "plain run printed nothing"
enc_expect_same "$ENC_TMP/plain.raw" "$ENC_TMP/preload.raw" "output with libencore preloaded"
enc_expect_grep "$ENC_TMP/plain.raw" "self collectives ok on every rank: 1" "self collectives"
cat "$ENC_TMP/preload.raw"
enc_log "ok: identical output with LD_PRELOAD=$ENC_LIBENCORE"
enc_pass
