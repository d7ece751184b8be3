#!/bin/sh
# snapshot_threads.sh - snapshots of ranks that run a library's thread pool
# (what each does across a fork: docs/snapshots.md).  Each job is SIGKILLed
# from outside late in the run, once rank 1 parked a snapshot past 60 % of
# its collectives; it must end exactly as under native mpirun, rank 1
# restored from that image (its restore line; it replays only the rest), and
# no rank may have skipped a snapshot.  Pools of 2 threads
# (OPENBLAS_NUM_THREADS, OMP_NUM_THREADS), whatever the host's cores:
#   numpy     tests/programs/numpy_iter.py: mpi4py, NumPy matrix products on
#             OpenBLAS's pthreads pool (stopped before each fork)
#   gomp      tests/programs/omp_iter: an OpenMP loop on GCC's libgomp (its
#             pool paused with omp_pause_resource_all before each fork)
#   llvm      the same under encore-run --openmp llvm: LLVM's libomp stands in
#             for libgomp, and its pool stays (reset in the copy)
# A thread that cannot be made safe skips snapshots with one line naming it
# (its comm name) and the remedy, and the job is still exact:
#   holder    snap_iter --hold-rank 0: rank 0 runs a thread of its own, "holder"
#   pyhold    numpy_iter.py --hold 0: rank 0 runs a Python threading thread
# Bad input, one line at start: --openmp llvm where LLVM's runtime is not
# installed (hidden by a bind mount in a private mount namespace; skipped
# where unshare cannot).  (--openmp intel, ENCORE_THREAD_LEVEL=many:
# config_check.sh.)
# Sections whose packages are missing (python3-numpy, libopenblas0-pthread,
# libomp5, an OpenMP compiler) are skipped with a message; so are the pools
# in a sanitizer build, whose runtime starts every thread (its pthread_create
# interceptor) and so hides whose thread it is: their snapshots are skipped.
set -eu
# shellcheck disable=SC2034 # read by lib.sh
ENC_LIMIT=120
. "$(dirname "$0")/lib.sh"

rec_begin "$ENC_PROGRAMS/snap_iter"
export OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2
REC_ENV="ENCORE_SNAPSHOT_S=0.3"
ran=0
san=$(sed -n 's/^#define ENC_SANITIZER_RUNTIME "\(.*\)"$/\1/p' "$ENC_BUILDDIR/config.h")
# who started a thread, as the skip line says it (a sanitizer hides it)
who() { if [ -n "$san" ]; then echo "started through [^)]*"; else echo "$1"; fi; }

# restored_late NAME REF ITERS: exact as REF; rank 1 restored from a snapshot
# past 60 % of ITERS, replaying fewer than half of them; no snapshot skipped.
restored_late() {
    rec_ok "$1" "$2"
    rec_restarts "$1" "0 1"
    _r_seq=$(sed -n 's/.*rank 1\] snapshot: restored from the snapshot at seq \([0-9]*\) .*/\1/p' \
        "$ENC_TMP/$1.err")
    [ -n "$_r_seq" ] || { rec_show "$1"; enc_fail "$1: rank 1 was not restored from a snapshot"; }
    [ "$_r_seq" -ge $(($3 * 6 / 10)) ] || enc_fail "$1: restored from seq $_r_seq, not late"
    _r_rep=$(rec_summary "$1" 1 replayed)
    [ "$_r_rep" -lt $(($3 / 2)) ] || enc_fail "$1: rank 1 replayed $_r_rep collectives"
    [ "$(rec_count "$1" 'snapshot skipped')" -eq 0 ] ||
        { rec_show "$1"; enc_fail "$1: a rank skipped snapshots"; }
    enc_log "ok $1 (restored from seq $_r_seq, replayed $_r_rep)"
    ran=$((ran + 1))
}

# -- numpy: OpenBLAS's pool ----------------------------------------------------------
py="$ENC_SRCDIR/tests/programs/numpy_iter.py"
PY_ARGS="--iters 150 --count 65536 --work-n 120 --work-reps 3 --sleep-us 20000"
# the pool runs once NumPy multiplied matrices: more than one thread
probe='import os, numpy; numpy.ones((200, 200)) @ numpy.ones((200, 200)); print(len(os.listdir("/proc/self/task")))'
if [ -n "$san" ]; then
    enc_log "numpy skipped: the sanitizer runtime ($san) hides OpenBLAS's threads"
fi
if ! enc_bounded 60 "$MPI4PY_PYTHON" -c 'import mpi4py.MPI, numpy' >/dev/null 2>&1; then
    enc_log "numpy and pyhold skipped: $MPI4PY_PYTHON lacks mpi4py or NumPy (Debian: python3-mpi4py python3-numpy)"
elif [ "$(enc_bounded 60 "$MPI4PY_PYTHON" -c "$probe" 2>/dev/null || echo 0)" -lt 2 ]; then
    enc_log "numpy and pyhold skipped: NumPy's BLAS runs no thread pool here (Debian: libopenblas0-pthread)"
else
    # shellcheck disable=SC2086 # PY_ARGS is a list of arguments
    enc_run_ok np.native enc_mpirun 2 "$MPI4PY_PYTHON" "$py" $PY_ARGS
    cp "$ENC_TMP/np.native.out" "$ENC_TMP/np.ref" || enc_fail "cp failed"
    if [ -z "$san" ]; then
        # shellcheck disable=SC2086
        rec_kill_parked numpy 2 '(9[0-9]|1[0-9][0-9])' "$MPI4PY_PYTHON" "$py" $PY_ARGS
        restored_late numpy np 150
    fi

    # -- pyhold: a Python threading thread ------------------------------------------
    # shellcheck disable=SC2086
    rec_run pyhold 2 "$MPI4PY_PYTHON" "$py" $PY_ARGS --hold 0
    rec_ok pyhold np
    rec_grep pyhold "rank 0\\] snapshot: snapshot skipped: thread [0-9]+ '[^']+' \\($(who "a Python threading thread")\\) would be missing in the copy .*: end \\(join\\) it once its work is done\$" \
        "pyhold: no skip line naming the Python thread"
    [ "$(rec_count pyhold 'rank 0\] snapshot: snapshot skipped')" -eq 1 ] ||
        enc_fail "pyhold: the skip line is not said once"
    rec_grep pyhold "rank 1\\] snapshot: snapshot at seq [0-9]+ taken" "pyhold: rank 1 took no snapshot"
    enc_log "ok pyhold"
fi

# -- gomp, llvm: an OpenMP loop ------------------------------------------------------
omp="$ENC_PROGRAMS/omp_iter"
OMP_ARGS="--iters 150 --count 65536 --work 20 --sleep-us 20000"
if [ ! -x "$omp" ]; then
    enc_log "gomp and llvm skipped: configure found no OpenMP compiler"
elif [ -n "$san" ]; then
    enc_log "gomp and llvm skipped: the sanitizer runtime ($san) hides the OpenMP runtimes' threads"
else
    # shellcheck disable=SC2086
    enc_run_ok omp.native enc_mpirun 2 "$omp" $OMP_ARGS
    cp "$ENC_TMP/omp.native.out" "$ENC_TMP/omp.ref" || enc_fail "cp failed"
    # shellcheck disable=SC2086
    rec_kill_parked gomp 2 '(9[0-9]|1[0-9][0-9])' "$omp" $OMP_ARGS
    restored_late gomp omp 150
    if enc_bounded 10 "$ENC_ENCORE_RUN" -n 1 --openmp llvm true >/dev/null 2>&1; then
        # shellcheck disable=SC2086
        rec_kill_parked llvm 2 '(9[0-9]|1[0-9][0-9])' --openmp llvm "$omp" $OMP_ARGS
        restored_late llvm omp 150
    else
        enc_log "llvm skipped: LLVM's OpenMP runtime is not installed (Debian: libomp5)"
    fi
fi

# -- holder: a thread of the program's own ------------------------------------------
ITER_ARGS="--iters 150 --count 1024 --work-us 5000"
# shellcheck disable=SC2086
enc_run_ok hold.native enc_mpirun 2 "$ENC_PROGRAMS/snap_iter" $ITER_ARGS --hold-rank 0
cp "$ENC_TMP/hold.native.out" "$ENC_TMP/hold.ref" || enc_fail "cp failed"
# shellcheck disable=SC2086
rec_run holder 2 "$ENC_PROGRAMS/snap_iter" $ITER_ARGS --hold-rank 0
rec_ok holder hold
rec_grep holder "rank 0\\] snapshot: snapshot skipped: thread [0-9]+ 'holder' \\($(who "the program's own, started in snap_iter")\\) would be missing in the copy \\(a fork copies only the calling thread\\); .*: end \\(join\\) it once its work is done\$" \
    "holder: no skip line naming the thread 'holder'"
rec_grep holder "rank 1\\] snapshot: snapshot at seq [0-9]+ taken" "holder: rank 1 took no snapshot"
enc_log "ok holder"

# -- --openmp llvm where LLVM's runtime is not installed ------------------------------
lib=$(ldconfig -p 2>/dev/null | awk '$1 == "libomp.so.5" { print $NF; exit }')
if [ -z "$lib" ]; then
    enc_log "hidden-llvm skipped: libomp.so.5 is not installed to hide"
elif ! enc_bounded 10 unshare -m true >/dev/null 2>&1; then
    enc_log "hidden-llvm skipped: cannot make a mount namespace (unshare -m; needs root)"
else
    real=$(readlink -f "$lib")
    enc_run hidden enc_bounded 30 unshare -m sh -c \
        'mount --bind /dev/null "$1" && exec "$2" -n 2 --openmp llvm "$3"' sh "$real" \
        "$ENC_ENCORE_RUN" "$ENC_PROGRAMS/snap_iter"
    enc_expect_status hidden 2
    [ "$(wc -l <"$ENC_TMP/hidden.err")" -eq 1 ] && grep -qE \
        "^encore-run: --openmp llvm: LLVM's OpenMP runtime is not installed \\(([^ ]*/)?libomp\\.so\\.5: .*; Debian package libomp5\\)\$" \
        "$ENC_TMP/hidden.err" || { enc_show "$ENC_TMP/hidden.err"; enc_fail "hidden-llvm: not one line naming it"; }
    enc_log "ok hidden-llvm"
fi
enc_log "$ran thread-pool jobs restored from their snapshots"
enc_finish
