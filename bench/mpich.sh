#!/bin/bash
# mpich.sh - MPICH's own test suite (test/mpi of pmodels/mpich) under encore.
#
# Extracts test/mpi from a local git copy of MPICH into a temporary
# directory (nothing of MPICH enters this repository), builds the MTest
# harness and the programs of the chosen directories with Open MPI's mpicc,
# runs every testlist entry under native mpirun, then runs the natively
# passing ones under encore-run.  Prints one line per entry and a markdown
# table per directory (on stdout; progress goes to stderr).
#
# A run passes when it exits 0 and prints "No Errors" (MPICH's convention).
# An encore run that does not pass is classified from its output:
#   refused   a rank printed "... is not supported in encore mode (...)":
#             p2p (point-to-point), intercomm, or other (the reason given)
#   hang      encore-run's --timeout fired (or the outer timeout did)
#   crash     a rank was killed by a signal
#   wrong     anything else: errors found, MPI_Abort, non-zero exit
#
# Testlist lines are "prog nprocs [key=value ...]".  arg= and env= are
# honoured, timeLimit= replaces MPICH_TIMEOUT, and as MPICH's runtests does
# with its defaults the script skips xfail= entries, mem= above
# MPICH_MEM_GB, strict=false entries (the harness is built strict, as MPICH
# asks for MPI implementations other than MPICH), MPIX (@mpix@) lines and
# lines needing an optional configure feature (@iodir@, ...).  Entries asking
# for more than MPICH_MAX_NP ranks run with MPICH_MAX_NP ("8 (10)"); an entry
# that becomes a duplicate of another that way runs once.
#
# Environment:
#   MPICH_GIT        git directory of pmodels/mpich (bare mirror or a clone;
#                    default /work/.mirror/pmodels+mpich/repo)
#   MPICH_REV        revision to extract (default HEAD)
#   MPICH_DIRS       test/mpi directories (default "coll comm group topo"; others:
#                    pt2pt topo datatype io attr info init errhan ...)
#   MPICH_FILTER     extended regex on "dir/prog np args": only those entries
#   MPICH_MAX_NP     rank cap (default 8; oversubscribing 2 cores is fine)
#   MPICH_TIMEOUT    seconds per run without a timeLimit= (default 180, the
#                    defaultTimeLimit of MPICH's own runtests)
#   MPICH_MEM_GB     memory budget for mem= (default 4, runtests' default)
#   MPICH_JOBS       builds and entries run at once (default 1)
#   MPICH_KEEP=1     keep the temporary directory (its path is printed)
#   ENCORE_RUN       the launcher (default _install/bin/encore-run of this
#                    checkout, else encore-run on PATH)
#   ENCORE_RUN_ARGS  more encore-run options (e.g. "--max-restarts 0")
#   ENCORE_EXTRA_ENV "VAR=value ..." for the encore runs only (ASAN_OPTIONS=...)
#
#   bench/mpich.sh > mpich.md                       # coll comm group topo
#   MPICH_DIRS=pt2pt MPICH_FILTER='/i?sendrecv' bench/mpich.sh
set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
GITDIR=${MPICH_GIT:-/work/.mirror/pmodels+mpich/repo}
REV=${MPICH_REV:-HEAD}
DIRS=${MPICH_DIRS:-coll comm group topo}
FILTER=${MPICH_FILTER:-}
MAX_NP=${MPICH_MAX_NP:-8}
TLIMIT=${MPICH_TIMEOUT:-180}
MEM_GB=${MPICH_MEM_GB:-4}
JOBS=${MPICH_JOBS:-1}
ENCORE_RUN=${ENCORE_RUN:-$ROOT/_install/bin/encore-run}
[ -x "$ENCORE_RUN" ] || ENCORE_RUN=$(command -v encore-run) || {
    echo "mpich.sh: no encore-run (build with ./dev.sh build, or set ENCORE_RUN)" >&2
    exit 2
}
[ -d "$GITDIR/.git" ] && GITDIR=$GITDIR/.git
if ! git --git-dir="$GITDIR" rev-parse -q --verify "$REV^{commit}" >/dev/null 2>&1; then
    cat >&2 <<EOF
mpich.sh: no MPICH git repository at MPICH_GIT=$GITDIR (revision $REV).
Get one (a mirror is about 120 MB) and point MPICH_GIT at it:
    git clone --mirror https://github.com/pmodels/mpich.git /path/to/mpich.git
    MPICH_GIT=/path/to/mpich.git bench/mpich.sh
EOF
    exit 2
fi
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
    echo "mpich.sh: mpicc and mpirun (Open MPI) are needed" >&2
    exit 2
fi
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/encore-mpich.XXXXXX")
cleanup() {
    if [ "${MPICH_KEEP:-0}" = 1 ]; then
        echo "mpich.sh: kept $WORK" >&2
    else
        rm -rf "$WORK"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
T=$WORK/test/mpi
RES=$WORK/results
mkdir -p "$RES"
say() { printf '%s\n' "$*" >&2; }

# throttle: wait until fewer than MPICH_JOBS background jobs run.
throttle() {
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
}

# --- extract and build the harness -----------------------------------------

extract() {
    local paths="test/mpi/util test/mpi/include test/mpi/dtpools" d
    for d in $DIRS; do paths="$paths test/mpi/$d"; done
    # shellcheck disable=SC2086
    git --git-dir="$GITDIR" archive "$REV" $paths | tar -x -C "$WORK"
}

# What MPICH's configure would write for Open MPI on Linux/glibc, limited to
# the macros the harness and the C tests test.
write_config() {
    cat >"$T/include/mpitestconf.h" <<'EOF'
/* written by encore's bench/mpich.sh in place of MPICH's configure */
#define HAVE_STDARG_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_IO 1
#define MPIO_USES_MPI_REQUEST 1
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#define POINTERINT_t long
#define SIZEOF_VOID_P 8
#define SIZEOF_INT 4
#define SIZEOF_LONG 8
EOF
    : >"$T/include/mtest_mpix.h"    # MPICH generates it; empty elsewhere
    printf '#define HAVE_STDLIB_H 1\n#define HAVE_STRING_H 1\n#define HAVE_STRDUP 1\n' \
        >"$T/dtpools/dtpoolsconf.h"
}

CC=(mpicc -O1 -w -I"$T/include" -I"$T/dtpools/include")

# compile SRC OBJ: one harness object, or exit showing why not.
compile() {
    "${CC[@]}" -c "$1" -o "$2" >>"$WORK/harness.log" 2>&1 && return
    say "mpich.sh: the harness does not build ($1):"
    tail -20 "$WORK/harness.log" >&2
    exit 1
}

# libmtest.a: MTest, its datatype helpers and dtpools.  run_mpitests.o is
# the main() of the tests that only define run().
build_harness() {
    local f
    mkdir -p "$WORK/obj"
    for f in "$T"/util/mtest.c "$T"/util/mtest_common.c "$T"/util/mtest_single.c \
             "$T"/util/dtypes.c "$T"/dtpools/src/*.c; do
        compile "$f" "$WORK/obj/$(basename "$f" .c).o"
    done
    ar rcs "$WORK/libmtest.a" "$WORK"/obj/*.o
    compile "$T/util/run_mpitests.c" "$WORK/run_mpitests.o"
}

# build_prog DIR PROG: DIR/PROG from DIR/PROG.c, log in DIR/PROG.build.log.
build_prog() {
    local src=$T/$1/$2.c main=("$WORK/run_mpitests.o")
    [ -f "$src" ] || { echo "no $2.c" >"$T/$1/$2.build.log"; return; }
    grep -qE '^(int|void)?[[:space:]]*main[[:space:]]*\(' "$src" && main=()
    "${CC[@]}" -o "$T/$1/$2" "$src" "${main[@]}" "$WORK/libmtest.a" -lm \
        >"$T/$1/$2.build.log" 2>&1
}

# --- testlists ----------------------------------------------------------------

# entries DIR: one line per testlist entry, fields separated by '|' (a tab
# would not do: read collapses adjacent tabs, and args or env may be empty):
#   prog np asked_np timeout args env skip_reason
entries() {
    local list=$T/$1/testlist prog np asked rest kv k v args env t skip
    [ -f "$list.in" ] && list=$list.in
    [ -f "$list" ] || return 0
    while read -r prog np rest; do
        case $prog in ''|'#'*) continue ;; esac
        skip='' args='' env='' t=$TLIMIT
        case "$prog $np $rest" in
            @mpix@*) skip="MPIX test (strict MPI)"; prog=${prog#@mpix@} ;;
            *@*@*) skip="needs configure feature $(echo "$prog $np $rest" | grep -o '@[a-z_]*@' | head -1)" ;;
        esac
        case $np in ''|*[!0-9]*) [ -z "$skip" ] && skip="no rank count" ;; esac
        for kv in $rest; do
            k=${kv%%=*} v=${kv#*=}
            case $kv in
                arg=*) args="$args $v" ;;
                env=*) env="$env $v" ;;
                timeLimit=*) t=$v ;;
                xfail=*) skip="xfail=$v" ;;
                strict=[Ff]*) skip="strict=false (non-standard)" ;;
                mem=*) awk -v m="$v" -v g="$MEM_GB" 'BEGIN { exit !(m > g) }' &&
                    skip="mem=$v GB > MPICH_MEM_GB=$MEM_GB" ;;
                mpiexecarg=*) skip="mpiexecarg=$v" ;;
                resultTest=*|lock=*|init=*|strict=*) ;;
                *) [ "$k" = "$kv" ] && args="$args $kv" ;;  # bare word: runtests passes it on
            esac
        done
        [ "${np:-0}" -gt "$MAX_NP" ] 2>/dev/null && asked=$np np=$MAX_NP || asked=$np
        printf '%s|%s|%s|%s|%s|%s|%s\n' "$prog" "$np" "$asked" "$t" \
            "${args# }" "${env# }" "$skip"
    done <"$list"
}

# --- running ------------------------------------------------------------------

passed() { [ "$1" -eq 0 ] && grep -qE '^[[:space:]]*No Errors' "$2"; }

# first LOG REGEX...: the first line matching the first REGEX that matches
# any, shortened.
first() {
    local log=$1 re line
    shift
    for re; do
        line=$(grep -m1 -E -- "$re" "$log") && break
    done
    printf '%s' "$line" | cut -c1-220
}

# classify LOG RC: "class<TAB>reason" of an encore run that did not pass.
classify() {
    local log=$1 rc=$2 line what where
    line=$(first "$log" 'not supported in encore mode')
    if [ -n "$line" ]; then
        # "MPI_X on ... is not supported in encore mode (why; ...)" -> "MPI_X (why)"
        line=$(printf '%s' "$line" | sed -E \
            -e 's/.*(MPI_[A-Za-z_]+) on .* is not supported in encore mode \(([^;)]*).*/\1 (\2)/' \
            -e 's/.*error: //')
        case $line in
            *'(point-to-point)'*) printf 'refused-p2p\t%s' "$line" ;;
            *intercomm*) printf 'refused-intercomm\t%s' "$line" ;;
            *) printf 'refused-other\t%s' "$line" ;;
        esac
    elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] || grep -q 'job timed out' "$log"; then
        line=$(first "$log" 'encore\[.*(error|warn)' 'job timed out')
        printf 'hang\t%s' "${line:-outer timeout (rc $rc)}"
    elif line=$(grep -m1 -oE 'killed by signal [0-9]+ \([^)]*\)' "$log"); then
        # "killed by signal 6 (Aborted): free(): invalid pointer in PMPI_Group_free"
        # (libc's or ASan's complaint, and the first MPI frame of Open MPI's backtrace)
        what=$(first "$log" 'AddressSanitizer|Assertion|free\(\)|double free|corrupted|smashing')
        where=$(grep -m1 -oE '\(P?MPI_[A-Za-z_]+\+0x' "$log" | sed 's/^(//; s/+0x$//')
        printf 'crash\t%s' "$line${what:+: $what}${where:+ in $where}"
    else
        line=$(first "$log" 'Found [0-9]+ errors' 'encore\[.*error' 'MPI_Abort' 'ERROR|[Ee]rror|[Ff]ail')
        printf 'wrong\t%s' "${line:-exit $rc, no \"No Errors\"}"
    fi
}

# intra_only SRC: true if the test asks MTest for intracommunicators only,
# so an intercommunicator refusal comes from MTestGetIntracommGeneral, whose
# list includes a dup of the world made with MPI_Intercomm_merge.
intra_only() {
    grep -q 'MTestGetIntracomm' "$1" &&
        ! grep -qE 'MTestGetIntercomm|MTestGetComm|MPI_Intercomm_(create|merge)' "$1"
}

# run_entry N DIR PROG NP ASKED TIMEOUT ARGS ENV SKIP: one result record
# "dir prog np args native encore class reason" in RES/N.
run_entry() {
    local n=$1 d=$2 p=$3 np=$4 asked=$5 t=$6 args=$7 env=$8 skip=$9
    local npcol=$np log=$RES/$n rc native=- encore=- class reason=
    [ "$asked" != "$np" ] && npcol="$np ($asked)"
    if [ -n "$skip" ]; then
        class=skip native=skipped reason=$skip
    elif [ ! -x "$T/$d/$p" ]; then
        class=nobuild native="build failed"
        reason=$(grep -m1 -E 'error|undefined' "$T/$d/$p.build.log" | cut -c1-200)
    else
        cd "$T/$d" || return
        # shellcheck disable=SC2086
        timeout -k 5 "$t" env $env mpirun -n "$np" --oversubscribe "./$p" $args \
            >"$log.native" 2>&1
        rc=$?
        if ! passed "$rc" "$log.native"; then
            class=nfail native="fail (rc $rc)"
            [ "$rc" -eq 124 ] && native="timeout ${t}s"
            reason=$(first "$log.native" 'Found [0-9]+ errors' 'ERROR|Error' '[Ee]rror|[Aa]bort|[Ff]ail' .)
        else
            native=pass
            # shellcheck disable=SC2086
            timeout -k 5 "$((t + 30))" env $env ${ENCORE_EXTRA_ENV:-} \
                "$ENCORE_RUN" -n "$np" --timeout "$t" ${ENCORE_RUN_ARGS:-} "./$p" $args \
                >"$log.encore" 2>&1
            rc=$?
            if passed "$rc" "$log.encore"; then
                class=pass encore=pass
            else
                IFS=$'\t' read -r class reason <<<"$(classify "$log.encore" "$rc")"
                [ "$class" = refused-intercomm ] && intra_only "$T/$d/$p.c" &&
                    reason="$reason, in MTest's intracommunicator list"
                encore=${class%%-*}
                [ "$class" = crash ] && encore="crash (signal $(echo "$reason" | cut -d' ' -f4))"
            fi
        fi
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$d" "$p" "$npcol" "$args" "$native" \
        "$encore" "$class" "$reason" >"$log"
    say "$(printf '[%s] %s/%s %s %s: native %s, encore %s %s' "$n" "$d" "$p" "$npcol" \
        "$args" "$native" "$encore" "$reason")"
}

# --- report -------------------------------------------------------------------

report() {
    echo "| dir | program | np | native | encore | reason |"
    echo "|---|---|---|---|---|---|"
    cat "$RES"/[0-9]*[0-9] | awk -F'\t' '{
        prog = $2; if ($4 != "") prog = prog " " $4
        gsub(/\|/, "\\|", $8)
        printf "| %s | %s | %s | %s | %s | %s |\n", $1, prog, $3, $5, $6, $8 }'
    echo
    echo "| dir | entries | built | pass native | pass encore | refused (p2p / intercomm / other) | hang | crash | wrong |"
    echo "|---|---|---|---|---|---|---|---|---|"
    cat "$RES"/[0-9]*[0-9] | awk -F'\t' '
        !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
        { d = $1; c = $7; e[d]++
          if (c != "skip" && c != "nobuild") b[d]++
          if (c != "skip" && c != "nobuild" && c != "nfail") nat[d]++
          k[d, c]++ }
        END { for (i = 1; i <= n; i++) { d = order[i]
            printf "| %s | %d | %d | %d | %d | %d / %d / %d | %d | %d | %d |\n", d, e[d],
                b[d], nat[d], k[d, "pass"], k[d, "refused-p2p"], k[d, "refused-intercomm"],
                k[d, "refused-other"], k[d, "hang"], k[d, "crash"], k[d, "wrong"] } }'
}

main() {
    local d p n=0 start=$SECONDS np asked t args env skip key
    say "mpich.sh: MPICH $(git --git-dir="$GITDIR" rev-parse --short=12 "$REV") test/mpi {$DIRS}," \
        "encore $(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null), $ENCORE_RUN, in $WORK"
    extract && write_config && build_harness
    for d in $DIRS; do
        [ -d "$T/$d" ] || { say "mpich.sh: no test/mpi/$d in MPICH $REV"; exit 2; }
        entries "$d" >"$WORK/$d.entries"
        [ -n "$FILTER" ] && awk -F'|' -v d="$d" '{ print d "/" $1 " " $2 " " $5 "\t" $0 }' \
            "$WORK/$d.entries" | grep -E -- "$FILTER" | cut -f2- >"$WORK/$d.e" &&
            mv "$WORK/$d.e" "$WORK/$d.entries"
        for p in $(awk -F'|' '$7 == "" { print $1 }' "$WORK/$d.entries" | sort -u); do
            throttle
            build_prog "$d" "$p" &
        done
    done
    wait
    say "mpich.sh: built in $((SECONDS - start)) s"
    declare -A done_keys
    for d in $DIRS; do
        while IFS='|' read -r p np asked t args env skip; do
            key="$d $p $np $args $env"
            [ -n "${done_keys[$key]:-}" ] && continue
            done_keys[$key]=1
            n=$((n + 1))
            throttle
            run_entry "$(printf '%04d' "$n")" "$d" "$p" "$np" "$asked" "$t" "$args" "$env" \
                "$skip" </dev/null &    # mpirun would read the testlist
        done <"$WORK/$d.entries"
    done
    wait
    say "mpich.sh: $n entries in $((SECONDS - start)) s"
    [ "$n" -gt 0 ] && report
}

main
