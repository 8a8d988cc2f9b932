/* hipcc, hipconfig and hipinfo from an installed prefix, as the README tells a user to run them. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "tc_run.h"

static int count(const char *s, const char *needle)
{
  int n = 0;
  for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

TestSuite(toolchain_hipcc, .init = tc_clean_env);

/* The acceptance line: hipcc app.hip -o app && kfdsim -- ./app, no other flag or variable. */
Test(toolchain_hipcc, vector_add_builds_and_runs_on_kfdsim)
{
  char *out;
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/hipcc %s/samples/vector_add.hip -o v", TC_SCRATCH,
                      TC_PREFIX, TC_SOURCE_DIR), 0, "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/kfdsim -- ./v", TC_SCRATCH, TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "vector_add: PASSED"), "%s", out);
  free(out);
  /* Built for both emulated GPUs when none is visible: the MI210 profile runs it too. */
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/kfdsim --profile gfx90a -- ./v 5000", TC_SCRATCH,
                      TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "vector_add: PASSED"), "%s", out);
  free(out);
}

/* Targets: the GPUs of the KFD topology (kfdsim's profile), else the environment's override. */
Test(toolchain_hipcc, offload_targets_follow_gpus_and_overrides)
{
  char *out;
  cr_assert_eq(tc_run(&out, "%s/bin/kfdsim --profile gfx90a -- %s/bin/hipcc --cxxflags", TC_PREFIX,
                      TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "--offload-arch=gfx90a") && !strstr(out, "gfx942"), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "%s/bin/hipcc --cxxflags", TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "--offload-arch=gfx90a") && strstr(out, "--offload-arch=gfx942"), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "GPU_TARGETS='gfx942;gfx942' %s/bin/hipcc --cxxflags", TC_PREFIX), 0);
  cr_expect_eq(count(out, "--offload-arch="), 1, "%s", out);
  cr_expect(strstr(out, "--offload-arch=gfx942"), "%s", out);
  free(out);
}

/* -c of a .cpp (compiled as HIP), a link of the object alone, the append variables and -v. */
Test(toolchain_hipcc, separate_compile_link_and_environment)
{
  char *out;
  cr_assert_eq(tc_run(&out, "cd %s && cp %s/samples/vector_add.hip vadd.cpp && "
                      "HIPCC_COMPILE_FLAGS_APPEND='-DTC_MARK=1' %s/bin/hipcc -v "
                      "--offload-arch=gfx942 -c vadd.cpp -o vadd.o",
                      TC_SCRATCH, TC_SOURCE_DIR, TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "hipcc-cmd:") && strstr(out, "-DTC_MARK=1") && strstr(out, "-x hip"),
            "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && HIPCC_LINK_FLAGS_APPEND='-Wl,-rpath,/tc-link-append' "
                      "%s/bin/hipcc vadd.o -o vadd && readelf -d vadd",
                      TC_SCRATCH, TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "/tc-link-append") && strstr(out, TC_PREFIX), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/kfdsim -- ./vadd 3000", TC_SCRATCH, TC_PREFIX), 0);
  cr_expect(strstr(out, "vector_add: PASSED"), "%s", out);
  free(out);
}

Test(toolchain_hipcc, genco_writes_an_offload_bundle)
{
  char *out;
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/hipcc --genco --offload-arch=gfx942 "
                      "%s/samples/vector_add.hip -o va.co && head -c 24 va.co",
                      TC_SCRATCH, TC_PREFIX, TC_SOURCE_DIR), 0, "%s", out);
  cr_expect(strstr(out, "__CLANG_OFFLOAD_BUNDLE__"), "%s", out);
  free(out);
}

Test(toolchain_hipcc, bad_input_gets_an_error)
{
  char *out;
  cr_expect_eq(tc_run(&out, "%s/bin/hipcc", TC_PREFIX), 1, "%s", out);
  cr_expect(strstr(out, "no input files"), "%s", out);
  free(out);
  cr_expect_eq(tc_run(&out, "HIP_PLATFORM=nvidia %s/bin/hipcc x.hip", TC_PREFIX), 1);
  cr_expect(strstr(out, "only the amd platform"), "%s", out);
  free(out);
  cr_expect_eq(tc_run(&out, "HIP_CLANG_PATH=/nonexistent %s/bin/hipcc x.hip", TC_PREFIX), 127);
  cr_expect(strstr(out, "HIP_CLANG_PATH"), "%s", out);
  free(out);
  cr_expect_eq(tc_run(&out, "%s/bin/hipconfig --bogus", TC_PREFIX), 1);
  cr_expect(strstr(out, "unknown option"), "%s", out);
  free(out);
}

/* One version: hipconfig, share/hip/version (read by clang), pkg-config and the library. */
Test(toolchain_hipcc, versions_agree)
{
  char *out;
  cr_assert_eq(tc_run(&out, "%s/bin/hipconfig --version", TC_PREFIX), 0);
  cr_expect_str_eq(out, TC_HIP_VERSION_FULL);
  free(out);
  cr_assert_eq(tc_run(&out, "clang++-19 --rocm-path=%s -v -print-targets", TC_PREFIX), 0);
  cr_expect(strstr(out, "Found HIP installation: " TC_PREFIX ", version 7.2.0"), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --modversion hip && "
                      "PKG_CONFIG_PATH=%s/lib/pkgconfig pkg-config --variable=hipkfd_version hip",
                      TC_PREFIX, TC_PREFIX), 0, "%s", out);
  cr_expect_str_eq(out, "7.2.0\n" TC_PROJECT_VERSION "\n");
  free(out);
  cr_assert_eq(tc_run(&out, "readelf -p .comment %s/lib/libamdhip64.so.7 %s/lib/libhiprtc.so.7",
                      TC_PREFIX, TC_PREFIX), 0);
  cr_expect_eq(count(out, "hipkfd " TC_PROJECT_VERSION " (HIP API 7.2.0)"), 2, "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "%s/bin/hipconfig --path -n --platform -n --compiler -n --check",
                      TC_PREFIX), 0, "%s", out);
  cr_expect(!strncmp(out, TC_PREFIX "\namd\nclang\n", strlen(TC_PREFIX) + 11), "%s", out);
  cr_expect(!strstr(out, "FAIL"), "%s", out);
  free(out);
}

/* libhiprtc.so: the hiprtc names, unversioned, and the error strings through libamdhip64. */
Test(toolchain_hipcc, libhiprtc_exports_hiprtc)
{
  char *out;
  cr_assert_eq(tc_run(&out, "nm -D --defined-only %s/lib/libhiprtc.so.6 | grep -c ' T hiprtc'",
                      TC_PREFIX), 0);
  cr_expect_geq(atoi(out), 17, "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && printf '#include <hip/hiprtc.h>\\n#include <stdio.h>\\n"
                      "int main(void){int a=0,b=0;hiprtcVersion(&a,&b);"
                      "puts(hiprtcGetErrorString(HIPRTC_ERROR_COMPILATION));return a<7;}\\n' > rtc.c && "
                      "cc rtc.c -I%s/include -L%s/lib -Wl,-rpath,%s/lib -lhiprtc -o rtc && ./rtc",
                      TC_SCRATCH, TC_PREFIX, TC_PREFIX, TC_PREFIX), 0, "%s", out);
  cr_expect(strstr(out, "HIPRTC_ERROR_COMPILATION"), "%s", out);
  free(out);
}

/* hipinfo lists every emulated GPU, as text and as JSON. */
Test(toolchain_hipcc, hipinfo_lists_every_gpu)
{
  char *out;
  cr_assert_eq(tc_run(&out, "%s/bin/kfdsim --gpus 2 -- %s/bin/hipinfo", TC_PREFIX, TC_PREFIX), 0);
  cr_expect_eq(count(out, "device#:"), 2, "%s", out);
  cr_expect_eq(count(out, "gcnArchName:"), 2, "%s", out);
  cr_expect(strstr(out, "hipkfd version:                   " TC_PROJECT_VERSION), "%s", out);
  cr_expect(strstr(out, "device#1"), "%s", out); /* device 0's peer */
  free(out);
  cr_assert_eq(tc_run(&out, "%s/bin/kfdsim --gpus 2 --profile gfx90a -- %s/bin/hipinfo --json | "
                      "python3 -c 'import json,sys; d=json.load(sys.stdin); "
                      "print(d[\"device_count\"], len(d[\"devices\"]), d[\"devices\"][1][\"gcnArchName\"], "
                      "d[\"devices\"][0][\"peers\"], d[\"hipkfd_version\"])'", TC_PREFIX, TC_PREFIX), 0,
               "%s", out);
  cr_expect(!strncmp(out, "2 2 gfx90a", 10) && strstr(out, "[1] " TC_PROJECT_VERSION), "%s", out);
  free(out);
  cr_expect_eq(tc_run(&out, "%s/bin/hipinfo --bogus", TC_PREFIX), 2);
  free(out);
}
