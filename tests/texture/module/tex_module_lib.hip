// Device-only module for tex_module.hip: a texture reference the host finds with
// hipModuleGetTexRef and binds through the driver API.
#include <hip/hip_runtime.h>

texture<float, hipTextureType2D, hipReadModeElementType> mod_tex;

extern "C" __global__ void mod_fetch(float *out, float y) {
  int i = threadIdx.x;
  out[i] = tex2D(mod_tex, i + 0.5f, y);
}
