# fortran_lib.sh - shared by tests/integration/fortran_*.sh (sourced).
# Run from the build directory (as `make check` does).  Builds the Fortran
# test programs with configure's MPIFC, twice: plainly (libencore comes in
# through encore-run's LD_PRELOAD) and relinked with -lencore ahead of Open
# MPI's libraries.  Skips (77) only when configure left Fortran out.
set -u
b=$(pwd)
src=${srcdir:-$(dirname "$0")/../..}
case $src in /*) ;; *) src=$b/$src ;; esac
limit=120
if [ ! -f "$b/fortran/test.env" ]; then
    echo "SKIP: Fortran support was not configured (see configure's 'Fortran' line)"
    exit 77
fi
. "$b/fortran/test.env"
lib=$b/.libs/libencore.so
run=$b/encore-run
for f in "$lib" "$run" "$ENC_FMODDIR/encore.mod"; do
    [ -e "$f" ] || { echo "FAIL: $f was not built"; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
unset ENCORE_TRACKER

fail() { echo "FAIL: $*"; exit 1; }

# style name -> compile flags for tests/programs/fortran_coll.F90.  mpif.h
# has no interfaces: gfortran >= 10 needs -fallow-argument-mismatch for it.
style_flags() {
    case $1 in
        mpifh) echo "-DSTYLE=1 -fallow-argument-mismatch -w" ;;
        usempi) echo "-DSTYLE=2" ;;
        f08) echo "-DSTYLE=3" ;;
    esac
}

# fbuild_enc OUT SOURCE FLAGS...: OUT.enc, relinked against libencore.
fbuild_enc() {
    out=$1 srcf=$2; shift 2
    $MPIFC "$@" -I"$ENC_FMODDIR" ${FC_MODOUT}"$(dirname "$out")" -o "$out.enc" "$srcf" \
        -L"$b/.libs" -lencore -Wl,-rpath,"$b/.libs" \
        >>"$out.build.log" 2>&1 || { cat "$out.build.log"; fail "cannot relink $out"; }
}

# fbuild OUT SOURCE FLAGS...: plain OUT and relinked OUT.enc.
fbuild() {
    out=$1 srcf=$2; shift 2
    $MPIFC "$@" ${FC_MODOUT}"$(dirname "$out")" -o "$out" "$srcf" \
        >"$out.build.log" 2>&1 || { cat "$out.build.log"; fail "cannot build $out"; }
    fbuild_enc "$out" "$srcf" "$@"
}


# native NAME N PROG: the reference, under Open MPI's own mpirun.
native() {
    timeout $limit "$MPIRUN" -n "$2" --oversubscribe "$3" 2>"$dir/$1.err" |
        sort >"$dir/$1.out"
    [ -s "$dir/$1.out" ] || { tail -20 "$dir/$1.err"; fail "native $1 printed nothing"; }
}

# encore NAME N PROG [encore-run options]: the same under encore-run.
encore() {
    name=$1 n=$2 prog=$3; shift 3
    timeout $limit "$run" -n "$n" "$@" "$prog" >"$dir/$name.raw" 2>"$dir/$name.err"
    rc=$?
    sort "$dir/$name.raw" >"$dir/$name.out"
    [ $rc -eq 0 ] || { tail -20 "$dir/$name.err"; fail "$name: encore-run exited $rc"; }
}

same() { # REF NAME
    cmp -s "$dir/$1.out" "$dir/$2.out" ||
        { diff "$dir/$1.out" "$dir/$2.out" | head -20; fail "$2 differs from $1"; }
}
