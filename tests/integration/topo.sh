#!/bin/sh
# topo.sh - process topologies and neighbour collectives give every rank
# exactly native Open MPI's answers, at 1, 3 and 4 ranks under mpirun and
# encore-run: tests/programs/topo_check (Dims_create; cartesian grids 2x2
# periodic, 1x4, 4x1, one smaller than the world, a periodic dimension of
# size 1: Cart_get/rank/coords/shift/map/sub, Cartdim_get, Topo_test, dup;
# a graph and its queries; distributed graphs, adjacent and not;
# Neighbor_allgather(v), Neighbor_alltoall(v,w) and their nonblocking
# forms on every one of them).
set -eu
ENC_LIMIT=120
. "${top_srcdir:-.}/tests/integration/lib.sh"

enc_require_launchers
enc_tmpdir

prog="$ENC_PROGRAMS/topo_check"
enc_require_program "$prog"
enc_same_as_native "$prog" "rank 0 dims_create" 1 3 4
enc_finish
