#!/bin/sh
# The sanitizer tier (CI runs it after the TSan tier): builds the ASan+UBSan variant
# (scripts/build-sanitize.sh, which leaves out the kernel corpus, the host programs, memcheck and
# the toolchain tests) and runs the test suite in it, all but the compile-only tests (label
# `compile`: they run clang, none of our code) and the tests labelled `slow` (each named in the
# README's sanitizer section); the loader fuzzers (label `fuzz`) run in the same ctest call
# unless HIPKFD_SANITIZE_SKIP_FUZZ=1.
# Any sanitizer report fails the test that met it. Prints the tier's wall time.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_SANITIZE_BUILD_DIR:-$top/build-sanitize}
jobs=$(nproc 2>/dev/null || echo 2)
start=$(date +%s)
"$top/scripts/build-sanitize.sh"
built=$(date +%s)
# For every test process, including those whose ctest environment sets none: no leak report (the
# runtime keeps per-device state and module images for the life of the process), stop at the
# first error.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
skip='valgrind|slow|compile'
[ "${HIPKFD_SANITIZE_SKIP_FUZZ:-0}" = 1 ] && skip="$skip|fuzz"
status=0
ctest --test-dir "$build" --output-on-failure -j "$jobs" -LE "$skip" "$@" || status=$?
end=$(date +%s)
echo "sanitizer tier: build $((built - start)) s, tests $((end - built)) s, $jobs jobs"
exit $status
