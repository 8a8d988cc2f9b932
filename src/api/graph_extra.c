/*
 * HIP graphs, the less common parts: user objects and the references graphs hold on them, graph
 * memory statistics, kernel-node launch attributes, and the driver-style node calls
 * (hipDrvGraph*: HIP_MEMCPY3D and HIP_MEMSET_NODE_PARAMS forms of the memcpy and memset nodes).
 *
 * User objects follow CUDA's cudaUserObject rules: a reference count, the destructor called with
 * the object's pointer when it reaches zero (here synchronously, in the thread that dropped the
 * last reference: a graph destruction or hipUserObjectRelease). A graph's references are
 * released when it is destroyed; a clone, and so every executable graph, holds references of its
 * own, so an executable keeps the objects of the graph it was instantiated from alive.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "graph.h"
#include "runtime.h"

#define USER_OBJECT_MAGIC 0x55534f42u /* "USOB" */
#define MAX_GRAPH_MEM_DEVICES 64

struct hipUserObject {
  uint32_t magic;
  _Atomic long refs;
  void *ptr;
  hipHostFn_t destroy;
};

static bool user_object_valid(const struct hipUserObject *o)
{
  return o && o->magic == USER_OBJECT_MAGIC;
}

static void user_object_retain(hipUserObject_t o, unsigned count)
{
  atomic_fetch_add_explicit(&o->refs, (long)count, memory_order_relaxed);
}

static void user_object_release(hipUserObject_t o, unsigned count)
{
  if (atomic_fetch_sub_explicit(&o->refs, (long)count, memory_order_acq_rel) != (long)count)
    return;
  o->magic = 0;
  if (o->destroy)
    o->destroy(o->ptr);
  free(o);
}

hipError_t hipUserObjectCreate(hipUserObject_t *object_out, void *ptr, hipHostFn_t destroy,
                               unsigned int initialRefcount, unsigned int flags)
{
  /* CUDA requires cudaUserObjectNoDestructorSync; AMD accepts 0 as well. */
  if (!object_out || !destroy || initialRefcount == 0 || (flags & ~(unsigned)hipUserObjectNoDestructorSync))
    HIP_RETURN(hipErrorInvalidValue);
  struct hipUserObject *o = calloc(1, sizeof(*o));
  if (!o)
    HIP_RETURN(hipErrorOutOfMemory);
  o->magic = USER_OBJECT_MAGIC;
  o->refs = initialRefcount;
  o->ptr = ptr;
  o->destroy = destroy;
  *object_out = o;
  HIP_RETURN(hipSuccess);
}

hipError_t hipUserObjectRetain(hipUserObject_t object, unsigned int count)
{
  if (!user_object_valid(object))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (count == 0 || count > INT32_MAX)
    HIP_RETURN(hipErrorInvalidValue);
  user_object_retain(object, count);
  HIP_RETURN(hipSuccess);
}

hipError_t hipUserObjectRelease(hipUserObject_t object, unsigned int count)
{
  if (!user_object_valid(object))
    HIP_RETURN(hipErrorInvalidResourceHandle);
  if (count == 0 || (long)count > atomic_load_explicit(&object->refs, memory_order_relaxed))
    HIP_RETURN(hipErrorInvalidValue);
  user_object_release(object, count);
  HIP_RETURN(hipSuccess);
}

static struct graph_uref *uref_find(struct ihipGraph *g, hipUserObject_t o)
{
  for (size_t i = 0; i < g->nurefs; i++)
    if (g->urefs[i].object == o)
      return &g->urefs[i];
  return NULL;
}

/* Records [in] count more references of [in] g on [in] o (already counted in o). */
static int uref_add(struct ihipGraph *g, hipUserObject_t o, unsigned count)
{
  struct graph_uref *r = uref_find(g, o);
  if (r) {
    r->count += count;
    return 0;
  }
  r = realloc(g->urefs, sizeof(*r) * (g->nurefs + 1));
  if (!r)
    return -ENOMEM;
  g->urefs = r;
  g->urefs[g->nurefs++] = (struct graph_uref){o, count};
  return 0;
}

void graph_urefs_release(struct ihipGraph *g)
{
  for (size_t i = 0; i < g->nurefs; i++)
    user_object_release(g->urefs[i].object, g->urefs[i].count);
  free(g->urefs);
  g->urefs = NULL;
  g->nurefs = 0;
}

int graph_urefs_copy(struct ihipGraph *dst, const struct ihipGraph *src)
{
  for (size_t i = 0; i < src->nurefs; i++) {
    if (uref_add(dst, src->urefs[i].object, src->urefs[i].count))
      return -ENOMEM;
    user_object_retain(src->urefs[i].object, src->urefs[i].count);
  }
  return 0;
}

hipError_t hipGraphRetainUserObject(hipGraph_t graph, hipUserObject_t object, unsigned int count,
                                    unsigned int flags)
{
  if (!graph_valid(graph) || !user_object_valid(object))
    HIP_RETURN(!graph_valid(graph) ? hipErrorInvalidValue : hipErrorInvalidResourceHandle);
  if (count == 0 || count > INT32_MAX || (flags & ~(unsigned)hipGraphUserObjectMove))
    HIP_RETURN(hipErrorInvalidValue);
  /* Move: the caller's references become the graph's; otherwise the graph takes new ones. */
  if (!(flags & hipGraphUserObjectMove))
    user_object_retain(object, count);
  if (uref_add(graph, object, count)) {
    if (!(flags & hipGraphUserObjectMove))
      user_object_release(object, count);
    HIP_RETURN(hipErrorOutOfMemory);
  }
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphReleaseUserObject(hipGraph_t graph, hipUserObject_t object, unsigned int count)
{
  if (!graph_valid(graph) || !user_object_valid(object))
    HIP_RETURN(!graph_valid(graph) ? hipErrorInvalidValue : hipErrorInvalidResourceHandle);
  struct graph_uref *r = uref_find(graph, object);
  if (count == 0 || !r || r->count < count)
    HIP_RETURN(hipErrorInvalidValue); /* a graph releases only references it holds */
  r->count -= count;
  if (r->count == 0)
    *r = graph->urefs[--graph->nurefs];
  user_object_release(object, count);
  HIP_RETURN(hipSuccess);
}

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

/* Graph allocations are plain device allocations made when their node is created, so the
 * memory "reserved" for graphs is exactly the memory they use. */
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

/* Nothing is cached: freed graph memory goes back at once. */
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
    if (w->hitRatio < 0.0f || w->hitRatio > 1.0f)
      HIP_RETURN(hipErrorInvalidValue);
    a->access_policy = *w;
    break;
  }
  case hipLaunchAttributeCooperative: a->cooperative = value->cooperative != 0; break;
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

hipError_t hipDrvGraphAddMemcpyNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                    const hipGraphNode_t *dependencies, size_t numDependencies,
                                    const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
  (void)ctx;
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(memcpy3d_of(copyParams, &p));
  HIP_RETURN(hipGraphAddMemcpyNode(phGraphNode, hGraph, dependencies, numDependencies, &p));
}

hipError_t hipDrvGraphMemcpyNodeSetParams(hipGraphNode_t hNode, const HIP_MEMCPY3D *nodeParams)
{
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(memcpy3d_of(nodeParams, &p));
  HIP_RETURN(hipGraphMemcpyNodeSetParams(hNode, &p));
}

hipError_t hipDrvGraphExecMemcpyNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                              const HIP_MEMCPY3D *copyParams, hipCtx_t ctx)
{
  (void)ctx;
  hipMemcpy3DParms p;
  HIP_RETURN_IF_ERROR(memcpy3d_of(copyParams, &p));
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
