# HipkfdGpuTargets.cmake, installed beside hip-config.cmake and hip-lang-config.cmake:
#
#   hipkfd_default_gpu_targets(<var> <prefix>)
#       The offload targets hipcc would use, as a CMake list: the GPU_TARGETS variable when the
#       project sets it, else `<prefix>/bin/hipconfig --offload-arch` (HIP_OFFLOAD_ARCH,
#       GPU_TARGETS or HCC_AMDGPU_TARGET from the environment, else the GPUs present, else
#       gfx90a;gfx942), else gfx90a;gfx942.
include_guard(GLOBAL)

function(hipkfd_default_gpu_targets var prefix)
  if(GPU_TARGETS)
    set(${var} "${GPU_TARGETS}" PARENT_SCOPE)
    return()
  endif()
  set(targets gfx90a gfx942)
  if(EXISTS "${prefix}/bin/hipconfig")
    execute_process(COMMAND "${prefix}/bin/hipconfig" --offload-arch
                    OUTPUT_VARIABLE out RESULT_VARIABLE rc ERROR_QUIET
                    OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(rc EQUAL 0 AND out)
      string(REPLACE "," ";" targets "${out}")
    endif()
  endif()
  set(${var} "${targets}" PARENT_SCOPE)
endfunction()
