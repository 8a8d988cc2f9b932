// Memory fences and block synchronisation ("Memory fence instructions",
// "Synchronization functions").
// EXPECT-ASM: s_barrier
// EXPECT-ASM: buffer_wbl2|global_wb|buffer_inv
#include <hip/hip_runtime.h>

__global__ void sync_kernel(int *data, int *counts) {
  __shared__ int tile[256];
  tile[threadIdx.x] = data[threadIdx.x];
  __syncthreads();
  int pred = tile[(threadIdx.x + 1) % blockDim.x] > 0;
  counts[0] = __syncthreads_count(pred);
  counts[1] = __syncthreads_and(pred);
  counts[2] = __syncthreads_or(pred);
  data[threadIdx.x] = tile[255 - threadIdx.x];
  __threadfence_block();
  data[threadIdx.x + 256] = 1;
  __threadfence();
  data[threadIdx.x + 512] = 2;
  __threadfence_system();
}

int launch(int *d, int *c) {
  sync_kernel<<<1, 256>>>(d, c);
  return 0;
}
