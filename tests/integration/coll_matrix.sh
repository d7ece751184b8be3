#!/bin/sh
# coll_matrix.sh - every collective x datatype x op x count, encore-run
# against native Open MPI, bit for bit.
#
# For N in COLL_RANKS (default 1 2 3 4 7 8) runs tests/programs/coll_check
# under native mpirun and under encore-run -n N; each rank writes its digest
# lines to its own file, and every rank's file must be byte-identical between
# the two runs (diff shown on failure).  Counts 0,1,1000 sweep every datatype
# x every op MPI allows for it x (allreduce, in-place allreduce, reduce to
# roots 0 and N-1, in-place reduce) plus bcast (roots 0, N-1), allgather,
# allgatherv, barrier; 1<<20 runs the reduced sweep (see coll_check.c
# --reduced-above).  Then the --big case (2 GiB + 16 bytes bcast and
# allreduce, every byte checked) on 2 ranks.  Knobs: COLL_RANKS,
# COLL_COUNTS, COLL_REDUCED_ABOVE, COLL_CMA=0 (skip the ENCORE_SHM_CMA=1
# case), COLL_BIG=0 (skip the 2 GiB case) and
# lib.sh's (ENC_TEST_TIMEOUT: per job, default 300 s).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=300
. "$(dirname "$0")/lib.sh"

ranks=${COLL_RANKS:-1 2 3 4 7 8}
counts=${COLL_COUNTS:-0,1,1000,1048576}
reduced=${COLL_REDUCED_ABOVE:-1000}
big=${COLL_BIG:-1}
prog="$ENC_PROGRAMS/coll_check"

enc_require_program "$prog"
enc_require_launchers
enc_tmpdir

# run_one SIDE N DIR args...: runs coll_check on N ranks, lines into DIR.
run_one() {
    _side=$1 _n=$2 _dir=$3
    shift 3
    mkdir -p "$_dir/out" "$_dir/barrier"
    _launch=enc_second
    [ "$_side" = encore ] || _launch=enc_mpirun
    _job=${_dir##*/}/job
    enc_run "$_job" "$_launch" "$_n" "$prog" "$@" \
        --out-dir "$_dir/out" --barrier-dir "$_dir/barrier"
    enc_log "$_side -n $_n $*: exit $ENC_RC, $((ENC_MS / 1000)) s"
    enc_expect_status "$_job" 0
    if [ -s "$_dir/job.raw" ]; then
        enc_show "$_dir/job.raw" 5
        enc_fail "$_side -n $_n: coll_check must print nothing on stdout with --out-dir"
    fi
    _files=$(enc_file_count "$_dir/out")
    [ "$_files" -eq "$_n" ] || enc_fail "$_side -n $_n: $_files rank files, expected $_n"
}

# check_big DIR N: both launchers' --big output is the expected two lines.
check_big() {
    for _r in $(seq 0 $(($2 - 1))); do
        if ! grep -q '^big bcast MPI_UINT64_T count=268435458 bytes=2147483664 .* ok$' \
            "$1/out/rank.$_r" ||
            ! grep -q '^big allreduce_inplace MPI_UINT64_T MPI_BOR count=268435458 bytes=2147483664 ok$' \
                "$1/out/rank.$_r"; then
            enc_fail "--big: rank $_r of $1 did not report both 2 GiB collectives ok"
        fi
    done
}

for n in $ranks; do
    run_one native "$n" "$ENC_TMP/native.$n" --counts "$counts" --reduced-above "$reduced"
    run_one encore "$n" "$ENC_TMP/encore.$n" --counts "$counts" --reduced-above "$reduced"
    enc_compare_dirs "$ENC_TMP/native.$n/out" "$ENC_TMP/encore.$n/out" \
        "coll_check -n $n: encore-run results differ from native mpirun"
    cat "$ENC_TMP/native.$n/out/"* >"$ENC_TMP/all.$n" || enc_fail "cannot read the results"
    lines=$(wc -l <"$ENC_TMP/all.$n")
    enc_log "-n $n: $lines result lines identical"
    rm -rf "$ENC_TMP/native.$n" "$ENC_TMP/encore.$n" "$ENC_TMP/all.$n"
done

# cross-memory attach (off by default): 3 ranks, the reduced sweep of 1 MiB
# and more, where each rank reads its peers' inputs from their buffers.
if [ "${COLL_CMA:-1}" = 1 ]; then
    run_one native 3 "$ENC_TMP/native.cma" --counts 1048576 --reduced-above 1000
    (
        export ENCORE_SHM_CMA=1 ENCORE_LOG=debug
        run_one encore 3 "$ENC_TMP/encore.cma" --counts 1048576 --reduced-above 1000
    )
    enc_compare_dirs "$ENC_TMP/native.cma/out" "$ENC_TMP/encore.cma/out" \
        "coll_check -n 3 with ENCORE_SHM_CMA=1: encore-run results differ from native mpirun"
    _cma=$(enc_count "$ENC_TMP/encore.cma/job.err" "cross-memory attach on")
    [ "$_cma" -eq 3 ] || enc_fail "ENCORE_SHM_CMA=1: $_cma ranks said cross-memory attach is on, want 3"
    enc_log "-n 3, ENCORE_SHM_CMA=1: results identical"
fi

if [ "$big" = 1 ]; then
    run_one native 2 "$ENC_TMP/native.big" --big
    check_big "$ENC_TMP/native.big" 2
    run_one encore 2 "$ENC_TMP/encore.big" --big
    check_big "$ENC_TMP/encore.big" 2
    enc_compare_dirs "$ENC_TMP/native.big/out" "$ENC_TMP/encore.big/out" \
        "coll_check --big: encore-run output differs from native mpirun"
fi
enc_finish
