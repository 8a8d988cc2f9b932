#!/bin/sh
# Configures and builds the sanitizer variant in ./build-sanitize (or $HIPKFD_SANITIZE_BUILD_DIR):
# the runtime, kfdsim, the launcher and the tests' host code with ASan+UBSan (clang-19,
# -DHIPKFD_SANITIZE=address,undefined), and the loader fuzzers (tests/fuzz), which need clang.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_SANITIZE_BUILD_DIR:-$top/build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
CC=clang-19 CXX=clang++-19 cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHIPKFD_SANITIZE=address,undefined
cmake --build "$build" -j "$jobs"
