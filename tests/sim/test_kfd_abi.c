/* The /dev/kfd ABI as kfdsim emulates it, checked against <linux/kfd_ioctl.h> (KFD 1.17) and
 * the errno rules of amdkfd (kfd_chardev.c, kfd_events.c, kfd_queue.c). Runs with kfdsim
 * preloaded: one MI300X-like GPU (KFDSIM_PROFILE=gfx942, KFDSIM_GPUS=1). */
#define _GNU_SOURCE
#include "kfd/uapi.h"   /* first: the 1.17 UAPI without the raw linux/types.h */

#include <criterion/criterion.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfd_test_util.h"

#define NODES "/sys/devices/virtual/kfd/kfd/topology/nodes"
#define PAGE 4096ull
#define TEST_VA 0x7f0000000000ull   /* a GPU VA well inside the GPUVM aperture */

static int kfd = -1, render = -1;
static uint32_t gpu_id;



static void open_gpu(void)
{
  kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
  cr_assert_geq(kfd, 0, "open /dev/kfd: %s", strerror(errno));
  FILE *f = fopen(NODES "/1/gpu_id", "r");
  cr_assert_not_null(f);
  cr_assert_eq(fscanf(f, "%u", &gpu_id), 1);
  fclose(f);
  long long minor = prop(NODES "/1/properties", "drm_render_minor");
  char path[64];
  snprintf(path, sizeof(path), "/dev/dri/renderD%lld", minor);
  render = open(path, O_RDWR | O_CLOEXEC);
  cr_assert_geq(render, 0, "open %s: %s", path, strerror(errno));
  struct kfd_ioctl_acquire_vm_args vm = { .drm_fd = (uint32_t)render, .gpu_id = gpu_id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_ACQUIRE_VM, &vm), 0);
}

static void close_gpu(void)
{
  close(render);
  close(kfd);
}

static int alloc(uint64_t va, uint64_t size, uint32_t flags, uint64_t *handle, uint64_t *offset)
{
  struct kfd_ioctl_alloc_memory_of_gpu_args a = { .va_addr = va, .size = size, .gpu_id = gpu_id,
                                                  .flags = flags, .mmap_offset = offset ? *offset : 0 };
  int r = kioctl(kfd, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a);
  *handle = a.handle;
  if (offset)
    *offset = a.mmap_offset;
  return r;
}

static int map_to_gpu(uint64_t handle, bool map, uint32_t *n_success)
{
  uint32_t ids[1] = { gpu_id };
  struct kfd_ioctl_map_memory_to_gpu_args a = { .handle = handle, .device_ids_array_ptr = (uintptr_t)ids,
                                                .n_devices = 1, .n_success = 0 };
  int r = kioctl(kfd, map ? AMDKFD_IOC_MAP_MEMORY_TO_GPU : AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &a);
  if (n_success)
    *n_success = a.n_success;
  return r;
}

static int free_mem(uint64_t handle)
{
  struct kfd_ioctl_free_memory_of_gpu_args a = { .handle = handle };
  return kioctl(kfd, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
}

TestSuite(kfd_abi, .init = open_gpu, .fini = close_gpu);

Test(kfd_abi, version_is_1_17) {
  struct kfd_ioctl_get_version_args v = { 0 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_VERSION, &v), 0);
  cr_assert_eq(v.major_version, 1);
  cr_assert_eq(v.minor_version, 17);
}

Test(kfd_abi, device_nodes_stat_as_the_kernel_shows_them) {
  struct stat st;
  cr_assert_eq(fstat(render, &st), 0);
  cr_assert(S_ISCHR(st.st_mode));
  cr_assert_eq(major(st.st_rdev), 226);
  cr_assert_geq(minor(st.st_rdev), 128);
  cr_assert_eq(stat("/dev/kfd", &st), 0);
  cr_assert(S_ISCHR(st.st_mode));
  cr_assert_eq(access("/dev/kfd", R_OK | W_OK), 0);
}

Test(kfd_abi, topology_reports_the_mi300x_profile) {
  const char *p = NODES "/1/properties";
  cr_assert_eq(prop(p, "gfx_target_version"), 90402);
  cr_assert_eq(prop(p, "simd_count"), 1216);
  cr_assert_eq(prop(p, "num_xcc"), 8);
  cr_assert_eq(prop(p, "array_count"), 32);
  cr_assert_eq(prop(p, "device_id"), 0x74a1);
  cr_assert_eq(prop(p, "cpu_cores_count"), 0);
  cr_assert_eq(prop(NODES "/0/properties", "simd_count"), 0);
  cr_assert_eq(prop(NODES "/1/mem_banks/0/properties", "size_in_bytes"), 206158430208ll);
  cr_assert_eq(prop(NODES "/1/io_links/0/properties", "node_to"), 0);
  cr_assert_eq(prop("/sys/class/kfd/kfd/topology/nodes/1/properties", "gfx_target_version"), 90402);
  struct stat st;
  cr_assert_eq(stat(NODES "/2", &st), -1, "only one GPU node");
  cr_assert_eq(errno, ENOENT);
}

Test(kfd_abi, apertures_new_counts_then_fills) {
  struct kfd_ioctl_get_process_apertures_new_args a = { 0 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
  cr_assert_eq(a.num_of_nodes, 1);
  struct kfd_process_device_apertures ap[2];
  memset(ap, 0, sizeof(ap));
  a.kfd_process_device_apertures_ptr = (uintptr_t)ap;
  a.num_of_nodes = 2;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &a), 0);
  cr_assert_eq(a.num_of_nodes, 1);
  cr_assert_eq(ap[0].gpu_id, gpu_id);
  cr_assert_eq(ap[0].lds_base, 1ull << 48);
  cr_assert_eq(ap[0].scratch_base, 2ull << 48);
  cr_assert_eq(ap[0].gpuvm_limit, (1ull << 47) - 1);
  cr_assert_eq(ap[1].gpu_id, 0, "only num_of_nodes entries are written");
}

Test(kfd_abi, unknown_and_unimplemented_numbers) {
  uint64_t buf[8] = { 0 };
  /* the DKMS-only DBG_TRAP number 0x82 is past the table: EINVAL, as 6.12's kfd_ioctl() */
  cr_assert_eq(kioctl(kfd, _IOWR('K', 0x82, struct kfd_ioctl_get_version_args), buf), -EINVAL);
  /* a deprecated entry without a function */
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_DBG_REGISTER_DEPRECATED, buf), -EINVAL);
}

Test(kfd_abi, kfd_ioctls_on_other_files_fail_as_the_kernel_does) {
  struct kfd_ioctl_get_version_args v = { 0 };
  int null = open("/dev/null", O_RDWR);
  cr_assert_eq(kioctl(null, AMDKFD_IOC_GET_VERSION, &v), -ENOTTY);
  close(null);
  cr_assert_eq(kioctl(render, AMDKFD_IOC_GET_VERSION, &v), -ENOTTY);
  cr_assert_eq(kioctl(1000, AMDKFD_IOC_GET_VERSION, &v), -EBADF);
}

Test(kfd_abi, shorter_struct_sizes_are_zero_extended) {
  /* GET_VERSION with the size of only its first field: only that is written back */
  uint32_t v[2] = { 0, 0xdeadbeef };
  cr_assert_eq(kioctl(kfd, _IOR('K', 0x01, uint32_t), v), 0);
  cr_assert_eq(v[0], 1);
  cr_assert_eq(v[1], 0xdeadbeef);
}

Test(kfd_abi, vram_alloc_map_mmap_free) {
  uint64_t h, off = 0, size = 2 * PAGE;
  uint32_t flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
  cr_assert_eq(alloc(TEST_VA, size, flags, &h, &off), 0);
  cr_assert_eq(h >> 32, gpu_id, "handles carry the gpu_id");
  uint32_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, render, (off_t)off);
  cr_assert_neq(p, MAP_FAILED, "mmap render node: %s", strerror(errno));
  p[0] = 0x12345678;
  p[1023] = 0x9abcdef0;
  uint32_t n = 0;
  cr_assert_eq(map_to_gpu(h, true, &n), 0);
  cr_assert_eq(n, 1);
  cr_assert_eq(free_mem(h), -EBUSY, "a mapped BO cannot be freed");
  /* a second mapping of the same memory sees the same bytes */
  uint32_t *q = mmap(NULL, size, PROT_READ, MAP_SHARED, render, (off_t)off);
  cr_assert_neq(q, MAP_FAILED);
  cr_assert_eq(q[0], 0x12345678);
  cr_assert_eq(q[1023], 0x9abcdef0);
  munmap(q, size);
  munmap(p, size);
  cr_assert_eq(map_to_gpu(h, false, &n), 0);
  cr_assert_eq(free_mem(h), 0);
  cr_assert_eq(free_mem(h), -EINVAL, "double free");
}

Test(kfd_abi, alloc_validation) {
  uint64_t h;
  cr_assert_eq(alloc(TEST_VA, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, &h, NULL), -EINVAL, "size 0");
  cr_assert_eq(alloc(TEST_VA + 1, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, &h, NULL), -EINVAL, "unaligned VA");
  cr_assert_eq(alloc(TEST_VA, PAGE, 0, &h, NULL), -EINVAL, "no domain");
  cr_assert_eq(alloc(TEST_VA, 1ull << 40, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, &h, NULL), -ENOMEM, "more than VRAM");
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL, &h, NULL), -EINVAL,
               "doorbell allocations are one process slice");
  uint64_t h1;
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h1, NULL), 0);
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), -EINVAL, "VA in use");
  cr_assert_eq(free_mem(h1), 0);
  cr_assert_eq(free_mem(0x12345678ull), -EINVAL, "bad handle");
  cr_assert_eq(free_mem(((uint64_t)gpu_id << 32) | 999), -EINVAL, "unknown idr");
}

Test(kfd_abi, userptr_gpu_va_differs_from_cpu_address) {
  size_t size = 4 * PAGE;
  void *cpu = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cr_assert_neq(cpu, MAP_FAILED);
  uint64_t h, off = (uintptr_t)cpu;
  cr_assert_eq(alloc(TEST_VA + (1ull << 30), size, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR |
                     KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, &h, &off), 0);
  cr_assert_eq(map_to_gpu(h, true, NULL), 0);
  cr_assert_eq(map_to_gpu(h, false, NULL), 0);
  cr_assert_eq(free_mem(h), 0);
  off = 0x1000;   /* not mapped in this process */
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_USERPTR, &h, &off), -EFAULT);
  munmap(cpu, size);
}

Test(kfd_abi, map_protocol_checks_devices) {
  uint64_t h;
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), 0);
  uint32_t ids[2] = { gpu_id, 0xbad };
  struct kfd_ioctl_map_memory_to_gpu_args a = { .handle = h, .device_ids_array_ptr = (uintptr_t)ids,
                                                .n_devices = 2 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &a), -EINVAL);
  cr_assert_eq(a.n_success, 1, "the first device was mapped before the failure");
  a.n_devices = 0;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &a), -EINVAL);
  a.n_devices = 1;
  a.n_success = 2;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &a), -EINVAL);
  cr_assert_eq(map_to_gpu(h, false, NULL), 0);
  cr_assert_eq(free_mem(h), 0);
}

Test(kfd_abi, queue_arguments_are_validated) {
  struct kfd_ioctl_create_queue_args q = {
    .gpu_id = gpu_id, .queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, .queue_percentage = 100,
    .ring_base_address = TEST_VA, .ring_size = 4096, .read_pointer_address = TEST_VA + 0x10000,
    .write_pointer_address = TEST_VA + 0x10008,
  };
  q.ring_size = 3000;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "ring size not a power of two");
  q.ring_size = 4096;
  q.queue_percentage = 101;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "percentage over 100");
  q.queue_percentage = 100;
  q.queue_priority = 16;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "priority over 15");
  q.queue_priority = 7;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "ring not mapped to the GPU");
  q.queue_type = 9;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -524, "unknown queue type: -ENOTSUPP");
  struct kfd_ioctl_destroy_queue_args d = { .queue_id = 5 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_DESTROY_QUEUE, &d), -EINVAL);
}

/* Buffers of an AQL queue sized as the node properties demand (kfd_queue.c) */
struct aql_bufs {
  uint64_t h[5];
};

static void alloc_mapped(uint64_t va, uint64_t size, uint64_t *h)
{
  cr_assert_eq(alloc(va, size, KFD_IOC_ALLOC_MEM_FLAGS_GTT | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE, h, NULL), 0);
  cr_assert_eq(map_to_gpu(*h, true, NULL), 0);
}

Test(kfd_abi, queue_with_kernel_sized_buffers_is_created) {
  const char *p = NODES "/1/properties";
  uint32_t ctl = (uint32_t)prop(p, "ctl_stack_size"), cwsr = (uint32_t)prop(p, "cwsr_size");
  cr_assert_gt(ctl, 0);
  cr_assert_gt(cwsr, ctl);
  /* debug area: 32 bytes per wave, waves = min(CUs per XCC * 40, SEs per XCC * 512) */
  uint64_t waves = 38 * 40, debug = (waves * 32 + 63) & ~63ull;
  uint64_t cwsr_total = ((cwsr + debug) * 8 + PAGE - 1) & ~(PAGE - 1);
  uint64_t va = TEST_VA, h[5];
  alloc_mapped(va, PAGE, &h[0]);                 /* read/write pointers */
  alloc_mapped(va + 0x100000, 4096, &h[1]);      /* ring */
  alloc_mapped(va + 0x200000, 4096, &h[2]);      /* EOP */
  alloc_mapped(va + 0x400000, cwsr_total, &h[3]);
  struct kfd_ioctl_create_queue_args q = {
    .gpu_id = gpu_id, .queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL, .queue_percentage = 100,
    .queue_priority = 7, .ring_base_address = va + 0x100000, .ring_size = 4096,
    .read_pointer_address = va + 0x80, .write_pointer_address = va + 0x88,
    .eop_buffer_address = va + 0x200000, .eop_buffer_size = 4096,
    .ctx_save_restore_address = va + 0x400000, .ctx_save_restore_size = cwsr, .ctl_stack_size = ctl,
  };
  q.ctl_stack_size = ctl + 4096;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "control stack size must match");
  q.ctl_stack_size = ctl;
  q.eop_buffer_size = 8192;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), -EINVAL, "EOP size must match");
  q.eop_buffer_size = 4096;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_QUEUE, &q), 0, "create: %s", strerror(errno));
  cr_assert_eq(q.doorbell_offset >> 62, 3, "KFD_MMAP_TYPE_DOORBELL");
  cr_assert_eq(map_to_gpu(h[1], false, NULL), -EBUSY, "the ring is in use by the queue");
  struct kfd_ioctl_alloc_queue_gws_args g = { .queue_id = q.queue_id, .num_gws = 64, .first_gws = 99 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), 0);
  cr_assert_eq(g.first_gws, 0);
  g.queue_id = q.queue_id + 1;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_ALLOC_QUEUE_GWS, &g), -EINVAL, "no such queue");
  struct kfd_ioctl_get_queue_wave_state_args ws = { .queue_id = q.queue_id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_QUEUE_WAVE_STATE, &ws), -EINVAL, "an active queue has no saved waves");
  struct kfd_ioctl_destroy_queue_args d = { .queue_id = q.queue_id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_DESTROY_QUEUE, &d), 0);
  for (int i = 0; i < 4; i++) {
    cr_assert_eq(map_to_gpu(h[i], false, NULL), 0);
    cr_assert_eq(free_mem(h[i]), 0);
  }
}

static uint32_t create_event(uint32_t type, bool auto_reset)
{
  struct kfd_ioctl_create_event_args e = { .event_type = type, .auto_reset = auto_reset };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_EVENT, &e), 0);
  return e.event_id;
}

static int wait_one(uint32_t id, uint32_t timeout, uint64_t age, uint32_t *result)
{
  struct kfd_event_data d = { .event_id = id };
  d.signal_event_data.last_event_age = age;
  struct kfd_ioctl_wait_events_args w = { .events_ptr = (uintptr_t)&d, .num_events = 1,
                                          .wait_for_all = 1, .timeout = timeout };
  int r = kioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &w);
  *result = w.wait_result;
  return r;
}

Test(kfd_abi, events_set_wait_reset_timeout) {
  uint32_t id = create_event(KFD_IOC_EVENT_SIGNAL, true), res;
  cr_assert_lt(id, 4096, "signal events use slots of the events page");
  cr_assert_eq(wait_one(id, 0, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
  struct kfd_ioctl_set_event_args s = { .event_id = id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SET_EVENT, &s), 0);
  cr_assert_eq(wait_one(id, 0, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_COMPLETE);
  cr_assert_eq(wait_one(id, 1, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_TIMEOUT, "auto-reset consumed the signal");
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SET_EVENT, &s), 0);
  struct kfd_ioctl_reset_event_args rs = { .event_id = id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_RESET_EVENT, &rs), 0);
  cr_assert_eq(wait_one(id, 0, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_TIMEOUT, "reset cleared it");
  cr_assert_eq(wait_one(0x7fffffff, 0, 0, &res), -EINVAL, "unknown event");
  uint32_t mem = create_event(KFD_IOC_EVENT_MEMORY, false);
  cr_assert_geq(mem, 0x80000000u, "other events are numbered from 0x80000000");
  struct kfd_ioctl_set_event_args sm = { .event_id = mem };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SET_EVENT, &sm), -EINVAL, "only signal events are CPU-set");
  struct kfd_ioctl_destroy_event_args de = { .event_id = id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_DESTROY_EVENT, &de), 0);
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_DESTROY_EVENT, &de), -EINVAL);
}

Test(kfd_abi, event_ages_report_and_shortcut) {
  uint32_t id = create_event(KFD_IOC_EVENT_SIGNAL, true), res;
  struct kfd_event_data d = { .event_id = id };
  d.signal_event_data.last_event_age = 1;
  struct kfd_ioctl_set_event_args s = { .event_id = id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SET_EVENT, &s), 0);
  struct kfd_ioctl_wait_events_args w = { .events_ptr = (uintptr_t)&d, .num_events = 1, .timeout = 0 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
  cr_assert_eq(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
  cr_assert_eq(d.signal_event_data.last_event_age, 2, "the age after one SET_EVENT");
  /* an older age than the event's completes at once even though the event is not signaled */
  cr_assert_eq(wait_one(id, 0, 1, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_COMPLETE);
  cr_assert_eq(wait_one(id, 0, 2, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
}

struct setter {
  uint32_t id;
};

static void *set_later(void *arg)
{
  struct setter *s = arg;
  struct kfd_ioctl_set_event_args a = { .event_id = s->id };
  usleep(20000);
  kioctl(kfd, AMDKFD_IOC_SET_EVENT, &a);
  return NULL;
}

Test(kfd_abi, age_zero_waiter_is_woken_by_set_event, .timeout = 30) {
  /* libhsakmt before KFD 1.14 sends age 0: only the wait queue can wake it */
  uint32_t id = create_event(KFD_IOC_EVENT_SIGNAL, true), res;
  struct setter s = { .id = id };
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, set_later, &s), 0);
  cr_assert_eq(wait_one(id, 0xffffffffu, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_COMPLETE);
  pthread_join(t, NULL);
}

Test(kfd_abi, child_after_fork_gets_ebadf) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    struct kfd_ioctl_get_version_args v = { 0 };
    _exit(kioctl(kfd, AMDKFD_IOC_GET_VERSION, &v) == -EBADF ? 0 : 1);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status));
  cr_assert_eq(WEXITSTATUS(status), 0, "the child's ioctl must fail with EBADF");
  struct kfd_ioctl_get_version_args v = { 0 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_VERSION, &v), 0, "the parent still owns it");
}

Test(kfd_abi, svm_attributes_round_trip) {
  size_t size = 16 * PAGE;
  void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  cr_assert_neq(p, MAP_FAILED);
  struct { struct kfd_ioctl_svm_args a; struct kfd_ioctl_svm_attribute at[3]; } s;
  memset(&s, 0, sizeof(s));
  s.a.start_addr = (uintptr_t)p;
  s.a.size = size;
  s.a.op = KFD_IOCTL_SVM_OP_SET_ATTR;
  s.a.nattr = 3;
  s.at[0] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, gpu_id };
  s.at[1] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_ACCESS, gpu_id };
  s.at[2] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0 };
  unsigned long cmd = AMDKFD_IOC_SVM + ((3 * sizeof(s.at[0])) << _IOC_SIZESHIFT);
  cr_assert_eq(kioctl(kfd, cmd, &s), 0);
  memset(s.at, 0, sizeof(s.at));
  s.a.op = KFD_IOCTL_SVM_OP_GET_ATTR;
  s.at[0] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_PREFERRED_LOC, 0 };
  s.at[1] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_NO_ACCESS, gpu_id };
  s.at[2] = (struct kfd_ioctl_svm_attribute){ KFD_IOCTL_SVM_ATTR_PREFETCH_LOC, 0 };
  cr_assert_eq(kioctl(kfd, cmd, &s), 0);
  cr_assert_eq(s.at[0].value, gpu_id);
  cr_assert_eq(s.at[1].type, KFD_IOCTL_SVM_ATTR_ACCESS, "the GPU has access");
  cr_assert_eq(s.at[2].value, 0, "prefetch to system memory");
  /* BO allocations may not overlap SVM ranges */
  uint64_t h;
  cr_assert_eq(alloc((uintptr_t)p, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), -EADDRINUSE);
  s.a.start_addr = (uintptr_t)p + 1;
  cr_assert_eq(kioctl(kfd, cmd, &s), -EINVAL, "unaligned start");
  /* attributes past the caller's size are not read */
  s.a.start_addr = (uintptr_t)p;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SVM, &s), -EINVAL);
  munmap(p, size);
}

Test(kfd_abi, dmabuf_export_info_import) {
  uint64_t h, off = 0;
  cr_assert_eq(alloc(TEST_VA, 4 * PAGE, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE,
                     &h, &off), 0);
  uint32_t *p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, render, (off_t)off);
  cr_assert_neq(p, MAP_FAILED);
  p[5] = 0xfeedface;
  struct kfd_ioctl_export_dmabuf_args e = { .handle = h, .flags = O_CLOEXEC };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_EXPORT_DMABUF, &e), 0);
  struct kfd_ioctl_get_dmabuf_info_args info = { .dmabuf_fd = e.dmabuf_fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_DMABUF_INFO, &info), 0);
  cr_assert_eq(info.size, 4 * PAGE);
  cr_assert_eq(info.gpu_id, gpu_id);
  cr_assert(info.flags & KFD_IOC_ALLOC_MEM_FLAGS_VRAM);
  struct kfd_ioctl_import_dmabuf_args im = { .va_addr = TEST_VA + (1ull << 32), .gpu_id = gpu_id,
                                             .dmabuf_fd = e.dmabuf_fd };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_IMPORT_DMABUF, &im), 0);
  /* the dma-buf is a real descriptor: its memory is the BO's */
  uint32_t *q = mmap(NULL, 4 * PAGE, PROT_READ, MAP_SHARED, (int)e.dmabuf_fd, 0);
  cr_assert_neq(q, MAP_FAILED);
  cr_assert_eq(q[5], 0xfeedface);
  munmap(q, 4 * PAGE);
  munmap(p, 4 * PAGE);
  int null = open("/dev/null", O_RDONLY);
  info.dmabuf_fd = (uint32_t)null;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_DMABUF_INFO, &info), -EINVAL, "not a dma-buf");
  close(null);
  close((int)e.dmabuf_fd);
  cr_assert_eq(free_mem(im.handle), 0);
  cr_assert_eq(free_mem(h), 0);
}

Test(kfd_abi, available_memory_and_clocks) {
  struct kfd_ioctl_get_available_memory_args m = { .gpu_id = gpu_id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_AVAILABLE_MEMORY, &m), 0);
  cr_assert_eq(m.available, 206158430208ull);
  m.gpu_id = 0xbad;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_AVAILABLE_MEMORY, &m), -EINVAL);
  struct kfd_ioctl_get_clock_counters_args c = { .gpu_id = gpu_id };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_CLOCK_COUNTERS, &c), 0);
  cr_assert_eq(c.system_clock_freq, 1000000000ull);
  cr_assert_gt(c.gpu_clock_counter, 0);
}

Test(kfd_abi, closing_the_last_kfd_file_releases_the_process) {
  uint64_t h;
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), 0);
  cr_assert_eq(map_to_gpu(h, true, NULL), 0);
  uint32_t id = create_event(KFD_IOC_EVENT_SIGNAL, false);
  int second = dup(kfd);
  close(kfd);
  struct kfd_ioctl_set_event_args s = { .event_id = id };
  cr_assert_eq(kioctl(second, AMDKFD_IOC_SET_EVENT, &s), 0, "a dup keeps the process alive");
  close(second);
  close(render);
  open_gpu();   /* ROCr's hsa_shut_down + hsa_init: the process starts clean */
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_SET_EVENT, &s), -EINVAL, "events went with the process");
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), 0, "the VA is free again");
  cr_assert_eq(free_mem(h), 0);
}

Test(kfd_abi, vram_setting_sizes_the_bank, .init = NULL, .fini = NULL) {
  /* KFDSIM_VRAM is read once per process image: check it through a child image */
  FILE *p = popen("KFDSIM_VRAM=16G cat " NODES "/1/mem_banks/0/properties", "r");
  cr_assert_not_null(p);
  char line[128];
  bool found = false;
  while (fgets(line, sizeof(line), p))
    found |= !strcmp(line, "size_in_bytes 17179869184\n");
  pclose(p);
  cr_assert(found, "the mem bank reports KFDSIM_VRAM");
}

Test(kfd_abi, wild_pointers_get_efault_not_a_crash) {
  struct kfd_ioctl_get_version_args *wild = (void *)0x10;
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_VERSION, wild), -EFAULT);
  uint64_t h;
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), 0);
  struct kfd_ioctl_map_memory_to_gpu_args m = { .handle = h, .device_ids_array_ptr = 0x20, .n_devices = 1 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m), -EFAULT);
  struct kfd_ioctl_wait_events_args w = { .events_ptr = 0x30, .num_events = 2, .timeout = 0 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_WAIT_EVENTS, &w), -EFAULT);
  struct kfd_ioctl_get_process_apertures_new_args ap = { .kfd_process_device_apertures_ptr = 0x40,
                                                         .num_of_nodes = 1 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &ap), -EFAULT);
  cr_assert_eq(free_mem(h), 0);
}

Test(kfd_abi, events_page_mmaps_from_kfd) {
  struct kfd_ioctl_create_event_args e = { .event_type = KFD_IOC_EVENT_SIGNAL };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_EVENT, &e), 0);
  cr_assert_eq(e.event_page_offset >> 62, 2, "KFD_MMAP_TYPE_EVENTS");
  cr_assert_eq(mmap(NULL, 16 * PAGE, PROT_READ, MAP_SHARED, kfd, (off_t)e.event_page_offset), MAP_FAILED,
               "no larger than the events page");
  void *one = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, kfd, (off_t)e.event_page_offset);
  cr_assert_neq(one, MAP_FAILED, "one page is allowed (libhsakmt's fallback)");
  munmap(one, PAGE);
  uint64_t *slots = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, kfd, (off_t)e.event_page_offset);
  cr_assert_neq(slots, MAP_FAILED, "mmap events page: %s", strerror(errno));
  cr_assert_eq(slots[e.event_slot_index], ~0ull, "an unsignaled slot holds all ones");
  munmap(slots, 4096 * 8);
}

struct sim_gpu;
Test(kfd_abi, gpu_interrupt_signals_through_the_slot) {
  /* what the command processor does after writing an AQL signal's event mailbox */
  /* the driver's own type: a call through another function type is undefined (UBSan) */
  void (*interrupt)(struct sim_gpu *, uint32_t, uint32_t) =
    (void (*)(struct sim_gpu *, uint32_t, uint32_t))dlsym(RTLD_DEFAULT, "sim_event_interrupt");
  /* libkfdsim.so exports only the libc functions it interposes (libkfdsim.map), so the driver's
   * entry point is not reachable from here: the same path runs end to end in
   * tests/cp/test_cp_kfd.c (an SDMA FENCE into the event slot, then TRAP). */
  if (!interrupt)
    cr_skip_test("sim_event_interrupt is not exported (covered by test_cp_kfd)");
  struct kfd_ioctl_create_event_args e = { .event_type = KFD_IOC_EVENT_SIGNAL, .auto_reset = 1 };
  cr_assert_eq(kioctl(kfd, AMDKFD_IOC_CREATE_EVENT, &e), 0);
  uint64_t *slots = mmap(NULL, 4096 * 8, PROT_READ | PROT_WRITE, MAP_SHARED, kfd, (off_t)e.event_page_offset);
  cr_assert_neq(slots, MAP_FAILED);
  uint32_t res;
  interrupt(NULL, e.event_id, 32);
  cr_assert_eq(wait_one(e.event_id, 0, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_TIMEOUT, "an interrupt without a written slot is spurious");
  slots[e.event_slot_index] = e.event_id;
  interrupt(NULL, 0, 0);   /* no id bits: the driver scans the slots */
  cr_assert_eq(slots[e.event_slot_index], ~0ull, "the driver acknowledged the slot");
  cr_assert_eq(wait_one(e.event_id, 0, 0, &res), 0);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_COMPLETE);
  munmap(slots, 4096 * 8);
}

Test(kfd_abi, child_opens_its_own_process) {
  uint64_t h;
  cr_assert_eq(alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &h, NULL), 0);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    /* as libhsakmt does after fork: a new /dev/kfd open and a fresh process */
    open_gpu();
    uint64_t mine;
    int r = alloc(TEST_VA, PAGE, KFD_IOC_ALLOC_MEM_FLAGS_GTT, &mine, NULL);
    if (r)
      _exit(10 + -r);
    if (free_mem(mine))
      _exit(2);
    _exit(free_mem(h) == -EINVAL ? 0 : 3);   /* the parent's handle means nothing here */
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
            "the child's process has none of the parent's buffers and the VA free (%d)", status);
  cr_assert_eq(free_mem(h), 0, "the parent's buffer is untouched");
}

static void *destroy_later(void *arg)
{
  struct setter *s = arg;
  struct kfd_ioctl_destroy_event_args a = { .event_id = s->id };
  usleep(20000);
  kioctl(kfd, AMDKFD_IOC_DESTROY_EVENT, &a);
  return NULL;
}

Test(kfd_abi, destroying_an_awaited_event_fails_the_wait, .timeout = 30) {
  uint32_t id = create_event(KFD_IOC_EVENT_SIGNAL, false), res = 0;
  struct setter s = { .id = id };
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, destroy_later, &s), 0);
  cr_assert_eq(wait_one(id, 0xffffffffu, 0, &res), -EIO);
  cr_assert_eq(res, KFD_IOC_WAIT_RESULT_FAIL);
  pthread_join(t, NULL);
}
