#!/bin/sh
# unsupported_call: in encore mode, MPI_Send on MPI_COMM_WORLD is refused
# with a message naming the function.  With the default error handler
# (MPI_ERRORS_ARE_FATAL) the job ends non-zero; with MPI_ERRORS_RETURN on
# the world the program gets MPI_ERR_UNSUPPORTED_OPERATION back.
# Run by `make check` from the build directory.
set -u
b=$(pwd)
run=$b/encore-run
prog=$b/tests/programs/send_on_world
out=$b/tests/integration/unsupported_call.dir
limit=60
msg='MPI_Send on MPI_COMM_WORLD is not supported in encore mode (point-to-point; encore serves collectives and communicator/group management on the world and communicators derived from it)'

for f in "$run" "$prog" "$b/.libs/libencore.so"; do
    [ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$out" && mkdir -p "$out"
unset ENCORE_TRACKER

# -- fatal: the job fails and says why -----------------------------------------
timeout $limit "$run" -n 2 "$prog" >"$out/fatal.out" 2>"$out/fatal.err"
rc=$?
[ $rc -ne 124 ] || fail "fatal variant timed out after ${limit}s"
[ $rc -ne 0 ] || { cat "$out/fatal.out" "$out/fatal.err"; fail "job succeeded despite MPI_Send on the world"; }
grep -qF "$msg" "$out/fatal.err" || { cat "$out/fatal.err"; fail "stderr lacks: $msg"; }
grep -q "returned class" "$out/fatal.out" && fail "MPI_Send returned under MPI_ERRORS_ARE_FATAL"
echo "ok: fatal (exit $rc): $(grep -F "$msg" "$out/fatal.err" | head -1)"

# -- MPI_ERRORS_RETURN: the error code comes back ------------------------------
timeout $limit "$run" -n 2 "$prog" return >"$out/return.out" 2>"$out/return.err"
rc=$?
[ $rc -eq 0 ] || { cat "$out/return.out" "$out/return.err"; fail "return variant exited $rc"; }
grep -qF "$msg" "$out/return.err" || { cat "$out/return.err"; fail "stderr lacks: $msg"; }
for r in 0 1; do
    grep -q "rank $r: MPI_Send returned class 52 " "$out/return.out" ||
        { cat "$out/return.out"; fail "rank $r did not get MPI_ERR_UNSUPPORTED_OPERATION (52)"; }
done
echo "ok: MPI_ERRORS_RETURN: $(head -1 "$out/return.out")"
rm -rf "$out"
