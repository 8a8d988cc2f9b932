#!/bin/sh
# Configures and builds hipkfd in ./build (or $HIPKFD_BUILD_DIR).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_BUILD_DIR:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"
