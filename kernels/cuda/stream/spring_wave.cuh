// The register wavefront's building blocks, shared by spring_wavefront.cu (a team of 16 or
// 32 lanes per pair) and spring_wavefront_tiled.cu (a team per row tile of a long pattern,
// chained in a block): a lane's registers, one column of its rows, and docs/spec.md §3.1's rules
// as the wavefront applies them (WaveRules; the scheme is described in
// spring_wavefront.cu). Device code only; internal linkage (an unnamed namespace): each .cu
// gets its own copy.
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
  std::int32_t first;          // low 32 bits of the chunk's first sample index
  float eps;
};

// The registers of one lane.
template <int R>
struct WaveLane {
  float d[R], p[R];
  std::int32_t s[R];
  float prev_d;  // the up input of the previous iteration: the diagonal of the first row
  std::int32_t prev_s;
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

// Several dimensions: the costs of this lane's rows at one column, c accumulated in
// component order as the reference does (the first term is c = 0 + term exactly:
// spring_term is never negative, -0 included). x: the column's `dims`
// values; the pattern from the warp's copy in shared memory, [row of the lane][component]
// [32 lanes], so that each lane reads its own words, conflict-free.
template <int R, bool kAbs>
__device__ __forceinline__ void multi_costs(float (&cost)[R], const float* x, const float* pat,
                                            int dims, int lane) {
  const float x0 = x[0];
#pragma unroll
  for (int r = 0; r < R; ++r) cost[r] = spring_term<kAbs>(x0, pat[r * dims * 32 + lane]);
  for (int k = 1; k < dims; ++k) {
    const float xk = x[k];
#pragma unroll
    for (int r = 0; r < R; ++r)
      cost[r] = cost[r] + spring_term<kAbs>(xk, pat[(r * dims + k) * 32 + lane]);
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

// The test a lane hands the lane below with its last row: the candidate it tested column t
// against (kd: +inf when none) and the fold F of the rows above and its own.
struct Travel {
  float kd;
  std::int32_t kte;
  float kf;
};

// A lane's checkpoint words: D, S, the diagonal input, and the test it hands down. Slot
// `slot` of a lane's checkpoints at ck + slot * kCheckpointWords<R> * 32 + lane: a warp's
// lanes write consecutive words.
template <int R>
inline constexpr int kCheckpointWords = 2 * R + 5;

template <int R>
__device__ __forceinline__ void save_checkpoint(const WaveLane<R>& w, const Travel& tr, float* ck,
                                                int slot, int lane) {
  float* base = ck + slot * kCheckpointWords<R> * 32 + lane;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    base[r * 32] = w.d[r];
    base[(R + r) * 32] = __int_as_float(w.s[r]);
  }
  base[2 * R * 32] = w.prev_d;
  base[(2 * R + 1) * 32] = __int_as_float(w.prev_s);
  base[(2 * R + 2) * 32] = tr.kd;
  base[(2 * R + 3) * 32] = __int_as_float(tr.kte);
  base[(2 * R + 4) * 32] = tr.kf;
}

template <int R>
__device__ __forceinline__ void load_checkpoint(WaveLane<R>& w, Travel& tr, const float* ck,
                                                int slot, int lane) {
  const float* base = ck + slot * kCheckpointWords<R> * 32 + lane;
#pragma unroll
  for (int r = 0; r < R; ++r) {
    w.d[r] = base[r * 32];
    w.s[r] = __float_as_int(base[(R + r) * 32]);
  }
  w.prev_d = base[2 * R * 32];
  w.prev_s = __float_as_int(base[(2 * R + 1) * 32]);
  tr.kd = base[(2 * R + 2) * 32];
  tr.kte = __float_as_int(base[(2 * R + 3) * 32]);
  tr.kf = base[(2 * R + 4) * 32];
}

// The last lane's candidate and how far it has decided.
struct Candidate {
  float d_min;
  std::int32_t t_s, t_e;
  int decided;  // the last column whose rules are applied (-1: none of this chunk)
};

// What the last lane tells its team (or block) after a column: go on, or re-run from
// column `target` (the test could not be answered, or a report reset cells), or give up
// (the report buffer is full).
enum Signal : int { kGoOn = 0, kUnknown = 1, kAbort = 2, kReported = 3 };

// The reset columns a team (or a tiled block) remembers, by column & mask: a re-run replays
// the resets of the columns it computes again.
struct ResetRing {
  int* col;
  std::int32_t* te;
  int mask;
};

// docs/spec.md §3.1's rules as every lane of a pair applies them after computing its rows of a
// column (see spring_wavefront.cu for the scheme). The candidate `c`, `signal` and `target`
// are meaningful on the last lane (is_last), which decides; bc_d/bc_te is the candidate as
// last broadcast to the pair's lanes, which row 0 hands down with each column.
template <int R, bool kAligned>
struct WaveRules {
  const SpringBatchDev& b;
  ResetRing resets;
  std::uint32_t pair;
  bool is_last;
  Candidate c;
  float bc_d;
  std::int32_t bc_te;
  Travel tr{f_inf(), 0, f_inf()};
  int replay_until = -1;           // columns <= this may be reset columns (the ring)
  int signal = kGoOn, target = 0;  // the last lane's; target: the column to re-run

  // The inputs of this lane's column t: the cell above its first row, by a width-W shuffle
  // from the lane above (row 0: the boundary D(t, 0) = 0 with S = t), and the test that
  // travels with it (row 0: the candidate last broadcast; none without kTravel but there).
  template <int W, bool kTravel>
  __device__ __forceinline__ Travel inputs(const WaveLane<R>& w, const Team& h, int t, float& up_d,
                                           std::int32_t& up_s) const {
    const float inf = f_inf();
    up_d = __shfl_up_sync(full_mask, w.d[R - 1], 1, W);
    up_s = __shfl_up_sync(full_mask, w.s[R - 1], 1, W);
    Travel in{inf, 0, inf};
    if constexpr (kTravel) {
      in.kd = __shfl_up_sync(full_mask, tr.kd, 1, W);
      in.kte = __shfl_up_sync(full_mask, tr.kte, 1, W);
      in.kf = __shfl_up_sync(full_mask, tr.kf, 1, W);
    }
    if (h.hl == 0) {
      up_d = 0.0f;
      up_s = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) +
                                       static_cast<std::uint32_t>(t));
      in = Travel{bc_d, bc_te, inf};
    }
    return in;
  }

  // After this lane computed its rows of column t (`in`: the test from the row above;
  // kTravel: the test travels at all). A reported column's reset is replayed; the last
  // lane tests its rows against the true candidate, the others against the travelling one
  // (fold into F), and the last lane decides the column.
  template <bool kTravel>
  __device__ __forceinline__ void after_column(WaveLane<R>& w, const Team& h, int t,
                                               const Travel& in) {
    const float inf = f_inf();
    if (t <= replay_until && resets.col[t & resets.mask] == t) {  // a reported column
      const std::int32_t te = resets.te[t & resets.mask];
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (!starts_after(w.s[r], te)) w.d[r] = inf;
    }
    float own_f = inf;
    const bool fold = is_last ? c.d_min <= h.eps : kTravel && bc_d <= h.eps && in.kd <= h.eps;
    if (fold) {
      const std::int32_t te = is_last ? c.t_e : in.kte;
      const int valid = kAligned || !is_last ? R : h.last_reg + 1;
#pragma unroll
      for (int r = 0; r < R; ++r)
        if ((kAligned || r < valid) && !starts_after(w.s[r], te)) own_f = fminf(own_f, w.d[r]);
    }
    if constexpr (kTravel) {
      const bool rules = bc_d <= h.eps;
      tr.kd = rules ? in.kd : inf;
      tr.kte = in.kte;
      tr.kf = rules ? fminf(in.kf, own_f) : inf;
    }
    if (is_last && signal == kGoOn && t > c.decided) decide(w, h, t, in, own_f);
  }

  // The rules at column t (decided == t - 1), on the last lane. The test: its own rows
  // against C exactly; if one fails, nothing is final. Else if the travelling K is C (same
  // t_e): final iff F >= C.d_min. Else C changed after K (K.t_e < C.t_e: K's rows are a
  // subset of C's): F < C.d_min proves a failing row; otherwise the answer is unknown.
  __device__ __forceinline__ void decide(const WaveLane<R>& w, const Team& h, int t,
                                         const Travel& in, float own_f) {
    const float inf = f_inf();
    const float d_last = kAligned ? w.d[R - 1] : pick<R>(w.d, h.last_reg);
    const std::int32_t s_last = kAligned ? w.s[R - 1] : pick<R>(w.s, h.last_reg);
    bool final = false;
    if (c.d_min <= h.eps && !(own_f < c.d_min)) {
      if (in.kd <= h.eps && in.kte == c.t_e) {
        final = !(in.kf < c.d_min);
      } else if (!(in.kd <= h.eps && in.kf < c.d_min)) {  // unknown
        signal = kUnknown;
        target = t;
        return;
      }
    }
    float d_m = d_last;
    if (final) {  // rule 1: report, forget the cells the match overlaps (by re-running)
      const std::uint32_t slot = atomicAdd(&b.report_count[0], 1u);
      if (slot >= b.report_capacity) {
        atomicExch(&b.report_count[1], 1u);
        signal = kAbort;
        return;
      }
      b.reports[slot] = SpringReportDev{pair, static_cast<std::uint32_t>(t), c.d_min, c.t_s, c.t_e};
      resets.col[t & resets.mask] = t;
      resets.te[t & resets.mask] = c.t_e;
      if (!starts_after(s_last, c.t_e)) d_m = inf;
      c.d_min = inf;
      signal = kReported;
      target = t;
    }
    if (d_m <= h.eps && d_m < c.d_min) {  // rule 2
      c.d_min = d_m;
      c.t_s = s_last;
      c.t_e = static_cast<std::int32_t>(static_cast<std::uint32_t>(h.first) +
                                        static_cast<std::uint32_t>(t));
    }
    c.decided = t;
  }

  // A re-run after `sig` at column `tgt`: every column before it is decided, and the
  // column itself when it reported.
  __device__ __forceinline__ void restart(int sig, int tgt) {
    replay_until = sig == kReported ? tgt : tgt - 1;
    signal = kGoOn;
  }
};

}  // namespace
}  // namespace warpwatch::kernels::cuda
