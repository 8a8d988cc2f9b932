// Graph memory freed outside the graph: an allocation node's memory, allocated by each launch,
// released by hipFree or hipFreeAsync between launches (capture.h graph_mem_free_outside), then
// allocated again by the next launch; values read back, the statistics follow.
#include "graph_check.h"
__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }
int main() {
  hipGraph_t g; CHECK_HIP(hipGraphCreate(&g, 0));
  hipMemAllocNodeParams ap = {};
  ap.poolProps.allocType = hipMemAllocationTypePinned;
  ap.poolProps.location.type = hipMemLocationTypeDevice;
  ap.bytesize = 256 * sizeof(int);
  hipGraphNode_t a, k, c;
  CHECK_HIP(hipGraphAddMemAllocNode(&a, g, nullptr, 0, &ap));
  int *d = (int *)ap.dptr; int v = 9;
  void *args[] = {&d, &v};
  hipKernelNodeParams kp = {}; kp.func = (void *)fill; kp.gridDim = dim3(1); kp.blockDim = dim3(256); kp.kernelParams = args;
  CHECK_HIP(hipGraphAddKernelNode(&k, g, &a, 1, &kp));
  static int h[256];
  CHECK_HIP(hipGraphAddMemcpyNode1D(&c, g, &k, 1, h, d, sizeof(h), hipMemcpyDeviceToHost));
  hipGraphExec_t x; CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  uint64_t used;
  for (int round = 0; round < 3; round++) {
    memset(h, 0, sizeof(h));
    CHECK_HIP(hipGraphLaunch(x, nullptr)); CHECK_HIP(hipStreamSynchronize(nullptr));
    for (int i = 0; i < 256; i++) CHECK(h[i] == 9);
    CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &used)); CHECK(used == sizeof(h));
    if (round == 0) CHECK_HIP(hipFree(d)); else CHECK_HIP(hipFreeAsync(d, nullptr));
    CHECK_HIP(hipStreamSynchronize(nullptr));
    CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &used)); CHECK(used == 0);
  }
  CHECK_HIP(hipGraphExecDestroy(x)); CHECK_HIP(hipGraphDestroy(g));
  hipPointerAttribute_t pa; CHECK_HIP(hipPointerGetAttributes(&pa, d)); CHECK(pa.type == hipMemoryTypeUnregistered);
  printf("PASSED\n"); return 0;
}
