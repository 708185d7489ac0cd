// Stream-mode kernels besides the wavefront (see spring_launch.hpp for the state layout).
//
// Two ways through a batch:
//  - the register wavefront (spring_wavefront.cu, 16 or 32 lanes a pair, fast) runs a
//    pair's whole chunk with all of SPEC.md 3.1's rules for patterns up to 512 rows; for
//    longer ones (spring_wavefront_tiled.cu) it runs while no candidate is pending, up to
//    exactly the first column whose last cell qualifies;
//  - spring_exact (here, thread per pair, the reference's loop) continues every pair from
//    where the wavefront left it (`done`), with all rules; it also takes whole chunks
//    shorter than the wavefront's minimum and patterns of several dimensions.
// Both compute each cell as spring_cell.cuh says, so results are bit-identical.
#include <cuda_runtime.h>

#include <algorithm>
#include <cfloat>
#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_cell.cuh"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {
namespace {

__device__ __forceinline__ float f_inf() {
  return __int_as_float(0x7f800000);
}

// ---------------------------------------------------------------------------------
// Thread per pair: kernels/reference/spring.cpp's step(), with the column in global
// memory (coalesced: the 32 lanes of a warp are the 32 pairs of a tile).

template <bool kDk, bool kAbs>
__device__ void exact_pair(const SpringBatchDev& b, const SpringTileDev& tile, int pl,
                           std::uint32_t pair) {
  const SpringChunkDev ch = b.chunks[tile.stream[pl]];
  std::uint32_t t = tile.done[pl];
  if (t >= ch.count) return;
  const SpringPatternDev pat = b.patterns[tile.pattern];
  const int m = static_cast<int>(pat.m), dims = static_cast<int>(pat.dims);
  const float eps = pat.eps;
  const float* pv = b.pattern_values + pat.value_offset;
  float* D = tile.d + pl;
  std::int32_t* S = tile.s + pl;
  float d_min = tile.d_min[pl];
  std::int32_t t_s = tile.t_s[pl], t_e = tile.t_e[pl];
  std::uint32_t held = no_pair;  // a reserved report slot, kept until used
  for (; t < ch.count; ++t) {
    const bool pending = d_min <= eps;
    if (pending && held == no_pair) {
      const std::uint32_t slot = atomicAdd(&b.report_count[0], 1u);
      if (slot >= b.report_capacity) {  // full: stop before this column, resume next launch
        atomicExch(&b.report_count[1], 1u);
        break;
      }
      held = slot;
    }
    const std::int32_t cur = static_cast<std::int32_t>(static_cast<std::uint32_t>(ch.first) + t);
    const float* x = b.values + ch.value_offset + static_cast<std::uint64_t>(t) * dims;
    float up_d = 0.0f, diag_d = 0.0f;
    std::int32_t up_s = cur, diag_s = cur;
    bool final = pending;
    for (int i = 0; i < m; ++i) {
      const float left_d = D[i * 32];
      const std::int32_t left_s = S[i * 32];
      std::int32_t best_s;
      const float best_d = spring_best(up_d, up_s, diag_d, diag_s, left_d, left_s, best_s);
      float c = 0.0f;
      for (int k = 0; k < dims; ++k) c = c + spring_term<kAbs>(x[k], pv[i * dims + k]);
      const float nd = spring_combine<kDk>(c, best_d);
      D[i * 32] = nd;
      S[i * 32] = best_s;
      final = final && (nd >= d_min || starts_after(best_s, t_e));
      diag_d = left_d;
      diag_s = left_s;
      up_d = nd;
      up_s = best_s;
    }
    float d_m = up_d;
    const std::int32_t s_m = up_s;
    if (pending && final) {  // rule 1: report, then forget the cells the match overlaps
      b.reports[held] = SpringReportDev{pair, t, d_min, t_s, t_e};
      held = no_pair;
      d_min = f_inf();
      for (int i = 0; i < m; ++i)
        if (!starts_after(S[i * 32], t_e)) D[i * 32] = f_inf();
      if (!starts_after(s_m, t_e)) d_m = f_inf();
    }
    if (d_m <= eps && d_m < d_min) {  // rule 2
      d_min = d_m;
      t_s = s_m;
      t_e = cur;
    }
  }
  tile.done[pl] = t;
  tile.d_min[pl] = d_min;
  tile.t_s[pl] = t_s;
  tile.t_e[pl] = t_e;
  if (held != no_pair) b.reports[held].pair = no_pair;
}

__global__ void spring_exact(SpringBatchDev b) {
  const std::uint32_t tile_index = blockIdx.x * (blockDim.x / 32) + (threadIdx.x >> 5);
  const int pl = static_cast<int>(threadIdx.x & 31);
  if (tile_index >= b.tile_count) return;
  const SpringTileDev& tile = b.tiles[tile_index];
  if (static_cast<std::uint32_t>(pl) >= tile.lanes) return;
  const SpringPatternDev& pat = b.patterns[tile.pattern];
  const std::uint32_t pair = tile_index * 32 + static_cast<std::uint32_t>(pl);
  if (pat.dk) {
    if (pat.abs_cost)
      exact_pair<true, true>(b, tile, pl, pair);
    else
      exact_pair<true, false>(b, tile, pl, pair);
  } else {
    if (pat.abs_cost)
      exact_pair<false, true>(b, tile, pl, pair);
    else
      exact_pair<false, false>(b, tile, pl, pair);
  }
}

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
  for (std::uint32_t i = 0; i < pat.m; ++i)
    if (tile.d[i * 32 + pl] <= pat.eps)
      oldest = max(oldest, next - static_cast<std::uint32_t>(tile.s[i * 32 + pl]));
  age[tile_index * 32 + pl] = oldest;
}

__global__ void spring_fresh_lane(SpringTileDev tile, std::uint32_t m, std::uint32_t lane) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += gridDim.x * blockDim.x) {
    tile.d[i * 32 + lane] = f_inf();
    tile.s[i * 32 + lane] = 0;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    tile.d_min[lane] = f_inf();
    tile.t_s[lane] = 0;
    tile.t_e[lane] = 0;
  }
}

__global__ void spring_move_lane(SpringTileDev from, std::uint32_t from_lane, SpringTileDev to,
                                 std::uint32_t to_lane, std::uint32_t m) {
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m;
       i += gridDim.x * blockDim.x) {
    to.d[i * 32 + to_lane] = from.d[i * 32 + from_lane];
    to.s[i * 32 + to_lane] = from.s[i * 32 + from_lane];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
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

void launch_spring_fresh_lane(const SpringTileDev& tile, std::uint32_t m, std::uint32_t lane,
                              cudaStream_t stream) {
  spring_fresh_lane<<<column_blocks(m), 256, 0, stream>>>(tile, m, lane);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_move_lane(const SpringTileDev& from, std::uint32_t from_lane,
                             const SpringTileDev& to, std::uint32_t to_lane, std::uint32_t m,
                             cudaStream_t stream) {
  spring_move_lane<<<column_blocks(m), 256, 0, stream>>>(from, from_lane, to, to_lane, m);
  WW_CUDA(cudaGetLastError());
}

void SpringExact::run(const SpringBatchDev& batch, cudaStream_t stream) {
  if (batch.tile_count == 0) return;
  spring_exact<<<blocks_for(batch.tile_count, 4), 128, 0, stream>>>(batch);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_live_age(const SpringBatchDev& batch, std::uint32_t* age, cudaStream_t stream) {
  if (batch.tile_count == 0) return;
  spring_live_age<<<blocks_for(batch.tile_count, 4), 128, 0, stream>>>(batch, age);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
