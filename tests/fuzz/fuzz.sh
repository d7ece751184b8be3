#!/bin/sh
# fuzz.sh - libFuzzer builds and runs for `make fuzz` (tests/fuzz/local.mk
# passes the compiler, flags and source lists; see tests/fuzz/README.md).
#   fuzz.sh lib NAME SOURCES...      compile a library's sources (instrumented)
#                                    into tests/fuzz/libfuzzer/libNAME.a
#   fuzz.sh target NAME SOURCES...   link tests/fuzz/libfuzzer/fuzz_NAME
#   fuzz.sh run TARGET...            run each for FUZZ_SECONDS; new inputs go to
#                                    tests/fuzz/libfuzzer/work/TARGET, crashes to
#                                    tests/fuzz/libfuzzer/crash/TARGET-*
# Objects are rebuilt only when their source is newer.
set -eu
out=tests/fuzz/libfuzzer
san="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all"
cflags="-g -O1 -fno-omit-frame-pointer $san -fsanitize=fuzzer-no-link -pthread"

need_cc() {
    if [ -z "${FUZZ_CC:-}" ]; then
        echo "make fuzz: no clang with libFuzzer was found at configure time;" \
             "install the Debian packages clang and libclang-rt-14-dev, then re-run configure" >&2
        exit 1
    fi
}

# obj SRC: compiles SRC (relative to srcdir) and prints the object's path.
obj() {
    o=$out/obj/$(echo "$1" | sed 's/\.c$/.o/')
    if [ ! -f "$o" ] || [ "$srcdir/$1" -nt "$o" ]; then
        mkdir -p "$(dirname "$o")"
        # shellcheck disable=SC2086
        $FUZZ_CC $cflags $FUZZ_CPPFLAGS -I"$srcdir/tests/fuzz" -c "$srcdir/$1" -o "$o"
    fi
    echo "$o"
}

lib() {
    name=$1; shift
    objs=""
    for s in "$@"; do objs="$objs $(obj "$s")"; done
    rm -f "$out/lib$name.a"
    # shellcheck disable=SC2086
    ar rcs "$out/lib$name.a" $objs
}

target() {
    name=$1; shift
    objs=""
    for s in "$@"; do
        case "$s" in */driver.c) continue ;; esac  # libFuzzer has the main()
        objs="$objs $(obj "$s")"
    done
    echo "  FUZZ     $out/fuzz_$name"
    # shellcheck disable=SC2086
    $FUZZ_CC $cflags -fsanitize=fuzzer -o "$out/fuzz_$name" $objs \
        "$out/libtracker.a" "$out/libcore.a" $FUZZ_LIBS
}

run() {
    rc=0
    mkdir -p "$out/crash"
    for t in "$@"; do
        work=$out/work/$t
        mkdir -p "$work"
        set -- "$work" "$srcdir/tests/fuzz/corpus/$t"
        [ -d "$srcdir/tests/fuzz/regressions/$t" ] && set -- "$@" "$srcdir/tests/fuzz/regressions/$t"
        echo "== fuzz_$t for ${FUZZ_SECONDS}s"
        if "$out/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -timeout=10 -print_final_stats=1 \
            -artifact_prefix="$out/crash/$t-" "$@" >"$out/$t.log" 2>&1; then
            grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss' "$out/$t.log" | tr '\n' ' '
            echo
        else
            echo "FAIL: fuzz_$t found a crash (log: $out/$t.log):"
            grep -E 'ERROR|SUMMARY|Test unit written' "$out/$t.log" | head -5
            rc=1
        fi
    done
    return $rc
}

need_cc
mkdir -p "$out"
cmd=$1; shift
case "$cmd" in
    lib) lib "$@" ;;
    target) target "$@" ;;
    run) run "$@" ;;
    *) echo "usage: fuzz.sh lib|target|run ..." >&2; exit 2 ;;
esac
