#!/bin/sh
# The README's second command: install the Debian packages, build, and run the whole test
# suite (ctest) on kfdsim.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
build=${HIPKFD_BUILD_DIR:-$top/build}
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir "$build" --output-on-failure -j "$jobs"
