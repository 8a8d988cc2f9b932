# HipToolchain.cmake: compiling HIP sources with the two toolchains of ARCHITECTURE.md.
#
#   hipkfd_hip_compile_flags(<var> ARCH <gfx>... [OPT <flags>...])
#       Flags for `clang++-19 -x hip` against hipkfd's include/hip/ (no AMD header).
#   hipkfd_add_hip_executable(<name> SOURCES <f.hip>... [ARCHS gfx90a gfx942] [OPT -O3]
#                             [FLAGS <extra compile flags>...] [LIBS <libs>...] [NO_RUNTIME])
#       An executable built by clang-19 with our headers, linked against our amdhip64 target.
#   hipkfd_add_hip_object(<var> SOURCE <f.hip> [ARCHS ...] [OPT ...] [FLAGS ...] [DEVICE_ONLY])
#       One compile step; sets <var> to the output path (used by the header compile tests).
#   hipkfd_add_hipcc_executable(<name> SOURCES <f.hip>... [FLAGS ...])
#       A "foreign" binary: Debian's hipcc 5.2.3 (clang-15, AMD's headers), --offload-arch=gfx90a,
#       linked by hipcc against AMD's libamdhip64.so.5 exactly as hipcc does by default. The
#       target is a custom target; its file is `$<TARGET_PROPERTY:<name>,HIPKFD_OUTPUT>`.
#
# Facts measured with Debian 12's clang-19 and rocm-device-libs 5.2.3 (these decide the flags):
# - clang-19 does not find Debian's device libraries on its own: it needs
#   --rocm-device-lib-path=<dir>. It links hip.bc, ocml.bc, ockl.bc and the oclc_* control
#   files picked by target and flags (daz_opt, unsafe_math, finite_only,
#   correctly_rounded_sqrt, wavefrontsize64, isa_version_<gfx>, abi_version_<N>).
# - The 5.2.3 set has no oclc_isa_version_942.bc. It is one constant, __oclc_ISA_version
#   (major*1000 + minor*100 + stepping: 9402 for gfx942, as the 940 file holds 9400), so the build
#   writes it as LLVM IR and assembles it with llvm-as-19 into a build-tree directory that also
#   holds symbolic links to every Debian .bc file.
# - Without -mcode-object-version=5, clang-19 emits a code object v5 but links
#   oclc_abi_version_400.bc, so ockl reads v4 dispatch-packet fields where v5 hidden arguments
#   are. Passing it explicitly makes clang link oclc_abi_version_500.bc (present in Debian's set).
# - clang-19's HIP mode adds `-include __clang_hip_runtime_wrapper.h` and AMD's include
#   directory; with libamdhip64-dev installed a header we lack would silently come from
#   /usr/include/hip. -nogpuinc drops both, so we put the wrapper back by hand (it carries the
#   math library and __host__/__device__) and put our include/ first. tests/headers checks with
#   -H that no /usr/include/hip path is read.
# - clang-19 runs clang-offload-bundler to build the fat binary: Debian ships it in
#   clang-tools-19, which must be installed.
include_guard(GLOBAL)

cmake_path(SET _hipkfd_include NORMALIZE "${CMAKE_CURRENT_LIST_DIR}/../include")
set(HIPKFD_HIP_INCLUDE_DIR "${_hipkfd_include}" CACHE INTERNAL "")
set(HIPKFD_DEFAULT_HIP_ARCHS gfx90a gfx942 CACHE STRING "Offload targets of hipkfd's HIP programs")
set(HIPKFD_DEVICE_LIB_DIR "${CMAKE_BINARY_DIR}/device-libs" CACHE INTERNAL "")
set(HIPKFD_SYSTEM_DEVICE_LIBS "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode"
    CACHE PATH "Debian rocm-device-libs bitcode directory")

find_program(HIPKFD_CLANG_HIP NAMES clang++-19 PATHS /usr/lib/llvm-19/bin)
find_program(HIPKFD_LLVM_AS NAMES llvm-as-19 llvm-as PATHS /usr/lib/llvm-19/bin NO_DEFAULT_PATH)
find_program(HIPKFD_LLVM_AS NAMES llvm-as-19)
find_program(HIPKFD_OFFLOAD_BUNDLER NAMES clang-offload-bundler PATHS /usr/lib/llvm-19/bin
             NO_DEFAULT_PATH)
find_program(HIPKFD_HIPCC NAMES hipcc)

if(NOT HIPKFD_CLANG_HIP OR NOT HIPKFD_LLVM_AS)
  message(WARNING "clang++-19 or llvm-as-19 missing: HIP programs will not be built")
  set(HIPKFD_HIP_AVAILABLE OFF CACHE INTERNAL "")
elseif(NOT HIPKFD_OFFLOAD_BUNDLER)
  message(WARNING "clang-offload-bundler (Debian clang-tools-19) missing: HIP programs will not be built")
  set(HIPKFD_HIP_AVAILABLE OFF CACHE INTERNAL "")
elseif(NOT EXISTS "${HIPKFD_SYSTEM_DEVICE_LIBS}/ockl.bc")
  message(WARNING "rocm-device-libs missing: HIP programs will not be built")
  set(HIPKFD_HIP_AVAILABLE OFF CACHE INTERNAL "")
else()
  set(HIPKFD_HIP_AVAILABLE ON CACHE INTERNAL "")
endif()

# The build-tree device-library directory: links to Debian's bitcode plus generated ISA files.
# Links are made at configure time (they only name files), the generated bitcode at build time.
function(_hipkfd_device_libs)
  if(TARGET hipkfd_device_libs OR NOT HIPKFD_HIP_AVAILABLE)
    return()
  endif()
  file(MAKE_DIRECTORY "${HIPKFD_DEVICE_LIB_DIR}")
  file(GLOB bitcode "${HIPKFD_SYSTEM_DEVICE_LIBS}/*.bc")
  foreach(bc ${bitcode})
    get_filename_component(base "${bc}" NAME)
    file(CREATE_LINK "${bc}" "${HIPKFD_DEVICE_LIB_DIR}/${base}" SYMBOLIC)
  endforeach()

  # gfx942: absent from 5.2.3. The data layout is clang-19's amdgcn layout, so that linking it
  # into a clang-19 module raises no layout-mismatch warning.
  set(ll "${CMAKE_BINARY_DIR}/device-libs-src/oclc_isa_version_942.ll")
  set(layout "e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9")
  file(WRITE "${ll}"
       "; __oclc_ISA_version for gfx942 (9.4.2), written by cmake/HipToolchain.cmake\n"
       "target datalayout = \"${layout}\"\n"
       "target triple = \"amdgcn-amd-amdhsa\"\n"
       "@__oclc_ISA_version = linkonce_odr protected local_unnamed_addr addrspace(4) constant i32 9402, align 4\n")
  set(out "${HIPKFD_DEVICE_LIB_DIR}/oclc_isa_version_942.bc")
  if(IS_SYMLINK "${out}")
    file(REMOVE "${out}")   # a stale link from an older configure must not shadow the output
  endif()
  add_custom_command(OUTPUT "${out}"
                     COMMAND "${HIPKFD_LLVM_AS}" "${ll}" -o "${out}"
                     DEPENDS "${ll}"
                     COMMENT "Generating device library oclc_isa_version_942.bc")
  add_custom_target(hipkfd_device_libs DEPENDS "${out}")
endfunction()

# hipkfd_hip_compile_flags(<var> ARCH <gfx>... [OPT <flags>...])
function(hipkfd_hip_compile_flags var)
  cmake_parse_arguments(A "" "" "ARCH;OPT" ${ARGN})
  if(NOT A_ARCH)
    set(A_ARCH ${HIPKFD_DEFAULT_HIP_ARCHS})
  endif()
  set(flags -x hip -std=c++17)
  foreach(arch ${A_ARCH})
    list(APPEND flags --offload-arch=${arch})
  endforeach()
  list(APPEND flags
       -nogpuinc
       -I${HIPKFD_HIP_INCLUDE_DIR}
       -include __clang_hip_runtime_wrapper.h
       --rocm-device-lib-path=${HIPKFD_DEVICE_LIB_DIR}
       -mcode-object-version=5
       -fPIE
       ${A_OPT})
  set(${var} ${flags} PARENT_SCOPE)
endfunction()

# hipkfd_add_hip_object(<var> SOURCE <f> [ARCHS ...] [OPT ...] [FLAGS ...] [OUTPUT <file>]
#                       [DEVICE_ONLY])
function(hipkfd_add_hip_object var)
  cmake_parse_arguments(A "DEVICE_ONLY" "SOURCE;OUTPUT" "ARCHS;OPT;FLAGS" ${ARGN})
  _hipkfd_device_libs()
  get_filename_component(src "${A_SOURCE}" ABSOLUTE)
  if(NOT A_OUTPUT)
    get_filename_component(stem "${A_SOURCE}" NAME_WE)
    set(A_OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/hipobj/${stem}.o")
  endif()
  get_filename_component(outdir "${A_OUTPUT}" DIRECTORY)
  file(MAKE_DIRECTORY "${outdir}")
  hipkfd_hip_compile_flags(flags ARCH ${A_ARCHS} OPT ${A_OPT})
  if(A_DEVICE_ONLY)
    list(APPEND flags --cuda-device-only)
  endif()
  file(RELATIVE_PATH rel "${CMAKE_BINARY_DIR}" "${A_OUTPUT}")
  add_custom_command(OUTPUT "${A_OUTPUT}"
                     COMMAND "${HIPKFD_CLANG_HIP}" ${flags} ${A_FLAGS}
                             -MD -MF "${A_OUTPUT}.d" -c "${src}" -o "${A_OUTPUT}"
                     DEPENDS "${src}" hipkfd_device_libs
                     DEPFILE "${A_OUTPUT}.d"
                     COMMENT "Building HIP object ${rel}"
                     VERBATIM COMMAND_EXPAND_LISTS)
  set(${var} "${A_OUTPUT}" PARENT_SCOPE)
endfunction()

# hipkfd_add_hip_executable(<name> SOURCES <f>... [ARCHS ...] [OPT ...] [FLAGS ...] [LIBS ...]
#                           [NO_RUNTIME])
function(hipkfd_add_hip_executable name)
  cmake_parse_arguments(A "NO_RUNTIME" "" "SOURCES;ARCHS;OPT;FLAGS;LIBS" ${ARGN})
  if(NOT HIPKFD_HIP_AVAILABLE)
    message(WARNING "skipping HIP executable ${name}: toolchain incomplete")
    return()
  endif()
  if(NOT A_OPT)
    set(A_OPT -O2)
  endif()
  set(objects)
  foreach(src ${A_SOURCES})
    get_filename_component(stem "${src}" NAME_WE)
    hipkfd_add_hip_object(obj SOURCE "${src}" ARCHS ${A_ARCHS} OPT ${A_OPT} FLAGS ${A_FLAGS}
                          OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/${name}.dir/${stem}.o")
    list(APPEND objects "${obj}")
  endforeach()
  # The objects are host ELF files with the device code bundled in .hip_fatbin: any C++ linker
  # links them; the registration calls they make resolve in libamdhip64.
  add_executable(${name} ${objects})
  set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  if(NOT A_NO_RUNTIME)
    target_link_libraries(${name} PRIVATE amdhip64)
  endif()
  target_link_libraries(${name} PRIVATE ${A_LIBS})
endfunction()

# hipkfd_add_hipcc_executable(<name> SOURCES <f>... [FLAGS ...])
function(hipkfd_add_hipcc_executable name)
  cmake_parse_arguments(A "" "" "SOURCES;FLAGS" ${ARGN})
  if(NOT HIPKFD_HIPCC)
    message(WARNING "skipping hipcc executable ${name}: hipcc not found")
    return()
  endif()
  set(srcs)
  foreach(src ${A_SOURCES})
    get_filename_component(abs "${src}" ABSOLUTE)
    list(APPEND srcs "${abs}")
  endforeach()
  set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  # Without --offload-arch hipcc asks rocm_agent_enumerator, which finds no GPU here and falls
  # back to gfx803. hipcc links -lamdhip64 from /usr/lib/x86_64-linux-gnu: AMD's library, which
  # tests then swap for ours with LD_LIBRARY_PATH.
  add_custom_command(OUTPUT "${out}"
                     COMMAND "${HIPKFD_HIPCC}" --offload-arch=gfx90a ${A_FLAGS} ${srcs} -o "${out}"
                     DEPENDS ${srcs}
                     COMMENT "Building hipcc (ROCm 5.2.3) executable ${name}"
                     VERBATIM COMMAND_EXPAND_LISTS)
  add_custom_target(${name} ALL DEPENDS "${out}")
  set_target_properties(${name} PROPERTIES HIPKFD_OUTPUT "${out}")
endfunction()
