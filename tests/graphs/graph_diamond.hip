// An explicitly built diamond: copy in -> (scale, add) -> combine -> copy out -> host check.
// The result is right only if every edge was honoured; the graph is launched twice with new
// input, cloned, queried (nodes, roots, edges, dependencies, types) and printed as DOT.
#include <string.h>
#include <unistd.h>

#include "graph_check.h"

__global__ void scale(const int *in, int *out, int k, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * k;
}

__global__ void addk(const int *in, int *out, int k, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + k;
}

__global__ void combine(const int *a, const int *b, int *out, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a[i] * 1000 + b[i];
}

struct seen {
  const int *h_out;
  int n;
  int base;
  int ok; // set by the host node: the output was complete when it ran
};

static void check_output(void *p)
{
  struct seen *s = (struct seen *)p;
  s->ok = 1;
  for (int i = 0; i < s->n; i++)
    if (s->h_out[i] != (s->base + i) * 3 * 1000 + (s->base + i) + 7)
      s->ok = 0;
}

static size_t count_in_file(const char *path, const char *needle)
{
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  static char buf[1 << 16];
  size_t len = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[len] = 0;
  size_t count = 0;
  for (const char *p = buf; (p = strstr(p, needle)); p += strlen(needle))
    count++;
  return count;
}

int main()
{
  const int n = 4096;
  const size_t bytes = n * sizeof(int);
  int *h_in, *h_out;
  CHECK_HIP(hipHostMalloc((void **)&h_in, bytes, 0));
  CHECK_HIP(hipHostMalloc((void **)&h_out, bytes, 0));
  int *d_in, *d_a, *d_b, *d_out;
  CHECK_HIP(hipMalloc((void **)&d_in, bytes));
  CHECK_HIP(hipMalloc((void **)&d_a, bytes));
  CHECK_HIP(hipMalloc((void **)&d_b, bytes));
  CHECK_HIP(hipMalloc((void **)&d_out, bytes));

  hipGraph_t g;
  CHECK_HIP(hipGraphCreate(&g, 0));
  hipGraphNode_t cin, ka, kb, kc, cout, host;
  CHECK_HIP(hipGraphAddMemcpyNode1D(&cin, g, NULL, 0, d_in, h_in, bytes, hipMemcpyHostToDevice));

  int k3 = 3, k7 = 7, nn = n;
  void *args_a[] = {&d_in, &d_a, &k3, &nn};
  hipKernelNodeParams pa = {};
  pa.func = (void *)scale;
  pa.gridDim = dim3(n / 256);
  pa.blockDim = dim3(256);
  pa.kernelParams = args_a;
  CHECK_HIP(hipGraphAddKernelNode(&ka, g, &cin, 1, &pa));
  // Arguments are copied at node creation: clobbering the locals afterwards changes nothing.
  k3 = -1;

  void *args_b[] = {&d_in, &d_b, &k7, &nn};
  hipKernelNodeParams pb = pa;
  pb.func = (void *)addk;
  pb.kernelParams = args_b;
  CHECK_HIP(hipGraphAddKernelNode(&kb, g, &cin, 1, &pb));

  void *args_c[] = {&d_a, &d_b, &d_out, &nn};
  hipKernelNodeParams pc = pa;
  pc.func = (void *)combine;
  pc.kernelParams = args_c;
  hipGraphNode_t both[] = {ka, kb};
  CHECK_HIP(hipGraphAddKernelNode(&kc, g, both, 2, &pc));
  CHECK_HIP(hipGraphAddMemcpyNode1D(&cout, g, &kc, 1, h_out, d_out, bytes, hipMemcpyDeviceToHost));
  struct seen s = {h_out, n, 0, 0};
  hipHostNodeParams hp = {check_output, &s};
  CHECK_HIP(hipGraphAddHostNode(&host, g, &cout, 1, &hp));

  // Structure queries.
  size_t count = 0;
  CHECK_HIP(hipGraphGetNodes(g, NULL, &count));
  CHECK(count == 6);
  hipGraphNode_t roots[4];
  count = 4;
  CHECK_HIP(hipGraphGetRootNodes(g, roots, &count));
  CHECK(count == 1 && roots[0] == cin && roots[1] == NULL);
  CHECK_HIP(hipGraphGetEdges(g, NULL, NULL, &count));
  CHECK(count == 6);
  hipGraphNode_t deps[4];
  count = 4;
  CHECK_HIP(hipGraphNodeGetDependencies(kc, deps, &count));
  CHECK(count == 2 && ((deps[0] == ka && deps[1] == kb) || (deps[0] == kb && deps[1] == ka)));
  count = 4;
  CHECK_HIP(hipGraphNodeGetDependentNodes(cin, deps, &count));
  CHECK(count == 2);
  hipGraphNodeType type;
  CHECK_HIP(hipGraphNodeGetType(kc, &type));
  CHECK(type == hipGraphNodeTypeKernel);
  CHECK_HIP(hipGraphNodeGetType(cout, &type));
  CHECK(type == hipGraphNodeTypeMemcpy);
  CHECK_HIP(hipGraphNodeGetType(host, &type));
  CHECK(type == hipGraphNodeTypeHost);
  hipKernelNodeParams got;
  CHECK_HIP(hipGraphKernelNodeGetParams(ka, &got));
  CHECK(got.func == (void *)scale && got.gridDim.x == n / 256 && got.blockDim.x == 256);
  CHECK(*(int *)got.kernelParams[2] == 3); // the copy taken at creation

  hipStream_t st;
  CHECK_HIP(hipStreamCreate(&st));
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  for (int round = 0; round < 2; round++) {
    s.base = round * 100000;
    for (int i = 0; i < n; i++)
      h_in[i] = s.base + i;
    memset(h_out, 0, bytes);
    s.ok = -1;
    CHECK_HIP(hipGraphLaunch(x, st));
    CHECK_HIP(hipStreamSynchronize(st));
    CHECK(s.ok == 1);
    for (int i = 0; i < n; i++)
      CHECK(h_out[i] == (s.base + i) * 3000 + s.base + i + 7);
  }

  // A clone runs the same way; FindInClone maps nodes across.
  hipGraph_t c;
  CHECK_HIP(hipGraphClone(&c, g));
  hipGraphNode_t kc_clone;
  CHECK_HIP(hipGraphNodeFindInClone(&kc_clone, kc, c));
  CHECK(kc_clone != kc);
  count = 4;
  CHECK_HIP(hipGraphNodeGetDependencies(kc_clone, deps, &count));
  CHECK(count == 2 && deps[0] != ka && deps[0] != kb);
  hipGraphExec_t xc;
  CHECK_HIP(hipGraphInstantiate(&xc, c, NULL, NULL, 0));
  s.base = 7;
  for (int i = 0; i < n; i++)
    h_in[i] = s.base + i;
  memset(h_out, 0, bytes);
  CHECK_HIP(hipGraphLaunch(xc, st));
  CHECK_HIP(hipStreamSynchronize(st));
  CHECK(s.ok == 1 && h_out[n - 1] == (7 + n - 1) * 3000 + 7 + n - 1 + 7);

  // DOT: one line per edge.
  char path[] = "/tmp/hipkfd_graph_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  CHECK_HIP(hipGraphDebugDotPrint(g, path, hipGraphDebugDotFlagsVerbose));
  CHECK(count_in_file(path, "digraph") == 1);
  CHECK(count_in_file(path, "->") >= 6); // 6 edges (memcpy labels also hold "->")
  CHECK(count_in_file(path, "KERNEL") == 3);
  unlink(path);

  // Destroying a node removes its edges.
  CHECK_HIP(hipGraphDestroyNode(kc_clone));
  CHECK_HIP(hipGraphGetEdges(c, NULL, NULL, &count));
  CHECK(count == 3);

  CHECK_HIP(hipGraphExecDestroy(xc));
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(c));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamDestroy(st));
  CHECK_HIP(hipFree(d_in));
  CHECK_HIP(hipFree(d_a));
  CHECK_HIP(hipFree(d_b));
  CHECK_HIP(hipFree(d_out));
  CHECK_HIP(hipHostFree(h_in));
  CHECK_HIP(hipHostFree(h_out));
  printf("PASSED\n");
  return 0;
}
