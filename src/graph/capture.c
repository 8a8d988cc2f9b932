/* Stream capture (hipStreamBeginCapture ... hipStreamEndCapture): capture sequences, the streams
 * taking part in them, events recorded during them, and the hooks of capture.h. Semantics and
 * error codes follow CUDA's stream-capture rules as ROCm clr implements them
 * (hipamd/src/hip_graph.cpp, hip_stream.cpp). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "../runtime/error.h"
#include "graph.h"
#include "../runtime/runtime.h"

/* One capture sequence: begun on its origin stream, possibly joined by others. */
struct capture_seq {
  unsigned long long id;
  hipStreamCaptureMode mode;
  pthread_t thread;            /* the thread that began it */
  struct ihipGraph *graph;     /* where nodes go */
  bool owns_graph;             /* false for hipStreamBeginCaptureToGraph */
  bool invalidated;
  struct hip_stream *origin;
};

/* A stream taking part in a capture. */
struct capture_stream {
  struct hip_stream *stream;
  struct capture_seq *seq;
  struct node_list deps;       /* what the next captured operation depends on */
  struct capture_stream *next;
};

/* An event recorded in a capturing stream: the nodes a later wait depends on. */
struct captured_event {
  hipEvent_t event;
  struct capture_seq *seq;
  struct node_list nodes;
  struct captured_event *next;
};

/* Captures in progress begun in hipStreamCaptureModeGlobal; protected by capture_lock. */
static int global_captures;
static unsigned long long next_capture_id = 1;
static struct capture_stream *streams;  /* protected by capture_lock */
static struct captured_event *events;   /* protected by capture_lock */
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;

/* The calling thread's capture interaction mode (hipThreadExchangeStreamCaptureMode). */
static HIP_TLS hipStreamCaptureMode thread_mode = hipStreamCaptureModeGlobal;
/* > 0 while this thread runs calls made by the capture machinery itself (graph memory). */
static HIP_TLS int internal_calls;

/* ---- lookups (capture_lock held) --------------------------------------------------------------- */

static struct capture_stream *stream_find(const struct hip_stream *s)
{
  for (struct capture_stream *c = streams; c; c = c->next)
    if (c->stream == s)
      return c;
  return NULL;
}

static struct captured_event *event_find(hipEvent_t e)
{
  for (struct captured_event *c = events; c; c = c->next)
    if (c->event == e)
      return c;
  return NULL;
}

static void event_drop(hipEvent_t e)
{
  for (struct captured_event **p = &events; *p; p = &(*p)->next) {
    if ((*p)->event == e) {
      struct captured_event *c = *p;
      *p = c->next;
      free(c->nodes.v);
      free(c);
      return;
    }
  }
}

/* A blocking stream (one the legacy stream synchronises with) is capturing. */
static struct capture_stream *blocking_capture(void)
{
  for (struct capture_stream *c = streams; c; c = c->next)
    if (!(c->stream->flags & hipStreamNonBlocking))
      return c;
  return NULL;
}

static void stream_leave(struct capture_stream *cs)
{
  for (struct capture_stream **p = &streams; *p; p = &(*p)->next) {
    if (*p == cs) {
      *p = cs->next;
      break;
    }
  }
  free(cs->deps.v);
  free(cs);
  atomic_fetch_sub_explicit(&hip_capture_streams, 1, memory_order_relaxed);
}

static struct capture_stream *stream_join(struct hip_stream *s, struct capture_seq *seq)
{
  struct capture_stream *cs = calloc(1, sizeof(*cs));
  if (!cs)
    return NULL;
  cs->stream = s;
  cs->seq = seq;
  cs->next = streams;
  streams = cs;
  atomic_fetch_add_explicit(&hip_capture_streams, 1, memory_order_relaxed);
  return cs;
}

/* Replaces [in] l by a copy of [in] n entries of [in] v. 0 or -1 on ENOMEM. */
static int list_assign(struct node_list *l, hipGraphNode_t const *v, size_t n)
{
  l->n = 0;
  for (size_t i = 0; i < n; i++)
    if (!node_list_has(l, v[i]) && node_list_push(l, v[i]))
      return -1;
  return 0;
}

/* Ends [in] seq: every stream leaves it, its events are forgotten. Returns its graph (owned by
 * the caller) or NULL when the capture was invalidated; then [out] discard is the graph to free
 * (ours, or NULL) once capture_lock is released (freeing graph memory calls hipFree, whose
 * capture check takes the lock). */
static struct ihipGraph *seq_end(struct capture_seq *seq, struct ihipGraph **discard)
{
  *discard = NULL;
  for (struct capture_stream *c = streams, *next; c; c = next) {
    next = c->next;
    if (c->seq == seq)
      stream_leave(c);
  }
  for (struct captured_event *e = events, *next; e; e = next) {
    next = e->next;
    if (e->seq == seq)
      event_drop(e->event);
  }
  if (seq->mode == hipStreamCaptureModeGlobal)
    global_captures--;
  struct ihipGraph *g = seq->graph;
  if (seq->invalidated) {
    if (seq->owns_graph)
      *discard = g;
    g = NULL;
  }
  free(seq);
  return g;
}

/* Frees a graph dropped by seq_end (capture_lock not held). */
static void discard_graph(struct ihipGraph *g)
{
  internal_calls++;
  graph_free(g);
  internal_calls--;
}

/* ---- hooks --------------------------------------------------------------------------------------- */

bool graph_capture_lookup(hipStream_t stream)
{
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return false;
  pthread_mutex_lock(&capture_lock);
  bool hit = stream_find(s) || (s->is_null && blocking_capture());
  pthread_mutex_unlock(&capture_lock);
  return hit;
}

/* The capture state of [in] stream for a new operation, with capture_lock held on success.
 * Errors: the legacy stream meeting a blocking capture (Implicit, which invalidates it), an
 * invalidated capture, or a stream that stopped capturing meanwhile (hipErrorIllegalState is not
 * right there: the operation simply cannot be captured, so it reports Invalidated). */
static hipError_t capture_begin_op(hipStream_t stream, struct capture_stream **out)
{
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return hipErrorInvalidHandle;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  if (!cs) {
    struct capture_stream *b = s->is_null ? blocking_capture() : NULL;
    if (b)
      b->seq->invalidated = true;
    pthread_mutex_unlock(&capture_lock);
    return b ? hipErrorStreamCaptureImplicit : hipErrorStreamCaptureInvalidated;
  }
  if (cs->seq->invalidated) {
    pthread_mutex_unlock(&capture_lock);
    return hipErrorStreamCaptureInvalidated;
  }
  *out = cs;
  return hipSuccess;
}

/* Adds [in] n (built by the caller) to the capture of [in] cs after the stream's dependencies;
 * the stream then depends on n alone. Releases capture_lock. */
static hipError_t capture_add(struct capture_stream *cs, hipGraphNode_t n, hipError_t built)
{
  hipError_t e = built;
  if (e == hipSuccess && !n)
    e = hipErrorOutOfMemory;
  if (e == hipSuccess)
    e = graph_add_node(cs->seq->graph, n, cs->deps.v, cs->deps.n);
  if (e == hipSuccess && list_assign(&cs->deps, &n, 1)) {
    cs->seq->invalidated = true; /* the dependency set is lost: the capture cannot go on */
    e = hipErrorOutOfMemory;
  }
  pthread_mutex_unlock(&capture_lock);
  if (e != hipSuccess && n && n->graph == NULL) {
    internal_calls++;
    node_free(n);
    internal_calls--;
  }
  return e;
}

hipError_t graph_capture_kernel(hipStream_t stream, const void *stub, hipFunction_t fn, dim3 grid,
                              dim3 block, void **args, void **extra, size_t shmem)
{
  struct capture_stream *cs;
  hipError_t e = capture_begin_op(stream, &cs);
  if (e != hipSuccess)
    return e;
  if (shmem > UINT32_MAX) {
    pthread_mutex_unlock(&capture_lock);
    return hipErrorInvalidValue;
  }
  hipKernelNodeParams p = {.blockDim = block, .extra = extra,
                           .func = stub ? (void *)stub : (void *)fn, .gridDim = grid,
                           .kernelParams = args, .sharedMemBytes = (unsigned)shmem};
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeKernel);
  return capture_add(cs, n, n ? node_kernel_set(&n->u.kernel, &p) : hipErrorOutOfMemory);
}

hipError_t graph_capture_memcpy(hipStream_t stream, void *dst, const void *src, size_t size,
                              hipMemcpyKind kind)
{
  struct capture_stream *cs;
  hipError_t e = capture_begin_op(stream, &cs);
  if (e != hipSuccess)
    return e;
  if (size == 0) {
    pthread_mutex_unlock(&capture_lock);
    return hipSuccess; /* nothing to do, nothing to order */
  }
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemcpy);
  if (n) {
    n->u.memcpy.p = node_memcpy_1d(dst, src, size, kind);
    n->u.memcpy.one_d = true;
  }
  return capture_add(cs, n, hipSuccess);
}

hipError_t graph_capture_memcpy3d(hipStream_t stream, const hipMemcpy3DParms *p)
{
  hipError_t e = node_memcpy_check(p);
  if (e != hipSuccess)
    return e;
  struct capture_stream *cs;
  if ((e = capture_begin_op(stream, &cs)) != hipSuccess)
    return e;
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemcpy);
  if (n)
    n->u.memcpy.p = *p;
  return capture_add(cs, n, hipSuccess);
}

hipError_t graph_capture_memset(hipStream_t stream, void *dst, size_t pitch, unsigned value,
                              unsigned esize, size_t width, size_t height)
{
  if (width == 0 || height == 0)
    return hipSuccess;
  hipMemsetParams m = {.dst = dst, .elementSize = esize, .height = height,
                       .pitch = height > 1 ? pitch : width * esize, .value = value, .width = width};
  hipError_t e = node_memset_check(&m);
  if (e != hipSuccess)
    return e;
  struct capture_stream *cs;
  if ((e = capture_begin_op(stream, &cs)) != hipSuccess)
    return e;
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeMemset);
  if (n)
    n->u.memset = m;
  return capture_add(cs, n, hipSuccess);
}

hipError_t graph_capture_host_func(hipStream_t stream, hipHostFn_t fn, void *user_data)
{
  if (!fn)
    return hipErrorInvalidValue;
  struct capture_stream *cs;
  hipError_t e = capture_begin_op(stream, &cs);
  if (e != hipSuccess)
    return e;
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeHost);
  if (n)
    n->u.host = (hipHostNodeParams){.fn = fn, .userData = user_data};
  return capture_add(cs, n, hipSuccess);
}

hipError_t graph_capture_malloc(hipStream_t stream, void **ptr, size_t size)
{
  if (!ptr || size == 0)
    return hipErrorInvalidValue;
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return hipErrorInvalidHandle;
  hipMemAllocNodeParams p = {0};
  p.poolProps.allocType = hipMemAllocationTypePinned;
  p.poolProps.location.type = hipMemLocationTypeDevice;
  p.poolProps.location.id = hip_stream_device(s)->ordinal;
  p.bytesize = size;
  /* Allocated before taking capture_lock (hipMalloc checks captures itself), and exempt from the
   * unsafe-call rule: this allocation is the capture's own. */
  hipGraphNode_t n = NULL;
  internal_calls++;
  hipError_t e = graph_mem_alloc_node(&p, &n);
  internal_calls--;
  if (e != hipSuccess)
    return e;
  struct capture_stream *cs;
  if ((e = capture_begin_op(stream, &cs)) != hipSuccess) {
    internal_calls++;
    node_free(n);
    internal_calls--;
    return e;
  }
  *ptr = n->u.mem->ptr;
  return capture_add(cs, n, hipSuccess);
}

hipError_t graph_capture_free(hipStream_t stream, void *ptr)
{
  struct capture_stream *cs;
  hipError_t e = capture_begin_op(stream, &cs);
  if (e != hipSuccess)
    return e;
  hipGraphNode_t n = NULL;
  e = graph_mem_free_node(cs->seq->graph, ptr, &n);
  if (e == hipErrorInvalidValue && ptr)
    e = hipErrorNotSupported; /* memory from outside this capture: not modelled */
  return capture_add(cs, n, e);
}

hipError_t graph_capture_graph(hipStream_t stream, const struct ihipGraph *g)
{
  struct capture_stream *cs;
  hipError_t e = capture_begin_op(stream, &cs);
  if (e != hipSuccess)
    return e;
  hipGraphNode_t n = node_alloc(hipGraphNodeTypeGraph);
  if (n && !(n->u.child = graph_clone(g))) {
    node_free(n);
    n = NULL;
  }
  return capture_add(cs, n, hipSuccess);
}

/* ---- events ------------------------------------------------------------------------------------- */

bool graph_capture_event_record(hipEvent_t event, hipStream_t stream, unsigned flags, hipError_t *err)
{
  if (!event)
    return false; /* the normal path reports the bad handle */
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return false;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  if (!cs) {
    event_drop(event); /* recorded outside capture again: no longer a captured event */
    pthread_mutex_unlock(&capture_lock);
    if (s->is_null && hip_capture_active(stream)) {
      *err = capture_begin_op(stream, &cs); /* Implicit: legacy stream vs blocking capture */
      return true;
    }
    return false;
  }
  if (cs->seq->invalidated) {
    pthread_mutex_unlock(&capture_lock);
    *err = hipErrorStreamCaptureInvalidated;
    return true;
  }
  if (flags & hipEventRecordExternal) {
    /* An external record is a node of its own: the event fires when the graph runs. */
    hipGraphNode_t n = node_alloc(hipGraphNodeTypeEventRecord);
    if (n)
      n->u.event = event;
    *err = capture_add(cs, n, hipSuccess);
    return true;
  }
  struct captured_event *ce = event_find(event);
  if (!ce && (ce = calloc(1, sizeof(*ce)))) {
    ce->event = event;
    ce->next = events;
    events = ce;
  }
  *err = hipSuccess;
  if (!ce || list_assign(&ce->nodes, cs->deps.v, cs->deps.n))
    *err = hipErrorOutOfMemory;
  else
    ce->seq = cs->seq;
  pthread_mutex_unlock(&capture_lock);
  return true;
}

/* [in] cs waits for [in] ce's nodes: the union of both dependency sets. */
static hipError_t deps_merge(struct capture_stream *cs, const struct captured_event *ce)
{
  /* The origin waiting on work joins it for good, even if its dependencies are later replaced
   * (hipStreamUpdateCaptureDependencies). */
  bool origin = cs->seq->origin == cs->stream;
  for (size_t i = 0; i < ce->nodes.n; i++)
    ce->nodes.v[i]->capture_joined |= origin;
  for (size_t i = 0; i < ce->nodes.n; i++)
    if (!node_list_has(&cs->deps, ce->nodes.v[i]) && node_list_push(&cs->deps, ce->nodes.v[i]))
      return hipErrorOutOfMemory;
  return hipSuccess;
}

bool graph_capture_wait_event(hipStream_t stream, hipEvent_t event, unsigned flags, hipError_t *err)
{
  if (!event)
    return false;
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return false;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  struct captured_event *ce = event_find(event);
  bool handled = true;
  if (ce && cs && cs->seq != ce->seq) {
    *err = hipErrorStreamCaptureIsolation; /* two capture sequences cannot be merged */
  } else if (ce && cs) {
    *err = cs->seq->invalidated ? hipErrorStreamCaptureInvalidated : deps_merge(cs, ce);
  } else if (ce) {
    /* Fork: a stream outside any capture waits on a captured event and joins that capture. */
    if (s->is_null) {
      ce->seq->invalidated = true;
      *err = hipErrorStreamCaptureImplicit;
    } else if (!(cs = stream_join(s, ce->seq))) {
      *err = hipErrorOutOfMemory;
    } else {
      *err = deps_merge(cs, ce);
    }
  } else if (cs) {
    /* A capturing stream waits on an event recorded outside capture: only as an external
     * wait node (hipEventWaitExternal); anything else would depend on uncaptured work. */
    if (!(flags & hipEventWaitExternal)) {
      *err = hipErrorStreamCaptureIsolation;
    } else {
      hipGraphNode_t n = node_alloc(hipGraphNodeTypeWaitEvent);
      if (n)
        n->u.event = event;
      *err = capture_add(cs, n, hipSuccess);
      return true; /* capture_add released the lock */
    }
  } else {
    handled = false;
  }
  pthread_mutex_unlock(&capture_lock);
  return handled;
}

/* ---- checks ------------------------------------------------------------------------------------- */

/* The "potentially unsafe call" rule (capture_lock held): by the calling thread's mode
 * (hipThreadExchangeStreamCaptureMode), Relaxed allows everything; otherwise this thread's own
 * non-relaxed captures forbid the call, and in Global mode so does any thread's global capture.
 * The captures that forbid it are invalidated, as clr's CHECK_STREAM_CAPTURE_SUPPORTED does (an
 * unsafe call in another thread during a global capture also ends that capture in error). */
static hipError_t unsafe_check_locked(void)
{
  if (thread_mode == hipStreamCaptureModeRelaxed || internal_calls)
    return hipSuccess;
  hipError_t e = hipSuccess;
  pthread_t self = pthread_self();
  for (struct capture_stream *c = streams; c; c = c->next) {
    if (c->seq->mode != hipStreamCaptureModeRelaxed && pthread_equal(c->seq->thread, self)) {
      c->seq->invalidated = true;
      e = hipErrorStreamCaptureUnsupported;
    }
  }
  if (thread_mode == hipStreamCaptureModeGlobal && global_captures > 0) {
    for (struct capture_stream *c = streams; c; c = c->next)
      if (c->seq->mode == hipStreamCaptureModeGlobal)
        c->seq->invalidated = true;
    e = hipErrorStreamCaptureUnsupported;
  }
  return e;
}

hipError_t graph_capture_sync_check(hipStream_t stream)
{
  if (!hip_capture_any())
    return hipSuccess;
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return hipSuccess; /* the caller reports the bad handle */
  hipError_t e = hipSuccess;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  if (cs) {
    cs->seq->invalidated = true;
    e = hipErrorStreamCaptureUnsupported;
  } else if (s->is_null && (cs = blocking_capture())) {
    cs->seq->invalidated = true;
    e = hipErrorStreamCaptureImplicit;
  } else if (!s->is_null) {
    /* Waiting for a stream that is not capturing is still a potentially unsafe call (clr's
     * Stream::StreamCaptureOngoing); the legacy stream is checked above. */
    e = unsafe_check_locked();
  }
  pthread_mutex_unlock(&capture_lock);
  return e;
}

hipError_t graph_capture_unsafe_check(void)
{
  if (!hip_capture_any() || thread_mode == hipStreamCaptureModeRelaxed || internal_calls)
    return hipSuccess;
  pthread_mutex_lock(&capture_lock);
  hipError_t e = unsafe_check_locked();
  pthread_mutex_unlock(&capture_lock);
  return e;
}

hipError_t graph_capture_device_sync_check(void)
{
  if (!hip_capture_any() || internal_calls)
    return hipSuccess;
  hipError_t e = hipSuccess;
  pthread_mutex_lock(&capture_lock);
  for (struct capture_stream *c = streams; c; c = c->next) {
    c->seq->invalidated = true;
    e = hipErrorStreamCaptureUnsupported;
  }
  pthread_mutex_unlock(&capture_lock);
  return e;
}

hipError_t graph_capture_event_check(hipEvent_t event)
{
  if (!hip_capture_any() || !event)
    return hipSuccess;
  pthread_mutex_lock(&capture_lock);
  bool captured = event_find(event) != NULL;
  pthread_mutex_unlock(&capture_lock);
  return captured ? hipErrorCapturedEvent : hipSuccess;
}

void graph_capture_stream_destroyed(hipStream_t stream)
{
  if (!hip_capture_any())
    return;
  struct hip_stream *s = hip_stream_resolve(stream);
  struct ihipGraph *discard = NULL;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = s ? stream_find(s) : NULL;
  if (cs) {
    cs->seq->invalidated = true;
    if (cs->seq->origin == s)
      seq_end(cs->seq, &discard); /* nobody can end it any more */
    else
      stream_leave(cs);
  }
  pthread_mutex_unlock(&capture_lock);
  discard_graph(discard);
}

void graph_capture_event_destroyed(hipEvent_t event)
{
  if (!hip_capture_any())
    return;
  pthread_mutex_lock(&capture_lock);
  event_drop(event);
  pthread_mutex_unlock(&capture_lock);
}

/* ---- the stream-capture API ---------------------------------------------------------------------- */

/* A stream that can capture: a created stream or a per-thread stream, never the legacy one. */
static hipError_t capturable(hipStream_t stream, struct hip_stream **out)
{
  if (stream == NULL || stream == hipStreamLegacy)
    return hipErrorStreamCaptureUnsupported;
  *out = hip_stream_resolve(stream);
  return *out ? hipSuccess : hipErrorContextIsDestroyed;
}

static hipError_t begin_capture(hipStream_t stream, hipGraph_t graph, const hipGraphNode_t *deps,
                                size_t ndeps, hipStreamCaptureMode mode)
{
  if ((unsigned)mode > hipStreamCaptureModeRelaxed)
    return hipErrorInvalidValue;
  struct hip_stream *s;
  hipError_t e = capturable(stream, &s);
  if (e != hipSuccess)
    return e;
  if (graph && (!graph_valid(graph) || (ndeps && !deps)))
    return hipErrorInvalidValue;
  for (size_t i = 0; graph && i < ndeps; i++)
    if (!graph_node_valid(deps[i]) || deps[i]->graph != graph)
      return hipErrorInvalidValue;
  struct capture_seq *seq = calloc(1, sizeof(*seq));
  if (!seq)
    return hipErrorOutOfMemory;
  seq->mode = mode;
  seq->thread = pthread_self();
  seq->origin = s;
  seq->owns_graph = graph == NULL;
  seq->graph = graph ? graph : graph_alloc();
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = NULL;
  if (stream_find(s))
    e = hipErrorIllegalState; /* already capturing */
  else if (!seq->graph || !(cs = stream_join(s, seq)) || list_assign(&cs->deps, deps, ndeps))
    e = hipErrorOutOfMemory;
  if (e != hipSuccess) {
    if (cs)
      stream_leave(cs);
    pthread_mutex_unlock(&capture_lock);
    if (seq->owns_graph)
      graph_free(seq->graph);
    free(seq);
    return e;
  }
  seq->id = next_capture_id++;
  if (mode == hipStreamCaptureModeGlobal)
    global_captures++;
  pthread_mutex_unlock(&capture_lock);
  return hipSuccess;
}

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode)
{
  HIP_RETURN(begin_capture(stream, NULL, NULL, 0, mode));
}

hipError_t hipStreamBeginCapture_spt(hipStream_t stream, hipStreamCaptureMode mode)
{
  HIP_RETURN(begin_capture(stream ? stream : hipStreamPerThread, NULL, NULL, 0, mode));
}

hipError_t hipStreamBeginCaptureToGraph(hipStream_t stream, hipGraph_t graph,
                                        const hipGraphNode_t *dependencies,
                                        const hipGraphEdgeData *dependencyData,
                                        size_t numDependencies, hipStreamCaptureMode mode)
{
  if (!graph)
    HIP_RETURN(hipErrorInvalidValue);
  if (dependencyData)
    HIP_RETURN(hipErrorNotSupported); /* edge data (ports, types) is not modelled */
  HIP_RETURN(begin_capture(stream, graph, dependencies, numDependencies, mode));
}

/* CUDA's Unjoined rule: a stream that joined the capture (by waiting on a captured event) must
 * have its work joined back into the origin stream before the capture ends. Its current
 * dependencies are joined when they have dependents (someone waited on them), are among the
 * origin's own dependencies, or the origin has waited on them. capture_lock held. */
static bool all_joined(const struct capture_seq *seq, const struct capture_stream *origin)
{
  for (const struct capture_stream *c = streams; c; c = c->next) {
    if (c->seq != seq || c == origin)
      continue;
    for (size_t i = 0; i < c->deps.n; i++)
      if (c->deps.v[i]->out.n == 0 && !c->deps.v[i]->capture_joined &&
          !node_list_has(&origin->deps, c->deps.v[i]))
        return false;
  }
  return true;
}

static hipError_t end_capture(hipStream_t stream, hipGraph_t *pGraph)
{
  if (!pGraph)
    return hipErrorInvalidValue;
  /* *pGraph is written only once the capture ends (NULL when it was invalidated, as CUDA
   * documents); an error before that leaves it as it was (issue 13 item 5). */
  struct hip_stream *s;
  hipError_t e = capturable(stream, &s);
  if (e != hipSuccess)
    return e == hipErrorStreamCaptureUnsupported ? hipErrorIllegalState : e;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  if (!cs) {
    pthread_mutex_unlock(&capture_lock);
    return hipErrorIllegalState; /* not capturing */
  }
  struct capture_seq *seq = cs->seq;
  if (seq->origin != s) {
    seq->invalidated = true;
    pthread_mutex_unlock(&capture_lock);
    return hipErrorStreamCaptureUnmatched;
  }
  if (seq->mode != hipStreamCaptureModeRelaxed && !pthread_equal(seq->thread, pthread_self())) {
    pthread_mutex_unlock(&capture_lock);
    return hipErrorStreamCaptureWrongThread;
  }
  if (!seq->invalidated && !all_joined(seq, cs)) {
    seq->invalidated = true;
    e = hipErrorStreamCaptureUnjoined;
  } else if (seq->invalidated) {
    e = hipErrorStreamCaptureInvalidated;
  }
  struct ihipGraph *discard;
  *pGraph = seq_end(seq, &discard);
  pthread_mutex_unlock(&capture_lock);
  discard_graph(discard);
  return e;
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *pGraph)
{
  HIP_RETURN(end_capture(stream, pGraph));
}

hipError_t hipStreamEndCapture_spt(hipStream_t stream, hipGraph_t *pGraph)
{
  HIP_RETURN(end_capture(stream ? stream : hipStreamPerThread, pGraph));
}

/* The status of [in] stream; the legacy stream reports Implicit while a blocking stream
 * captures (it cannot be used without joining that capture). */
static hipError_t capture_info(hipStream_t stream, hipStreamCaptureStatus *status,
                               unsigned long long *id, hipGraph_t *graph,
                               const hipGraphNode_t **deps, size_t *ndeps)
{
  if (!status)
    return hipErrorInvalidValue;
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    return hipErrorContextIsDestroyed;
  *status = hipStreamCaptureStatusNone;
  if (!hip_capture_any())
    return hipSuccess;
  hipError_t e = hipSuccess;
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  if (cs) {
    *status = cs->seq->invalidated ? hipStreamCaptureStatusInvalidated : hipStreamCaptureStatusActive;
    if (id)
      *id = cs->seq->id;
    if (graph)
      *graph = cs->seq->graph;
    if (deps)
      *deps = cs->deps.v;
    if (ndeps)
      *ndeps = cs->deps.n;
  } else if (s->is_null && blocking_capture()) {
    e = hipErrorStreamCaptureImplicit;
  }
  pthread_mutex_unlock(&capture_lock);
  return e;
}

hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
  HIP_RETURN(capture_info(stream, pCaptureStatus, NULL, NULL, NULL, NULL));
}

hipError_t hipStreamIsCapturing_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus)
{
  HIP_RETURN(capture_info(stream ? stream : hipStreamPerThread, pCaptureStatus, NULL, NULL, NULL,
                          NULL));
}

hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus,
                                   unsigned long long *pId)
{
  HIP_RETURN(capture_info(stream, pCaptureStatus, pId, NULL, NULL, NULL));
}

hipError_t hipStreamGetCaptureInfo_spt(hipStream_t stream, hipStreamCaptureStatus *pCaptureStatus,
                                       unsigned long long *pId)
{
  HIP_RETURN(capture_info(stream ? stream : hipStreamPerThread, pCaptureStatus, pId, NULL, NULL,
                          NULL));
}

hipError_t hipStreamGetCaptureInfo_v2(hipStream_t stream, hipStreamCaptureStatus *captureStatus_out,
                                      unsigned long long *id_out, hipGraph_t *graph_out,
                                      const hipGraphNode_t **dependencies_out,
                                      size_t *numDependencies_out)
{
  HIP_RETURN(capture_info(stream, captureStatus_out, id_out, graph_out, dependencies_out,
                          numDependencies_out));
}

hipError_t hipStreamGetCaptureInfo_v2_spt(hipStream_t stream,
                                          hipStreamCaptureStatus *captureStatus_out,
                                          unsigned long long *id_out, hipGraph_t *graph_out,
                                          const hipGraphNode_t **dependencies_out,
                                          size_t *numDependencies_out)
{
  HIP_RETURN(capture_info(stream ? stream : hipStreamPerThread, captureStatus_out, id_out,
                          graph_out, dependencies_out, numDependencies_out));
}

hipError_t hipStreamUpdateCaptureDependencies(hipStream_t stream, hipGraphNode_t *dependencies,
                                              size_t numDependencies, unsigned int flags)
{
  if (flags != hipStreamAddCaptureDependencies && flags != hipStreamSetCaptureDependencies)
    HIP_RETURN(hipErrorInvalidValue);
  if (numDependencies && !dependencies)
    HIP_RETURN(hipErrorInvalidValue);
  struct hip_stream *s = hip_stream_resolve(stream);
  if (!s)
    HIP_RETURN(hipErrorContextIsDestroyed);
  pthread_mutex_lock(&capture_lock);
  struct capture_stream *cs = stream_find(s);
  hipError_t e = hipSuccess;
  if (!cs) {
    e = hipErrorIllegalState;
  } else {
    for (size_t i = 0; i < numDependencies && e == hipSuccess; i++)
      if (!graph_node_valid(dependencies[i]) || dependencies[i]->graph != cs->seq->graph)
        e = hipErrorInvalidValue;
    if (e == hipSuccess && flags == hipStreamSetCaptureDependencies)
      cs->deps.n = 0;
    for (size_t i = 0; i < numDependencies && e == hipSuccess; i++)
      if (!node_list_has(&cs->deps, dependencies[i]) && node_list_push(&cs->deps, dependencies[i]))
        e = hipErrorOutOfMemory;
  }
  pthread_mutex_unlock(&capture_lock);
  HIP_RETURN(e);
}

hipError_t hipThreadExchangeStreamCaptureMode(hipStreamCaptureMode *mode)
{
  if (!mode || (unsigned)*mode > hipStreamCaptureModeRelaxed)
    HIP_RETURN(hipErrorInvalidValue);
  hipStreamCaptureMode old = thread_mode;
  thread_mode = *mode;
  *mode = old;
  HIP_RETURN(hipSuccess);
}

static const struct hip_capture_ops graph_capture_ops = {
    .lookup = graph_capture_lookup,
    .kernel = graph_capture_kernel,
    .memcpy = graph_capture_memcpy,
    .memcpy3d = graph_capture_memcpy3d,
    .memset = graph_capture_memset,
    .host_func = graph_capture_host_func,
    .malloc = graph_capture_malloc,
    .free = graph_capture_free,
    .graph = graph_capture_graph,
    .event_record = graph_capture_event_record,
    .wait_event = graph_capture_wait_event,
    .sync_check = graph_capture_sync_check,
    .unsafe_check = graph_capture_unsafe_check,
    .device_sync_check = graph_capture_device_sync_check,
    .event_check = graph_capture_event_check,
    .stream_destroyed = graph_capture_stream_destroyed,
    .event_destroyed = graph_capture_event_destroyed,
    .mem_free_outside = graph_mem_free_outside,
};

/* The entry points reach the graph layer through this table (api/capture.h). */
__attribute__((constructor)) static void graph_capture_install(void)
{
  hip_capture_install(&graph_capture_ops);
}
