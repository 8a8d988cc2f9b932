#!/bin/sh
# Configures and builds the sanitizer variant in ./build-sanitize (or $HIPKFD_SANITIZE_BUILD_DIR):
# the runtime, kfdsim, the launcher and the tests' host code with ASan+UBSan (clang-19,
# -DHIPKFD_SANITIZE=address,undefined), and the loader fuzzers (tests/fuzz), which need clang.
# Only what the tier runs is built: no benchmarks or samples, and not the test areas listed in
# HIPKFD_SANITIZE_SKIP_TESTS (tests/CMakeLists.txt). ccache is used when installed.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_SANITIZE_BUILD_DIR:-$top/build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
launcher=
if command -v ccache >/dev/null 2>&1; then
  launcher="-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
fi
# shellcheck disable=SC2086 # $launcher is zero or two words
CC=clang-19 CXX=clang++-19 cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHIPKFD_SANITIZE=address,undefined $launcher
cmake --build "$build" -j "$jobs"
