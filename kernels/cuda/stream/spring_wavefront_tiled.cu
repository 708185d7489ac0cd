// Stream mode's register wavefront for patterns longer than one warp's registers hold
// (513 .. 8192 rows): a block per pair, a warp per row tile of 512 rows (32 lanes x 16).
//
// Warp k keeps its tile's rows in registers for the whole chunk, like the single-warp
// wavefront (spring_wavefront.cu), and takes the cell above its first row, column by
// column, from warp k-1's last row through a ring in shared memory (the link). Warps run
// their 32-iteration blocks in lockstep with a barrier between steps, warp k two blocks
// behind warp k-1: by then warp k-1's last lane (31 columns behind its lane 0) has written
// every column warp k's block reads, and the 128-column ring still holds them. Because no
// tile's state is stored before the chunk is done, the chunk can run in passes (this file
// predates the single-warp kernel's rules in the wavefront, which do not carry over to
// tiles yet): pass 1 watches the last tile's last row per block; a pair that came within
// eps is re-run from its saved state to find the exact column (pass 2) and to exactly
// there (pass 3), and the sweep (spring_sweep.cu) takes over from that column. A pair with a
// pending candidate is the sweep's.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_wave.cuh"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr int kRows = 16;              // rows a lane
constexpr int kTileRows = 32 * kRows;  // rows a warp
constexpr int kLag = 2;                // blocks warp k runs behind warp k-1

// One pass of every tile over columns [0, h.limit). Returns (to the whole block) whether
// pass 1 saw the last tile's last row come within eps, or pass 2 found its column.
template <bool kDk, bool kAbs, int kDetect, bool kAligned>
__device__ bool tiled_pass(WaveLane<kRows>& w, const Team& h, int tile, int tiles, const float* x,
                           int available, float* window) {
  // Every tile has 32 real lanes but the last, whose padding lanes compute unread rows.
  const int iterations = h.limit > 0 ? h.limit + 31 : 0;
  const int blocks = (iterations + kBlock - 1) / kBlock;
  const auto sample = [&](int q) { return q >= 0 && q < available ? x[q] : 0.0f; };
  float held = 0.0f, next = sample(h.hl);  // the window (spring_wave.cuh's kBlock)
  const float* lane_window = window + 32 - h.hl;
  for (int step = 0; step < blocks + kLag * (tiles - 1); ++step) {
    const int block = step - kLag * tile;
    if (block >= 0 && block < blocks) {  // uniform over the warp
      const int base = block * kBlock;
      __syncwarp();
      window[h.hl] = held;
      window[32 + h.hl] = next;
      __syncwarp();
      held = next;
      next = sample(base + kBlock + h.hl);
      if (base >= kBlock && base + kBlock <= h.limit)
        wave_block<kRows, 32, kDk, kAbs, false, kDetect, kAligned, true>(w, h, base, kBlock,
                                                                         lane_window);
      else
        wave_block<kRows, 32, kDk, kAbs, true, kDetect, kAligned, true>(
            w, h, base, min(kBlock, iterations - base), lane_window);
    }
    // The barrier orders the links' writes before the next step's reads, and makes the
    // stop decision the whole block's.
    bool mine = false;
    if constexpr (kDetect != 0)
      mine = tile == tiles - 1 && h.hl == h.last_lane &&
             (kDetect == 1 ? w.low <= h.eps : w.found >= 0);
    if (__syncthreads_or(mine)) return true;
  }
  return false;
}

template <bool kDk, bool kAbs, bool kAligned>
__device__ void tiled_pair(WaveLane<kRows>& w, Team& h, int tile, int tiles,
                           const SpringTileDev& st, int pl, const float* x, int count,
                           float* window, int* found_shared) {
  h.limit = count;
  const bool hit = tiled_pass<kDk, kAbs, 1, kAligned>(w, h, tile, tiles, x, count, window);
  int found = -1;
  if (hit) {                                   // uniform over the block
    if (threadIdx.x == 0) *found_shared = -1;  // ordered before its write by pass 2's barriers
    wave_load<kRows>(w, h, st, pl);
    tiled_pass<kDk, kAbs, 2, kAligned>(w, h, tile, tiles, x, count, window);
    if (tile == tiles - 1 && h.hl == h.last_lane) *found_shared = w.found;
    __syncthreads();
    found = *found_shared;
    wave_load<kRows>(w, h, st, pl);
    h.limit = found + 1;
    tiled_pass<kDk, kAbs, 0, kAligned>(w, h, tile, tiles, x, found + 1, window);
  }
  wave_finish<kRows>(w, h, st, pl, found, hit, count);  // last_lane: -1 but on the last tile
}

template <bool kDk, bool kAbs>
__global__ void __launch_bounds__(SpringWavefront::max_tiles * 32)
    spring_wavefront_tiled(SpringBatchDev b, const std::uint32_t* pairs, std::uint32_t min_count) {
  __shared__ float windows[SpringWavefront::max_tiles][32 + kBlock];
  __shared__ float link_d[SpringWavefront::max_tiles - 1][kLinkSlots];
  __shared__ std::int32_t link_s[SpringWavefront::max_tiles - 1][kLinkSlots];
  __shared__ int found_shared;
  const int lane = threadIdx.x & 31, tile = threadIdx.x >> 5, tiles = blockDim.x >> 5;
  const std::uint32_t pair = pairs[blockIdx.x];
  const SpringTileDev& st = b.tiles[pair / 32];
  const int pl = static_cast<int>(pair % 32);
  const SpringChunkDev ch = b.chunks[st.stream[pl]];
  const SpringPatternDev pat = b.patterns[st.pattern];
  // Short chunks and pending candidates are the sweep's (uniform over the block).
  if (ch.count < min_count || st.d_min[pl] <= pat.eps) return;

  Team h;
  h.hl = lane;
  h.leader = 0;
  h.m = static_cast<int>(pat.m);
  h.rows_from = tile * kTileRows;
  const bool last = tile == tiles - 1;
  h.last_lane = last ? (h.m - 1 - h.rows_from) / kRows : -1;
  h.last_reg = last ? (h.m - 1) % kRows : kRows - 1;
  h.limit = 0;
  h.first = ch.first;
  h.eps = pat.eps;
  h.up_d = tile > 0 ? link_d[tile - 1] : nullptr;
  h.up_s = tile > 0 ? link_s[tile - 1] : nullptr;
  h.down_d = last ? nullptr : link_d[tile];
  h.down_s = last ? nullptr : link_s[tile];
  WaveLane<kRows> w;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int row = h.rows_from + lane * kRows + r;
    w.p[r] = row < h.m ? b.pattern_values[pat.value_offset + row] : 0.0f;
  }
  wave_load<kRows>(w, h, st, pl);
  const float* x = b.values + ch.value_offset;
  const int count = static_cast<int>(ch.count);
  if ((h.m - 1) % kRows == kRows - 1)
    tiled_pair<kDk, kAbs, true>(w, h, tile, tiles, st, pl, x, count, windows[tile], &found_shared);
  else
    tiled_pair<kDk, kAbs, false>(w, h, tile, tiles, st, pl, x, count, windows[tile], &found_shared);
}

}  // namespace

void launch_spring_wavefront_tiled(const SpringBatchDev& batch, const std::uint32_t* pairs,
                                   std::uint32_t pair_count, std::uint32_t tiles, bool dk,
                                   bool abs_cost, std::uint32_t min_count, cudaStream_t stream) {
  if (pair_count == 0) return;
  WW_ASSERT(tiles >= 2 && tiles <= SpringWavefront::max_tiles,
            "spring wavefront: 2 to 16 row tiles a pair");
  const unsigned threads = 32 * tiles;
  with_metric(dk, abs_cost, [&](auto kDk, auto kAbs) {
    spring_wavefront_tiled<decltype(kDk)::value, decltype(kAbs)::value>
        <<<pair_count, threads, 0, stream>>>(batch, pairs, min_count);
  });
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
