#!/bin/sh
# dev.sh - one entry point for a fresh Debian 12 machine (run as root, or
# with sudo available for apt-get).
#
#   ./dev.sh demo    install packages, build, run the demo job: k-means on
#                    4 ranks under encore-run with one rank killed mid-run
#   ./dev.sh test    install packages, build, run the whole test suite,
#                    then each fuzz target for FUZZ_SECONDS (default 20)
#   ./dev.sh build   install packages and build only
#
# Every step is idempotent; the build lives in _build/, the install in
# _install/.
set -eu

ROOT=$(cd "$(dirname "$0")" && pwd)
BUILD=$ROOT/_build
PREFIX=$ROOT/_install
PACKAGES="build-essential autoconf automake libtool pkg-config openmpi-bin
libopenmpi-dev libhwloc-dev hwloc libcriterion-dev libssl-dev libdw-dev python3
python3-mpi4py python3-numpy libopenblas0-pthread libomp5 gfortran iproute2
iputils-ping procps gnuplot-nox lammps"

say() { printf '==> %s\n' "$*"; }

install_packages() {
    missing=""
    for p in $PACKAGES; do
        dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    say "installing Debian packages:$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
}

build() {
    install_packages
    cd "$ROOT"
    if [ ! -x configure ] || [ configure.ac -nt configure ]; then
        say "autoreconf"
        autoreconf -fi >/dev/null
    fi
    mkdir -p "$BUILD"
    cd "$BUILD"
    if [ ! -f Makefile ]; then
        say "configure"
        "$ROOT/configure" -q --prefix="$PREFIX"
    fi
    say "make"
    make -s -j"$(nproc)" >/dev/null
    make -s install >/dev/null
}

demo() {
    build
    cd "$BUILD"
    make -s bench/kmeans >/dev/null
    say "k-means, 4 ranks, fault-free, native Open MPI"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -n 4 --oversubscribe ./bench/kmeans 60 42 200000 | tee native.out
    say "k-means, 4 ranks under encore-run; rank 2 is SIGKILLed at its 40th collective"
    ENCORE_LOG=info "$PREFIX/bin/encore-run" -n 4 --inject kill:rank=2:op=40 \
        ./bench/kmeans 60 42 200000 2> demo.err | tee encore.out
    # the recovery as encore tells it (ENCORE_LOG=info also logs every
    # collective; those lines stay in _build/demo.err)
    grep -v ' coll: ' demo.err | grep -E 'died|restarting|caught up|job summary|^  (rank|recovery)' || true
    if cmp -s native.out encore.out; then
        say "identical to the fault-free native run: recovery is exact"
    else
        say "MISMATCH between native and encore output"
        exit 1
    fi
}

# Each libFuzzer target for FUZZ_SECONDS (default 20) when clang with
# libFuzzer can be installed; skipped with a message otherwise.  Results
# go to check.out like the tests' (PASS/FAIL lines).
run_fuzz() {
    if ! command -v clang >/dev/null 2>&1 || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
        SUDO=""
        [ "$(id -u)" -eq 0 ] || SUDO=sudo
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
            clang libclang-rt-14-dev >/dev/null 2>&1 || true
    fi
    if ! command -v clang >/dev/null 2>&1; then
        say "fuzzing skipped: clang with libFuzzer could not be installed"
        echo "SKIP: make fuzz (no clang)" >>check.out
        return 0
    fi
    say "make fuzz (${FUZZ_SECONDS:-20} s per target)"
    if make -s fuzz FUZZ_CC="$(command -v clang)" FUZZ_SECONDS="${FUZZ_SECONDS:-20}" >fuzz.out 2>&1; then
        echo "PASS: make fuzz" >>check.out
    else
        echo "FAIL: make fuzz" >>check.out
        tail -30 fuzz.out
        return 1
    fi
    grep -E '^(== |#|FAIL)' fuzz.out || true
}

run_tests() {
    build
    cd "$BUILD"
    say "make check"
    rc=0
    # Build the test programs in parallel, then run the tests one at a
    # time: they are real multi-rank jobs (8 ranks on 2 cores), and the
    # recovery tests inject failures against the clock (heartbeats, a kill
    # every 2 s), so they should not compete with each other for the CPU.
    make -j"$(nproc)" check TESTS= >check.out 2>&1 || rc=$?
    [ "$rc" -ne 0 ] || make check >>check.out 2>&1 || rc=$?
    grep -E '^(PASS|FAIL|SKIP|XFAIL|XPASS|ERROR):' check.out || true
    if [ "$rc" -ne 0 ]; then
        for log in $(grep -lE '^:test-result: (FAIL|ERROR)' $(find . -name '*.trs') 2>/dev/null); do
            say "log of failed test ${log%.trs}"
            tail -40 "${log%.trs}.log"
        done
    fi
    run_fuzz || rc=$?
    pass=$(grep -c '^PASS:' check.out || true)
    fail=$(grep -cE '^(FAIL|ERROR|XPASS):' check.out || true)
    skip=$(grep -c '^SKIP:' check.out || true)
    [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
    echo "$pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
}

case "${1:-}" in
    demo) demo ;;
    test) run_tests ;;
    build) build ;;
    *) echo "usage: $0 demo|test|build" >&2; exit 2 ;;
esac
