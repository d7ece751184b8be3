#!/bin/sh
# unsupported_call: in encore mode, MPI_Win_create_dynamic on MPI_COMM_WORLD is refused
# with a message naming the function.  With the default error handler
# (MPI_ERRORS_ARE_FATAL) the job ends with exit status 1; with
# MPI_ERRORS_RETURN on the world the program gets
# MPI_ERR_UNSUPPORTED_OPERATION back and the job exits 0.  On a dup of the
# world with MPI_ERRORS_RETURN, what encore does not serve
# (one-sided windows, MPI-IO, dynamic processes) is refused the same way,
# each with one line naming the function and the communicator.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

prog="$ENC_PROGRAMS/refused_on_world"
msg='MPI_Win_create_dynamic on MPI_COMM_WORLD is not supported in encore mode (one-sided communication;'
enc_require_program "$prog"
enc_require_launchers
unset ENCORE_TRACKER
enc_tmpdir

# -- fatal: the job fails and says why -----------------------------------------
enc_run fatal enc_encore 2 "$prog"
enc_expect_status fatal 1
grep -qF "$msg" "$ENC_TMP/fatal.err" || { enc_show "$ENC_TMP/fatal.err"; enc_fail "stderr lacks: $msg"; }
enc_expect_no_grep "$ENC_TMP/fatal.raw" "returned class" "MPI_Win_create_dynamic returned under MPI_ERRORS_ARE_FATAL"
enc_log "ok: fatal (exit $ENC_RC)"

# -- MPI_ERRORS_RETURN: the error code comes back ------------------------------
enc_run_ok return enc_encore 2 "$prog" return
grep -qF "$msg" "$ENC_TMP/return.err" || { enc_show "$ENC_TMP/return.err"; enc_fail "stderr lacks: $msg"; }
for r in 0 1; do
    enc_expect_grep "$ENC_TMP/return.raw" "rank $r: MPI_Win_create_dynamic returned class 52 " \
        "rank $r did not get MPI_ERR_UNSUPPORTED_OPERATION (52)"
done
enc_log "ok: MPI_ERRORS_RETURN"

# -- refusals on a derived communicator -----------------------------------------
enc_run_ok derived enc_encore 2 "$prog" derived
for fn in MPI_Win_create MPI_Comm_spawn; do
    grep -qF "$fn on a communicator derived from it is not supported in encore mode" \
        "$ENC_TMP/derived.err" || { enc_show "$ENC_TMP/derived.err"; enc_fail "stderr lacks the refusal of $fn"; }
    for r in 0 1; do
        enc_expect_grep "$ENC_TMP/derived.raw" "rank $r: $fn returned class 52 " \
            "rank $r: $fn did not return MPI_ERR_UNSUPPORTED_OPERATION (52)"
    done
done
enc_log "ok: refusals on a derived communicator"
enc_pass
