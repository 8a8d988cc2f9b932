// Executable graphs launched many times back to back: results of every launch counted, exec
// updates and node enabling between launches without a synchronize (a launch in flight keeps
// its arguments), launches on several streams, stream order with other work around a launch, and
// a 2000-node chain (more nodes than a stream's ring holds) whose order is checked node by node.
#include <stdlib.h>

#include "graph_check.h"

__global__ void add_one(int *p, int v) { atomicAdd(p, v); }

// Node i of a chain: reads what node i-1 wrote, so any reordering shows in the values.
__global__ void chain_step(int *buf, int i) { buf[i] = buf[i - 1] + 1; }

static hipKernelNodeParams kp(void *func, void **args)
{
  hipKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3(1);
  p.blockDim = dim3(1);
  p.kernelParams = args;
  return p;
}

// A chain of n add_one(p, v) nodes; [out] nodes (n entries).
static hipGraph_t add_chain(int n, int *p, int v, hipGraphNode_t *nodes)
{
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  for (int i = 0; i < n; i++) {
    void *args[] = {&p, &v};
    hipKernelNodeParams k = kp((void *)add_one, args);
    CHECK_HIP(hipGraphAddKernelNode(&nodes[i], g, i ? &nodes[i - 1] : NULL, i ? 1 : 0, &k));
  }
  return g;
}

static void back_to_back(int *dev)
{
  hipGraphNode_t nodes[10];
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemset(dev, 0, sizeof(int)));
  hipGraph_t g = add_chain(10, dev, 1, nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  for (int i = 0; i < 200; i++)
    CHECK_HIP(hipGraphLaunch(x, s));
  CHECK_HIP(hipStreamSynchronize(s));
  int h = 0;
  CHECK_HIP(hipMemcpy(&h, dev, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(h == 2000);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(s));
}

// New parameters between launches, no synchronize: each launch adds what it had when launched.
static void updates_between(int *dev)
{
  hipGraphNode_t nodes[4];
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipMemset(dev, 0, sizeof(int)));
  hipGraph_t g = add_chain(4, dev, 1, nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  int want = 0;
  for (int round = 0; round < 30; round++) {
    int v = round + 1;
    void *args[] = {&dev, &v};
    hipKernelNodeParams k = kp((void *)add_one, args);
    CHECK_HIP(hipGraphExecKernelNodeSetParams(x, nodes[round % 4], &k));
    CHECK_HIP(hipGraphLaunch(x, s));
    // node round%4 now adds v; the others keep what they were last given
    want = 0;
    for (int n = 0; n < 4; n++) {
      int last = -1;
      for (int r = 0; r <= round; r++)
        if (r % 4 == n)
          last = r + 1;
      want += last < 0 ? 1 : last;
    }
    static int total = 0;
    total += want;
    want = total;
  }
  // A whole-graph update: every node adds 100.
  hipGraphNode_t nodes2[4];
  int *dev2 = dev;
  hipGraph_t g2 = add_chain(4, dev2, 100, nodes2);
  hipGraphNode_t bad;
  hipGraphExecUpdateResult r;
  CHECK_HIP(hipGraphExecUpdate(x, g2, &bad, &r));
  CHECK_HIP(hipGraphLaunch(x, s));
  want += 400;
  // A disabled node adds nothing.
  CHECK_HIP(hipGraphNodeSetEnabled(x, nodes[0], 0));
  CHECK_HIP(hipGraphLaunch(x, s));
  want += 300;
  CHECK_HIP(hipGraphNodeSetEnabled(x, nodes[0], 1));
  CHECK_HIP(hipGraphLaunch(x, s));
  want += 400;
  CHECK_HIP(hipStreamSynchronize(s));
  int h = 0;
  CHECK_HIP(hipMemcpy(&h, dev, sizeof(h), hipMemcpyDeviceToHost));
  if (h != want)
    fprintf(stderr, "updates_between: %d, expected %d\n", h, want);
  CHECK(h == want);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipGraphDestroy(g2));
  CHECK_HIP(hipStreamDestroy(s));
}

// Four streams, each with its own graph, and one graph launched on all four in turn.
static void several_streams(int *dev)
{
  enum { S = 4 };
  hipStream_t s[S];
  hipGraph_t g[S + 1];
  hipGraphExec_t x[S + 1];
  hipGraphNode_t nodes[8];
  CHECK_HIP(hipMemset(dev, 0, (S + 1) * sizeof(int)));
  for (int i = 0; i <= S; i++) {
    if (i < S)
      CHECK_HIP(hipStreamCreateWithFlags(&s[i], hipStreamNonBlocking));
    g[i] = add_chain(8, dev + i, 1, nodes);
    CHECK_HIP(hipGraphInstantiate(&x[i], g[i], NULL, NULL, 0));
  }
  for (int round = 0; round < 25; round++)
    for (int i = 0; i < S; i++) {
      CHECK_HIP(hipGraphLaunch(x[i], s[i]));
      CHECK_HIP(hipGraphLaunch(x[S], s[(i + round) % S]));
    }
  for (int i = 0; i < S; i++)
    CHECK_HIP(hipStreamSynchronize(s[i]));
  int h[S + 1];
  CHECK_HIP(hipMemcpy(h, dev, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < S; i++)
    CHECK(h[i] == 25 * 8);
  CHECK(h[S] == 25 * S * 8);
  for (int i = 0; i <= S; i++) {
    CHECK_HIP(hipGraphExecDestroy(x[i]));
    CHECK_HIP(hipGraphDestroy(g[i]));
    if (i < S)
      CHECK_HIP(hipStreamDestroy(s[i]));
  }
}

// Work before and after a launch on the same stream: a fill, the graph, a copy back, an event.
static void stream_order(int *dev)
{
  hipGraphNode_t nodes[3];
  hipStream_t s;
  hipEvent_t e;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipEventCreate(&e));
  hipGraph_t g = add_chain(3, dev, 2, nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  int *host;
  CHECK_HIP(hipHostMalloc((void **)&host, 64 * sizeof(int), 0));
  for (int i = 0; i < 64; i++) {
    CHECK_HIP(hipMemsetAsync(dev, 0, sizeof(int), s));
    hipLaunchKernelGGL(add_one, dim3(1), dim3(1), 0, s, dev, i);
    CHECK_HIP(hipGraphLaunch(x, s));
    CHECK_HIP(hipMemcpyAsync(host + i, dev, sizeof(int), hipMemcpyDeviceToHost, s));
  }
  CHECK_HIP(hipEventRecord(e, s));
  CHECK_HIP(hipEventSynchronize(e));
  for (int i = 0; i < 64; i++)
    CHECK(host[i] == i + 6);
  CHECK_HIP(hipHostFree(host));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipEventDestroy(e));
  CHECK_HIP(hipStreamDestroy(s));
}

// 2000 nodes, each reading its predecessor's value; launched three times without a synchronize.
static void long_chain(void)
{
  enum { N = 2000 };
  int *buf;
  CHECK_HIP(hipMalloc((void **)&buf, (N + 1) * sizeof(int)));
  CHECK_HIP(hipMemset(buf, 0, (N + 1) * sizeof(int)));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t prev = NULL;
  for (int i = 1; i <= N; i++) {
    int idx = i;
    void *args[] = {&buf, &idx};
    hipKernelNodeParams k = kp((void *)chain_step, args);
    hipGraphNode_t n;
    CHECK_HIP(hipGraphAddKernelNode(&n, g, prev ? &prev : NULL, prev ? 1 : 0, &k));
    prev = n;
  }
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  static int h[N + 1];
  for (int round = 1; round <= 3; round++) {
    CHECK_HIP(hipMemsetAsync(buf, 0, sizeof(int), s));
    hipLaunchKernelGGL(add_one, dim3(1), dim3(1), 0, s, buf, round * 10000);
    CHECK_HIP(hipGraphLaunch(x, s));
  }
  CHECK_HIP(hipStreamSynchronize(s));
  CHECK_HIP(hipMemcpy(h, buf, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i <= N; i++)
    if (h[i] != 30000 + i) {
      fprintf(stderr, "long_chain: buf[%d] = %d, expected %d\n", i, h[i], 30000 + i);
      CHECK(0);
    }
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(buf));
}

__global__ void bad_store(int *p) { *p = 1; }

// A kernel of a graph faults: the synchronize reports it, the next launch and every later wait
// report the same sticky error, nothing hangs (destroying the graph included). Last: the context
// stays failed until hipDeviceReset (after_reset).
static void faulting_graph(int *dev)
{
  enum { N = 40 };
  hipGraphNode_t nodes[N];
  hipGraph_t g = add_chain(N, dev, 1, nodes);
  int *bad = (int *)0x7f0000000000ull;
  void *args[] = {&bad};
  hipKernelNodeParams k = kp((void *)bad_store, args);
  CHECK_HIP(hipGraphKernelNodeSetParams(nodes[N / 2], &k));
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  // A replayed launch may meet the fault itself (the faulting node runs while later nodes are
  // still being enqueued): then it reports the sticky error, as the waits do.
  hipError_t first = hipGraphLaunch(x, s);
  CHECK(first == hipSuccess || first == hipErrorIllegalAddress);
  hipError_t got = hipStreamSynchronize(s);
  CHECK(got == hipErrorIllegalAddress);
  hipError_t again = hipGraphLaunch(x, s);
  CHECK(again == hipSuccess || again == got);
  CHECK(hipStreamSynchronize(s) == got);
  CHECK(hipDeviceSynchronize() == got);
  hipGraphExecDestroy(x);
  hipGraphDestroy(g);
}

// After the fault, hipDeviceReset starts the device over: a graph instantiated before the fault
// (its nodes pointed at new memory by an exec update) and a graph made after the reset both run
// and compute right.
static void after_reset(hipGraphExec_t before, hipGraphNode_t *nodes, int n)
{
  CHECK_HIP(hipDeviceReset());
  int *dev;
  CHECK_HIP(hipMalloc((void **)&dev, sizeof(int)));
  CHECK_HIP(hipMemset(dev, 0, sizeof(int)));
  int v = 2;
  for (int i = 0; i < n; i++) {
    void *args[] = {&dev, &v};
    hipKernelNodeParams k = kp((void *)add_one, args);
    CHECK_HIP(hipGraphExecKernelNodeSetParams(before, nodes[i], &k));
  }
  hipStream_t s;
  CHECK_HIP(hipStreamCreate(&s));
  CHECK_HIP(hipGraphLaunch(before, s));
  CHECK_HIP(hipStreamSynchronize(s));
  hipGraphNode_t fresh_nodes[40];
  hipGraph_t g = add_chain(40, dev, 1, fresh_nodes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, s));
  CHECK_HIP(hipGraphLaunch(before, s));
  CHECK_HIP(hipStreamSynchronize(s));
  int h = 0;
  CHECK_HIP(hipMemcpy(&h, dev, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(h == 2 * (2 * n) + 40);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(s));
  CHECK_HIP(hipFree(dev));
}

int main(void)
{
  // Every graph here takes the prepared path (by default only graphs of 32 kernels and more do);
  // the second run of the checks with replays compares the two.
  setenv("HIPKFD_GRAPH_PREPARE_MIN", getenv("GRAPH_TEST_REPLAY") ? "100000" : "1", 1);
  int *dev;
  CHECK_HIP(hipMalloc((void **)&dev, 16 * sizeof(int)));
  back_to_back(dev);
  updates_between(dev);
  several_streams(dev);
  stream_order(dev);
  long_chain();
  enum { KEPT = 40 };
  hipGraphNode_t kept_nodes[KEPT];
  hipGraph_t kept = add_chain(KEPT, dev, 1, kept_nodes);
  hipGraphExec_t kept_x;
  CHECK_HIP(hipGraphInstantiate(&kept_x, kept, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(kept_x, 0));
  CHECK_HIP(hipStreamSynchronize(0));
  faulting_graph(dev);
  after_reset(kept_x, kept_nodes, KEPT);
  CHECK_HIP(hipGraphExecDestroy(kept_x));
  CHECK_HIP(hipGraphDestroy(kept));
  printf("PASSED\n");
  return 0;
}
