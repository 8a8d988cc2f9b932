// Workgroups that wait on the device clock: a delay loop on clock64() or wall_clock64(), as
// hip-tests' kernels use to keep the GPU busy for a while. On a GPU every resident workgroup
// runs at once, so the waits of a grid that fits overlap and the grid takes one delay. kfdsim
// runs workgroups on a few host threads; a wave spinning on the clock counts as polling there,
// so its workgroup takes turns with the others (sim/isa/dispatch.c, wave_polled) and every
// wait still overlaps every other. The check is on the timestamps the kernel writes, never on
// the host's clock.
#include <criterion/criterion.h>
#include <hip/hip_runtime.h>

#define HIP_OK(expr) cr_assert_eq((expr), hipSuccess, "%s", #expr)

// More workgroups than this machine has host threads, few enough for any GPU to hold at once.
#define GROUPS 16

// Each workgroup (one wave) records when its wait began and ended.
__global__ void delay(long long *t, long long ticks, int wall)
{
  long long t0 = wall ? wall_clock64() : clock64();
  long long now;
  do
    now = wall ? wall_clock64() : clock64();
  while (now - t0 < ticks);
  if (threadIdx.x == 0) {
    t[2 * blockIdx.x] = t0;
    t[2 * blockIdx.x + 1] = now;
  }
}

// Run the delay grid for `ms` milliseconds of the clock and check that all waits overlapped:
// the last workgroup to start began before the first one to finish ended.
static void check_overlap(int wall, double ms)
{
  int khz = 0;
  HIP_OK(hipDeviceGetAttribute(&khz, wall ? hipDeviceAttributeWallClockRate
                                          : hipDeviceAttributeClockRate, 0));
  cr_assert_gt(khz, 0);
  const long long ticks = (long long)(khz * ms);
  long long *d = nullptr;
  HIP_OK(hipMalloc(&d, sizeof(long long) * 2 * GROUPS));
  HIP_OK(hipMemset(d, 0, sizeof(long long) * 2 * GROUPS));
  hipLaunchKernelGGL(delay, dim3(GROUPS), dim3(64), 0, 0, d, ticks, wall);
  HIP_OK(hipGetLastError());
  long long t[2 * GROUPS];
  HIP_OK(hipMemcpy(t, d, sizeof(t), hipMemcpyDeviceToHost));
  HIP_OK(hipFree(d));
  long long last_start = t[0], first_end = t[1];
  for (int g = 0; g < GROUPS; g++) {
    cr_assert_geq(t[2 * g + 1] - t[2 * g], ticks, "workgroup %d waited its whole delay", g);
    last_start = t[2 * g] > last_start ? t[2 * g] : last_start;
    first_end = t[2 * g + 1] < first_end ? t[2 * g + 1] : first_end;
  }
  cr_assert_lt(last_start, first_end,
               "every wait overlaps: last start %lld, first end %lld (%lld ticks apart)",
               last_start, first_end, last_start - first_end);
}

Test(clock_wait, clock64_waits_of_a_grid_overlap)
{
  check_overlap(0, 200.0);
}

Test(clock_wait, wall_clock64_waits_of_a_grid_overlap)
{
  check_overlap(1, 200.0);
}
