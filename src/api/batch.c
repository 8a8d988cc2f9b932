/*
 * Batched memory operations: hipMemcpyBatchAsync, hipMemcpy3DBatchAsync, and the managed-memory
 * prefetch and discard batches. Each batch is its operations enqueued in order on one stream
 * (CUDA promises no order within a batch, so any order is correct); a failure stops the batch and
 * names the failing operation in *failIdx, SIZE_MAX when no single operation is to blame.
 *
 * Discarding managed memory tells the runtime its contents are no longer needed. hipkfd's managed
 * memory does not migrate, so there is nothing to drop: a discard validates its ranges and
 * completes, and a discard-and-prefetch is the prefetch.
 */
#include <stdint.h>
#include <string.h>

#include "array.h"
#include "../runtime/error.h"
#include "../runtime/runtime.h"

static bool access_order_valid(hipMemcpySrcAccessOrder o)
{
  return o == hipMemcpySrcAccessOrderStream || o == hipMemcpySrcAccessOrderDuringApiCall ||
         o == hipMemcpySrcAccessOrderAny;
}

/* attrs[k] applies from attrsIdxs[k] up to the next index: the first must be 0, the indices
 * must rise and stay below count. */
static bool attrs_valid(const hipMemcpyAttributes *attrs, const size_t *idx, size_t n, size_t count)
{
  if (!attrs || !idx || n == 0 || n > count || idx[0] != 0)
    return false;
  for (size_t k = 0; k < n; k++) {
    if ((k && idx[k] <= idx[k - 1]) || idx[k] >= count || !access_order_valid(attrs[k].srcAccessOrder) ||
        (attrs[k].flags & ~(unsigned)hipMemcpyFlagPreferOverlapWithCompute))
      return false;
  }
  return true;
}

static void set_fail(size_t *fail, size_t i)
{
  if (fail)
    *fail = i;
}

hipError_t hipMemcpyBatchAsync(void **dsts, void **srcs, size_t *sizes, size_t count,
                               hipMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                               size_t *failIdx, hipStream_t stream)
{
  set_fail(failIdx, SIZE_MAX);
  if (!dsts || !srcs || !sizes || count == 0 || !attrs_valid(attrs, attrsIdxs, numAttrs, count))
    HIP_RETURN(hipErrorInvalidValue);
  for (size_t i = 0; i < count; i++) {
    hipError_t e = (!dsts[i] || !srcs[i]) && sizes[i] ? hipErrorInvalidValue
                   : hipMemcpyAsync(dsts[i], srcs[i], sizes[i], hipMemcpyDefault, stream);
    if (e != hipSuccess) {
      set_fail(failIdx, i);
      HIP_RETURN(e);
    }
  }
  HIP_RETURN(hipSuccess);
}

/* One operand as a 3D copy side. A pointer's row length and layer height count elements: bytes
 * unless the other side is an array, then that array's elements. */
static hipError_t operand(const hipMemcpy3DOperand *o, size_t elem, const hipExtent *ext,
                          hipPitchedPtr *ptr, hipPos *pos, hipArray_t *arr)
{
  switch (o->type) {
  case hipMemcpyOperandTypePointer: {
    if (!o->op.ptr.ptr)
      return hipErrorInvalidValue;
    size_t row = o->op.ptr.rowLength ? o->op.ptr.rowLength : ext->width;
    size_t height = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : ext->height;
    if (row < ext->width || height < ext->height)
      return hipErrorInvalidValue;
    *ptr = make_hipPitchedPtr(o->op.ptr.ptr, row * elem, ext->width * elem, height);
    *pos = make_hipPos(0, 0, 0);
    return hipSuccess;
  }
  case hipMemcpyOperandTypeArray:
    if (!hip_array_find(o->op.array.array))
      return hipErrorInvalidValue;
    *arr = o->op.array.array;
    *pos = make_hipPos(o->op.array.offset.x, o->op.array.offset.y, o->op.array.offset.z);
    return hipSuccess;
  default:
    return hipErrorInvalidValue;
  }
}

static size_t operand_elem(const hipMemcpy3DOperand *o)
{
  struct hipArray *a = o->type == hipMemcpyOperandTypeArray ? hip_array_find(o->op.array.array) : NULL;
  return a ? a->elem_size : 0;
}

static hipError_t batch_op_3d(const hipMemcpy3DBatchOp *op, hipStream_t stream)
{
  if (!access_order_valid(op->srcAccessOrder) ||
      (op->flags & ~(unsigned)hipMemcpyFlagPreferOverlapWithCompute))
    return hipErrorInvalidValue;
  size_t elem = operand_elem(&op->src);
  if (!elem)
    elem = operand_elem(&op->dst);
  if (!elem)
    elem = 1;
  hipMemcpy3DParms p;
  memset(&p, 0, sizeof(p));
  hipError_t e = operand(&op->src, elem, &op->extent, &p.srcPtr, &p.srcPos, &p.srcArray);
  if (e == hipSuccess)
    e = operand(&op->dst, elem, &op->extent, &p.dstPtr, &p.dstPos, &p.dstArray);
  if (e != hipSuccess)
    return e;
  p.extent = op->extent;
  p.kind = hipMemcpyDefault;
  return hipMemcpy3DAsync(&p, stream);
}

hipError_t hipMemcpy3DBatchAsync(size_t numOps, struct hipMemcpy3DBatchOp *opList, size_t *failIdx,
                                 unsigned long long flags, hipStream_t stream)
{
  set_fail(failIdx, SIZE_MAX);
  if (numOps == 0 || !opList || flags != 0)
    HIP_RETURN(hipErrorInvalidValue);
  for (size_t i = 0; i < numOps; i++) {
    hipError_t e = batch_op_3d(&opList[i], stream);
    if (e != hipSuccess) {
      set_fail(failIdx, i);
      HIP_RETURN(e);
    }
  }
  HIP_RETURN(hipSuccess);
}

/* prefetch_locs[k] applies from prefetch_loc_idxs[k] to the next index (as attrs above). */
static hipError_t prefetch_batch(void **ptrs, const size_t *sizes, size_t count,
                                 const hipMemLocation *locs, const size_t *idxs, size_t nlocs,
                                 unsigned long long flags, hipStream_t stream)
{
  if (!ptrs || !sizes || count == 0 || !locs || !idxs || nlocs == 0 || nlocs > count ||
      idxs[0] != 0 || flags != 0)
    return hipErrorInvalidValue;
  for (size_t k = 1; k < nlocs; k++)
    if (idxs[k] <= idxs[k - 1] || idxs[k] >= count)
      return hipErrorInvalidValue;
  size_t k = 0;
  for (size_t i = 0; i < count; i++) {
    while (k + 1 < nlocs && idxs[k + 1] <= i)
      k++;
    hipError_t e = hipMemPrefetchAsync_v2(ptrs[i], sizes[i], locs[k], 0, stream);
    if (e != hipSuccess)
      return e;
  }
  return hipSuccess;
}

static hipError_t discard_batch(void **ptrs, const size_t *sizes, size_t count,
                                unsigned long long flags)
{
  if (!ptrs || !sizes || count == 0 || flags != 0)
    return hipErrorInvalidValue;
  for (size_t i = 0; i < count; i++) {
    hipPointerAttribute_t a;
    if (!ptrs[i] || !sizes[i] || hipPointerGetAttributes(&a, ptrs[i]) != hipSuccess ||
        !a.isManaged)
      return hipErrorInvalidValue;
  }
  return hipSuccess;
}

hipError_t hipMemPrefetchBatchAsync(void **dev_ptrs, size_t *sizes, size_t count,
                                    hipMemLocation *prefetch_locs, size_t *prefetch_loc_idxs,
                                    size_t num_prefetch_locs, unsigned long long flags,
                                    hipStream_t stream)
{
  HIP_RETURN(prefetch_batch(dev_ptrs, sizes, count, prefetch_locs, prefetch_loc_idxs,
                            num_prefetch_locs, flags, stream));
}

hipError_t hipMemDiscardBatchAsync(void **dev_ptrs, size_t *sizes, size_t count,
                                   unsigned long long flags, hipStream_t stream)
{
  (void)stream;
  HIP_RETURN(discard_batch(dev_ptrs, sizes, count, flags));
}

hipError_t hipDrvMemDiscardBatchAsync(hipDeviceptr_t *dptrs, size_t *sizes, size_t count,
                                      unsigned long long flags, hipStream_t stream)
{
  (void)stream;
  HIP_RETURN(discard_batch((void **)dptrs, sizes, count, flags));
}

hipError_t hipMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                              hipMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                              size_t numPrefetchLocs, unsigned long long flags,
                                              hipStream_t stream)
{
  hipError_t e = discard_batch(dptrs, sizes, count, flags);
  if (e == hipSuccess)
    e = prefetch_batch(dptrs, sizes, count, prefetchLocs, prefetchLocIdxs, numPrefetchLocs, flags,
                       stream);
  HIP_RETURN(e);
}

hipError_t hipDrvMemDiscardAndPrefetchBatchAsync(hipDeviceptr_t *dptrs, size_t *sizes, size_t count,
                                                 hipMemLocation *prefetchLocs,
                                                 size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                 unsigned long long flags, hipStream_t stream)
{
  HIP_RETURN(hipMemDiscardAndPrefetchBatchAsync((void **)dptrs, sizes, count, prefetchLocs,
                                                prefetchLocIdxs, numPrefetchLocs, flags, stream));
}
