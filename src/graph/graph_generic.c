/* HIP graphs: the type-generic node API (hipGraphAddNode, hipGraphNodeSetParams,
 * hipGraphExecNodeSetParams, HIP 6.1 / CUDA 12.2). Each forwards to the typed entry point of the
 * node kind named in hipGraphNodeParams.type; kinds without a typed implementation (external
 * semaphores) answer hipErrorNotSupported, as do parameter changes of memory nodes (CUDA allows
 * none). */
#include "../runtime/error.h"
#include "graph.h"

static hipError_t add_generic(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                              size_t ndeps, hipGraphNodeParams *p)
{
  if (!p)
    return hipErrorInvalidValue;
  switch (p->type) {
  case hipGraphNodeTypeKernel: return hipGraphAddKernelNode(out, graph, deps, ndeps, &p->kernel);
  case hipGraphNodeTypeMemcpy:
    return hipGraphAddMemcpyNode(out, graph, deps, ndeps, &p->memcpy.copyParams);
  case hipGraphNodeTypeMemset: return hipGraphAddMemsetNode(out, graph, deps, ndeps, &p->memset);
  case hipGraphNodeTypeHost: return hipGraphAddHostNode(out, graph, deps, ndeps, &p->host);
  case hipGraphNodeTypeGraph:
    return hipGraphAddChildGraphNode(out, graph, deps, ndeps, p->graph.graph);
  case hipGraphNodeTypeEmpty: return hipGraphAddEmptyNode(out, graph, deps, ndeps);
  case hipGraphNodeTypeWaitEvent:
    return hipGraphAddEventWaitNode(out, graph, deps, ndeps, p->eventWait.event);
  case hipGraphNodeTypeEventRecord:
    return hipGraphAddEventRecordNode(out, graph, deps, ndeps, p->eventRecord.event);
  case hipGraphNodeTypeMemAlloc:
    return hipGraphAddMemAllocNode(out, graph, deps, ndeps, &p->alloc);
  case hipGraphNodeTypeMemFree: return hipGraphAddMemFreeNode(out, graph, deps, ndeps, p->free.dptr);
  default:
    return (unsigned)p->type < hipGraphNodeTypeCount ? hipErrorNotSupported : hipErrorInvalidValue;
  }
}

hipError_t hipGraphAddNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                           const hipGraphNode_t *pDependencies, size_t numDependencies,
                           hipGraphNodeParams *nodeParams)
{
  HIP_RETURN(add_generic(pGraphNode, graph, pDependencies, numDependencies, nodeParams));
}

/* A child-graph node of a graph takes a fresh copy of [in] child. */
static hipError_t set_child(hipGraphNode_t n, hipGraph_t child)
{
  if (!graph_valid(child) || child == n->graph)
    return hipErrorInvalidValue;
  struct ihipGraph *copy = graph_clone(child);
  if (!copy)
    return hipErrorOutOfMemory;
  graph_free(n->u.child);
  n->u.child = copy;
  return hipSuccess;
}

static hipError_t set_generic(hipGraphNode_t node, const hipGraphNodeParams *p)
{
  if (!graph_node_valid(node) || !p || p->type != node->type)
    return hipErrorInvalidValue;
  switch (p->type) {
  case hipGraphNodeTypeKernel: return hipGraphKernelNodeSetParams(node, &p->kernel);
  case hipGraphNodeTypeMemcpy: return hipGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
  case hipGraphNodeTypeMemset: return hipGraphMemsetNodeSetParams(node, &p->memset);
  case hipGraphNodeTypeHost: return hipGraphHostNodeSetParams(node, &p->host);
  case hipGraphNodeTypeGraph: return set_child(node, p->graph.graph);
  case hipGraphNodeTypeEmpty: return hipSuccess;
  case hipGraphNodeTypeWaitEvent: return hipGraphEventWaitNodeSetEvent(node, p->eventWait.event);
  case hipGraphNodeTypeEventRecord:
    return hipGraphEventRecordNodeSetEvent(node, p->eventRecord.event);
  default: return hipErrorNotSupported;
  }
}

hipError_t hipGraphNodeSetParams(hipGraphNode_t node, hipGraphNodeParams *nodeParams)
{
  HIP_RETURN(set_generic(node, nodeParams));
}

static hipError_t exec_set_generic(hipGraphExec_t x, hipGraphNode_t node, hipGraphNodeParams *p)
{
  if (!graph_node_valid(node) || !p || p->type != node->type)
    return hipErrorInvalidValue;
  switch (p->type) {
  case hipGraphNodeTypeKernel: return hipGraphExecKernelNodeSetParams(x, node, &p->kernel);
  case hipGraphNodeTypeMemcpy:
    return hipGraphExecMemcpyNodeSetParams(x, node, &p->memcpy.copyParams);
  case hipGraphNodeTypeMemset: return hipGraphExecMemsetNodeSetParams(x, node, &p->memset);
  case hipGraphNodeTypeHost: return hipGraphExecHostNodeSetParams(x, node, &p->host);
  case hipGraphNodeTypeGraph: return hipGraphExecChildGraphNodeSetParams(x, node, p->graph.graph);
  case hipGraphNodeTypeEmpty: {
    hipGraphNode_t n;
    return graph_exec_node(x, node, hipGraphNodeTypeEmpty, &n);
  }
  case hipGraphNodeTypeWaitEvent:
    return hipGraphExecEventWaitNodeSetEvent(x, node, p->eventWait.event);
  case hipGraphNodeTypeEventRecord:
    return hipGraphExecEventRecordNodeSetEvent(x, node, p->eventRecord.event);
  default: return hipErrorNotSupported;
  }
}

hipError_t hipGraphExecNodeSetParams(hipGraphExec_t graphExec, hipGraphNode_t node,
                                     hipGraphNodeParams *nodeParams)
{
  HIP_RETURN(exec_set_generic(graphExec, node, nodeParams));
}
