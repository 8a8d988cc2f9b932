// The kernel-language headers executed: kernels built by clang-19 with hipkfd's include/hip/,
// launched through libamdhip64 (ours) on kfdsim or a GPU, each result compared on the host with
// a value computed independently from the HIP/CUDA definition of the function.
// Exit status 0 and "device_semantics: PASSED" when every check holds.
#include <hip/hip_bf16.h>
#include <hip/hip_complex.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

static int failures = 0;

#define HIP_CHECK(expr)                                                                   \
  do {                                                                                    \
    hipError_t err_ = (expr);                                                             \
    if (err_ != hipSuccess) {                                                             \
      std::printf("device_semantics: %s failed: %s\n", #expr, hipGetErrorString(err_));    \
      std::exit(2);                                                                       \
    }                                                                                     \
  } while (0)

#define CHECK_EQ(what, index, actual, expected)                                           \
  do {                                                                                    \
    long long a_ = (long long)(actual), e_ = (long long)(expected);                        \
    if (a_ != e_) {                                                                       \
      if (failures < 40)                                                                  \
        std::printf("FAIL %s [%d]: got %lld (0x%llx), expected %lld (0x%llx)\n", what,     \
                    (int)(index), a_, (unsigned long long)a_, e_, (unsigned long long)e_); \
      ++failures;                                                                         \
    }                                                                                     \
  } while (0)

template <class T> struct device_buffer {
  T *ptr = nullptr;
  size_t n;
  explicit device_buffer(size_t count, const T *init = nullptr) : n(count) {
    HIP_CHECK(hipMalloc(&ptr, n * sizeof(T)));
    if (init)
      HIP_CHECK(hipMemcpy(ptr, init, n * sizeof(T), hipMemcpyHostToDevice));
    else
      HIP_CHECK(hipMemset(ptr, 0, n * sizeof(T)));
  }
  ~device_buffer() { (void)hipFree(ptr); }
  std::vector<T> read() const {
    std::vector<T> h(n);
    HIP_CHECK(hipMemcpy(h.data(), ptr, n * sizeof(T), hipMemcpyDeviceToHost));
    return h;
  }
};

static void sync() {
  HIP_CHECK(hipGetLastError());
  HIP_CHECK(hipDeviceSynchronize());
}

// ---- index built-ins: a 3D grid of 3D blocks ----
__global__ void index_kernel(uint4 *out) {
  dim3 bd = blockDim, gd = gridDim;
  unsigned int block = (blockIdx.z * gd.y + blockIdx.y) * gd.x + blockIdx.x;
  unsigned int thread = (threadIdx.z * bd.y + threadIdx.y) * bd.x + threadIdx.x;
  unsigned int g = block * (bd.x * bd.y * bd.z) + thread;
  out[g] = make_uint4(threadIdx.x | threadIdx.y << 8 | threadIdx.z << 16,
                      blockIdx.x | blockIdx.y << 8 | blockIdx.z << 16,
                      bd.x | bd.y << 8 | bd.z << 16, gd.x | gd.y << 8 | gd.z << 16);
}

static void test_index() {
  const dim3 grid(3, 2, 2), block(4, 4, 4);
  const unsigned int total = 3 * 2 * 2 * 64;
  device_buffer<uint4> out(total);
  index_kernel<<<grid, block>>>(out.ptr);
  sync();
  std::vector<uint4> h = out.read();
  for (unsigned int bz = 0; bz < 2; ++bz)
    for (unsigned int by = 0; by < 2; ++by)
      for (unsigned int bx = 0; bx < 3; ++bx)
        for (unsigned int t = 0; t < 64; ++t) {
          unsigned int g = ((bz * 2 + by) * 3 + bx) * 64 + t;
          unsigned int tx = t % 4, ty = (t / 4) % 4, tz = t / 16;
          CHECK_EQ("threadIdx", g, h[g].x, tx | ty << 8 | tz << 16);
          CHECK_EQ("blockIdx", g, h[g].y, bx | by << 8 | bz << 16);
          CHECK_EQ("blockDim", g, h[g].z, 4 | 4 << 8 | 4 << 16);
          CHECK_EQ("gridDim", g, h[g].w, 3 | 2 << 8 | 2 << 16);
        }
}

// ---- warp functions: one block of two waves ----
struct warp_out {
  unsigned long long ballot, active, match, match_all;
  int all, any, all_pred, lane;
  int shfl, shfl_w16, up, up_w8, down, down_w32, xor1, xor_w8;
  double shfl_d;
  long long shfl_ll;
  int red_add, red_min, red_max;
  unsigned int red_or, red_and, red_xor, red_add_part;
  float red_fadd;
  long long red_lladd;
};

__host__ __device__ int lane_value(int lane) { return lane * 7 + 3; }

__global__ void warp_kernel(warp_out *out) {
  warp_out r;
  const int lane = (int)__lane_id();
  const int v = lane_value(lane);
  r.lane = lane;
  r.ballot = __ballot(lane % 3 == 0);
  r.active = __activemask();
  r.all = __all(v > 0);
  r.any = __any(lane == 17);
  r.shfl = __shfl(v, 5);
  r.shfl_w16 = __shfl(v, 3, 16);
  r.up = __shfl_up(v, 1u);
  r.up_w8 = __shfl_up(v, 3u, 8);
  r.down = __shfl_down(v, 2u);
  r.down_w32 = __shfl_down(v, 5u, 32);
  r.xor1 = __shfl_xor(v, 1);
  r.xor_w8 = __shfl_xor(v, 12, 8);
  r.shfl_d = __shfl((double)v + 0.5, 63 - lane);
  r.shfl_ll = __shfl(((long long)v << 33) | 1, (lane + 1) % 64);
  r.match = __match_any(lane / 8);
  int pred = 0;
  r.match_all = __match_all(lane < 64 ? 1 : 0, &pred);
  r.all_pred = pred;
  r.red_add = __reduce_add_sync(~0ull, v);
  r.red_min = __reduce_min_sync(~0ull, 100 - lane);
  r.red_max = __reduce_max_sync(~0ull, v);
  r.red_or = __reduce_or_sync(~0ull, 1u << (lane % 32));
  r.red_and = __reduce_and_sync(~0ull, (0xffu & ~(1u << (lane % 8))) | 0x100u);
  r.red_xor = __reduce_xor_sync(~0ull, (unsigned int)lane);
  r.red_add_part = __reduce_add_sync(0xffull, 1u);
  r.red_fadd = __reduce_add_sync(~0ull, 0.5f);
  r.red_lladd = __reduce_add_sync(~0ull, (long long)lane << 32);
  out[threadIdx.x] = r;
}

static void test_warp() {
  device_buffer<warp_out> out(128);
  warp_kernel<<<1, 128>>>(out.ptr);
  sync();
  std::vector<warp_out> h = out.read();
  unsigned long long ballot = 0;
  for (int l = 0; l < 64; l += 3) ballot |= 1ull << l;
  int sum = 0, maxv = 0;
  for (int l = 0; l < 64; ++l) {
    sum += lane_value(l);
    maxv = lane_value(l) > maxv ? lane_value(l) : maxv;
  }
  for (int t = 0; t < 128; ++t) {
    const warp_out &r = h[t];
    const int l = t % 64;
    const int v = lane_value(l);
    CHECK_EQ("__lane_id", t, r.lane, l);
    CHECK_EQ("__ballot", t, r.ballot, ballot);
    CHECK_EQ("__activemask", t, r.active, ~0ull);
    CHECK_EQ("__all", t, r.all, 1);
    CHECK_EQ("__any", t, r.any, 1);
    CHECK_EQ("__shfl", t, r.shfl, lane_value(5));
    CHECK_EQ("__shfl width 16", t, r.shfl_w16, lane_value((l & ~15) + 3));
    CHECK_EQ("__shfl_up", t, r.up, l >= 1 ? lane_value(l - 1) : v);
    CHECK_EQ("__shfl_up width 8", t, r.up_w8, (l % 8) >= 3 ? lane_value(l - 3) : v);
    CHECK_EQ("__shfl_down", t, r.down, l + 2 < 64 ? lane_value(l + 2) : v);
    CHECK_EQ("__shfl_down width 32", t, r.down_w32, (l % 32) + 5 < 32 ? lane_value(l + 5) : v);
    CHECK_EQ("__shfl_xor", t, r.xor1, lane_value(l ^ 1));
    // width 8, mask 12: l ^ 12 leaves the segment of 8 upwards when bit 3 flips to 1
    int src = l ^ 12;
    CHECK_EQ("__shfl_xor width 8", t, r.xor_w8, src >= ((l + 8) & ~7) ? v : lane_value(src));
    CHECK_EQ("__shfl double", t, (long long)(r.shfl_d * 2), (long long)((lane_value(63 - l) + 0.5) * 2));
    CHECK_EQ("__shfl long long", t, r.shfl_ll, ((long long)lane_value((l + 1) % 64) << 33) | 1);
    CHECK_EQ("__match_any", t, r.match, 0xffull << (8 * (l / 8)));
    CHECK_EQ("__match_all", t, r.match_all, ~0ull);
    CHECK_EQ("__match_all pred", t, r.all_pred, 1);
    CHECK_EQ("__reduce_add_sync", t, r.red_add, sum);
    CHECK_EQ("__reduce_min_sync", t, r.red_min, 100 - 63);
    CHECK_EQ("__reduce_max_sync", t, r.red_max, maxv);
    CHECK_EQ("__reduce_or_sync", t, r.red_or, 0xffffffffu);
    CHECK_EQ("__reduce_and_sync", t, r.red_and, 0x100u);
    CHECK_EQ("__reduce_xor_sync", t, r.red_xor, 0u); // xor of 0..63
    CHECK_EQ("__reduce_add_sync mask 0xff", t, r.red_add_part, 8u);
    CHECK_EQ("__reduce_add_sync float", t, (long long)(r.red_fadd * 2), 64);
    CHECK_EQ("__reduce_add_sync long long", t, r.red_lladd, 2016ll << 32);
  }
}

// ---- block synchronisation and shared memory ----
extern __shared__ int dyn_smem[];

__global__ void sync_kernel(int *out) {
  __shared__ int tile[256];
  const int t = (int)threadIdx.x;
  tile[t] = t * 2;
  dyn_smem[t] = t + 1000;
  __syncthreads();
  out[t] = tile[255 - t] + dyn_smem[(t + 1) % 256];
  out[256 + t] = __syncthreads_count(t % 5 == 0);
  out[512 + t] = __syncthreads_and(t < 256);
  out[768 + t] = __syncthreads_and(t != 77);
  out[1024 + t] = __syncthreads_or(t == 200);
  out[1280 + t] = __syncthreads_or(0);
}

static void test_sync() {
  device_buffer<int> out(1536);
  sync_kernel<<<1, 256, 256 * sizeof(int)>>>(out.ptr);
  sync();
  std::vector<int> h = out.read();
  for (int t = 0; t < 256; ++t) {
    CHECK_EQ("__syncthreads + shared", t, h[t], (255 - t) * 2 + (t + 1) % 256 + 1000);
    CHECK_EQ("__syncthreads_count", t, h[256 + t], 52); // multiples of 5 in 0..255
    CHECK_EQ("__syncthreads_and (all)", t, h[512 + t] != 0, 1);
    CHECK_EQ("__syncthreads_and (one false)", t, h[768 + t] != 0, 0);
    CHECK_EQ("__syncthreads_or (one true)", t, h[1024 + t] != 0, 1);
    CHECK_EQ("__syncthreads_or (none)", t, h[1280 + t] != 0, 0);
  }
}

// ---- atomics ----
struct atomic_state {
  int add, sub, max, min, cas_count, exch_seen;
  unsigned int inc, dec, and_bits, or_bits, xor_bits;
  unsigned long long add64;
  float fadd, unsafe_fadd, fmax;
  double dadd, safe_dadd;
  int sys_add, block_add;
  int lds_result;
};

__global__ void atomic_kernel(atomic_state *s) {
  __shared__ int lds_counter;
  const int g = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x == 0) lds_counter = 0;
  __syncthreads();
  atomicAdd(&s->add, 3);
  atomicSub(&s->sub, 2);
  atomicMax(&s->max, g);
  atomicMin(&s->min, -g);
  atomicInc(&s->inc, 9u);       // wraps to 0 after 9
  atomicDec(&s->dec, 1000u);  // (old == 0 || old > 1000) ? 1000 : old - 1
  atomicAnd(&s->and_bits, ~(1u << (g % 32)));
  atomicOr(&s->or_bits, 1u << (g % 32));
  atomicXor(&s->xor_bits, 1u << (g % 4));
  atomicAdd(&s->add64, 1ull << 32);
  atomicAdd(&s->fadd, 0.5f);
  unsafeAtomicAdd(&s->unsafe_fadd, 0.25f);
  atomicMax(&s->fmax, (float)g * 0.5f);
  atomicAdd(&s->dadd, 0.125);
  safeAtomicAdd(&s->safe_dadd, 1.0);
  atomicAdd_system(&s->sys_add, 1);
  atomicAdd_block(&s->block_add, 1);
  atomicExch(&s->exch_seen, g);
  // A CAS loop incrementing a counter: every thread must succeed exactly once.
  int old = s->cas_count, assumed;
  do {
    assumed = old;
    old = atomicCAS(&s->cas_count, assumed, assumed + 1);
  } while (old != assumed);
  atomicAdd(&lds_counter, 2);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(&s->lds_result, lds_counter);
}

static void test_atomics() {
  atomic_state init;
  std::memset(&init, 0, sizeof(init));
  init.min = 1 << 20;
  init.max = -1;
  init.dec = 1000;
  init.and_bits = 0xffffffffu;
  init.fmax = -1.0f;
  device_buffer<atomic_state> s(1, &init);
  const int blocks = 4, threads = 128, n = blocks * threads;
  atomic_kernel<<<blocks, threads>>>(s.ptr);
  sync();
  atomic_state r = s.read()[0];
  CHECK_EQ("atomicAdd", 0, r.add, 3 * n);
  CHECK_EQ("atomicSub", 0, r.sub, -2 * n);
  CHECK_EQ("atomicMax", 0, r.max, n - 1);
  CHECK_EQ("atomicMin", 0, r.min, -(n - 1));
  CHECK_EQ("atomicInc wrap", 0, r.inc, n % 10);
  CHECK_EQ("atomicDec", 0, r.dec, 1000 - n); // old > limit would reset to the limit
  CHECK_EQ("atomicAnd", 0, r.and_bits, 0u);
  CHECK_EQ("atomicOr", 0, r.or_bits, 0xffffffffu);
  CHECK_EQ("atomicXor", 0, r.xor_bits, 0u); // each bit flipped n/4 (even) times
  CHECK_EQ("atomicAdd u64", 0, r.add64, (unsigned long long)n << 32);
  CHECK_EQ("atomicAdd float", 0, (long long)r.fadd, n / 2);
  CHECK_EQ("unsafeAtomicAdd float", 0, (long long)(r.unsafe_fadd * 4), n);
  CHECK_EQ("atomicMax float", 0, (long long)(r.fmax * 2), n - 1);
  CHECK_EQ("atomicAdd double", 0, (long long)(r.dadd * 8), n);
  CHECK_EQ("safeAtomicAdd double", 0, (long long)r.safe_dadd, n);
  CHECK_EQ("atomicAdd_system", 0, r.sys_add, n);
  CHECK_EQ("atomicAdd_block", 0, r.block_add, n);
  CHECK_EQ("atomicCAS loop", 0, r.cas_count, n);
  CHECK_EQ("atomicExch in range", 0, r.exch_seen >= 0 && r.exch_seen < n, 1);
  CHECK_EQ("LDS atomicAdd", 0, r.lds_result, 2 * n);
}

// ---- cooperative groups (block level) ----
struct coop_out {
  int block_rank, block_size, t16_rank, t16_meta, t16_shfl, t16_down, t16_xor;
  unsigned long long t16_ballot;
  int t16_any, t16_all, dyn_rank, dyn_size, dyn_meta, co_rank, co_size, co_shfl;
  unsigned long long co_ballot;
  int t4_of_t16_rank, generic_rank;
  int cot_size, cot_rank, cot_meta, cob_size, cob_meta, tb_size;
};

__global__ void coop_kernel(coop_out *out) {
  cg::thread_block b = cg::this_thread_block();
  coop_out r;
  r = coop_out{};
  const int rank = (int)b.thread_rank();
  r.block_rank = rank;
  r.block_size = (int)b.size();
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(b);
  r.t16_rank = (int)t16.thread_rank();
  r.t16_meta = (int)t16.meta_group_rank();
  r.t16_shfl = t16.shfl(rank, 3);
  r.t16_down = t16.shfl_down(rank, 1);
  r.t16_xor = t16.shfl_xor(rank, 5);
  r.t16_ballot = t16.ballot(rank % 2 == 0);
  r.t16_any = t16.any(rank == 40);
  r.t16_all = t16.all(rank < 96);
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t16);
  r.t4_of_t16_rank = (int)t4.meta_group_rank();
  cg::thread_group dyn = cg::tiled_partition(b, 32);
  r.dyn_rank = (int)dyn.thread_rank();
  r.dyn_size = (int)dyn.size();
  r.dyn_meta = (int)cg::thread_block_tile_dynamic(dyn).meta_group_rank();
  if (rank % 3 == 1) {
    cg::coalesced_group co = cg::coalesced_threads();
    r.co_rank = (int)co.thread_rank();
    r.co_size = (int)co.size();
    r.co_shfl = co.shfl(rank, 0);
    r.co_ballot = co.ballot(rank % 2 == 0);
    cg::coalesced_group cot = cg::tiled_partition(co, 8);  // by coalesced rank
    r.cot_size = (int)cot.size();
    r.cot_rank = (int)cot.thread_rank();
    r.cot_meta = (int)cot.meta_group_rank();
    cg::coalesced_group cob = cg::binary_partition(co, rank % 2 == 0);
    r.cob_size = (int)cob.size();
    r.cob_meta = (int)cob.meta_group_rank();
  }
  r.tb_size = (int)cg::binary_partition(t16, t16.thread_rank() < 5).size();
  b.sync();
  cg::thread_group generic = b;
  r.generic_rank = (int)generic.thread_rank();
  out[rank] = r;
}

static void test_coop() {
  device_buffer<coop_out> out(128);
  coop_kernel<<<1, 128>>>(out.ptr);
  sync();
  std::vector<coop_out> h = out.read();
  for (int t = 0; t < 128; ++t) {
    const coop_out &r = h[t];
    const int wave_base = t & ~63;
    CHECK_EQ("thread_block.thread_rank", t, r.block_rank, t);
    CHECK_EQ("thread_block.size", t, r.block_size, 128);
    CHECK_EQ("tile<16>.thread_rank", t, r.t16_rank, t % 16);
    CHECK_EQ("tile<16>.meta_group_rank", t, r.t16_meta, t / 16);
    CHECK_EQ("tile<16>.shfl", t, r.t16_shfl, (t & ~15) + 3);
    CHECK_EQ("tile<16>.shfl_down", t, r.t16_down, t % 16 == 15 ? t : t + 1);
    CHECK_EQ("tile<16>.shfl_xor", t, r.t16_xor, t ^ 5);
    CHECK_EQ("tile<16>.ballot", t, r.t16_ballot, 0x5555ull);
    CHECK_EQ("tile<16>.any", t, r.t16_any, (t / 16) == (40 / 16));
    CHECK_EQ("tile<16>.all", t, r.t16_all, t < 96);
    CHECK_EQ("tile<4> of tile<16>.meta_group_rank", t, r.t4_of_t16_rank, (t % 16) / 4);
    CHECK_EQ("tiled_partition(32).thread_rank", t, r.dyn_rank, t % 32);
    CHECK_EQ("tiled_partition(32).size", t, r.dyn_size, 32);
    CHECK_EQ("tiled_partition(32).meta_group_rank", t, r.dyn_meta, t / 32);
    CHECK_EQ("thread_group.thread_rank", t, r.generic_rank, t);
    if (t % 3 == 1) {
      // Active lanes of this wave: wave_base + 1, +4, +7, ... (t % 3 == 1)
      int first = wave_base + ((1 - wave_base % 3) + 3) % 3;
      int count = 0, rank = 0;
      unsigned long long ballot = 0;
      for (int l = wave_base; l < wave_base + 64; ++l)
        if (l % 3 == 1) {
          if (l < t) ++rank;
          if (l % 2 == 0) ballot |= 1ull << count;
          ++count;
        }
      CHECK_EQ("coalesced.thread_rank", t, r.co_rank, rank);
      CHECK_EQ("coalesced.size", t, r.co_size, count);
      CHECK_EQ("coalesced.shfl", t, r.co_shfl, first);
      CHECK_EQ("coalesced.ballot", t, r.co_ballot, ballot);
      int evens = __builtin_popcountll(ballot);
      CHECK_EQ("tiled_partition(coalesced, 8).size", t, r.cot_size, rank / 8 == count / 8 ? count % 8 : 8);
      CHECK_EQ("tiled_partition(coalesced, 8).thread_rank", t, r.cot_rank, rank % 8);
      CHECK_EQ("tiled_partition(coalesced, 8).meta_group_rank", t, r.cot_meta, rank / 8);
      CHECK_EQ("binary_partition(coalesced).size", t, r.cob_size, t % 2 == 0 ? evens : count - evens);
      CHECK_EQ("binary_partition(coalesced).meta_group_rank", t, r.cob_meta, t % 2 == 0);
    }
    CHECK_EQ("binary_partition(tile<16>).size", t, r.tb_size, t % 16 < 5 ? 5 : 11);
  }
}

// ---- integer intrinsics, half and bfloat16: the device agrees with the host ----
__host__ __device__ unsigned long long intrinsic_mix(unsigned int x, unsigned int y) {
  unsigned long long r = __popc(x) ^ (unsigned long long)__clz((int)x) << 6 ^
                         (unsigned long long)__ffs((int)y) << 12 ^ __brev(x) ^
                         (unsigned long long)__byte_perm(x, y, 0x3715u) << 17;
  r += (unsigned long long)__mul24((int)x, (int)y) + __umulhi(x, y) + __funnelshift_l(x, y, y) +
       __funnelshift_rc(x, y, y % 40) + (unsigned)__hadd((int)x, (int)y) + __urhadd(x, y) +
       __sad((int)x, (int)y, 7u) + __bitextract_u32(x, y % 32, 7u) +
       __bitinsert_u32(x, y, y % 32, 5u) + __fns32(x, y % 32, 2) + __umul64hi(x * 0x9E3779B97F4A7C15ull, y);
  return r;
}

__global__ void intrinsic_kernel(const unsigned int *in, unsigned long long *out, unsigned short *h,
                                 unsigned short *bf, int n) {
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  out[i] = intrinsic_mix(in[2 * i], in[2 * i + 1]);
  float f = (float)(int)in[2 * i] / 4096.0f;
  h[i] = __half_as_ushort(__float2half(f));
  bf[i] = __bfloat16_as_ushort(__float2bfloat16(f));
}

static void test_intrinsics() {
  const int n = 256;
  std::vector<unsigned int> in(2 * n);
  unsigned int s = 12345u;
  for (auto &v : in) {
    s = s * 1664525u + 1013904223u;
    v = s;
  }
  in[0] = 0;
  in[1] = 0;
  in[2] = 0xffffffffu;
  in[3] = 1;
  device_buffer<unsigned int> din(in.size(), in.data());
  device_buffer<unsigned long long> out(n);
  device_buffer<unsigned short> h(n), bf(n);
  intrinsic_kernel<<<(n + 63) / 64, 64>>>(din.ptr, out.ptr, h.ptr, bf.ptr, n);
  sync();
  std::vector<unsigned long long> ho = out.read();
  std::vector<unsigned short> hh = h.read(), hb = bf.read();
  for (int i = 0; i < n; ++i) {
    CHECK_EQ("integer intrinsics", i, ho[i], intrinsic_mix(in[2 * i], in[2 * i + 1]));
    float f = (float)(int)in[2 * i] / 4096.0f;
    CHECK_EQ("__float2half", i, hh[i], __half_as_ushort(__float2half(f)));
    CHECK_EQ("__float2bfloat16", i, hb[i], __bfloat16_as_ushort(__float2bfloat16(f)));
  }
}

// ---- half arithmetic, complex, vector operators, timers on the device ----
struct misc_out {
  unsigned short h_fma, h_div, h_shfl, h2_lo, h2_hi;
  float c_re, c_im;
  int4 vec;
  int clock_ok, wall_ok, ldg;
};

__global__ void misc_kernel(const int *in, misc_out *out) {
  misc_out r;
  const int t = (int)threadIdx.x;
  long long c0 = clock64(), w0 = wall_clock64();
  __half a = __float2half(1.5f + t), b = __float2half(0.25f);
  r.h_fma = __half_as_ushort(__hfma(a, b, a));
  r.h_div = __half_as_ushort(a / b);
  r.h_shfl = __half_as_ushort(__shfl_xor(a, 1));
  __half2 v = __hmul2(__floats2half2_rn(2.0f, -3.0f), __half2half2(a));
  r.h2_lo = __half_as_ushort(__low2half(v));
  r.h2_hi = __half_as_ushort(__high2half(v));
  hipFloatComplex z = hipCdivf(hipCmulf(make_hipFloatComplex((float)t, 1.0f),
                                        make_hipFloatComplex(2.0f, -1.0f)),
                               make_hipFloatComplex(0.0f, 1.0f));
  r.c_re = hipCrealf(z);
  r.c_im = hipCimagf(z);
  r.vec = (make_int4(t, 2 * t, 3, -t) * 3 + 1) ^ make_int4(1, 2, 4, 8);
  r.ldg = __ldg(&in[t]);
  __syncwarp();
  long long c1 = clock64(), w1 = wall_clock64();
  r.clock_ok = c1 >= c0;
  r.wall_ok = w1 >= w0;
  out[t] = r;
}

// ---- clock64 counts the shader clock, wall_clock64 the constant reference clock ----
__global__ void clock_rate_kernel(long long wall_ticks, long long *out) {
  long long c0 = clock64(), w0 = wall_clock64(), w1 = w0;
  while (w1 - w0 < wall_ticks)
    w1 = wall_clock64();
  long long c1 = clock64();
  out[0] = c1 - c0;
  out[1] = w1 - w0;
}

// Their ratio is the ratio of the rates the device reports (hipDeviceAttributeClockRate and
// WallClockRate, kHz): a kernel that converts clock64() ticks to time with clockRate gets
// real time. A window of ~20 ms; the best of three tries, so a host thread descheduled
// between two reads does not decide it.
static void test_clock() {
  int clock_khz = 0, wall_khz = 0;
  HIP_CHECK(hipDeviceGetAttribute(&clock_khz, hipDeviceAttributeClockRate, 0));
  HIP_CHECK(hipDeviceGetAttribute(&wall_khz, hipDeviceAttributeWallClockRate, 0));
  device_buffer<long long> out(2);
  double want = (double)clock_khz / wall_khz, best = 1e9;
  for (int i = 0; i < 3; ++i) {
    clock_rate_kernel<<<1, 1>>>((long long)wall_khz * 20, out.ptr);
    sync();
    std::vector<long long> h = out.read();
    double err = h[1] > 0 ? std::fabs((double)h[0] / h[1] / want - 1.0) : 1e9;
    best = err < best ? err : best;
  }
  CHECK_EQ("clock64 ticks per wall_clock64 tick within 10% of clockRate / wallClockRate", 0,
           best < 0.10, 1);
}

// ---- memcpy and memset in device code ----
struct memfunc_block { int v[37]; };
__global__ void memfunc_kernel(int *out, const int *in, size_t n) {
  memcpy(out, in, n * sizeof(int));
  memset(out + 4, 0x01, 8);
  memfunc_block a, b;
  for (int i = 0; i < 37; ++i)
    a.v[i] = i * 3 + (int)threadIdx.x;
  memcpy(&b, &a, sizeof(b));
  out[40] = b.v[36];
}

static void test_memfuncs() {
  std::vector<int> init(64);
  for (int i = 0; i < 64; ++i)
    init[i] = i + 1;
  device_buffer<int> in(64, init.data()), out(64);
  memfunc_kernel<<<1, 1>>>(out.ptr, in.ptr, 10);
  sync();
  std::vector<int> h = out.read();
  for (int i = 0; i < 10; ++i)
    CHECK_EQ("device memcpy/memset", i, h[i], (i == 4 || i == 5) ? 0x01010101 : i + 1);
  CHECK_EQ("device memcpy past the count", 10, h[10], 0);
  CHECK_EQ("device memcpy of a struct", 40, h[40], 108);
}

static void test_misc() {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = i * i - 7;
  device_buffer<int> din(64, in.data());
  device_buffer<misc_out> out(64);
  misc_kernel<<<1, 64>>>(din.ptr, out.ptr);
  sync();
  std::vector<misc_out> h = out.read();
  for (int t = 0; t < 64; ++t) {
    const misc_out &r = h[t];
    __half a = __float2half(1.5f + t), b = __float2half(0.25f);
    CHECK_EQ("__hfma", t, r.h_fma, __half_as_ushort(__hfma(a, b, a)));
    CHECK_EQ("__half /", t, r.h_div, __half_as_ushort(a / b));
    CHECK_EQ("__shfl_xor __half", t, r.h_shfl, __half_as_ushort(__float2half(1.5f + (t ^ 1))));
    CHECK_EQ("__hmul2 lo", t, r.h2_lo, __half_as_ushort(__float2half(2.0f) * a));
    CHECK_EQ("__hmul2 hi", t, r.h2_hi, __half_as_ushort(__float2half(-3.0f) * a));
    // (t + i)(2 - i) / i = (2t + 1 + (2 - t) i) / i = (2 - t) - (2t + 1) i
    CHECK_EQ("hipCmulf/hipCdivf re", t, (long long)r.c_re, 2 - t);
    CHECK_EQ("hipCmulf/hipCdivf im", t, (long long)r.c_im, -(2 * t + 1));
    CHECK_EQ("int4 ops x", t, r.vec.x, (3 * t + 1) ^ 1);
    CHECK_EQ("int4 ops y", t, r.vec.y, (6 * t + 1) ^ 2);
    CHECK_EQ("int4 ops z", t, r.vec.z, 10 ^ 4);
    CHECK_EQ("int4 ops w", t, r.vec.w, (-3 * t + 1) ^ 8);
    CHECK_EQ("__ldg", t, r.ldg, t * t - 7);
    CHECK_EQ("clock64 does not go back", t, r.clock_ok, 1);
    CHECK_EQ("wall_clock64 does not go back", t, r.wall_ok, 1);
  }
}

// ---- device malloc/free (the runtime's device heap) ----
__global__ void malloc_kernel(int *out) {
  int *p = (int *)malloc(64 * sizeof(int));
  if (p == nullptr) {
    out[threadIdx.x] = -1;
    return;
  }
  for (int i = 0; i < 64; ++i) p[i] = (int)threadIdx.x + i;
  int sum = 0;
  for (int i = 0; i < 64; ++i) sum += p[i];
  free(p);
  out[threadIdx.x] = sum;
}

static void test_malloc() {
  device_buffer<int> out(64);
  malloc_kernel<<<1, 64>>>(out.ptr);
  sync();
  std::vector<int> h = out.read();
  for (int t = 0; t < 64; ++t) CHECK_EQ("device malloc", t, h[t], 64 * t + 2016);
}

// ---- device assert: the kernel stops, the runtime reports an error ----
__global__ void assert_kernel(const int *in) { assert(in[threadIdx.x] != 5); }

static void test_assert() {
  std::vector<int> in(64);
  for (int i = 0; i < 64; ++i) in[i] = i;
  device_buffer<int> din(64, in.data());
  assert_kernel<<<1, 64>>>(din.ptr);
  hipError_t e = hipDeviceSynchronize();
  std::printf("device_semantics: assert kernel: %s\n", hipGetErrorString(e));
  CHECK_EQ("failed device assert reports an error", 0, e != hipSuccess, 1);
}

// ---- grid-wide synchronisation (cooperative launch) ----
__global__ void grid_kernel(int *data, int *out, int *valid) {
  cg::grid_group grid = cg::this_grid();
  const unsigned int rank = grid.thread_rank();
  valid[rank] = grid.is_valid();
  data[rank] = (int)rank * 2 + 1;
  grid.sync();
  // Read what a thread of another block wrote before the barrier.
  out[rank] = data[(rank + blockDim.x) % grid.size()];
}

static void test_grid() {
  const int blocks = 4, threads = 64, n = blocks * threads;
  device_buffer<int> data(n), out(n), valid(n);
  int *d = data.ptr, *o = out.ptr, *v = valid.ptr;
  void *args[] = {&d, &o, &v};
  HIP_CHECK(hipLaunchCooperativeKernel((const void *)grid_kernel, dim3(blocks), dim3(threads), args,
                                       0, 0));
  sync();
  std::vector<int> ho = out.read(), hv = valid.read();
  for (int i = 0; i < n; ++i) {
    CHECK_EQ("grid_group.is_valid", i, hv[i], 1);
    CHECK_EQ("grid_group.sync", i, ho[i], ((i + threads) % n) * 2 + 1);
  }
}

// ---- device printf through hostcall ----
__global__ void printf_kernel(int tag) {
  if (threadIdx.x == 0 && blockIdx.x == 1)
    printf("device_semantics: printf from block %d thread %d tag %d %s %.2f\n", (int)blockIdx.x,
           (int)threadIdx.x, tag, "str", 1.5);
}

static void test_printf() {
  printf_kernel<<<2, 64>>>(77);
  sync();
  std::fflush(stdout);
}

int main(int argc, char **argv) {
  // argv[1], if given, names the one group to run (index, warp, sync, atomics, coop,
  // intrinsics, misc, grid, malloc, assert, printf), or "core" for every group but grid, malloc,
  // assert and printf (which need the runtime's cooperative launch, device heap, fault reporting
  // and hostcall service).
  const char *only = argc > 1 ? argv[1] : nullptr;
  const struct {
    const char *name;
    void (*run)();
  } groups[] = {{"index", test_index},       {"warp", test_warp},   {"sync", test_sync},
                {"atomics", test_atomics},   {"coop", test_coop},   {"intrinsics", test_intrinsics},
                {"misc", test_misc},         {"memfuncs", test_memfuncs}, {"clock", test_clock},
                        {"grid", test_grid},   {"malloc", test_malloc},
                {"assert", test_assert},     {"printf", test_printf}};
  for (const auto &g : groups) {
    if (only && std::strcmp(only, "core") == 0) {
      if (std::strcmp(g.name, "printf") == 0 || std::strcmp(g.name, "grid") == 0 ||
          std::strcmp(g.name, "malloc") == 0 || std::strcmp(g.name, "assert") == 0)
        continue;
    } else if (only && std::strcmp(only, g.name) != 0) {
      continue;
    }
    std::printf("device_semantics: %s\n", g.name);
    std::fflush(stdout);
    g.run();
  }
  if (failures != 0) {
    std::printf("device_semantics: FAILED (%d checks)\n", failures);
    return 1;
  }
  std::printf("device_semantics: PASSED\n");
  return 0;
}
