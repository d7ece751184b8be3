# tests/fuzz/configure.m4 - clang with libFuzzer for `make fuzz` (included
# by configure.ac).  Optional: without it `make fuzz` explains what to
# install, and `make check` still replays the fuzz corpora with $CC.
# Sets FUZZ_CC (empty when unusable) and enc_fuzz_summary.
AC_ARG_VAR([FUZZ_CC], [clang able to link -fsanitize=fuzzer (for make fuzz)])
AS_IF([test -z "$FUZZ_CC"], [AC_PATH_PROGS([FUZZ_CC], [clang clang-16 clang-15 clang-14])])
enc_fuzz_summary="no (install the Debian packages clang and libclang-rt-14-dev)"
AS_IF([test -n "$FUZZ_CC"],
  [AC_MSG_CHECKING([whether $FUZZ_CC links libFuzzer with ASan and UBSan])
   cat >conftest-fuzz.c <<_ENC_EOF
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
_ENC_EOF
   AS_IF([$FUZZ_CC -fsanitize=fuzzer,address,undefined conftest-fuzz.c -o conftest-fuzz \
            >&AS_MESSAGE_LOG_FD 2>&1],
     [AC_MSG_RESULT([yes]); enc_fuzz_summary="yes ($FUZZ_CC)"],
     [AC_MSG_RESULT([no]); FUZZ_CC=""])
   rm -f conftest-fuzz.c conftest-fuzz])
AC_SUBST([FUZZ_CC])
