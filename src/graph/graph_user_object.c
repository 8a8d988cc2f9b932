/*
 * HIP user objects (hipUserObjectCreate/Retain/Release) and the references graphs hold on them
 * (hipGraphRetainUserObject/ReleaseUserObject).
 *
 * An object has one reference count; its destructor runs with the object's pointer when the count
 * reaches zero, synchronously, in the thread that dropped the last reference (a graph
 * destruction or a release). A graph records how many of the references it owns; a clone, and so
 * every executable graph, takes references of its own.
 *
 * Calls on an object that has already been destroyed are what AMD's runtime (clr hip_graph.cpp,
 * hipUserObjectRelease / hipGraphReleaseUserObject) tolerates: they succeed and do nothing, as do
 * releases of more references than the object still has. To honour that without touching freed
 * memory, every handle ever returned is remembered in a table with its state (live or dead) and a
 * creation number; a graph's record names the creation number too, so an object later allocated at
 * the same address is not mistaken for the destroyed one. A pointer that was never a user object
 * is hipErrorInvalidResourceHandle. One lock guards the table and every count.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>

#include "../runtime/error.h"
#include "graph.h"

struct hipUserObject {
  uint64_t serial;
  long refs;
  void *ptr;
  hipHostFn_t destroy;
};

/* A handle ever returned by hipUserObjectCreate. */
struct uo_slot {
  hipUserObject_t handle;
  uint64_t serial;
  bool live;
};

enum uo_state { UO_UNKNOWN, UO_DEAD, UO_LIVE };

static pthread_mutex_t uo_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uo_slot *uo_slots;
static size_t uo_nslots, uo_capslots;
static uint64_t uo_next_serial = 1;

/* Destructors to run once the lock is dropped. */
struct uo_dead_list {
  hipUserObject_t v[8];
  size_t n;
};

static struct uo_slot *slot_find_locked(const void *handle)
{
  for (size_t i = 0; i < uo_nslots; i++)
    if (uo_slots[i].handle == handle)
      return &uo_slots[i];
  return NULL;
}

static enum uo_state state_locked(const void *handle, uint64_t serial)
{
  struct uo_slot *s = slot_find_locked(handle);
  if (!s)
    return UO_UNKNOWN;
  if (!s->live || (serial && s->serial != serial))
    return UO_DEAD;
  return UO_LIVE;
}

/* Takes [in] count references off live [in] o (never below zero); a dead object is marked in the
 * table and queued on [out] dead for its destructor. */
static void drop_locked(hipUserObject_t o, long count, struct uo_dead_list *dead)
{
  o->refs -= count < o->refs ? count : o->refs;
  if (o->refs > 0)
    return;
  slot_find_locked(o)->live = false;
  if (dead->n < sizeof(dead->v) / sizeof(dead->v[0])) {
    dead->v[dead->n++] = o;
  } else {
    /* More deaths than one batch holds (a graph with many objects): run this one now, outside
     * the lock as every destructor is. */
    pthread_mutex_unlock(&uo_lock);
    o->destroy(o->ptr);
    free(o);
    pthread_mutex_lock(&uo_lock);
  }
}

static void run_destructors(struct uo_dead_list *dead)
{
  for (size_t i = 0; i < dead->n; i++) {
    dead->v[i]->destroy(dead->v[i]->ptr);
    free(dead->v[i]);
  }
  dead->n = 0;
}

static int slot_record_locked(hipUserObject_t o)
{
  struct uo_slot *s = slot_find_locked(o);
  if (!s) {
    if (uo_nslots == uo_capslots) {
      size_t cap = uo_capslots ? uo_capslots * 2 : 16;
      struct uo_slot *v = realloc(uo_slots, cap * sizeof(*v));
      if (!v)
        return -ENOMEM;
      uo_slots = v;
      uo_capslots = cap;
    }
    s = &uo_slots[uo_nslots++];
    s->handle = o;
  }
  s->serial = o->serial;
  s->live = true;
  return 0;
}

hipError_t hipUserObjectCreate(hipUserObject_t *object_out, void *ptr, hipHostFn_t destroy,
                               unsigned int initialRefcount, unsigned int flags)
{
  /* CUDA requires cudaUserObjectNoDestructorSync; AMD accepts 0 as well. */
  if (!object_out || !destroy || initialRefcount == 0 || initialRefcount > INT_MAX ||
      (flags & ~(unsigned)hipUserObjectNoDestructorSync))
    HIP_RETURN(hipErrorInvalidValue);
  struct hipUserObject *o = calloc(1, sizeof(*o));
  if (!o)
    HIP_RETURN(hipErrorOutOfMemory);
  o->refs = initialRefcount;
  o->ptr = ptr;
  o->destroy = destroy;
  pthread_mutex_lock(&uo_lock);
  o->serial = uo_next_serial++;
  int rc = slot_record_locked(o);
  pthread_mutex_unlock(&uo_lock);
  if (rc) {
    free(o);
    HIP_RETURN(hipErrorOutOfMemory);
  }
  *object_out = o;
  HIP_RETURN(hipSuccess);
}

static bool count_valid(unsigned count)
{
  return count != 0 && count <= INT_MAX;
}

hipError_t hipUserObjectRetain(hipUserObject_t object, unsigned int count)
{
  if (!object || !count_valid(count))
    HIP_RETURN(hipErrorInvalidValue);
  pthread_mutex_lock(&uo_lock);
  enum uo_state st = state_locked(object, 0);
  if (st == UO_LIVE)
    object->refs += count;
  pthread_mutex_unlock(&uo_lock);
  /* A destroyed object: nothing to retain (clr returns success). */
  HIP_RETURN(st == UO_UNKNOWN ? hipErrorInvalidResourceHandle : hipSuccess);
}

hipError_t hipUserObjectRelease(hipUserObject_t object, unsigned int count)
{
  if (!object || !count_valid(count))
    HIP_RETURN(hipErrorInvalidValue);
  struct uo_dead_list dead = {.n = 0};
  pthread_mutex_lock(&uo_lock);
  enum uo_state st = state_locked(object, 0);
  /* clr ignores a release of more references than the object has. */
  if (st == UO_LIVE && (long)count <= object->refs)
    drop_locked(object, count, &dead);
  pthread_mutex_unlock(&uo_lock);
  run_destructors(&dead);
  HIP_RETURN(st == UO_UNKNOWN ? hipErrorInvalidResourceHandle : hipSuccess);
}

static struct graph_uref *uref_find(struct ihipGraph *g, hipUserObject_t o, uint64_t serial)
{
  for (size_t i = 0; i < g->nurefs; i++)
    if (g->urefs[i].object == o && g->urefs[i].serial == serial)
      return &g->urefs[i];
  return NULL;
}

/* Records [in] count more references of [in] g on [in] o (already counted in o). */
static int uref_add(struct ihipGraph *g, hipUserObject_t o, uint64_t serial, unsigned count)
{
  struct graph_uref *r = uref_find(g, o, serial);
  if (r) {
    r->count = r->count + count > INT_MAX ? INT_MAX : r->count + count;
    return 0;
  }
  r = realloc(g->urefs, sizeof(*r) * (g->nurefs + 1));
  if (!r)
    return -ENOMEM;
  g->urefs = r;
  g->urefs[g->nurefs++] = (struct graph_uref){o, serial, count};
  return 0;
}

void graph_urefs_release(struct ihipGraph *g)
{
  struct uo_dead_list dead = {.n = 0};
  pthread_mutex_lock(&uo_lock);
  for (size_t i = 0; i < g->nurefs; i++)
    if (state_locked(g->urefs[i].object, g->urefs[i].serial) == UO_LIVE)
      drop_locked(g->urefs[i].object, g->urefs[i].count, &dead);
  pthread_mutex_unlock(&uo_lock);
  run_destructors(&dead);
  free(g->urefs);
  g->urefs = NULL;
  g->nurefs = 0;
}

int graph_urefs_copy(struct ihipGraph *dst, const struct ihipGraph *src)
{
  int rc = 0;
  pthread_mutex_lock(&uo_lock);
  for (size_t i = 0; i < src->nurefs && !rc; i++) {
    const struct graph_uref *r = &src->urefs[i];
    if (state_locked(r->object, r->serial) != UO_LIVE)
      continue; /* destroyed behind the graph's back: nothing to hold */
    rc = uref_add(dst, r->object, r->serial, r->count);
    if (!rc)
      r->object->refs += r->count;
  }
  pthread_mutex_unlock(&uo_lock);
  return rc;
}

hipError_t hipGraphRetainUserObject(hipGraph_t graph, hipUserObject_t object, unsigned int count,
                                    unsigned int flags)
{
  if (!graph_valid(graph) || !object || !count_valid(count) ||
      (flags & ~(unsigned)hipGraphUserObjectMove))
    HIP_RETURN(hipErrorInvalidValue);
  hipError_t e = hipSuccess;
  pthread_mutex_lock(&uo_lock);
  enum uo_state st = state_locked(object, 0);
  if (st == UO_UNKNOWN) {
    e = hipErrorInvalidResourceHandle;
  } else if (st == UO_LIVE) {
    if (uref_add(graph, object, object->serial, count))
      e = hipErrorOutOfMemory;
    /* Move: the caller's references become the graph's; otherwise the graph takes new ones. */
    else if (!(flags & hipGraphUserObjectMove))
      object->refs += count;
  }
  pthread_mutex_unlock(&uo_lock);
  HIP_RETURN(e);
}

hipError_t hipGraphReleaseUserObject(hipGraph_t graph, hipUserObject_t object, unsigned int count)
{
  if (!graph_valid(graph) || !object || !count_valid(count))
    HIP_RETURN(hipErrorInvalidValue);
  hipError_t e = hipSuccess;
  struct uo_dead_list dead = {.n = 0};
  pthread_mutex_lock(&uo_lock);
  enum uo_state st = state_locked(object, 0);
  struct graph_uref *r = st == UO_LIVE ? uref_find(graph, object, object->serial) : NULL;
  if (st == UO_UNKNOWN) {
    e = hipErrorInvalidResourceHandle;
  } else if (r && (long)count <= object->refs) {
    /* A dead object, one the graph holds no reference on, or more references than the object
     * still has: nothing happens (clr). Within the object's count, a graph gives back only
     * references it owns. */
    if (r->count < count) {
      e = hipErrorInvalidValue;
    } else {
      r->count -= count;
      if (r->count == 0)
        *r = graph->urefs[--graph->nurefs];
      drop_locked(object, count, &dead);
    }
  }
  pthread_mutex_unlock(&uo_lock);
  run_destructors(&dead);
  HIP_RETURN(e);
}
