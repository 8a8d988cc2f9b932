# HipkfdVersion.cmake: the one source of every version number, read before project().
#
# include/hip/hip_version.h holds both numbers, because programs see it and the build cannot
# disagree with what programs see:
#   HIP_VERSION_MAJOR/MINOR/PATCH      the HIP API level hipkfd implements (7.2.0): the library's
#                                      file version and SONAME, find_package(hip) and pkg-config
#                                      versions, share/hip/version (what clang reads)
#   HIPKFD_VERSION_MAJOR/MINOR/PATCH   hipkfd's own release (project(), packages, hipconfig,
#                                      hipinfo, the identification string in the libraries)
# Sets HIPKFD_PROJECT_VERSION, HIPKFD_HIP_VERSION (x.y.z), HIPKFD_HIP_VERSION_MAJOR/MINOR/PATCH
# and HIPKFD_HIP_VERSION_FULL (AMD's "x.y.z-githash" form: 7.2.0-hipkfd-<project version>).
set(_hipkfd_version_header "${CMAKE_CURRENT_LIST_DIR}/../include/hip/hip_version.h")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_hipkfd_version_header}")
file(STRINGS "${_hipkfd_version_header}" _hipkfd_version_lines
     REGEX "^#define (HIP|HIPKFD)_VERSION_(MAJOR|MINOR|PATCH) +[0-9]+ *$")
foreach(_line IN LISTS _hipkfd_version_lines)
  string(REGEX MATCH "^#define ([A-Z_]+) +([0-9]+)" _ "${_line}")
  set(_hipkfd_hdr_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
endforeach()
foreach(_part HIP_VERSION_MAJOR HIP_VERSION_MINOR HIP_VERSION_PATCH
              HIPKFD_VERSION_MAJOR HIPKFD_VERSION_MINOR HIPKFD_VERSION_PATCH)
  if(NOT DEFINED _hipkfd_hdr_${_part})
    message(FATAL_ERROR "${_hipkfd_version_header} does not define ${_part} as a number")
  endif()
endforeach()

set(HIPKFD_PROJECT_VERSION
    "${_hipkfd_hdr_HIPKFD_VERSION_MAJOR}.${_hipkfd_hdr_HIPKFD_VERSION_MINOR}.${_hipkfd_hdr_HIPKFD_VERSION_PATCH}")
set(HIPKFD_HIP_VERSION_MAJOR ${_hipkfd_hdr_HIP_VERSION_MAJOR})
set(HIPKFD_HIP_VERSION_MINOR ${_hipkfd_hdr_HIP_VERSION_MINOR})
set(HIPKFD_HIP_VERSION_PATCH ${_hipkfd_hdr_HIP_VERSION_PATCH})
set(HIPKFD_HIP_VERSION
    "${HIPKFD_HIP_VERSION_MAJOR}.${HIPKFD_HIP_VERSION_MINOR}.${HIPKFD_HIP_VERSION_PATCH}")
# AMD's hipconfig --version prints MAJOR.MINOR.PATCH-GITHASH; tools such as FindHIP read the
# first three numbers, so the HIP level stays in front and hipkfd's release takes the hash's place.
set(HIPKFD_HIP_VERSION_GITHASH "hipkfd-${HIPKFD_PROJECT_VERSION}")
set(HIPKFD_HIP_VERSION_FULL "${HIPKFD_HIP_VERSION}-${HIPKFD_HIP_VERSION_GITHASH}")
unset(_hipkfd_version_lines)
unset(_hipkfd_version_header)
