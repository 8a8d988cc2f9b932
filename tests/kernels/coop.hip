/* Cooperative groups: grid-wide synchronisation through hipLaunchCooperativeKernel (ockl's
 * grid sync over the global wave sync unit), grid and block group properties, and statically
 * sized tiles (thread_block_tile<N>) with their shuffles and votes. */
#include "common.h"
#include <hip/hip_cooperative_groups.h>

namespace cg = cooperative_groups;

static const int CG_BLOCKS = 4, CG_THREADS = 128;

static int cooperative_supported() {
  int coop = 0;
  KC_HIP(hipDeviceGetAttribute(&coop, hipDeviceAttributeCooperativeLaunch, 0));
  KC_EXPECT(coop == 1, "hipDeviceAttributeCooperativeLaunch = %d, want 1", coop);
  return KC_OK;
}

/* ---- several phases separated by grid.sync(): each phase reads what other blocks wrote ---- */
__global__ void grid_phases(int *a, int *b, int rounds) {
  cg::grid_group grid = cg::this_grid();
  int n = (int)grid.size();
  int i = (int)grid.thread_rank();
  a[i] = i;
  for (int r = 0; r < rounds; r++) {
    grid.sync();
    /* read an element written by a different block in the previous phase */
    b[i] = a[(i + 3 * CG_THREADS + r * 7) % n] + 1;
    grid.sync();
    a[i] = b[(i + n - CG_THREADS - 1) % n] * 2 % 1000003;
  }
}
static int test_grid_phases() {
  if (cooperative_supported() != KC_OK) return KC_FAIL;
  const int n = CG_BLOCKS * CG_THREADS, rounds = 5;
  kc_buf<int> da, db;
  KC_HIP(da.zero(n));
  KC_HIP(db.zero(n));
  int *pa = da.p, *pb = db.p;
  int rr = rounds;
  void *args[] = {&pa, &pb, &rr};
  KC_HIP(hipLaunchCooperativeKernel((const void *)grid_phases, dim3(CG_BLOCKS), dim3(CG_THREADS), args, 0, 0));
  KC_HIP(hipDeviceSynchronize());
  std::vector<int> a(n), b(n), out;
  for (int i = 0; i < n; i++) a[i] = i;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) b[i] = a[(i + 3 * CG_THREADS + r * 7) % n] + 1;
    for (int i = 0; i < n; i++) a[i] = b[(i + n - CG_THREADS - 1) % n] * 2 % 1000003;
  }
  KC_HIP(da.download(out));
  for (int i = 0; i < n; i++) KC_EXPECT(out[i] == a[i], "after %d grid phases a[%d] = %d, want %d", rounds, i, out[i], a[i]);
  return KC_OK;
}

/* ---- a grid-wide reduction: partials, grid.sync(), block 0 finishes, grid.sync(), all read ---- */
__global__ void grid_reduce(const int *in, long long *partial, long long *result, long long *seen) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  __shared__ long long s[CG_THREADS];
  unsigned t = block.thread_rank();
  s[t] = in[grid.thread_rank()];
  block.sync();
  for (unsigned stride = CG_THREADS / 2; stride > 0; stride >>= 1) {
    if (t < stride) s[t] += s[t + stride];
    block.sync();
  }
  if (t == 0) partial[blockIdx.x] = s[0];
  grid.sync();
  if (grid.thread_rank() == 0) {
    long long total = 0;
    for (unsigned b = 0; b < gridDim.x; b++) total += partial[b];
    *result = total;
  }
  grid.sync();
  seen[grid.thread_rank()] = *result;            /* every work-item sees the final value */
}
static int test_grid_reduce() {
  if (cooperative_supported() != KC_OK) return KC_FAIL;
  const int n = CG_BLOCKS * CG_THREADS;
  kc_rng r(101);
  std::vector<int> in(n);
  long long want = 0;
  for (auto &v : in) { v = r.irange(-1000000, 1000000); want += v; }
  kc_buf<int> din;
  kc_buf<long long> dpart, dres, dseen;
  KC_HIP(din.upload(in));
  KC_HIP(dpart.zero(CG_BLOCKS));
  KC_HIP(dres.zero(1));
  KC_HIP(dseen.zero(n));
  int *pin = din.p;
  long long *pp = dpart.p, *pr = dres.p, *ps = dseen.p;
  void *args[] = {&pin, &pp, &pr, &ps};
  KC_HIP(hipLaunchCooperativeKernel((const void *)grid_reduce, dim3(CG_BLOCKS), dim3(CG_THREADS), args, 0, 0));
  KC_HIP(hipDeviceSynchronize());
  std::vector<long long> res, seen;
  KC_HIP(dres.download(res));
  KC_HIP(dseen.download(seen));
  KC_EXPECT(res[0] == want, "grid reduction = %lld, want %lld", res[0], want);
  for (int i = 0; i < n; i++) KC_EXPECT(seen[i] == want, "work-item %d saw %lld after grid.sync, want %lld", i, seen[i], want);
  return KC_OK;
}

/* ---- group properties: sizes, ranks, validity, block index/dim through the group API ---- */
__global__ void group_properties(int *out) {
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  int i = (int)grid.thread_rank();
  int *o = out + 6 * i;
  o[0] = (int)grid.size();
  o[1] = (int)grid.is_valid();
  o[2] = (int)block.size();
  o[3] = (int)block.thread_rank();
  o[4] = (int)block.group_index().x;
  o[5] = (int)block.thread_index().x;
}
static int test_group_properties() {
  if (cooperative_supported() != KC_OK) return KC_FAIL;
  const int n = CG_BLOCKS * CG_THREADS;
  kc_buf<int> dout;
  KC_HIP(dout.zero(6 * n));
  int *po = dout.p;
  void *args[] = {&po};
  KC_HIP(hipLaunchCooperativeKernel((const void *)group_properties, dim3(CG_BLOCKS), dim3(CG_THREADS), args, 0, 0));
  KC_HIP(hipDeviceSynchronize());
  std::vector<int> out;
  KC_HIP(dout.download(out));
  for (int i = 0; i < n; i++) {
    int want[6] = {n, 1, CG_THREADS, i % CG_THREADS, i / CG_THREADS, i % CG_THREADS};
    static const char *names[6] = {"grid.size()", "grid.is_valid()", "block.size()", "block.thread_rank()",
                                   "block.group_index().x", "block.thread_index().x"};
    for (int k = 0; k < 6; k++)
      KC_EXPECT(out[6 * i + k] == want[k], "work-item %d: %s = %d, want %d", i, names[k], out[6 * i + k], want[k]);
  }
  return KC_OK;
}

/* ---- static tiles: thread_block_tile<16> reductions with shfl_down, any/all votes,
 * launched normally (no grid sync needed) ---- */
__global__ void tiles16(const int *in, int *sum, int *rank, int *votes) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  for (unsigned d = 8; d > 0; d >>= 1) v += tile.shfl_down(v, d);
  rank[i] = (int)tile.thread_rank() | ((int)tile.size() << 8);
  if (tile.thread_rank() == 0) sum[i / 16] = v;
#if defined(__HIPKFD__)
  int any = tile.any(in[i] > 95);
  int all = tile.all(in[i] >= 0);
#else
  /* HIP 5.2's thread_block_tile has no any/all: the same votes from a wave ballot */
  unsigned long long mask = 0xffffull << (__lane_id() & ~15u);
  int any = (__ballot(in[i] > 95) & mask) != 0;
  int all = (__ballot(in[i] >= 0) & mask) == mask;
#endif
  if (tile.thread_rank() == 0) votes[i / 16] = (any != 0) | ((all != 0) << 1);
}
static int test_tiles16() {
  const int n = 256;
  kc_rng r(102);
  std::vector<int> in(n);
  for (auto &v : in) v = r.irange(0, 95);
  in[17] = 99;           /* tile 1: any */
  in[40] = -3;           /* tile 2: not all */
  kc_buf<int> din, dsum, drank, dvotes;
  KC_HIP(din.upload(in));
  KC_HIP(dsum.zero(n / 16));
  KC_HIP(drank.zero(n));
  KC_HIP(dvotes.zero(n / 16));
  tiles16<<<2, 128>>>(din.p, dsum.p, drank.p, dvotes.p);
  KC_SYNC();
  std::vector<int> sum, rank, votes;
  KC_HIP(dsum.download(sum));
  KC_HIP(drank.download(rank));
  KC_HIP(dvotes.download(votes));
  for (int t = 0; t < n / 16; t++) {
    int s = 0, any = 0, all = 1;
    for (int k = 0; k < 16; k++) {
      s += in[16 * t + k];
      any |= in[16 * t + k] > 95;
      all &= in[16 * t + k] >= 0;
    }
    KC_EXPECT(sum[t] == s, "tile %d shfl_down sum = %d, want %d", t, sum[t], s);
    KC_EXPECT(votes[t] == (any | (all << 1)), "tile %d votes = %d, want any=%d all=%d", t, votes[t], any, all);
  }
  for (int i = 0; i < n; i++)
    KC_EXPECT(rank[i] == ((i % 16) | (16 << 8)), "work-item %d tile rank/size = 0x%x", i, rank[i]);
  return KC_OK;
}

static const kc_test tests[] = {
    {"grid_phases", test_grid_phases},
    {"grid_reduce", test_grid_reduce},
    {"group_properties", test_group_properties},
    {"tiles16", test_tiles16},
};
KC_MAIN("coop", tests)
