// Stream capture. Part 1 needs only the capture API: status queries, ids, errors, an empty
// capture, hipGraphLaunch captured as a child graph, dependency updates, capture modes.
// Part 2 needs the enqueue hooks of src/api/capture.h wired into the launch/copy/fill/event
// paths: a sequence of copies, launches, a fill and a host function captured on one stream (and
// forked/joined across two) runs nothing while captured and, launched, equals the direct run.
// Without the hooks part 2 is skipped (exit 77, reported as skipped by ctest).
#include <string.h>

#include "graph_check.h"

__global__ void scale_add(const int *in, int *out, int k, int c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * k + c;
}

__global__ void accumulate(const int *in, int *io, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    io[i] += in[i];
}

static const int N = 2048;
static const size_t BYTES = N * sizeof(int);

static size_t node_count(hipGraph_t g)
{
  size_t n = 0;
  CHECK_HIP(hipGraphGetNodes(g, NULL, &n));
  return n;
}

static void count_call(void *p)
{
  (*(int *)p)++;
}

static void test_api(hipStream_t st)
{
  hipStreamCaptureStatus status = hipStreamCaptureStatusActive;
  CHECK_HIP(hipStreamIsCapturing(st, &status));
  CHECK(status == hipStreamCaptureStatusNone);
  EXPECT_HIP(hipStreamBeginCapture(NULL, hipStreamCaptureModeGlobal),
             hipErrorStreamCaptureUnsupported);
  EXPECT_HIP(hipStreamBeginCapture(st, (hipStreamCaptureMode)7), hipErrorInvalidValue);
  hipGraph_t g = NULL;
  EXPECT_HIP(hipStreamEndCapture(st, &g), hipErrorIllegalState);

  // Empty capture, with ids and the v2 query.
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  EXPECT_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal), hipErrorIllegalState);
  CHECK_HIP(hipStreamIsCapturing(st, &status));
  CHECK(status == hipStreamCaptureStatusActive);
  unsigned long long id1 = 0, id2 = 0;
  hipGraph_t cg = NULL;
  const hipGraphNode_t *deps = (const hipGraphNode_t *)1;
  size_t ndeps = 9;
  CHECK_HIP(hipStreamGetCaptureInfo_v2(st, &status, &id1, &cg, &deps, &ndeps));
  CHECK(status == hipStreamCaptureStatusActive && id1 != 0 && cg != NULL && ndeps == 0);
  EXPECT_HIP(hipStreamEndCapture(st, NULL), hipErrorInvalidValue);
  CHECK_HIP(hipStreamEndCapture(st, &g));
  CHECK(g == cg && node_count(g) == 0);
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeRelaxed));
  CHECK_HIP(hipStreamGetCaptureInfo(st, &status, &id2));
  CHECK(id2 != id1);
  CHECK_HIP(hipStreamEndCapture(st, &g));
  CHECK_HIP(hipGraphDestroy(g));

  // hipGraphLaunch into a capturing stream: a child-graph node, run only when launched.
  int calls = 0;
  hipGraph_t inner;
  CHECK_HIP(hipGraphCreate(&inner, 0));
  hipGraphNode_t h;
  hipHostNodeParams hp = {count_call, &calls};
  CHECK_HIP(hipGraphAddHostNode(&h, inner, NULL, 0, &hp));
  hipGraphExec_t xi;
  CHECK_HIP(hipGraphInstantiate(&xi, inner, NULL, NULL, 0));
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipGraphLaunch(xi, st));
  CHECK_HIP(hipGraphLaunch(xi, st));
  CHECK_HIP(hipStreamGetCaptureInfo_v2(st, &status, NULL, NULL, &deps, &ndeps));
  CHECK(ndeps == 1);
  // Drop the dependency: the next captured node is a second root.
  CHECK_HIP(hipStreamUpdateCaptureDependencies(st, NULL, 0, hipStreamSetCaptureDependencies));
  CHECK_HIP(hipGraphLaunch(xi, st));
  EXPECT_HIP(hipStreamUpdateCaptureDependencies(st, NULL, 0, 5), hipErrorInvalidValue);
  CHECK_HIP(hipStreamEndCapture(st, &g));
  CHECK(calls == 0);
  CHECK(node_count(g) == 3);
  size_t roots = 0;
  CHECK_HIP(hipGraphGetRootNodes(g, NULL, &roots));
  CHECK(roots == 2);
  hipGraphNode_t all[3];
  size_t n3 = 3;
  CHECK_HIP(hipGraphGetNodes(g, all, &n3));
  hipGraphNodeType t;
  CHECK_HIP(hipGraphNodeGetType(all[0], &t));
  CHECK(t == hipGraphNodeTypeGraph);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, st));
  CHECK_HIP(hipStreamSynchronize(st));
  CHECK(calls == 3);
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipGraphExecDestroy(xi));
  CHECK_HIP(hipGraphDestroy(inner));

  // The thread's capture interaction mode.
  hipStreamCaptureMode mode = hipStreamCaptureModeRelaxed;
  CHECK_HIP(hipThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == hipStreamCaptureModeGlobal);
  mode = hipStreamCaptureModeGlobal;
  CHECK_HIP(hipThreadExchangeStreamCaptureMode(&mode));
  CHECK(mode == hipStreamCaptureModeRelaxed);
  mode = (hipStreamCaptureMode)9;
  EXPECT_HIP(hipThreadExchangeStreamCaptureMode(&mode), hipErrorInvalidValue);
  EXPECT_HIP(hipThreadExchangeStreamCaptureMode(NULL), hipErrorInvalidValue);
}

struct buffers {
  int *h_in, *h_out, *d_in, *d_a, *d_b;
  int host_calls;
};

// The sequence: in -> d_in; d_a = in*3+1; d_b = 0x00000002 per int (memset); d_b += d_a;
// host function; d_b -> out.
static void enqueue(struct buffers *b, hipStream_t st)
{
  CHECK_HIP(hipMemcpyAsync(b->d_in, b->h_in, BYTES, hipMemcpyHostToDevice, st));
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, st, b->d_in, b->d_a, 3, 1, N);
  CHECK_HIP(hipMemsetD32Async((hipDeviceptr_t)b->d_b, 2, N, st));
  hipLaunchKernelGGL(accumulate, dim3(N / 256), dim3(256), 0, st, b->d_a, b->d_b, N);
  CHECK_HIP(hipLaunchHostFunc(st, count_call, &b->host_calls));
  CHECK_HIP(hipMemcpyAsync(b->h_out, b->d_b, BYTES, hipMemcpyDeviceToHost, st));
}

// Returns false when the enqueue paths do not capture (hooks not wired).
static bool test_capture_sequence(hipStream_t st)
{
  struct buffers b = {};
  CHECK_HIP(hipHostMalloc((void **)&b.h_in, BYTES, 0));
  CHECK_HIP(hipHostMalloc((void **)&b.h_out, BYTES, 0));
  CHECK_HIP(hipMalloc((void **)&b.d_in, BYTES));
  CHECK_HIP(hipMalloc((void **)&b.d_a, BYTES));
  CHECK_HIP(hipMalloc((void **)&b.d_b, BYTES));
  for (int i = 0; i < N; i++)
    b.h_in[i] = i - 100;

  // The reference: run directly.
  enqueue(&b, st);
  CHECK_HIP(hipStreamSynchronize(st));
  CHECK(b.host_calls == 1);
  int *ref = (int *)malloc(BYTES);
  memcpy(ref, b.h_out, BYTES);
  for (int i = 0; i < N; i++)
    CHECK(ref[i] == (i - 100) * 3 + 1 + 2);

  // Captured: nothing runs.
  memset(b.h_out, 0, BYTES);
  CHECK_HIP(hipMemset(b.d_b, 0, BYTES));
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  enqueue(&b, st);
  hipGraph_t g;
  CHECK_HIP(hipStreamEndCapture(st, &g));
  if (node_count(g) == 0) {
    CHECK_HIP(hipStreamSynchronize(st)); // the sequence ran directly
    CHECK_HIP(hipGraphDestroy(g));
    return false;
  }
  CHECK(node_count(g) == 6);
  CHECK(b.host_calls == 1);
  CHECK_HIP(hipStreamSynchronize(st));
  for (int i = 0; i < N; i++)
    CHECK(b.h_out[i] == 0);
  // A chain: one root, five edges.
  size_t roots = 0, edges = 0;
  CHECK_HIP(hipGraphGetRootNodes(g, NULL, &roots));
  CHECK_HIP(hipGraphGetEdges(g, NULL, NULL, &edges));
  CHECK(roots == 1 && edges == 5);

  // Launched twice, each equal to the direct run.
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  for (int round = 0; round < 2; round++) {
    memset(b.h_out, 0, BYTES);
    CHECK_HIP(hipGraphLaunch(x, st));
    CHECK_HIP(hipStreamSynchronize(st));
    CHECK(memcmp(b.h_out, ref, BYTES) == 0);
    CHECK(b.host_calls == 2 + round);
  }
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  free(ref);
  CHECK_HIP(hipFree(b.d_in));
  CHECK_HIP(hipFree(b.d_a));
  CHECK_HIP(hipFree(b.d_b));
  CHECK_HIP(hipHostFree(b.h_in));
  CHECK_HIP(hipHostFree(b.h_out));
  return true;
}

// Fork/join: s1 records e1, s2 waits on it (joins the capture), both work, s1 waits on s2's e2.
static void test_fork_join(hipStream_t s1)
{
  hipStream_t s2;
  CHECK_HIP(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  hipEvent_t e1, e2;
  CHECK_HIP(hipEventCreate(&e1));
  CHECK_HIP(hipEventCreate(&e2));
  int *d_in, *d_a, *d_b, *h;
  CHECK_HIP(hipMalloc((void **)&d_in, BYTES));
  CHECK_HIP(hipMalloc((void **)&d_a, BYTES));
  CHECK_HIP(hipMalloc((void **)&d_b, BYTES));
  CHECK_HIP(hipHostMalloc((void **)&h, BYTES, 0));
  for (int i = 0; i < N; i++)
    h[i] = i;

  CHECK_HIP(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipMemcpyAsync(d_in, h, BYTES, hipMemcpyHostToDevice, s1));
  CHECK_HIP(hipEventRecord(e1, s1));
  CHECK_HIP(hipStreamWaitEvent(s2, e1, 0));
  hipStreamCaptureStatus status;
  unsigned long long id1, id2;
  CHECK_HIP(hipStreamGetCaptureInfo(s1, &status, &id1));
  CHECK_HIP(hipStreamGetCaptureInfo(s2, &status, &id2));
  CHECK(status == hipStreamCaptureStatusActive && id1 == id2);
  EXPECT_HIP(hipEventQuery(e1), hipErrorCapturedEvent);
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, s1, d_in, d_a, 2, 0, N);
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, s2, d_in, d_b, 5, 0, N);
  CHECK_HIP(hipEventRecord(e2, s2));
  CHECK_HIP(hipStreamWaitEvent(s1, e2, 0));
  hipLaunchKernelGGL(accumulate, dim3(N / 256), dim3(256), 0, s1, d_b, d_a, N);
  CHECK_HIP(hipMemcpyAsync(h, d_a, BYTES, hipMemcpyDeviceToHost, s1));
  hipGraph_t g;
  EXPECT_HIP(hipStreamEndCapture(s2, &g), hipErrorStreamCaptureUnmatched);
  // Unmatched invalidates the capture: ending it on its origin reports that.
  EXPECT_HIP(hipStreamEndCapture(s1, &g), hipErrorStreamCaptureInvalidated);
  CHECK(g == NULL);
  CHECK_HIP(hipStreamIsCapturing(s2, &status));
  CHECK(status == hipStreamCaptureStatusNone);

  // Again, properly.
  CHECK_HIP(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipMemcpyAsync(d_in, h, BYTES, hipMemcpyHostToDevice, s1));
  CHECK_HIP(hipEventRecord(e1, s1));
  CHECK_HIP(hipStreamWaitEvent(s2, e1, 0));
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, s1, d_in, d_a, 2, 0, N);
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, s2, d_in, d_b, 5, 0, N);
  CHECK_HIP(hipEventRecord(e2, s2));
  CHECK_HIP(hipStreamWaitEvent(s1, e2, 0));
  hipLaunchKernelGGL(accumulate, dim3(N / 256), dim3(256), 0, s1, d_b, d_a, N);
  CHECK_HIP(hipMemcpyAsync(h, d_a, BYTES, hipMemcpyDeviceToHost, s1));
  CHECK_HIP(hipStreamEndCapture(s1, &g));
  CHECK(node_count(g) == 5);
  hipGraphNode_t nodes[5];
  size_t n5 = 5, ndeps = 0;
  CHECK_HIP(hipGraphGetNodes(g, nodes, &n5));
  CHECK_HIP(hipGraphNodeGetDependencies(nodes[3], NULL, &ndeps)); // accumulate: both branches
  CHECK(ndeps == 2);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  CHECK_HIP(hipGraphLaunch(x, s1));
  CHECK_HIP(hipStreamSynchronize(s1));
  for (int i = 0; i < N; i++)
    CHECK(h[i] == 7 * i);

  // Unjoined: s2 forks and never rejoins.
  CHECK_HIP(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  CHECK_HIP(hipEventRecord(e1, s1));
  CHECK_HIP(hipStreamWaitEvent(s2, e1, 0));
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, s2, d_in, d_b, 5, 0, N);
  hipGraph_t g2;
  EXPECT_HIP(hipStreamEndCapture(s1, &g2), hipErrorStreamCaptureUnjoined);
  CHECK(g2 == NULL);

  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipEventDestroy(e1));
  CHECK_HIP(hipEventDestroy(e2));
  CHECK_HIP(hipStreamDestroy(s2));
  CHECK_HIP(hipFree(d_in));
  CHECK_HIP(hipFree(d_a));
  CHECK_HIP(hipFree(d_b));
  CHECK_HIP(hipHostFree(h));
}

// The pattern of AMD's programming guide: stream-ordered allocation inside the capture.
static void test_capture_malloc_async(hipStream_t st)
{
  int *h;
  CHECK_HIP(hipHostMalloc((void **)&h, BYTES, 0));
  for (int i = 0; i < N; i++)
    h[i] = i;
  hipGraph_t g;
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  int *d_in = NULL, *d_out = NULL;
  CHECK_HIP(hipMallocAsync((void **)&d_in, BYTES, st));
  CHECK_HIP(hipMallocAsync((void **)&d_out, BYTES, st));
  CHECK(d_in != NULL && d_out != NULL && d_in != d_out);
  CHECK_HIP(hipMemcpyAsync(d_in, h, BYTES, hipMemcpyHostToDevice, st));
  hipLaunchKernelGGL(scale_add, dim3(N / 256), dim3(256), 0, st, d_in, d_out, -1, 10, N);
  CHECK_HIP(hipMemcpyAsync(h, d_out, BYTES, hipMemcpyDeviceToHost, st));
  CHECK_HIP(hipFreeAsync(d_in, st));
  CHECK_HIP(hipFreeAsync(d_out, st));
  CHECK_HIP(hipStreamEndCapture(st, &g));
  CHECK(node_count(g) == 7);
  hipGraphNode_t nodes[7];
  size_t n7 = 7;
  CHECK_HIP(hipGraphGetNodes(g, nodes, &n7));
  hipGraphNodeType t;
  CHECK_HIP(hipGraphNodeGetType(nodes[0], &t));
  CHECK(t == hipGraphNodeTypeMemAlloc);
  CHECK_HIP(hipGraphNodeGetType(nodes[6], &t));
  CHECK(t == hipGraphNodeTypeMemFree);
  hipMemAllocNodeParams ap;
  CHECK_HIP(hipGraphMemAllocNodeGetParams(nodes[0], &ap));
  CHECK(ap.dptr == d_in && ap.bytesize == BYTES);
  hipGraphExec_t x;
  CHECK_HIP(hipGraphInstantiate(&x, g, NULL, NULL, 0));
  // CUDA: one executable graph at a time for a graph with memory nodes.
  hipGraphExec_t x2;
  EXPECT_HIP(hipGraphInstantiate(&x2, g, NULL, NULL, 0), hipErrorNotSupported);
  for (int round = 0; round < 2; round++) {
    CHECK_HIP(hipGraphLaunch(x, st));
    CHECK_HIP(hipStreamSynchronize(st));
    for (int i = 0; i < N; i++)
      CHECK(h[i] == (round == 0 ? 10 - i : 10 - (10 - i)));
  }
  CHECK_HIP(hipGraphExecDestroy(x));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipHostFree(h));
}

// Calls that are illegal while capturing.
static void test_illegal(hipStream_t st)
{
  void *p = NULL;
  hipGraph_t g;
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  EXPECT_HIP(hipMalloc(&p, 64), hipErrorStreamCaptureUnsupported);
  EXPECT_HIP(hipStreamEndCapture(st, &g), hipErrorStreamCaptureInvalidated);
  CHECK(g == NULL);

  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeGlobal));
  EXPECT_HIP(hipStreamSynchronize(st), hipErrorStreamCaptureUnsupported);
  hipStreamCaptureStatus status;
  CHECK_HIP(hipStreamIsCapturing(st, &status));
  CHECK(status == hipStreamCaptureStatusInvalidated);
  EXPECT_HIP(hipStreamEndCapture(st, &g), hipErrorStreamCaptureInvalidated);

  // Relaxed: hipMalloc is allowed.
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeRelaxed));
  CHECK_HIP(hipMalloc(&p, 64));
  CHECK_HIP(hipStreamEndCapture(st, &g));
  CHECK_HIP(hipGraphDestroy(g));
  CHECK_HIP(hipFree(p));

  // The legacy stream while a blocking stream captures.
  CHECK_HIP(hipStreamBeginCapture(st, hipStreamCaptureModeRelaxed));
  EXPECT_HIP(hipStreamIsCapturing(NULL, &status), hipErrorStreamCaptureImplicit);
  EXPECT_HIP(hipLaunchHostFunc(NULL, count_call, &status), hipErrorStreamCaptureImplicit);
  EXPECT_HIP(hipStreamEndCapture(st, &g), hipErrorStreamCaptureInvalidated);
}

int main()
{
  hipStream_t st;
  CHECK_HIP(hipStreamCreate(&st));
  test_api(st);
  if (!test_capture_sequence(st)) {
    CHECK_HIP(hipStreamDestroy(st));
    printf("SKIPPED: the enqueue paths do not call the capture hooks (src/api/capture.h)\n");
    return 77;
  }
  test_fork_join(st);
  test_capture_malloc_async(st);
  test_illegal(st);
  CHECK_HIP(hipStreamDestroy(st));
  printf("PASSED\n");
  return 0;
}
