/* src/memory: allocation kinds, CPU access, the address table, the sub-allocator. */
#include "lowlevel.h"
#include "memory/mem.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void check_rw(void *p, size_t size, uint8_t seed)
{
  uint8_t *b = p;
  for (size_t i = 0; i < size; i++)
    b[i] = (uint8_t)(seed + i * 7);
  for (size_t i = 0; i < size; i++)
    cr_assert_eq(b[i], (uint8_t)(seed + i * 7), "byte %zu", i);
}

static void alloc_kind(enum mem_kind kind, unsigned flags, size_t size)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct mem_info info;
  void *p = NULL;

  cr_assert_eq(mem_alloc(gpu, size, kind, flags, &p), 0, "kind %d size %zu", kind, size);
  cr_assert_not_null(p);
  cr_assert_eq(mem_lookup_host(p, &info), 0);
  cr_assert_eq(info.base, p);
  cr_assert_eq(info.size, size);
  cr_assert_eq(info.kind, kind);
  cr_assert_eq(info.gpu, gpu);
  cr_assert_eq(info.gpu_va, (uint64_t)(uintptr_t)p, "GPU VA == CPU VA");
  cr_assert_eq(mem_gpu_va(p), (uint64_t)(uintptr_t)p);
  cr_assert_not_null(info.host_ptr, "kfdsim VRAM and GTT are host-visible");
  check_rw(p, size, (uint8_t)kind);
  cr_assert_eq(mem_free(p), 0);
  cr_assert_eq(mem_lookup(p, &info), -ENOENT);
}

Test(memory, device_coarse_small) { alloc_kind(MEM_DEVICE, 0, 4096); }
Test(memory, device_coarse_large) { alloc_kind(MEM_DEVICE, 0, 3u << 20); }
Test(memory, device_fine) { alloc_kind(MEM_DEVICE_FINE, 0, 8192); }
Test(memory, device_fine_large) { alloc_kind(MEM_DEVICE_FINE, MEM_FLAG_NO_SUBALLOC, 5000); }
Test(memory, device_uncached) { alloc_kind(MEM_DEVICE_UNCACHED, 0, 256); }

/* A plain VRAM allocation of its own is mapped for the CPU on first need, not at allocation. */
Test(memory, large_vram_cpu_view_on_demand)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct mem_info info;
  uint32_t *p = NULL;

  cr_assert_eq(mem_alloc(gpu, 8u << 20, MEM_DEVICE, 0, (void **)&p), 0);
  cr_assert_eq(mem_lookup(p + 3, &info), 0);
  cr_assert_null(info.host_ptr, "not mapped for the CPU yet");
  cr_assert_eq(info.gpu_va, (uint64_t)(uintptr_t)p);
  cr_assert_eq(mem_lookup_host(p + 3, &info), 0);
  cr_assert_eq(info.host_ptr, p, "mapped by the first host lookup");
  p[(8u << 20) / 4 - 1] = 0x5eed;
  cr_assert_eq(mem_lookup(p, &info), 0);
  cr_assert_eq(info.host_ptr, p, "stays mapped");
  cr_assert_eq(p[(8u << 20) / 4 - 1], 0x5eedu);
  cr_assert_eq(mem_free(p), 0);
}

/* Freed ranges are handed out again (the address space does not grow with alloc/free cycles),
 * distinct live allocations never overlap, and alignment is the 2 MiB granule. */
Test(memory, va_ranges_reused_without_overlap)
{
  struct kfd_gpu *gpu = ll_gpu();
  char *p[6];
  const size_t size = 5u << 20;

  for (int i = 0; i < 6; i++) {
    cr_assert_eq(mem_alloc(gpu, size, MEM_DEVICE_FINE, 0, (void **)&p[i]), 0);
    cr_assert_eq((uintptr_t)p[i] & ((2u << 20) - 1), 0u, "granule aligned");
    for (int j = 0; j < i; j++)
      cr_assert(p[i] + size <= p[j] || p[j] + size <= p[i], "blocks %d and %d overlap", i, j);
  }
  char *freed = p[2];
  cr_assert_eq(mem_free(p[2]), 0);
  cr_assert_eq(mem_alloc(gpu, size, MEM_DEVICE_FINE, 0, (void **)&p[2]), 0);
  cr_assert_eq(p[2], freed, "the freed range is reused first fit");
  memset(p[2], 7, size);
  for (int i = 0; i < 6; i++)
    cr_assert_eq(mem_free(p[i]), 0);
}

/* A freed block's range is PROT_NONE again: a stale pointer faults rather than reaching memory
 * another allocation may get. */
Test(memory, freed_range_faults, .signal = SIGSEGV)
{
  struct kfd_gpu *gpu = ll_gpu();
  volatile char *p = NULL;

  cr_assert_eq(mem_alloc(gpu, 4u << 20, MEM_DEVICE_FINE, 0, (void **)&p), 0);
  p[100] = 1;
  cr_assert_eq(mem_free((void *)p), 0);
  p[100] = 2;
}
Test(memory, host_pinned_coherent) { alloc_kind(MEM_HOST_PINNED, MEM_FLAG_COHERENT, 1u << 16); }
Test(memory, host_pinned_large) { alloc_kind(MEM_HOST_PINNED, MEM_FLAG_ALL_GPUS, 4u << 20); }

Test(memory, bad_arguments)
{
  struct kfd_gpu *gpu = ll_gpu();
  void *p = (void *)1;

  cr_assert_eq(mem_alloc(gpu, 0, MEM_DEVICE, 0, &p), -EINVAL);
  cr_assert_null(p);
  cr_assert_eq(mem_alloc(gpu, 16, MEM_KIND_COUNT, 0, &p), -EINVAL);
  cr_assert_eq(mem_alloc(NULL, 16, MEM_DEVICE, 0, &p), -EINVAL);
  cr_assert_eq(mem_alloc(gpu, 16, MEM_HOST_REGISTERED, 0, &p), -EINVAL);
  cr_assert_eq(mem_free(NULL), 0);
  int on_stack;
  cr_assert_eq(mem_free(&on_stack), -EINVAL);
  cr_assert_eq(mem_lookup(&on_stack, &(struct mem_info){0}), -ENOENT);
}

Test(memory, interior_pointers)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct mem_info info;
  char *small = NULL, *big = NULL;

  cr_assert_eq(mem_alloc(gpu, 1000, MEM_DEVICE, 0, (void **)&small), 0);
  cr_assert_eq(mem_alloc(gpu, 3u << 20, MEM_DEVICE, 0, (void **)&big), 0);
  cr_assert_eq(mem_lookup(small + 999, &info), 0);
  cr_assert_eq(info.base, small);
  cr_assert(info.suballocated);
  cr_assert_eq(mem_lookup(small + 1000, &info), -ENOENT, "one past the end is not inside");
  cr_assert_eq(mem_lookup(big + (2u << 20) + 5, &info), 0);
  cr_assert_eq(info.base, big);
  cr_assert_eq(info.size, 3u << 20);
  cr_assert_not(info.suballocated);
  cr_assert_eq(mem_free(small + 8), -EINVAL);
  cr_assert_eq(mem_free(big + 4096), -EINVAL);
  cr_assert_eq(mem_lookup(small, &info), 0, "a rejected interior free frees nothing");
  cr_assert_eq(mem_lookup(big, &info), 0);
  cr_assert_eq(mem_free(small), 0);
  cr_assert_eq(mem_free(small), -EINVAL, "double free");
  cr_assert_eq(mem_free(big), 0);
  cr_assert_eq(mem_free(big), -EINVAL);
}

Test(memory, suballocator_reuses_without_ioctl)
{
  struct kfd_gpu *gpu = ll_gpu();
  void *p[64], *again = NULL;
  uint64_t before;

  cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &p[0]), 0); /* warm the 4 KiB pool */
  before = mem_stat_kernel_allocs();
  for (int i = 1; i < 64; i++)
    cr_assert_eq(mem_alloc(gpu, 4096, MEM_DEVICE, 0, &p[i]), 0);
  cr_assert_eq(mem_stat_kernel_allocs(), before, "4 KiB allocations come from the cached chunk");
  for (int i = 0; i < 64; i++)
    for (int j = i + 1; j < 64; j++)
      cr_assert_neq(p[i], p[j]);
  cr_assert_eq(mem_free(p[17]), 0);
  cr_assert_eq(mem_alloc(gpu, 4000, MEM_DEVICE, 0, &again), 0);
  cr_assert_eq(again, p[17], "the freed slot is reused first");
  cr_assert_eq(mem_stat_kernel_allocs(), before);
  p[17] = again;
  for (int i = 0; i < 64; i++)
    cr_assert_eq(mem_free(p[i]), 0);
  cr_assert_geq(mem_trim(gpu), 2u << 20, "the empty chunk goes back to the kernel");
}

Test(memory, host_register_and_lookup)
{
  struct kfd_gpu *gpu = ll_gpu();
  size_t size = 3 * 4096 + 100;
  char *buf = aligned_alloc(4096, 4 * 4096);
  struct mem_info info;

  cr_assert_not_null(buf);
  char *p = buf + 100; /* not page aligned */
  memset(buf, 0x5a, 4 * 4096);
  cr_assert_eq(mem_host_register(gpu, p, size, 0), 0);
  cr_assert_eq(mem_host_register(gpu, p + 8, 16, 0), -EEXIST);
  cr_assert_eq(mem_lookup(p + size - 1, &info), 0);
  cr_assert_eq(info.base, p);
  cr_assert_eq(info.kind, MEM_HOST_REGISTERED);
  cr_assert_eq(info.host_ptr, p);
  cr_assert_eq(mem_gpu_va(p + 10), info.gpu_va + 10);
  cr_assert_eq(mem_lookup(p + size, &info), -ENOENT);
  cr_assert_eq(mem_free(p), -EINVAL, "registered memory is not freed by mem_free");
  cr_assert_eq(mem_host_unregister(p + 1), -EINVAL);
  cr_assert_eq(mem_host_unregister(p), 0);
  cr_assert_eq(mem_lookup(p, &info), -ENOENT);
  cr_assert_eq((unsigned char)buf[5000], 0x5a, "user memory untouched");
  free(buf);
}

Test(memory, two_registrations_share_a_page)
{
  struct kfd_gpu *gpu = ll_gpu();
  char *buf = aligned_alloc(4096, 4096);
  struct mem_info a, b;

  cr_assert_not_null(buf);
  cr_assert_eq(mem_host_register(gpu, buf, 1000, 0), 0);
  cr_assert_eq(mem_host_register(gpu, buf + 2048, 1000, 0), 0);
  cr_assert_eq(mem_lookup(buf + 10, &a), 0);
  cr_assert_eq(mem_lookup(buf + 2050, &b), 0);
  cr_assert_eq(a.base, buf);
  cr_assert_eq(b.base, buf + 2048);
  cr_assert_eq(mem_host_unregister(buf + 2048), 0);
  cr_assert_eq(mem_host_unregister(buf), 0);
  free(buf);
}

Test(memory, map_to_gpu_is_idempotent)
{
  struct kfd_gpu *gpu = ll_gpu();
  void *p = NULL;
  int local = 0;

  cr_assert_eq(mem_alloc(gpu, 1u << 21, MEM_DEVICE, 0, &p), 0);
  cr_assert_eq(mem_map_to_gpu(p, gpu), 0);
  cr_assert_eq(mem_map_to_gpu((char *)p + 100, gpu), 0);
  cr_assert_eq(mem_map_to_gpu(&local, gpu), -ENOENT);
  cr_assert_eq(mem_free(p), 0);
}

Test(memory, get_info)
{
  struct kfd_gpu *gpu = ll_gpu();
  size_t free_b = 0, total = 0;

  cr_assert_eq(mem_get_info(gpu, &free_b, &total), 0);
  cr_assert_gt(total, 0u);
  cr_assert_leq(free_b, total);
}

Test(memory, managed)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct mem_info info;
  char *p = NULL;
  int err = mem_alloc(gpu, 10000, MEM_MANAGED, 0, (void **)&p);

  if (err == -ENOSYS)
    cr_skip_test("the driver has no SVM API");
  cr_assert_eq(err, 0, "managed allocation: %d", err);
  check_rw(p, 10000, 3);
  cr_assert_eq(mem_lookup(p + 9999, &info), 0);
  cr_assert_eq(info.kind, MEM_MANAGED);
  cr_assert_eq(info.base, p);
  cr_assert_eq(mem_free(p + 1), -EINVAL);
  cr_assert_eq(mem_free(p), 0);
  cr_assert_eq(mem_lookup(p, &info), -ENOENT);
}

Test(memory, out_of_memory_is_an_error)
{
  struct kfd_gpu *gpu = ll_gpu();
  void *p = (void *)1;

  cr_assert_lt(mem_alloc(gpu, 1ull << 50, MEM_DEVICE, 0, &p), 0);
  cr_assert_null(p);
  cr_assert_lt(mem_alloc(gpu, SIZE_MAX - 4095, MEM_DEVICE, 0, &p), 0);
  cr_assert_null(p);
}

#include <pthread.h>

struct worker {
  struct kfd_gpu *gpu;
  int failures;
};

static void *alloc_worker(void *arg)
{
  struct worker *w = arg;
  void *p[32];

  for (int round = 0; round < 200; round++) {
    for (int i = 0; i < 32; i++) {
      if (mem_alloc(w->gpu, 64u << (i % 8), MEM_DEVICE, 0, &p[i]) != 0) {
        w->failures++;
        p[i] = NULL;
      }
    }
    for (int i = 0; i < 32; i++) {
      struct mem_info info;
      if (p[i] && (mem_lookup((char *)p[i] + (64u << (i % 8)) - 1, &info) != 0 || info.base != p[i]))
        w->failures++;
      if (p[i])
        *(volatile int *)p[i] = round; /* the slot is this thread's alone */
    }
    for (int i = 0; i < 32; i++)
      if (p[i] && mem_free(p[i]) != 0)
        w->failures++;
  }
  return NULL;
}

Test(memory, concurrent_alloc_lookup_free)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct worker w[4];
  pthread_t t[4];

  for (int i = 0; i < 4; i++) {
    w[i] = (struct worker){gpu, 0};
    cr_assert_eq(pthread_create(&t[i], NULL, alloc_worker, &w[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    cr_assert_eq(w[i].failures, 0, "thread %d", i);
  }
}

Test(memory, ipc_export_import_same_process)
{
  struct kfd_gpu *gpu = ll_gpu();
  uint32_t *src = NULL, *view = NULL;
  uint64_t offset = 0;
  size_t size = 0;
  int fd = -1;

  cr_assert_eq(mem_alloc(gpu, 3u << 20, MEM_DEVICE, 0, (void **)&src), 0);
  struct mem_info info;
  cr_assert_eq(mem_lookup_host(src, &info), 0, "maps the CPU view of VRAM");
  cr_assert_eq(info.host_ptr, src);
  for (int i = 0; i < 1024; i++)
    src[i] = 0xc0de0000u + (uint32_t)i;
  cr_assert_eq(mem_ipc_export(src + 256, &fd, &offset, &size), 0);
  cr_assert_geq(fd, 0);
  cr_assert_eq(offset, 1024u);
  cr_assert_geq(size, 3u << 20);
  cr_assert_eq(mem_ipc_import(gpu, fd, size, (void **)&view), 0);
  cr_assert_neq(view, src, "the import has its own address");
  cr_assert_eq(mem_lookup_host(view + 5, &info), 0);
  cr_assert_eq(info.base, view);
  if (info.host_ptr) {
    cr_assert_eq(view[7], 0xc0de0007u, "same memory through the import");
    view[8] = 42;
    cr_assert_eq(src[8], 42u);
  }
  cr_assert_eq(mem_free(view), 0);
  close(fd);
  cr_assert_eq(mem_free(src), 0);
}

#include <sys/wait.h>

/* The child of fork() gets its own GPU VM: it reopens, allocates and registers on its own,
 * including an address range the parent had registered. */
Test(memory, child_after_fork_starts_clean)
{
  struct kfd_gpu *gpu = ll_gpu();
  static char shared[3 * 4096] __attribute__((aligned(4096)));
  int status = 0;

  cr_assert_eq(mem_host_register(gpu, shared, sizeof(shared), 0), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    struct kfd_gpu *g = NULL;
    struct mem_info info;
    void *p = NULL;
    if (mem_lookup(shared, &info) != -ENOENT)
      _exit(1);
    if (kfd_open() || kfd_gpu_open(kfd_gpu(0), &g) || g == gpu)
      _exit(2);
    if (mem_host_register(g, shared, sizeof(shared), 0))
      _exit(3);
    if (mem_alloc(g, 4096, MEM_DEVICE, 0, &p) || mem_lookup(p, &info) || info.gpu != g)
      _exit(4);
    memset(p, 1, 4096);
    void *big = NULL; /* address space of its own: the parent's reserved regions are not inherited */
    if (mem_alloc(g, 8u << 20, MEM_DEVICE, 0, &big) || mem_lookup_host(big, &info) || !info.host_ptr)
      _exit(6);
    memset(big, 1, 8u << 20);
    if (mem_free(big))
      _exit(7);
    _exit(mem_free(p) || mem_host_unregister(shared) ? 5 : 0);
  }
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status));
  cr_assert_eq(WEXITSTATUS(status), 0);
  cr_assert_eq(mem_host_unregister(shared), 0, "the parent's registration is intact");
}

Test(memory, vmm_reserve_create_map)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct mem_phys *ph = NULL;
  char *va = NULL;
  struct mem_info info;
  size_t size = 2u << 20;

  cr_assert_eq(mem_vmm_reserve(gpu, 2 * size, 0, (void **)&va), 0);
  cr_assert_eq((uintptr_t)va % (2u << 20), 0u);
  cr_assert_eq(mem_vmm_create(gpu, size, &ph), 0);
  cr_assert_eq(mem_vmm_map(va + size, size, ph, 0), 0);
  cr_assert_eq(mem_vmm_map(va + size, size, ph, 0), -EEXIST);
  cr_assert_eq(mem_vmm_map(va, size, ph, 4096), -EINVAL, "past the end of the allocation");
  /* part of the allocation: its second page, seen at va */
  cr_assert_eq(mem_vmm_map(va, 4096, ph, 4096), 0);
  cr_assert_eq(mem_lookup(va, &info), 0);
  if (info.host_ptr) {
    memset(va + size + 4096, 0x5a, 16);
    /* the two addresses alias only through the mappings: keep the compiler from reordering */
    __asm__ volatile("" ::: "memory");
    cr_assert_eq((unsigned char)va[15], 0x5a, "one memory, two mappings");
  }
  cr_assert_eq(mem_vmm_unmap(va, 4096), 0);
  cr_assert_eq(mem_lookup(va + size + 100, &info), 0);
  cr_assert_eq(info.base, va + size);
  cr_assert_eq(info.gpu_va, (uint64_t)(uintptr_t)(va + size));
  if (info.host_ptr) {
    memset(va + size, 0x3c, 4096);
    cr_assert_eq((unsigned char)va[size + 4095], 0x3c);
  }
  cr_assert_eq(mem_lookup(va, &info), -ENOENT, "the unmapped half stays reserved only");
  cr_assert_eq(mem_free(va + size), -EINVAL, "a mapping is undone by mem_vmm_unmap");
  cr_assert_eq(mem_vmm_set_access(va + size, gpu), 0);
  cr_assert_eq(mem_vmm_release(va, 2 * size), -EBUSY);
  cr_assert_eq(mem_vmm_unmap(va + size, size), 0);
  cr_assert_eq(mem_lookup(va + size, &info), -ENOENT);
  cr_assert_eq(mem_vmm_map(va, size, ph, 0), 0, "the same memory mapped again elsewhere");
  cr_assert_eq(mem_vmm_unmap(va, size), 0);
  cr_assert_eq(mem_vmm_destroy(ph), 0);
  cr_assert_eq(mem_vmm_release(va, 2 * size), 0);
}
