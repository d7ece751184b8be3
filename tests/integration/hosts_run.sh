#!/bin/sh
# hosts_run.sh - encore-run across hosts (network namespaces on a private
# bridge, reached with --rsh "ip netns exec"): every rank runs where the
# placement puts it, through that host's encore-agent, and the results equal
# native mpirun's bit for bit:
#   two       2 hosts, uneven slots (-H h1:2,h2:1), 3 ranks, fill by slot;
#             --summary shows every rank's private RSS and each host's
#             shared segment
#   three     3 hosts, uneven slots (--hostfile: 1, 3, 2 slots), 6 ranks,
#             --map-by node, --tag-output
#   tree      ENCORE_LOG=debug prints the ring (host by host) and the tree
#   killed    2 hosts, rank 1 SIGKILLed at its 10th collective: it restarts
#             on its own (live) host and the job ends exactly; nothing is
#             left in TMPDIR (the agents' and ranks' private directories)
#   snapon    snapshots on (0.1 s), no rank on encore-run's host: every
#             rank parks its images with its host's agent, and the summary
#             counts them; exact output (hosts_snapshot.sh kills and
#             restores such ranks)
#   toomany   more ranks than slots without --oversubscribe: one line, exit 2
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=90
. "$(dirname "$0")/lib.sh"
. "$ENC_SRCDIR/tests/integration/netns_lib.sh"

REC_ITER="$ENC_PROGRAMS/recov_iter"
netns_require
rec_begin "$REC_ITER"

netns_create 3
h1=$(netns_name 1) h2=$(netns_name 2) h3=$(netns_name 3)
RSH="ip netns exec"

# registered NAME RANK INC HOST: that incarnation registered from HOST's address.
registered() {
    rec_grep "$1" "rank $2 incarnation $3 \(pid [0-9]+\) registered from $(netns_addr "$4"):" \
        "rank $2 incarnation $3 did not run on host $4"
}

# -- two: 2 hosts, slots 2 + 1 -------------------------------------------------
rec_ref it3 3 "$REC_ITER" --iters 30
rec_run two 3 --rsh "$RSH" -H "$h1:2,$h2" --summary "$REC_ITER" --iters 30
rec_ok two it3
# the agents report their ranks' private memory and their host's segment
[ "$(grep -cE '^  rank [0-2] .* private RSS [1-9][0-9]*\.[0-9] MiB$' "$ENC_TMP/two.err")" -eq 3 ] ||
    { rec_show two; enc_fail "two: the summary lacks a private RSS for every rank"; }
grep -qE "^  shared segment on host $h1: [0-9]+\.[0-9] MiB in use, [1-9][0-9]*\.[0-9] MiB allocated\$" \
    "$ENC_TMP/two.err" || { rec_show two; enc_fail "two: the summary lacks host $h1's segment"; }
registered two 0 0 1
registered two 1 0 1
registered two 2 0 2

# -- three: hostfile with 1, 3 and 2 slots, round robin ------------------------
printf '# test hosts\n%s slots=1\n%s slots=3 max_slots=4\n\n%s slots=2\n' "$h1" "$h2" "$h3" \
    >"$ENC_TMP/hostfile" || enc_fail "cannot write the hostfile"
rec_ref it6 6 "$REC_ITER" --iters 30
rec_run three 6 --rsh "$RSH" --hostfile "$ENC_TMP/hostfile" --map-by node "$REC_ITER" --iters 30
rec_ok three it6
# round robin over 1/3/2 slots: h1 h2 h3 h2 h3 h2
registered three 0 0 1
registered three 1 0 2
registered three 2 0 3
registered three 3 0 2
registered three 4 0 3
registered three 5 0 2
rec_run tagged 6 --rsh "$RSH" --hostfile "$ENC_TMP/hostfile" --tag-output "$REC_ITER" --iters 30
enc_expect_status tagged 0 "$REC_RC"
for r in 0 1 2 3 4 5; do
    grep -q "^\[1,$r\]<stdout>: rank $r iters 30 " "$ENC_TMP/tagged.out" ||
        enc_fail "tagged: no tagged result line of rank $r"
done

# -- tree: ENCORE_LOG=debug shows the ring host by host, and the tree ------------
REC_ENV="ENCORE_LOG=debug"
rec_run tree 5 --rsh "$RSH" -H "$h2:2,$h1:2,$h3" "$REC_ITER" --iters 5
REC_ENV=
enc_expect_status tree 0 "$REC_RC"
rec_grep tree "tracker: ring, host by host: \[$h1: 2 3\] \[$h2: 0 1\] \[$h3: 4\]$" "ring not host by host"
rec_grep tree "tracker: tree \(root 2\): 2->3,0,4 0->1$" "tree not shown"

# -- killed: a rank dies on a live host and restarts there ---------------------
mkdir "$ENC_TMP/killed.tmp" || enc_fail "mkdir failed"
REC_ENV="TMPDIR=$ENC_TMP/killed.tmp"
rec_run killed 3 --rsh "$RSH" -H "$h1:2,$h2" --inject kill:rank=1:op=10 "$REC_ITER" --iters 30
REC_ENV=
rec_ok killed it3
rec_restarts killed "0 1 0"
registered killed 1 1 1
# the agents' job directories (the killed rank's session files) are gone
enc_expect_empty_dir "$ENC_TMP/killed.tmp" killed

# -- snapon: every rank's images park with its own host's agent ---------------
REC_ENV="ENCORE_SNAPSHOT_S=0.1"
rec_run snapon 3 --rsh "$RSH" -H "$h1:2,$h2" --summary "$REC_ITER" --iters 30 --usleep 20000
REC_ENV=
rec_ok snapon it3
[ "$(rec_count snapon "snapshots off on this rank")" -eq 0 ] ||
    { rec_show snapon; enc_fail "snapon: a rank says its images cannot be parked"; }
for r in 0 1 2; do
    rec_grep snapon "^  rank $r +snapshots taken [1-9][0-9]* +used 0\$" \
        "rank $r's snapshots are not counted"
done

# -- toomany: 4 ranks, 3 slots --------------------------------------------------
rec_run toomany 4 --rsh "$RSH" -H "$h1:2,$h2" "$REC_ITER" --iters 30
enc_expect_status toomany 2 "$REC_RC"
[ "$(cat "$ENC_TMP/toomany.err")" = "encore-run: -n 4: more ranks than the 3 slots of the hosts (add slots or use --oversubscribe)" ] ||
    { enc_show "$ENC_TMP/toomany.err"; enc_fail "toomany: not exactly one line of refusal"; }

enc_pass
