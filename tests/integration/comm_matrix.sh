#!/bin/sh
# comm_matrix.sh - communicators derived from MPI_COMM_WORLD (dup, split,
# split_type, create, create_group, groups, attributes, names, error
# handlers) and the collectives on them: tests/programs/comm_check under
# encore-run against native mpirun, every rank's output bit for bit, at
# COMM_RANKS (default 1 2 3 4 7) ranks.
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/comm_check"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in ${COMM_RANKS:-1 2 3 4 7}; do
    enc_outdir_matches "$n" "$prog" comm_check
done
enc_finish
