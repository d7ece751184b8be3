# soak_lib.sh - helpers of the kill soaks (bench/soak.sh, bench/p2p_soak.sh),
# sourced after tests/integration/lib.sh (POSIX sh).
# shellcheck shell=sh

# rand N: sets R to a pseudo-random integer in 0..N-1 (LCG on rng, which
# the soak seeds).
rand() {
    rng=$(((rng * 1103515245 + 12345) % 2147483648))
    # shellcheck disable=SC2034 # R is the result
    R=$(((rng / 65536) % $1))
}

# msleep MS: sleeps MS milliseconds.
msleep() { sleep "$(($1 / 1000)).$(printf '%03d' $(($1 % 1000)))"; }

# wait_rank RUNPID RANK NOTPID: waits (at most 20 s) for RANK's process of
# encore-run RUNPID other than NOTPID (0: any); prints its pid, or nothing
# when the job ended first.
wait_rank() {
    for _ in $(seq 1 2000); do
        _w=$(enc_rank_pid "$1" "$2")
        [ -z "$_w" ] || [ "$_w" = "$3" ] || { echo "$_w"; return 0; }
        kill -0 "$1" 2>/dev/null || return 0
        sleep 0.01
    done
}
