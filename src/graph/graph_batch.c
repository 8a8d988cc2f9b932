/* HIP graphs: batched stream memory operation nodes (hipGraphAddBatchMemOpNode and its get/set
 * calls). A node keeps its own copy of the operations (CUDA copies the array at node creation);
 * a launch hands them to hipStreamBatchMemOp on the launch stream, so waits, writes and
 * barriers keep the orderings stream_memops.c gives them. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/error.h"
#include "graph.h"

/* hipStreamBatchMemOp's limit (stream_memops.c MEMOP_BATCH_MAX). */
#define BATCH_NODE_MAX_OPS 256

static bool op_valid(const hipStreamBatchMemOpParams *op)
{
  switch (op->operation) {
  case hipStreamMemOpWaitValue32:
  case hipStreamMemOpWaitValue64:
    return op->waitValue.address != NULL;
  case hipStreamMemOpWriteValue32:
  case hipStreamMemOpWriteValue64:
    return op->writeValue.address != NULL;
  case hipStreamMemOpBarrier:
  case hipStreamMemOpFlushRemoteWrites:
    return true;
  default:
    return false;
  }
}

static hipError_t params_check(const hipBatchMemOpNodeParams *p)
{
  if (!p || !p->paramArray || p->count == 0 || p->count > BATCH_NODE_MAX_OPS || p->flags != 0)
    return hipErrorInvalidValue;
  for (unsigned i = 0; i < p->count; i++)
    if (!op_valid(&p->paramArray[i]))
      return hipErrorInvalidValue;
  return hipSuccess;
}

/* Replaces [in] b's operations with a copy of [in] p's (checked). */
static hipError_t batch_set(struct graph_batch *b, const hipBatchMemOpNodeParams *p)
{
  hipStreamBatchMemOpParams *ops = malloc(p->count * sizeof(*ops));
  if (!ops)
    return hipErrorOutOfMemory;
  memcpy(ops, p->paramArray, p->count * sizeof(*ops));
  free(b->ops);
  b->ops = ops;
  b->p = *p;
  b->p.paramArray = ops;
  return hipSuccess;
}

void node_batch_clear(struct graph_batch *b)
{
  free(b->ops);
  b->ops = NULL;
}

hipError_t node_batch_copy(struct graph_batch *dst, const struct graph_batch *src)
{
  dst->ops = NULL;
  return batch_set(dst, &src->p);
}

hipError_t node_batch_launch(const struct graph_batch *b, hipStream_t stream)
{
  return hipStreamBatchMemOp(stream, b->p.count, b->ops, b->p.flags);
}

hipError_t hipGraphAddBatchMemOpNode(hipGraphNode_t *phGraphNode, hipGraph_t hGraph,
                                     const hipGraphNode_t *dependencies, size_t numDependencies,
                                     const hipBatchMemOpNodeParams *nodeParams)
{
  if (!phGraphNode || !graph_valid(hGraph) || (numDependencies && !dependencies))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(params_check(nodeParams));
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeBatchMemOp);
  if (!n)
    HIP_RETURN(hipErrorOutOfMemory);
  hipError_t e = batch_set(&n->u.batch, nodeParams);
  if (e == hipSuccess)
    e = graph_add_node(hGraph, n, dependencies, numDependencies);
  if (e != hipSuccess) {
    node_free(n);
    HIP_RETURN(e);
  }
  *phGraphNode = n;
  HIP_RETURN(hipSuccess);
}

static bool is_batch_node(hipGraphNode_t n)
{
  return graph_node_valid(n) && n->type == hipGraphNodeTypeBatchMemOp;
}

/* The parameters as stored: paramArray is the node's own copy, valid while the node lives and its
 * parameters are not set again. */
hipError_t hipGraphBatchMemOpNodeGetParams(hipGraphNode_t hNode,
                                           hipBatchMemOpNodeParams *nodeParams_out)
{
  if (!is_batch_node(hNode) || !nodeParams_out)
    HIP_RETURN(hipErrorInvalidValue);
  *nodeParams_out = hNode->u.batch.p;
  HIP_RETURN(hipSuccess);
}

hipError_t hipGraphBatchMemOpNodeSetParams(hipGraphNode_t hNode,
                                           hipBatchMemOpNodeParams *nodeParams)
{
  if (!is_batch_node(hNode))
    HIP_RETURN(hipErrorInvalidValue);
  HIP_RETURN_IF_ERROR(params_check(nodeParams));
  HIP_RETURN(batch_set(&hNode->u.batch, nodeParams));
}

hipError_t hipGraphExecBatchMemOpNodeSetParams(hipGraphExec_t hGraphExec, hipGraphNode_t hNode,
                                               const hipBatchMemOpNodeParams *nodeParams)
{
  hipGraphNode_t n;
  HIP_RETURN_IF_ERROR(graph_exec_node(hGraphExec, hNode, hipGraphNodeTypeBatchMemOp, &n));
  HIP_RETURN_IF_ERROR(params_check(nodeParams));
  HIP_RETURN(batch_set(&n->u.batch, nodeParams));
}
