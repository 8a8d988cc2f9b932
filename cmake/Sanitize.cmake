# The sanitizer build: -DHIPKFD_SANITIZE=address,undefined instruments everything this project
# compiles (the runtime, kfdsim, the launcher, the tests' host code) with those sanitizers.
#
# libkfdsim.so is preloaded into programs that were not built here (AMD's tools, hipcc binaries,
# the shell), so the sanitizer runtime is a shared library (clang: -shared-libsan; GCC's default)
# and it has to be the first library of every process: the tests' LD_PRELOAD puts it in front of
# libkfdsim.so (HIPKFD_SIM_PRELOAD, tests/CMakeLists.txt) and so does the kfdsim launcher.
# UBSan findings abort (-fno-sanitize-recover), so a finding fails the test that met it.
set(HIPKFD_SANITIZE "" CACHE STRING
    "Sanitizers to build with, as for -fsanitize= (e.g. address,undefined); empty: none")
set(HIPKFD_SANITIZER_RUNTIME "")
if(NOT HIPKFD_SANITIZE)
  return()
endif()

set(san_flags -fsanitize=${HIPKFD_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  list(APPEND san_flags -shared-libsan)
endif()
add_compile_options(${san_flags})
add_link_options(${san_flags})

# The runtime's file, for LD_PRELOAD.
if(HIPKFD_SANITIZE MATCHES "address")
  set(san_rt asan)
elseif(HIPKFD_SANITIZE MATCHES "thread")
  set(san_rt tsan)
else()
  set(san_rt ubsan)
endif()
if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
  set(san_name libclang_rt.${san_rt}-${CMAKE_SYSTEM_PROCESSOR}.so)
  if(san_rt STREQUAL "ubsan")
    set(san_name libclang_rt.ubsan_standalone-${CMAKE_SYSTEM_PROCESSOR}.so)
  endif()
else()
  set(san_name lib${san_rt}.so)
endif()
execute_process(COMMAND ${CMAKE_C_COMPILER} -print-file-name=${san_name}
                OUTPUT_VARIABLE san_path OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT IS_ABSOLUTE "${san_path}" OR NOT EXISTS "${san_path}")
  message(FATAL_ERROR "HIPKFD_SANITIZE: ${CMAKE_C_COMPILER} has no ${san_name}")
endif()
# GCC's libasan.so is a link to libasan.so.N; the loader wants the file itself.
file(REAL_PATH "${san_path}" HIPKFD_SANITIZER_RUNTIME)
# clang's runtime directory is not on the loader's path: instrumented binaries carry it.
get_filename_component(san_dir "${HIPKFD_SANITIZER_RUNTIME}" DIRECTORY)
add_link_options(-Wl,-rpath,${san_dir})
message(STATUS "Sanitizers: ${HIPKFD_SANITIZE}, runtime ${HIPKFD_SANITIZER_RUNTIME}")
