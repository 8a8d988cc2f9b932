// Where HIP graphs follow AMD's runtime (clr hipamd/src/hip_graph*.cpp) rather than leaving the
// behaviour undefined: late calls on destroyed user objects, memcpy node directions, flags, kernel
// node attributes and update results. Every check reads back a value or an error code.
#include <pthread.h>
#include <string.h>

#include "graph_check.h"

static int destroyed;
static void destroy_counter(void *p) { destroyed += *(int *)p; }

// clr tolerates calls on a user object that is already destroyed and releases of more references
// than the object has: they succeed and change nothing.
static void user_objects_late_calls()
{
  int weight = 1;
  destroyed = 0;
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipUserObject_t obj;
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 1, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 1, hipGraphUserObjectMove)); // graph holds the 1
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));                        // 0: destroyed
  CHECK(destroyed == 1);
  CHECK_HIP(hipUserObjectRelease(obj, 1));     // already destroyed: nothing happens
  CHECK_HIP(hipUserObjectRetain(obj, 1));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 1, 0));
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));
  CHECK(destroyed == 1);

  // A graph given more references (Move) than the object has; over-releases are ignored.
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 1, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 2, hipGraphUserObjectMove)); // object 1, graph 2
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 4));                        // more than 1: ignored
  CHECK_HIP(hipUserObjectRelease(obj, 2));                                // ignored
  CHECK(destroyed == 1);
  CHECK_HIP(hipGraphReleaseUserObject(g, obj, 1));                        // 0: destroyed
  CHECK(destroyed == 2);

  // The user drops every reference while a graph and its clone hold some: the object dies once,
  // and destroying the graphs afterwards touches nothing.
  CHECK_HIP(hipUserObjectCreate(&obj, &weight, destroy_counter, 3, hipUserObjectNoDestructorSync));
  CHECK_HIP(hipGraphRetainUserObject(g, obj, 2, hipGraphUserObjectMove)); // object 3, graph 2
  hipGraph_t c;
  CHECK_HIP(hipGraphClone(&c, g));                                         // object 5
  CHECK_HIP(hipUserObjectRelease(obj, 5));                                 // 0: destroyed
  CHECK(destroyed == 3);
  CHECK_HIP(hipGraphReleaseUserObject(c, obj, 2));
  CHECK_HIP(hipGraphDestroy(c));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK(destroyed == 3);

  // Still errors: null handles, zero counts, a pointer that never was a user object.
  CHECK_HIP(hipGraphCreate(&g, 0));
  EXPECT_HIP(hipGraphReleaseUserObject(g, nullptr, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRelease(nullptr, 1), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRetain(obj, 0), hipErrorInvalidValue);
  EXPECT_HIP(hipUserObjectRelease((hipUserObject_t)&weight, 1), hipErrorInvalidResourceHandle);
  CHECK_HIP(hipGraphDestroy(g));
}

__device__ int dev_a[64];
__device__ int dev_b[64];

// 1D copies: the kind must agree with what the two sides are; a node's new parameters may not copy
// a buffer onto itself; an executable's copy keeps its direction (clr hip_graph.cpp).
static void memcpy_1d_rules()
{
  int *d, *d2, host[256];
  CHECK_HIP(hipMalloc(&d, 1024));
  CHECK_HIP(hipMalloc(&d2, 1024));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t n, m;
  // pageable host -> device must be HostToDevice or Default; device -> pageable DeviceToHost.
  EXPECT_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, d, host, 1024, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, host, d, 1024, hipMemcpyHostToDevice),
             hipErrorInvalidValue);
  CHECK_HIP(hipGraphAddMemcpyNode1D(&n, g, nullptr, 0, d, host, 1024, hipMemcpyDefault));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&m, g, &n, 1, d2, d, 1024, hipMemcpyDeviceToDeviceNoCU));
  CHECK_HIP(hipGraphMemcpyNodeSetParams1D(n, d, host, 1024, hipMemcpyHostToDevice));
  EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(m, d, d, 1024, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  // Overlapping ranges of one allocation that run past its end.
  EXPECT_HIP(hipGraphMemcpyNodeSetParams1D(m, d + 5, d, 1024 - 5, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParams1D(x, m, d2, d, 1024, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue); // was DeviceToDeviceNoCU
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParams1D(x, m, d, d, 512, hipMemcpyDeviceToDeviceNoCU),
             hipErrorInvalidValue);
  CHECK_HIP(hipGraphExecMemcpyNodeSetParams1D(x, m, d2, d, 512, hipMemcpyDeviceToDeviceNoCU));
  for (int i = 0; i < 256; i++)
    host[i] = i * 3;
  CHECK_HIP(hipMemset(d2, 0, 1024));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  int back[256];
  CHECK_HIP(hipMemcpy(back, d2, 1024, hipMemcpyDeviceToHost));
  for (int i = 0; i < 256; i++)
    CHECK(back[i] == (i < 128 ? i * 3 : 0));

  // The 3D form: a new direction, a pitch below the width, a box past the end.
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(d, 256, 256, 4);
  p.dstPtr = make_hipPitchedPtr(d2, 256, 256, 4);
  p.extent = make_hipExtent(256, 4, 1);
  p.kind = hipMemcpyDeviceToDevice;
  hipGraphNode_t c3;
  CHECK_HIP(hipGraphAddMemcpyNode(&c3, g, nullptr, 0, &p));
  hipGraphExec_t x3;
  CHECK_HIP(hipGraphInstantiate(&x3, g, nullptr, nullptr, 0));
  p.kind = hipMemcpyDefault;
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParams(x3, c3, &p), hipErrorInvalidValue);
  p.kind = hipMemcpyDeviceToDevice;
  p.srcPtr.pitch = 255;
  EXPECT_HIP(hipGraphAddMemcpyNode(&n, g, nullptr, 0, &p), hipErrorInvalidPitchValue);
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParams(x3, c3, &p), hipErrorInvalidValue);
  p.srcPtr.pitch = 256;
  p.dstPos = make_hipPos(0, 1, 0); // rows 1..4 of a 4-row buffer
  EXPECT_HIP(hipGraphAddMemcpyNode(&n, g, nullptr, 0, &p), hipErrorInvalidValue);
  p.extent.height = 3;
  CHECK_HIP(hipGraphExecMemcpyNodeSetParams(x3, c3, &p));

  // The driver form reports all of these as hipErrorInvalidValue.
  HIP_MEMCPY3D dp = {};
  dp.srcMemoryType = hipMemoryTypeDevice;
  dp.srcDevice = (hipDeviceptr_t)d;
  dp.srcPitch = 255;
  dp.srcHeight = 4;
  dp.dstMemoryType = hipMemoryTypeDevice;
  dp.dstDevice = (hipDeviceptr_t)d2;
  dp.dstPitch = 256;
  dp.dstHeight = 4;
  dp.WidthInBytes = 256;
  dp.Height = 4;
  dp.Depth = 1;
  EXPECT_HIP(hipDrvGraphAddMemcpyNode(&n, g, nullptr, 0, &dp, nullptr), hipErrorInvalidValue);
  dp.srcPitch = 256;
  dp.dstY = 1;
  EXPECT_HIP(hipDrvGraphAddMemcpyNode(&n, g, nullptr, 0, &dp, nullptr), hipErrorInvalidValue);
  dp.dstY = 0;
  CHECK_HIP(hipDrvGraphAddMemcpyNode(&n, g, nullptr, 0, &dp, nullptr));

  CHECK_HIP(hipGraphExecDestroy(x3));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipFree(d2));
}

// Symbol copies: one symbol and one pointer; the kind against the pointer side; the type is
// hipGraphNodeTypeMemcpy; an executable's copy keeps its direction.
static void memcpy_symbol_rules()
{
  int host[64], *d;
  CHECK_HIP(hipMalloc(&d, sizeof(host)));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t to, from;
  CHECK_HIP(hipGraphAddMemcpyNodeToSymbol(&to, g, nullptr, 0, HIP_SYMBOL(dev_a), host,
                                          sizeof(host), 0, hipMemcpyHostToDevice));
  CHECK_HIP(hipGraphAddMemcpyNodeFromSymbol(&from, g, &to, 1, d, HIP_SYMBOL(dev_a), sizeof(host),
                                            0, hipMemcpyDeviceToDevice));
  hipGraphNodeType t;
  CHECK_HIP(hipGraphNodeGetType(to, &t));
  CHECK(t == hipGraphNodeTypeMemcpy);
  EXPECT_HIP(hipGraphMemcpyNodeSetParamsToSymbol(to, HIP_SYMBOL(dev_a), HIP_SYMBOL(dev_a),
                                                 sizeof(host), 0, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphMemcpyNodeSetParamsToSymbol(to, HIP_SYMBOL(dev_a), HIP_SYMBOL(dev_b),
                                                 sizeof(host), 0, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphMemcpyNodeSetParamsToSymbol(to, HIP_SYMBOL(dev_a), host, sizeof(host), 0,
                                                 hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphMemcpyNodeSetParamsFromSymbol(from, HIP_SYMBOL(dev_b), HIP_SYMBOL(dev_a),
                                                   sizeof(host), 0, hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphMemcpyNodeSetParamsFromSymbol(from, host, HIP_SYMBOL(dev_a), sizeof(host), 0,
                                                   hipMemcpyDeviceToDevice),
             hipErrorInvalidMemcpyDirection);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParamsToSymbol(x, to, HIP_SYMBOL(dev_a), host, sizeof(host),
                                                     0, hipMemcpyDefault),
             hipErrorInvalidValue);
  EXPECT_HIP(hipGraphExecMemcpyNodeSetParamsFromSymbol(x, from, HIP_SYMBOL(dev_b),
                                                       HIP_SYMBOL(dev_a), sizeof(host), 0,
                                                       hipMemcpyDeviceToDevice),
             hipErrorInvalidValue);
  for (int i = 0; i < 64; i++)
    host[i] = 7 * i + 1;
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  int back[64];
  CHECK_HIP(hipMemcpy(back, d, sizeof(back), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(back[i] == 7 * i + 1);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
}

__global__ void bump(int *p) { p[threadIdx.x] += 1; }

// Instantiation flags: one flag at a time, as clr checks them.
static void instantiate_flags()
{
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t n;
  CHECK_HIP(hipGraphAddEmptyNode(&n, g, nullptr, 0));
  hipGraphExec_t x = nullptr;
  EXPECT_HIP(hipGraphInstantiateWithFlags(&x, g, 10), hipErrorInvalidValue);
  EXPECT_HIP(hipGraphInstantiateWithFlags(&x, g, hipGraphInstantiateFlagUpload),
             hipErrorInvalidValue);
  CHECK_HIP(hipGraphInstantiateWithFlags(&x, g, hipGraphInstantiateFlagUseNodePriority));
  CHECK_HIP(hipGraphExecDestroy(x));
  hipGraphInstantiateParams ip = {};
  ip.flags = 10;
  ip.result_out = hipGraphInstantiateSuccess;
  EXPECT_HIP(hipGraphInstantiateWithParams(&x, g, &ip), hipErrorInvalidValue);
  CHECK(ip.result_out == hipGraphInstantiateError);
  ip.flags = hipGraphInstantiateFlagDeviceLaunch; // a valid flag, but no device-side launch here
  EXPECT_HIP(hipGraphInstantiateWithParams(&x, g, &ip), hipErrorNotSupported);
  CHECK(ip.result_out == hipGraphInstantiateError);
  ip.flags = hipGraphInstantiateFlagUpload;
  ip.uploadStream = nullptr;
  CHECK_HIP(hipGraphInstantiateWithParams(&x, g, &ip));
  CHECK(ip.result_out == hipGraphInstantiateSuccess);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
}

// Kernel node attributes: an access-policy window is checked as clr does (AMD GPUs report a
// largest window of 0 bytes); the cooperative attribute reads back as set.
static void kernel_node_attributes()
{
  int *d;
  CHECK_HIP(hipMalloc(&d, 64 * sizeof(int)));
  CHECK_HIP(hipMemset(d, 0, 64 * sizeof(int)));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipKernelNodeParams kp = {};
  void *args[] = {&d};
  kp.func = (void *)bump;
  kp.gridDim = dim3(1);
  kp.blockDim = dim3(64);
  kp.kernelParams = args;
  hipGraphNode_t k;
  CHECK_HIP(hipGraphAddKernelNode(&k, g, nullptr, 0, &kp));
  hipKernelNodeAttrValue v = {}, got = {};
  v.accessPolicyWindow.base_ptr = d;
  v.accessPolicyWindow.num_bytes = 0;
  v.accessPolicyWindow.hitRatio = 0.6f;
  v.accessPolicyWindow.hitProp = hipAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = hipAccessPropertyStreaming;
  CHECK_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v));
  v.accessPolicyWindow.missProp = hipAccessPropertyPersisting;
  EXPECT_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v),
             hipErrorInvalidValue);
  v.accessPolicyWindow.missProp = hipAccessPropertyStreaming;
  v.accessPolicyWindow.num_bytes = 1024; // larger than the 0-byte largest window
  EXPECT_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v),
             hipErrorInvalidValue);
  v.accessPolicyWindow.hitRatio = 1.4f;
  v.accessPolicyWindow.num_bytes = 0;
  EXPECT_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &v),
             hipErrorInvalidValue);
  CHECK_HIP(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeAccessPolicyWindow, &got));
  CHECK(got.accessPolicyWindow.hitRatio == 0.6f && got.accessPolicyWindow.base_ptr == d);
  v.cooperative = 2;
  CHECK_HIP(hipGraphKernelNodeSetAttribute(k, hipKernelNodeAttributeCooperative, &v));
  CHECK_HIP(hipGraphKernelNodeGetAttribute(k, hipKernelNodeAttributeCooperative, &got));
  CHECK(got.cooperative == 2);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  int h[64];
  CHECK_HIP(hipMemcpy(h, d, sizeof(h), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    CHECK(h[i] == 1);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
}

// hipGraphExecUpdate: a copy node that changes direction is ParametersChanged, naming the node.
static void exec_update_copy_direction()
{
  int *d, h[256] = {};
  CHECK_HIP(hipMalloc(&d, sizeof(h)));
  hipGraph_t g1, g2, g3;
  hipGraphNode_t a, b, c;
  CHECK_HIP(hipGraphCreate(&g1, 0));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&a, g1, nullptr, 0, d, h, sizeof(h), hipMemcpyHostToDevice));
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g1, nullptr, nullptr, 0));
  CHECK_HIP(hipGraphCreate(&g2, 0));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&b, g2, nullptr, 0, h, d, sizeof(h), hipMemcpyDeviceToHost));
  hipGraphNode_t err = nullptr;
  hipGraphExecUpdateResult res = hipGraphExecUpdateSuccess;
  EXPECT_HIP(hipGraphExecUpdate(x, g2, &err, &res), hipErrorGraphExecUpdateFailure);
  CHECK(res == hipGraphExecUpdateErrorParametersChanged);
  CHECK(err == b);
  CHECK_HIP(hipGraphCreate(&g3, 0));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&c, g3, nullptr, 0, d, h, 512, hipMemcpyHostToDevice));
  CHECK_HIP(hipGraphExecUpdate(x, g3, &err, &res));
  CHECK(res == hipGraphExecUpdateSuccess);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g1));
  CHECK_HIP(hipGraphDestroy(g2));
  CHECK_HIP(hipGraphDestroy(g3));
  CHECK_HIP(hipFree(d));
}

struct capture_arg {
  hipStream_t stream;
  hipError_t sync_err;
};

// Another thread waits for a stream of its own, which is not capturing.
static void *sync_other_stream(void *p)
{
  struct capture_arg *a = (struct capture_arg *)p;
  a->sync_err = hipStreamSynchronize(a->stream);
  return NULL;
}

// Waiting for a stream that is not capturing is a potentially unsafe call during a capture
// (clr's Stream::StreamCaptureOngoing): refused, and the capture that forbids it is invalidated.
static void capture_sync_of_other_stream()
{
  hipStream_t s0, s1;
  CHECK_HIP(hipStreamCreateWithFlags(&s0, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  hipGraph_t g = nullptr;
  hipStreamCaptureMode modes[] = {hipStreamCaptureModeGlobal, hipStreamCaptureModeThreadLocal};
  for (hipStreamCaptureMode m : modes) {
    CHECK_HIP(hipStreamBeginCapture(s0, m));
    EXPECT_HIP(hipStreamSynchronize(s1), hipErrorStreamCaptureUnsupported);
    EXPECT_HIP(hipStreamQuery(s1), hipErrorStreamCaptureUnsupported);
    EXPECT_HIP(hipStreamEndCapture(s0, &g), hipErrorStreamCaptureInvalidated);
    CHECK(g == nullptr);
  }
  // A relaxed capture forbids nothing.
  CHECK_HIP(hipStreamBeginCapture(s0, hipStreamCaptureModeRelaxed));
  CHECK_HIP(hipStreamSynchronize(s1));
  CHECK_HIP(hipStreamEndCapture(s0, &g));
  CHECK(g != nullptr);
  CHECK_HIP(hipGraphDestroy(g));
  g = nullptr;

  // Another thread (in the default Global mode) waiting for its own stream during this thread's
  // global capture: refused there, and this capture ends invalidated. A thread-local capture is
  // not disturbed by it.
  struct capture_arg a = {s1, hipSuccess};
  pthread_t t;
  CHECK_HIP(hipStreamBeginCapture(s0, hipStreamCaptureModeGlobal));
  CHECK(pthread_create(&t, NULL, sync_other_stream, &a) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(a.sync_err == hipErrorStreamCaptureUnsupported);
  EXPECT_HIP(hipStreamEndCapture(s0, &g), hipErrorStreamCaptureInvalidated);
  CHECK_HIP(hipStreamBeginCapture(s0, hipStreamCaptureModeThreadLocal));
  CHECK(pthread_create(&t, NULL, sync_other_stream, &a) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  CHECK(a.sync_err == hipSuccess);
  CHECK_HIP(hipStreamEndCapture(s0, &g));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(s0));
  CHECK_HIP(hipStreamDestroy(s1));
}

__global__ void fill(int *p, int v, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v;
}

static uint64_t graph_mem_used()
{
  uint64_t v = ~0ull;
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemCurrent, &v));
  return v;
}

// Graph memory whose lifetime runs past the launch (CUDA): not freed in its graph, freed by a
// free node of another graph, made through hipGraphAddNode; the device statistics count what
// launches allocated and not yet freed.
static void graph_memory_lifetimes()
{
  const int n = 4096;
  uint64_t base = graph_mem_used();
  hipGraph_t ga, gf;
  CHECK_HIP(hipGraphCreate(&ga, 0));
  hipMemAccessDesc desc = {};
  desc.location.type = hipMemLocationTypeDevice;
  desc.location.id = 0;
  desc.flags = hipMemAccessFlagsProtReadWrite;
  hipGraphNodeParams np = {};
  np.type = hipGraphNodeTypeMemAlloc;
  np.alloc.poolProps.allocType = hipMemAllocationTypePinned;
  np.alloc.poolProps.location.type = hipMemLocationTypeDevice;
  np.alloc.poolProps.location.id = 0;
  np.alloc.accessDescs = &desc;
  np.alloc.accessDescCount = 1;
  np.alloc.bytesize = n * sizeof(int);
  hipGraphNode_t alloc, k, copy;
  CHECK_HIP(hipGraphAddNode(&alloc, ga, nullptr, 0, &np));
  CHECK(np.alloc.dptr != nullptr);
  int *d = (int *)np.alloc.dptr;
  hipMemAllocNodeParams got;
  CHECK_HIP(hipGraphMemAllocNodeGetParams(alloc, &got));
  CHECK(memcmp(&got, &np.alloc, sizeof(got)) == 0); // as given, dptr filled in
  hipKernelNodeParams kp = {};
  int v = 5, cnt = n;
  void *args[] = {&d, &v, &cnt};
  kp.func = (void *)fill;
  kp.gridDim = dim3(n / 256);
  kp.blockDim = dim3(256);
  kp.kernelParams = args;
  CHECK_HIP(hipGraphAddKernelNode(&k, ga, &alloc, 1, &kp));
  static int h[4096];
  CHECK_HIP(hipGraphAddMemcpyNode1D(&copy, ga, &k, 1, h, d, sizeof(h), hipMemcpyDeviceToHost));
  CHECK(graph_mem_used() == base); // nothing allocated before a launch

  // The allocation outlives the launch; one executable graph at a time.
  hipGraphExec_t xa, xa2, xf;
  CHECK_HIP(hipGraphInstantiateWithFlags(&xa, ga, hipGraphInstantiateFlagAutoFreeOnLaunch));
  EXPECT_HIP(hipGraphInstantiate(&xa2, ga, nullptr, nullptr, 0), hipErrorNotSupported);
  CHECK_HIP(hipGraphLaunch(xa, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 5);
  CHECK(graph_mem_used() == base + n * sizeof(int));
  CHECK_HIP(hipGraphLaunch(xa, nullptr)); // relaunch: still one allocation
  CHECK_HIP(hipStreamSynchronize(nullptr));
  CHECK(graph_mem_used() == base + n * sizeof(int));

  // Freed by a free node of another graph (through hipGraphAddNode), which is itself limited to
  // one executable graph.
  CHECK_HIP(hipGraphCreate(&gf, 0));
  hipGraphNodeParams fp = {};
  fp.type = hipGraphNodeTypeMemFree;
  fp.free.dptr = d;
  hipGraphNode_t fr;
  CHECK_HIP(hipGraphAddNode(&fr, gf, nullptr, 0, &fp));
  void *freed = nullptr;
  CHECK_HIP(hipGraphMemFreeNodeGetParams(fr, &freed));
  CHECK(freed == d);
  int plain_dev_memory_probe = 0;
  fp.free.dptr = &plain_dev_memory_probe; // not graph memory
  EXPECT_HIP(hipGraphAddNode(&fr, gf, nullptr, 0, &fp), hipErrorInvalidValue);
  CHECK_HIP(hipGraphInstantiate(&xf, gf, nullptr, nullptr, 0));
  hipGraphExec_t xf2;
  EXPECT_HIP(hipGraphInstantiate(&xf2, gf, nullptr, nullptr, 0), hipErrorNotSupported);
  CHECK_HIP(hipGraphLaunch(xf, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  CHECK(graph_mem_used() == base);

  // Allocated again by the next launch, at the same address; the graphs may go before the
  // executables.
  memset(h, 0, sizeof(h));
  CHECK_HIP(hipGraphDestroy(ga));
  CHECK_HIP(hipGraphDestroy(gf));
  CHECK_HIP(hipGraphLaunch(xa, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 5);
  CHECK(graph_mem_used() == base + n * sizeof(int));
  CHECK_HIP(hipGraphExecDestroy(xf));
  hipPointerAttribute_t pa;
  CHECK_HIP(hipPointerGetAttributes(&pa, d));
  CHECK(pa.type == hipMemoryTypeDevice);
  CHECK_HIP(hipGraphExecDestroy(xa)); // the last holder: the memory goes
  CHECK(graph_mem_used() == base);
  CHECK_HIP(hipPointerGetAttributes(&pa, d));
  CHECK(pa.type == hipMemoryTypeUnregistered); // released
  uint64_t high = 0;
  CHECK_HIP(hipDeviceGetGraphMemAttribute(0, hipGraphMemAttrUsedMemHigh, &high));
  CHECK(high >= base + n * sizeof(int));
}

// A forked stream's work joined into the origin by an event wait stays joined when the origin's
// dependencies are replaced afterwards (hipStreamUpdateCaptureDependencies); unwaited work is
// still hipErrorStreamCaptureUnjoined.
static void capture_join_then_set_dependencies()
{
  int *d;
  CHECK_HIP(hipMalloc(&d, 1024));
  hipStream_t s0, s1;
  CHECK_HIP(hipStreamCreateWithFlags(&s0, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  hipEvent_t fork, join;
  CHECK_HIP(hipEventCreate(&fork));
  CHECK_HIP(hipEventCreate(&join));
  hipGraph_t g = nullptr;
  CHECK_HIP(hipStreamBeginCapture(s0, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipEventRecord(fork, s0));
  CHECK_HIP(hipStreamWaitEvent(s1, fork, 0));
  CHECK_HIP(hipMemsetAsync(d, 1, 1024, s1));
  CHECK_HIP(hipEventRecord(join, s1));
  CHECK_HIP(hipStreamWaitEvent(s0, join, 0));
  hipStreamCaptureStatus st;
  hipGraph_t cg;
  const hipGraphNode_t *deps;
  size_t ndeps = 0;
  CHECK_HIP(hipStreamGetCaptureInfo_v2(s0, &st, nullptr, &cg, &deps, &ndeps));
  CHECK(ndeps == 1);
  hipGraphNode_t e;
  CHECK_HIP(hipGraphAddEmptyNode(&e, cg, nullptr, 0));
  CHECK_HIP(hipStreamUpdateCaptureDependencies(s0, &e, 1, hipStreamSetCaptureDependencies));
  CHECK_HIP(hipMemsetAsync(d, 2, 512, s0));
  CHECK_HIP(hipStreamEndCapture(s0, &g));
  size_t n = 0;
  CHECK_HIP(hipGraphGetNodes(g, nullptr, &n));
  CHECK(n == 3);
  CHECK_HIP(hipGraphDestroy(g));

  // Forked work nobody waited on.
  CHECK_HIP(hipStreamBeginCapture(s0, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipEventRecord(fork, s0));
  CHECK_HIP(hipStreamWaitEvent(s1, fork, 0));
  CHECK_HIP(hipMemsetAsync(d, 1, 1024, s1));
  EXPECT_HIP(hipStreamEndCapture(s0, &g), hipErrorStreamCaptureUnjoined);
  CHECK_HIP(hipEventDestroy(fork));
  CHECK_HIP(hipEventDestroy(join));
  CHECK_HIP(hipStreamDestroy(s0));
  CHECK_HIP(hipStreamDestroy(s1));
  CHECK_HIP(hipFree(d));
}

// An executable's 2D fill keeps its row size and height (clr); 1D fills may change length.
static void exec_memset_shape()
{
  char *d;
  size_t pitch;
  CHECK_HIP(hipMallocPitch((void **)&d, &pitch, 256, 8));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipMemsetParams mp = {};
  mp.dst = d;
  mp.pitch = pitch;
  mp.elementSize = 4;
  mp.width = 64;
  mp.height = 8;
  mp.value = 0x01010101;
  hipGraphNode_t n;
  CHECK_HIP(hipGraphAddMemsetNode(&n, g, nullptr, 0, &mp));
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  hipMemsetParams q = mp;
  q.height = 4;
  EXPECT_HIP(hipGraphExecMemsetNodeSetParams(x, n, &q), hipErrorInvalidValue);
  q = mp;
  q.width = 32;
  EXPECT_HIP(hipGraphExecMemsetNodeSetParams(x, n, &q), hipErrorInvalidValue);
  q = mp;
  q.elementSize = 1;
  q.width = 256; // same bytes per row
  q.value = 7;
  CHECK_HIP(hipGraphExecMemsetNodeSetParams(x, n, &q));
  CHECK_HIP(hipGraphLaunch(x, nullptr));
  CHECK_HIP(hipStreamSynchronize(nullptr));
  unsigned char row[256];
  CHECK_HIP(hipMemcpy(row, d + 7 * pitch, sizeof(row), hipMemcpyDeviceToHost));
  for (int i = 0; i < 256; i++)
    CHECK(row[i] == 7);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
}

int main()
{
  exec_memset_shape();
  capture_join_then_set_dependencies();
  graph_memory_lifetimes();
  capture_sync_of_other_stream();
  instantiate_flags();
  kernel_node_attributes();
  exec_update_copy_direction();
  user_objects_late_calls();
  memcpy_1d_rules();
  memcpy_symbol_rules();
  printf("PASSED\n");
  return 0;
}
