// Changing executable graphs: hipGraphExecKernelNodeSetParams, the other Exec*SetParams,
// hipGraphExecUpdate (same topology: new parameters; changed topology: refused), node
// enable/disable; instantiation refuses a cycle; argument errors as CUDA/clr report them.
#include <string.h>

#include "graph_check.h"

__global__ void fill_value(int *out, int v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = v;
}

__global__ void add_value(int *io, int v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    io[i] += v;
}

static const int N = 256;

static hipKernelNodeParams kparams(void *func, void **args)
{
  hipKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(N / 64);
  p.blockDim = dim3(64);
  p.kernelParams = args;
  return p;
}

static void run_and_check(hipGraphExec_t x, hipStream_t st, const int *h, int want)
{
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < N; i++)
    if (h[i] != want) {
      fprintf(stderr, "h[%d] = %d, expected %d\n", i, h[i], want);
      exit(1);
    }
}

// Builds fill(v1) -> add(v2) -> copy out into a new graph.
static hipGraph_t build(int *d, int *h, int v1, int v2, hipGraphNode_t nodes[3])
{
  int n = N;
  void *a1[] = {&d, &v1, &n};
  void *a2[] = {&d, &v2, &n};
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipKernelNodeParams p = kparams((void *)fill_value, a1);
  CHECK_HIP(hipGraphAddKernelNode(&nodes[0], g, NULL, 0, &p));
  p = kparams((void *)add_value, a2);
  CHECK_HIP(hipGraphAddKernelNode(&nodes[1], g, &nodes[0], 1, &p));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&nodes[2], g, &nodes[1], 1, h, d, N * sizeof(int),
                                    hipMemcpyDeviceToHost));
  return g;
}

static void test_exec_set_params(int *d, int *h, hipStream_t st)
{
  hipGraphNode_t nodes[3];
  hipGraph_t g = build(d, h, 10, 1, nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  run_and_check(x, st, h, 11);

  // New kernel arguments for the executable only; the graph keeps its own.
  int v = 100, n = N;
  void *a[] = {&d, &v, &n};
  hipKernelNodeParams p = kparams((void *)fill_value, a);
  CHECK_HIP(hipGraphExecKernelNodeSetParams(x, nodes[0], &p));
  run_and_check(x, st, h, 101);
  hipKernelNodeParams in_graph;
  CHECK_HIP(hipGraphKernelNodeGetParams(nodes[0], &in_graph));
  CHECK(*(int *)in_graph.kernelParams[1] == 10);
  // Wrong node type for the setter.
  EXPECT_HIP(hipGraphExecKernelNodeSetParams(x, nodes[2], &p), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphExecKernelNodeSetParams(NULL, nodes[0], &p), hipErrorInvalidValue);

  // Disable the add: the executable behaves as if it were an empty node.
  unsigned on = 7;
  CHECK_HIP(hipGraphNodeGetEnabled(x, nodes[1], &on));
  CHECK(on == 1);
  CHECK_HIP(hipGraphNodeSetEnabled(x, nodes[1], 0));
  CHECK_HIP(hipGraphNodeGetEnabled(x, nodes[1], &on));
  CHECK(on == 0);
  run_and_check(x, st, h, 100);
  CHECK_HIP(hipGraphNodeSetEnabled(x, nodes[1], 1));
  run_and_check(x, st, h, 101);

  // Memcpy node of the executable redirected to a second host buffer.
  int *h2;
  CHECK_HIP(hipHostMalloc((void **)&h2, N * sizeof(int), 0));
  memset(h2, 0, N * sizeof(int));
  CHECK_HIP(hipGraphExecMemcpyNodeSetParams1D(x, nodes[2], h2, d, N * sizeof(int),
                                              hipMemcpyDeviceToHost));
  run_and_check(x, st, h2, 101);
  CHECK_HIP(hipHostFree(h2));

  // The generic API: a new fill value through hipGraphExecNodeSetParams.
  int v2 = 500;
  void *a2[] = {&d, &v2, &n};
  hipGraphNodeParams gp = {};
  gp.type = hipGraphNodeTypeKernel;
  gp.kernel = kparams((void *)fill_value, a2);
  CHECK_HIP(hipGraphExecNodeSetParams(x, nodes[0], &gp));
  CHECK_HIP(hipGraphExecMemcpyNodeSetParams1D(x, nodes[2], h, d, N * sizeof(int),
                                              hipMemcpyDeviceToHost));
  run_and_check(x, st, h, 501);
  gp.type = hipGraphNodeTypeHost;
  EXPECT_HIP(hipGraphExecNodeSetParams(x, nodes[0], &gp), hipErrorInvalidValue);

  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
}

// A graph built with hipGraphAddNode only.
static void test_generic_add(int *d, int *h, hipStream_t st)
{
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  int v = 9, n = N;
  void *a[] = {&d, &v, &n};
  hipGraphNodeParams p = {};
  p.type = hipGraphNodeTypeKernel;
  p.kernel = kparams((void *)fill_value, a);
  hipGraphNode_t k, c;
  CHECK_HIP(hipGraphAddNode(&k, g, NULL, 0, &p));
  memset(&p, 0, sizeof(p));
  p.type = hipGraphNodeTypeMemcpy;
  p.memcpy.copyParams.srcPtr = make_hipPitchedPtr(d, N * sizeof(int), N * sizeof(int), 1);
  p.memcpy.copyParams.dstPtr = make_hipPitchedPtr(h, N * sizeof(int), N * sizeof(int), 1);
  p.memcpy.copyParams.extent = make_hipExtent(N * sizeof(int), 1, 1);
  p.memcpy.copyParams.kind = hipMemcpyDeviceToHost;
  CHECK_HIP(hipGraphAddNode(&c, g, &k, 1, &p));
  p.type = hipGraphNodeTypeExtSemaphoreSignal;
  hipGraphNode_t e;
  EXPECT_HIP(hipGraphAddNode(&e, g, NULL, 0, &p), hipErrorNotSupported);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  run_and_check(x, st, h, 9);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
}

static void test_exec_update(int *d, int *h, hipStream_t st)
{
  hipGraphNode_t nodes[3], nodes2[3], bad;
  hipGraph_t g = build(d, h, 1, 2, nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  run_and_check(x, st, h, 3);

  // Same topology, new parameters: accepted.
  hipGraph_t g2 = build(d, h, 20, 22, nodes2);
  hipGraphExecUpdateResult r = hipGraphExecUpdateError;
  CHECK_HIP(hipGraphExecUpdate(x, g2, &bad, &r));
  CHECK(r == hipGraphExecUpdateSuccess && bad == NULL);
  run_and_check(x, st, h, 42);

  // One more node: refused, the executable is unchanged.
  hipGraphNode_t extra;
  CHECK_HIP(hipGraphAddEmptyNode(&extra, g2, &nodes2[2], 1));
  EXPECT_HIP(hipGraphExecUpdate(x, g2, &bad, &r), hipErrorGraphExecUpdateFailure);
  CHECK(r == hipGraphExecUpdateErrorTopologyChanged);
  run_and_check(x, st, h, 42);

  // Same shape, different node type: refused with NodeTypeChanged.
  hipGraph_t g3;
  CHECK_HIP(hipGraphCreate(&g3, 0));
  hipGraphNode_t e0, e1, e2;
  CHECK_HIP(hipGraphAddEmptyNode(&e0, g3, NULL, 0));
  CHECK_HIP(hipGraphAddEmptyNode(&e1, g3, &e0, 1));
  CHECK_HIP(hipGraphAddEmptyNode(&e2, g3, &e1, 1));
  EXPECT_HIP(hipGraphExecUpdate(x, g3, &bad, &r), hipErrorGraphExecUpdateFailure);
  CHECK(r == hipGraphExecUpdateErrorNodeTypeChanged && bad == e0);

  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipGraphDestroy(g2));
  CHECK_HIP(hipGraphDestroy(g3));
}

static void test_cycle_and_errors(int *d)
{
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t a, b, c;
  CHECK_HIP(hipGraphAddEmptyNode(&a, g, NULL, 0));
  CHECK_HIP(hipGraphAddEmptyNode(&b, g, &a, 1));
  CHECK_HIP(hipGraphAddEmptyNode(&c, g, &b, 1));
  CHECK_HIP(hipGraphAddDependencies(g, &c, &a, 1)); // a -> b -> c -> a
  hipGraphExec_t x = (hipGraphExec_t)0x1;
  char log[64];
  EXPECT_HIP(hipGraphInstantiate(&x, g, NULL, log, sizeof(log)), hipErrorInvalidValue);
  CHECK(x == NULL && log[0] != 0);
  EXPECT_HIP(hipGraphInstantiateWithFlags(&x, g, 0), hipErrorInvalidValue);
  // Breaking the cycle makes it instantiable.
  CHECK_HIP(hipGraphRemoveDependencies(g, &c, &a, 1));
  CHECK_HIP(hipGraphInstantiateWithFlags(&x, g, 0));
  unsigned long long flags = 1;
  CHECK_HIP(hipGraphExecGetFlags(x, &flags));
  CHECK(flags == 0);
  CHECK_HIP(hipGraphUpload(x, NULL));
  CHECK_HIP(hipGraphExecDestroy(x));

  // Argument errors.
  hipGraph_t other;
  CHECK_HIP(hipGraphCreate(&other, 0));
  hipGraphNode_t o;
  EXPECT_HIP(hipGraphCreate(NULL, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphCreate(&other, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddEmptyNode(NULL, g, NULL, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddEmptyNode(&o, NULL, NULL, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddEmptyNode(&o, g, NULL, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddEmptyNode(&o, other, &a, 1), hipErrorInvalidValue); // foreign dependency
  hipGraphNode_t dup[] = {a, a};
  EXPECT_HIP(hipGraphAddEmptyNode(&o, g, dup, 2), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddDependencies(g, &a, &a, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddDependencies(other, &a, &b, 1), hipErrorInvalidValue);
  size_t count = 0;
  EXPECT_HIP(hipGraphGetNodes(g, NULL, NULL), hipErrorInvalidValue);
  CHECK_HIP(hipGraphGetNodes(other, NULL, &count));
  CHECK(count == 0);
  hipKernelNodeParams p = {};
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.func = (void *)&count; // not a kernel
  EXPECT_HIP(hipGraphAddKernelNode(&o, g, NULL, 0, &p), hipErrorInvalidDeviceFunction);
  int v = 0, n = 1;
  void *args[] = {&d, &v, &n};
  p = kparams((void *)fill_value, args);
  p.gridDim = dim3(0);
  EXPECT_HIP(hipGraphAddKernelNode(&o, g, NULL, 0, &p), hipErrorInvalidConfiguration);
  EXPECT_HIP(hipGraphAddMemcpyNode1D(&o, g, NULL, 0, NULL, d, 4, hipMemcpyDefault),
             hipErrorInvalidValue);
  hipHostNodeParams hp = {NULL, NULL};
  EXPECT_HIP(hipGraphAddHostNode(&o, g, NULL, 0, &hp), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddChildGraphNode(&o, g, NULL, 0, NULL), hipErrorInvalidValue);
  {
    // A graph may be its own child: the node holds a clone of the graph as it was (CUDA, clr).
    hipGraph_t selfg;
    hipGraphNode_t e, child;
    size_t n = 0;
    CHECK_HIP(hipGraphCreate(&selfg, 0));
    CHECK_HIP(hipGraphAddEmptyNode(&e, selfg, NULL, 0));
    CHECK_HIP(hipGraphAddChildGraphNode(&child, selfg, NULL, 0, selfg));
    CHECK_HIP(hipGraphGetNodes(selfg, NULL, &n));
    CHECK(n == 2);
    hipGraph_t inner;
    CHECK_HIP(hipGraphChildGraphNodeGetGraph(child, &inner));
    CHECK_HIP(hipGraphGetNodes(inner, NULL, &n));
    CHECK(n == 1);
    CHECK_HIP(hipGraphDestroy(selfg));
  }
  EXPECT_HIP(hipGraphAddEventRecordNode(&o, g, NULL, 0, NULL), hipErrorInvalidValue);
  hipGraphNode_t found;
  EXPECT_HIP(hipGraphNodeFindInClone(&found, a, other), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphLaunch(NULL, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphDebugDotPrint(g, NULL, 0), hipErrorInvalidValue);
  CHECK_HIP(hipGraphDestroy(other));
  CHECK_HIP(hipGraphDestroy(g));
}

int main()
{
  int *d, *h;
  CHECK_HIP(hipMalloc((void **)&d, N * sizeof(int)));
  CHECK_HIP(hipHostMalloc((void **)&h, N * sizeof(int), 0));
  hipStream_t st;
  CHECK_HIP(hipStreamCreate(&st));
  test_exec_set_params(d, h, st);
  test_exec_update(d, h, st);
  test_generic_add(d, h, st);
  test_cycle_and_errors(d);
  CHECK_HIP(hipStreamDestroy(st));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
  printf("PASSED\n");
  return 0;
}
