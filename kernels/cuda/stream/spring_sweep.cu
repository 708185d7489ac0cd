// SpringSweep (spring_launch.hpp): a thread per pair, a warp per tile (the 32 lanes of a
// warp are the 32 pairs of a tile, so that each row of a side is one coalesced access),
// the lane logic of spring_sweep.hpp. The warp's lanes sweep together: a lane whose block
// needs another sweep sweeps again while its neighbours wait, so that the rows stay
// coalesced; the warp takes the variant with resets when any lane needs it, and the one
// without column tests when every lane's block is whole (or one column).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_launch.hpp"
#include "spring_sweep.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr unsigned kFullMask = 0xffffffffu;
constexpr int C = sweep::kColumns;
constexpr int kTilesPerBlock = 4;

template <bool kDk, bool kAbs, bool kDims1>
__device__ void sweep_tile(const SpringBatchDev& b, const SpringTileDev& tile, int pl,
                           std::uint32_t pair, bool has) {
  const SpringPatternDev pat = b.patterns[tile.pattern];
  sweep::PairView v{};
  sweep::Lane<C> l;
  bool active = false;
  if (has) {
    const SpringChunkDev ch = b.chunks[tile.stream[pl]];
    for (int k = 0; k < 2; ++k) {
      v.d[k] = tile.d[k] + pl;
      v.s[k] = tile.s[k] + pl;
    }
    v.stride = 32;
    v.pattern = b.pattern_values + pat.value_offset;
    v.m = static_cast<int>(pat.m);
    v.dims = static_cast<int>(pat.dims);
    v.eps = pat.eps;
    v.x = b.values + ch.value_offset;
    v.first = ch.first;
    sweep::lane_begin<C>(l, static_cast<int>(tile.done[pl]), static_cast<int>(ch.count),
                         static_cast<int>(tile.side[pl]),
                         sweep::Candidate{tile.d_min[pl], tile.t_s[pl], tile.t_e[pl]});
    active = l.t < l.count;
  }
  const bool ran = active;
  // A block's reports, all or none: slots reserved past the buffer's end are never
  // written, and those below it are marked unused.
  const auto commit = [&](const sweep::Block<C>& bl, std::uint32_t step0) {
    const auto n = static_cast<std::uint32_t>(__popc(bl.plan.resets));
    std::uint32_t slot = atomicAdd(&b.report_count[0], n);
    if (slot + n > b.report_capacity) {
      atomicExch(&b.report_count[1], 1u);
      for (std::uint32_t k = slot; k < b.report_capacity; ++k) b.reports[k].pair = no_pair;
      return false;
    }
    sweep::each_report<C>(bl, step0, [&](const sweep::Report& r) {
      b.reports[slot++] = SpringReportDev{pair, r.step, r.c.d_min, r.c.t_s, r.c.t_e};
    });
    return true;
  };
  while (__any_sync(kFullMask, active)) {
    const bool resets = __any_sync(kFullMask, active && sweep::lane_needs_resets(l));
    const int n = active ? sweep::lane_width(l) : 0;
    const sweep::Width width = __all_sync(kFullMask, !active || n == C)   ? sweep::Width::full
                               : __all_sync(kFullMask, !active || n == 1) ? sweep::Width::one
                                                                          : sweep::Width::any;
    if (active) active = sweep::lane_step_as<C, kDk, kAbs, kDims1>(l, v, resets, width, commit);
  }
  if (!ran) return;
  tile.side[pl] = static_cast<std::uint32_t>(l.side);
  tile.d_min[pl] = l.c.d_min;
  tile.t_s[pl] = l.c.t_s;
  tile.t_e[pl] = l.c.t_e;
  tile.done[pl] = static_cast<std::uint32_t>(l.t);
}

__global__ void __launch_bounds__(kTilesPerBlock * 32) spring_sweep(SpringBatchDev b) {
  const std::uint32_t tile_index = blockIdx.x * kTilesPerBlock + (threadIdx.x >> 5);
  const int pl = static_cast<int>(threadIdx.x & 31);
  if (tile_index >= b.tile_count) return;  // whole warps
  const SpringTileDev& tile = b.tiles[tile_index];
  const bool has = static_cast<std::uint32_t>(pl) < tile.lanes;
  const std::uint32_t pair = tile_index * 32 + static_cast<std::uint32_t>(pl);
  const SpringPatternDev& pat = b.patterns[tile.pattern];  // one pattern a tile: uniform
  const bool one = pat.dims == 1;
  if (pat.dk) {
    if (pat.abs_cost)
      one ? sweep_tile<true, true, true>(b, tile, pl, pair, has)
          : sweep_tile<true, true, false>(b, tile, pl, pair, has);
    else
      one ? sweep_tile<true, false, true>(b, tile, pl, pair, has)
          : sweep_tile<true, false, false>(b, tile, pl, pair, has);
  } else {
    if (pat.abs_cost)
      one ? sweep_tile<false, true, true>(b, tile, pl, pair, has)
          : sweep_tile<false, true, false>(b, tile, pl, pair, has);
    else
      one ? sweep_tile<false, false, true>(b, tile, pl, pair, has)
          : sweep_tile<false, false, false>(b, tile, pl, pair, has);
  }
}

}  // namespace

void SpringSweep::run(const SpringBatchDev& batch, cudaStream_t stream) {
  if (batch.tile_count == 0) return;
  const unsigned blocks = (batch.tile_count + kTilesPerBlock - 1) / kTilesPerBlock;
  spring_sweep<<<blocks, kTilesPerBlock * 32, 0, stream>>>(batch);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
