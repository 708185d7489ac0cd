// Stream-mode kernels besides the wavefront and the sweep (see spring_launch.hpp for the
// state layout): a pair's oldest live start, and a lane's fresh or moved state.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_cell.cuh"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {
namespace {

__global__ void spring_live_age(SpringBatchDev b, std::uint32_t* age) {
  const std::uint32_t tile_index = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  const int pl = static_cast<int>(threadIdx.x & 31);
  if (tile_index >= b.tile_count) return;
  const SpringTileDev& tile = b.tiles[tile_index];
  if (static_cast<std::uint32_t>(pl) >= tile.lanes) return;
  const SpringPatternDev& pat = b.patterns[tile.pattern];
  const std::uint32_t next = static_cast<std::uint32_t>(b.chunks[tile.stream[pl]].first);
  std::uint32_t oldest = 0;
  if (tile.d_min[pl] <= pat.eps) oldest = next - static_cast<std::uint32_t>(tile.t_s[pl]);
  const float* d = lane_d(tile, pl);
  const std::int32_t* s = lane_s(tile, pl);
  for (std::uint32_t i = 0; i < pat.m; ++i)
    if (d[i * 32] <= pat.eps) oldest = max(oldest, next - static_cast<std::uint32_t>(s[i * 32]));
  age[tile_index * 32 + pl] = oldest;
}

__global__ void spring_fresh_lanes(const SpringFreshTileDev* tiles) {
  const SpringFreshTileDev t = tiles[blockIdx.x];
  const std::uint32_t lane = threadIdx.x & 31;
  const bool fresh = (t.lanes >> lane) & 1u;
  for (std::uint32_t i = threadIdx.x >> 5; i < t.m; i += blockDim.x >> 5)
    if (fresh) {
      t.d[i * 32 + lane] = float_inf();
      t.s[i * 32 + lane] = 0;
    }
  if (threadIdx.x < 32 && fresh) {
    t.side[lane] = 0;
    t.d_min[lane] = float_inf();
    t.t_s[lane] = 0;
    t.t_e[lane] = 0;
  }
}

__global__ void spring_move_lane(SpringTileDev from, std::uint32_t from_lane, SpringTileDev to,
                                 std::uint32_t to_lane, std::uint32_t m) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += gridDim.x * blockDim.x) {
    to.d[0][i * 32 + to_lane] = lane_d(from, static_cast<int>(from_lane))[i * 32];
    to.s[0][i * 32 + to_lane] = lane_s(from, static_cast<int>(from_lane))[i * 32];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    to.side[to_lane] = 0;
    to.d_min[to_lane] = from.d_min[from_lane];
    to.t_s[to_lane] = from.t_s[from_lane];
    to.t_e[to_lane] = from.t_e[from_lane];
  }
}

unsigned blocks_for(std::uint32_t items, unsigned per_block) {
  return (items + per_block - 1) / per_block;
}

// A lane's column of m rows, 256 threads a block, at most 64 blocks (a grid-stride loop).
unsigned column_blocks(std::uint32_t m) {
  return std::min(blocks_for(m, 256), 64u);
}

}  // namespace

void launch_spring_fresh_lanes(const SpringFreshTileDev* tiles, std::uint32_t count,
                               cudaStream_t stream) {
  if (count == 0) return;
  spring_fresh_lanes<<<count, 256, 0, stream>>>(tiles);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_move_lane(const SpringTileDev& from, std::uint32_t from_lane,
                             const SpringTileDev& to, std::uint32_t to_lane, std::uint32_t m,
                             cudaStream_t stream) {
  spring_move_lane<<<column_blocks(m), 256, 0, stream>>>(from, from_lane, to, to_lane, m);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_live_age(const SpringBatchDev& batch, std::uint32_t* age, cudaStream_t stream) {
  if (batch.tile_count == 0) return;
  spring_live_age<<<blocks_for(batch.tile_count, 4), 128, 0, stream>>>(batch, age);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
