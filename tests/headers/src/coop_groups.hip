// Cooperative groups: thread_block, grid_group (grid sync), multi_grid_group, static and dynamic
// tiles, coalesced groups (hip_cooperative_groups.h).
// EXPECT-ASM: ds_gws_barrier
// EXPECT-ASM: hidden_multigrid_sync_arg
// EXPECT-ASM: s_barrier
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

namespace cg = cooperative_groups;

template <unsigned int N> __device__ int tile_ops(const cg::thread_block &block, int v) {
  cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
  int r = tile.shfl(v, 0) + tile.shfl_down(v, 1) + tile.shfl_up(v, 1) + tile.shfl_xor(v, 1);
  r += (int)tile.ballot(v > 0) + tile.any(v == 3) + tile.all(v >= 0) + (int)tile.match_any(v);
  int pred = 0;
  r += (int)tile.match_all(v, pred) + pred;
  tile.sync();
  return r + (int)tile.thread_rank() + (int)tile.size() + (int)tile.meta_group_rank() +
         (int)tile.meta_group_size() + (int)tile.num_threads();
}

__global__ void coop_kernel(int *out) {
  cg::thread_block block = cg::this_thread_block();
  cg::grid_group grid = cg::this_grid();
  int v = out[grid.thread_rank()];
  int r = tile_ops<2>(block, v) + tile_ops<4>(block, v) + tile_ops<8>(block, v) +
          tile_ops<16>(block, v) + tile_ops<32>(block, v) + tile_ops<64>(block, v);
  cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(t32);
  r += (int)t8.thread_rank();
  cg::thread_group dyn = cg::tiled_partition(block, 16);
  cg::thread_group big = cg::tiled_partition(block, 128);
  dyn.sync();
  big.sync();
  cg::sync(block);
  r += (int)dyn.thread_rank() + (int)dyn.size() + (int)big.thread_rank() + dyn.is_valid();
  if (v > 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    r += active.shfl(v, 0) + active.shfl_down(v, 1) + active.shfl_up(v, 1) +
         (int)active.thread_rank() + (int)active.size() + (int)active.ballot(v > 2) +
         active.any(v == 1) + active.all(v > 0);
    active.sync();
  }
  block.sync();
  r += (int)block.thread_rank() + (int)block.size() + (int)block.group_index().x +
       (int)block.thread_index().y + (int)block.group_dim().z + (int)block.dim_threads().x;
  if (grid.is_valid()) grid.sync();
  r += (int)grid.size() + (int)grid.num_blocks() + (int)grid.block_rank() +
       (int)grid.group_dim().x + (int)grid.block_index().x;
  cg::thread_group generic = block;
  generic.sync();
  r += (int)generic.thread_rank() + (int)cg::thread_rank(generic) + (int)cg::group_size(generic);
  out[grid.thread_rank()] = r;
}

__global__ void multi_grid_kernel(int *out) {
  cg::multi_grid_group mg = cg::this_multi_grid();
  if (mg.is_valid()) mg.sync();
  out[threadIdx.x] = (int)mg.thread_rank() + (int)mg.num_grids() + (int)mg.grid_rank() + (int)mg.size();
}

int launch(int *out) {
  coop_kernel<<<2, 256>>>(out);
  multi_grid_kernel<<<1, 64>>>(out);
  return 0;
}
