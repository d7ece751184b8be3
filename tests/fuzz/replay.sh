#!/bin/sh
# replay.sh - make check: every fuzz target (plain build, tests/fuzz/fuzz_*)
# runs over its seed corpus and its regression inputs, so a crash once
# found stays fixed even where clang and libFuzzer are missing.
set -u
: "${srcdir:=.}"
fuzzdir=$srcdir/tests/fuzz
rc=0
n=0
for corpus in "$fuzzdir"/corpus/*/; do
    t=$(basename "$corpus")
    bin=tests/fuzz/fuzz_$t
    if [ ! -x "$bin" ]; then
        echo "FAIL: $bin is not built"; rc=1; continue
    fi
    set -- "$corpus"
    [ -d "$fuzzdir/regressions/$t" ] && set -- "$@" "$fuzzdir/regressions/$t"
    if ! "$bin" "$@"; then
        echo "FAIL: $t: an input crashed or failed its oracle (output above)"
        rc=1
    fi
    n=$((n + 1))
done
for src in "$fuzzdir"/fuzz_*.c; do
    t=$(basename "$src" .c); t=${t#fuzz_}
    [ "$t" = common ] && continue
    [ -d "$fuzzdir/corpus/$t" ] || { echo "FAIL: target $t has no tests/fuzz/corpus/$t"; rc=1; }
done
[ "$n" -gt 0 ] || { echo "FAIL: no corpus under $fuzzdir/corpus"; rc=1; }
exit $rc
