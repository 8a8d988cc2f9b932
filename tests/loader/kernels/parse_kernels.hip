// Kernels for the loader's parser tests: built without any header (-nogpuinc -nogpulib), so the
// attributes are spelled out. Each kernel exercises a metadata feature the tests check.
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))

struct S { int a; double b; char c; };

__device__ int gvar[16];
__device__ float gscale = 2.0f;
// A pointer initialised with a device address: the linker emits an R_AMDGPU_RELATIVE64 for it.
__device__ int *gptr = &gvar[3];

extern "C" __global__ void fill(int *p, int v) { p[__builtin_amdgcn_workitem_id_x()] = v + gvar[0]; }

__global__ void many(S s, int *out, double d, char c, float f, long l)
{
  out[0] = s.a + (int)d + c + (int)f + (int)l + (int)s.b + s.c + (int)gscale + *gptr;
}

extern "C" __global__ void dyn(int *out)
{
  extern __shared__ int sh[];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  sh[t] = t;
  __builtin_amdgcn_s_barrier();
  out[t] = sh[63 - t] + __builtin_amdgcn_workgroup_size_x();
}

extern "C" __global__ void __attribute__((amdgpu_flat_work_group_size(1, 256))) lds_heavy(int *out)
{
  __shared__ int tile[4096];
  unsigned t = __builtin_amdgcn_workitem_id_x();
  tile[t] = t;
  __builtin_amdgcn_s_barrier();
  out[t] = tile[255 - t];
}
