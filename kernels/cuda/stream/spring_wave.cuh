// The register wavefront's building blocks, shared by spring_wavefront.cu (a team of 16 or
// 32 lanes per pair, SPEC.md 3.1's rules applied in the wavefront) and
// spring_wavefront_tiled.cu (a team per row tile of a long pattern, passes that stop at the
// first candidate; see there for how they fit together). Device code only; internal linkage
// (an unnamed namespace): each .cu gets its own copy.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "spring_cell.cuh"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr unsigned full_mask = 0xffffffffu;
constexpr int kBlock = 32;  // iterations between two window refills

__device__ __forceinline__ float f_inf() {
  return float_inf();
}

// The W lanes that run one pair (a team: half a warp or all of it), seen from one of them.
// A tiled pair (spring_wavefront_tiled.cu) has one team per row tile, chained through
// shared memory: the team above hands down its last row, column by column.
struct Team {
  int hl;                      // lane within the team
  int leader;                  // warp lane of the team's lane 0
  int m, last_lane, last_reg;  // the pattern's last row m-1 is on last_lane, register last_reg
                               // (last_lane -1: not on this team)
  int rows_from;               // the team's first row (0 unless tiled)
  int limit;                   // columns of the chunk this pass runs (0: none)
  std::int32_t first;          // low 32 bits of the chunk's first sample index
  float eps;
  // Tiled only (kTiled): column t's cell above the first row, from the team above (null:
  // the boundary row), and where this team's last row goes for the team below (null: none).
  const float* up_d = nullptr;
  const std::int32_t* up_s = nullptr;
  float* down_d = nullptr;
  std::int32_t* down_s = nullptr;
};
constexpr int kLinkSlots = 128;  // columns a link between two tiles holds (a power of two)

// The registers of one lane.
template <int R>
struct WaveLane {
  float d[R], p[R];
  std::int32_t s[R];
  float prev_d;  // the up input of the previous iteration: the diagonal of the first row
  std::int32_t prev_s;
  float low;  // pass 1: min of the last row over the columns run (meaningful on last_lane)
  int found;  // pass 2: first column whose last cell is <= eps, -1 none
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
  const float* d = lane_d(tile, pl);
  const std::int32_t* s = lane_s(tile, pl);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = h.rows_from + h.hl * R + r;
    w.d[r] = row < h.m ? d[row * 32] : f_inf();
    w.s[r] = row < h.m ? s[row * 32] : 0;
  }
  // The diagonal of lane 0's first column: the boundary D(t-1, 0) = 0, or in a tile below
  // the first the saved row above it; the other lanes' arrive by shuffle in time.
  const bool below = h.hl == 0 && h.rows_from > 0;
  w.prev_d = below ? d[(h.rows_from - 1) * 32] : 0.0f;
  w.prev_s = below ? s[(h.rows_from - 1) * 32] : 0;
  w.low = f_inf();
  w.found = -1;
}

// The registers back to the side they came from.
template <int R>
__device__ __forceinline__ void wave_store(const WaveLane<R>& w, const Team& h,
                                           const SpringTileDev& tile, int pl) {
  float* d = lane_d(tile, pl);
  std::int32_t* s = lane_s(tile, pl);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    const int row = h.rows_from + h.hl * R + r;
    if (row < h.m) {
      d[row * 32] = w.d[r];
      s[row * 32] = w.s[r];
    }
  }
}

// After a pair's passes: its registers back to the state and, on the lane that holds the
// pattern's last row, rule 2 at column `found` (the first column whose last cell is <= eps,
// -1 none) and how far the wavefront got, for the sweep to go on from. A hit whose
// column pass 2 did not find again leaves the saved state: the sweep then takes the
// whole chunk.
template <int R>
__device__ __forceinline__ void wave_finish(const WaveLane<R>& w, const Team& h,
                                            const SpringTileDev& tile, int pl, int found, bool hit,
                                            int count) {
  wave_store<R>(w, h, tile, pl);
  if (h.hl != h.last_lane) return;
  if (found >= 0) {  // rule 2 (no candidate was pending)
    tile.d_min[pl] = pick<R>(w.d, h.last_reg);
    tile.t_s[pl] = pick<R>(w.s, h.last_reg);
    tile.t_e[pl] = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) +
                                             static_cast<std::uint32_t>(found));
  }
  tile.done[pl] = found >= 0 ? static_cast<std::uint32_t>(found + 1)
                  : hit      ? 0u
                             : static_cast<std::uint32_t>(count);
}

// Calls f(dk, abs_cost) with both as std::bool_constant: one kernel instantiation per
// metric and cost, chosen on the host.
template <typename F>
void with_metric(bool dk, bool abs_cost, F&& f) {
  if (dk) {
    if (abs_cost)
      f(std::true_type{}, std::true_type{});
    else
      f(std::true_type{}, std::false_type{});
  } else {
    if (abs_cost)
      f(std::false_type{}, std::true_type{});
    else
      f(std::false_type{}, std::false_type{});
  }
}

// One column of this lane's rows, given each row's cost c(t, i). Off the row-to-row chain
// first: the S of min(left, diag); on it, one min of three and the combine
// (spring_cell.cuh).
template <int R, bool kDk>
__device__ __forceinline__ void wave_cells(WaveLane<R>& w, const float (&cost)[R], float up_d,
                                           std::int32_t up_s, float diag_d, std::int32_t diag_s) {
  std::int32_t pre_s[R];
#pragma unroll
  for (int r = 0; r < R; ++r)
    pre_s[r] =
        spring_pre_s(r == 0 ? diag_d : w.d[r - 1], r == 0 ? diag_s : w.s[r - 1], w.d[r], w.s[r]);
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

// One column of a pattern of dimension 1, its values in registers.
template <int R, bool kDk, bool kAbs>
__device__ __forceinline__ void wave_column(WaveLane<R>& w, float x, float up_d, std::int32_t up_s,
                                            float diag_d, std::int32_t diag_s) {
  float cost[R];
#pragma unroll
  for (int r = 0; r < R; ++r) cost[r] = spring_term<kAbs>(x, w.p[r]);
  wave_cells<R, kDk>(w, cost, up_d, up_s, diag_d, diag_s);
}

// Iteration k (W: lanes per pair). kGuarded: some lanes are outside [0, limit) (the fill,
// the drain, a pass that leaves the other team alone); otherwise every lane computes (lanes
// past last_lane hold only padding rows, never stored and never above a real row).
// kDetect: 0 none, 1 coarse (pass 1), 2 exact (pass 2). kTiled: the team may take its
// first row's up from a team above and hand its last row down (Team's links).
template <int R, int W, bool kDk, bool kAbs, bool kGuarded, int kDetect, bool kAligned,
          bool kTiled = false>
__device__ __forceinline__ void wave_iter(WaveLane<R>& w, const Team& h, int k, float x) {
  const int t = k - h.hl;
  float up_d = __shfl_up_sync(full_mask, w.d[R - 1], 1, W);
  std::int32_t up_s = __shfl_up_sync(full_mask, w.s[R - 1], 1, W);
  if (h.hl == 0) {
    if (kTiled && h.up_d) {  // lane 0's t is k >= 0; slots past the chunk are never used
      up_d = h.up_d[t & (kLinkSlots - 1)];
      up_s = h.up_s[t & (kLinkSlots - 1)];
    } else {  // row 0's up is the boundary D(t, 0) = 0 with S = t
      up_d = 0.0f;
      up_s = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) +
                                       static_cast<std::uint32_t>(t));
    }
  }
  const float diag_d = w.prev_d;
  const std::int32_t diag_s = w.prev_s;
  w.prev_d = up_d;
  w.prev_s = up_s;
  if (kGuarded && !(t >= 0 && t < h.limit)) return;
  wave_column<R, kDk, kAbs>(w, x, up_d, up_s, diag_d, diag_s);
  if (kTiled && h.down_d && h.hl == W - 1) {
    h.down_d[t & (kLinkSlots - 1)] = w.d[R - 1];
    h.down_s[t & (kLinkSlots - 1)] = w.s[R - 1];
  }
  const float last = kAligned ? w.d[R - 1] : pick<R>(w.d, h.last_reg);
  if constexpr (kDetect == 1) w.low = fminf(w.low, last);
  if constexpr (kDetect == 2)
    if (h.hl == h.last_lane && w.found < 0 && last <= h.eps) w.found = t;
}

template <int R, int W, bool kDk, bool kAbs, bool kGuarded, int kDetect, bool kAligned,
          bool kTiled = false>
__device__ __forceinline__ void wave_block(WaveLane<R>& w, const Team& h, int base, int count,
                                           const float* window) {
  if constexpr (!kGuarded) {
#pragma unroll 4
    for (int u = 0; u < kBlock; ++u)
      wave_iter<R, W, kDk, kAbs, false, kDetect, kAligned, kTiled>(w, h, base + u, window[u]);
  } else {
    for (int u = 0; u < count; ++u)
      wave_iter<R, W, kDk, kAbs, true, kDetect, kAligned, kTiled>(w, h, base + u, window[u]);
  }
}

}  // namespace
}  // namespace warpwatch::kernels::cuda
