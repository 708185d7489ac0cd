// Stream mode's fast path: a register wavefront per (stream, pattern) pair that applies all
// of SPRING's rules itself (docs/spec.md §3.1), for patterns up to 512 rows (longer ones: row
// tiles, the same scheme over a block, spring_wavefront_tiled.cu; the state layout:
// spring_launch.hpp).
//
// W lanes run one pair (a team): a half-warp (W 16, patterns up to 256 rows: two pairs a
// warp) or a whole warp (W 32, up to 512 rows). Lane l holds rows [l*R, l*R + R) of D and S
// in registers, and the pattern values of those rows too for dimension 1 (several
// dimensions: in shared memory, with the team's window of samples; see MultiView);
// iteration k computes column t = k - l on lane l, and the last row of lane l-1 arrives by
// a width-W shuffle. The two teams of a warp go their own way (each its own iteration k):
// only the shuffles are warp-wide.
//
// The rules. Rule 2 needs the last row only: the lane that holds it (the last lane) decides
// each column in order, in the iteration that computes it, and keeps the candidate.
// Rule 1 asks whether every row of a column has D >= d_min or S > t_e; the upper lanes
// computed their part of column t up to last_lane iterations earlier, when the last lane
// had not decided the columns before t yet. So the test travels with the column: lane 0
// takes the candidate it knows (K, the last lane's broadcast: the candidate after some
// column <= t-1) and hands it down with the boundary cell; every lane folds min{D : S <=
// K.t_e} over its rows into F. The last lane then knows, for column t and the true
// candidate C (after column t-1):
//  - its own rows, tested against C exactly; if one fails, nothing is final;
//  - else if K is C (same t_e): final iff F >= C.d_min;
//  - else C changed after K (so K.t_e < C.t_e and K's rows are a subset of C's): F <
//    C.d_min proves a failing row; otherwise the answer is unknown.
// Two events undo work the upper lanes did ahead: a report (it resets the cells of column
// t whose S <= t_e, and every later column depends on them) and an unknown answer. Both
// re-run the team from a checkpoint: at each block of 32 iterations every lane saves its
// registers (the wavefront's diagonal) in shared memory, two blocks kept; a re-run restores
// the block holding column t and goes forward again. Columns up to the last decided one
// are not decided twice, and a reported column's reset is replayed from a ring of reset
// columns; at column t itself the candidate lane 0 knows is now exact, so every re-run
// makes progress. Every cell is computed as spring_cell.cuh says, so the results are the
// reference's bit for bit.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_wave.cuh"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr int kWarps = 2;  // warps per block (the most: several dimensions may take one)
constexpr int kRing = SpringWavefront::sample_ring;  // samples a team keeps, by index mod kRing
constexpr int kResets = 128;  // reset columns a team remembers, by column mod kResets

// What a team keeps in shared memory: the reset columns, and for a pattern of dimension 1
// its samples (several dimensions: the team's window in dynamic shared memory, below).
struct TeamResets {
  int reset_col[kResets];
  std::int32_t reset_te[kResets];
};
struct TeamMemory : TeamResets {
  float ring[kRing];
};

// A pattern of several dimensions: where a team finds its samples and its pattern values
// (dynamic shared memory; unused for dimension 1).
struct MultiView {
  float* ring = nullptr;       // [kRing][stride]: sample q's dims values at (q mod kRing) * stride
  const float* pat = nullptr;  // the warp's [R][dims][32]
  int dims = 1;
  int stride = 1;  // dims rounded up to odd: the lanes' reads of consecutive samples hit
                   // distinct banks
  int lane = 0;
};

template <bool kMulti>
using TeamMem = std::conditional_t<kMulti, TeamResets, TeamMemory>;

// One team's run over its chunk. Iterations go in groups of 4: the last lane decides a
// column in the iteration that computes it, but tells the team (its candidate, and
// whether to re-run) once a group; after a signal it decides nothing more until the team
// has re-run. A group where every lane of the warp computes (no fill, no drain, no
// finished team) runs without guards.
template <int R, int W, bool kDk, bool kAbs, bool kAligned, bool kMulti>
struct RuleTeam {
  static constexpr int kGroup = 4;
  WaveLane<R>& w;
  const Team& h;
  TeamMem<kMulti>& tm;
  const MultiView& mv;
  int count;
  WaveRules<R, kAligned> rules;

  // Iteration k: lane hl computes column t = k - hl. kTravel: some team of the warp has a
  // candidate pending, so the test travels with the columns.
  template <bool kSteady, bool kTravel>
  __device__ __forceinline__ void iteration(int k, bool active) {
    const int t = k - h.hl;
    float up_d;
    std::int32_t up_s;
    const Travel in = rules.template inputs<W, kTravel>(w, h, t, up_d, up_s);
    const float diag_d = w.prev_d;
    const std::int32_t diag_s = w.prev_s;
    w.prev_d = up_d;
    w.prev_s = up_s;
    const bool computed = kSteady || (active && t >= 0 && t < count);
    if (!computed) return;
    if constexpr (kMulti) {
      float cost[R];
      multi_costs<R, kAbs>(cost, mv.ring + (t & (kRing - 1)) * mv.stride, mv.pat, mv.dims, mv.lane);
      wave_cells<R, kDk>(w, cost, up_d, up_s, diag_d, diag_s);
    } else {
      wave_column<R, kDk, kAbs>(w, tm.ring[t & (kRing - 1)], up_d, up_s, diag_d, diag_s);
    }
    rules.template after_column<kTravel>(w, h, t, in);
  }

  template <bool kSteady, bool kTravel>
  __device__ __forceinline__ void group(int k, int end) {
#pragma unroll
    for (int u = 0; u < kGroup; ++u) iteration<kSteady, kTravel>(k + u, k + u < end);
  }
};

// Several dimensions: samples [from, to) of the chunk into the team's window, by the team's
// lanes, with asynchronous copies (cp.async: no registers held while they land) or plain
// loads; samples past the chunk read 0.
__device__ __forceinline__ void stage_multi(const MultiView& mv, const float* x, int count,
                                            int from, int to, int hl, int lanes, bool async) {
  const int words = (to - from) * mv.dims;
  const float* src = x + static_cast<std::size_t>(from) * mv.dims;
  for (int i = hl; i < words; i += lanes) {
    const int q = from + i / mv.dims, k = i % mv.dims;
    float* dst = mv.ring + (q & (kRing - 1)) * mv.stride + k;
    if (q >= count)
      *dst = 0.0f;
    else if (async)
      __pipeline_memcpy_async(dst, src + i, sizeof(float));
    else
      *dst = src[i];
  }
}

template <int R, int W, bool kDk, bool kAbs, bool kAligned, bool kMulti>
__device__ void rule_team(WaveLane<R>& w, const Team& h, const SpringBatchDev& b,
                          const SpringTileDev& tile, int pl, std::uint32_t pair, bool has,
                          const float* x, int count, TeamMem<kMulti>& tm, const MultiView& mv,
                          float* ck, int lane, unsigned team_mask) {
  using Run = RuleTeam<R, W, kDk, kAbs, kAligned, kMulti>;
  constexpr int kPer = kMulti ? 1 : kBlock / W;  // samples a lane stages per block of 32
  const int end = has ? count + h.last_lane : 0;
  const auto sample = [&](int q) { return q < count ? x[q] : 0.0f; };
  const int src = h.leader + h.last_lane;
  Run run{
      w,
      h,
      tm,
      mv,
      count,
      {b, ResetRing{tm.reset_col, tm.reset_te, kResets - 1}, pair, has && h.hl == h.last_lane,
       Candidate{tile.d_min[pl], tile.t_s[pl], tile.t_e[pl], -1}, tile.d_min[pl], tile.t_e[pl]}};
  auto& rules = run.rules;
  bool aborted = false;

  // Samples [0, 64) now, [64, 96) prefetched; then at each block start k, the prefetched
  // [k+32, k+64) go to the ring and [k+64, k+96) are fetched. A re-run goes back at most
  // two blocks, whose samples the ring still holds. Dimension 1 prefetches into registers;
  // several dimensions copy asynchronously into the window and wait a block later.
  float pf[kPer];
  int pf_base = 64;
  if (has) {
    if constexpr (kMulti) {
      stage_multi(mv, x, count, 0, 64, h.hl, W, false);
      stage_multi(mv, x, count, 64, 96, h.hl, W, true);
      __pipeline_commit();
    } else {
      for (int q = h.hl; q < 64; q += W) tm.ring[q] = sample(q);
#pragma unroll
      for (int i = 0; i < kPer; ++i) pf[i] = sample(64 + i * W + h.hl);
    }
    for (int q = h.hl; q < kResets; q += W) tm.reset_col[q] = -1;
  }
  __syncwarp();
  save_checkpoint<R>(w, rules.tr, ck, 0, lane);

  int k = 0;
  while (__any_sync(full_mask, k < end)) {
    if (k < end && k > 0 && (k & (kBlock - 1)) == 0) {  // a block start (team-uniform)
      if (pf_base == k + kBlock) {                      // not when re-running a block
        if constexpr (kMulti) {
          __pipeline_wait_prior(0);  // [k+32, k+64), copied since the last block start
          pf_base += kBlock;
          stage_multi(mv, x, count, pf_base, pf_base + kBlock, h.hl, W, true);
          __pipeline_commit();
        } else {
#pragma unroll
          for (int i = 0; i < kPer; ++i) tm.ring[(pf_base + i * W + h.hl) & (kRing - 1)] = pf[i];
          pf_base += kBlock;
#pragma unroll
          for (int i = 0; i < kPer; ++i) pf[i] = sample(pf_base + i * W + h.hl);
        }
      }
      __syncwarp(team_mask);
      save_checkpoint<R>(w, rules.tr, ck, (k / kBlock) & 1, lane);
    }
    const bool travel = __any_sync(full_mask, rules.bc_d <= h.eps);
    // Without travel a group leaves `tr` alone; what a later group reads from it must not
    // be an older column's test: none.
    if (!travel) rules.tr = Travel{f_inf(), 0, f_inf()};
    // Every lane computes: a team that runs is past its fill and before its drain, or the
    // team has no pair (its registers are never stored).
    const bool steady = __all_sync(
        full_mask, !has || (k >= W - 1 && k + Run::kGroup <= count && k + Run::kGroup <= end));
    if (steady) {
      if (travel)
        run.template group<true, true>(k, end);
      else
        run.template group<true, false>(k, end);
    } else {
      if (travel)
        run.template group<false, true>(k, end);
      else
        run.template group<false, false>(k, end);
    }
    rules.bc_d = __shfl_sync(full_mask, rules.c.d_min, src);
    rules.bc_te = __shfl_sync(full_mask, rules.c.t_e, src);
    const int word = __shfl_sync(full_mask, rules.signal | (rules.target << 2), src);
    const int signal = word & 3, target = word >> 2;
    if (signal == kUnknown || signal == kReported) {  // team-uniform
      __syncwarp(team_mask);  // the ring's new reset column is seen by the whole team
      const int from = target - target % kBlock;  // the block whose start precedes column t
      load_checkpoint<R>(w, rules.tr, ck, (from / kBlock) & 1, lane);
      rules.restart(signal, target);
      k = from;
    } else if (signal == kAbort) {
      aborted = true;
      k = end;
    } else if (k < end) {
      k += Run::kGroup;
    }
  }
  if constexpr (kMulti) __pipeline_wait_prior(0);  // no copy lands after the team is gone
  if (!has) return;
  if (aborted) {  // the report buffer is full: the pair's state stays as it was
    if (rules.is_last) {
      tile.done[pl] = static_cast<std::uint32_t>(count);  // not the sweep's
      b.aborted[pair] = 1;                                // the host runs it here again
    }
    return;
  }
  wave_store<R>(w, h, tile, pl);
  if (rules.is_last) {
    tile.d_min[pl] = rules.c.d_min;
    tile.t_s[pl] = rules.c.t_s;
    tile.t_e[pl] = rules.c.t_e;
    tile.done[pl] = static_cast<std::uint32_t>(count);
  }
}

template <int R, int W, bool kDk, bool kAbs, bool kMulti>
__global__ void __launch_bounds__(kWarps * 32)
    spring_wavefront(SpringBatchDev b, const std::uint32_t* pairs, std::uint32_t pair_count,
                     std::uint32_t min_count) {
  constexpr int kPairs = 32 / W;  // pairs (teams) per warp
  __shared__ TeamMem<kMulti> teams[kWarps][kPairs];
  __shared__ float checkpoints[kWarps][2 * kCheckpointWords<R> * 32];
  extern __shared__ float windows[];  // several dimensions: per warp, MultiView's arrays
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, team = lane / W;
  const int warps = static_cast<int>(blockDim.x >> 5);
  const std::uint32_t first_pair = (blockIdx.x * warps + warp) * kPairs;
  if (first_pair >= pair_count) return;  // whole warps leave together
  const std::uint32_t index = first_pair + team < pair_count ? first_pair + team : first_pair;
  const std::uint32_t pair = pairs[index];
  const SpringTileDev& tile = b.tiles[pair / 32];
  const int pl = static_cast<int>(pair % 32);
  const SpringChunkDev ch = b.chunks[tile.stream[pl]];
  const SpringPatternDev pat = b.patterns[tile.pattern];
  // A pair runs here unless it is another team's stand-in or its chunk is short (then the
  // sweep takes it).
  const bool has = first_pair + team < pair_count && ch.count >= min_count;
  if (!__any_sync(full_mask, has)) return;

  Team h;
  h.hl = lane % W;
  h.leader = team * W;
  h.m = static_cast<int>(pat.m);
  h.last_lane = (h.m - 1) / R;
  h.last_reg = (h.m - 1) % R;
  h.rows_from = 0;
  h.first = ch.first;
  h.eps = pat.eps;
  WaveLane<R> w;
  MultiView mv;
  if constexpr (kMulti) {
    const int dims = static_cast<int>(pat.dims);
    mv.dims = dims;
    mv.stride = dims | 1;
    mv.lane = lane;
    float* own = windows + static_cast<std::size_t>(warp) *
                               SpringWavefront::multi_warp_words(R, kPairs, pat.dims);
    // Each lane writes and reads only its own words: no barrier.
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int row = h.hl * R + r;
      for (int k = 0; k < dims; ++k)
        own[(r * dims + k) * 32 + lane] =
            row < h.m ? b.pattern_values[pat.value_offset + row * dims + k] : 0.0f;
    }
    mv.pat = own;
    mv.ring = own + R * dims * 32 + team * kRing * mv.stride;
  } else {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int row = h.hl * R + r;
      w.p[r] = row < h.m ? b.pattern_values[pat.value_offset + row] : 0.0f;
    }
  }
  wave_load<R>(w, h, tile, pl);
  const float* x = b.values + ch.value_offset;
  const int count = has ? static_cast<int>(ch.count) : 0;
  const unsigned team_mask = W == 32 ? full_mask : (0xffffu << h.leader);
  if (__all_sync(full_mask, h.last_reg == R - 1))
    rule_team<R, W, kDk, kAbs, true, kMulti>(w, h, b, tile, pl, pair, has, x, count,
                                             teams[warp][team], mv, checkpoints[warp], lane,
                                             team_mask);
  else
    rule_team<R, W, kDk, kAbs, false, kMulti>(w, h, b, tile, pl, pair, has, x, count,
                                              teams[warp][team], mv, checkpoints[warp], lane,
                                              team_mask);
}

// The static shared memory of the R = 16 kernels, as SpringWavefront::multi_static_bytes
// counts it for its budget.
static_assert(sizeof(TeamResets) * kWarps * 2 + 2 * kCheckpointWords<16> * 32 * 4 * kWarps <=
              SpringWavefront::multi_static_bytes);

template <int R, int W>
void launch_rows(const SpringBatchDev& b, const std::uint32_t* pairs, std::uint32_t n, bool dk,
                 bool abs_cost, std::uint32_t dims, std::uint32_t min_count, cudaStream_t stream) {
  constexpr unsigned kPairs = 32 / W;
  with_metric(dk, abs_cost, [&](auto kDk, auto kAbs) {
    constexpr bool dk_v = decltype(kDk)::value, abs_v = decltype(kAbs)::value;
    if (dims == 1) {
      const unsigned per_block = kWarps * kPairs;
      spring_wavefront<R, W, dk_v, abs_v, false>
          <<<(n + per_block - 1) / per_block, kWarps * 32, 0, stream>>>(b, pairs, n, min_count);
      return;
    }
    // Several dimensions: two warps a block when their windows fit, else one.
    const std::size_t per_warp = SpringWavefront::multi_warp_words(R, kPairs, dims) * 4;
    const std::size_t limit = SpringWavefront::multi_dynamic_limit();
    const unsigned warps = 2 * per_warp <= limit ? 2u : 1u;
    WW_ASSERT(per_warp <= limit, "spring wavefront: a pattern too large for shared memory");
    const std::size_t bytes = warps * per_warp;
    auto* kernel = spring_wavefront<R, W, dk_v, abs_v, true>;
    WW_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(bytes)));
    const unsigned per_block = warps * kPairs;
    kernel<<<(n + per_block - 1) / per_block, warps * 32, bytes, stream>>>(b, pairs, n, min_count);
  });
}

}  // namespace

void launch_spring_wavefront(const SpringBatchDev& batch, const std::uint32_t* pairs,
                             std::uint32_t pair_count, WavefrontShape shape, bool dk, bool abs_cost,
                             std::uint32_t dims, std::uint32_t min_count, cudaStream_t stream) {
  if (pair_count == 0) return;
  const auto go = [&](auto launch) {
    launch(batch, pairs, pair_count, dk, abs_cost, dims, min_count, stream);
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
                          std::uint32_t dims, float* workspace, cudaStream_t stream) {
  if (shape.tiles > 1) {
    launch_spring_wavefront_tiled(batch, pairs, pair_count, shape.tiles, dk, abs_cost, dims,
                                  min_count, workspace, stream);
  } else {
    launch_spring_wavefront(batch, pairs, pair_count, shape, dk, abs_cost, dims, min_count, stream);
  }
}

std::size_t SpringWavefront::multi_dynamic_limit() {
  static const std::size_t limit = [] {
    int device = 0, optin = 0;
    WW_CUDA(cudaGetDevice(&device));
    WW_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    return static_cast<std::size_t>(optin) > multi_static_bytes
               ? static_cast<std::size_t>(optin) - multi_static_bytes
               : std::size_t{0};
  }();
  return limit;
}

}  // namespace warpwatch::kernels::cuda
