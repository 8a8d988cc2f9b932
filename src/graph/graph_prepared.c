/* HIP graphs: prepared launches. An executable graph made only of kernel and empty nodes (child
 * graphs of the same included) gets its work built once, when it is instantiated and again at its
 * first launch after a change (exec updates, node parameters, enabling): every kernel's kernarg
 * block in one pinned buffer of its own and every dispatch packet in host memory, in the
 * executable's topological order, each with the barrier bit (one after the other, as the replay
 * on one stream runs them). A launch then hands the packets to the graph's own AQL ring in one
 * bulk copy (runtime/batch_submit.c), ordered after the stream's earlier work by a barrier-AND
 * packet, its completion becoming the stream's tail; the ring holds two launches, so a graph
 * larger than the stream's ring never makes the launching thread wait for the GPU.
 *
 * Kernarg blocks are read by the GPU until the launch that uses them completes; they do not
 * change between launches (the packets name the same blocks every time), and a rebuild while a
 * launch is in flight writes a new buffer and retires the old one until that launch's fence is
 * done. Graphs with other nodes, launches on another device than the one prepared, and launches
 * while a recorder of kernel timestamps is installed (each kernel then gets its own span) take
 * the replay in graph_exec.c. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "graph_prepared.h"
#include "../api/loader_api.h"
#include "../memory/mem.h"
#include "../queues/aql.h"
#include "../runtime/activity.h"
#include "../runtime/batch_submit.h"
#include "../runtime/error.h"
#include "../runtime/internal.h"
#include "../runtime/runtime.h"

/* Graphs with fewer kernels than this replay: their launch call is already short, and a ring of
 * their own would cost each instantiation a queue creation and each synchronize the wake-up of
 * another queue. HIPKFD_GRAPH_PREPARE_MIN overrides it (tests set 1 to prepare every graph). */
#define PREPARE_MIN_DEFAULT 32u

static uint32_t prepare_min(void)
{
  static _Atomic long cached = -1;
  long v = atomic_load_explicit(&cached, memory_order_relaxed);
  if (v < 0) {
    const char *e = getenv("HIPKFD_GRAPH_PREPARE_MIN");
    char *end;
    v = e && *e ? strtol(e, &end, 10) : -1;
    if (v < 0 || v > (1l << 20) || !e || *end)
      v = PREPARE_MIN_DEFAULT;
    atomic_store_explicit(&cached, v, memory_order_relaxed);
  }
  return (uint32_t)v;
}

/* A kernarg buffer still read by a launch in flight. */
struct retired_args {
  void *mem;
  struct hip_fence *f;
};

struct graph_prepared {
  pthread_mutex_t lock;         /* launches and rebuilds of one executable */
  struct hip_device *dev;
  bool stale;                   /* nodes changed since the packets were built */
  bool unfit;                   /* a node the fast path cannot take: replay */
  struct aql_queue *queue;      /* the graph's own ring (lazily, at the first build) */
  uint32_t epoch;               /* dev->fault_epoch when the ring was made */
  uint32_t slots;               /* kernel nodes the ring was sized for */
  uint8_t *image;               /* HIP_BATCH_HEAD + slots packets, 64-byte aligned */
  struct hip_batch batch;
  void *args;                   /* pinned kernarg buffer, args_size bytes */
  size_t args_size;
  struct retired_args *retired;
  unsigned nretired;
};

/* The ring: two launches and their heads, a power of two. */
static int prep_queue(struct graph_prepared *p, size_t kernels)
{
  if (p->queue)
    return kernels <= p->slots ? 0 : -E2BIG;
  if (kernels > (1u << 18))
    return -E2BIG;
  uint32_t need = 2 * (HIP_BATCH_HEAD + (uint32_t)kernels), ring = 64;
  while (ring < need)
    ring *= 2;
  size_t bytes = (size_t)(HIP_BATCH_HEAD + kernels + 1) * 64;
  p->image = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  if (!p->image)
    return -ENOMEM;
  int err = aql_queue_create_bare(p->dev->gpu, ring, 0, &p->queue);
  if (err) {
    free(p->image);
    p->image = NULL;
    return err;
  }
  p->slots = (uint32_t)kernels;
  p->epoch = atomic_load_explicit(&p->dev->fault_epoch, memory_order_acquire);
  p->batch = (struct hip_batch){.queue = p->queue, .packets = p->image + HIP_BATCH_HEAD * 64,
                                .head = HIP_BATCH_HEAD};
  return 0;
}

/* Free the retired buffers whose launches completed. */
static void retired_reap(struct graph_prepared *p, bool all)
{
  unsigned k = 0;
  for (unsigned i = 0; i < p->nretired; i++) {
    struct retired_args *r = &p->retired[i];
    if (all || hip_fence_done(r->f)) {
      mem_free(r->mem);
      hip_fence_put(r->f);
    } else {
      p->retired[k++] = *r;
    }
  }
  p->nretired = k;
}

/* A kernarg buffer of [in] size the GPU reads no more: the current one when no launch of it is
 * in flight and it is large enough, else a new one (the old one retired). */
static int args_buffer(struct graph_prepared *p, size_t size)
{
  retired_reap(p, false);
  bool busy = p->batch.last && !hip_fence_done(p->batch.last);
  if (p->args && size <= p->args_size && !busy)
    return 0;
  void *mem;
  int err = mem_alloc(p->dev->gpu, size ? size : 64, MEM_HOST_PINNED, MEM_FLAG_COHERENT, &mem);
  if (err)
    return err;
  if (p->args) {
    struct retired_args *r = busy ? realloc(p->retired, (p->nretired + 1) * sizeof(*r)) : NULL;
    if (busy && !r) {
      mem_free(mem);
      return -ENOMEM;
    }
    if (busy) {
      p->retired = r;
      r[p->nretired++] = (struct retired_args){p->args, hip_fence_get(p->batch.last)};
    } else {
      mem_free(p->args);
    }
  }
  p->args = mem;
  p->args_size = size ? size : 64;
  return 0;
}

/* Prepare [in] k (n kernels) into [in] staging (AQL_KERNARG_SLOT_SIZE bytes per kernel),
 * [out] disp and offsets of each, [out] total bytes used. */
static hipError_t prep_kernels(struct graph_prepared *p, const struct graph_prep_kernel *k,
                               size_t n, uint8_t *staging, struct aql_dispatch *disp,
                               size_t *offset, size_t *total)
{
  uint64_t queue_va = aql_queue_va(p->queue);
  size_t off = 0;
  for (size_t i = 0; i < n; i++) {
    struct hip_launch hl = {.function = k[i].fn, .grid = k[i].grid, .block = k[i].block,
                            .shared_mem = k[i].shared_mem,
                            .arg_buffer = k[i].args_size ? k[i].args : NULL,
                            .arg_buffer_size = k[i].args_size};
    uint32_t size;
    hipError_t e = hip_launch_prepare(&hl, p->dev, queue_va, staging + off, &disp[i], &size);
    if (e != hipSuccess)
      return e;
    if (aql_dispatch_check(p->queue, &disp[i]))
      return hipErrorNotSupported;
    offset[i] = off;
    off += size;
  }
  *total = off;
  return hipSuccess;
}

/* Build the packets and kernarg blocks of the kernels the callback lists. Sets p->unfit when
 * the graph cannot take the fast path. */
static void prep_build(struct graph_prepared *p, graph_prep_list_fn list, void *ctx)
{
  struct graph_prep_kernel *k = NULL;
  size_t n = 0, n_all = 0, total = 0;
  uint8_t *staging = NULL;
  struct aql_dispatch *disp = NULL;
  size_t *offset = NULL;

  p->stale = false;
  bool fit = list(ctx, &k, &n, &n_all) == 0 && n_all >= prepare_min() &&
             prep_queue(p, n_all) == 0;
  if (fit && n) {
    staging = aligned_alloc(64, n * AQL_KERNARG_SLOT_SIZE);
    disp = malloc(n * sizeof(*disp));
    offset = malloc(n * sizeof(*offset));
    fit = staging && disp && offset &&
          prep_kernels(p, k, n, staging, disp, offset, &total) == hipSuccess &&
          args_buffer(p, total) == 0;
  }
  if (fit) {
    memcpy(p->args, staging, total);
    for (size_t i = 0; i < n; i++)
      aql_packet_dispatch(p->batch.packets + i * 64, &disp[i],
                          (uint64_t)(uintptr_t)p->args + offset[i], 0, true);
    p->batch.n = (uint32_t)n;
  }
  p->unfit = !fit;
  free(staging);
  free(disp);
  free(offset);
  free(k);
}

struct graph_prepared *graph_prep_create(graph_prep_list_fn list, void *ctx)
{
  struct hip_device *d = hip_device_current();
  struct graph_prepared *p = d ? calloc(1, sizeof(*p)) : NULL;
  if (!p)
    return NULL; /* no device or no memory: the replay */
  pthread_mutex_init(&p->lock, NULL);
  p->dev = d;
  prep_build(p, list, ctx);
  return p;
}

void graph_prep_stale(struct graph_prepared *p)
{
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  p->stale = true;
  pthread_mutex_unlock(&p->lock);
}

/* A hipDeviceReset ended a fault since the ring was made: the ring may be stopped (a fault stops
 * every queue of the process) and its last launches never complete. Abandon it with what those
 * launches held (nothing reads them any more) and build anew on a fresh ring, as the reset did
 * for the streams' queues. */
static void prep_restart(struct graph_prepared *p)
{
  if (!p->queue ||
      p->epoch == atomic_load_explicit(&p->dev->fault_epoch, memory_order_acquire))
    return;
  aql_queue_abandon(p->queue);
  p->queue = NULL;
  p->slots = 0;
  hip_batch_holds_release(&p->batch.holds);
  hip_fence_put(p->batch.last);
  p->batch = (struct hip_batch){0};
  retired_reap(p, true);
  free(p->image);
  p->image = NULL;
  p->stale = true;
}

hipError_t graph_prep_launch(struct graph_prepared *p, struct hip_stream *s,
                             graph_prep_list_fn list, void *ctx)
{
  if (!p || s->device != p->dev || hip_activity())
    return hipErrorNotSupported;
  pthread_mutex_lock(&p->lock);
  prep_restart(p);
  if (p->stale)
    prep_build(p, list, ctx);
  hipError_t e = hipErrorNotSupported;
  if (!p->unfit) {
    int err = p->batch.n ? hip_stream_submit_batch(s, &p->batch) : 0;
    e = err ? hip_error_from_errno(err) : hipSuccess;
  }
  pthread_mutex_unlock(&p->lock);
  return e;
}

void graph_prep_destroy(struct graph_prepared *p)
{
  if (!p)
    return;
  prep_restart(p); /* a ring from before a reset: abandoned, nothing to wait for */
  bool dead = hip_fault_known() != 0;
  /* Launches in flight still read the ring and the kernarg blocks. A failed context's queues
   * never drain: abandon the ring (its buffers go, the struct stays) and keep the kernargs. */
  if (p->batch.last && !dead && hip_fence_wait(p->batch.last, hip_device_blocking(p->dev)))
    dead = true;
  if (p->queue) {
    if (dead)
      aql_queue_abandon(p->queue);
    else
      aql_queue_destroy(p->queue);
  }
  hip_batch_holds_release(&p->batch.holds);
  hip_fence_put(p->batch.last);
  retired_reap(p, !dead);
  if (!dead)
    mem_free(p->args);
  free(p->retired);
  free(p->image);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
