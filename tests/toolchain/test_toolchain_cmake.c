/* The three CMake routes of the README against the installed prefix, each built and run on
 * kfdsim: hip::host with g++, hip::device (g++ as the C++ compiler: the HIP language is
 * enabled for it), and enable_language(HIP) with clang++-19. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "tc_run.h"

TestSuite(toolchain_cmake, .init = tc_clean_env);

static void build_and_run(const char *name, const char *env, const char *flags, const char *app,
                          const char *expect)
{
  char *out;
  cr_assert_eq(tc_run(&out, "%s cmake -S %s/tests/toolchain/projects/%s -B %s/%s %s && "
                      "cmake --build %s/%s", env, TC_SOURCE_DIR, name, TC_SCRATCH, name, flags,
                      TC_SCRATCH, name), 0, "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "%s/bin/kfdsim -- %s/%s/%s", TC_PREFIX, TC_SCRATCH, name, app), 0,
               "%s", out);
  cr_expect(strstr(out, expect), "%s", out);
  free(out);
}

Test(toolchain_cmake, host_with_gxx)
{
  build_and_run("host", "", "-DCMAKE_CXX_COMPILER=g++ -DCMAKE_PREFIX_PATH=" TC_PREFIX, "host_app",
                "PASSED");
}

Test(toolchain_cmake, device_with_gxx)
{
  build_and_run("device", "", "-DCMAKE_CXX_COMPILER=g++ -DGPU_TARGETS=gfx942 "
                "-DCMAKE_PREFIX_PATH=" TC_PREFIX, "device_app", "PASSED");
}

/* No architecture given: hipcc's default (gfx90a and gfx942 with no GPU visible). */
Test(toolchain_cmake, hip_language)
{
  build_and_run("lang", "ROCM_PATH=" TC_PREFIX, "-DCMAKE_HIP_COMPILER=clang++-19", "lang_app",
                "gfx942:sramecc+:xnack-, 4096 values reversed: PASSED");
  char *out;
  cr_assert_eq(tc_run(&out, "grep '^CMAKE_HIP_ARCHITECTURES:' %s/lang/CMakeCache.txt", TC_SCRATCH), 0);
  cr_expect(strstr(out, "=gfx90a;gfx942"), "%s", out);
  free(out);
}
