#!/bin/sh
# op_table.sh - every (predefined datatype, predefined op) pair the
# underlying Open MPI accepts in MPI_Allreduce is accepted by encore with
# the same result bytes (MPI_MAX on MPI_BYTE, for one, which the standard's
# table does not list): tests/programs/op_table at 2 and 3 ranks under
# native mpirun and encore-run.  encore may accept more (it allows
# MPI_REPLACE, for one); only pairs native accepts are compared.
set -eu
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/op_table"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in 2 3; do
    enc_mpirun "$n" "$prog" >"$ENC_TMP/native.$n" 2>"$ENC_TMP/native.$n.err" ||
        { enc_show "$ENC_TMP/native.$n.err"; enc_fail "native -n $n op_table failed"; }
    enc_encore "$n" "$prog" >"$ENC_TMP/encore.$n" 2>"$ENC_TMP/encore.$n.err" ||
        { enc_show "$ENC_TMP/encore.$n.err"; enc_fail "encore -n $n op_table failed"; }
    ok=$(grep -c ' ok ' "$ENC_TMP/native.$n") || enc_fail "-n $n: native accepted no pair"
    grep ' ok ' "$ENC_TMP/native.$n" >"$ENC_TMP/native.$n.ok"
    missing=0
    while read -r line; do
        grep -qxF "$line" "$ENC_TMP/encore.$n" || {
            set -- $line
            echo "native: $line; encore: $(grep "^$1 $2 " "$ENC_TMP/encore.$n")" >&2
            missing=$((missing + 1))
        }
    done <"$ENC_TMP/native.$n.ok"
    [ "$missing" -eq 0 ] || enc_fail "-n $n: $missing of $ok pairs differ from native"
    enc_log "ok -n $n: all $ok pairs native accepts give the same bytes"
done
enc_finish
