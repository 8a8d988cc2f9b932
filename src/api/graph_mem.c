/* HIP graphs: memory allocation and free nodes (hipGraphAddMemAllocNode / hipGraphAddMemFreeNode,
 * and hipMallocAsync / hipFreeAsync captured from a stream).
 *
 * The model: the node allocates when it is created (hipMalloc on the pool's device), so the
 * address returned in hipMemAllocNodeParams.dptr is fixed for the graph's life, as CUDA promises.
 * Running the graph then has nothing to allocate or free; the memory is released when the last
 * graph, clone or executable graph that refers to it is destroyed. Compared with CUDA, memory is
 * not returned between launches (no reuse across graphs). Supported subset, checked at
 * instantiation: every allocation is freed by a free node of the same graph (memory that outlives
 * a launch would need its address re-reserved at the next launch, which needs the virtual-memory
 * API) -> otherwise hipErrorNotSupported; one executable graph at a time per graph with memory
 * nodes (CUDA's rule) -> otherwise hipErrorNotSupported; memory nodes are not allowed in child
 * graphs (CUDA's rule). */
#include <stdatomic.h>
#include <stdlib.h>

#include "error.h"
#include "graph.h"

struct graph_mem *graph_mem_get(struct graph_mem *m)
{
  if (m)
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
  return m;
}

void graph_mem_put(struct graph_mem *m)
{
  if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
    return;
  /* hipFree waits for the device's work, so a launch still using the memory finishes first. */
  int cur = 0;
  if (hipGetDevice(&cur) == hipSuccess && cur != m->device)
    (void)hipSetDevice(m->device);
  (void)hipFree(m->ptr);
  if (cur != m->device)
    (void)hipSetDevice(cur);
  graph_mem_account(m->device, -(int64_t)m->size);
  free(m);
}

static bool is_mem_node(const struct hipGraphNode *n)
{
  return n->type == hipGraphNodeTypeMemAlloc || n->type == hipGraphNodeTypeMemFree;
}

bool graph_has_mem_nodes(const struct ihipGraph *g)
{
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *n = g->nodes.v[i];
    if (is_mem_node(n) || (n->type == hipGraphNodeTypeGraph && graph_has_mem_nodes(n->u.child)))
      return true;
  }
  return false;
}

hipError_t graph_mem_check(const struct ihipGraph *g)
{
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *a = g->nodes.v[i];
    if (a->type != hipGraphNodeTypeMemAlloc)
      continue;
    if (atomic_load_explicit(&a->u.mem->execs, memory_order_relaxed) > 0)
      return hipErrorNotSupported;
    bool freed = false;
    for (size_t k = 0; k < g->nodes.n && !freed; k++)
      freed = g->nodes.v[k]->type == hipGraphNodeTypeMemFree && g->nodes.v[k]->u.mem == a->u.mem;
    if (!freed)
      return hipErrorNotSupported;
  }
  return hipSuccess;
}

void graph_mem_execs(const struct ihipGraph *g, int delta)
{
  for (size_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i]->type == hipGraphNodeTypeMemAlloc)
      atomic_fetch_add_explicit(&g->nodes.v[i]->u.mem->execs, delta, memory_order_relaxed);
}

/* Pool properties a graph allocation can have here: pinned device memory of a valid device,
 * accessible read-write from that device only. */
static hipError_t alloc_params_check(const hipMemAllocNodeParams *p)
{
  if (!p || p->bytesize == 0)
    return hipErrorInvalidValue;
  if (p->poolProps.allocType != hipMemAllocationTypePinned ||
      p->poolProps.location.type != hipMemLocationTypeDevice)
    return hipErrorInvalidValue;
  int count = 0;
  if (hipGetDeviceCount(&count) != hipSuccess || p->poolProps.location.id < 0 ||
      p->poolProps.location.id >= count)
    return hipErrorInvalidValue;
  if (p->accessDescCount && !p->accessDescs)
    return hipErrorInvalidValue;
  for (size_t i = 0; i < p->accessDescCount; i++) {
    const hipMemAccessDesc *a = &p->accessDescs[i];
    if (a->location.type != hipMemLocationTypeDevice || a->location.id != p->poolProps.location.id)
      return hipErrorNotSupported; /* peer access to graph memory: not modelled */
  }
  return hipSuccess;
}

hipError_t graph_mem_alloc_node(const hipMemAllocNodeParams *p, hipGraphNode_t *out)
{
  hipError_t e = alloc_params_check(p);
  if (e != hipSuccess)
    return e;
  struct graph_mem *m = calloc(1, sizeof(*m));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemAlloc);
  if (!m || !n) {
    free(m);
    node_free(n);
    return hipErrorOutOfMemory;
  }
  m->refs = 1;
  m->size = p->bytesize;
  m->device = p->poolProps.location.id;
  int cur = 0;
  (void)hipGetDevice(&cur);
  if (cur != m->device)
    (void)hipSetDevice(m->device);
  e = hipMalloc(&m->ptr, p->bytesize);
  if (cur != m->device)
    (void)hipSetDevice(cur);
  if (e != hipSuccess) {
    free(m);
    node_free(n);
    return e;
  }
  graph_mem_account(m->device, (int64_t)m->size);
  n->u.mem = m;
  *out = n;
  return hipSuccess;
}

hipError_t graph_mem_free_node(const struct ihipGraph *g, void *dptr, hipGraphNode_t *out)
{
  if (!dptr)
    return hipErrorInvalidValue;
  struct graph_mem *m = NULL;
  for (size_t i = 0; i < g->nodes.n && !m; i++) {
    const struct hipGraphNode *a = g->nodes.v[i];
    if (a->type == hipGraphNodeTypeMemAlloc && a->u.mem->ptr == dptr)
      m = a->u.mem;
  }
  if (!m)
    return hipErrorInvalidValue; /* not allocated by this graph: not supported here */
  for (size_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i]->type == hipGraphNodeTypeMemFree && g->nodes.v[i]->u.mem == m)
      return hipErrorInvalidValue; /* freed twice */
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemFree);
  if (!n)
    return hipErrorOutOfMemory;
  n->u.mem = graph_mem_get(m);
  *out = n;
  return hipSuccess;
}

hipError_t hipGraphAddMemAllocNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t *pDependencies, size_t numDependencies,
                                   hipMemAllocNodeParams *pNodeParams)
{
  if (!pGraphNode || !graph_valid(graph) || (numDependencies && !pDependencies))
    HIP_RETURN(hipErrorInvalidValue);
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_mem_alloc_node(pNodeParams, &n));
  hipError_t e = graph_add_node(graph, n, pDependencies, numDependencies);
  if (e != hipSuccess) {
    node_free(n);
    HIP_RETURN(e);
  }
  pNodeParams->dptr = n->u.mem->ptr;
  *pGraphNode = n;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphMemAllocNodeGetParams(hipGraphNode_t node, hipMemAllocNodeParams *pNodeParams)
{
  if (!graph_node_valid(node) || node->type != hipGraphNodeTypeMemAlloc || !pNodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  hipMemAllocNodeParams p = {0};
  p.poolProps.allocType = hipMemAllocationTypePinned;
  p.poolProps.location.type = hipMemLocationTypeDevice;
  p.poolProps.location.id = node->u.mem->device;
  p.bytesize = node->u.mem->size;
  p.dptr = node->u.mem->ptr;
  *pNodeParams = p;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphAddMemFreeNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                  const hipGraphNode_t *pDependencies, size_t numDependencies,
                                  void *dev_ptr)
{
  if (!pGraphNode || !graph_valid(graph) || (numDependencies && !pDependencies))
    HIP_RETURN(hipErrorInvalidValue);
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_mem_free_node(graph, dev_ptr, &n));
  hipError_t e = graph_add_node(graph, n, pDependencies, numDependencies);
  if (e != hipSuccess) {
    node_free(n);
    HIP_RETURN(e);
  }
  *pGraphNode = n;
  HIP_RETURN(hipSuccess);
}

/* [out] dev_ptr is a void ** in disguise (the CUDA signature). */
hipError_t hipGraphMemFreeNodeGetParams(hipGraphNode_t node, void *dev_ptr)
{
  if (!graph_node_valid(node) || node->type != hipGraphNodeTypeMemFree || !dev_ptr)
    HIP_RETURN(hipErrorInvalidValue);
  *(void **)dev_ptr = node->u.mem->ptr;
  HIP_RETURN(hipSuccess);
}
