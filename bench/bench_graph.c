/* bench_graph: what a graph costs the host, for chains of 1, 10, 100 and 1000 empty kernel nodes.
 *   graph.N.instantiate        hipGraphInstantiate of the chain
 *   graph.N.launch             the hipGraphLaunch call alone (the graph then runs out of the clock)
 *   graph.N.launch_sync        hipGraphLaunch + hipStreamSynchronize
 *   graph.N.launch_per_node    the launch call divided by the node count
 *   graph.100.exec_kernel_params  hipGraphExecKernelNodeSetParams of one node of the chain
 *   graph.100.exec_update      hipGraphExecUpdate of the executable graph from its own graph
 * The graph entry points are resolved here, so that the shared set stays what every runtime has. */
#define _GNU_SOURCE
#include "bench.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

struct graph_api {
  __typeof__(&hipGraphCreate) Create;
  __typeof__(&hipGraphDestroy) Destroy;
  __typeof__(&hipGraphAddKernelNode) AddKernelNode;
  __typeof__(&hipGraphInstantiate) Instantiate;
  __typeof__(&hipGraphExecDestroy) ExecDestroy;
  __typeof__(&hipGraphLaunch) Launch;
  __typeof__(&hipGraphExecKernelNodeSetParams) ExecKernelNodeSetParams;
  __typeof__(&hipGraphExecUpdate) ExecUpdate;
};

static void *graph_sym(struct bench_hip *h, const char *name) {
  void *p = dlsym(h->lib, name);
  if (!p) {
    fprintf(stderr, "bench_graph: %s missing from the library under test\n", name);
    exit(1);
  }
  return p;
}

static void graph_api_open(struct bench_hip *h, struct graph_api *g) {
  *(void **)&g->Create = graph_sym(h, "hipGraphCreate");
  *(void **)&g->Destroy = graph_sym(h, "hipGraphDestroy");
  *(void **)&g->AddKernelNode = graph_sym(h, "hipGraphAddKernelNode");
  *(void **)&g->Instantiate = graph_sym(h, "hipGraphInstantiate");
  *(void **)&g->ExecDestroy = graph_sym(h, "hipGraphExecDestroy");
  *(void **)&g->Launch = graph_sym(h, "hipGraphLaunch");
  *(void **)&g->ExecKernelNodeSetParams = graph_sym(h, "hipGraphExecKernelNodeSetParams");
  *(void **)&g->ExecUpdate = graph_sym(h, "hipGraphExecUpdate");
}

/* The parameters of one empty-kernel node. The kernel takes no argument, but AMD's 5.2 runtime
 * refuses a node with neither kernelParams nor extra. */
static void *no_args[1];

static hipKernelNodeParams empty_node(const void *stub) {
  hipKernelNodeParams p = {0};
  p.func = (void *)stub;
  p.gridDim = (dim3){1, 1, 1};
  p.blockDim = (dim3){64, 1, 1};
  p.kernelParams = no_args;
  return p;
}

/* A chain of n empty kernels; [out] last: its last node. */
static hipGraph_t build_chain(struct bench_hip *h, struct graph_api *g, const void *stub, int n,
                              hipGraphNode_t *last) {
  hipGraph_t graph;
  BENCH_CHECK(h, g->Create(&graph, 0));
  hipKernelNodeParams p = empty_node(stub);
  hipGraphNode_t prev = NULL;
  for (int i = 0; i < n; i++) {
    hipGraphNode_t node;
    BENCH_CHECK(h, g->AddKernelNode(&node, graph, prev ? &prev : NULL, prev ? 1 : 0, &p));
    prev = node;
  }
  *last = prev;
  return graph;
}

static void bench_chain(struct bench_hip *h, struct graph_api *g, const void *stub,
                        hipStream_t s, int n, size_t iters) {
  struct bench_samples smp = {0}, per = {0};
  char name[96];
  hipGraphNode_t last;
  hipGraph_t graph = build_chain(h, g, stub, n, &last);
  size_t rounds = iters / (size_t)n + 8;

  hipGraphExec_t exec = NULL;
  for (size_t i = 0; i < rounds; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, g->Instantiate(&exec, graph, NULL, NULL, 0));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
    if (i + 1 < rounds)
      BENCH_CHECK(h, g->ExecDestroy(exec));
  }
  snprintf(name, sizeof(name), "graph.%d.instantiate", n);
  bench_report(name, &smp, "us");

  for (int i = 0; i < 4; i++) /* warm up: queues and code */
    BENCH_CHECK(h, g->Launch(exec, s));
  BENCH_CHECK(h, h->StreamSynchronize(s));

  for (size_t i = 0; i < rounds; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, g->Launch(exec, s));
    double us = (double)(bench_now_ns() - t0) / 1000.0;
    bench_samples_add(&smp, us);
    bench_samples_add(&per, us * 1000.0 / n);
    BENCH_CHECK(h, h->StreamSynchronize(s));
  }
  snprintf(name, sizeof(name), "graph.%d.launch", n);
  bench_report(name, &smp, "us");
  snprintf(name, sizeof(name), "graph.%d.launch_per_node", n);
  bench_report(name, &per, "ns/node");

  for (size_t i = 0; i < rounds; i++) {
    uint64_t t0 = bench_now_ns();
    BENCH_CHECK(h, g->Launch(exec, s));
    BENCH_CHECK(h, h->StreamSynchronize(s));
    bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
  }
  snprintf(name, sizeof(name), "graph.%d.launch_sync", n);
  bench_report(name, &smp, "us");

  if (n == 100) {
    hipKernelNodeParams p = empty_node(stub);
    for (size_t i = 0; i < rounds; i++) {
      uint64_t t0 = bench_now_ns();
      BENCH_CHECK(h, g->ExecKernelNodeSetParams(exec, last, &p));
      bench_samples_add(&smp, (double)(bench_now_ns() - t0));
    }
    bench_report("graph.100.exec_kernel_params", &smp, "ns");
    for (size_t i = 0; i < rounds; i++) {
      hipGraphNode_t err_node = NULL;
      hipGraphExecUpdateResult result;
      uint64_t t0 = bench_now_ns();
      BENCH_CHECK(h, g->ExecUpdate(exec, graph, &err_node, &result));
      bench_samples_add(&smp, (double)(bench_now_ns() - t0) / 1000.0);
    }
    bench_report("graph.100.exec_update", &smp, "us");
  }
  BENCH_CHECK(h, g->ExecDestroy(exec));
  BENCH_CHECK(h, g->Destroy(graph));
}

int main(void) {
  struct bench_hip h;
  struct graph_api g;
  bench_hip_open(&h);
  graph_api_open(&h, &g);
  size_t iters = bench_iters(4000);
  BENCH_CHECK(&h, h.Init(0));
  BENCH_CHECK(&h, h.SetDevice(0));
  hipStream_t s;
  BENCH_CHECK(&h, h.StreamCreate(&s));
  const void *stub = bench_register_empty_kernel(&h);
  bench_table_header("graph");
  static const int sizes[] = {1, 10, 100, 1000};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    bench_chain(&h, &g, stub, s, sizes[i], iters);
  BENCH_CHECK(&h, h.StreamDestroy(s));
  return 0;
}
