// Stream-mode kernels (see spring_launch.hpp for the state layout).
//
// Two ways through a batch, and the reason for both. SPRING's rule 1 (SPEC.md 3.1) looks
// at a whole column after it is computed and may reset cells before the next column
// starts; a register wavefront, where lane j works on column t - j, cannot wait for that.
// But rule 1 only acts while a candidate is pending, and candidates are rare. So:
//  - spring_wavefront (warp per pair, fast): runs a pair's chunk while no candidate is
//    pending; the first column whose last cell qualifies stops it (the pair is re-run
//    from its saved state up to exactly that column, so the state is that of the column);
//  - spring_exact (thread per pair, the reference's loop): continues every pair from
//    where the wavefront left it, with all rules; it also takes whole batches of tiny
//    chunks, where a wavefront would mostly fill and drain.
// Both compute each cell with spring_cell.cuh, so results are bit-identical.
#include <cuda_runtime.h>

#include <cfloat>
#include <cstdint>

#include "cuda_check.hpp"
#include "spring_cell.cuh"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int wavefront_warps = 4;  // warps per block
constexpr int ring = 64;            // samples staged per warp in shared memory

__device__ __forceinline__ float f_inf() { return __int_as_float(0x7f800000); }

// ---------------------------------------------------------------------------------
// Warp per pair. Lane j holds rows [j*R, j*R + R) of D and S and the pattern values of
// those rows in registers; iteration k computes column k - j on lane j; the last row of
// lane j-1 arrives by shuffle. The stream's samples pass through a shared-memory ring of
// 64 (lane j reads sample k - j: a window of 32 that overlaps the next by 31).

// The shape of one pair in the wavefront: rows [lane*R, lane*R + R) on this lane; the
// pattern's last row m-1 lies on last_lane, register last_reg.
struct WaveShape {
  int lane, m, last_lane, last_reg;
};

template <int R>
__device__ __forceinline__ void wave_load(const WaveShape& w, const SpringTileDev& tile, int pl,
                                          float (&d)[R], std::int32_t (&s)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = w.lane * R + r;
    d[r] = row < w.m ? tile.d[row * 32 + pl] : f_inf();
    s[r] = row < w.m ? tile.s[row * 32 + pl] : 0;
  }
}

template <int R>
__device__ __forceinline__ void wave_store(const WaveShape& w, const SpringTileDev& tile, int pl,
                                           const float (&d)[R], const std::int32_t (&s)[R]) {
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = w.lane * R + r;
    if (row < w.m) {
      tile.d[row * 32 + pl] = d[r];
      tile.s[row * 32 + pl] = s[r];
    }
  }
}

// Register `reg` of an array, without dynamic indexing (which would put it in local memory).
template <int R, typename T>
__device__ __forceinline__ T pick(const T (&v)[R], int reg) {
  T x = v[0];
#pragma unroll
  for (int r = 1; r < R; ++r) x = r == reg ? v[r] : x;
  return x;
}

// The carried values of one lane between iterations.
struct WaveCarry {
  float out_d;           // what this lane passes down: its last row, last column done
  std::int32_t out_s;
  float prev_up_d;       // the up input of the previous iteration: diag of row lane*R
  std::int32_t prev_up_s;
  int found;             // detect: first column whose last cell qualified, -1 none
};

// Iteration k of the wavefront: lane j computes column t = k - j. kGuarded: some lanes
// are outside [0, limit) (the fill and the drain); in between every lane computes (lanes
// past last_lane hold only padding rows, never stored and never read by a real row).
template <int R, bool kDk, bool kAbs, bool kGuarded>
__device__ __forceinline__ void wave_step(const WaveShape& w, float (&d)[R], std::int32_t (&s)[R],
                                          const float (&p)[R], int k, int limit, std::int32_t first,
                                          float eps, bool detect, const float* stage, WaveCarry& c) {
  const int lane = w.lane;
  const int t = k - lane;
  const std::int32_t cur =
      static_cast<std::int32_t>(static_cast<std::uint32_t>(first) + static_cast<std::uint32_t>(t));
  // Row 0's up is the boundary D(t, 0) = 0 with S = t. Its diag is then 0 as well (lane 0's
  // up is always 0), and a tie with up never picks diag, so diag's S does not matter there.
  float up_d = __shfl_up_sync(full_mask, c.out_d, 1);
  std::int32_t up_s = __shfl_up_sync(full_mask, c.out_s, 1);
  if (lane == 0) {
    up_d = 0.0f;
    up_s = cur;
  }
  const float diag_d = c.prev_up_d;
  const std::int32_t diag_s = c.prev_up_s;
  c.prev_up_d = up_d;
  c.prev_up_s = up_s;
  if (kGuarded && !(t >= 0 && t < limit && lane <= w.last_lane)) return;
  const float xt = stage[t & (ring - 1)];
  // Off the row-to-row chain first: costs and min(left, diag) of every row.
  float cost[R], pre_d[R];
  std::int32_t pre_s[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    cost[r] = spring_term<kAbs>(xt, p[r]);
    pre_d[r] = spring_pre(r == 0 ? diag_d : d[r - 1], r == 0 ? diag_s : s[r - 1], d[r], s[r], pre_s[r]);
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    std::int32_t best_s;
    const float best_d = spring_pick_up(pre_d[r], pre_s[r], up_d, up_s, best_s);
    up_d = spring_combine<kDk>(cost[r], best_d);
    up_s = best_s;
    d[r] = up_d;
    s[r] = up_s;
  }
  c.out_d = d[R - 1];
  c.out_s = s[R - 1];
  if (detect && lane == w.last_lane && c.found < 0 &&
      (w.last_reg == R - 1 ? d[R - 1] : pick<R>(d, w.last_reg)) <= eps)
    c.found = t;
}

// Stages samples [k, k + 32) into the ring (k a multiple of 32); with `detect`, says
// whether a lane has seen its candidate column (the run then stops).
__device__ __forceinline__ bool wave_stage(int lane, int k, int limit, const float* x, float* stage,
                                           bool detect, int found) {
  __syncwarp();  // everyone is done reading the slots about to be overwritten
  if (k + lane < limit) stage[(k + lane) & (ring - 1)] = x[k + lane];
  __syncwarp();
  return detect && k > 0 && __any_sync(full_mask, found >= 0);
}

// Columns [0, limit) of the chunk. With `detect`, stops soon after the first column whose
// last cell is <= eps (a candidate appears: the caller re-runs to exactly there) and
// returns that column; otherwise returns -1 after column limit - 1.
template <int R, bool kDk, bool kAbs>
__device__ __forceinline__ int wave_run(const WaveShape& w, float (&d)[R], std::int32_t (&s)[R],
                                        const float (&p)[R], const float* x, int limit,
                                        std::int32_t first, float eps, bool detect, float* stage) {
  WaveCarry c{d[R - 1], s[R - 1], 0.0f, 0, -1};
  const int iterations = limit + w.last_lane;
  // Fill: iterations [0, 31); steady: [31, limit), every lane inside; drain: the rest.
  const int steady_from = min(31, iterations), steady_to = max(steady_from, limit);
  int k = 0;
  for (; k < steady_from; ++k) {
    if ((k & 31) == 0 && wave_stage(w.lane, k, limit, x, stage, detect, c.found)) break;
    wave_step<R, kDk, kAbs, true>(w, d, s, p, k, limit, first, eps, detect, stage, c);
  }
  if (k == steady_from) {
    for (; k < steady_to; ++k) {
      if ((k & 31) == 0 && wave_stage(w.lane, k, limit, x, stage, detect, c.found)) break;
      wave_step<R, kDk, kAbs, false>(w, d, s, p, k, limit, first, eps, detect, stage, c);
    }
  }
  if (k == steady_to) {
    for (; k < iterations; ++k) {
      if ((k & 31) == 0 && wave_stage(w.lane, k, limit, x, stage, detect, c.found)) break;
      wave_step<R, kDk, kAbs, true>(w, d, s, p, k, limit, first, eps, detect, stage, c);
    }
  }
  return detect ? __shfl_sync(full_mask, c.found, w.last_lane) : -1;
}

template <int R, bool kDk, bool kAbs>
__global__ void __launch_bounds__(wavefront_warps * 32)
    spring_wavefront(SpringBatchDev b, const std::uint32_t* pairs, std::uint32_t pair_count,
                     std::uint32_t min_count) {
  __shared__ float stages[wavefront_warps][ring];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const std::uint32_t wi = blockIdx.x * wavefront_warps + warp;
  if (wi >= pair_count) return;  // whole warps leave together
  const std::uint32_t pair = pairs[wi];
  const SpringTileDev& tile = b.tiles[pair / 32];
  const int pl = static_cast<int>(pair % 32);
  const SpringChunkDev ch = b.chunks[tile.stream[pl]];
  const SpringPatternDev pat = b.patterns[tile.pattern];
  if (ch.count < min_count || tile.d_min[pl] <= pat.eps) return;

  WaveShape w;
  w.lane = lane;
  w.m = static_cast<int>(pat.m);
  w.last_lane = (w.m - 1) / R;
  w.last_reg = (w.m - 1) % R;
  float d[R], p[R];
  std::int32_t s[R];
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = lane * R + r;
    p[r] = row < w.m ? b.pattern_values[pat.value_offset + row] : 0.0f;
  }
  const float* x = b.values + ch.value_offset;
  const int count = static_cast<int>(ch.count);
  wave_load<R>(w, tile, pl, d, s);
  const int found = wave_run<R, kDk, kAbs>(w, d, s, p, x, count, ch.first, pat.eps, true, stages[warp]);
  if (found >= 0) {  // back to the saved column, then exactly up to the candidate's column
    wave_load<R>(w, tile, pl, d, s);
    wave_run<R, kDk, kAbs>(w, d, s, p, x, found + 1, ch.first, pat.eps, false, stages[warp]);
  }
  wave_store<R>(w, tile, pl, d, s);
  if (lane == w.last_lane) {
    if (found >= 0) {  // rule 2 at column `found` (no candidate was pending)
      tile.d_min[pl] = pick<R>(d, w.last_reg);
      tile.t_s[pl] = pick<R>(s, w.last_reg);
      tile.t_e[pl] = static_cast<std::int32_t>(static_cast<std::uint32_t>(ch.first) + static_cast<std::uint32_t>(found));
    }
    tile.done[pl] = found >= 0 ? static_cast<std::uint32_t>(found + 1) : ch.count;
  }
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
    if (pat.abs_cost) exact_pair<true, true>(b, tile, pl, pair);
    else exact_pair<true, false>(b, tile, pl, pair);
  } else {
    if (pat.abs_cost) exact_pair<false, true>(b, tile, pl, pair);
    else exact_pair<false, false>(b, tile, pl, pair);
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
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
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
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < m; i += gridDim.x * blockDim.x) {
    to.d[i * 32 + to_lane] = from.d[i * 32 + from_lane];
    to.s[i * 32 + to_lane] = from.s[i * 32 + from_lane];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    to.d_min[to_lane] = from.d_min[from_lane];
    to.t_s[to_lane] = from.t_s[from_lane];
    to.t_e[to_lane] = from.t_e[from_lane];
  }
}

template <int R>
void launch_rows(const SpringBatchDev& b, const std::uint32_t* pairs, std::uint32_t n, bool dk,
                 bool abs_cost, std::uint32_t min_count, cudaStream_t stream) {
  const unsigned blocks = (n + wavefront_warps - 1) / wavefront_warps;
  const unsigned threads = wavefront_warps * 32;
  if (dk) {
    if (abs_cost) spring_wavefront<R, true, true><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
    else spring_wavefront<R, true, false><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
  } else {
    if (abs_cost) spring_wavefront<R, false, true><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
    else spring_wavefront<R, false, false><<<blocks, threads, 0, stream>>>(b, pairs, n, min_count);
  }
}

unsigned blocks_for(std::uint32_t items, unsigned per_block) { return (items + per_block - 1) / per_block; }

}  // namespace

void launch_spring_fresh_lane(const SpringTileDev& tile, std::uint32_t m, std::uint32_t lane,
                              cudaStream_t stream) {
  spring_fresh_lane<<<blocks_for(m, 256) > 64 ? 64 : blocks_for(m, 256), 256, 0, stream>>>(tile, m, lane);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_move_lane(const SpringTileDev& from, std::uint32_t from_lane,
                             const SpringTileDev& to, std::uint32_t to_lane, std::uint32_t m,
                             cudaStream_t stream) {
  spring_move_lane<<<blocks_for(m, 256) > 64 ? 64 : blocks_for(m, 256), 256, 0, stream>>>(from, from_lane, to, to_lane, m);
  WW_CUDA(cudaGetLastError());
}

void launch_spring_wavefront(const SpringBatchDev& batch, const std::uint32_t* pairs,
                             std::uint32_t pair_count, std::uint32_t rows, bool dk, bool abs_cost,
                             std::uint32_t min_count, cudaStream_t stream) {
  if (pair_count == 0) return;
  switch (rows) {
    case 1: launch_rows<1>(batch, pairs, pair_count, dk, abs_cost, min_count, stream); break;
    case 2: launch_rows<2>(batch, pairs, pair_count, dk, abs_cost, min_count, stream); break;
    case 4: launch_rows<4>(batch, pairs, pair_count, dk, abs_cost, min_count, stream); break;
    case 8: launch_rows<8>(batch, pairs, pair_count, dk, abs_cost, min_count, stream); break;
    default: throw CudaError(cudaErrorInvalidValue, "spring wavefront: rows per lane must be 1, 2, 4 or 8");
  }
  WW_CUDA(cudaGetLastError());
}

void launch_spring_exact(const SpringBatchDev& batch, cudaStream_t stream) {
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
