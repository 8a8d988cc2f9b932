# HipkfdPackage.cmake: `cpack -G DEB` (run in the build directory) makes three Debian packages,
# one per install component, installed under CMAKE_INSTALL_PREFIX (/opt/hipkfd by default):
#
#   hipkfd-runtime  libamdhip64 (.so.7, .so.6, .so.5), libhiprtc, the device libraries, hipinfo
#   hipkfd-dev      headers, hipcc, hipconfig, the CMake packages (hip, hip-lang, hiprtc),
#                   pkg-config files, share/hip/version; depends on the runtime and on Debian's
#                   clang 19 toolchain that hipcc runs
#   hipkfd-kfdsim   kfdsim, the software GPU (launcher and preload library)
#
# Shared-library dependencies come from dpkg-shlibdeps; the rest is listed below. The device
# libraries are links to Debian's rocm-device-libs (plus the generated gfx942 file), hence that
# dependency; hiprtc runs clang-19 at run time, hence the recommendation.
set(CPACK_PACKAGE_NAME hipkfd)
set(CPACK_PACKAGE_VENDOR "hipkfd")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "HIP runtime on amdkfd, and kfdsim, a software AMD GPU")
set(CPACK_PACKAGE_CONTACT "hipkfd developers <hipkfd@localhost>")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime devel kfdsim)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libhiprtc and hipinfo need libamdhip64.so.7, which this build (not a Debian package) provides.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/src)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_COMPONENT_RUNTIME_DESCRIPTION
    "HIP runtime (libamdhip64, libhiprtc) that talks to amdkfd directly\n hipkfd implements the HIP ${HIPKFD_HIP_VERSION_MAJOR}.${HIPKFD_HIP_VERSION_MINOR} API; programs built by AMD's hipcc run on it unchanged.")
set(CPACK_COMPONENT_DEVEL_DESCRIPTION
    "hipcc, hipconfig, headers and CMake packages of hipkfd\n Builds HIP programs with Debian's clang 19 against hipkfd's headers and runtime.")
set(CPACK_COMPONENT_KFDSIM_DESCRIPTION
    "kfdsim: a software AMD GPU behind the amdkfd kernel ABI\n Runs HIP programs (hipkfd's or AMD's ROCm) on machines without a GPU: kfdsim -- ./app")
set(CPACK_COMPONENT_DEVEL_DEPENDS runtime)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME hipkfd-runtime)
set(CPACK_DEBIAN_DEVEL_PACKAGE_NAME hipkfd-dev)
set(CPACK_DEBIAN_KFDSIM_PACKAGE_NAME hipkfd-kfdsim)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_DEPENDS "rocm-device-libs")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "clang-19, llvm-19")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "hipkfd-kfdsim")
set(CPACK_DEBIAN_DEVEL_PACKAGE_DEPENDS
    "clang-19, clang-tools-19, lld-19, libclang-rt-19-dev, rocm-device-libs")
set(CPACK_DEBIAN_DEVEL_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_KFDSIM_PACKAGE_SECTION devel)

include(CPack)
