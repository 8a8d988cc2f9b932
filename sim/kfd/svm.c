/* Shared virtual memory (AMDKFD_IOC_SVM), mirroring kfd_svm.c at page granularity: ranges of
 * the process's own address space (GPU VA == CPU VA) with a preferred and a prefetch location,
 * flags, a migration granularity and per-GPU access. A GPU given ACCESS or ACCESS_IN_PLACE gets
 * the range in its page table at once (kfdsim never migrates: system memory serves every
 * location). Protected by sim_drv.lock. */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: keeps the raw UAPI linux/types.h out */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "kfd/kfd_priv.h"

#define DEFAULT_GRANULARITY 9   /* 2 MiB, svm_default_granularity */
#define KNOWN_FLAGS 0xffu       /* KFD_IOCTL_SVM_FLAG_HOST_ACCESS .. EXT_COHERENT */

struct svm_range {
  uint64_t start, end;        /* [start, end), page aligned */
  uintptr_t key;              /* page-table owner tag of this range */
  uint32_t preferred, prefetch, flags, granularity;
  uint32_t access, in_place;  /* bit per GPU index */
  bool dirty;
};

static struct svm_range *ranges;
static size_t n_ranges, cap_ranges;
static uintptr_t next_key = 1;    /* small integers: never equal to a BO pointer */

void sim_svm_release(void)
{
  free(ranges);
  sim_svm_reset();
}

void sim_svm_reset(void)
{
  ranges = NULL;
  n_ranges = cap_ranges = 0;
}

bool sim_svm_overlaps(uint64_t start, uint64_t size)
{
  for (size_t i = 0; i < n_ranges; i++)
    if (start < ranges[i].end && ranges[i].start < start + size)
      return true;
  return false;
}

bool sim_svm_covers(struct sim_gpu *gpu, uint64_t va, uint64_t size)
{
  uint64_t at = va & ~(SIM_PAGE_SIZE - 1), end = va + size;
  uint32_t bit = 1u << gpu->index;
  for (size_t i = 0; i < n_ranges && at < end; i++)
    if (ranges[i].start <= at && at < ranges[i].end && ((ranges[i].access | ranges[i].in_place) & bit))
      at = ranges[i].end;
  return at >= end;
}

static struct svm_range *add_range(uint64_t start, uint64_t end, const struct svm_range *tmpl)
{
  if (n_ranges == cap_ranges) {
    size_t cap = cap_ranges ? cap_ranges * 2 : 32;
    struct svm_range *r = realloc(ranges, cap * sizeof(*r));
    if (!r)
      return NULL;
    ranges = r;
    cap_ranges = cap;
  }
  struct svm_range *r = &ranges[n_ranges++];
  if (tmpl) {
    *r = *tmpl;
  } else {
    memset(r, 0, sizeof(*r));
    r->preferred = r->prefetch = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
    r->flags = KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT;
    r->granularity = DEFAULT_GRANULARITY;
    if (sim_drv.xnack)
      r->access = (1u << sim_drv.n_gpus) - 1;
  }
  r->start = start;
  r->end = end;
  r->key = next_key++;
  r->dirty = true;
  return r;
}

static int by_start(const void *a, const void *b)
{
  const struct svm_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* svm_range_check_attr */
static int check_attrs(uint32_t n, const struct kfd_ioctl_svm_attribute *at)
{
  for (uint32_t i = 0; i < n; i++) {
    switch (at[i].type) {
    case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC:
    case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC:
      if (at[i].value != KFD_IOCTL_SVM_LOCATION_SYSMEM &&
          at[i].value != KFD_IOCTL_SVM_LOCATION_UNDEFINED && !sim_gpu_by_id(at[i].value))
        return -EINVAL;
      break;
    case KFD_IOCTL_SVM_ATTR_ACCESS:
    case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
    case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
      if (!sim_gpu_by_id(at[i].value))
        return -EINVAL;
      break;
    case KFD_IOCTL_SVM_ATTR_SET_FLAGS:
    case KFD_IOCTL_SVM_ATTR_CLR_FLAGS:
    case KFD_IOCTL_SVM_ATTR_GRANULARITY:
      break;
    default:
      return -EINVAL;
    }
  }
  return 0;
}

static void apply_attrs(struct svm_range *r, uint32_t n, const struct kfd_ioctl_svm_attribute *at)
{
  for (uint32_t i = 0; i < n; i++) {
    struct sim_gpu *g = sim_gpu_by_id(at[i].value);
    uint32_t bit = g ? 1u << g->index : 0;
    switch (at[i].type) {
    case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC: r->preferred = at[i].value; break;
    case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC: r->prefetch = at[i].value; break;
    case KFD_IOCTL_SVM_ATTR_ACCESS: r->access |= bit; r->in_place &= ~bit; break;
    case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE: r->in_place |= bit; r->access &= ~bit; break;
    case KFD_IOCTL_SVM_ATTR_NO_ACCESS: r->access &= ~bit; r->in_place &= ~bit; break;
    case KFD_IOCTL_SVM_ATTR_SET_FLAGS: r->flags |= at[i].value; break;
    case KFD_IOCTL_SVM_ATTR_CLR_FLAGS: r->flags &= ~at[i].value; break;
    case KFD_IOCTL_SVM_ATTR_GRANULARITY: r->granularity = at[i].value > 0x3f ? 0x3f : at[i].value; break;
    default: break;
    }
  }
  r->dirty = true;
}

static void unmap_range(struct svm_range *r)
{
  for (uint32_t g = 0; g < sim_drv.n_gpus; g++)
    sim_vm_remove_owner(&sim_drv.gpus[g], (const void *)r->key);
}

static int map_range(struct svm_range *r)
{
  bool w = !(r->flags & KFD_IOCTL_SVM_FLAG_GPU_RO);
  for (uint32_t g = 0; g < sim_drv.n_gpus; g++) {
    if (!((r->access | r->in_place) & (1u << g)))
      continue;
    int e = sim_vm_insert(&sim_drv.gpus[g], r->start, r->end - r->start,
                          (uint8_t *)(uintptr_t)r->start, w, (const void *)r->key);
    if (e)
      return e;
  }
  return 0;
}

/* split the range containing `at` (if any) so that a boundary falls on `at` */
static int split_at(uint64_t at)
{
  for (size_t i = 0; i < n_ranges; i++) {
    if (ranges[i].start < at && at < ranges[i].end) {
      unmap_range(&ranges[i]);
      ranges[i].dirty = true;
      struct svm_range tmpl = ranges[i];
      ranges[i].end = at;
      if (!add_range(at, tmpl.end, &tmpl))
        return -ENOMEM;
      return 0;
    }
  }
  return 0;
}

/* qsort's base is declared nonnull (glibc): with no ranges yet, `ranges` is NULL (UBSan). */
static void sort_ranges(void)
{
  if (n_ranges > 1)
    qsort(ranges, n_ranges, sizeof(*ranges), by_start);
}

static int set_attr(uint64_t start, uint64_t end, uint32_t n, const struct kfd_ioctl_svm_attribute *at)
{
  int r = check_attrs(n, at);
  if (r)
    return r;
  if ((r = split_at(start)) || (r = split_at(end)))
    return r;
  sort_ranges();
  /* fill the gaps of [start, end) with default ranges */
  uint64_t cursor = start;
  size_t count = n_ranges;
  for (size_t i = 0; i < count && cursor < end; i++) {
    uint64_t rs = ranges[i].start, re = ranges[i].end;
    if (re <= cursor || rs >= end)
      continue;
    if (rs > cursor && !add_range(cursor, rs, NULL))
      return -ENOMEM;
    cursor = re;
  }
  if (cursor < end && !add_range(cursor, end, NULL))
    return -ENOMEM;
  sort_ranges();
  for (size_t i = 0; i < n_ranges; i++)
    if (ranges[i].start >= start && ranges[i].end <= end) {
      unmap_range(&ranges[i]);
      apply_attrs(&ranges[i], n, at);
    }
  for (size_t i = 0; i < n_ranges; i++)
    if (ranges[i].dirty) {
      ranges[i].dirty = false;
      if ((r = map_range(&ranges[i])))
        return r;
    }
  return 0;
}

static int get_attr(uint64_t start, uint64_t end, uint32_t n, struct kfd_ioctl_svm_attribute *at)
{
  uint32_t all = (1u << sim_drv.n_gpus) - 1;
  uint32_t loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED, pre = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
  uint32_t access = all, in_place = all, f_and = ~0u, f_or = 0, gran = 0x3f;
  bool first = true;
  for (size_t i = 0; i < n_ranges; i++) {
    const struct svm_range *r = &ranges[i];
    if (r->end <= start || r->start >= end)
      continue;
    if (first) {
      loc = r->preferred;
      pre = r->prefetch;
      first = false;
    }
    if (loc != r->preferred)
      loc = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
    if (pre != r->prefetch)
      pre = KFD_IOCTL_SVM_LOCATION_UNDEFINED;
    access &= r->access;
    in_place &= r->in_place;
    f_and &= r->flags;
    f_or |= r->flags;
    if (r->granularity < gran)
      gran = r->granularity;
  }
  if (first) {   /* no range: the defaults */
    f_and = f_or = KFD_IOCTL_SVM_FLAG_HOST_ACCESS | KFD_IOCTL_SVM_FLAG_COHERENT;
    gran = DEFAULT_GRANULARITY;
    access = sim_drv.xnack ? all : 0;
    in_place = 0;
  }
  for (uint32_t i = 0; i < n; i++) {
    struct sim_gpu *g;
    switch (at[i].type) {
    case KFD_IOCTL_SVM_ATTR_PREFERRED_LOC: at[i].value = loc; break;
    case KFD_IOCTL_SVM_ATTR_PREFETCH_LOC: at[i].value = pre; break;
    case KFD_IOCTL_SVM_ATTR_ACCESS:
    case KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE:
    case KFD_IOCTL_SVM_ATTR_NO_ACCESS:
      if (!(g = sim_gpu_by_id(at[i].value)))
        return -EINVAL;
      at[i].type = (access >> g->index) & 1 ? KFD_IOCTL_SVM_ATTR_ACCESS :
                   (in_place >> g->index) & 1 ? KFD_IOCTL_SVM_ATTR_ACCESS_IN_PLACE :
                   KFD_IOCTL_SVM_ATTR_NO_ACCESS;
      break;
    case KFD_IOCTL_SVM_ATTR_SET_FLAGS: at[i].value = f_and; break;
    case KFD_IOCTL_SVM_ATTR_CLR_FLAGS: at[i].value = ~f_or; break;
    case KFD_IOCTL_SVM_ATTR_GRANULARITY: at[i].value = gran; break;
    default: return -EINVAL;
    }
  }
  return 0;
}

/* svm_range_is_valid: every page of the range is mapped in the process */
static bool cpu_range_valid(uint64_t start, uint64_t size)
{
  unsigned char vec[256];
  for (uint64_t off = 0; off < size; off += sizeof(vec) * SIM_PAGE_SIZE) {
    uint64_t chunk = size - off < sizeof(vec) * SIM_PAGE_SIZE ? size - off : sizeof(vec) * SIM_PAGE_SIZE;
    if (mincore((void *)(uintptr_t)(start + off), chunk, vec))
      return false;
  }
  return true;
}

int sim_ioctl_svm(void *arg)
{
  struct kfd_ioctl_svm_args *a = arg;
  if ((a->start_addr | a->size) & (SIM_PAGE_SIZE - 1) || !a->size || a->start_addr + a->size < a->start_addr)
    return -EINVAL;
  if (a->op != KFD_IOCTL_SVM_OP_SET_ATTR && a->op != KFD_IOCTL_SVM_OP_GET_ATTR)
    return -EINVAL;
  uint64_t start = a->start_addr, end = start + a->size;
  int r;
  pthread_mutex_lock(&sim_drv.lock);
  if (!cpu_range_valid(start, a->size))
    r = a->op == KFD_IOCTL_SVM_OP_SET_ATTR ? -EFAULT : -EINVAL;
  else if (a->op == KFD_IOCTL_SVM_OP_GET_ATTR)
    r = get_attr(start, end, a->nattr, a->attrs);
  else
    r = set_attr(start, end, a->nattr, a->attrs);
  pthread_mutex_unlock(&sim_drv.lock);
  return r;
}
