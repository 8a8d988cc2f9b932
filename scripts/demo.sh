#!/bin/sh
# The README's first command: install the Debian packages, build, and run a HIP program
# (samples/vector_add.hip, built with clang++-19 and our headers) on an emulated MI300X.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
build=${HIPKFD_BUILD_DIR:-$top/build}
exec "$build/sim/kfdsim" --profile gfx942 -- "$build/samples/vector_add"
