#!/bin/sh
# lammps_melt.sh - an unmodified application as the acceptance test: LAMMPS
# from Debian (lmp, linked with Open MPI) runs the Lennard-Jones melt
# (tests/programs/lammps_melt.in: 6912 atoms, 500 steps, thermo every 50) on
# 4 ranks.  LAMMPS uses a Cartesian communicator, point-to-point halo
# exchanges (Sendrecv, Irecv/Send/Wait, Rsend) and collectives.
#   native  mpirun: the reference thermo table
#   free    encore-run: the same table, each number equal to native's to the
#           printed digits (reductions may add in another order: a relative
#           difference up to 1e-6, one unit in the last printed digit)
#   kill    encore-run, rank 1 SIGKILLs itself at half of its collectives
#           (counted in the free run's summary): restarted once, and the
#           thermo table is identical to the free run's, digit for digit
# Skips when lmp is not installed (./dev.sh installs Debian's lammps).
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=240
. "$(dirname "$0")/lib.sh"

command -v lmp >/dev/null 2>&1 || enc_skip "lmp not installed (apt-get install lammps)"
enc_require_launchers
enc_tmpdir
cd "$ENC_TMP" || enc_fail "cd failed"  # lmp writes nothing else there (-log none)
input="$ENC_SRCDIR/tests/programs/lammps_melt.in"
set -- lmp -in "$input" -var size 12 -var steps 500 -var every 50 -log none

# thermo NAME: the thermo rows of run NAME's stdout (from "Step" to "Loop").
thermo() {
    awk '/^Step /{on=1; next} /^Loop time/{on=0} on' "$ENC_TMP/$1.raw" >"$ENC_TMP/$1.thermo" ||
        enc_fail "$1: awk failed"
    _rows=$(wc -l <"$ENC_TMP/$1.thermo")
    [ "$_rows" -eq 11 ] || { enc_show "$ENC_TMP/$1.raw"; enc_fail "$1: $_rows thermo rows, want 11"; }
}

enc_run_ok native enc_mpirun 4 "$@"
thermo native

export ENCORE_LOG=info
enc_run free enc_encore 4 --summary "$@"
enc_expect_status free 0
thermo free
awk 'NR == FNR { for (i = 1; i <= NF; i++) ref[FNR, i] = $i; n[FNR] = NF; next }
     { if (NF != n[FNR]) { print "row " FNR ": " NF " fields"; bad = 1; next }
       for (i = 1; i <= NF; i++) {
           d = $i - ref[FNR, i]; if (d < 0) d = -d
           m = ref[FNR, i]; if (m < 0) m = -m; if (m < 1) m = 1
           if (d > 1e-6 * m) { print "row " FNR " field " i ": " $i " vs native " ref[FNR, i]; bad = 1 } } }
     END { exit bad }' "$ENC_TMP/native.thermo" "$ENC_TMP/free.thermo" >"$ENC_TMP/cmp.txt" ||
    { enc_show "$ENC_TMP/cmp.txt"; enc_fail "free: thermo differs from native beyond the printed digits"; }
enc_log "ok free (thermo equals native's to the printed digits)"

ncoll=$(awk '$1 == "rank" && $2 == 1 && $3 == "restarts" { for (i = 3; i < NF; i++) if ($i == "collectives") print $(i + 1) }' \
    "$ENC_TMP/free.err")
[ -n "$ncoll" ] && [ "$ncoll" -ge 4 ] || { enc_show "$ENC_TMP/free.err"; enc_fail "free: no collective count for rank 1"; }
at=$((ncoll / 2))

enc_run kill enc_encore 4 --summary --inject "kill:rank=1:op=$at" "$@"
enc_expect_status kill 0
thermo kill
enc_expect_same "$ENC_TMP/free.thermo" "$ENC_TMP/kill.thermo" "kill: thermo differs from the fault-free encore run"
awk '$1 == "rank" && $2 == 1 && $3 == "restarts" && $4 == 1 { ok = 1 } END { exit !ok }' "$ENC_TMP/kill.err" ||
    { enc_show "$ENC_TMP/kill.err" 40; enc_fail "kill: rank 1 was not restarted once"; }
enc_log "ok kill (rank 1 killed at collective $at of $ncoll, thermo identical)"
enc_pass
