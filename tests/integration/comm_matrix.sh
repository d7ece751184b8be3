#!/bin/sh
# comm_matrix.sh - communicators derived from MPI_COMM_WORLD (dup, split,
# split_type, create, create_group, groups, attributes, names, error
# handlers) and the collectives on them: tests/programs/comm_check under
# encore-run against native mpirun, every rank's output bit for bit, at
# COMM_RANKS (default 1 2 3 4 7) ranks.
set -eu
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/comm_check"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in ${COMM_RANKS:-1 2 3 4 7}; do
    for side in native encore; do
        mkdir -p "$ENC_TMP/$side.$n"
        launch=enc_second
        [ "$side" = encore ] || launch=enc_mpirun
        enc_run_ok "$side.$n.job" "$launch" "$n" "$prog" --out-dir "$ENC_TMP/$side.$n"
    done
    enc_compare_dirs "$ENC_TMP/native.$n" "$ENC_TMP/encore.$n" "comm_check -n $n" ||
        enc_fail "comm_check -n $n: encore-run results differ from native mpirun"
    enc_log "-n $n: $(cat "$ENC_TMP/native.$n/"* | wc -l) result lines identical"
done
enc_finish
