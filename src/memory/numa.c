/* src/memory/numa.c: where the pages of pinned host memory live (libnuma).
 *
 * AMD's stack binds the host memory it gives a GPU to that GPU's NUMA node: libhsakmt fmm.c
 * bind_mem_to_numa() calls mbind(MPOL_PREFERRED | MPOL_F_STATIC_NODES) on the CPU node the GPU
 * is attached to (MPOL_BIND when the caller forbids substitution). hipHostMallocNumaUser asks for
 * the calling thread's own policy instead (clr rocdevice.cpp hostNumaAlloc() reads it with
 * get_mempolicy). hipkfd applies both to the CPU view of the buffer before anything touches it,
 * so the pages are allocated where the policy says (libhsakmt skips single-node hosts; hipkfd
 * binds there too: it costs nothing and keeps the request visible to get_mempolicy).
 *
 * libnuma is dlopen()ed: without it (or when numa_available() says the kernel has no NUMA
 * support) placement is left to the kernel, as libhsakmt does. Nothing here fails an
 * allocation: a placement the kernel refuses is only a lost hint.
 */
#define _GNU_SOURCE
#include "numa_place.h"

#include <dlfcn.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <string.h>

/* Mode flags of <linux/mempolicy.h> that numaif.h lacks (that header's mode enum cannot be
 * included beside numaif.h's macros of the same names). */
#ifndef MPOL_F_STATIC_NODES
#define MPOL_F_STATIC_NODES (1 << 15)
#endif
#ifndef MPOL_F_RELATIVE_NODES
#define MPOL_F_RELATIVE_NODES (1 << 14)
#endif

/* Node masks as the mbind/get_mempolicy system calls take them: 1024 nodes (the kernel's
 * largest MAX_NUMNODES on x86-64), one bit each. */
#define NUMA_MASK_BITS 1024u
#define NUMA_MASK_WORDS (NUMA_MASK_BITS / (8 * sizeof(unsigned long)))

static struct {
  bool ok;
  int max_node;                 /* numa_max_node(), the highest node this host has */
  __typeof__(numa_available) *available;
  __typeof__(numa_max_node) *max_node_fn;
  __typeof__(mbind) *mbind;
  __typeof__(get_mempolicy) *get_mempolicy;
} numa;
static pthread_once_t numa_once = PTHREAD_ONCE_INIT;

static void numa_load(void)
{
  void *h = dlopen("libnuma.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h)
    return;
  numa.available = (__typeof__(numa.available))dlsym(h, "numa_available");
  numa.max_node_fn = (__typeof__(numa.max_node_fn))dlsym(h, "numa_max_node");
  numa.mbind = (__typeof__(numa.mbind))dlsym(h, "mbind");
  numa.get_mempolicy = (__typeof__(numa.get_mempolicy))dlsym(h, "get_mempolicy");
  if (!numa.available || !numa.max_node_fn || !numa.mbind || !numa.get_mempolicy ||
      numa.available() < 0)
    return;
  numa.max_node = numa.max_node_fn();
  numa.ok = numa.max_node >= 0;
}

/* The GPU's node, preferred: its pages come from there while it has free memory. */
static void bind_to_gpu_node(void *addr, size_t len, const struct kfd_node *n)
{
  unsigned long mask[NUMA_MASK_WORDS];

  if (n->numa_node < 0 || n->numa_node > numa.max_node)
    return;  /* NUMA_NO_NODE, or a node this host does not have: libhsakmt ignores those too */
  memset(mask, 0, sizeof(mask));
  mask[(unsigned)n->numa_node / (8 * sizeof(unsigned long))] |=
      1ul << ((unsigned)n->numa_node % (8 * sizeof(unsigned long)));
  numa.mbind(addr, len, MPOL_PREFERRED | MPOL_F_STATIC_NODES, mask, NUMA_MASK_BITS, 0);
}

/* The calling thread's policy, copied onto the range (the mode carries its flags, as
 * get_mempolicy reports them). A thread on the default policy allocates locally: nothing to do. */
static void bind_to_thread_policy(void *addr, size_t len)
{
  unsigned long mask[NUMA_MASK_WORDS];
  int mode = MPOL_DEFAULT;

  memset(mask, 0, sizeof(mask));
  if (numa.get_mempolicy(&mode, mask, NUMA_MASK_BITS, NULL, 0) != 0)
    return;
  if ((mode & ~(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)) == MPOL_DEFAULT)
    return;
  numa.mbind(addr, len, mode, mask, NUMA_MASK_BITS, 0);
}

void mem_numa_place(void *addr, size_t len, const struct kfd_node *n, bool thread_policy)
{
  pthread_once(&numa_once, numa_load);
  if (!numa.ok || !addr || !len)
    return;
  if (thread_policy)
    bind_to_thread_policy(addr, len);
  else if (n)
    bind_to_gpu_node(addr, len, n);
}
