#!/bin/sh
# recovery_log.sh - the result log's memory cap (ENCORE_LOG_MEM_MAX), 4 ranks,
# tests/programs/recov_iter (100 iterations, 512-byte allreduces), rank 1
# killed at collective 50:
#   spill     ENCORE_LOG_MEM_MAX=4096 with ENCORE_SPILL_DIR: old results go
#             to the spill file, the restarted rank is answered from it, the
#             result is exact and nothing is dropped
#   nospill   the same cap with spilling off (ENCORE_SPILL_MAX=0): one
#             warning that old results are dropped, then the replay of a
#             dropped result ends the job (exit status 1) with a message
#             naming its sequence number and the dropped range
# (The default spill under TMPDIR and its budget: recovery_spill.sh.)
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=60
. "$(dirname "$0")/lib.sh"

rec_begin "$REC_ITER"
rec_ref it4 4 "$REC_ITER" --iters 100

mkdir -p "$ENC_TMP/spill"
REC_ENV="ENCORE_LOG_MEM_MAX=4096 ENCORE_SPILL_DIR=$ENC_TMP/spill"
rec_run spill 4 --inject kill:rank=1:op=50 "$REC_ITER" --iters 100
rec_ok spill it4
rec_restarts spill "0 1 0 0"
rec_expect spill 1 replayed 49
dropped=$(rec_count spill 'dropping results')
[ "$dropped" -eq 0 ] || enc_fail "spill: results were dropped"
left=$(ls -A "$ENC_TMP/spill")
[ -z "$left" ] || enc_fail "spill: spill files left behind: $left"
enc_log "ok spill ($REC_MS ms)"

REC_ENV="ENCORE_LOG_MEM_MAX=4096 ENCORE_SPILL_MAX=0"
rec_run nospill 4 --inject kill:rank=1:op=50 "$REC_ITER" --iters 100
REC_ENV=
[ "$REC_RC" -eq 1 ] || rec_show nospill
enc_expect_status nospill 1 "$REC_RC"
rec_grep nospill 'warning: result log above ENCORE_LOG_MEM_MAX \(4096 bytes\) and it has no spill file \(ENCORE_SPILL_MAX=0, or none could be made\): dropping results from seq [0-9]+ on' \
    "nospill: no warning about dropped results"
rec_grep nospill '^encore-run: rank 1 called MPI_Abort .*seq [0-9]+ failed on rank 1: logged results lost$' \
    "nospill: no clear 'lost' line"
rec_grep nospill 'result of collective seq [0-9]+ is lost: rank [0-9]+ dropped results [0-9]+\.\.[0-9]+ from its log' \
    "nospill: the lost sequence number and the dropped range are not named"
rec_within nospill 15000
enc_log "ok nospill (exit $REC_RC, $REC_MS ms)"
enc_finish
