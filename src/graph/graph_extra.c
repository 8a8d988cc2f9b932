/*
 * HIP graphs, the less common parts: graph memory statistics, kernel-node launch attributes, and
 * the driver-style node calls (hipDrvGraph*: HIP_MEMCPY3D and HIP_MEMSET_NODE_PARAMS forms of the
 * memcpy and memset nodes). User objects are in graph_user_object.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../api/array.h"
#include "../runtime/error.h"
#include "graph.h"
#include "../runtime/runtime.h"

#define MAX_GRAPH_MEM_DEVICES 64

/* ---- graph memory statistics ---- */

struct graph_mem_stats {
  _Atomic int64_t used, high;
};

static struct graph_mem_stats mem_stats[MAX_GRAPH_MEM_DEVICES];

void graph_mem_account(int device, int64_t delta)
{
  if (device < 0 || device >= MAX_GRAPH_MEM_DEVICES)
    return;
  struct graph_mem_stats *s = &mem_stats[device];
  int64_t now = atomic_fetch_add_explicit(&s->used, delta, memory_order_relaxed) + delta;
  int64_t high = atomic_load_explicit(&s->high, memory_order_relaxed);
  while (now > high && !atomic_compare_exchange_weak(&s->high, &high, now))
    ;
}

static hipError_t mem_attr_device(int device)
{
  int n = 0;
  if (hipGetDeviceCount(&n) != hipSuccess || device < 0 || device >= n ||
      device >= MAX_GRAPH_MEM_DEVICES)
    return hipErrorInvalidDevice;
  return hipSuccess;
}

/* "Used" is what launches of alloc nodes have allocated and nothing has freed since (graph_mem.c
 * keeps CUDA's allocation lifetime); graphs share no pool, so what is reserved for them is what
 * they use (the figures clr's tests expect: reserved == used). */
hipError_t hipDeviceGetGraphMemAttribute(int device, hipGraphMemAttributeType attr, void *value)
{
  HIP_RETURN_IF_ERROR(mem_attr_device(device));
  if (!value)
    HIP_RETURN(hipErrorInvalidValue);
  struct graph_mem_stats *s = &mem_stats[device];
  switch (attr) {
  case hipGraphMemAttrUsedMemCurrent:
  case hipGraphMemAttrReservedMemCurrent:
    *(uint64_t *)value = (uint64_t)atomic_load(&s->used);
    break;
  case hipGraphMemAttrUsedMemHigh:
  case hipGraphMemAttrReservedMemHigh:
    *(uint64_t *)value = (uint64_t)atomic_load(&s->high);
    break;
  default:
    HIP_RETURN(hipErrorInvalidValue);
  }
  HIP_RETURN(hipSuccess);
}

/* Only the high watermarks can be set, and only to 0 (which resets them to the current use). */
hipError_t hipDeviceSetGraphMemAttribute(int device, hipGraphMemAttributeType attr, void *value)
{
  HIP_RETURN_IF_ERROR(mem_attr_device(device));
  if (!value || (attr != hipGraphMemAttrUsedMemHigh && attr != hipGraphMemAttrReservedMemHigh) ||
      *(uint64_t *)value != 0)
    HIP_RETURN(hipErrorInvalidValue);
  struct graph_mem_stats *s = &mem_stats[device];
  atomic_store(&s->high, atomic_load(&s->used));
  HIP_RETURN(hipSuccess);
}

/* Nothing is cached between graphs: a graph's memory goes back when its last holder is
 * destroyed. */
hipError_t hipDeviceGraphMemTrim(int device)
{
  HIP_RETURN(mem_attr_device(device));
}

/* ---- kernel node attributes ---- */

static hipError_t kernel_node(hipGraphNode_t n)
{
  if (!graph_node_valid(n))
    return hipErrorInvalidValue;
  return n->type == hipGraphNodeTypeKernel ? hipSuccess : hipErrorInvalidValue;
}

/* An access-policy window as clr's GraphKernelNode::SetAttrParams checks it: a hit ratio in
 * [0, 1], misses never persisting, a non-empty window needs a hit ratio, and the window no larger
 * than hipDeviceAttributeAccessPolicyMaxWindowSize (0 on AMD GPUs: there is no such cache
 * control, so only an empty window is accepted). */
static hipError_t access_policy_check(const hipAccessPolicyWindow *w)
{
  if (!(w->hitRatio >= 0.0f && w->hitRatio <= 1.0f))
    return hipErrorInvalidValue;
  if (w->missProp == hipAccessPropertyPersisting)
    return hipErrorInvalidValue;
  if (w->num_bytes > 0 && w->hitRatio == 0.0f)
    return hipErrorInvalidValue;
  int dev = 0, max = 0;
  if (hipGetDevice(&dev) != hipSuccess ||
      hipDeviceGetAttribute(&max, hipDeviceAttributeAccessPolicyMaxWindowSize, dev) != hipSuccess)
    return hipErrorInvalidDevice;
  if (w->num_bytes > (size_t)(max > 0 ? max : 0))
    return hipErrorInvalidValue;
  return hipSuccess;
}

hipError_t hipGraphKernelNodeSetAttribute(hipGraphNode_t hNode, hipKernelNodeAttrID attr,
                                          const hipKernelNodeAttrValue *value)
{
  HIP_RETURN_IF_ERROR(kernel_node(hNode));
  if (!value)
    HIP_RETURN(hipErrorInvalidValue);
  struct kernel_attrs *a = &hNode->kattr;
  switch (attr) {
  case hipLaunchAttributeAccessPolicyWindow: {
    const hipAccessPolicyWindow *w = &value->accessPolicyWindow;
    HIP_RETURN_IF_ERROR(access_policy_check(w));
    a->access_policy = *w;
    break;
  }
  /* kept as given, as clr does, so reading it back gives the value set; any non-zero value
   * launches cooperatively */
  case hipLaunchAttributeCooperative: a->cooperative = value->cooperative; break;
  case hipLaunchAttributePriority: a->priority = value->priority; break;
  default: HIP_RETURN(hipErrorInvalidValue);
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphKernelNodeGetAttribute(hipGraphNode_t hNode, hipKernelNodeAttrID attr,
                                          hipKernelNodeAttrValue *value)
{
  HIP_RETURN_IF_ERROR(kernel_node(hNode));
  if (!value)
    HIP_RETURN(hipErrorInvalidValue);
  const struct kernel_attrs *a = &hNode->kattr;
  switch (attr) {
  case hipLaunchAttributeAccessPolicyWindow: value->accessPolicyWindow = a->access_policy; break;
  case hipLaunchAttributeCooperative: value->cooperative = a->cooperative; break;
  case hipLaunchAttributePriority: value->priority = a->priority; break;
  default: HIP_RETURN(hipErrorInvalidValue);
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphKernelNodeCopyAttributes(hipGraphNode_t hSrc, hipGraphNode_t hDst)
{
  HIP_RETURN_IF_ERROR(kernel_node(hSrc));
  HIP_RETURN_IF_ERROR(kernel_node(hDst));
  hDst->kattr = hSrc->kattr;
  HIP_RETURN(hipSuccess);
}

/* ---- driver-style memset, free and memcpy nodes ---- */

static hipMemsetParams memset_of(const HIP_MEMSET_NODE_PARAMS *p)
{
  hipMemsetParams m = {0};
  m.dst = (void *)p->dst;
  m.pitch = p->pitch;
  m.value = p->value;
  m.elementSize = p->elementSize;
  m.width = p->width;
  m.height = p->height;
  return m;
}

/* The context argument names the device in CUDA; hipkfd's contexts are devices' primary
 * contexts, so any valid one (or NULL) means the memory's own device. */
hipError_t hipDrvGraphAddMemsetNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                    const hipGraphNode_t *dependencies, size_t numDependencies,
                                    const HIP_MEMSET_NODE_PARAMS *memsetParams, hipCtx_t ctx)
{
  (void)ctx;
  if (!memsetParams)
    HIP_RETURN(hipErrorInvalidValue);
  hipMemsetParams m = memset_of(memsetParams);
  HIP_RETURN(hipGraphAddMemsetNode(phGraphNode, hGraph, dependencies, numDependencies, &m));
}

hipError_t hipDrvGraphExecMemsetNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                              const HIP_MEMSET_NODE_PARAMS *memsetParams,
                                              hipCtx_t ctx)
{
  (void)ctx;
  if (!memsetParams)
    HIP_RETURN(hipErrorInvalidValue);
  hipMemsetParams m = memset_of(memsetParams);
  HIP_RETURN(hipGraphExecMemsetNodeSetParams(hGraphExec, hNode, &m));
}

hipError_t hipDrvGraphAddMemFreeNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                     const hipGraphNode_t *dependencies, size_t numDependencies,
                                     hipDeviceptr_t dptr)
{
  HIP_RETURN(hipGraphAddMemFreeNode(phGraphNode, hGraph, dependencies, numDependencies, (void *)dptr));
}

/* One side of a HIP_MEMCPY3D as the runtime form's pitched pointer, position and array. The
 * runtime form counts an array side's x in elements, the driver form in bytes. */
static hipError_t drv_side(hipMemoryType type, const void *host, hipDeviceptr_t dev,
                           hipArray_t array, size_t x, size_t y, size_t z, size_t pitch,
                           size_t height, size_t width_bytes, hipPitchedPtr *ptr, hipPos *pos,
                           hipArray_t *arr, size_t *elem)
{
  *elem = 1;
  if (type == hipMemoryTypeArray) {
    struct hipArray *a = hip_array_find(array);
    if (!a)
      return hipErrorInvalidValue;
    *arr = array;
    *elem = a->elem_size;
    *pos = make_hipPos(x / a->elem_size, y, z);
    return x % a->elem_size ? hipErrorInvalidValue : hipSuccess;
  }
  void *base = type == hipMemoryTypeHost ? (void *)host : (void *)dev;
  if (!base)
    return hipErrorInvalidValue;
  *ptr = make_hipPitchedPtr(base, pitch ? pitch : width_bytes, width_bytes, height);
  *pos = make_hipPos(x, y, z);
  return hipSuccess;
}

static hipError_t memcpy3d_of(const HIP_MEMCPY3D *c, hipMemcpy3DParms *p)
{
  if (!c)
    return hipErrorInvalidValue;
  memset(p, 0, sizeof(*p));
  size_t se, de;
  hipError_t e = drv_side(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes,
                          c->srcY, c->srcZ, c->srcPitch, c->srcHeight, c->WidthInBytes,
                          &p->srcPtr, &p->srcPos, &p->srcArray, &se);
  if (e == hipSuccess)
    e = drv_side(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY,
                 c->dstZ, c->dstPitch, c->dstHeight, c->WidthInBytes, &p->dstPtr, &p->dstPos,
                 &p->dstArray, &de);
  if (e != hipSuccess)
    return e;
  /* The extent is in elements when either side is an array, else in bytes. */
  size_t elem = p->srcArray ? se : p->dstArray ? de : 1;
  if (c->WidthInBytes % elem)
    return hipErrorInvalidValue;
  p->extent = make_hipExtent(c->WidthInBytes / elem, c->Height, c->Depth);
  p->kind = hipMemcpyDefault;
  return hipSuccess;
}

/* The driver form checked as clr's ihipDrvMemcpy3D_validate does: every bad parameter block,
 * pitch and bounds included, is hipErrorInvalidValue. */
static hipError_t drv_memcpy_params(const HIP_MEMCPY3D *c, hipMemcpy3DParms *p)
{
  hipError_t e = memcpy3d_of(c, p);
  if (e == hipSuccess && node_memcpy_check(p) != hipSuccess)
    e = hipErrorInvalidValue;
  return e;
}

hipError_t hipDrvGraphAddMemcpyNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                    const hipGraphNode_t *dependencies, size_t numDependencies,
                                    const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
  (void)ctx;
  if (!phGraphNode || !graph_valid(hGraph) || (numDependencies && !dependencies))
    HIP_RETURN(hipErrorInvalidValue);
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(drv_memcpy_params(copyParams, &p));
  HIP_RETURN(hipGraphAddMemcpyNode(phGraphNode, hGraph, dependencies, numDependencies, &p));
}

hipError_t hipDrvGraphMemcpyNodeSetParams(hipGraphNode_t hNode, const HIP_MEMCPY3D *nodeParams)
{
  if (!graph_node_valid(hNode))
    HIP_RETURN(hipErrorInvalidValue);
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(drv_memcpy_params(nodeParams, &p));
  HIP_RETURN(hipGraphMemcpyNodeSetParams(hNode, &p));
}

hipError_t hipDrvGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                              const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
  (void)ctx;
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(drv_memcpy_params(copyParams, &p));
  HIP_RETURN(hipGraphExecMemcpyNodeSetParams(hGraphExec, hNode, &p));
}

/* The runtime form back as the driver form (what hipDrvGraphMemcpyNodeSetParams or
 * hipGraphAddMemcpyNode stored). */
static void side_back(const hipPitchedPtr *ptr, const hipPos *pos, hipArray_t arr, size_t x_scale,
                      hipMemoryType *type, const void **host, hipDeviceptr_t *dev,
                      hipArray_t *array, size_t *x, size_t *y, size_t *z, size_t *pitch,
                      size_t *height)
{
  *x = pos->x * x_scale;
  *y = pos->y;
  *z = pos->z;
  if (arr) {
    *type = hipMemoryTypeArray;
    *array = arr;
    return;
  }
  hipPointerAttribute_t a;
  bool device = hipPointerGetAttributes(&a, ptr->ptr) == hipSuccess && a.type == hipMemoryTypeDevice;
  *type = device ? hipMemoryTypeDevice : hipMemoryTypeHost;
  if (device)
    *dev = (hipDeviceptr_t)ptr->ptr;
  else
    *host = ptr->ptr;
  *pitch = ptr->pitch;
  *height = ptr->ysize;
}

hipError_t hipDrvGraphMemcpyNodeGetParams(hipGraphNode_t hNode, HIP_MEMCPY3D *nodeParams)
{
  if (!nodeParams)
    HIP_RETURN(hipErrorInvalidValue);
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(hipGraphMemcpyNodeGetParams(hNode, &p));
  struct hipArray *sa = p.srcArray ? hip_array_find(p.srcArray) : NULL;
  struct hipArray *da = p.dstArray ? hip_array_find(p.dstArray) : NULL;
  size_t elem = sa ? sa->elem_size : da ? da->elem_size : 1;
  HIP_MEMCPY3D *c = nodeParams;
  memset(c, 0, sizeof(*c));
  side_back(&p.srcPtr, &p.srcPos, p.srcArray, sa ? sa->elem_size : 1, &c->srcMemoryType,
            &c->srcHost, &c->srcDevice, &c->srcArray, &c->srcXInBytes, &c->srcY, &c->srcZ,
            &c->srcPitch, &c->srcHeight);
  const void *dst_host = NULL;
  side_back(&p.dstPtr, &p.dstPos, p.dstArray, da ? da->elem_size : 1, &c->dstMemoryType,
            &dst_host, &c->dstDevice, &c->dstArray, &c->dstXInBytes, &c->dstY, &c->dstZ,
            &c->dstPitch, &c->dstHeight);
  c->dstHost = (void *)dst_host;
  c->WidthInBytes = p.extent.width * elem;
  c->Height = p.extent.height;
  c->Depth = p.extent.depth;
  HIP_RETURN(hipSuccess);
}
