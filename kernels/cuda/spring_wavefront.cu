// Stream mode's fast path: a register wavefront per (stream, pattern) pair, two pairs per
// warp (see spring_launch.hpp for the state layout and spring_kernels.cu for the exact
// thread-per-pair kernel that takes over where this one stops).
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

#include "cuda_check.hpp"
#include "spring_cell.cuh"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int kWarps = 4;   // warps per block
constexpr int kBlock = 32;  // iterations between two window refills

__device__ __forceinline__ float f_inf() { return __int_as_float(0x7f800000); }

// This lane's pair: its shape and what to run.
// The W lanes that run one pair (a team: half a warp or all of it), seen from one of them.
struct Team {
  int hl;          // lane within the team
  int leader;      // warp lane of the team's lane 0
  int m, last_lane, last_reg;  // the pattern's last row m-1 is on last_lane, register last_reg
  int limit;       // columns of the chunk this pass runs (0: none)
  std::int32_t first;  // low 32 bits of the chunk's first sample index
  float eps;
};

// The registers of one lane.
template <int R>
struct WaveLane {
  float d[R], p[R];
  std::int32_t s[R];
  float prev_d;  // the up input of the previous iteration: the diagonal of the first row
  std::int32_t prev_s;
  float low;     // pass 1: min of the last row over the columns run (meaningful on last_lane)
  int found;     // pass 2: first column whose last cell is <= eps, -1 none
};

template <int R, typename T>
__device__ __forceinline__ T pick(const T (&v)[R], int reg) {
  T x = v[0];
#pragma unroll
  for (int r = 1; r < R; ++r) x = r == reg ? v[r] : x;
  return x;
}

template <int R>
__device__ __forceinline__ void wave_load(WaveLane<R>& w, const Team& h, const SpringTileDev& tile,
                                          int pl) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = h.hl * R + r;
    w.d[r] = row < h.m ? tile.d[row * 32 + pl] : f_inf();
    w.s[r] = row < h.m ? tile.s[row * 32 + pl] : 0;
  }
  w.prev_d = 0.0f;  // lane 0's diagonal is the boundary D(t-1, 0) = 0; the others' arrive
  w.prev_s = 0;     // by shuffle before their first column
  w.low = f_inf();
  w.found = -1;
}

template <int R>
__device__ __forceinline__ void wave_store(const WaveLane<R>& w, const Team& h,
                                           const SpringTileDev& tile, int pl) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = h.hl * R + r;
    if (row < h.m) {
      tile.d[row * 32 + pl] = w.d[r];
      tile.s[row * 32 + pl] = w.s[r];
    }
  }
}

// One column of this lane's rows. Off the row-to-row chain first: the costs and the S of
// min(left, diag); on it, one min of three and the combine (spring_cell.cuh).
template <int R, bool kDk, bool kAbs>
__device__ __forceinline__ void wave_column(WaveLane<R>& w, float x, float up_d, std::int32_t up_s,
                                            float diag_d, std::int32_t diag_s) {
  float cost[R];
  std::int32_t pre_s[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    cost[r] = spring_term<kAbs>(x, w.p[r]);
    pre_s[r] = spring_pre_s(r == 0 ? diag_d : w.d[r - 1], r == 0 ? diag_s : w.s[r - 1], w.d[r], w.s[r]);
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const float left = w.d[r];
    const float best = spring_min3(up_d, diag_d, left);
    up_s = spring_best_s(best, up_d, up_s, pre_s[r]);
    up_d = spring_combine<kDk>(cost[r], best);
    diag_d = left;
    w.d[r] = up_d;
    w.s[r] = up_s;
  }
}

// Iteration k (W: lanes per pair). kGuarded: some lanes are outside [0, limit) (the fill, the drain, a pass
// that leaves the other team alone); otherwise every lane computes (lanes past last_lane
// hold only padding rows, never stored and never above a real row).
// kDetect: 0 none, 1 coarse (pass 1), 2 exact (pass 2).
template <int R, int W, bool kDk, bool kAbs, bool kGuarded, int kDetect, bool kAligned>
__device__ __forceinline__ void wave_iter(WaveLane<R>& w, const Team& h, int k, float x) {
  const int t = k - h.hl;
  float up_d = __shfl_up_sync(full_mask, w.d[R - 1], 1, W);
  std::int32_t up_s = __shfl_up_sync(full_mask, w.s[R - 1], 1, W);
  if (h.hl == 0) {  // row 0's up is the boundary D(t, 0) = 0 with S = t
    up_d = 0.0f;
    up_s = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) + static_cast<std::uint32_t>(t));
  }
  const float diag_d = w.prev_d;
  const std::int32_t diag_s = w.prev_s;
  w.prev_d = up_d;
  w.prev_s = up_s;
  if (kGuarded && !(t >= 0 && t < h.limit)) return;
  wave_column<R, kDk, kAbs>(w, x, up_d, up_s, diag_d, diag_s);
  const float last = kAligned ? w.d[R - 1] : pick<R>(w.d, h.last_reg);
  if constexpr (kDetect == 1) w.low = fminf(w.low, last);
  if constexpr (kDetect == 2)
    if (h.hl == h.last_lane && w.found < 0 && last <= h.eps) w.found = t;
}

template <int R, int W, bool kDk, bool kAbs, bool kGuarded, int kDetect, bool kAligned>
__device__ __forceinline__ void wave_block(WaveLane<R>& w, const Team& h, int base, int count,
                                           const float* window) {
  if constexpr (!kGuarded) {
#pragma unroll 4
    for (int u = 0; u < kBlock; ++u)
      wave_iter<R, W, kDk, kAbs, false, kDetect, kAligned>(w, h, base + u, window[u]);
  } else {
    for (int u = 0; u < count; ++u)
      wave_iter<R, W, kDk, kAbs, true, kDetect, kAligned>(w, h, base + u, window[u]);
  }
}

// Warp-wide max and min of a lane value.
__device__ __forceinline__ int warp_max(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(full_mask, v, o));
  return v;
}
__device__ __forceinline__ int warp_min(int v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(full_mask, v, o));
  return v;
}

// One pass over columns [0, h.limit) of each team's chunk (x: its samples, `available` of
// them). `steady_limit` bounds where every lane of the warp may compute unguarded: the
// smallest limit among the teams this pass must not disturb. Pass 1 returns early once
// every team that runs has come within eps; pass 2 once every such team has found its
// column. Returns whether this lane's team stopped (pass 1) or found (pass 2).
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
      wave_block<R, W, kDk, kAbs, true, kDetect, kAligned>(w, h, base, min(kBlock, iterations - base),
                                                           lane_window);
    if constexpr (kDetect != 0) {
      const bool mine = kDetect == 1 ? w.low <= h.eps : w.found >= 0;
      const bool seen = __shfl_sync(full_mask, mine, h.leader + h.last_lane);  // every lane
      stopped = stopped || seen;
      if (__all_sync(full_mask, stopped)) break;
    }
  }
  if constexpr (kDetect == 0) return false;
  return __shfl_sync(full_mask, kDetect == 1 ? w.low <= h.eps : w.found >= 0, h.leader + h.last_lane);
}

template <int R, int W, bool kDk, bool kAbs, bool kAligned>
__device__ void wave_pair(WaveLane<R>& w, Team& h, const SpringTileDev& tile, int pl, bool has,
                          const float* x, int count, float* window) {
  // Pass 1: teams without work compute on zeros (never stored), so only the others bound
  // the unguarded blocks.
  h.limit = has ? count : 0;
  const int steady = warp_min(has ? count : INT_MAX);
  const bool hit = wave_pass<R, W, kDk, kAbs, 1, kAligned>(w, h, x, has ? count : 0, steady, window);
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
  wave_store<R>(w, h, tile, pl);
  if (h.hl == h.last_lane) {
    if (found >= 0) {  // rule 2 at column `found` (no candidate was pending)
      tile.d_min[pl] = pick<R>(w.d, h.last_reg);
      tile.t_s[pl] = pick<R>(w.s, h.last_reg);
      tile.t_e[pl] = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) + static_cast<std::uint32_t>(found));
    }
    tile.done[pl] = found >= 0 ? static_cast<std::uint32_t>(found + 1) : static_cast<std::uint32_t>(count);
  }
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
  const bool has = first_pair + team < pair_count && ch.count >= min_count && !(tile.d_min[pl] <= pat.eps);
  if (!__any_sync(full_mask, has)) return;

  Team h;
  h.hl = lane % W;
  h.leader = team * W;
  h.m = static_cast<int>(pat.m);
  h.last_lane = (h.m - 1) / R;
  h.last_reg = (h.m - 1) % R;
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
  if (dk) {
    if (abs_cost) spring_wavefront<R, W, true, true><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
    else spring_wavefront<R, W, true, false><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
  } else {
    if (abs_cost) spring_wavefront<R, W, false, true><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
    else spring_wavefront<R, W, false, false><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
  }
}

}  // namespace

void launch_spring_wavefront(const SpringBatchDev& batch, const std::uint32_t* pairs,
                             std::uint32_t pair_count, WavefrontShape shape, bool dk, bool abs_cost,
                             std::uint32_t min_count, cudaStream_t stream) {
  if (pair_count == 0) return;
  const auto go = [&](auto launch) { launch(batch, pairs, pair_count, dk, abs_cost, min_count, stream); };
  if (shape.lanes == 32 && shape.rows == 16) go(launch_rows<16, 32>);
  else if (shape.lanes != 16) throw CudaError(cudaErrorInvalidValue, "spring wavefront: 16 or 32 lanes a pair");
  else if (shape.rows == 1) go(launch_rows<1, 16>);
  else if (shape.rows == 2) go(launch_rows<2, 16>);
  else if (shape.rows == 4) go(launch_rows<4, 16>);
  else if (shape.rows == 8) go(launch_rows<8, 16>);
  else if (shape.rows == 16) go(launch_rows<16, 16>);
  else throw CudaError(cudaErrorInvalidValue, "spring wavefront: rows per lane must be 1, 2, 4, 8 or 16");
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
