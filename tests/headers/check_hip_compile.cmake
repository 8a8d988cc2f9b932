# Compile test for one HIP source against hipkfd's headers (run by ctest through cmake -P).
#   -DCOMPILER=clang++-19 -DFLAGS=<flags joined by |> -DARCHS=<archs joined by |> -DSRC=<file>
#   -DOUT=<output stem> -DOBJCOPY=<llvm-objcopy> -DBUNDLER=<clang-offload-bundler>
#   -DREADELF=<llvm-readelf> [-DCHECK_ASM=ON]
# Asserts: the host+device compile succeeds; the fat binary holds one code object per requested
# target, with no undefined dynamic symbol; with CHECK_ASM, each target's device assembly matches every `// EXPECT-ASM: <regex>`
# line of the source (the instruction the feature must lower to).
string(REPLACE "|" ";" flags "${FLAGS}")
string(REPLACE "|" ";" archs "${ARCHS}")
get_filename_component(outdir "${OUT}" DIRECTORY)
file(MAKE_DIRECTORY "${outdir}")

set(arch_flags)
foreach(arch ${archs})
  list(APPEND arch_flags --offload-arch=${arch})
endforeach()

execute_process(COMMAND ${COMPILER} ${flags} ${arch_flags} -c ${SRC} -o ${OUT}.o
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "compile failed (${rc}):\n${out}${err}")
endif()

execute_process(COMMAND ${OBJCOPY} --dump-section=.hip_fatbin=${OUT}.fatbin ${OUT}.o
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "no .hip_fatbin section in ${OUT}.o: ${err}")
endif()
execute_process(COMMAND ${BUNDLER} --list --type=o --input=${OUT}.fatbin
                RESULT_VARIABLE rc OUTPUT_VARIABLE bundles ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clang-offload-bundler --list failed: ${err}")
endif()
foreach(arch ${archs})
  if(NOT bundles MATCHES "amdgcn-amd-amdhsa--${arch}")
    message(FATAL_ERROR "fat binary lacks a ${arch} code object; bundles:\n${bundles}")
  endif()
  # Every symbol must resolve inside the code object: a loader has nothing to bind an
  # undefined one to (e.g. a device function the headers declared but nothing defined).
  string(REGEX MATCH "[^\n]*amdgcn-amd-amdhsa--${arch}" target "${bundles}")
  execute_process(COMMAND ${BUNDLER} --unbundle --type=o --targets=${target}
                          --input=${OUT}.fatbin --output=${OUT}.${arch}.co
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "unbundling ${target} failed: ${err}")
  endif()
  execute_process(COMMAND ${READELF} --dyn-syms --wide ${OUT}.${arch}.co
                  RESULT_VARIABLE rc OUTPUT_VARIABLE syms ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "llvm-readelf failed on the ${arch} code object: ${err}")
  endif()
  string(REGEX MATCHALL "\n *[0-9]+: [0-9a-f]+ +[0-9]+ [A-Z]+ +[A-Z]+ +[A-Z]+ +UND [^\n]+" undefined "${syms}")
  if(undefined)
    message(FATAL_ERROR "${arch} code object has undefined symbols:${undefined}")
  endif()
endforeach()

if(CHECK_ASM)
  file(STRINGS "${SRC}" expect_lines REGEX "^// EXPECT-ASM: ")
  foreach(arch ${archs})
    execute_process(COMMAND ${COMPILER} ${flags} --offload-arch=${arch} --cuda-device-only -S
                            ${SRC} -o ${OUT}.${arch}.s
                    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "device-only compile for ${arch} failed (${rc}):\n${out}${err}")
    endif()
    file(READ "${OUT}.${arch}.s" asm)
    foreach(line ${expect_lines})
      string(REGEX REPLACE "^// EXPECT-ASM: " "" regex "${line}")
      if(NOT asm MATCHES "${regex}")
        message(FATAL_ERROR "${arch}: device assembly has no match for '${regex}' (${OUT}.${arch}.s)")
      endif()
    endforeach()
  endforeach()
endif()
message(STATUS "ok: ${SRC} for ${archs}")
