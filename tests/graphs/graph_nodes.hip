// Host nodes run in dependency order; a child graph runs inside its parent; memset nodes of 1, 2
// and 4-byte elements (1D and pitched); event record/wait nodes order two graphs on two streams.
#include <string.h>

#include "graph_check.h"

__global__ void fill_seq(int *out, int base, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = base + i;
}

__global__ void twice(int *io, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    io[i] *= 2;
}

__device__ int dev_table[64];

__global__ void triple_table(int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    dev_table[i] *= 3;
}

struct order_log {
  int seq[16];
  int n;
};

struct step {
  struct order_log *log;
  int id;
};

static void log_step(void *p)
{
  struct step *s = (struct step *)p;
  s->log->seq[s->log->n++] = s->id;
}

static hipKernelNodeParams kparams(void *func, void **args, int n)
{
  hipKernelNodeParams p = {};
  p.func = func;
  p.gridDim = dim3((n + 127) / 128);
  p.blockDim = dim3(128);
  p.kernelParams = args;
  return p;
}

// Host nodes: 0 -> {1, 2} -> 3, and 4 after 3; every order honours the edges.
static void test_host_order(hipStream_t st)
{
  struct order_log log = {{0}, 0};
  struct step steps[5];
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t h[5];
  for (int i = 0; i < 5; i++) {
    steps[i].log = &log;
    steps[i].id = i;
  }
  hipHostNodeParams hp = {log_step, &steps[0]};
  CHECK_HIP(hipGraphAddHostNode(&h[0], g, NULL, 0, &hp));
  hp.userData = &steps[1];
  CHECK_HIP(hipGraphAddHostNode(&h[1], g, &h[0], 1, &hp));
  hp.userData = &steps[2];
  CHECK_HIP(hipGraphAddHostNode(&h[2], g, &h[0], 1, &hp));
  hp.userData = &steps[3];
  CHECK_HIP(hipGraphAddHostNode(&h[3], g, &h[1], 2, &hp));
  hp.userData = &steps[4];
  CHECK_HIP(hipGraphAddHostNode(&h[4], g, NULL, 0, &hp));
  // Added later as an edge: 3 -> 4.
  CHECK_HIP(hipGraphAddDependencies(g, &h[3], &h[4], 1));
  EXPECT_HIP(hipGraphAddDependencies(g, &h[3], &h[4], 1), hipErrorInvalidValue); // exists
  hipHostNodeParams got;
  CHECK_HIP(hipGraphHostNodeGetParams(h[2], &got));
  CHECK(got.fn == log_step && got.userData == &steps[2]);

  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  CHECK(log.n == 5);
  CHECK(log.seq[0] == 0 && log.seq[3] == 3 && log.seq[4] == 4);
  CHECK((log.seq[1] == 1 && log.seq[2] == 2) || (log.seq[1] == 2 && log.seq[2] == 1));

  // Removing 3 -> 4 makes 4 a root again.
  CHECK_HIP(hipGraphRemoveDependencies(g, &h[3], &h[4], 1));
  EXPECT_HIP(hipGraphRemoveDependencies(g, &h[3], &h[4], 1), hipErrorInvalidValue);
  size_t nroots = 0;
  CHECK_HIP(hipGraphGetRootNodes(g, NULL, &nroots));
  CHECK(nroots == 2);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
}

// Parent: memset(0) -> child{fill_seq -> twice} -> memcpy out. The child is a copy: editing the
// original after adding it changes nothing.
static void test_child(hipStream_t st)
{
  const int n = 1000;
  int *d, *h;
  CHECK_HIP(hipMalloc((void **)&d, n * sizeof(int)));
  CHECK_HIP(hipHostMalloc((void **)&h, n * sizeof(int), 0));
  int base = 5, nn = n;
  void *fill_args[] = {&d, &base, &nn};
  void *twice_args[] = {&d, &nn};
  hipGraph_t child;
  CHECK_HIP(hipGraphCreate(&child, 0));
  hipGraphNode_t kf, kt;
  hipKernelNodeParams p = kparams((void *)fill_seq, fill_args, n);
  CHECK_HIP(hipGraphAddKernelNode(&kf, child, NULL, 0, &p));
  p = kparams((void *)twice, twice_args, n);
  CHECK_HIP(hipGraphAddKernelNode(&kt, child, &kf, 1, &p));

  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t ms, cn, cp;
  hipMemsetParams mp = {};
  mp.dst = d;
  mp.elementSize = 4;
  mp.width = n;
  mp.height = 1;
  mp.value = 0xdeadbeef;
  CHECK_HIP(hipGraphAddMemsetNode(&ms, g, NULL, 0, &mp));
  CHECK_HIP(hipGraphAddChildGraphNode(&cn, g, &ms, 1, child));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&cp, g, &cn, 1, h, d, n * sizeof(int), hipMemcpyDeviceToHost));
  // An extra node in the original child graph is not in the embedded copy.
  hipGraphNode_t extra;
  p = kparams((void *)twice, twice_args, n);
  CHECK_HIP(hipGraphAddKernelNode(&extra, child, &kt, 1, &p));
  hipGraph_t embedded;
  CHECK_HIP(hipGraphChildGraphNodeGetGraph(cn, &embedded));
  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(embedded, NULL, &count));
  CHECK(count == 2);
  hipGraphNodeType type;
  CHECK_HIP(hipGraphNodeGetType(cn, &type));
  CHECK(type == hipGraphNodeTypeGraph);

  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 2 * (5 + i));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipGraphDestroy(child));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
}

// Memset nodes: 1D of 1, 2 and 4-byte elements and a pitched 2D fill.
static void test_memset(hipStream_t st)
{
  const size_t w = 64, rows = 8, pitch = 256;
  unsigned char *d;
  CHECK_HIP(hipMalloc((void **)&d, pitch * rows));
  unsigned char *h = (unsigned char *)malloc(pitch * rows);
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t a, b, c, e;
  hipMemsetParams mp = {};
  mp.dst = d;
  mp.elementSize = 1;
  mp.width = pitch * rows;
  mp.height = 1;
  mp.value = 0x11;
  CHECK_HIP(hipGraphAddMemsetNode(&a, g, NULL, 0, &mp));
  mp.elementSize = 2;
  mp.width = 8;
  mp.value = 0xa1b2;
  CHECK_HIP(hipGraphAddMemsetNode(&b, g, &a, 1, &mp));
  mp.dst = d + pitch; // 2D, 4-byte elements, rows 1..rows-1
  mp.elementSize = 4;
  mp.width = w / 4;
  mp.height = rows - 1;
  mp.pitch = pitch;
  mp.value = 0x01020304;
  CHECK_HIP(hipGraphAddMemsetNode(&c, g, &b, 1, &mp));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&e, g, &c, 1, h, d, pitch * rows, hipMemcpyDeviceToHost));
  hipMemsetParams got;
  CHECK_HIP(hipGraphMemsetNodeGetParams(c, &got));
  CHECK(got.pitch == pitch && got.height == rows - 1 && got.elementSize == 4);
  mp.elementSize = 3;
  EXPECT_HIP(hipGraphMemsetNodeSetParams(c, &mp), hipErrorInvalidValue);

  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < 8; i++)
    CHECK(((unsigned short *)h)[i] == 0xa1b2);
  for (size_t i = 16; i < pitch; i++)
    CHECK(h[i] == 0x11);
  for (size_t r = 1; r < rows; r++) {
    for (size_t i = 0; i < w / 4; i++)
      CHECK(((unsigned *)(h + r * pitch))[i] == 0x01020304u);
    for (size_t i = w; i < pitch; i++)
      CHECK(h[r * pitch + i] == 0x11);
  }
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(d));
  free(h);
}

// Graph A on stream 1 records an event after writing; graph B on stream 2 waits on it first.
static void test_events()
{
  const int n = 512;
  int *d, *h;
  CHECK_HIP(hipMalloc((void **)&d, n * sizeof(int)));
  CHECK_HIP(hipHostMalloc((void **)&h, n * sizeof(int), 0));
  hipStream_t s1, s2;
  CHECK_HIP(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  CHECK_HIP(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t ev;
  CHECK_HIP(hipEventCreate(&ev));
  int base = 40, nn = n;
  void *fill_args[] = {&d, &base, &nn};
  void *twice_args[] = {&d, &nn};

  hipGraph_t ga, gb;
  CHECK_HIP(hipGraphCreate(&ga, 0));
  CHECK_HIP(hipGraphCreate(&gb, 0));
  hipGraphNode_t k, rec, wait, k2, cp;
  hipKernelNodeParams p = kparams((void *)fill_seq, fill_args, n);
  CHECK_HIP(hipGraphAddKernelNode(&k, ga, NULL, 0, &p));
  CHECK_HIP(hipGraphAddEventRecordNode(&rec, ga, &k, 1, ev));
  CHECK_HIP(hipGraphAddEventWaitNode(&wait, gb, NULL, 0, ev));
  p = kparams((void *)twice, twice_args, n);
  CHECK_HIP(hipGraphAddKernelNode(&k2, gb, &wait, 1, &p));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&cp, gb, &k2, 1, h, d, n * sizeof(int), hipMemcpyDeviceToHost));
  hipEvent_t got;
  CHECK_HIP(hipGraphEventWaitNodeGetEvent(wait, &got));
  CHECK(got == ev);
  CHECK_HIP(hipGraphEventRecordNodeGetEvent(rec, &got));
  CHECK(got == ev);
  EXPECT_HIP(hipGraphEventRecordNodeGetEvent(wait, &got), hipErrorInvalidValue);

  hipGraphExec_t xa, xb;
  CHECK_HIP(hipGraphInstantiate(&xa, ga, NULL, NULL, 0));
  CHECK_HIP(hipGraphInstantiate(&xb, gb, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(xa, s1));
  CHECK_HIP(hipGraphLaunch(xb, s2));
  CHECK_HIP(hipStreamSynchronize(s2));
  for (int i = 0; i < n; i++)
    CHECK(h[i] == 2 * (40 + i));
  CHECK_HIP(hipStreamSynchronize(s1));
  CHECK_HIP(hipGraphExecDestroy(xa));
  CHECK_HIP(hipGraphExecDestroy(xb));
  CHECK_HIP(hipGraphDestroy(ga));
  CHECK_HIP(hipGraphDestroy(gb));
  CHECK_HIP(hipEventDestroy(ev));
  CHECK_HIP(hipStreamDestroy(s1));
  CHECK_HIP(hipStreamDestroy(s2));
  CHECK_HIP(hipFree(d));
  CHECK_HIP(hipHostFree(h));
}

// Copy nodes to and from a __device__ variable, with an offset.
static void test_symbols(hipStream_t st)
{
  int in[32], out[64];
  for (int i = 0; i < 32; i++)
    in[i] = i + 1;
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t zero, to, k, from;
  int zeros[64] = {0};
  CHECK_HIP(hipGraphAddMemcpyNodeToSymbol(&zero, g, NULL, 0, HIP_SYMBOL(dev_table), zeros,
                                          sizeof(zeros), 0, hipMemcpyHostToDevice));
  CHECK_HIP(hipGraphAddMemcpyNodeToSymbol(&to, g, &zero, 1, HIP_SYMBOL(dev_table), in, sizeof(in),
                                          16 * sizeof(int), hipMemcpyHostToDevice));
  int n = 64;
  void *args[] = {&n};
  hipKernelNodeParams p = kparams((void *)triple_table, args, n);
  CHECK_HIP(hipGraphAddKernelNode(&k, g, &to, 1, &p));
  CHECK_HIP(hipGraphAddMemcpyNodeFromSymbol(&from, g, &k, 1, out, HIP_SYMBOL(dev_table),
                                            sizeof(out), 0, hipMemcpyDeviceToHost));
  hipGraphNodeType type;
  CHECK_HIP(hipGraphNodeGetType(from, &type));
  CHECK(type == hipGraphNodeTypeMemcpy); // symbol copies are memcpy nodes to the user (clr, CUDA)
  // Past the end of the variable; no symbol at all.
  hipGraphNode_t bad;
  EXPECT_HIP(hipGraphAddMemcpyNodeToSymbol(&bad, g, NULL, 0, NULL, in, sizeof(in), 0,
                                           hipMemcpyHostToDevice),
             hipErrorInvalidSymbol);
  EXPECT_HIP(hipGraphAddMemcpyNodeToSymbol(&bad, g, NULL, 0, HIP_SYMBOL(dev_table), in,
                                           sizeof(in), 40 * sizeof(int), hipMemcpyHostToDevice),
             hipErrorInvalidValue);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  memset(out, 0xff, sizeof(out));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < 64; i++)
    CHECK(out[i] == (i >= 16 && i < 48 ? 3 * (i - 16 + 1) : 0));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
}

// Explicit memory nodes: alloc -> memset -> copy out (-> free).
static void test_mem_nodes(hipStream_t st)
{
  int dev = 0;
  CHECK_HIP(hipGetDevice(&dev));
  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipMemAllocNodeParams ap = {};
  ap.poolProps.allocType = hipMemAllocationTypePinned;
  ap.poolProps.location.type = hipMemLocationTypeDevice;
  ap.poolProps.location.id = dev;
  ap.bytesize = 1024 * sizeof(int);
  hipGraphNode_t a, m, c, f;
  CHECK_HIP(hipGraphAddMemAllocNode(&a, g, NULL, 0, &ap));
  CHECK(ap.dptr != NULL);
  hipMemsetParams mp = {};
  mp.dst = ap.dptr;
  mp.elementSize = 4;
  mp.width = 1024;
  mp.height = 1;
  mp.value = 77;
  CHECK_HIP(hipGraphAddMemsetNode(&m, g, &a, 1, &mp));
  int *h;
  CHECK_HIP(hipHostMalloc((void **)&h, 1024 * sizeof(int), 0));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&c, g, &m, 1, h, ap.dptr, 1024 * sizeof(int),
                                    hipMemcpyDeviceToHost));
  // Before the free node exists the allocation outlives the launch (legal in CUDA); a graph with
  // memory nodes has one executable graph at a time.
  hipGraphExec_t x, x2;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  EXPECT_HIP(hipGraphInstantiate(&x2, g, NULL, NULL, 0), hipErrorNotSupported);
  memset(h, 0, 1024 * sizeof(int));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < 1024; i++)
    CHECK(h[i] == 77);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphAddMemFreeNode(&f, g, &c, 1, ap.dptr));
  hipGraphNode_t f2;
  EXPECT_HIP(hipGraphAddMemFreeNode(&f2, g, &f, 1, ap.dptr), hipErrorInvalidValue); // twice
  void *freed = NULL;
  CHECK_HIP(hipGraphMemFreeNodeGetParams(f, &freed));
  CHECK(freed == ap.dptr);
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < 1024; i++)
    CHECK(h[i] == 77);
  // Memory nodes may not be in a child graph.
  hipGraph_t parent;
  CHECK_HIP(hipGraphCreate(&parent, 0));
  hipGraphNode_t cn;
  EXPECT_HIP(hipGraphAddChildGraphNode(&cn, parent, NULL, 0, g), hipErrorNotSupported);
  CHECK_HIP(hipGraphDestroy(parent));
  CHECK_HIP(hipGraphDestroy(g)); // the executable still holds the memory
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipHostFree(h));
}

int main()
{
  hipStream_t st;
  CHECK_HIP(hipStreamCreate(&st));
  test_host_order(st);
  test_child(st);
  test_memset(st);
  test_events();
  test_symbols(st);
  test_mem_nodes(st);
  CHECK_HIP(hipStreamDestroy(st));
  printf("PASSED\n");
  return 0;
}
