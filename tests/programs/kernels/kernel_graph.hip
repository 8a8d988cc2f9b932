// Graphs: a graph built by hand (hipGraphCreate, hipGraphAddKernelNode with dependencies,
// hipGraphAddMemcpyNode1D), instantiated and launched twice; and the same work recorded by stream
// capture (hipStreamBeginCapture/hipStreamEndCapture), replayed, with hipStreamIsCapturing.
#include <hip/hip_runtime.h>
#include "../check.h"

__global__ void axpb(int *v, int n, int a, int b)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * a + b;
}

static const int N = 256;

static int check_values(const int *h, int launches)
{
  // Each launch applies v = v*2 + 1 then v = v*3 + 0 (a chain of two kernel nodes).
  for (int i = 0; i < N; i++) {
    int want = i;
    for (int l = 0; l < launches; l++)
      want = (want * 2 + 1) * 3;
    if (h[i] != want) {
      fprintf(stderr, "v[%d] = %d, want %d after %d launches\n", i, h[i], want, launches);
      return 1;
    }
  }
  return 0;
}

static int manual_graph(int *d, int *h, hipStream_t s)
{
  for (int i = 0; i < N; i++)
    h[i] = i;
  CHECK_HIP(hipMemcpy(d, h, N * sizeof(int), hipMemcpyHostToDevice));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  int n = N, a1 = 2, b1 = 1, a2 = 3, b2 = 0;
  void *args1[] = {&d, &n, &a1, &b1};
  void *args2[] = {&d, &n, &a2, &b2};
  hipKernelNodeParams p = {};
  p.func = (void *)axpb;
  p.gridDim = dim3(N / 64);
  p.blockDim = dim3(64);
  p.sharedMemBytes = 0;
  p.kernelParams = args1;
  hipGraphNode_t k1, k2, cp;
  CHECK_HIP(hipGraphAddKernelNode(&k1, g, nullptr, 0, &p));
  p.kernelParams = args2;
  CHECK_HIP(hipGraphAddKernelNode(&k2, g, &k1, 1, &p));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&cp, g, &k2, 1, h, d, N * sizeof(int),
                                    hipMemcpyDeviceToHost));
  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(g, nullptr, &count));
  CHECK(count == 3);

  hipGraphExec_t exec;
  CHECK_HIP(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(exec, s));
  CHECK_HIP(hipStreamSynchronize(s));
  if (check_values(h, 1))
    return 1;
  CHECK_HIP(hipGraphLaunch(exec, s));
  CHECK_HIP(hipStreamSynchronize(s));
  if (check_values(h, 2))
    return 1;
  CHECK_HIP(hipGraphExecDestroy(exec));
  CHECK_HIP(hipGraphDestroy(g));
  return 0;
}

static int captured_graph(int *d, int *h, hipStream_t s)
{
  for (int i = 0; i < N; i++)
    h[i] = i;
  CHECK_HIP(hipMemcpy(d, h, N * sizeof(int), hipMemcpyHostToDevice));
  hipStreamCaptureStatus st = hipStreamCaptureStatusActive;
  CHECK_HIP(hipStreamIsCapturing(s, &st));
  CHECK(st == hipStreamCaptureStatusNone);

  hipGraph_t g;
  CHECK_HIP(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipStreamIsCapturing(s, &st));
  CHECK(st == hipStreamCaptureStatusActive);
  hipLaunchKernelGGL(axpb, dim3(N / 64), dim3(64), 0, s, d, N, 2, 1);
  hipLaunchKernelGGL(axpb, dim3(N / 64), dim3(64), 0, s, d, N, 3, 0);
  CHECK_HIP(hipMemcpyAsync(h, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  CHECK_HIP(hipStreamEndCapture(s, &g));
  CHECK_HIP(hipStreamIsCapturing(s, &st));
  CHECK(st == hipStreamCaptureStatusNone);

  // Nothing ran while capturing.
  int first = -1;
  CHECK_HIP(hipMemcpy(&first, d + 5, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(first == 5);

  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(g, nullptr, &count));
  CHECK(count == 3);
  hipGraphExec_t exec;
  CHECK_HIP(hipGraphInstantiate(&exec, g, nullptr, nullptr, 0));
  for (int l = 1; l <= 3; l++) {
    CHECK_HIP(hipGraphLaunch(exec, s));
    CHECK_HIP(hipStreamSynchronize(s));
    if (check_values(h, l))
      return 1;
  }
  CHECK_HIP(hipGraphExecDestroy(exec));
  CHECK_HIP(hipGraphDestroy(g));
  return 0;
}

int main()
{
  int *d, *h;
  CHECK_HIP(hipMalloc(&d, N * sizeof(int)));
  CHECK_HIP(hipHostMalloc((void **)&h, N * sizeof(int), 0));
  hipStream_t s;
  CHECK_HIP(hipStreamCreateWithFlags(&s, hipStreamNonBlocking));
  if (manual_graph(d, h, s) || captured_graph(d, h, s))
    return 1;
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipHostFree(h));
  CHECK_HIP(hipFree(d));
  printf("PASSED\n");
  return 0;
}
