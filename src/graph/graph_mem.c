/* HIP graphs: memory allocation and free nodes (hipGraphAddMemAllocNode / hipGraphAddMemFreeNode,
 * and hipMallocAsync / hipFreeAsync captured from a stream).
 *
 * The model: the node allocates when it is created (hipMalloc on the pool's device), so the
 * address returned in hipMemAllocNodeParams.dptr is fixed for the graph's life, as CUDA promises.
 * The memory stays mapped until the last graph, clone or executable graph that refers to it is
 * destroyed. CUDA's allocation lifetime is kept as a state: a launch of the alloc node allocates,
 * a launch of a free node (in the same graph or another one), hipFree or hipFreeAsync frees; the
 * device's graph-memory statistics (hipDeviceGetGraphMemAttribute) count what is allocated in
 * that sense. The state changes when the launch is enqueued, not when the stream reaches the
 * node. Compared with CUDA, memory is not shared between graphs (no reuse, hipDeviceGraphMemTrim
 * has nothing to give back), and a graph with memory nodes has one executable graph at a time
 * (CUDA's rule); memory nodes are not allowed in child graphs (CUDA's rule). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "capture.h"
#include "../runtime/error.h"
#include "graph.h"
#include "../memory/mem.h"

/* Every live graph allocation, for free nodes of other graphs and hipFree; and each one's
 * allocated state. */
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct graph_mem *mem_list;
/* Entries of mem_list (changed under mem_lock): hipFree skips the lock while there are none. A
 * graph allocation made before a hipFree began is counted by then (read-after-write coherence). */

static struct graph_mem *mem_find_locked(const void *ptr)
{
  for (struct graph_mem *m = mem_list; m; m = m->next)
    if (m->ptr == ptr)
      return m;
  return NULL;
}

static void mem_unlink_locked(struct graph_mem *m)
{
  for (struct graph_mem **p = &mem_list; *p; p = &(*p)->next) {
    if (*p == m) {
      *p = m->next;
      atomic_fetch_sub_explicit(&hip_graph_mem_count, 1, memory_order_relaxed);
      return;
    }
  }
}

/* Sets the allocated state of [in] m, counting the change in the device's statistics. */
static void mem_set_allocated_locked(struct graph_mem *m, bool allocated)
{
  if (m->allocated == allocated)
    return;
  m->allocated = allocated;
  graph_mem_account(m->device, allocated ? (int64_t)m->size : -(int64_t)m->size);
}

struct graph_mem *graph_mem_get(struct graph_mem *m)
{
  if (m)
    atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
  return m;
}

/* The runtime allocation behind [in] m is still the one made for it: a hipFree that did not go
 * through graph_mem_free_outside() released it, and the address may belong to someone else now. */
static bool mem_still_ours(const struct graph_mem *m)
{
  struct mem_info info;
  return mem_lookup(m->ptr, &info) == 0 && info.base == m->ptr && info.alloc_id == m->alloc_id;
}

void graph_mem_put(struct graph_mem *m)
{
  if (!m || atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
    return;
  pthread_mutex_lock(&mem_lock);
  mem_unlink_locked(m);
  mem_set_allocated_locked(m, false);
  pthread_mutex_unlock(&mem_lock);
  if (mem_still_ours(m)) {
    /* hipFree waits for the device's work, so a launch still using the memory finishes first. */
    int cur = 0;
    if (hipGetDevice(&cur) == hipSuccess && cur != m->device)
      (void)hipSetDevice(m->device);
    (void)hipFree(m->ptr);
    if (cur != m->device)
      (void)hipSetDevice(cur);
  }
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

hipError_t graph_mem_instantiate(struct ihipGraph *g, struct graph_mem_guard **guard)
{
  *guard = NULL;
  if (!graph_has_mem_nodes(g))
    return hipSuccess;
  if (!g->mem_guard) {
    g->mem_guard = calloc(1, sizeof(*g->mem_guard));
    if (!g->mem_guard)
      return hipErrorOutOfMemory;
    g->mem_guard->refs = 1; /* the graph's */
  }
  struct graph_mem_guard *gd = g->mem_guard;
  int none = 0;
  if (!atomic_compare_exchange_strong(&gd->execs, &none, 1))
    return hipErrorNotSupported;
  atomic_fetch_add_explicit(&gd->refs, 1, memory_order_relaxed);
  *guard = gd;
  return hipSuccess;
}

void graph_mem_guard_put(struct graph_mem_guard *gd, bool exec)
{
  if (!gd)
    return;
  if (exec)
    atomic_fetch_sub_explicit(&gd->execs, 1, memory_order_relaxed);
  if (atomic_fetch_sub_explicit(&gd->refs, 1, memory_order_acq_rel) == 1)
    free(gd);
}

hipError_t graph_mem_launch(hipGraphNode_t n)
{
  struct graph_mem *m = n->u.mem;
  if (n->type == hipGraphNodeTypeMemAlloc && !mem_still_ours(m))
    return hipErrorInvalidValue; /* released behind the graph's back: nothing to hand out */
  pthread_mutex_lock(&mem_lock);
  mem_set_allocated_locked(m, n->type == hipGraphNodeTypeMemAlloc);
  pthread_mutex_unlock(&mem_lock);
  return hipSuccess;
}

bool graph_mem_free_outside(void *ptr)
{
  if (!ptr || !atomic_load_explicit(&hip_graph_mem_count, memory_order_relaxed))
    return false;
  pthread_mutex_lock(&mem_lock);
  struct graph_mem *m = mem_find_locked(ptr);
  if (m)
    mem_set_allocated_locked(m, false);
  pthread_mutex_unlock(&mem_lock);
  return m != NULL;
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
  struct mem_info info;
  if (e == hipSuccess && mem_lookup(m->ptr, &info) != 0) {
    (void)hipFree(m->ptr);
    e = hipErrorOutOfMemory;
  }
  if (e != hipSuccess) {
    free(m);
    node_free(n);
    return e;
  }
  m->alloc_id = info.alloc_id;
  m->params = *p;
  m->params.dptr = m->ptr;
  pthread_mutex_lock(&mem_lock);
  m->next = mem_list;
  mem_list = m;
  atomic_fetch_add_explicit(&hip_graph_mem_count, 1, memory_order_relaxed);
  pthread_mutex_unlock(&mem_lock);
  n->u.mem = m;
  *out = n;
  return hipSuccess;
}

hipError_t graph_mem_free_node(const struct ihipGraph *g, void *dptr, hipGraphNode_t *out)
{
  if (!dptr)
    return hipErrorInvalidValue;
  for (size_t i = 0; i < g->nodes.n; i++)
    if (g->nodes.v[i]->type == hipGraphNodeTypeMemFree && g->nodes.v[i]->u.mem->ptr == dptr)
      return hipErrorInvalidValue; /* freed twice */
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemFree);
  if (!n)
    return hipErrorOutOfMemory;
  /* Any graph's allocation (CUDA: freeing it in another graph is allowed). */
  pthread_mutex_lock(&mem_lock);
  struct graph_mem *m = graph_mem_get(mem_find_locked(dptr));
  pthread_mutex_unlock(&mem_lock);
  if (!m) {
    node_free(n);
    return hipErrorInvalidValue; /* not graph memory */
  }
  n->u.mem = m;
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
  /* As given when the node was made (clr returns the stored parameters as they are). */
  hipMemAllocNodeParams p = node->u.mem->params;
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
