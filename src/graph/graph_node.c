/* HIP graphs: node kinds, their parameters (checked and copied at creation, as CUDA does) and the
 * hipGraphAdd*Node / hipGraph*NodeGetParams / SetParams entry points. */
#include <stdlib.h>
#include <string.h>

#include "../api/array.h"
#include "../runtime/error.h"
#include "graph.h"
#include "../runtime/internal.h"
#include "../api/loader_api.h"
#include "../runtime/runtime.h"
#include "../memory/mem.h"

hipGraphNode_t node_alloc(hipGraphNodeType type)
{
  hipGraphNode_t n = calloc(1, sizeof(*n));
  if (n && hip_live_add(&graph_live_nodes, n)) {
    free(n);
    return NULL;
  }
  if (!n)
    return NULL;
  n->magic = GRAPH_NODE_MAGIC;
  n->type = type;
  n->enabled = true;
  return n;
}

void node_free(hipGraphNode_t n)
{
  if (!n)
    return;
  if (n->type == hipGraphNodeTypeKernel)
    node_kernel_clear(&n->u.kernel);
  else if (n->type == hipGraphNodeTypeGraph)
    graph_free(n->u.child);
  else if (n->type == hipGraphNodeTypeMemAlloc || n->type == hipGraphNodeTypeMemFree)
    graph_mem_put(n->u.mem);
  else if (n->type == hipGraphNodeTypeBatchMemOp)
    node_batch_clear(&n->u.batch);
  n->magic = 0;
  hip_live_remove(&graph_live_nodes, n);
  free(n);
}

/* ---- kernel nodes ----------------------------------------------------------------------------- */

/* The function behind hipKernelNodeParams.func: a host stub registered by __hipRegisterFunction
 * (what the CUDA-style API passes), or a hipFunction_t from hipModuleGetFunction (clr accepts
 * both). */
static hipFunction_t kernel_function(const void *func)
{
  if (!func)
    return NULL;
  hipFunction_t f = hip_registered_function(func);
  if (f)
    return f;
  return hip_function_valid((const struct ihipModuleSymbol_t *)func) ? (hipFunction_t)func : NULL;
}

/* Packs the explicit arguments into a kernarg-layout buffer: from kernelParams (one pointer per
 * parameter, sizes from the code object's metadata) or from the `extra` buffer form. */
static hipError_t kernel_pack(struct graph_kernel *k, const struct loader_kernel *lk,
                              const hipKernelNodeParams *p)
{
  size_t size = 0;
  for (uint32_t i = 0; i < lk->nexplicit; i++)
    if ((size_t)lk->args[i].offset + lk->args[i].size > size)
      size = (size_t)lk->args[i].offset + lk->args[i].size;
  const uint8_t *packed = NULL;
  size_t packed_size = 0;
  if (p->extra) {
    void **x = p->extra;
    if (x[0] != HIP_LAUNCH_PARAM_BUFFER_POINTER || x[2] != HIP_LAUNCH_PARAM_BUFFER_SIZE ||
        x[4] != HIP_LAUNCH_PARAM_END || !x[3])
      return hipErrorInvalidValue;
    packed = x[1];
    packed_size = *(const size_t *)x[3];
    if (packed_size && !packed)
      return hipErrorInvalidValue;
  } else if (lk->nexplicit && !p->kernelParams) {
    return hipErrorInvalidValue;
  }
  k->args = calloc(1, size ? size : 1);
  k->arg_ptrs = calloc(lk->nexplicit ? lk->nexplicit : 1, sizeof(void *));
  if (!k->args || !k->arg_ptrs)
    return hipErrorOutOfMemory;
  k->args_size = size;
  k->nargs = lk->nexplicit;
  for (uint32_t i = 0; i < lk->nexplicit; i++) {
    const struct loader_kernel_arg *a = &lk->args[i];
    k->arg_ptrs[i] = k->args + a->offset;
    if (packed) {
      /* As the launch path does: a parameter is taken where it lies fully inside the buffer. */
      if ((size_t)a->offset + a->size <= packed_size)
        memcpy(k->args + a->offset, packed + a->offset, a->size);
    } else {
      if (!p->kernelParams[i])
        return hipErrorInvalidValue;
      memcpy(k->args + a->offset, p->kernelParams[i], a->size);
    }
  }
  return hipSuccess;
}

void node_kernel_clear(struct graph_kernel *k)
{
  free(k->args);
  free(k->arg_ptrs);
  memset(k, 0, sizeof(*k));
}

hipError_t node_kernel_set(struct graph_kernel *k, const hipKernelNodeParams *p)
{
  if (!p)
    return hipErrorInvalidValue;
  hipFunction_t fn = kernel_function(p->func);
  if (!fn)
    return hipErrorInvalidDeviceFunction;
  if (!p->gridDim.x || !p->gridDim.y || !p->gridDim.z || !p->blockDim.x || !p->blockDim.y ||
      !p->blockDim.z)
    return hipErrorInvalidConfiguration;
  if ((uint64_t)p->gridDim.x * p->blockDim.x > UINT32_MAX ||
      (uint64_t)p->gridDim.y * p->blockDim.y > UINT32_MAX ||
      (uint64_t)p->gridDim.z * p->blockDim.z > UINT32_MAX)
    return hipErrorInvalidConfiguration;
  if (p->kernelParams && p->extra)
    return hipErrorInvalidValue;
  struct hip_device *d = hip_device_current();
  if (!d)
    return hipErrorNoDevice;
  struct hip_kernel_ref ref;
  if (hip_function_resolve(fn, d, &ref) != 0)
    return hipErrorInvalidDeviceFunction;
  struct graph_kernel nk = {.p = *p, .fn = fn};
  hipError_t e = kernel_pack(&nk, ref.kernel, p);
  if (e != hipSuccess) {
    node_kernel_clear(&nk);
    return e;
  }
  nk.p.kernelParams = nk.arg_ptrs;
  nk.p.extra = NULL;
  node_kernel_clear(k);
  *k = nk;
  return hipSuccess;
}

/* ---- parameter checks -------------------------------------------------------------------------- */

static bool fits_allocation(const void *p, size_t bytes);

/* The last byte a pitched copy of [in] e (width in bytes) at [in] pos touches lies inside the
 * allocation holding [in] ptr->ptr. Rows are ptr->pitch apart, slices pitch * ysize. */
static bool box_fits(const hipPitchedPtr *ptr, const hipPos *pos, const hipExtent *e)
{
  if (!e->width || !e->height || !e->depth)
    return true;
  size_t rows = ptr->ysize ? ptr->ysize : 1;
  if (pos->y + e->height > rows && e->depth > 1)
    return false; /* rows of one slice would run into the next */
  size_t slice = ptr->pitch * rows;
  size_t first = pos->z * slice + pos->y * ptr->pitch + pos->x;
  size_t span = (e->depth - 1) * slice + (e->height - 1) * ptr->pitch + e->width;
  return fits_allocation(ptr->ptr, first + span);
}

/* clr's ihipMemcpy3D_validate bound: a pitch at or above the device's largest pitch
 * (hipDeviceAttributeMaxPitch, itself below INT32_MAX) is a negative number in disguise. */
static bool pitch_too_large(size_t pitch)
{
  int dev = 0, max = 0;
  if (hipGetDevice(&dev) != hipSuccess ||
      hipDeviceGetAttribute(&max, hipDeviceAttributeMaxPitch, dev) != hipSuccess || max <= 0)
    return pitch >= (size_t)INT32_MAX;
  return pitch >= (size_t)max;
}

bool node_memcpy_kind_valid(hipMemcpyKind kind)
{
  return (unsigned)kind <= hipMemcpyDefault || kind == hipMemcpyDeviceToDeviceNoCU;
}

hipError_t node_memcpy_check(const hipMemcpy3DParms *p)
{
  if (!p)
    return hipErrorInvalidValue;
  if (!node_memcpy_kind_valid(p->kind))
    return hipErrorInvalidMemcpyDirection;
  if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
    return hipErrorInvalidValue; /* one of array or pointer per side (clr, CUDA) */
  if (p->srcArray || p->dstArray) {
    /* array sides are checked against the array's bounds when the copy runs */
    if ((p->srcArray && !hip_array_find(p->srcArray)) || (p->dstArray && !hip_array_find(p->dstArray)))
      return hipErrorInvalidValue;
    if ((!p->srcArray && !p->srcPtr.ptr) || (!p->dstArray && !p->dstPtr.ptr))
      return hipErrorInvalidValue;
    return hipSuccess;
  }
  if (!p->srcPtr.ptr || !p->dstPtr.ptr)
    return hipErrorInvalidValue;
  if (p->srcPtr.pitch < p->srcPtr.xsize || p->dstPtr.pitch < p->dstPtr.xsize)
    return hipErrorInvalidPitchValue;
  if (pitch_too_large(p->srcPtr.pitch) || pitch_too_large(p->dstPtr.pitch))
    return hipErrorInvalidValue;
  if (p->extent.width + p->srcPos.x > p->srcPtr.pitch ||
      p->extent.width + p->dstPos.x > p->dstPtr.pitch)
    return hipErrorInvalidPitchValue;
  if (!box_fits(&p->srcPtr, &p->srcPos, &p->extent) || !box_fits(&p->dstPtr, &p->dstPos, &p->extent))
    return hipErrorInvalidValue; /* past the end of an allocation (clr's ihipMemcpy3D_validate) */
  return hipSuccess;
}

hipMemcpy3DParms node_memcpy_1d(void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
  hipMemcpy3DParms p;
  memset(&p, 0, sizeof(p));
  p.srcPtr = make_hipPitchedPtr((void *)src, count, count, 1);
  p.dstPtr = make_hipPitchedPtr(dst, count, count, 1);
  p.extent = make_hipExtent(count, 1, 1);
  p.kind = kind;
  return p;
}

/* [in] bytes from [in] p stay inside the allocation holding p (memory the runtime does not know,
 * pageable host memory, is the caller's to size). */
static bool fits_allocation(const void *p, size_t bytes)
{
  struct mem_info info;
  if (mem_lookup(p, &info) != 0)
    return true;
  size_t off = (size_t)((const char *)p - (const char *)info.base);
  return off <= info.size && bytes <= info.size - off;
}

enum mem_side node_mem_side(const void *p)
{
  struct mem_info info;
  if (mem_lookup(p, &info) != 0)
    return MEM_SIDE_UNKNOWN;
  switch (info.kind) {
  case MEM_DEVICE:
  case MEM_DEVICE_FINE:
  case MEM_DEVICE_UNCACHED: return MEM_SIDE_DEVICE;
  default: return MEM_SIDE_OTHER;
  }
}

/* As clr's ihipMemcpy_validate: both sides present, a known kind, and a count that fits the
 * allocations on both sides. Then clr's GraphMemcpyNode1D::ValidateParams: a copy from memory the
 * runtime does not know (pageable host memory) into an allocation must say HostToDevice (or
 * Default), one from an allocation into unknown memory DeviceToHost (or Default). */
hipError_t node_memcpy_1d_check(void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
  if (!dst || !src || count == 0)
    return hipErrorInvalidValue;
  if (!node_memcpy_kind_valid(kind))
    return hipErrorInvalidMemcpyDirection;
  if (!fits_allocation(src, count) || !fits_allocation(dst, count))
    return hipErrorInvalidValue;
  bool src_known = node_mem_side(src) != MEM_SIDE_UNKNOWN;
  bool dst_known = node_mem_side(dst) != MEM_SIDE_UNKNOWN;
  if (!src_known && dst_known && kind != hipMemcpyHostToDevice && kind != hipMemcpyDefault)
    return hipErrorInvalidValue;
  if (src_known && !dst_known && kind != hipMemcpyDeviceToHost && kind != hipMemcpyDefault)
    return hipErrorInvalidValue;
  return hipSuccess;
}

hipError_t node_memcpy_1d_set_check(void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
  if (dst && dst == src)
    return hipErrorInvalidValue;
  return node_memcpy_1d_check(dst, src, count, kind);
}

hipError_t node_memset_check(const hipMemsetParams *p)
{
  if (!p || !p->dst || p->width == 0 || p->height == 0)
    return hipErrorInvalidValue;
  if (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4)
    return hipErrorInvalidValue;
  if (p->height > 1 && p->pitch < p->width * p->elementSize)
    return hipErrorInvalidValue;
  size_t row = p->width * p->elementSize;
  if (!fits_allocation(p->dst, (p->height - 1) * (p->height > 1 ? p->pitch : 0) + row))
    return hipErrorInvalidValue; /* past the end of the allocation (clr) */
  return hipSuccess;
}

hipError_t node_copy_params(hipGraphNode_t dst, const struct hipGraphNode *src)
{
  switch (src->type) {
  case hipGraphNodeTypeKernel: {
    const struct graph_kernel *k = &src->u.kernel;
    struct graph_kernel *c = &dst->u.kernel;
    *c = *k;
    c->args = malloc(k->args_size ? k->args_size : 1);
    c->arg_ptrs = calloc(k->nargs ? k->nargs : 1, sizeof(void *));
    if (!c->args || !c->arg_ptrs) {
      node_kernel_clear(c);
      return hipErrorOutOfMemory;
    }
    memcpy(c->args, k->args, k->args_size);
    for (uint32_t i = 0; i < k->nargs; i++)
      c->arg_ptrs[i] = c->args + ((uint8_t *)k->arg_ptrs[i] - k->args);
    c->p.kernelParams = c->arg_ptrs;
    return hipSuccess;
  }
  case hipGraphNodeTypeGraph:
    dst->u.child = graph_clone(src->u.child);
    return dst->u.child ? hipSuccess : hipErrorOutOfMemory;
  case hipGraphNodeTypeMemAlloc:
  case hipGraphNodeTypeMemFree:
    dst->u.mem = graph_mem_get(src->u.mem);
    return hipSuccess;
  case hipGraphNodeTypeBatchMemOp:
    return node_batch_copy(&dst->u.batch, &src->u.batch);
  default:
    dst->u = src->u;
    return hipSuccess;
  }
}

/* ---- adding nodes ------------------------------------------------------------------------------ */

/* Common tail of every hipGraphAdd*Node: adds the built node [in] n or frees it. */
static hipError_t add_node(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                           size_t ndeps, hipGraphNode_t n)
{
  if (!n)
    return hipErrorOutOfMemory;
  hipError_t e = graph_add_node(graph, n, deps, ndeps);
  if (e != hipSuccess) {
    node_free(n);
    return e;
  }
  *out = n;
  return hipSuccess;
}

/* The checks every hipGraphAdd*Node starts with. */
static hipError_t add_check(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                            size_t ndeps)
{
  if (!out || !graph_valid(graph) || (ndeps && !deps))
    return hipErrorInvalidValue;
  return hipSuccess;
}

hipError_t hipGraphAddKernelNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipKernelNodeParams *pNodeParams)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeKernel);
  if (!n)
    HIP_RETURN(hipErrorOutOfMemory);
  hipError_t e = node_kernel_set(&n->u.kernel, pNodeParams);
  if (e != hipSuccess) {
    node_free(n);
    HIP_RETURN(e);
  }
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

hipError_t hipGraphAddMemcpyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipMemcpy3DParms *pCopyParams)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  HIP_RETURN_IF_ERROR(node_memcpy_check(pCopyParams));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemcpy);
  if (n)
    n->u.memcpy.p = *pCopyParams;
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

hipError_t hipGraphAddMemcpyNode1D(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                   const hipGraphNode_t *pDependencies, size_t numDependencies,
                                   void *dst, const void *src, size_t count, hipMemcpyKind kind)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  HIP_RETURN_IF_ERROR(node_memcpy_1d_check(dst, src, count, kind));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemcpy);
  if (n) {
    n->u.memcpy.p = node_memcpy_1d(dst, src, count, kind);
    n->u.memcpy.one_d = true;
  }
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

hipError_t hipGraphAddMemsetNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                 const hipGraphNode_t *pDependencies, size_t numDependencies,
                                 const hipMemsetParams *pMemsetParams)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  HIP_RETURN_IF_ERROR(node_memset_check(pMemsetParams));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemset);
  if (n)
    n->u.memset = *pMemsetParams;
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

hipError_t hipGraphAddHostNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                               const hipGraphNode_t *pDependencies, size_t numDependencies,
                               const hipHostNodeParams *pNodeParams)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  if (!pNodeParams || !pNodeParams->fn)
    HIP_RETURN(hipErrorInvalidValue);
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeHost);
  if (n)
    n->u.host = *pNodeParams;
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

hipError_t hipGraphAddEmptyNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                const hipGraphNode_t *pDependencies, size_t numDependencies)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies,
                      node_alloc(hipGraphNodeTypeEmpty)));
}

hipError_t hipGraphAddChildGraphNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                     const hipGraphNode_t *pDependencies, size_t numDependencies,
                                     hipGraph_t childGraph)
{
  HIP_RETURN_IF_ERROR(add_check(pGraphNode, graph, pDependencies, numDependencies));
  /* The child is cloned now, so a graph may even become a child of itself (CUDA, clr): the
   * node holds the graph as it is before the node is added. */
  if (!graph_valid(childGraph))
    HIP_RETURN(hipErrorInvalidValue);
  if (graph_has_mem_nodes(childGraph))
    HIP_RETURN(hipErrorNotSupported); /* CUDA: memory nodes may not be in child graphs */
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeGraph);
  if (n && !(n->u.child = graph_clone(childGraph))) {
    node_free(n);
    n = NULL;
  }
  HIP_RETURN(add_node(pGraphNode, graph, pDependencies, numDependencies, n));
}

static hipError_t add_event_node(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                                 size_t ndeps, hipEvent_t event, hipGraphNodeType type)
{
  hipError_t e = add_check(out, graph, deps, ndeps);
  if (e != hipSuccess)
    return e;
  if (!event)
    return hipErrorInvalidValue;
  hipGraphNode_t n = node_alloc(type);
  if (n)
    n->u.event = event;
  return add_node(out, graph, deps, ndeps, n);
}

hipError_t hipGraphAddEventRecordNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                      const hipGraphNode_t *pDependencies, size_t numDependencies,
                                      hipEvent_t event)
{
  HIP_RETURN(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                            hipGraphNodeTypeEventRecord));
}

hipError_t hipGraphAddEventWaitNode(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                    const hipGraphNode_t *pDependencies, size_t numDependencies,
                                    hipEvent_t event)
{
  HIP_RETURN(add_event_node(pGraphNode, graph, pDependencies, numDependencies, event,
                            hipGraphNodeTypeWaitEvent));
}

/* ---- parameters of a node in a graph ---------------------------------------------------------- */

static bool node_is(hipGraphNode_t n, hipGraphNodeType t)
{
  return graph_node_valid(n) && n->type == t;
}

hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeKernel) || !pNodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  *pNodeParams = node->u.kernel.p;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphKernelNodeSetParams(hipGraphNode_t node, const hipKernelNodeParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeKernel))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN(node_kernel_set(&node->u.kernel, pNodeParams));
}

hipError_t hipGraphMemcpyNodeGetParams(hipGraphNode_t node, hipMemcpy3DParms *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeMemcpy) || !pNodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  *pNodeParams = node->u.memcpy.p;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphMemcpyNodeSetParams(hipGraphNode_t node, const hipMemcpy3DParms *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeMemcpy))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(node_memcpy_check(pNodeParams));
  node->u.memcpy.p = *pNodeParams;
  node->u.memcpy.one_d = false;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphMemcpyNodeSetParams1D(hipGraphNode_t node, void *dst, const void *src,
                                         size_t count, hipMemcpyKind kind)
{
  if (!node_is(node, hipGraphNodeTypeMemcpy))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(node_memcpy_1d_set_check(dst, src, count, kind));
  node->u.memcpy.p = node_memcpy_1d(dst, src, count, kind);
  node->u.memcpy.one_d = true;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphMemsetNodeGetParams(hipGraphNode_t node, hipMemsetParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeMemset) || !pNodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  *pNodeParams = node->u.memset;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphMemsetNodeSetParams(hipGraphNode_t node, const hipMemsetParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeMemset))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(node_memset_check(pNodeParams));
  node->u.memset = *pNodeParams;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphHostNodeGetParams(hipGraphNode_t node, hipHostNodeParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeHost) || !pNodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  *pNodeParams = node->u.host;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphHostNodeSetParams(hipGraphNode_t node, const hipHostNodeParams *pNodeParams)
{
  if (!node_is(node, hipGraphNodeTypeHost) || !pNodeParams || !pNodeParams->fn)
    HIP_RETURN(hipErrorInvalidValue);
  node->u.host = *pNodeParams;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphChildGraphNodeGetGraph(hipGraphNode_t node, hipGraph_t *pGraph)
{
  if (!node_is(node, hipGraphNodeTypeGraph) || !pGraph)
    HIP_RETURN(hipErrorInvalidValue);
  *pGraph = node->u.child;
  HIP_RETURN(hipSuccess);
}

static hipError_t event_get(hipGraphNode_t node, hipGraphNodeType t, hipEvent_t *out)
{
  if (!node_is(node, t) || !out)
    return hipErrorInvalidValue;
  *out = node->u.event;
  return hipSuccess;
}

static hipError_t event_set(hipGraphNode_t node, hipGraphNodeType t, hipEvent_t event)
{
  if (!node_is(node, t) || !event)
    return hipErrorInvalidValue;
  node->u.event = event;
  return hipSuccess;
}

hipError_t hipGraphEventRecordNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
  HIP_RETURN(event_get(node, hipGraphNodeTypeEventRecord, event_out));
}

hipError_t hipGraphEventRecordNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
  HIP_RETURN(event_set(node, hipGraphNodeTypeEventRecord, event));
}

hipError_t hipGraphEventWaitNodeGetEvent(hipGraphNode_t node, hipEvent_t *event_out)
{
  HIP_RETURN(event_get(node, hipGraphNodeTypeWaitEvent, event_out));
}

hipError_t hipGraphEventWaitNodeSetEvent(hipGraphNode_t node, hipEvent_t event)
{
  HIP_RETURN(event_set(node, hipGraphNodeTypeWaitEvent, event));
}
