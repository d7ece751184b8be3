#!/bin/sh
# leaks_short.sh - the short version of bench/leaks.sh: rank 0 of
# tests/programs/soak_mix (4 ranks) over ~20000 small collectives and 3
# SIGKILL recoveries of other ranks; its descriptors come back to the steady
# count (plus at most one kept log-service socket per peer) and its RSS grows
# by less than 256 bytes per collective (see bench/leaks.sh for both bounds).
# Not a timing assertion: counts and bytes only.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=300
. "$(dirname "$0")/lib.sh"

enc_require_program "$ENC_PROGRAMS/soak_mix"
enc_require_launchers
enc_tmpdir
enc_run leaks enc_bounded "$ENC_LIMIT" env LEAKS_COLLS=20000 LEAKS_KILLS=3 LEAKS_CHECK=1 \
    top_builddir="$ENC_BUILDDIR" sh "$ENC_SRCDIR/bench/leaks.sh"
cat "$ENC_TMP/leaks.raw" >&2
enc_expect_status leaks 0
enc_expect_grep "$ENC_TMP/leaks.raw" '^leaks: fds   first [0-9]+ steady [0-9]+ final [0-9]+' "fd figures"
enc_pass
