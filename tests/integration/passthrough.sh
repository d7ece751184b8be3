#!/bin/sh
# passthrough: under a plain mpirun (no encore tracker), preloading
# libencore.so must not change what a program does: the output of
# tests/programs/passthrough_prog with LD_PRELOAD is identical to without.
# Also checks that libencore.so exports only MPI_*/PMPI_*/mpi_*/pmpi_*/
# encore_* and defines both MPI_Allreduce and PMPI_Allreduce.
# Run by `make check` from the build directory.
set -u
b=$(pwd)
lib=$b/.libs/libencore.so
prog=$b/tests/programs/passthrough_prog
out=$b/tests/integration/passthrough.dir
limit=120

command -v mpirun >/dev/null 2>&1 || { echo "SKIP: mpirun not found"; exit 77; }
command -v nm >/dev/null 2>&1 || { echo "SKIP: nm not found (binutils)"; exit 77; }
for f in "$lib" "$prog"; do
    [ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
fail() { echo "FAIL: $*"; exit 1; }

# -- exported symbols ---------------------------------------------------------
bad=$(nm -D --defined-only "$lib" | awk 'NF >= 3 { print $3 }' |
      grep -v -E '^(MPI_|PMPI_|mpi_|pmpi_|encore_)' | grep -v -E '^(_init|_fini)$')
[ -z "$bad" ] || fail "libencore.so exports internal names: $(echo $bad | head -c 300)"
for s in MPI_Allreduce PMPI_Allreduce MPI_Init_thread PMPI_Init_thread MPI_Send PMPI_Send encore_active; do
    nm -D --defined-only "$lib" | awk '{ print $3 }' | grep -qx "$s" || fail "$s is not exported"
done
echo "ok: exports"

# -- output identical with and without the preload ----------------------------
rm -rf "$out" && mkdir -p "$out"
unset ENCORE_TRACKER
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
run() { # name, env...
    name=$1; shift
    env "$@" timeout $limit mpirun -n 3 --oversubscribe "$prog" \
        >"$out/$name.out" 2>"$out/$name.err"
    rc=$?
    [ $rc -eq 0 ] || { cat "$out/$name.err"; fail "$name run exited $rc"; }
}
run plain
run preload LD_PRELOAD="$lib"
grep -q "libencore not loaded" "$out/plain.err" || fail "plain run: libencore was loaded?"
grep -q "libencore loaded" "$out/preload.err" || fail "preload run did not load libencore"
[ -s "$out/plain.out" ] || fail "plain run printed nothing"
if ! cmp -s "$out/plain.out" "$out/preload.out"; then
    diff "$out/plain.out" "$out/preload.out"
    fail "output differs with libencore preloaded"
fi
grep -q "self collectives ok on every rank: 1" "$out/plain.out" || fail "self collectives"
cat "$out/preload.out"
echo "ok: identical output with LD_PRELOAD=$lib"
rm -rf "$out"
