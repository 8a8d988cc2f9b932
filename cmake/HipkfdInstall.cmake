# hipkfd: `cmake --install` layout of the runtime (included by src/CMakeLists.txt).
#
#   <prefix>/lib/libamdhip64.so.7.2.0, .so.7, .so (SONAME libamdhip64.so.7)
#   <prefix>/lib/libamdhip64.so.6, .so.5      symlinks for ROCm 6 / ROCm 5 binaries
#   <prefix>/lib/libhiprtc.so.7.2.0, .so.7, .so.6, .so   hiprtc as ROCm 6+ ships it
#   <prefix>/include/hip/...                  every public header
#   <prefix>/lib/cmake/hip/                   find_package(hip): hip::amdhip64, hip::host, hip::device
#   <prefix>/lib/cmake/hip-lang/              what enable_language(HIP) loads
#   <prefix>/lib/cmake/hiprtc/                find_package(hiprtc): hiprtc::hiprtc
#   <prefix>/lib/pkgconfig/hip.pc, amdhip64.pc
#   <prefix>/share/hip/version                the HIP version file clang and hipconfig read
#   <prefix>/share/hipkfd/device-libs/        device bitcode (links to Debian's + gfx942)
#   <prefix>/amdgcn/bitcode -> ../share/hipkfd/device-libs   where clang --rocm-path=<prefix> looks
#   <prefix>/bin/hipcc, hipconfig, hipinfo    (tools/CMakeLists.txt)
# Components (cmake/HipkfdPackage.cmake makes one Debian package of each): runtime, devel, kfdsim.
include(CMakePackageConfigHelpers)

set(HIPKFD_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hip)

# A symbolic link <prefix>/<link> -> <target> (relative), in a component.
function(hipkfd_install_symlink target link component)
  install(CODE "
    get_filename_component(_dir \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link}\" DIRECTORY)
    file(MAKE_DIRECTORY \"\${_dir}\")
    file(CREATE_LINK ${target} \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link}\" SYMBOLIC)
    message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${link} -> ${target}\")"
    COMPONENT ${component})
endfunction()

install(TARGETS amdhip64 EXPORT hip-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
        NAMELINK_COMPONENT devel)
# libamdhip64.so.5: its own library with the ROCm 5 ABI (src/CMakeLists.txt).
install(TARGETS amdhip64_rocm5 LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
# The .so.6 name, as a symlink (see src/CMakeLists.txt for why not a copy).
set(_hipkfd_so libamdhip64.so.${HIPKFD_HIP_VERSION_MAJOR})
foreach(compat 6)
  hipkfd_install_symlink(${_hipkfd_so} ${CMAKE_INSTALL_LIBDIR}/libamdhip64.so.${compat} runtime)
endforeach()

if(TARGET hiprtc)
  install(TARGETS hiprtc EXPORT hiprtc-targets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
          NAMELINK_COMPONENT devel)
  hipkfd_install_symlink(libhiprtc.so.${HIPKFD_HIP_VERSION_MAJOR} ${CMAKE_INSTALL_LIBDIR}/libhiprtc.so.6
                         runtime)
  install(EXPORT hiprtc-targets NAMESPACE hiprtc:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hiprtc
          COMPONENT devel)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hiprtc-config.cmake.in
                                ${CMAKE_CURRENT_BINARY_DIR}/hiprtc-config.cmake
                                INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hiprtc)
  write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hiprtc-config-version.cmake
                                   VERSION ${HIPKFD_HIP_VERSION} COMPATIBILITY SameMajorVersion)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hiprtc-config.cmake
                ${CMAKE_CURRENT_BINARY_DIR}/hiprtc-config-version.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/hiprtc COMPONENT devel)
endif()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hip DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

install(EXPORT hip-targets NAMESPACE hip:: DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR} COMPONENT devel)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hip-config.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/hip-config.cmake
                              INSTALL_DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
# Package versions are the HIP API level, so find_package(hip 6.0) works as with AMD's.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hip-config-version.cmake
                                 VERSION ${HIPKFD_HIP_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hip-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/hip-config-version.cmake
              ${PROJECT_SOURCE_DIR}/cmake/HipkfdGpuTargets.cmake
        DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR} COMPONENT devel)

# enable_language(HIP): CMake loads <rocm root>/lib/cmake/hip-lang/hip-lang-config.cmake.
set(HIPKFD_LANG_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hip-lang)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hip-lang-config.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/hip-lang-config.cmake
                              INSTALL_DESTINATION ${HIPKFD_LANG_INSTALL_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hip-lang-config-version.cmake
                                 VERSION ${HIPKFD_HIP_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hip-lang-config.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/hip-lang-config-version.cmake
        DESTINATION ${HIPKFD_LANG_INSTALL_DIR} COMPONENT devel)

# share/hip/version: without it clang guesses "HIP 3.5.0" for this prefix.
configure_file(${PROJECT_SOURCE_DIR}/cmake/hip-version.in ${CMAKE_CURRENT_BINARY_DIR}/hip-version @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hip-version DESTINATION ${CMAKE_INSTALL_DATADIR}/hip
        RENAME version COMPONENT devel)

file(RELATIVE_PATH HIPKFD_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" HIPKFD_PC_TO_PREFIX "${HIPKFD_PC_TO_PREFIX}")
foreach(pc hip amdhip64)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/hip.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT devel)
endforeach()

# hiprtc's device libraries (src/rtc/hiprtc.c looks here once installed). Absent when the HIP
# toolchain was not found at configure time.
install(DIRECTORY ${CMAKE_BINARY_DIR}/device-libs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hipkfd/device-libs
        COMPONENT runtime OPTIONAL)
# ROCm's layout, where clang --rocm-path=<prefix> (and so the HIP language) finds the bitcode.
hipkfd_install_symlink(../${CMAKE_INSTALL_DATADIR}/hipkfd/device-libs amdgcn/bitcode devel)

install(FILES ${PROJECT_SOURCE_DIR}/LICENSE ${PROJECT_SOURCE_DIR}/CHANGELOG.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime OPTIONAL)
