// Stream mode's fast path: a register wavefront per (stream, pattern) pair, for patterns up
// to 512 rows (longer ones: spring_wavefront_tiled.cu; the state layout: spring_launch.hpp;
// the exact thread-per-pair kernel that takes over where this one stops: spring_kernels.cu).
//
// W lanes run one pair: a half-warp (W 16, patterns up to 256 rows: two pairs a warp) or a
// whole warp (W 32, up to 512 rows). Lane l holds rows [l*R, l*R + R) of D and S and the
// pattern values of those rows in registers; iteration k computes column t = k - l on
// lane l, and the last row of lane l-1 arrives by a width-W shuffle. The stream's samples
// pass through a per-pair window in shared memory: while iterations [base, base + 32) run
// it holds samples [base - W, base + 32), and lane l reads sample base + u - l at a fixed
// offset from a per-lane pointer (overlapping windows, one load).
//
// SPRING's rule 1 looks at a whole column after it is computed, which a wavefront cannot
// wait for; but rule 1 only acts while a candidate is pending, and candidates are rare. A
// pair therefore runs here only while none is pending, in up to three passes:
//  1. the whole chunk, watching the last row coarsely (its minimum over each block of 32
//     iterations); a pair whose last row came within eps stops;
//  2. for a pair that stopped: again from the saved state, finding the exact first column
//     whose last cell is <= eps;
//  3. for that pair: again from the saved state, up to exactly that column.
// The exact kernel then applies every rule from there on (SPEC.md 3.1). Every cell is
// computed as spring_cell.cuh says, so the results are the reference's bit for bit.
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_wave.cuh"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr int kWarps = 4;  // warps per block

// The window (W + 32 floats) holds samples [base - W, base + 32) while block `base` runs;
// each lane stages one of the last W samples (kept from the previous block) and 32 / W of
// the new block (loaded one block ahead).
template <int R, int W, bool kDk, bool kAbs, int kDetect, bool kAligned>
__device__ bool wave_pass(WaveLane<R>& w, const Team& h, const float* x, int available,
                          int steady_limit, float* window) {
  constexpr int kPer = kBlock / W;  // new samples a lane stages per block
  const int iterations = warp_max(h.limit > 0 ? h.limit + h.last_lane : 0);
  const auto sample = [&](int q) { return q >= 0 && q < available ? x[q] : 0.0f; };
  float held = 0.0f, next[kPer];  // held: sample base - W + hl (the last block's last W)
#pragma unroll
  for (int i = 0; i < kPer; ++i) next[i] = sample(i * W + h.hl);
  bool stopped = h.limit == 0;  // a team with nothing to run never holds the others back
  const float* lane_window = window + W - h.hl;
  for (int base = 0; base < iterations; base += kBlock) {
    __syncwarp();  // everyone is done reading the previous window
    window[h.hl] = held;
#pragma unroll
    for (int i = 0; i < kPer; ++i) window[W + i * W + h.hl] = next[i];
    __syncwarp();
    held = next[kPer - 1];
#pragma unroll
    for (int i = 0; i < kPer; ++i) next[i] = sample(base + kBlock + i * W + h.hl);
    if (base >= kBlock && base + kBlock <= steady_limit)
      wave_block<R, W, kDk, kAbs, false, kDetect, kAligned>(w, h, base, kBlock, lane_window);
    else
      wave_block<R, W, kDk, kAbs, true, kDetect, kAligned>(
          w, h, base, min(kBlock, iterations - base), lane_window);
    if constexpr (kDetect != 0) {
      const bool mine = kDetect == 1 ? w.low <= h.eps : w.found >= 0;
      const bool seen = __shfl_sync(full_mask, mine, h.leader + h.last_lane);  // every lane
      stopped = stopped || seen;
      if (__all_sync(full_mask, stopped)) break;
    }
  }
  if constexpr (kDetect == 0) return false;
  return __shfl_sync(full_mask, kDetect == 1 ? w.low <= h.eps : w.found >= 0,
                     h.leader + h.last_lane);
}

template <int R, int W, bool kDk, bool kAbs, bool kAligned>
__device__ void wave_pair(WaveLane<R>& w, Team& h, const SpringTileDev& tile, int pl, bool has,
                          const float* x, int count, float* window) {
  // Pass 1: teams without work compute on zeros (never stored), so only the others bound
  // the unguarded blocks.
  h.limit = has ? count : 0;
  const int steady = warp_min(has ? count : INT_MAX);
  const bool hit =
      wave_pass<R, W, kDk, kAbs, 1, kAligned>(w, h, x, has ? count : 0, steady, window);
  int found = -1;
  if (__any_sync(full_mask, hit)) {
    // Passes 2 and 3 leave the other team's finished registers alone: all guarded.
    if (hit) wave_load<R>(w, h, tile, pl);
    h.limit = hit ? count : 0;
    wave_pass<R, W, kDk, kAbs, 2, kAligned>(w, h, x, h.limit, 0, window);
    found = __shfl_sync(full_mask, w.found, h.leader + h.last_lane);
    if (hit) wave_load<R>(w, h, tile, pl);
    h.limit = hit ? found + 1 : 0;
    wave_pass<R, W, kDk, kAbs, 0, kAligned>(w, h, x, h.limit, 0, window);
  }
  if (!has) return;
  wave_finish<R>(w, h, tile, pl, found, hit, count);
}

template <int R, int W, bool kDk, bool kAbs>
__global__ void __launch_bounds__(kWarps * 32)
    spring_wavefront(SpringBatchDev b, const std::uint32_t* pairs, std::uint32_t pair_count,
                     std::uint32_t min_count) {
  constexpr int kPairs = 32 / W;  // pairs per warp
  __shared__ float windows[kWarps][kPairs][W + kBlock];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, team = lane / W;
  const std::uint32_t first_pair = (blockIdx.x * kWarps + warp) * kPairs;
  if (first_pair >= pair_count) return;  // whole warps leave together
  const std::uint32_t index = first_pair + team < pair_count ? first_pair + team : first_pair;
  const std::uint32_t pair = pairs[index];
  const SpringTileDev& tile = b.tiles[pair / 32];
  const int pl = static_cast<int>(pair % 32);
  const SpringChunkDev ch = b.chunks[tile.stream[pl]];
  const SpringPatternDev pat = b.patterns[tile.pattern];
  // A pair runs here unless it is another team's stand-in, its chunk is short or it
  // has a pending candidate (then the exact kernel takes the whole chunk).
  const bool has =
      first_pair + team < pair_count && ch.count >= min_count && !(tile.d_min[pl] <= pat.eps);
  if (!__any_sync(full_mask, has)) return;

  Team h;
  h.hl = lane % W;
  h.leader = team * W;
  h.m = static_cast<int>(pat.m);
  h.last_lane = (h.m - 1) / R;
  h.last_reg = (h.m - 1) % R;
  h.rows_from = 0;
  h.limit = 0;
  h.first = ch.first;
  h.eps = pat.eps;
  WaveLane<R> w;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = h.hl * R + r;
    w.p[r] = row < h.m ? b.pattern_values[pat.value_offset + row] : 0.0f;
  }
  wave_load<R>(w, h, tile, pl);
  const float* x = b.values + ch.value_offset;
  const int count = static_cast<int>(ch.count);
  float* window = windows[warp][team];
  if (__all_sync(full_mask, h.last_reg == R - 1))
    wave_pair<R, W, kDk, kAbs, true>(w, h, tile, pl, has, x, count, window);
  else
    wave_pair<R, W, kDk, kAbs, false>(w, h, tile, pl, has, x, count, window);
}

template <int R, int W>
void launch_rows(const SpringBatchDev& b, const std::uint32_t* pairs, std::uint32_t n, bool dk,
                 bool abs_cost, std::uint32_t min_count, cudaStream_t stream) {
  const unsigned per_block = kWarps * (32 / W);
  const unsigned blocks = (n + per_block - 1) / per_block;
  const unsigned threads = kWarps * 32;
  with_metric(dk, abs_cost, [&](auto kDk, auto kAbs) {
    spring_wavefront<R, W, decltype(kDk)::value, decltype(kAbs)::value>
        <<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
  });
}

}  // namespace

void launch_spring_wavefront(const SpringBatchDev& batch, const std::uint32_t* pairs,
                             std::uint32_t pair_count, WavefrontShape shape, bool dk, bool abs_cost,
                             std::uint32_t min_count, cudaStream_t stream) {
  if (pair_count == 0) return;
  const auto go = [&](auto launch) {
    launch(batch, pairs, pair_count, dk, abs_cost, min_count, stream);
  };
  WW_ASSERT(shape.tiles == 1, "spring wavefront: tiled shapes go to the tiled kernel");
  WW_ASSERT(shape.lanes == 16 || (shape.lanes == 32 && shape.rows == 16),
            "spring wavefront: 16 lanes a pair, or 32 lanes of 16 rows");
  if (shape.lanes == 32)
    go(launch_rows<16, 32>);
  else if (shape.rows == 1)
    go(launch_rows<1, 16>);
  else if (shape.rows == 2)
    go(launch_rows<2, 16>);
  else if (shape.rows == 4)
    go(launch_rows<4, 16>);
  else if (shape.rows == 8)
    go(launch_rows<8, 16>);
  else if (shape.rows == 16)
    go(launch_rows<16, 16>);
  else
    WW_ASSERT(false, "spring wavefront: rows per lane must be 1, 2, 4, 8 or 16");
  WW_CUDA(cudaGetLastError());
}

void SpringWavefront::run(const SpringBatchDev& batch, const std::uint32_t* pairs,
                          std::uint32_t pair_count, WavefrontShape shape, bool dk, bool abs_cost,
                          cudaStream_t stream) {
  if (shape.tiles > 1)
    launch_spring_wavefront_tiled(batch, pairs, pair_count, shape.tiles, dk, abs_cost, min_count,
                                  stream);
  else
    launch_spring_wavefront(batch, pairs, pair_count, shape, dk, abs_cost, min_count, stream);
}

}  // namespace warpwatch::kernels::cuda
