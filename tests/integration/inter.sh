#!/bin/sh
# inter.sh - intercommunicators give every rank exactly native Open MPI's
# answers, at 2, 3 and 4 ranks under mpirun and encore-run:
# tests/programs/inter_check (Intercomm_create over the world for two
# splits and over MPI_COMM_SELF, the queries, every intercommunicator
# collective with MPI_ROOT / MPI_PROC_NULL, nonblocking ones, a dup,
# Intercomm_merge both ways).
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

enc_require_launchers
enc_tmpdir

prog="$ENC_PROGRAMS/inter_check"
enc_require_program "$prog"
enc_same_as_native "$prog" "rank 0 parity allreduce " 2 3 4
enc_finish
