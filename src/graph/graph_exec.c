/* HIP graphs: executable graphs. Instantiation clones the graph and fixes a topological order;
 * a launch publishes the prepared packets of a graph of kernels (graph_prepared.c) or else
 * replays the nodes in that order on the launch stream through the public HIP calls.
 * One stream in topological order is a valid schedule of any DAG (every node starts after all
 * its dependencies, since the stream is in order); independent branches are not run
 * concurrently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "../runtime/error.h"
#include "graph.h"
#include "graph_prepared.h"
#include "../runtime/runtime.h"
#include "../runtime/internal.h"

/* ---- launching nodes -------------------------------------------------------------------------- */

static hipError_t launch_kernel(const struct graph_kernel *k, const struct kernel_attrs *a,
                                hipStream_t stream)
{
  const hipKernelNodeParams *p = &k->p;
  if (a->cooperative)
    return hipModuleLaunchCooperativeKernel(k->fn, p->gridDim.x, p->gridDim.y, p->gridDim.z,
                                            p->blockDim.x, p->blockDim.y, p->blockDim.z,
                                            p->sharedMemBytes, stream, k->p.kernelParams);
  size_t size = k->args_size;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, k->args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(k->fn, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x,
                               p->blockDim.y, p->blockDim.z, p->sharedMemBytes, stream, NULL,
                               size ? extra : NULL);
}

static hipError_t launch_memcpy(const struct graph_memcpy *m, hipStream_t stream)
{
  if (m->one_d)
    return hipMemcpyAsync(m->p.dstPtr.ptr, m->p.srcPtr.ptr, m->p.extent.width, m->p.kind, stream);
  if (m->p.kind == hipMemcpyDeviceToDeviceNoCU) {
    /* clr takes this kind on memcpy nodes; our copies pick the engine themselves */
    hipMemcpy3DParms p = m->p;
    p.kind = hipMemcpyDeviceToDevice;
    return hipMemcpy3DAsync(&p, stream);
  }
  return hipMemcpy3DAsync(&m->p, stream);
}

static hipError_t launch_memset(const hipMemsetParams *m, hipStream_t stream)
{
  hipDeviceptr_t d = (hipDeviceptr_t)m->dst;
  if (m->height == 1) {
    switch (m->elementSize) {
    case 1: return hipMemsetD8Async(d, (unsigned char)m->value, m->width, stream);
    case 2: return hipMemsetD16Async(d, (unsigned short)m->value, m->width, stream);
    default: return hipMemsetD32Async(d, (int)m->value, m->width, stream);
    }
  }
  switch (m->elementSize) {
  case 1: return hipMemsetD2D8Async(d, m->pitch, (unsigned char)m->value, m->width, m->height, stream);
  case 2:
    return hipMemsetD2D16Async(d, m->pitch, (unsigned short)m->value, m->width, m->height, stream);
  default: return hipMemsetD2D32Async(d, m->pitch, m->value, m->width, m->height, stream);
  }
}

static hipError_t launch_graph(const struct ihipGraph *g, hipStream_t stream)
{
  hipGraphNode_t *order;
  size_t n;
  hipError_t e = graph_topo_order(g, &order, &n);
  if (e != hipSuccess)
    return e;
  for (size_t i = 0; e == hipSuccess && i < n; i++)
    e = node_launch(order[i], stream);
  free(order);
  return e;
}

hipError_t node_launch(hipGraphNode_t n, hipStream_t stream)
{
  if (!n->enabled)
    return hipSuccess; /* hipGraphNodeSetEnabled(0): behaves as an empty node */
  switch (n->type) {
  case hipGraphNodeTypeKernel: return launch_kernel(&n->u.kernel, &n->kattr, stream);
  case hipGraphNodeTypeMemcpy: return launch_memcpy(&n->u.memcpy, stream);
  case hipGraphNodeTypeMemcpyToSymbol:
    return hipMemcpyToSymbolAsync(n->u.memcpy.symbol, n->u.memcpy.p.srcPtr.ptr,
                                  n->u.memcpy.p.extent.width, n->u.memcpy.offset, n->u.memcpy.p.kind,
                                  stream);
  case hipGraphNodeTypeMemcpyFromSymbol:
    return hipMemcpyFromSymbolAsync(n->u.memcpy.p.dstPtr.ptr, n->u.memcpy.symbol,
                                    n->u.memcpy.p.extent.width, n->u.memcpy.offset,
                                    n->u.memcpy.p.kind, stream);
  case hipGraphNodeTypeMemset: return launch_memset(&n->u.memset, stream);
  case hipGraphNodeTypeHost: return hipLaunchHostFunc(stream, n->u.host.fn, n->u.host.userData);
  case hipGraphNodeTypeBatchMemOp: return node_batch_launch(&n->u.batch, stream);
  case hipGraphNodeTypeGraph: return launch_graph(n->u.child, stream);
  case hipGraphNodeTypeEmpty: return hipSuccess;
  case hipGraphNodeTypeEventRecord: return hipEventRecord(n->u.event, stream);
  case hipGraphNodeTypeWaitEvent: return hipStreamWaitEvent(stream, n->u.event, 0);
  /* The memory exists from node creation to the destruction of the last graph holding it
   * (graph_mem.c): a launch only changes its allocated state, nothing is enqueued. */
  case hipGraphNodeTypeMemAlloc:
  case hipGraphNodeTypeMemFree: return graph_mem_launch(n);
  default: return hipErrorNotSupported;
  }
}

/* ---- the kernels a prepared launch takes ------------------------------------------------------- */

struct prep_kernels {
  struct graph_prep_kernel *v;
  size_t n, cap, n_all;
};

static int prep_push(struct prep_kernels *l, const struct hipGraphNode *node)
{
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    struct graph_prep_kernel *v = realloc(l->v, cap * sizeof(*v));
    if (!v)
      return -1;
    l->v = v;
    l->cap = cap;
  }
  const struct graph_kernel *k = &node->u.kernel;
  l->v[l->n++] = (struct graph_prep_kernel){.fn = k->fn, .grid = k->p.gridDim,
                                            .block = k->p.blockDim,
                                            .shared_mem = k->p.sharedMemBytes,
                                            .args = k->args, .args_size = k->args_size};
  return 0;
}

/* The kernels of [in] order (n nodes) in launch order, child graphs inlined. Nonzero for a node
 * that is not a kernel, an empty node or a child graph of such, and for a cooperative kernel. */
static int prep_flatten(struct prep_kernels *l, hipGraphNode_t const *order, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    const struct hipGraphNode *node = order[i];
    switch (node->type) {
    case hipGraphNodeTypeEmpty: break;
    case hipGraphNodeTypeKernel:
      if (node->kattr.cooperative)
        return -1;
      l->n_all++;
      if (node->enabled && prep_push(l, node))
        return -1;
      break;
    case hipGraphNodeTypeGraph: {
      hipGraphNode_t *sub;
      size_t m;
      if (graph_topo_order(node->u.child, &sub, &m) != hipSuccess)
        return -1;
      int err = prep_flatten(l, sub, m);
      free(sub);
      if (err)
        return err;
      break;
    }
    default: return -1;
    }
  }
  return 0;
}

/* graph_prep_list_fn of an executable graph. */
static int prep_list(void *ctx, struct graph_prep_kernel **k, size_t *n, size_t *n_all)
{
  hipGraphExec_t x = ctx;
  struct prep_kernels l = {0};
  int err = prep_flatten(&l, x->order, x->norder);
  *k = l.v;
  *n = l.n;
  *n_all = l.n_all;
  return err;
}

/* ---- instantiation ---------------------------------------------------------------------------- */

struct hip_live_set graph_live_execs = HIP_LIVE_SET_INIT;

/* Looked up before it is read through (issue 12), as graphs and nodes are. */
static bool exec_valid(hipGraphExec_t x)
{
  return hip_live_has(&graph_live_execs, x) && x->magic == GRAPH_EXEC_MAGIC;
}

/* Rejects cycles in [in] g and in every child graph it holds. */
static hipError_t graph_check_acyclic(const struct ihipGraph *g, hipGraphNode_t *bad)
{
  hipGraphNode_t *order;
  size_t n;
  hipError_t e = graph_topo_order(g, &order, &n);
  if (e != hipSuccess) {
    if (bad)
      *bad = NULL;
    return e;
  }
  free(order);
  for (size_t i = 0; i < g->nodes.n; i++) {
    if (g->nodes.v[i]->type == hipGraphNodeTypeGraph) {
      e = graph_check_acyclic(g->nodes.v[i]->u.child, bad);
      if (e != hipSuccess)
        return e;
    }
  }
  return hipSuccess;
}

static hipError_t instantiate(hipGraphExec_t *out, hipGraph_t graph, unsigned long long flags,
                              hipGraphNode_t *err_node, char *log, size_t log_size)
{
  if (!out || !graph_valid(graph))
    return hipErrorInvalidValue;
  *out = NULL;
  if (flags == hipGraphInstantiateFlagDeviceLaunch)
    return hipErrorNotSupported; /* no device-side graph launch here */
  hipError_t e = graph_check_acyclic(graph, err_node);
  if (e != hipSuccess) {
    if (log && log_size)
      snprintf(log, log_size, "graph has a dependency cycle");
    return e;
  }
  struct graph_mem_guard *guard;
  if ((e = graph_mem_instantiate(graph, &guard)) != hipSuccess) {
    if (log && log_size)
      snprintf(log, log_size, "graph with memory nodes: another executable graph exists");
    return e;
  }
  struct hipGraphExec *x = calloc(1, sizeof(*x));
  if (x && hip_live_add(&graph_live_execs, x)) {
    free(x);
    x = NULL;
  }
  if (x)
    x->graph = graph_clone(graph);
  if (!x || !x->graph || graph_topo_order(x->graph, &x->order, &x->norder) != hipSuccess) {
    if (x) {
      graph_free(x->graph);
      hip_live_remove(&graph_live_execs, x);
    }
    free(x);
    graph_mem_guard_put(guard, true);
    return hipErrorOutOfMemory;
  }
  x->flags = flags;
  x->mem_guard = guard;
  x->magic = GRAPH_EXEC_MAGIC;
  x->prep = graph_prep_create(prep_list, x);
  if (log && log_size)
    log[0] = '\0';
  *out = x;
  return hipSuccess;
}

hipError_t hipGraphInstantiate(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                               hipGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize)
{
  HIP_RETURN(instantiate(pGraphExec, graph, 0, pErrorNode, pLogBuffer, bufferSize));
}

/* clr takes one flag at a time (hipGraphInstantiateWithFlags: none, AutoFreeOnLaunch or
 * UseNodePriority; ...WithParams also Upload and DeviceLaunch); anything else, combinations
 * included, is hipErrorInvalidValue. */
static bool instantiate_flags_valid(unsigned long long flags, bool with_params)
{
  switch (flags) {
  case 0:
  case hipGraphInstantiateFlagAutoFreeOnLaunch:
  case hipGraphInstantiateFlagUseNodePriority: return true;
  case hipGraphInstantiateFlagUpload:
  case hipGraphInstantiateFlagDeviceLaunch: return with_params;
  default: return false;
  }
}

hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                        unsigned long long flags)
{
  if (!instantiate_flags_valid(flags, false))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(instantiate(pGraphExec, graph, flags, NULL, NULL, 0));
}

hipError_t hipGraphInstantiateWithParams(hipGraphExec_t *pGraphExec, hipGraph_t graph,
                                         hipGraphInstantiateParams *instantiateParams)
{
  if (!instantiateParams)
    HIP_RETURN(hipErrorInvalidValue);
  instantiateParams->errNode_out = NULL;
  if (!instantiate_flags_valid(instantiateParams->flags, true)) {
    instantiateParams->result_out = hipGraphInstantiateError;
    HIP_RETURN(hipErrorInvalidValue);
  }
  hipError_t e = instantiate(pGraphExec, graph, instantiateParams->flags,
                             &instantiateParams->errNode_out, NULL, 0);
  instantiateParams->result_out =
      e == hipSuccess ? hipGraphInstantiateSuccess
                      : (e == hipErrorInvalidValue && graph_valid(graph) && pGraphExec
                             ? hipGraphInstantiateInvalidStructure
                             : hipGraphInstantiateError);
  if (e == hipSuccess && (instantiateParams->flags & hipGraphInstantiateFlagUpload))
    e = hipGraphUpload(*pGraphExec, instantiateParams->uploadStream);
  HIP_RETURN(e);
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec)
{
  if (!exec_valid(graphExec))
    HIP_RETURN(hipErrorInvalidValue);
  graphExec->magic = 0;
  hip_live_remove(&graph_live_execs, graphExec);
  graph_prep_destroy(graphExec->prep);
  graph_free(graphExec->graph);
  graph_mem_guard_put(graphExec->mem_guard, true);
  free(graphExec->order);
  free(graphExec);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecGetFlags(hipGraphExec_t graphExec, unsigned long long *flags)
{
  if (!exec_valid(graphExec) || !flags)
    HIP_RETURN(hipErrorInvalidValue);
  *flags = graphExec->flags;
  HIP_RETURN(hipSuccess);
}

/* ---- launch ----------------------------------------------------------------------------------- */

static hipError_t exec_launch(hipGraphExec_t x, hipStream_t stream)
{
  if (!exec_valid(x))
    return hipErrorInvalidValue;
  /* A stream handle is looked up, never read through (issue 12); clr's hipGraphLaunch answers a
   * handle that is not a live stream hipErrorContextIsDestroyed, as hipGraphUpload does. */
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return hipErrorContextIsDestroyed;
  /* Into a capturing stream, the whole executable graph becomes one child-graph node. */
  if (hip_capture_active(stream))
    return hip_capture_graph(stream, x->graph);
  hipError_t pe = graph_prep_launch(x->prep, s, prep_list, x);
  if (pe != hipErrorNotSupported)
    return pe;
  for (size_t i = 0; i < x->norder; i++) {
    hipError_t e = node_launch(x->order[i], stream);
    if (e != hipSuccess)
      return e;
  }
  return hipSuccess;
}

hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream)
{
  HIP_RETURN(exec_launch(graphExec, stream));
}

hipError_t hipGraphLaunch_spt(hipGraphExec_t graphExec, hipStream_t stream)
{
  HIP_RETURN(exec_launch(graphExec, stream ? stream : hipStreamPerThread));
}

/* Nothing to stage: a prepared graph's packets and kernargs were built at instantiation (or are
 * rebuilt by the next launch after a change), and a replayed graph copies its parameters into
 * the queue at each launch, so an upload only validates its arguments. */
hipError_t hipGraphUpload(hipGraphExec_t graphExec, hipStream_t stream)
{
  if (!exec_valid(graphExec))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(hip_stream_resolve(stream) ? hipSuccess : hipErrorContextIsDestroyed);
}

/* ---- changing an executable graph --------------------------------------------------------------- */

/* The node of [in] x's clone made from [in] node of the instantiated graph, or NULL. Searches
 * child graphs too (CUDA lets Exec*SetParams reach nodes of embedded graphs only through the
 * child node, but the lookup is harmless). */
static hipGraphNode_t exec_find(const struct ihipGraph *g, hipGraphNode_t node)
{
  for (size_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i]->origin == node)
      return g->nodes.v[i];
  return NULL;
}

hipError_t graph_exec_node(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeType type,
                           hipGraphNode_t *out)
{
  if (!exec_valid(x) || !graph_node_valid(node) || node->type != type)
    return hipErrorInvalidValue;
  graph_prep_stale(x->prep); /* the caller changes the node's parameters */
  *out = exec_find(x->graph, node);
  return *out ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipGraphExecKernelNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipKernelNodeParams *pNodeParams)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeKernel, &n));
  HIP_RETURN(node_kernel_set(&n->u.kernel, pNodeParams));
}

hipError_t hipGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           hipMemcpy3DParms *pNodeParams)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeMemcpy, &n));
  /* clr (hipGraphExecMemcpyNodeSetParams): any invalid parameter block is hipErrorInvalidValue,
   * and an executable's copy keeps its direction. */
  if (node_memcpy_check(pNodeParams) != hipSuccess || pNodeParams->kind != n->u.memcpy.p.kind)
    HIP_RETURN(hipErrorInvalidValue);
  n->u.memcpy.p = *pNodeParams;
  n->u.memcpy.one_d = false;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecMemcpyNodeSetParams1D(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                             void *dst, const void *src, size_t count,
                                             hipMemcpyKind kind)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeMemcpy, &n));
  if (kind != n->u.memcpy.p.kind)
    HIP_RETURN(hipErrorInvalidValue); /* an executable's copy keeps its direction (clr) */
  HIP_RETURN_IF_ERROR(node_memcpy_1d_set_check(dst, src, count, kind));
  n->u.memcpy.p = node_memcpy_1d(dst, src, count, kind);
  n->u.memcpy.one_d = true;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                           const hipMemsetParams *pNodeParams)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeMemset, &n));
  HIP_RETURN_IF_ERROR(node_memset_check(pNodeParams));
  /* clr (GraphMemsetNode::SetParamsInternal): a 2D fill of an executable keeps its row size in
   * bytes and its height. */
  const hipMemsetParams *old = &n->u.memset;
  if (pNodeParams->height > 1 && (pNodeParams->width * pNodeParams->elementSize !=
                                      old->width * old->elementSize ||
                                  pNodeParams->height != old->height))
    HIP_RETURN(hipErrorInvalidValue);
  n->u.memset = *pNodeParams;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecHostNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                         const hipHostNodeParams *pNodeParams)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeHost, &n));
  if (!pNodeParams || !pNodeParams->fn)
    HIP_RETURN(hipErrorInvalidValue);
  n->u.host = *pNodeParams;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecEventRecordNodeSetEvent(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                               hipEvent_t event)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, hNode, hipGraphNodeTypeEventRecord, &n));
  if (!event)
    HIP_RETURN(hipErrorInvalidValue);
  n->u.event = event;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecEventWaitNodeSetEvent(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                             hipEvent_t event)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, hNode, hipGraphNodeTypeWaitEvent, &n));
  if (!event)
    HIP_RETURN(hipErrorInvalidValue);
  n->u.event = event;
  HIP_RETURN(hipSuccess);
}

static bool is_copy_node(const struct hipGraphNode *n)
{
  return n->type == hipGraphNodeTypeMemcpy || n->type == hipGraphNodeTypeMemcpyToSymbol ||
         n->type == hipGraphNodeTypeMemcpyFromSymbol;
}

/* Two graphs have the same topology when their nodes, in creation order, have the same types and
 * the same dependencies (by position) and child graphs match recursively. */
static hipGraphExecUpdateResult topology_diff(const struct ihipGraph *a, const struct ihipGraph *b,
                                              hipGraphNode_t *bad)
{
  if (a->nodes.n != b->nodes.n)
    return hipGraphExecUpdateErrorTopologyChanged;
  for (size_t i = 0; i < a->nodes.n; i++) {
    const struct hipGraphNode *na = a->nodes.v[i], *nb = b->nodes.v[i];
    *bad = (hipGraphNode_t)nb;
    if (na->type != nb->type)
      return hipGraphExecUpdateErrorNodeTypeChanged;
    if (na->deps.n != nb->deps.n)
      return hipGraphExecUpdateErrorTopologyChanged;
    for (size_t k = 0; k < na->deps.n; k++) {
      size_t ia = 0, ib = 0;
      while (ia < a->nodes.n && a->nodes.v[ia] != na->deps.v[k])
        ia++;
      while (ib < b->nodes.n && b->nodes.v[ib] != nb->deps.v[k])
        ib++;
      if (ia != ib)
        return hipGraphExecUpdateErrorTopologyChanged;
    }
    if (is_copy_node(na) && na->u.memcpy.p.kind != nb->u.memcpy.p.kind)
      return hipGraphExecUpdateErrorParametersChanged; /* a copy keeps its direction (clr) */
    if ((na->type == hipGraphNodeTypeMemAlloc || na->type == hipGraphNodeTypeMemFree) &&
        na->u.mem != nb->u.mem)
      return hipGraphExecUpdateErrorNotSupported; /* allocations cannot be swapped (CUDA) */
    if (na->type == hipGraphNodeTypeGraph) {
      hipGraphExecUpdateResult r = topology_diff(na->u.child, nb->u.child, bad);
      if (r != hipGraphExecUpdateSuccess)
        return r;
    }
  }
  *bad = NULL;
  return hipGraphExecUpdateSuccess;
}

/* Copies every node's parameters of [in] src into the matching node of [in] dst (same topology). */
static hipError_t params_copy_all(struct ihipGraph *dst, const struct ihipGraph *src)
{
  for (size_t i = 0; i < dst->nodes.n; i++) {
    hipGraphNode_t d = dst->nodes.v[i];
    const struct hipGraphNode *s = src->nodes.v[i];
    if (d->type == hipGraphNodeTypeGraph) {
      hipError_t e = params_copy_all(d->u.child, s->u.child);
      if (e != hipSuccess)
        return e;
      continue;
    }
    if (d->type == hipGraphNodeTypeMemAlloc || d->type == hipGraphNodeTypeMemFree)
      continue; /* the same allocation (topology_diff checked) */
    struct hipGraphNode tmp = {.type = d->type};
    hipError_t e = node_copy_params(&tmp, s);
    if (e != hipSuccess)
      return e;
    if (d->type == hipGraphNodeTypeKernel)
      node_kernel_clear(&d->u.kernel);
    else if (d->type == hipGraphNodeTypeBatchMemOp)
      node_batch_clear(&d->u.batch);
    d->u = tmp.u;
  }
  return hipSuccess;
}

hipError_t hipGraphExecUpdate(hipGraphExec_t hGraphExec, hipGraph_t hGraph,
                              hipGraphNode_t *hErrorNode_out,
                              hipGraphExecUpdateResult *updateResult_out)
{
  if (!exec_valid(hGraphExec) || !graph_valid(hGraph) || !hErrorNode_out || !updateResult_out)
    HIP_RETURN(hipErrorInvalidValue);
  hipGraphNode_t bad = NULL;
  hipGraphExecUpdateResult r = topology_diff(hGraphExec->graph, hGraph, &bad);
  *hErrorNode_out = bad;
  *updateResult_out = r;
  if (r != hipGraphExecUpdateSuccess)
    HIP_RETURN(hipErrorGraphExecUpdateFailure);
  graph_prep_stale(hGraphExec->prep);
  hipError_t e = params_copy_all(hGraphExec->graph, hGraph);
  if (e != hipSuccess) {
    *updateResult_out = hipGraphExecUpdateError;
    HIP_RETURN(e);
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphExecChildGraphNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                               hipGraph_t childGraph)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeGraph, &n));
  if (!graph_valid(childGraph))
    HIP_RETURN(hipErrorInvalidValue);
  hipGraphNode_t bad;
  if (topology_diff(n->u.child, childGraph, &bad) != hipGraphExecUpdateSuccess)
    HIP_RETURN(hipErrorInvalidValue); /* only parameters may change, not the topology */
  HIP_RETURN(params_copy_all(n->u.child, childGraph));
}

/* Only kernel, memcpy and memset nodes can be disabled (CUDA cudaGraphNodeSetEnabled). */
static hipError_t enable_node(hipGraphExec_t x, hipGraphNode_t node, hipGraphNode_t *out)
{
  if (!exec_valid(x) || !graph_node_valid(node))
    return hipErrorInvalidValue;
  if (node->type != hipGraphNodeTypeKernel && node->type != hipGraphNodeTypeMemcpy &&
      node->type != hipGraphNodeTypeMemset)
    return hipErrorInvalidValue;
  *out = exec_find(x->graph, node);
  return *out ? hipSuccess : hipErrorInvalidValue;
}

hipError_t hipGraphNodeSetEnabled(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                  unsigned int isEnabled)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(enable_node(hGraphExec, hNode, &n));
  graph_prep_stale(hGraphExec->prep);
  n->enabled = isEnabled != 0;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphNodeGetEnabled(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                  unsigned int *isEnabled)
{
  hipGraphNode_t n;
  if (!isEnabled)
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(enable_node(hGraphExec, hNode, &n));
  *isEnabled = n->enabled;
  HIP_RETURN(hipSuccess);
}
