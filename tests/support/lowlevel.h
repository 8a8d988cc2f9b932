/* Shared setup of the low-level suites: the first visible GPU, or skip when there is none. */
#ifndef HIPKFD_TESTS_LOWLEVEL_H
#define HIPKFD_TESTS_LOWLEVEL_H

#include <criterion/criterion.h>

#include "kfd/kfd.h"

static inline struct kfd_gpu *ll_gpu(void)
{
  struct kfd_gpu *gpu = NULL;

  cr_assert_eq(kfd_topology_load(), 0);
  if (kfd_open() != 0 || kfd_gpu_count() < 1)
    cr_skip_test("no KFD GPU (run with kfdsim preloaded)");
  cr_assert_eq(kfd_gpu_open(kfd_gpu(0), &gpu), 0);
  cr_assert_not_null(gpu);
  return gpu;
}

#endif
