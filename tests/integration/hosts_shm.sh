#!/bin/sh
# hosts_shm.sh - hierarchical world collectives across hosts (network
# namespaces, --rsh "ip netns exec"): on 2 hosts x 2 ranks each agent makes
# its host's shared-memory segment, allreduce (commutative ops), bcast and
# barrier go through it within a host and over TCP between the two host
# leaders only, and the results equal native mpirun's bit for bit:
#   coll      tests/programs/coll_check, counts 0,1,1000 (full sweep) and
#             300000 (reduced sweep) with 64 KiB chunks (many chunks per
#             collective); every rank's digest file equals native mpirun's,
#             and every rank says its host's collectives are hierarchical
#             through shared memory (ENCORE_LOG=debug)
#   member    rank 3 (not a leader) SIGKILLed at its 10th collective: it
#             restarts on its host, in its host's segment, and the job ends
#             exactly as the fault-free run
#   leader    the same for rank 2, host 2's leader, at its 15th
#   ring      every third allreduce of 512 KiB (kept in each host's result
#             ring, written once per host by the leader): rank 3 killed at
#             its 20th collective re-runs and is answered from logs whose
#             large entries are ring entries; exact output
#   comms     tests/programs/comm_churn (dups spanning both hosts, each host
#             with its own channel, hierarchical; splits over TCP), rank 3
#             killed at its 60th collective; exact output
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=180
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

REC_ITER="$ENC_PROGRAMS/recov_iter"
COLL="$ENC_PROGRAMS/coll_check"
netns_require
enc_require_program "$COLL"
rec_begin "$REC_ITER"
netns_create 2
h1=$(netns_name 1) h2=$(netns_name 2)
RSH="ip netns exec"
HOSTS="$h1:2,$h2:2"
HIER="shm: world collectives are hierarchical: 2 hosts, this host 2 ranks through shared memory"

# hier NAME: all 4 ranks used the hierarchical path through their segment.
hier() {
    _h=$(enc_count "$ENC_TMP/$1.err" "$HIER")
    [ "$_h" -ge 4 ] || { rec_show "$1"; enc_fail "$1: $_h ranks said '$HIER', want 4"; }
}

# -- coll: coll_check against native mpirun -------------------------------------
for side in native encore; do
    mkdir -p "$ENC_TMP/$side/out" "$ENC_TMP/$side/barrier" || enc_fail "mkdir failed"
done
ARGS="--counts 0,1,1000,300000 --reduced-above 1000"
# shellcheck disable=SC2086 # ARGS is a list of words
enc_run coll.native enc_mpirun 4 "$COLL" $ARGS \
    --out-dir "$ENC_TMP/native/out" --barrier-dir "$ENC_TMP/native/barrier"
enc_expect_status coll.native 0 "$ENC_RC"
coll_encore() (
    export ENCORE_LOG=debug ENCORE_SHM_CHUNK_BYTES=65536
    # shellcheck disable=SC2086
    enc_encore 4 --rsh "$RSH" -H "$HOSTS" "$COLL" $ARGS \
        --out-dir "$ENC_TMP/encore/out" --barrier-dir "$ENC_TMP/encore/barrier"
)
enc_run coll coll_encore
[ "$ENC_RC" -eq 0 ] || rec_show coll
enc_expect_status coll 0 "$ENC_RC"
enc_compare_dirs "$ENC_TMP/native/out" "$ENC_TMP/encore/out" \
    "coll: encore-run results across hosts differ from native mpirun"
hier coll
enc_log "coll: $(cat "$ENC_TMP/native/out/"* | wc -l) result lines identical"

# -- member / leader: a rank killed mid-run ------------------------------------
rec_ref it4 4 "$REC_ITER" --iters 30
REC_ENV="ENCORE_LOG=debug"
rec_run member 4 --rsh "$RSH" -H "$HOSTS" --inject kill:rank=3:op=10 "$REC_ITER" --iters 30
rec_ok member it4
rec_restarts member "0 0 0 1"
hier member
rec_run leader 4 --rsh "$RSH" -H "$HOSTS" --inject kill:rank=2:op=15 "$REC_ITER" --iters 30
rec_ok leader it4
rec_restarts leader "0 0 1 0"
hier leader
rec_ref itbig 4 "$REC_ITER" --iters 30 --big 65536 --big-every 3
rec_run ring 4 --rsh "$RSH" -H "$HOSTS" --inject kill:rank=3:op=20 "$REC_ITER" --iters 30 \
    --big 65536 --big-every 3
rec_ok ring itbig
rec_restarts ring "0 0 0 1"
hier ring
REC_ENV=

# -- comms: derived communicators across hosts (tests/programs/comm_churn) ----
# The dups span both hosts: each host's leader claims a channel in its own
# segment and their allreduces are hierarchical; the splits have one rank
# per host and run over TCP.  Rank 3 killed at its 60th collective (before
# the halfway point where comm_churn counts its descriptors).
CHURN="$ENC_PROGRAMS/comm_churn"
enc_require_program "$CHURN"
rec_ref churn 4 "$CHURN" 60
REC_ENV="ENCORE_LOG=debug"
rec_run comms 4 --rsh "$RSH" -H "$HOSTS" --inject kill:rank=3:op=60 "$CHURN" 60
rec_ok comms churn
rec_restarts comms "0 0 0 1"
_n=$(rec_count comms "shm: collectives on communicator [0-9a-f]+ are hierarchical: 2 hosts, this host 2 ranks through shared memory")
[ "$_n" -ge 100 ] || { rec_show comms; enc_fail "comms: $_n hierarchical communicator lines, want >= 100"; }
REC_ENV=
enc_log "ok comms ($REC_MS ms)"

enc_pass
