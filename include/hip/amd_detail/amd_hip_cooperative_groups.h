/* hipkfd: Cooperative Groups for HIP (namespace cooperative_groups).
 *
 * Groups: thread_block, grid_group, multi_grid_group, thread_block_tile<N> (static tiles),
 * tiled groups from tiled_partition(parent, n) (dynamic tiles) and coalesced_group, all
 * convertible to the generic thread_group. Device code has no virtual calls, so thread_group
 * dispatches on a type tag.
 *
 * Mapping onto the hardware (wave64 targets):
 * - a block's threads are numbered x-fastest; consecutive runs of 64 form the waves, so a tile of
 *   N <= 64 threads (N a power of two) is an aligned run of N lanes of one wave: its shuffles
 *   are the width-N warp shuffles and its lanes run in lockstep;
 * - grid sync is ockl's __ockl_grid_sync: a work-group barrier, then one wave per work-group
 *   meets the others at the global wave sync (ds_gws_barrier). It needs a cooperative launch
 *   (hipLaunchCooperativeKernel), which also makes grid_group::is_valid() true through the
 *   hidden multigrid_sync_arg kernel argument;
 * - a dynamic tile wider than a wave synchronises with the whole block (__syncthreads), so every
 *   tile of the block must call sync() together. */
#ifndef HIPKFD_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H
#define HIPKFD_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H

#include <hip/amd_detail/host_defines.h>

#if defined(__HIPKFD_HIP_CLANG__) && defined(__cplusplus)
#include <hip/amd_detail/amd_hip_runtime.h>

#define __CG_QUALIFIER__ __device__ inline __attribute__((always_inline))
#define __CG_STATIC_QUALIFIER__ __device__ static inline __attribute__((always_inline))

namespace cooperative_groups {

namespace internal {
enum group_type : unsigned int {
  cg_thread_block = 0,
  cg_tiled_group = 1,
  cg_coalesced_group = 2,
  cg_grid = 3,
  cg_multi_grid = 4,
};

/* Linear thread index and size of the executing block. */
__CG_QUALIFIER__ unsigned int block_thread_rank() {
  return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
__CG_QUALIFIER__ unsigned int block_size() { return blockDim.x * blockDim.y * blockDim.z; }
__CG_QUALIFIER__ unsigned int block_rank_in_grid() {
  return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}
__CG_QUALIFIER__ unsigned int grid_num_blocks() { return gridDim.x * gridDim.y * gridDim.z; }

/* Memory ordering for a group that lives inside one wave: its lanes already run in lockstep,
 * the fences make LDS/global writes of the group visible to its other lanes. */
__CG_QUALIFIER__ void wave_sync() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

/* Lanes [base, base + n) of the wave as a mask (n <= 64). */
__CG_QUALIFIER__ unsigned long long lane_range_mask(unsigned int base, unsigned int n) {
  unsigned long long bits = n >= 64 ? ~0ull : ((1ull << n) - 1ull);
  return bits << base;
}

/* Compress the bits of `value` selected by `mask` into the low bits (rank order). */
__CG_QUALIFIER__ unsigned long long compress_bits(unsigned long long value, unsigned long long mask) {
  unsigned long long out = 0;
  unsigned int k = 0;
  for (unsigned long long m = mask; m != 0; m &= m - 1, ++k)
    if (value & (m & (~m + 1))) out |= 1ull << k;
  return out;
}
} // namespace internal

/* ---- thread_group: the generic handle ---- */
class thread_group {
 protected:
  unsigned int _type;
  unsigned int _size;           /* number of threads in the group */
  unsigned long long _mask;     /* tiles and coalesced groups: lanes of the wave in the group */
  unsigned int _tile_rank;      /* tiled groups: this thread's rank inside the tile */
  unsigned int _meta_rank;      /* tiled groups: index of the tile within its parent */
  unsigned int _meta_size;      /* tiled groups: number of tiles in the parent */

  __CG_QUALIFIER__ thread_group(internal::group_type type, unsigned int size,
                                unsigned long long mask = 0, unsigned int tile_rank = 0,
                                unsigned int meta_rank = 0, unsigned int meta_size = 0)
      : _type(type), _size(size), _mask(mask), _tile_rank(tile_rank), _meta_rank(meta_rank),
        _meta_size(meta_size) {}

  friend __CG_QUALIFIER__ thread_group tiled_partition(const thread_group &parent,
                                                        unsigned int tile_size);

 public:
  __CG_QUALIFIER__ unsigned int size() const { return _size; }
  __CG_QUALIFIER__ unsigned int num_threads() const { return _size; }
  __CG_QUALIFIER__ unsigned int cg_type() const { return _type; }
  __CG_QUALIFIER__ unsigned int thread_rank() const;
  __CG_QUALIFIER__ bool is_valid() const;
  __CG_QUALIFIER__ void sync() const;
};

/* ---- grids ---- */
class multi_grid_group : public thread_group {
  friend __CG_QUALIFIER__ multi_grid_group this_multi_grid();

 protected:
  __CG_QUALIFIER__ explicit multi_grid_group(unsigned int size)
      : thread_group(internal::cg_multi_grid, size) {}

 public:
  __CG_QUALIFIER__ unsigned int num_grids() { return __ockl_multi_grid_num_grids(); }
  __CG_QUALIFIER__ unsigned int grid_rank() { return __ockl_multi_grid_grid_rank(); }
  __CG_QUALIFIER__ unsigned int thread_rank() const { return __ockl_multi_grid_thread_rank(); }
  __CG_QUALIFIER__ bool is_valid() const { return __ockl_multi_grid_is_valid() != 0; }
  __CG_QUALIFIER__ void sync() const { __ockl_multi_grid_sync(); }
};
__CG_QUALIFIER__ multi_grid_group this_multi_grid() {
  return multi_grid_group(__ockl_multi_grid_size());
}

class grid_group : public thread_group {
  friend __CG_QUALIFIER__ grid_group this_grid();

 protected:
  __CG_QUALIFIER__ explicit grid_group(unsigned int size) : thread_group(internal::cg_grid, size) {}

 public:
  __CG_QUALIFIER__ unsigned int thread_rank() const {
    return internal::block_rank_in_grid() * internal::block_size() + internal::block_thread_rank();
  }
  __CG_QUALIFIER__ bool is_valid() const { return __ockl_grid_is_valid() != 0; }
  __CG_QUALIFIER__ void sync() const { __ockl_grid_sync(); }
  __CG_QUALIFIER__ unsigned int num_blocks() const { return internal::grid_num_blocks(); }
  __CG_QUALIFIER__ unsigned int block_rank() const { return internal::block_rank_in_grid(); }
  __CG_QUALIFIER__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
  __CG_QUALIFIER__ dim3 dim_blocks() const { return group_dim(); }
  __CG_QUALIFIER__ dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
};
__CG_QUALIFIER__ grid_group this_grid() {
  return grid_group(internal::grid_num_blocks() * internal::block_size());
}

/* ---- thread_block ---- */
class thread_block : public thread_group {
  friend __CG_QUALIFIER__ thread_block this_thread_block();

 protected:
  __CG_QUALIFIER__ explicit thread_block(unsigned int size)
      : thread_group(internal::cg_thread_block, size) {}

 public:
  __CG_QUALIFIER__ unsigned int thread_rank() const { return internal::block_thread_rank(); }
  __CG_QUALIFIER__ bool is_valid() const { return true; }
  __CG_QUALIFIER__ void sync() const { __syncthreads(); }
  __CG_QUALIFIER__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  __CG_QUALIFIER__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  __CG_QUALIFIER__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
  __CG_QUALIFIER__ dim3 dim_threads() const { return group_dim(); }
};
__CG_QUALIFIER__ thread_block this_thread_block() { return thread_block(internal::block_size()); }

/* ---- dynamic tiles ---- */
class thread_block_tile_dynamic : public thread_group {
 public:
  __CG_QUALIFIER__ thread_block_tile_dynamic(const thread_group &g) : thread_group(g) {}
  __CG_QUALIFIER__ unsigned int thread_rank() const { return _tile_rank; }
  __CG_QUALIFIER__ unsigned int meta_group_rank() const { return _meta_rank; }
  __CG_QUALIFIER__ unsigned int meta_group_size() const { return _meta_size; }
};

/* ---- coalesced_group: the lanes active when it was made ---- */
template <unsigned int N> class thread_block_tile_base;

class coalesced_group : public thread_group {
  friend __CG_QUALIFIER__ coalesced_group coalesced_threads();
  friend __CG_QUALIFIER__ coalesced_group tiled_partition(const coalesced_group &parent,
                                                          unsigned int tile_size);
  friend __CG_QUALIFIER__ coalesced_group binary_partition(const coalesced_group &parent, bool pred);
  template <unsigned int N>
  friend __CG_QUALIFIER__ coalesced_group binary_partition(const thread_block_tile_base<N> &tile,
                                                           bool pred);

 protected:
  __CG_QUALIFIER__ explicit coalesced_group(unsigned long long mask, unsigned int meta_rank = 0,
                                            unsigned int meta_size = 1)
      : thread_group(internal::cg_coalesced_group, (unsigned int)__builtin_popcountll(mask), mask,
                     0, meta_rank, meta_size) {}

  /* Lane holding rank r of the group. */
  __CG_QUALIFIER__ int lane_of(unsigned int r) const { return (int)__fns64(_mask, 0, (int)r + 1); }

 public:
  __CG_QUALIFIER__ unsigned int thread_rank() const {
    return (unsigned int)__builtin_popcountll(_mask & ((1ull << __lane_id()) - 1ull));
  }
  __CG_QUALIFIER__ bool is_valid() const { return _mask != 0; }
  __CG_QUALIFIER__ void sync() const { internal::wave_sync(); }
  /* A partition's index among its parent's partitions (0 of 1 for coalesced_threads()). */
  __CG_QUALIFIER__ unsigned int meta_group_rank() const { return _meta_rank; }
  __CG_QUALIFIER__ unsigned int meta_group_size() const { return _meta_size; }

  template <class T> __CG_QUALIFIER__ T shfl(T var, int src_rank) const {
    return __shfl(var, lane_of((unsigned int)src_rank % _size));
  }
  template <class T> __CG_QUALIFIER__ T shfl_down(T var, unsigned int delta) const {
    unsigned int r = thread_rank() + delta;
    return __shfl(var, r < _size ? lane_of(r) : (int)__lane_id());
  }
  template <class T> __CG_QUALIFIER__ T shfl_up(T var, unsigned int delta) const {
    unsigned int r = thread_rank();
    return __shfl(var, r >= delta ? lane_of(r - delta) : (int)__lane_id());
  }
  __CG_QUALIFIER__ unsigned long long ballot(int pred) const {
    return internal::compress_bits(__ballot(pred), _mask);
  }
  __CG_QUALIFIER__ int any(int pred) const { return (__ballot(pred) & _mask) != 0; }
  __CG_QUALIFIER__ int all(int pred) const { return (__ballot(pred) & _mask) == _mask; }
  template <class T> __CG_QUALIFIER__ unsigned long long match_any(T value) const {
    return internal::compress_bits(__match_any(value) & _mask, _mask);
  }
  template <class T> __CG_QUALIFIER__ unsigned long long match_all(T value, int &pred) const {
    unsigned long long same = __match_any(value) & _mask;
    pred = same == _mask;
    return pred ? internal::compress_bits(_mask, _mask) : 0ull;
  }
};
__CG_QUALIFIER__ coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* tiled_partition of a coalesced group: the members ranked [t*n, (t+1)*n) form tile t, in
 * rank order (the last tile may be smaller). */
__CG_QUALIFIER__ coalesced_group tiled_partition(const coalesced_group &parent, unsigned int tile_size) {
  unsigned int n = tile_size == 0 ? 1u : tile_size;
  unsigned int tile = parent.thread_rank() / n;
  unsigned long long mask = 0;
  unsigned int rank = 0;
  for (unsigned long long m = parent._mask; m != 0; m &= m - 1, ++rank)
    if (rank / n == tile)
      mask |= m & (~m + 1);
  return coalesced_group(mask, tile, (parent.size() + n - 1u) / n);
}

/* binary_partition: the members of the parent whose predicate equals this thread's; the group
 * of `true` members is meta group 1 of 2. */
__CG_QUALIFIER__ coalesced_group binary_partition(const coalesced_group &parent, bool pred) {
  unsigned long long yes = __ballot(pred) & parent._mask;
  return coalesced_group(pred ? yes : parent._mask & ~yes, pred ? 1u : 0u, 2u);
}

/* ---- generic dispatch ---- */
__CG_QUALIFIER__ unsigned int thread_group::thread_rank() const {
  switch (_type) {
  case internal::cg_thread_block: return static_cast<const thread_block *>(this)->thread_rank();
  case internal::cg_grid: return static_cast<const grid_group *>(this)->thread_rank();
  case internal::cg_multi_grid: return static_cast<const multi_grid_group *>(this)->thread_rank();
  case internal::cg_coalesced_group:
    return static_cast<const coalesced_group *>(this)->thread_rank();
  default: return _tile_rank;
  }
}
__CG_QUALIFIER__ bool thread_group::is_valid() const {
  switch (_type) {
  case internal::cg_grid: return static_cast<const grid_group *>(this)->is_valid();
  case internal::cg_multi_grid: return static_cast<const multi_grid_group *>(this)->is_valid();
  default: return _size != 0;
  }
}
__CG_QUALIFIER__ void thread_group::sync() const {
  switch (_type) {
  case internal::cg_thread_block: __syncthreads(); break;
  case internal::cg_grid: __ockl_grid_sync(); break;
  case internal::cg_multi_grid: __ockl_multi_grid_sync(); break;
  case internal::cg_coalesced_group: internal::wave_sync(); break;
  default:
    if (_size <= (unsigned int)warpSize)
      internal::wave_sync();
    else
      __syncthreads();
    break;
  }
}

/* tiled_partition(parent, n): tiles of n threads (a power of two) numbered by the parent's
 * thread rank. */
__CG_QUALIFIER__ thread_group tiled_partition(const thread_group &parent, unsigned int tile_size) {
  unsigned int prank = parent.thread_rank();
  unsigned int psize = parent.size();
  unsigned int n = tile_size == 0 ? 1u : tile_size;
  unsigned int lane = __lane_id();
  unsigned long long mask =
      n <= (unsigned int)warpSize ? internal::lane_range_mask(lane & ~(n - 1u), n) : ~0ull;
  return thread_group(internal::cg_tiled_group, n, mask, prank % n, prank / n, (psize + n - 1u) / n);
}
__CG_QUALIFIER__ thread_group tiled_partition(const thread_block &parent, unsigned int tile_size) {
  return tiled_partition(static_cast<const thread_group &>(parent), tile_size);
}

/* ---- static tiles: thread_block_tile<N> ---- */
template <unsigned int N> class thread_block_tile_base : public thread_group {
  template <unsigned int M>
  friend __CG_QUALIFIER__ coalesced_group binary_partition(const thread_block_tile_base<M> &tile,
                                                           bool pred);
  static_assert(N > 0 && N <= 64 && (N & (N - 1)) == 0,
                "thread_block_tile size must be a power of two no larger than the wave (64)");

 protected:
  __CG_QUALIFIER__ thread_block_tile_base(unsigned int meta_rank, unsigned int meta_size)
      : thread_group(internal::cg_tiled_group, N,
                     internal::lane_range_mask(__lane_id() & ~(N - 1u), N), __lane_id() & (N - 1u),
                     meta_rank, meta_size) {}

 public:
  static constexpr unsigned int numThreads = N;
  __CG_STATIC_QUALIFIER__ constexpr unsigned int size() { return N; }
  __CG_STATIC_QUALIFIER__ constexpr unsigned int num_threads() { return N; }
  __CG_STATIC_QUALIFIER__ unsigned int thread_rank() { return __lane_id() & (N - 1u); }
  __CG_STATIC_QUALIFIER__ void sync() { internal::wave_sync(); }
  __CG_QUALIFIER__ unsigned int meta_group_rank() const { return _meta_rank; }
  __CG_QUALIFIER__ unsigned int meta_group_size() const { return _meta_size; }
  __CG_QUALIFIER__ bool is_valid() const { return true; }

  template <class T> __CG_QUALIFIER__ T shfl(T var, int src_rank) const { return __shfl(var, src_rank, N); }
  template <class T> __CG_QUALIFIER__ T shfl_down(T var, unsigned int delta) const {
    return __shfl_down(var, delta, N);
  }
  template <class T> __CG_QUALIFIER__ T shfl_up(T var, unsigned int delta) const {
    return __shfl_up(var, delta, N);
  }
  template <class T> __CG_QUALIFIER__ T shfl_xor(T var, unsigned int lane_mask) const {
    return __shfl_xor(var, (int)lane_mask, N);
  }
  /* Bit i of the result is the predicate of tile rank i. */
  __CG_QUALIFIER__ unsigned long long ballot(int pred) const {
    return (__ballot(pred) & _mask) >> (__lane_id() & ~(N - 1u));
  }
  __CG_QUALIFIER__ int any(int pred) const { return (__ballot(pred) & _mask) != 0; }
  __CG_QUALIFIER__ int all(int pred) const { return (__ballot(pred) & _mask) == _mask; }
  template <class T> __CG_QUALIFIER__ unsigned long long match_any(T value) const {
    return (__match_any(value) & _mask) >> (__lane_id() & ~(N - 1u));
  }
  template <class T> __CG_QUALIFIER__ unsigned long long match_all(T value, int &pred) const {
    unsigned long long same = __match_any(value) & _mask;
    pred = same == _mask;
    return pred ? (_mask >> (__lane_id() & ~(N - 1u))) : 0ull;
  }
};

template <unsigned int N>
__CG_QUALIFIER__ coalesced_group binary_partition(const thread_block_tile_base<N> &tile, bool pred) {
  unsigned long long yes = __ballot(pred) & tile._mask;
  return coalesced_group(pred ? yes : tile._mask & ~yes, pred ? 1u : 0u, 2u);
}

template <unsigned int N, class ParentT = void>
class thread_block_tile : public thread_block_tile_base<N> {
 public:
  __CG_QUALIFIER__ thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
      : thread_block_tile_base<N>(meta_rank, meta_size) {}
  /* A tile with a known parent converts to the parent-less form. */
  __CG_QUALIFIER__ operator thread_block_tile<N, void>() const {
    return thread_block_tile<N, void>(this->_meta_rank, this->_meta_size);
  }
};
template <unsigned int N> class thread_block_tile<N, void> : public thread_block_tile_base<N> {
 public:
  __CG_QUALIFIER__ thread_block_tile(unsigned int meta_rank, unsigned int meta_size)
      : thread_block_tile_base<N>(meta_rank, meta_size) {}
};

template <unsigned int N, class ParentT>
__CG_QUALIFIER__ thread_block_tile<N, ParentT> tiled_partition(const ParentT &parent) {
  unsigned int prank = parent.thread_rank();
  unsigned int psize = parent.size();
  return thread_block_tile<N, ParentT>(prank / N, (psize + N - 1u) / N);
}

/* ---- free functions ---- */
template <class GroupT> __CG_QUALIFIER__ void sync(const GroupT &group) { group.sync(); }
template <class GroupT> __CG_QUALIFIER__ unsigned int group_size(const GroupT &group) {
  return group.size();
}
template <class GroupT> __CG_QUALIFIER__ unsigned int thread_rank(const GroupT &group) {
  return group.thread_rank();
}
template <class GroupT> __CG_QUALIFIER__ bool is_valid(const GroupT &group) {
  return group.is_valid();
}

} // namespace cooperative_groups

#endif /* __HIPKFD_HIP_CLANG__ && __cplusplus */
#endif /* HIPKFD_AMD_DETAIL_AMD_HIP_COOPERATIVE_GROUPS_H */
