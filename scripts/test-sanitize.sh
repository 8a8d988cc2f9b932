#!/bin/sh
# The sanitizer tier: builds the ASan+UBSan variant (scripts/build-sanitize.sh) and runs the test
# suite in it, all but the valgrind tier (memcheck cannot run ASan code) and the tests labelled
# `slow`; then the loader fuzzers' corpus replay and a bounded fuzz run each (label `fuzz`, part
# of the same ctest run). Any sanitizer report fails the test that met it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_SANITIZE_BUILD_DIR:-$top/build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
"$top/scripts/build-sanitize.sh"
# For every test process, including those whose ctest environment sets none: no leak report (the
# runtime keeps per-device state and module images for the life of the process), stop at the
# first error.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE 'valgrind|slow' "$@"
