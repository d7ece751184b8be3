# m4/sanitizers.m4 - --enable-sanitizers (included by configure.ac).
#
#   --enable-sanitizers[=address]   ASan + UBSan; UBSan does not recover, so
#                                   any report fails the test that caused it
#   --enable-sanitizers=thread      ThreadSanitizer (the threaded parts:
#                                   listener thread, tracker client)
# Everything is built instrumented.  ENC_SANITIZER_RUNTIME (config.h) is
# the sanitizer's shared runtime: encore-run puts it first in LD_PRELOAD
# when it preloads the instrumented libencore.so into a program that is not
# instrumented (python3, a Fortran program), as the runtime must be the
# first library loaded.
AC_ARG_ENABLE([sanitizers],
  [AS_HELP_STRING([--enable-sanitizers@<:@=address|thread@:>@],
     [build with ASan+UBSan (address, the default) or ThreadSanitizer (thread)])],
  [], [enable_sanitizers=no])
enc_san_flags=""
enc_san_lib=""
AS_CASE([$enable_sanitizers],
  [no], [],
  [yes|address], [enable_sanitizers=address
     enc_san_flags="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
     enc_san_lib=libasan.so],
  [thread], [enc_san_flags="-fsanitize=thread -fno-omit-frame-pointer"
     enc_san_lib=libtsan.so],
  [AC_MSG_ERROR([--enable-sanitizers=$enable_sanitizers: expected address or thread])])
AS_IF([test -n "$enc_san_flags"],
  [CFLAGS="$CFLAGS -g $enc_san_flags"
   LDFLAGS="$LDFLAGS $enc_san_flags"
   FCFLAGS="$FCFLAGS -g $enc_san_flags"
   AC_MSG_CHECKING([for the $enc_san_lib runtime of $CC])
   enc_san_rt=`$CC -print-file-name=$enc_san_lib`
   enc_san_rt=`readlink -f "$enc_san_rt" 2>/dev/null`
   AS_IF([test -f "$enc_san_rt"],
     [AC_MSG_RESULT([$enc_san_rt])],
     [AC_MSG_RESULT([no])
      AC_MSG_ERROR([$CC has no $enc_san_lib: install the Debian package of its sanitizer runtime (e.g. libasan8, libtsan2)])])
   AC_DEFINE_UNQUOTED([ENC_SANITIZER_RUNTIME], ["$enc_san_rt"],
     [sanitizer runtime to preload ahead of an instrumented libencore.so])])
AM_CONDITIONAL([ENABLE_SANITIZERS], [test -n "$enc_san_flags"])
AC_SUBST([ENC_SANITIZERS], [$enable_sanitizers])
