/* The C view of the vector, complex and bfloat16 headers. */
#include <hip/hip_vector_types.h>
#include <hip/hip_complex.h>
#include <hip/hip_bfloat16.h>

int main(void) {
  int4 v = make_int4(1, 2, 3, 4);
  hipFloatComplex z = hipCmulf(make_hipFloatComplex(1, 1), make_hipFloatComplex(1, -1));
  hip_bfloat16 b = {0x3fc0}; /* 1.5 */
  return (v.w == 4 && hipCrealf(z) == 2.0f && b.data == 0x3fc0) ? 0 : 1;
}
