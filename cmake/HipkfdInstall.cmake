# hipkfd: `cmake --install` layout of the runtime (included by src/CMakeLists.txt).
#
#   <prefix>/lib/libamdhip64.so.7.2.0, .so.7, .so (SONAME libamdhip64.so.7)
#   <prefix>/lib/libamdhip64.so.6, .so.5      symlinks for ROCm 6 / ROCm 5 binaries
#   <prefix>/include/hip/...                  every public header
#   <prefix>/lib/cmake/hip/                   find_package(hip): hip::amdhip64, hip::host, hip::device
#   <prefix>/lib/pkgconfig/hip.pc, amdhip64.pc
#   <prefix>/share/hipkfd/device-libs/        device bitcode for hiprtc (links to Debian's + gfx942)
include(CMakePackageConfigHelpers)

set(HIPKFD_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/hip)

install(TARGETS amdhip64 EXPORT hip-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
        NAMELINK_COMPONENT devel)
# libamdhip64.so.5: its own library with the ROCm 5 ABI (src/CMakeLists.txt).
install(TARGETS amdhip64_rocm5 LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime)
# The .so.6 name, as a symlink (see src/CMakeLists.txt for why not a copy).
foreach(compat 6)
  install(CODE "
    file(MAKE_DIRECTORY \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}\")
    file(CREATE_LINK libamdhip64.so.7 \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libamdhip64.so.${compat}\" SYMBOLIC)
    message(STATUS \"Installing: \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/libamdhip64.so.${compat} -> libamdhip64.so.7\")"
    COMPONENT runtime)
endforeach()

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hip DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT devel)

install(EXPORT hip-targets NAMESPACE hip:: DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR} COMPONENT devel)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hip-config.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/hip-config.cmake
                              INSTALL_DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR}
                              PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/hip-config-version.cmake
                                 VERSION 7.2.0 COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/hip-config.cmake ${CMAKE_CURRENT_BINARY_DIR}/hip-config-version.cmake
        DESTINATION ${HIPKFD_CMAKE_INSTALL_DIR} COMPONENT devel)

foreach(pc hip amdhip64)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/hip.pc.in ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc @ONLY)
  install(FILES ${CMAKE_CURRENT_BINARY_DIR}/${pc}.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
          COMPONENT devel)
endforeach()

# hiprtc's device libraries (src/rtc/hiprtc.c looks here once installed). Absent when the HIP
# toolchain was not found at configure time.
install(DIRECTORY ${CMAKE_BINARY_DIR}/device-libs/ DESTINATION ${CMAKE_INSTALL_DATADIR}/hipkfd/device-libs
        COMPONENT runtime OPTIONAL)
