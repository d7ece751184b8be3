#!/bin/sh
# netns_rsh.sh HOST CMD... - native mpirun's rsh agent for network-namespace
# hosts (bench/p2p.sh): Open MPI passes the daemon's command line as one
# string, for a shell, and each host gets its own hostname (unshare --uts),
# so Open MPI sees two hosts and keeps its shared-memory files apart.
h=$1
shift
# shellcheck disable=SC2016 # $0 and $1 are the inner shell's
exec ip netns exec "$h" unshare --uts /bin/sh -c 'hostname "$0" && exec /bin/sh -c "$1"' "$h" "$*"
