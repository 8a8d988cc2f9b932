// Batched memory operation nodes: hipGraphAddBatchMemOpNode writes 32- and 64-bit values and
// waits for a host flag in graph order; the node keeps its own copy of the operations; get/set
// params, the executable's set params and bad arguments.
#include <cstring>

#include "graph_check.h"

__global__ void copy_plus(const unsigned *src, unsigned *dst) { dst[threadIdx.x] = *src + threadIdx.x; }

int main() {
  unsigned *d32, *out;
  unsigned long long *d64;
  volatile unsigned *flag;
  CHECK_HIP(hipMalloc(&d32, sizeof(unsigned)));
  CHECK_HIP(hipMalloc(&d64, sizeof(unsigned long long)));
  CHECK_HIP(hipMalloc(&out, 64 * sizeof(unsigned)));
  CHECK_HIP(hipHostMalloc((void **)&flag, sizeof(unsigned), hipHostMallocCoherent));
  *flag = 0;

  hipStreamBatchMemOpParams ops[3];
  std::memset(ops, 0, sizeof(ops));
  ops[0].waitValue.operation = hipStreamMemOpWaitValue32;
  ops[0].waitValue.address = (hipDeviceptr_t)flag;
  ops[0].waitValue.value = 1;
  ops[0].waitValue.flags = hipStreamWaitValueGte;
  ops[1].writeValue.operation = hipStreamMemOpWriteValue32;
  ops[1].writeValue.address = (hipDeviceptr_t)d32;
  ops[1].writeValue.value = 100;
  ops[2].writeValue.operation = hipStreamMemOpWriteValue64;
  ops[2].writeValue.address = (hipDeviceptr_t)d64;
  ops[2].writeValue.value64 = 0x123456789abcull;
  hipBatchMemOpNodeParams bp = {};
  bp.count = 3;
  bp.paramArray = ops;

  hipGraph_t g;
  hipGraphNode_t batch, kern;
  CHECK_HIP(hipGraphCreate(&g, 0));
  CHECK_HIP(hipGraphAddBatchMemOpNode(&batch, g, nullptr, 0, &bp));
  ops[1].writeValue.value = 555; // the node copied the array: this does not reach it
  void *args[] = {&d32, &out};
  hipKernelNodeParams kp = {};
  kp.func = (void *)copy_plus;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(64);
  kp.kernelParams = args;
  CHECK_HIP(hipGraphAddKernelNode(&kern, g, &batch, 1, &kp));

  hipGraphNodeType type;
  CHECK_HIP(hipGraphNodeGetType(batch, &type));
  CHECK(type == hipGraphNodeTypeBatchMemOp);
  hipBatchMemOpNodeParams got = {};
  CHECK_HIP(hipGraphBatchMemOpNodeGetParams(batch, &got));
  CHECK(got.count == 3 && got.flags == 0 && got.paramArray != ops);
  CHECK(got.paramArray[1].writeValue.value == 100);

  hipGraphExec_t x;
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(x, s));
  CHECK(hipStreamQuery(s) == hipErrorNotReady); // the wait holds the graph until the flag is set
  *flag = 1;
  CHECK_HIP(hipStreamSynchronize(s));
  unsigned h[64];
  unsigned long long v64 = 0;
  CHECK_HIP(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  CHECK_HIP(hipMemcpy(&v64, d64, sizeof(v64), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < 64; i++) CHECK(h[i] == 100 + i);
  CHECK(v64 == 0x123456789abcull);

  // new values for the executable only, then for the graph
  ops[1].writeValue.value = 200;
  CHECK_HIP(hipGraphExecBatchMemOpNodeSetParams(x, batch, &bp));
  CHECK_HIP(hipGraphLaunch(x, s));
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK_HIP(hipMemcpy(h, out, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(h[5] == 205);
  CHECK_HIP(hipGraphBatchMemOpNodeGetParams(batch, &got));
  CHECK(got.paramArray[1].writeValue.value == 100); // the graph's node is unchanged
  ops[1].writeValue.value = 300;
  CHECK_HIP(hipGraphBatchMemOpNodeSetParams(batch, &bp));
  CHECK_HIP(hipGraphBatchMemOpNodeGetParams(batch, &got));
  CHECK(got.paramArray[1].writeValue.value == 300);

  // bad arguments
  hipGraphNode_t n;
  CHECK(hipGraphAddBatchMemOpNode(&n, g, nullptr, 0, nullptr) == hipErrorInvalidValue);
  hipBatchMemOpNodeParams bad = bp;
  bad.count = 0;
  CHECK(hipGraphAddBatchMemOpNode(&n, g, nullptr, 0, &bad) == hipErrorInvalidValue);
  bad = bp;
  bad.flags = 1;
  CHECK(hipGraphAddBatchMemOpNode(&n, g, nullptr, 0, &bad) == hipErrorInvalidValue);
  hipStreamBatchMemOpParams wrong = ops[1];
  wrong.writeValue.operation = (hipStreamBatchMemOpType)42;
  bad = bp;
  bad.count = 1;
  bad.paramArray = &wrong;
  CHECK(hipGraphAddBatchMemOpNode(&n, g, nullptr, 0, &bad) == hipErrorInvalidValue);
  CHECK(hipGraphBatchMemOpNodeGetParams(kern, &got) == hipErrorInvalidValue);
  CHECK(hipGraphBatchMemOpNodeSetParams(batch, &bad) == hipErrorInvalidValue);
  CHECK(hipGraphExecBatchMemOpNodeSetParams(x, kern, &bp) == hipErrorInvalidValue);

  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(d32));
  CHECK_HIP(hipFree(d64));
  CHECK_HIP(hipFree(out));
  CHECK_HIP(hipHostFree((void *)flag));
  printf("PASSED\n");
  return 0;
}
