# HipkfdLibraries.cmake (included by src/CMakeLists.txt after amdhip64 is defined):
#
#   - the identification string of hipkfd's release in libamdhip64 and libhiprtc (.comment)
#   - libhiprtc.so.7 (and .so.6): the hiprtc entry points in a library of their own, as ROCm 6+
#     ships them (build lines link -lhiprtc). libamdhip64 keeps exporting them too, for ROCm 5
#     binaries. libhiprtc is built from a small object library of the same sources and links
#     libamdhip64 for the two runtime calls hiprtc makes (the current device's target), so a
#     process still has one runtime. Like AMD's, its names carry no version node.
configure_file(${PROJECT_SOURCE_DIR}/cmake/hipkfd_ident.c.in ${CMAKE_CURRENT_BINARY_DIR}/hipkfd_ident.c
               @ONLY)
target_sources(amdhip64 PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/hipkfd_ident.c)

# The hiprtc sources: src/rtc/ once the architecture move lands, src/api/ before it.
file(GLOB HIPKFD_RTC_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/rtc/*.c)
if(NOT HIPKFD_RTC_SOURCES)
  file(GLOB HIPKFD_RTC_SOURCES CONFIGURE_DEPENDS
       ${CMAKE_CURRENT_SOURCE_DIR}/api/hiprtc.c ${CMAKE_CURRENT_SOURCE_DIR}/api/rtc_*.c)
endif()
if(NOT HIPKFD_RTC_SOURCES)
  message(WARNING "hiprtc sources not found: libhiprtc is not built")
  return()
endif()

# Same include directories and per-file definitions (set on the source files in this directory)
# as the runtime's objects.
add_library(hipkfd_rtc_objects OBJECT ${HIPKFD_RTC_SOURCES})
add_dependencies(hipkfd_rtc_objects amdhip64_abi)
target_include_directories(hipkfd_rtc_objects PRIVATE
  $<TARGET_PROPERTY:hipkfd_rt_objects,INCLUDE_DIRECTORIES>)
hipkfd_target_warnings(hipkfd_rtc_objects)

set(HIPKFD_RTC_MAP ${CMAKE_CURRENT_BINARY_DIR}/hiprtc.map)
file(WRITE ${HIPKFD_RTC_MAP} "{\n  global:\n    hiprtc*;\n  local:\n    *;\n};\n")
# hiprtcGetErrorString is defined in libamdhip64 with the ROCm 5 compatibility code; libhiprtc
# forwards to it (tools/hiprtc/error_string.c, by a lookup in libamdhip64).
add_library(hiprtc SHARED $<TARGET_OBJECTS:hipkfd_rtc_objects>
            ${PROJECT_SOURCE_DIR}/tools/hiprtc/error_string.c ${CMAKE_CURRENT_BINARY_DIR}/hipkfd_ident.c)
set_target_properties(hiprtc PROPERTIES
  LINKER_LANGUAGE C
  VERSION ${HIPKFD_HIP_VERSION}
  SOVERSION ${HIPKFD_HIP_VERSION_MAJOR}
  LINK_DEPENDS ${HIPKFD_RTC_MAP}
  INSTALL_RPATH "$ORIGIN")   # its libamdhip64 is the one beside it, whatever the program's rpath
target_include_directories(hiprtc
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(hiprtc PRIVATE amdhip64 Threads::Threads ${CMAKE_DL_LIBS})
hipkfd_target_warnings(hiprtc)
target_link_options(hiprtc PRIVATE -Wl,--version-script=${HIPKFD_RTC_MAP} -Wl,--no-undefined)
add_custom_command(TARGET hiprtc POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E create_symlink $<TARGET_FILE_NAME:hiprtc>
          $<TARGET_FILE_DIR:hiprtc>/libhiprtc.so.6
  VERBATIM)
