/* cpack -G DEB: the three packages, their dependencies, and a program built with the hipcc of
 * the packages unpacked (dpkg -x) into a scratch root, run with the packaged kfdsim. */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "tc_run.h"

TestSuite(toolchain_package, .init = tc_clean_env, .timeout = 600);

Test(toolchain_package, deb_packages_install_and_build)
{
  char *out;
  cr_assert_eq(tc_run(&out, "cd %s && cpack -G DEB --config %s/CPackConfig.cmake -B %s/debs",
                      TC_BUILD_DIR, TC_BUILD_DIR, TC_SCRATCH), 0, "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s/debs && for p in runtime dev kfdsim; do "
                      "dpkg-deb -f hipkfd-${p}_" TC_PROJECT_VERSION "_*.deb Depends; done",
                      TC_SCRATCH), 0, "%s", out);
  cr_expect(strstr(out, "libelf1") && strstr(out, "rocm-device-libs"), "%s", out);
  cr_expect(strstr(out, "hipkfd-runtime (= " TC_PROJECT_VERSION ")") && strstr(out, "clang-19"),
            "%s", out);
  cr_expect(strstr(out, "libc6"), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && rm -rf root && for d in debs/*.deb; do dpkg -x $d root; done"
                      " && ls root/opt/hipkfd/bin", TC_SCRATCH), 0, "%s", out);
  cr_expect(strstr(out, "hipcc") && strstr(out, "kfdsim") && strstr(out, "hipinfo"), "%s", out);
  free(out);
  const char *r = TC_SCRATCH "/root/opt/hipkfd";
  cr_assert_eq(tc_run(&out, "cd %s && %s/bin/hipcc --offload-arch=gfx942 "
                      "%s/samples/vector_add.hip -o vdeb && readelf -d vdeb | grep RUNPATH",
                      TC_SCRATCH, r, TC_SOURCE_DIR), 0, "%s", out);
  cr_expect(strstr(out, "root/opt/hipkfd/lib"), "%s", out);
  free(out);
  cr_assert_eq(tc_run(&out, "cd %s && KFDSIM_LIB=%s/lib/libkfdsim.so %s/bin/kfdsim -- ./vdeb 4096",
                      TC_SCRATCH, r, r), 0, "%s", out);
  cr_expect(strstr(out, "vector_add: PASSED"), "%s", out);
  free(out);
}
