/* HIP graphs: the graph object, its edges and the structural queries (CUDA graph semantics; error
 * codes as ROCm clr's hip_graph.cpp returns them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/abi.h"
#include "../runtime/error.h"
#include "graph.h"
#include "../runtime/internal.h"

/* ---- small helpers ---------------------------------------------------------------------------- */

/* Live graphs and nodes (issue 12): a handle is looked up before anything is read through it, so
 * a freed, foreign or wrong-type handle is an error, never a fault. The magic check after the
 * lookup only reads memory the set vouches for. */
struct hip_live_set graph_live_graphs = HIP_LIVE_SET_INIT;
struct hip_live_set graph_live_nodes = HIP_LIVE_SET_INIT;

bool graph_valid(hipGraph_t g)
{
  return hip_live_has(&graph_live_graphs, g) && g->magic == GRAPH_MAGIC;
}

bool graph_node_valid(hipGraphNode_t n)
{
  return hip_live_has(&graph_live_nodes, n) && n->magic == GRAPH_NODE_MAGIC;
}

int node_list_push(struct node_list *l, hipGraphNode_t n)
{
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 4;
    hipGraphNode_t *v = realloc(l->v, cap * sizeof(*v));
    if (!v)
      return -ENOMEM;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = n;
  return 0;
}

bool node_list_has(const struct node_list *l, hipGraphNode_t n)
{
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i] == n)
      return true;
  return false;
}

/* Removes [in] n keeping the order of the rest (queries report edges in creation order). */
void node_list_remove(struct node_list *l, hipGraphNode_t n)
{
  for (size_t i = 0; i < l->n; i++) {
    if (l->v[i] == n) {
      memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
      l->n--;
      return;
    }
  }
}

struct ihipGraph *graph_alloc(void)
{
  struct ihipGraph *g = calloc(1, sizeof(*g));
  if (g && hip_live_add(&graph_live_graphs, g)) {
    free(g);
    return NULL;
  }
  if (g)
    g->magic = GRAPH_MAGIC;
  return g;
}

void graph_free(struct ihipGraph *g)
{
  if (!g)
    return;
  for (size_t i = 0; i < g->nodes.n; i++) {
    hipGraphNode_t n = g->nodes.v[i];
    free(n->deps.v);
    free(n->out.v);
    n->deps = (struct node_list){0};
    n->out = (struct node_list){0};
    node_free(n);
  }
  free(g->nodes.v);
  graph_urefs_release(g);
  graph_mem_guard_put(g->mem_guard, false);
  g->magic = 0;
  hip_live_remove(&graph_live_graphs, g);
  free(g);
}

/* Adds the edge from -> to. 0 or -ENOMEM (then nothing changed). */
static int edge_add(hipGraphNode_t from, hipGraphNode_t to)
{
  if (node_list_push(&from->out, to))
    return -ENOMEM;
  if (node_list_push(&to->deps, from)) {
    from->out.n--;
    return -ENOMEM;
  }
  return 0;
}

static void edge_remove(hipGraphNode_t from, hipGraphNode_t to)
{
  node_list_remove(&from->out, to);
  node_list_remove(&to->deps, from);
}

/* Dependencies of a new node: each must be a node of [in] g, listed once (CUDA rejects duplicate
 * dependencies with cudaErrorInvalidValue). */
static hipError_t deps_check(const struct ihipGraph *g, const hipGraphNode_t *deps, size_t ndeps)
{
  if (ndeps && !deps)
    return hipErrorInvalidValue;
  for (size_t i = 0; i < ndeps; i++) {
    if (!graph_node_valid(deps[i]) || deps[i]->graph != g)
      return hipErrorInvalidValue;
    for (size_t j = 0; j < i; j++)
      if (deps[j] == deps[i])
        return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t graph_add_node(struct ihipGraph *g, hipGraphNode_t n, const hipGraphNode_t *deps,
                          size_t ndeps)
{
  hipError_t e = deps_check(g, deps, ndeps);
  if (e != hipSuccess)
    return e;
  if (node_list_push(&g->nodes, n))
    return hipErrorOutOfMemory;
  n->graph = g;
  n->id = g->next_id++;
  for (size_t i = 0; i < ndeps; i++) {
    if (edge_add(deps[i], n)) {
      while (n->deps.n)
        edge_remove(n->deps.v[0], n);
      g->nodes.n--;
      n->graph = NULL;
      return hipErrorOutOfMemory;
    }
  }
  return hipSuccess;
}

/* Kahn's algorithm over creation order, so the order is deterministic. Each node's `mark` holds
 * its position in g->nodes while the walk runs. */
hipError_t graph_topo_order(const struct ihipGraph *g, hipGraphNode_t **order, size_t *n)
{
  size_t count = g->nodes.n;
  hipGraphNode_t *out = malloc((count ? count : 1) * sizeof(*out));
  size_t *indeg = calloc(count ? count : 1, sizeof(*indeg));
  if (!out || !indeg) {
    free(out);
    free(indeg);
    return hipErrorOutOfMemory;
  }
  size_t head = 0, tail = 0;
  for (size_t i = 0; i < count; i++) {
    g->nodes.v[i]->mark = i;
    indeg[i] = g->nodes.v[i]->deps.n;
    if (indeg[i] == 0)
      out[tail++] = g->nodes.v[i];
  }
  while (head < tail) {
    hipGraphNode_t cur = out[head++];
    for (size_t k = 0; k < cur->out.n; k++)
      if (--indeg[cur->out.v[k]->mark] == 0)
        out[tail++] = cur->out.v[k];
  }
  free(indeg);
  if (tail != count) {
    free(out);
    return hipErrorInvalidValue; /* a cycle: some node never reached in-degree 0 */
  }
  *order = out;
  *n = count;
  return hipSuccess;
}

struct ihipGraph *graph_clone(const struct ihipGraph *g)
{
  struct ihipGraph *c = graph_alloc();
  if (!c)
    return NULL;
  c->origin = (struct ihipGraph *)g;
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *src = g->nodes.v[i];
    hipGraphNode_t n = node_alloc(src->type);
    if (!n)
      goto fail;
    if (node_copy_params(n, src) != hipSuccess || node_list_push(&c->nodes, n)) {
      node_free(n);
      goto fail;
    }
    n->graph = c;
    n->origin = (hipGraphNode_t)src;
    n->id = src->id;
    n->enabled = src->enabled;
    n->kattr = src->kattr;
  }
  c->next_id = g->next_id;
  if (graph_urefs_copy(c, g))
    goto fail;
  /* Edges, in the same order as the source's so that queries on the clone match. */
  for (size_t i = 0; i < g->nodes.n; i++)
    g->nodes.v[i]->mark = i;
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *src = g->nodes.v[i];
    for (size_t k = 0; k < src->out.n; k++)
      if (edge_add(c->nodes.v[i], c->nodes.v[src->out.v[k]->mark]))
        goto fail;
  }
  return c;
fail:
  graph_free(c);
  return NULL;
}

/* ---- creation and destruction ----------------------------------------------------------------- */

hipError_t hipGraphCreate(hipGraph_t *pGraph, unsigned int flags)
{
  if (!pGraph || flags != 0)
    HIP_RETURN(hipErrorInvalidValue);
  *pGraph = graph_alloc();
  HIP_RETURN(*pGraph ? hipSuccess : hipErrorOutOfMemory);
}

hipError_t hipGraphDestroy(hipGraph_t graph)
{
  if (!graph_valid(graph))
    HIP_RETURN(hipErrorInvalidValue);
  graph_free(graph);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphClone(hipGraph_t *pGraphClone, hipGraph_t originalGraph)
{
  if (!pGraphClone || !graph_valid(originalGraph))
    HIP_RETURN(hipErrorInvalidValue);
  *pGraphClone = graph_clone(originalGraph);
  HIP_RETURN(*pGraphClone ? hipSuccess : hipErrorOutOfMemory);
}

hipError_t hipGraphNodeFindInClone(hipGraphNode_t *pNode, hipGraphNode_t originalNode,
                                   hipGraph_t clonedGraph)
{
  if (!pNode || !graph_node_valid(originalNode) || !graph_valid(clonedGraph))
    HIP_RETURN(hipErrorInvalidValue);
  for (size_t i = 0; i < clonedGraph->nodes.n; i++) {
    if (clonedGraph->nodes.v[i]->origin == originalNode) {
      *pNode = clonedGraph->nodes.v[i];
      HIP_RETURN(hipSuccess);
    }
  }
  HIP_RETURN(hipErrorInvalidValue);
}

hipError_t hipGraphDestroyNode(hipGraphNode_t node)
{
  if (!graph_node_valid(node))
    HIP_RETURN(hipErrorInvalidValue);
  while (node->deps.n)
    edge_remove(node->deps.v[0], node);
  while (node->out.n)
    edge_remove(node, node->out.v[0]);
  node_list_remove(&node->graph->nodes, node);
  free(node->deps.v);
  free(node->out.v);
  node->deps = (struct node_list){0};
  node->out = (struct node_list){0};
  node_free(node);
  HIP_RETURN(hipSuccess);
}

/* ---- edges ---------------------------------------------------------------------------------- */

/* from[i] -> to[i] must join two distinct nodes of [in] graph. */
static hipError_t edges_check(hipGraph_t graph, const hipGraphNode_t *from,
                              const hipGraphNode_t *to, size_t n)
{
  if (!graph_valid(graph) || (n && (!from || !to)))
    return hipErrorInvalidValue;
  for (size_t i = 0; i < n; i++) {
    if (!graph_node_valid(from[i]) || !graph_node_valid(to[i]) || from[i] == to[i] ||
        from[i]->graph != graph || to[i]->graph != graph)
      return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t hipGraphAddDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                   const hipGraphNode_t *to, size_t numDependencies)
{
  HIP_RETURN_IF_ERROR(edges_check(graph, from, to, numDependencies));
  for (size_t i = 0; i < numDependencies; i++)
    if (node_list_has(&from[i]->out, to[i]))
      HIP_RETURN(hipErrorInvalidValue); /* the edge already exists */
  for (size_t i = 0; i < numDependencies; i++)
    if (edge_add(from[i], to[i]))
      HIP_RETURN(hipErrorOutOfMemory);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphRemoveDependencies(hipGraph_t graph, const hipGraphNode_t *from,
                                      const hipGraphNode_t *to, size_t numDependencies)
{
  HIP_RETURN_IF_ERROR(edges_check(graph, from, to, numDependencies));
  for (size_t i = 0; i < numDependencies; i++)
    if (!node_list_has(&from[i]->out, to[i]))
      HIP_RETURN(hipErrorInvalidValue); /* no such edge */
  for (size_t i = 0; i < numDependencies; i++)
    edge_remove(from[i], to[i]);
  HIP_RETURN(hipSuccess);
}

/* ---- queries -------------------------------------------------------------------------------- */

/* The CUDA convention for list queries: a NULL array asks for the count; otherwise up to *count
 * entries are written, the rest of a larger array is NULLed, and *count becomes the number
 * written. */
static void list_out(const hipGraphNode_t *src, size_t n, hipGraphNode_t *dst, size_t *count)
{
  if (!dst) {
    *count = n;
    return;
  }
  size_t k = n < *count ? n : *count;
  for (size_t i = 0; i < *count; i++)
    dst[i] = i < k ? src[i] : NULL;
  *count = k;
}

hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *numNodes)
{
  if (!graph_valid(graph) || !numNodes)
    HIP_RETURN(hipErrorInvalidValue);
  list_out(graph->nodes.v, graph->nodes.n, nodes, numNodes);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphGetRootNodes(hipGraph_t graph, hipGraphNode_t *pRootNodes,
                                size_t *pNumRootNodes)
{
  if (!graph_valid(graph) || !pNumRootNodes)
    HIP_RETURN(hipErrorInvalidValue);
  struct node_list roots = {0};
  for (size_t i = 0; i < graph->nodes.n; i++) {
    if (graph->nodes.v[i]->deps.n == 0 && node_list_push(&roots, graph->nodes.v[i])) {
      free(roots.v);
      HIP_RETURN(hipErrorOutOfMemory);
    }
  }
  list_out(roots.v, roots.n, pRootNodes, pNumRootNodes);
  free(roots.v);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t *from, hipGraphNode_t *to,
                            size_t *numEdges)
{
  if (!graph_valid(graph) || !numEdges || (!from != !to))
    HIP_RETURN(hipErrorInvalidValue);
  size_t total = 0, k = 0;
  for (size_t i = 0; i < graph->nodes.n; i++)
    total += graph->nodes.v[i]->out.n;
  if (!from) {
    *numEdges = total;
    HIP_RETURN(hipSuccess);
  }
  for (size_t i = 0; i < graph->nodes.n; i++) {
    hipGraphNode_t n = graph->nodes.v[i];
    for (size_t j = 0; j < n->out.n && k < *numEdges; j++, k++) {
      from[k] = n;
      to[k] = n->out.v[j];
    }
  }
  for (size_t i = k; i < *numEdges; i++)
    from[i] = to[i] = NULL;
  *numEdges = k;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphNodeGetDependencies(hipGraphNode_t node, hipGraphNode_t *pDependencies,
                                       size_t *pNumDependencies)
{
  if (!graph_node_valid(node) || !pNumDependencies)
    HIP_RETURN(hipErrorInvalidValue);
  list_out(node->deps.v, node->deps.n, pDependencies, pNumDependencies);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphNodeGetDependentNodes(hipGraphNode_t node, hipGraphNode_t *pDependentNodes,
                                         size_t *pNumDependentNodes)
{
  if (!graph_node_valid(node) || !pNumDependentNodes)
    HIP_RETURN(hipErrorInvalidValue);
  list_out(node->out.v, node->out.n, pDependentNodes, pNumDependentNodes);
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType *pType)
{
  if (!graph_node_valid(node) || !pType)
    HIP_RETURN(hipErrorInvalidValue);
  /* Symbol copies are memcpy nodes to the user, as in clr (whose symbol nodes are built as
   * hipGraphNodeTypeMemcpy) and CUDA (which has no other type for them). */
  bool symbol_copy = node->type == hipGraphNodeTypeMemcpyToSymbol ||
                     node->type == hipGraphNodeTypeMemcpyFromSymbol;
  *pType = (hipGraphNodeType)hip_abi_graph_node_type(symbol_copy ? hipGraphNodeTypeMemcpy : node->type);
  HIP_RETURN(hipSuccess);
}

/* ---- DOT output ----------------------------------------------------------------------------- */

static const char *node_type_name(hipGraphNodeType t)
{
  static const char *const names[] = {
      [hipGraphNodeTypeKernel] = "KERNEL",           [hipGraphNodeTypeMemcpy] = "MEMCPY",
      [hipGraphNodeTypeMemset] = "MEMSET",           [hipGraphNodeTypeHost] = "HOST",
      [hipGraphNodeTypeGraph] = "GRAPH",             [hipGraphNodeTypeEmpty] = "EMPTY",
      [hipGraphNodeTypeWaitEvent] = "WAIT_EVENT",    [hipGraphNodeTypeEventRecord] = "EVENT_RECORD",
      [hipGraphNodeTypeMemAlloc] = "MEM_ALLOC",      [hipGraphNodeTypeMemFree] = "MEM_FREE",
      [hipGraphNodeTypeMemcpyFromSymbol] = "MEMCPY_FROM_SYMBOL",
      [hipGraphNodeTypeMemcpyToSymbol] = "MEMCPY_TO_SYMBOL",
      [hipGraphNodeTypeBatchMemOp] = "BATCH_MEM_OP",
  };
  if ((unsigned)t < sizeof(names) / sizeof(names[0]) && names[t])
    return names[t];
  return "NODE";
}

static void dot_node_label(FILE *f, const struct hipGraphNode *n)
{
  switch (n->type) {
  case hipGraphNodeTypeKernel:
    fprintf(f, "\\ngrid (%u,%u,%u) block (%u,%u,%u) shmem %u", n->u.kernel.p.gridDim.x,
            n->u.kernel.p.gridDim.y, n->u.kernel.p.gridDim.z, n->u.kernel.p.blockDim.x,
            n->u.kernel.p.blockDim.y, n->u.kernel.p.blockDim.z, n->u.kernel.p.sharedMemBytes);
    break;
  case hipGraphNodeTypeMemcpy:
    fprintf(f, "\\n%p -> %p (%zu x %zu x %zu)", n->u.memcpy.p.srcPtr.ptr, n->u.memcpy.p.dstPtr.ptr,
            n->u.memcpy.p.extent.width, n->u.memcpy.p.extent.height, n->u.memcpy.p.extent.depth);
    break;
  case hipGraphNodeTypeMemset:
    fprintf(f, "\\n%p = 0x%x (%u-byte, %zu x %zu)", n->u.memset.dst, n->u.memset.value,
            n->u.memset.elementSize, n->u.memset.width, n->u.memset.height);
    break;
  default:
    break;
  }
}

/* One cluster per graph; child graphs nest. Node names are g<graph serial>_n<id>. */
static void dot_graph(FILE *f, const struct ihipGraph *g, unsigned serial, unsigned *next_serial)
{
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *n = g->nodes.v[i];
    fprintf(f, "  g%u_n%u [shape=box label=\"%s %u", serial, n->id, node_type_name(n->type), n->id);
    dot_node_label(f, n);
    fprintf(f, "\"];\n");
    if (n->type == hipGraphNodeTypeGraph) {
      unsigned child = ++*next_serial;
      fprintf(f, "  subgraph cluster_%u {\n  label=\"child of g%u_n%u\";\n", child, serial, n->id);
      dot_graph(f, n->u.child, child, next_serial);
      fprintf(f, "  }\n");
    }
  }
  for (size_t i = 0; i < g->nodes.n; i++) {
    const struct hipGraphNode *n = g->nodes.v[i];
    for (size_t k = 0; k < n->out.n; k++)
      fprintf(f, "  g%u_n%u -> g%u_n%u;\n", serial, n->id, serial, n->out.v[k]->id);
  }
}

hipError_t hipGraphDebugDotPrint(hipGraph_t graph, const char *path, unsigned int flags)
{
  (void)flags; /* every flag only adds detail; the labels always carry the main parameters */
  if (!graph_valid(graph) || !path)
    HIP_RETURN(hipErrorInvalidValue);
  FILE *f = fopen(path, "w");
  if (!f)
    HIP_RETURN(hipErrorOperatingSystem);
  unsigned serial = 0;
  fprintf(f, "digraph hipGraph {\n  compound=true;\n");
  dot_graph(f, graph, 0, &serial);
  fprintf(f, "}\n");
  HIP_RETURN(fclose(f) == 0 ? hipSuccess : hipErrorOperatingSystem);
}
