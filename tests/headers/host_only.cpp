// The headers a plain C++ host compiler may include (no HIP mode): the qualifiers must vanish
// and the host-side types keep their HIP layout.
#include <hip/hip_runtime.h>
#include <hip/hip_vector_types.h>
#include <hip/hip_complex.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_math_constants.h>

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 layout");
static_assert(sizeof(float3) == 12 && alignof(float3) == 4, "float3 layout");
static_assert(sizeof(hip_bfloat16) == 2, "hip_bfloat16 layout");

int main() {
  float4 a = make_float4(1, 2, 3, 4);
  a = a * 2.0f + make_float4(1, 1, 1, 1);
  hipDoubleComplex z = hipCmul(make_hipDoubleComplex(0, 1), make_hipDoubleComplex(0, 1));
  hip_bfloat16 b(1.5f);
  int ok = a.w == 9.0f && hipCreal(z) == -1.0 && float(b * b) == 2.25f && HIP_ONE_F == 1.0f;
  return ok ? 0 : 1;
}
