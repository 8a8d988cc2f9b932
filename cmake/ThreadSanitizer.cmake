# ThreadSanitizer tier: -DHIPKFD_TSAN=ON (with clang-19 as the C and C++ compiler) builds the
# runtime's objects (hipkfd_rt_objects) with -fsanitize=thread, and tests/streams links them
# straight into its thread stress test, whose host code is instrumented too; the TSan runtime is
# linked statically into that executable. kfdsim is not instrumented: libkfdsim.so is built as
# usual and preloaded behind TSan's interceptors (the executable's own definitions come first in
# symbol lookup, so an intercepted open/ioctl/mmap reaches kfdsim's through RTLD_NEXT). TSan
# sees kfdsim's threads (it intercepts pthread_create) and its locks, but none of its memory
# accesses: what the emulated GPU writes, the runtime reads through atomics, as from hardware.
#
# Only the tier's target is built in such a tree (.ci/run: test_streams_threads):
# libamdhip64.so itself does not link from instrumented objects (-Wl,--no-undefined, and clang
# links sanitizer runtimes into executables only). HIPKFD_TSAN_KFDSIM names the libkfdsim.so to
# preload: the regular build's (kfdsim has no reason to be built twice, and clang's -Werror
# finds things gcc's does not); by default this tree's own kfdsim_preload.
option(HIPKFD_TSAN "Build the runtime objects and the stream stress test with ThreadSanitizer" OFF)
set(HIPKFD_TSAN_STRESS_ITERS 300 CACHE STRING "Iterations per thread of the stress test under TSan")
set(HIPKFD_TSAN_KFDSIM "$<TARGET_FILE:kfdsim_preload>" CACHE STRING
    "libkfdsim.so preloaded by the TSan stress test (not instrumented)")

# Called once every target exists (top-level CMakeLists.txt).
function(hipkfd_tsan_instrument_runtime)
  if(NOT HIPKFD_TSAN)
    return()
  endif()
  if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "HIPKFD_TSAN needs clang (-DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19)")
  endif()
  target_compile_options(hipkfd_rt_objects PRIVATE -fsanitize=thread -fno-omit-frame-pointer)
endfunction()
