#!/bin/sh
# The loader fuzzers alone, as CI runs them: configures a clang-19 build in ./build-fuzz (or
# $HIPKFD_FUZZ_BUILD_DIR), builds only the four harnesses and their seed corpus (libFuzzer with
# ASan+UBSan, tests/fuzz), then replays the seeds and fuzzes each harness for
# HIPKFD_FUZZ_SECONDS (default 25). A crash, leak, sanitizer report, timeout or out-of-memory
# fails. The whole suite under ASan+UBSan is scripts/test-sanitize.sh (not yet green: the
# README's sanitizer section says what is open).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_FUZZ_BUILD_DIR:-$top/build-fuzz}
jobs=$(nproc 2>/dev/null || echo 2)
CC=clang-19 CXX=clang++-19 cmake -S "$top" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DHIPKFD_FUZZ_SECONDS="${HIPKFD_FUZZ_SECONDS:-25}" >/dev/null
cmake --build "$build" -j "$jobs" --target fuzz_corpus fuzz_bundle fuzz_code_object \
  fuzz_metadata fuzz_kernarg
ctest --test-dir "$build" --output-on-failure -j "$jobs" -L fuzz
