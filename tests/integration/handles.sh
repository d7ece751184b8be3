#!/bin/sh
# handles.sh - the real MPI's special handles through encore: empty groups
# from every group constructor (made, compared, translated and freed a
# thousand times), MPI_GROUP_NULL, groups of MPI_COMM_SELF with groups of
# the world, MPI_COMM_NULL and MPI_COMM_SELF in compare / free / create /
# create_group, MPI_REQUEST_NULL, MPI_OP_NULL, MPI_ERRHANDLER_NULL and
# MPI_DATATYPE_NULL: tests/programs/handle_check under encore-run against
# native mpirun, every rank's lines (results and error classes) identical,
# at HANDLE_RANKS (default 1 2 3 4) ranks.
set -eu
ENC_LIMIT=90
. "${top_srcdir:-.}/tests/integration/lib.sh"

prog="$ENC_PROGRAMS/handle_check"
enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

for n in ${HANDLE_RANKS:-1 2 3 4}; do
    enc_outdir_matches "$n" "$prog" handle_check
done
enc_finish
