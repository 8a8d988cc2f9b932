#!/bin/sh
# The ThreadSanitizer tier (cmake/ThreadSanitizer.cmake): a second, small build with clang-19 of
# just the runtime's objects and the stream stress test (tests/streams/test_streams_threads),
# both -fsanitize=thread, run on the regular build's kfdsim, which is not instrumented. A data
# race report fails it. Run after scripts/build.sh (CI: after scripts/test.sh).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${HIPKFD_BUILD_DIR:-$top/build}
tsan=${HIPKFD_TSAN_BUILD_DIR:-$top/build-tsan}
jobs=$(nproc 2>/dev/null || echo 2)
if [ ! -f "$build/sim/libkfdsim.so" ]; then
  echo "test-tsan.sh: $build/sim/libkfdsim.so missing: run scripts/build.sh first" >&2
  exit 1
fi
cmake -S "$top" -B "$tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DHIPKFD_TSAN=ON -DHIPKFD_TSAN_KFDSIM="$build/sim/libkfdsim.so"
cmake --build "$tsan" -j "$jobs" --target test_streams_threads
ctest --test-dir "$tsan" --output-on-failure -R '^test_streams_threads$'
