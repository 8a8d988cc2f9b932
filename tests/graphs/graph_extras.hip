// User objects held by graphs and executables, graph memory statistics, kernel node attributes
// (a cooperative kernel node doing a grid sync), and the driver-style memcpy/memset/free nodes.
#include <hip/hip_cooperative_groups.h>

#include "graph_check.h"

namespace cg = cooperative_groups;

static int destroyed;
static void destroy_counter(void *p) { destroyed += *(int *)p; }

__global__ void add_one(int *p) { p[threadIdx.x] += 1; }

// Every block writes its id, the grid syncs, block 0 sums them.
__global__ void grid_sum(int *slots, int *out)
{
  cg::grid_group g = cg::this_grid();
  if (threadIdx.x == 0)
    slots[blockIdx.x] = (int)blockIdx.x + 1;
  g.sync();
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    int s = 0;
    for (unsigned i = 0; i < gridDim.x; i++)
      s += slots[i];
    *out = s;
  }
}

static void user_objects()
{
  int weight = 1;
  hipUserObject_t obj;
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 2, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipUserObjectRetain(obj, 3));        // 5
  CHECK_HIP(hipUserObjectRelease(obj, 2));       // 3
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 2, 0));                      // 5: graph holds 2
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 1, hipGraphUserObjectMove)); // 5: graph holds 3
  EXPECT_HIP(hipGraphReleaseUserObject(g, obj, 4), hipErrorInvalidValue);
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));                        // 4: graph holds 2
  hipGraphNode_t n;
  CHECK_HIP(hipGraphAddEmptyNode(&n, g, nullptr, 0));
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));            // 6: exec holds 2
  CHECK_HIP(hipUserObjectRelease(obj, 2));                                // 4
  CHECK_HIP(hipGraphDestroy(g));                                          // 2
  CHECK(destroyed == 0);
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  CHECK_HIP(hipGraphExecDestroy(x));                                      // 0
  CHECK(destroyed == 1);
  EXPECT_HIP(hipUserObjectRetain((hipUserObject_t)&weight, 1), hipErrorInvalidResourceHandle);
  EXPECT_HIP(hipUserObjectCreate(&obj, &weight, nullptr, 1, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 0, 0), hipErrorInvalidValue);
}

static void mem_attributes()
{
  uint64_t base = 0, v = 0, high = 0;
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &base));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipMemAllocNodeParams ap = {};
  ap.poolProps.allocType = hipMemAllocationTypePinned;
  ap.poolProps.location.type = hipMemLocationTypeDevice;
  ap.poolProps.location.id = 0;
  ap.bytesize = 1 << 20;
  hipGraphNode_t alloc, fr;
  CHECK_HIP(hipGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
  // Graph memory is in use from a launch of its alloc node to a free (CUDA's lifetime), not from
  // the node's creation.
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &v));
  CHECK(v == base);
  hipGraphExec_t xa, xf;
  CHECK_HIP(hipGraphInstantiate(&xa, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(xa, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &v));
  CHECK(v == base + (1 << 20));
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrReservedMemCurrent, &v));
  CHECK(v == base + (1 << 20));
  // Freed by a free node of another graph.
  hipGraph_t gf;
  CHECK_HIP(hipGraphCreate(&gf, 0));
  CHECK_HIP(hipDrvGraphAddMemFreeNode(&fr, gf, nullptr, 0, (hipDeviceptr_t)ap.dptr));
  CHECK_HIP(hipGraphInstantiate(&xf, gf, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(xf, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &v));
  CHECK(v == base);
  CHECK_HIP(hipGraphExecDestroy(xa));
  CHECK_HIP(hipGraphExecDestroy(xf));
  CHECK_HIP(hipGraphDestroy(gf));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &v));
  CHECK(v == base);
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrReservedMemHigh, &high));
  CHECK(high >= base + (1 << 20));
  uint64_t zero = 0, one = 1;
  CHECK_HIP(hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &zero));
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &high));
  CHECK(high == v);
  EXPECT_HIP(hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &one), hipErrorInvalidValue);
  EXPECT_HIP(hipDeviceSetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &zero), hipErrorInvalidValue);
  EXPECT_HIP(hipDeviceGetGraphMemAttribute(99, hipGraphMemAttrUsedMemCurrent, &v), hipErrorInvalidDevice);
  CHECK_HIP(hipDeviceGraphMemTrim(0));
}

static void kernel_attributes()
{
  const int blocks = 8;
  int *slots, *out;
  CHECK_HIP(hipMalloc(&slots, blocks * sizeof(int)));
  CHECK_HIP(hipMalloc(&out, sizeof(int)));
  CHECK_HIP(hipMemset(out, 0, sizeof(int)));
  void *args[] = {&slots, &out};
  hipKernelNodeParams kp = {};
  kp.func = (void *)grid_sum;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(64);
  kp.kernelParams = args;
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t k, k2;
  CHECK_HIP(hipGraphAddKernelNode(&k, g, nullptr, 0, &kp));
  hipKernelNodeAttrValue val = {}, got = {};
  val.cooperative = 1;
  CHECK_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeCooperative, &val));
  val.priority = 3;
  CHECK_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributePriority, &val));
  CHECK_HIP(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeCooperative, &got));
  CHECK(got.cooperative == 1);
  CHECK_HIP(hipGraphAddKernelNode(&k2, g, &k, 1, &kp));
  CHECK_HIP(hipGraphKernelNodeCopyAttributes(k, k2));
  CHECK_HIP(hipGraphKernelNodeGetAttribute(k2, hipKernelNodeAttributePriority, &got));
  CHECK(got.priority == 3);
  hipGraphNode_t empty;
  CHECK_HIP(hipGraphAddEmptyNode(&empty, g, nullptr, 0));
  EXPECT_HIP(hipGraphKernelNodeGetAttribute(empty, hipKernelNodeAttributeCooperative, &got),
             hipErrorInvalidValue);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  int sum = 0;
  CHECK_HIP(hipMemcpy(&sum, out, sizeof(int), hipMemcpyDeviceToHost));
  CHECK(sum == blocks * (blocks + 1) / 2);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(slots));
  CHECK_HIP(hipFree(out));
}

static void driver_nodes()
{
  const int n = 64;
  int *d, h[n];
  CHECK_HIP(hipMalloc(&d, n * sizeof(int)));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  HIP_MEMSET_NODE_PARAMS ms = {};
  ms.dst = (hipDeviceptr_t)d;
  ms.value = 41;
  ms.elementSize = 4;
  ms.width = n;
  ms.height = 1;
  hipGraphNode_t set, inc, back;
  CHECK_HIP(hipDrvGraphAddMemsetNode(&set, g, nullptr, 0, &ms, nullptr));
  void *args[] = {&d};
  hipKernelNodeParams kp = {};
  kp.func = (void *)add_one;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(n);
  kp.kernelParams = args;
  CHECK_HIP(hipGraphAddKernelNode(&inc, g, &set, 1, &kp));
  HIP_MEMCPY3D c = {};
  c.srcMemoryType = hipMemoryTypeDevice;
  c.srcDevice = (hipDeviceptr_t)d;
  c.dstMemoryType = hipMemoryTypeHost;
  c.dstHost = h;
  c.WidthInBytes = n * sizeof(int);
  c.Height = 1;
  c.Depth = 1;
  CHECK_HIP(hipDrvGraphAddMemcpyNode(&back, g, &inc, 1, &c, nullptr));
  HIP_MEMCPY3D r = {};
  CHECK_HIP(hipDrvGraphMemcpyNodeGetParams(back, &r));
  CHECK(r.srcMemoryType == hipMemoryTypeDevice && r.srcDevice == c.srcDevice);
  CHECK(r.dstMemoryType == hipMemoryTypeHost && r.dstHost == h && r.WidthInBytes == c.WidthInBytes);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 42);
  ms.value = 9;
  CHECK_HIP(hipDrvGraphExecMemsetNodeSetParams(x, set, &ms, nullptr));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 10);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
}

// Copies and fills past the end of an allocation are refused when the node is made or changed
// (clr's ihipMemcpy_validate).
static void node_sizes()
{
  char *d, host[4096];
  CHECK_HIP(hipMalloc(&d, 1024));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t n;
  EXPECT_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, host, d, 2048, hipMemcpyDeviceToHost),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, d + 512, host, 1024, hipMemcpyHostToDevice),
             hipErrorInvalidValue);
  CHECK_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, d + 512, host, 512, hipMemcpyHostToDevice));
  EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(n, d, host, 1025, hipMemcpyHostToDevice),
             hipErrorInvalidValue);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParams1D(x, n, host, d + 1, 1024, hipMemcpyDeviceToHost),
             hipErrorInvalidValue);
  hipMemsetParams ms = {};
  ms.dst = d;
  ms.elementSize = 4;
  ms.width = 257;  // 1028 bytes
  ms.height = 1;
  EXPECT_HIP(hipGraphAddMemsetNode(&n, g, nullptr, 0, &ms), hipErrorInvalidValue);
  ms.width = 256;
  CHECK_HIP(hipGraphAddMemsetNode(&n, g, nullptr, 0, &ms));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
}

int main()
{
  user_objects();
  mem_attributes();
  kernel_attributes();
  driver_nodes();
  node_sizes();
  printf("PASSED\n");
  return 0;
}
