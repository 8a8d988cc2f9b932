/* src/kfd: topology values against kfdsim's gfx942 profile, per-GPU open, fork handling. */
#include "lowlevel.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

Test(topology, gfx942_profile_values)
{
  struct kfd_gpu *gpu = ll_gpu();
  const struct kfd_node *n = gpu->node;

  cr_assert_eq(n->gfx_target_version, 90402u);
  cr_assert_str_eq(n->name, "gfx942");
  cr_assert_eq(n->cu_count, 304u);
  cr_assert_eq(n->cu_count, n->simd_count / n->simd_per_cu);
  cr_assert_eq(n->wave_front_size, 64u);
  cr_assert_neq(n->gpu_id, 0u);
  cr_assert_gt(n->vram_size, 0u);
  cr_assert_gt(n->lds_size_in_kb, 0u);
  cr_assert_gt(n->max_waves_per_simd, 0u);
  cr_assert_gt(n->l2_kib, 0u);
  cr_assert_eq(n->doorbell_size, 8u);
  cr_assert_gt(n->num_xcc, 0u);
  cr_assert_gt(n->ctl_stack_size, 0u);
  cr_assert_eq(n->ctl_stack_size % 4096u, 0u);
}

Test(topology, system_and_lookup)
{
  struct kfd_gpu *gpu = ll_gpu();
  struct kfd_system sys;
  uint32_t major = 0, minor = 0;

  cr_assert_eq(kfd_topology_system(&sys), 0);
  cr_assert_geq(sys.node_count, sys.gpu_count);
  cr_assert_eq((int)sys.gpu_count, kfd_gpu_count());
  cr_assert_eq(kfd_version(&major, &minor), 0);
  cr_assert_eq(major, 1u);
  cr_assert_geq(minor, 14u);
  cr_assert_eq(kfd_node_by_gpu_id(gpu->gpu_id), gpu->node);
  cr_assert_eq(kfd_node_by_id(gpu->node->node_id), gpu->node);
  cr_assert_null(kfd_node_by_gpu_id(0));
  cr_assert_null(kfd_gpu(-1));
  cr_assert_null(kfd_gpu(kfd_gpu_count()));
  cr_assert(kfd_node_can_access_peer(gpu->node, gpu->node));
}

Test(topology, apertures_and_idempotent_open)
{
  struct kfd_gpu *gpu = ll_gpu(), *again = NULL;

  cr_assert_gt(gpu->gpuvm_limit, gpu->gpuvm_base);
  cr_assert_geq(gpu->render_fd, 0);
  cr_assert_eq(kfd_gpu_open(gpu->node, &again), 0);
  cr_assert_eq(again, gpu);
  cr_assert_eq(kfd_gpu_state(gpu->node), gpu);
  cr_assert_eq(kfd_gpu_open(NULL, &again), -ENODEV);
  cr_assert_null(again);
}

Test(topology, visible_filter)
{
  ll_gpu();
  int count = kfd_gpu_count();
  const struct kfd_node *first = kfd_gpu(0);
  int bad[] = {count}; /* out of range: stops the list */

  cr_assert_eq(kfd_topology_set_visible(bad, 1), 0);
  cr_assert_eq(kfd_gpu_count(), 0);
  cr_assert_null(kfd_gpu(0));
  int zero[] = {0};
  cr_assert_eq(kfd_topology_set_visible(zero, 1), 1);
  cr_assert_eq(kfd_gpu(0), first);
  cr_assert_eq(kfd_topology_set_visible(NULL, -1), count);
  cr_assert_eq(kfd_gpu_count(), count);
}

Test(topology, clock_counters_advance)
{
  struct kfd_gpu *gpu = ll_gpu();
  uint64_t g0 = 0, g1 = 0, c0 = 0, c1 = 0;

  cr_assert_eq(kfd_clock_counters(gpu, &g0, &c0, NULL, NULL), 0);
  usleep(2000);
  cr_assert_eq(kfd_clock_counters(gpu, &g1, &c1, NULL, NULL), 0);
  cr_assert_gt(c1, c0);
  cr_assert_geq(g1, g0);
}

/* A child must reopen /dev/kfd (amdkfd rejects the parent's fd in another process). */
Test(topology, fork_child_reopens)
{
  struct kfd_gpu *gpu = ll_gpu();
  int parent_fd = kfd_fd();
  pid_t pid;
  int status = 0;

  cr_assert_geq(parent_fd, 0);
  (void)gpu;
  pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    struct kfd_gpu *child_gpu = NULL;
    uint32_t major = 0;
    /* 1: the inherited descriptor is gone; 2: reopen works; 3: per-GPU state is rebuilt. */
    if (kfd_fd() != -EBADF)
      _exit(1);
    if (kfd_open() != 0 || kfd_version(&major, NULL) != 0 || major != 1)
      _exit(2);
    if (kfd_gpu_open(kfd_gpu(0), &child_gpu) != 0 || child_gpu == gpu)
      _exit(3);
    _exit(0);
  }
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status));
  cr_assert_eq(WEXITSTATUS(status), 0);
  cr_assert_eq(kfd_fd(), parent_fd);
}
