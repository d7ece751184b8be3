#!/bin/sh
# autogen.sh - same as `autoreconf -fi`, for people who expect the script.
set -e
cd "$(dirname "$0")"
exec autoreconf -fi
