/* HIP graphs: copies to and from device symbols (__device__ variables). The symbol is checked at
 * node creation (it must be registered and [offset, offset + count) must lie inside it) and
 * resolved at each launch through hipMemcpyToSymbolAsync / hipMemcpyFromSymbolAsync, so the copy
 * reaches the symbol of the launch stream's device. */
#include <string.h>

#include "../runtime/error.h"
#include "graph.h"
#include "../runtime/runtime.h"
#include "../api/symbols.h"

/* The kind of a symbol copy against what the non-symbol side is (clr's
 * GraphMemcpyNodeToSymbol/FromSymbol::SetParams): unknown (pageable) memory must be the host side
 * of the kind, a device allocation device-to-device; the symbol is always the device side. A
 * mismatch is hipErrorInvalidValue towards a symbol and hipErrorInvalidMemcpyDirection from one,
 * as there. */
static hipError_t symbol_kind_check(bool to_symbol, const void *host, hipMemcpyKind kind)
{
  hipError_t bad = to_symbol ? hipErrorInvalidValue : hipErrorInvalidMemcpyDirection;
  hipMemcpyKind host_kind = to_symbol ? hipMemcpyHostToDevice : hipMemcpyDeviceToHost;
  hipMemcpyKind never = to_symbol ? hipMemcpyDeviceToHost : hipMemcpyHostToDevice;
  bool dtod = kind == hipMemcpyDeviceToDevice || kind == hipMemcpyDeviceToDeviceNoCU;
  switch (node_mem_side(host)) {
  case MEM_SIDE_UNKNOWN:
    if (kind != host_kind && kind != hipMemcpyDefault)
      return bad;
    break;
  case MEM_SIDE_DEVICE:
    if (!dtod && kind != hipMemcpyDefault)
      return bad;
    break;
  default:
    break;
  }
  return kind == hipMemcpyHostToHost || kind == never ? bad : hipSuccess;
}

static hipError_t symbol_check(bool to_symbol, const void *symbol, const void *host, size_t count,
                               size_t offset, hipMemcpyKind kind)
{
  if (!symbol)
    return hipErrorInvalidSymbol; /* clr checks the symbol first */
  if (!host || count == 0 || host == symbol)
    return hipErrorInvalidValue;
  if (!node_memcpy_kind_valid(kind))
    return hipErrorInvalidMemcpyDirection;
  struct hip_device *d = hip_device_current();
  if (!d)
    return hipErrorNoDevice;
  size_t size = 0;
  /* A symbol on both sides: clr refuses it (the copy has one symbol and one pointer). */
  if (hip_symbol_lookup(host, d, NULL, &size) == 0)
    return hipErrorInvalidValue;
  if (hip_symbol_lookup(symbol, d, NULL, &size) != 0)
    return hipErrorInvalidSymbol;
  if (offset > size || count > size - offset)
    return hipErrorInvalidValue;
  return symbol_kind_check(to_symbol, host, kind);
}

/* Fills [in] m for a copy of [in] count bytes between [in] host (the non-symbol side) and
 * [in] symbol + [in] offset; [in] to_symbol picks the direction. */
static void symbol_params(struct graph_memcpy *m, bool to_symbol, const void *symbol, void *host,
                          size_t count, size_t offset, hipMemcpyKind kind)
{
  memset(m, 0, sizeof(*m));
  m->p.extent = make_hipExtent(count, 1, 1);
  m->p.kind = kind;
  if (to_symbol)
    m->p.srcPtr = make_hipPitchedPtr(host, count, count, 1);
  else
    m->p.dstPtr = make_hipPitchedPtr(host, count, count, 1);
  m->one_d = true;
  m->symbol = symbol;
  m->offset = offset;
}

static hipError_t add_symbol_node(hipGraphNode_t *out, hipGraph_t graph, const hipGraphNode_t *deps,
                                  size_t ndeps, bool to_symbol, const void *symbol, void *host,
                                  size_t count, size_t offset, hipMemcpyKind kind)
{
  if (!out || !graph_valid(graph) || (ndeps && !deps))
    return hipErrorInvalidValue;
  hipError_t e = symbol_check(to_symbol, symbol, host, count, offset, kind);
  if (e != hipSuccess)
    return e;
  hipGraphNode_t n = node_alloc(to_symbol ? hipGraphNodeTypeMemcpyToSymbol
                                          : hipGraphNodeTypeMemcpyFromSymbol);
  if (!n)
    return hipErrorOutOfMemory;
  symbol_params(&n->u.memcpy, to_symbol, symbol, host, count, offset, kind);
  if ((e = graph_add_node(graph, n, deps, ndeps)) != hipSuccess) {
    node_free(n);
    return e;
  }
  *out = n;
  return hipSuccess;
}

hipError_t hipGraphAddMemcpyNodeToSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                         const hipGraphNode_t *pDependencies,
                                         size_t numDependencies, const void *symbol,
                                         const void *src, size_t count, size_t offset,
                                         hipMemcpyKind kind)
{
  HIP_RETURN(add_symbol_node(pGraphNode, graph, pDependencies, numDependencies, true, symbol,
                             (void *)src, count, offset, kind));
}

hipError_t hipGraphAddMemcpyNodeFromSymbol(hipGraphNode_t *pGraphNode, hipGraph_t graph,
                                           const hipGraphNode_t *pDependencies,
                                           size_t numDependencies, void *dst, const void *symbol,
                                           size_t count, size_t offset, hipMemcpyKind kind)
{
  HIP_RETURN(add_symbol_node(pGraphNode, graph, pDependencies, numDependencies, false, symbol, dst,
                             count, offset, kind));
}

/* Sets new parameters on [in] n, a symbol-copy node of the matching direction. */
static hipError_t set_symbol(hipGraphNode_t n, bool to_symbol, const void *symbol, void *host,
                             size_t count, size_t offset, hipMemcpyKind kind)
{
  hipGraphNodeType want = to_symbol ? hipGraphNodeTypeMemcpyToSymbol
                                    : hipGraphNodeTypeMemcpyFromSymbol;
  if (!graph_node_valid(n) || n->type != want)
    return hipErrorInvalidValue;
  hipError_t e = symbol_check(to_symbol, symbol, host, count, offset, kind);
  if (e == hipSuccess)
    symbol_params(&n->u.memcpy, to_symbol, symbol, host, count, offset, kind);
  return e;
}

hipError_t hipGraphMemcpyNodeSetParamsToSymbol(hipGraphNode_t node, const void *symbol,
                                               const void *src, size_t count, size_t offset,
                                               hipMemcpyKind kind)
{
  HIP_RETURN(set_symbol(node, true, symbol, (void *)src, count, offset, kind));
}

hipError_t hipGraphMemcpyNodeSetParamsFromSymbol(hipGraphNode_t node, void *dst,
                                                 const void *symbol, size_t count, size_t offset,
                                                 hipMemcpyKind kind)
{
  HIP_RETURN(set_symbol(node, false, symbol, dst, count, offset, kind));
}

hipError_t hipGraphExecMemcpyNodeSetParamsToSymbol(hipGraphExec_t hGraphExec, hipGraphNode_t node,
                                                   const void *symbol, const void *src,
                                                   size_t count, size_t offset, hipMemcpyKind kind)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeMemcpyToSymbol, &n));
  if (symbol && kind != n->u.memcpy.p.kind)
    HIP_RETURN(hipErrorInvalidValue); /* an executable's copy keeps its direction (clr) */
  HIP_RETURN(set_symbol(n, true, symbol, (void *)src, count, offset, kind));
}

hipError_t hipGraphExecMemcpyNodeSetParamsFromSymbol(hipGraphExec_t hGraphExec,
                                                     hipGraphNode_t node, void *dst,
                                                     const void *symbol, size_t count,
                                                     size_t offset, hipMemcpyKind kind)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, node, hipGraphNodeTypeMemcpyFromSymbol, &n));
  if (symbol && kind != n->u.memcpy.p.kind)
    HIP_RETURN(hipErrorInvalidValue); /* an executable's copy keeps its direction (clr) */
  HIP_RETURN(set_symbol(n, false, symbol, dst, count, offset, kind));
}
