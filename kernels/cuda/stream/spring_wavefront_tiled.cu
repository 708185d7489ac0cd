// Stream mode's register wavefront for patterns longer than one warp's registers hold
// (513 .. 8192 rows), with all of SPRING's rules (docs/spec.md §3.1): a block per pair, a warp
// per row tile of 512 rows (32 lanes x 16).
//
// Dimension 1 keeps the pattern values in registers; several dimensions keep each tile's
// pattern rows in shared memory ([row of the lane][component][32 lanes], as the single-warp
// wavefront does) and the window's samples with all their components, as far as the
// device's shared memory goes (SpringWavefront::tiled_shared_bytes).
//
// Warp k keeps its tile's rows in registers for the whole chunk, like the single-warp
// wavefront (spring_wavefront.cu), and takes the cell above its first row, column by
// column, from warp k-1's last row through a ring in shared memory (the link). Warps run
// their 32-iteration blocks in lockstep with a barrier between steps, warp k two blocks
// behind warp k-1: by then warp k-1's last lane (31 columns behind its lane 0) has written
// every column warp k's block reads, and the 128-column ring still holds them.
//
// The rules work as in the single-warp wavefront, stretched over the tiles: the test of a
// column (the candidate row 0 knew, and the fold F) travels down the lanes by shuffle and
// from tile to tile through the link with the boundary cell; the last tile's last lane
// decides each column and, once a step, tells the block (through shared memory, after the
// barrier) its candidate and whether to re-run. A re-run after column t goes back to the
// step of block b = t / 32: each warp restores its registers as they were at the start of
// its own block b (it saved them there: a ring of 2 * (tiles - k) checkpoints in global
// memory, enough since warp k is at most 2 * (tiles - k) - 1 blocks past b when the signal
// comes), and warp k waits 2k steps before it runs again, so that the link holds the
// re-run's cells when it reads them. Columns up to the decided one are not decided twice,
// reported columns' resets are replayed from a ring in shared memory. Blocks loop over the
// pairs (a grid of as many blocks as stay resident), each with its own checkpoint slice.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>

#include "cuda/runtime/cuda_check.hpp"
#include "spring_wave.cuh"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr int kRows = 16;                               // rows a lane
constexpr int kTileRows = 32 * kRows;                   // rows a warp
constexpr int kLag = 2;                                 // blocks warp k runs behind warp k-1
constexpr int kLinkSlots = 128;                         // columns a link holds (a power of two)
constexpr int kCkWords = kCheckpointWords<kRows> * 32;  // a warp's checkpoint

// Checkpoints: warp k of `tiles` keeps 2 * (tiles - k) slots, after those of the warps
// before it; a block keeps tiles * (tiles + 1).
__host__ __device__ constexpr int ck_slots(int tiles, int k) {
  return 2 * (tiles - k);
}
__host__ __device__ constexpr int ck_offset(int tiles, int k) {
  return k * (2 * tiles - k + 1);  // sum of ck_slots(tiles, j) for j < k
}
__host__ __device__ constexpr int ck_block_slots(int tiles) {
  return tiles * (tiles + 1);
}

// Reset columns remembered: a re-run from block b computes columns [32 b - 31, ...) again
// and replays those up to the target column, at most 32 b + 31: fewer than 64, as in the
// single-warp wavefront.
constexpr int kResets = 128;

// A link slot: the cell of a tile's last row at one column, and the test it hands down.
struct LinkCell {
  float d;
  std::int32_t s;
  Travel tr;
};

// The block's shared memory (dynamic: its size depends on the tiles and dims), as
// SpringWavefront::tiled_shared_bytes counts it.
struct TiledShared {
  int* reset_col;  // [kResets]
  std::int32_t* reset_te;
  LinkCell* links;  // [tiles - 1][kLinkSlots]
  float* windows;   // [tiles][2 * kBlock][stride]
  int* control;     // [2][4]: the last lane's word after a step, double-buffered
  float* patterns;  // several dimensions: [tiles][kRows][dims][32]
};
static_assert(sizeof(LinkCell) == 20 && kResets == 128 && kLinkSlots == 128 && kBlock == 32 &&
              kRows == 16);  // as tiled_shared_bytes counts them
// Dimension 1: within what a launch may take without an opt-in, at every tile count.
// Several dimensions set the kernel's limit once, to the device's opt-in (resident_blocks):
// the attribute is per kernel, not per launch, so it is never lowered for a smaller launch.
static_assert(SpringWavefront::tiled_shared_bytes(SpringWavefront::max_tiles, 1) <= 48 * 1024);

__device__ inline TiledShared carve(unsigned char* base, int tiles, int stride) {
  TiledShared m;
  m.reset_col = reinterpret_cast<int*>(base);
  m.reset_te = m.reset_col + kResets;
  m.links = reinterpret_cast<LinkCell*>(m.reset_te + kResets);
  m.windows = reinterpret_cast<float*>(m.links + (tiles - 1) * kLinkSlots);
  m.control = reinterpret_cast<int*>(m.windows + tiles * 2 * kBlock * stride);
  m.patterns = reinterpret_cast<float*>(m.control + 8);
  return m;
}

// One warp (a row tile) of a tiled pair. Several dimensions: the tile's pattern rows in
// shared memory (pat), the window's samples `stride` words apart.
template <bool kDk, bool kAbs, bool kAligned, bool kMulti>
struct TiledTeam {
  WaveLane<kRows>& w;
  const Team& h;
  WaveRules<kRows, kAligned>& rules;
  const LinkCell* up;  // the link from the tile above (null: the first tile)
  LinkCell* down;      // to the tile below (null: the last tile)
  int count;
  const float* pat;
  int dims, stride;

  // Iteration k: lane hl computes column t = k - hl, whose sample is at x (all components).
  template <bool kGuarded, bool kTravel>
  __device__ __forceinline__ void iteration(int k, const float* x) {
    const int t = k - h.hl;
    float up_d;
    std::int32_t up_s;
    Travel in = rules.template inputs<32, kTravel>(w, h, t, up_d, up_s);
    if (up && h.hl == 0) {  // lane 0's t is k >= 0; slots past the chunk are never used
      const LinkCell& cell = up[t & (kLinkSlots - 1)];
      up_d = cell.d;
      up_s = cell.s;
      in = kTravel ? cell.tr : Travel{f_inf(), 0, f_inf()};
    }
    const float diag_d = w.prev_d;
    const std::int32_t diag_s = w.prev_s;
    w.prev_d = up_d;
    w.prev_s = up_s;
    if (kGuarded && !(t >= 0 && t < count)) return;
    if constexpr (kMulti) {
      float cost[kRows];
      multi_costs<kRows, kAbs>(cost, x, pat, dims, h.hl);
      wave_cells<kRows, kDk>(w, cost, up_d, up_s, diag_d, diag_s);
    } else {
      wave_column<kRows, kDk, kAbs>(w, *x, up_d, up_s, diag_d, diag_s);
    }
    rules.template after_column<kTravel>(w, h, t, in);
    if (down && h.hl == 31)  // what a step without travel hands down is "no test" (tr: +inf)
      down[t & (kLinkSlots - 1)] = LinkCell{w.d[kRows - 1], w.s[kRows - 1], rules.tr};
  }

  template <bool kGuarded, bool kTravel>
  __device__ __forceinline__ void block(int base, int n, const float* window) {
    if constexpr (!kGuarded) {
#pragma unroll 4
      for (int u = 0; u < kBlock; ++u) iteration<false, kTravel>(base + u, window + u * stride);
    } else {
      for (int u = 0; u < n; ++u) iteration<true, kTravel>(base + u, window + u * stride);
    }
  }
};

// One pair's chunk on this warp's tile. Returns whether the pair was given up (the report
// buffer is full; nothing stored).
template <bool kDk, bool kAbs, bool kAligned, bool kMulti>
__device__ bool tiled_pair(WaveLane<kRows>& w, const Team& h, const SpringBatchDev& b,
                           const SpringTileDev& st, int pl, std::uint32_t pair, int tile, int tiles,
                           const float* x, int count, int dims, const TiledShared& sm, float* ck) {
  const float inf = f_inf();
  const bool last_tile = tile == tiles - 1;
  WaveRules<kRows, kAligned> rules{b,
                                   ResetRing{sm.reset_col, sm.reset_te, kResets - 1},
                                   pair,
                                   h.hl == h.last_lane,
                                   Candidate{st.d_min[pl], st.t_s[pl], st.t_e[pl], -1},
                                   st.d_min[pl],
                                   st.t_e[pl]};
  const int stride = kMulti ? dims | 1 : 1;
  TiledTeam<kDk, kAbs, kAligned, kMulti> team{
      w,
      h,
      rules,
      tile > 0 ? sm.links + (tile - 1) * kLinkSlots : nullptr,
      last_tile ? nullptr : sm.links + tile * kLinkSlots,
      count,
      kMulti ? sm.patterns + tile * kRows * dims * 32 : nullptr,
      dims,
      stride};
  float* window = sm.windows + tile * 2 * kBlock * stride;
  const float* lane_window = window + (kBlock - h.hl) * stride;
  const auto sample = [&](int q) { return q >= 0 && q < count ? x[q] : 0.0f; };
  // Every tile has 32 real lanes but the last, whose padding lanes compute unread rows.
  const int iterations = count + 31;
  const int blocks = (iterations + kBlock - 1) / kBlock;
  const int slots = ck_slots(tiles, tile);
  // The window: at a block's start, samples [base - 32, base) and [base, base + 32).
  float held = 0.0f, next = sample(h.hl);
  int start = 0;  // this warp's first block since the last re-run
  bool aborted = false;
  for (int step = 0, phase = 0; step < blocks + kLag * (tiles - 1); ++phase) {
    const int blk = step - kLag * tile;
    if (blk >= start && blk < blocks) {  // uniform over the warp
      const int base = blk * kBlock;
      save_checkpoint<kRows>(w, rules.tr, ck, blk % slots, h.hl);
      __syncwarp();
      if constexpr (kMulti) {  // samples [base - 32, base + 32), every component, from global
        const int words = 2 * kBlock * dims;
        for (int i = h.hl; i < words; i += 32) {
          const int q = base - kBlock + i / dims, k = i % dims;
          window[(i / dims) * stride + k] =
              q >= 0 && q < count ? x[static_cast<std::ptrdiff_t>(q) * dims + k] : 0.0f;
        }
      } else {
        window[h.hl] = held;
        window[kBlock + h.hl] = next;
      }
      __syncwarp();
      if constexpr (!kMulti) {
        held = next;
        next = sample(base + kBlock + h.hl);
      }
      const bool travel = rules.bc_d <= h.eps;  // uniform over the block
      // Without travel a step leaves `tr` alone; what a later column reads from it must not
      // be an older column's test: none.
      if (!travel) rules.tr = Travel{inf, 0, inf};
      const bool steady = base >= kBlock && base + kBlock <= count;
      if (steady && travel)
        team.template block<false, true>(base, kBlock, lane_window);
      else if (steady)
        team.template block<false, false>(base, kBlock, lane_window);
      else if (travel)
        team.template block<true, true>(base, min(kBlock, iterations - base), lane_window);
      else
        team.template block<true, false>(base, min(kBlock, iterations - base), lane_window);
    }
    int* control = sm.control + (phase & 1) * 4;
    if (rules.is_last) {
      control[0] = __float_as_int(rules.c.d_min);
      control[1] = rules.c.t_e;
      control[2] = rules.signal | (rules.target << 2);
    }
    // The barrier orders the links' writes before the next step's reads, and the control
    // word before its reads here (the next step writes the other one).
    __syncthreads();
    rules.bc_d = __int_as_float(control[0]);
    rules.bc_te = control[1];
    const int word = control[2];
    const int signal = word & 3, target = word >> 2;
    if (signal == kUnknown || signal == kReported) {  // uniform over the block
      const int from = target / kBlock;
      load_checkpoint<kRows>(w, rules.tr, ck, from % slots, h.hl);
      if constexpr (!kMulti) {
        held = sample(from * kBlock - kBlock + h.hl);
        next = sample(from * kBlock + h.hl);
      }
      rules.restart(signal, target);
      start = from;
      step = from;
    } else if (signal == kAbort) {
      aborted = true;
      break;
    } else {
      ++step;
    }
  }
  if (!aborted) {
    wave_store<kRows>(w, h, st, pl);
    if (rules.is_last) {
      st.d_min[pl] = rules.c.d_min;
      st.t_s[pl] = rules.c.t_s;
      st.t_e[pl] = rules.c.t_e;
    }
  }
  return aborted;
}

template <bool kDk, bool kAbs, bool kMulti>
__global__ void __launch_bounds__(SpringWavefront::max_tiles * 32)
    spring_wavefront_tiled(SpringBatchDev b, const std::uint32_t* pairs, std::uint32_t pair_count,
                           std::uint32_t dims, std::uint32_t min_count, float* checkpoints) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int lane = threadIdx.x & 31, tile = threadIdx.x >> 5, tiles = blockDim.x >> 5;
  const int d = kMulti ? static_cast<int>(dims) : 1;
  const TiledShared sm = carve(shared_bytes, tiles, kMulti ? d | 1 : 1);
  float* ck = checkpoints +
              (std::size_t{blockIdx.x} * ck_block_slots(tiles) + ck_offset(tiles, tile)) * kCkWords;
  for (std::uint32_t index = blockIdx.x; index < pair_count; index += gridDim.x) {
    const std::uint32_t pair = pairs[index];
    const SpringTileDev& st = b.tiles[pair / 32];
    const int pl = static_cast<int>(pair % 32);
    const SpringChunkDev ch = b.chunks[st.stream[pl]];
    const SpringPatternDev pat = b.patterns[st.pattern];
    if (ch.count < min_count) continue;  // the sweep's (uniform over the block)

    Team h;
    h.hl = lane;
    h.leader = 0;
    h.m = static_cast<int>(pat.m);
    h.rows_from = tile * kTileRows;
    const bool last = tile == tiles - 1;
    h.last_lane = last ? (h.m - 1 - h.rows_from) / kRows : -1;
    h.last_reg = last ? (h.m - 1) % kRows : kRows - 1;
    h.first = ch.first;
    h.eps = pat.eps;
    WaveLane<kRows> w;
    if constexpr (kMulti) {  // the tile's rows, [row of the lane][component][32 lanes]
      float* own = sm.patterns + tile * kRows * d * 32;
      for (int r = 0; r < kRows; ++r) {
        const int row = h.rows_from + lane * kRows + r;
        for (int k = 0; k < d; ++k)
          own[(r * d + k) * 32 + lane] =
              row < h.m ? b.pattern_values[pat.value_offset + row * d + k] : 0.0f;
      }
    } else {
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const int row = h.rows_from + lane * kRows + r;
        w.p[r] = row < h.m ? b.pattern_values[pat.value_offset + row] : 0.0f;
      }
    }
    wave_load<kRows>(w, h, st, pl);
    for (int q = threadIdx.x; q < kResets; q += blockDim.x) sm.reset_col[q] = -1;
    __syncthreads();  // the ring's reset, and the previous pair's last reads of shared memory
    const float* x = b.values + ch.value_offset;
    const int count = static_cast<int>(ch.count);
    const bool aborted = (h.m - 1) % kRows == kRows - 1
                             ? tiled_pair<kDk, kAbs, true, kMulti>(w, h, b, st, pl, pair, tile,
                                                                   tiles, x, count, d, sm, ck)
                             : tiled_pair<kDk, kAbs, false, kMulti>(w, h, b, st, pl, pair, tile,
                                                                    tiles, x, count, d, sm, ck);
    if (last && lane == h.last_lane) {
      st.done[pl] = static_cast<std::uint32_t>(count);  // the sweep leaves it alone
      if (aborted) b.aborted[pair] = 1;                 // the host runs it here again
    }
    __syncthreads();  // this pair's reads of shared memory before the next pair's writes
  }
}

// Blocks of `tiles` warps and dims `dims` that stay resident on the device, per
// instantiation (asked once per tile count and dims). Several dimensions first raise the
// kernel's dynamic shared memory limit to the device's opt-in, once: never lowered.
template <bool kDk, bool kAbs, bool kMulti>
int resident_blocks(int tiles, int dims) {
  static std::atomic<int> cache[SpringWavefront::max_tiles + 1][SpringWavefront::max_dims + 1] = {};
  static std::once_flag raised;
  auto* kernel = spring_wavefront_tiled<kDk, kAbs, kMulti>;
  int device = 0;
  WW_CUDA(cudaGetDevice(&device));
  if constexpr (kMulti)
    std::call_once(raised, [&] {
      int optin = 0;
      WW_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
      WW_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, optin));
    });
  int n = cache[tiles][dims].load();
  if (n == 0) {
    const std::size_t bytes = SpringWavefront::tiled_shared_bytes(tiles, dims);
    int sms = 0, per_sm = 0;
    WW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WW_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32 * tiles, bytes));
    n = std::max(1, per_sm) * sms;
    cache[tiles][dims].store(n);
  }
  return n;
}

// The grid: as many blocks as stay resident with every instantiation of the dims' kind, at
// most one a pair.
std::uint32_t tiled_grid(std::uint32_t tiles, std::uint32_t dims, std::uint32_t pair_count) {
  const int t = static_cast<int>(tiles), d = static_cast<int>(dims);
  const auto least = [&](auto multi) {
    constexpr bool m = decltype(multi)::value;
    return std::min({resident_blocks<false, false, m>(t, d), resident_blocks<false, true, m>(t, d),
                     resident_blocks<true, false, m>(t, d), resident_blocks<true, true, m>(t, d)});
  };
  const int n = dims > 1 ? least(std::true_type{}) : least(std::false_type{});
  return std::min<std::uint32_t>(pair_count, static_cast<std::uint32_t>(n));
}

}  // namespace

std::size_t SpringWavefront::workspace_bytes(WavefrontShape shape, std::uint32_t dims,
                                             std::uint32_t pair_count) {
  if (shape.tiles <= 1 || pair_count == 0) return 0;
  const int tiles = static_cast<int>(shape.tiles);
  return std::size_t{tiled_grid(shape.tiles, dims, pair_count)} * ck_block_slots(tiles) * kCkWords *
         4;
}

void launch_spring_wavefront_tiled(const SpringBatchDev& batch, const std::uint32_t* pairs,
                                   std::uint32_t pair_count, std::uint32_t tiles, bool dk,
                                   bool abs_cost, std::uint32_t dims, std::uint32_t min_count,
                                   float* workspace, cudaStream_t stream) {
  if (pair_count == 0) return;
  WW_ASSERT(tiles >= 2 && tiles <= SpringWavefront::max_tiles,
            "spring wavefront: 2 to 16 row tiles a pair");
  WW_ASSERT(workspace != nullptr, "spring wavefront: row tiles need their workspace");
  const unsigned threads = 32 * tiles;
  WW_ASSERT(dims >= 1 && dims <= SpringWavefront::max_dims, "spring wavefront: dims 1..64");
  const std::uint32_t grid = tiled_grid(tiles, dims, pair_count);  // raises the limit first
  const std::size_t bytes = SpringWavefront::tiled_shared_bytes(tiles, dims);
  with_metric(dk, abs_cost, [&](auto kDk, auto kAbs) {
    constexpr bool dk_v = decltype(kDk)::value, abs_v = decltype(kAbs)::value;
    if (dims > 1)
      spring_wavefront_tiled<dk_v, abs_v, true>
          <<<grid, threads, bytes, stream>>>(batch, pairs, pair_count, dims, min_count, workspace);
    else
      spring_wavefront_tiled<dk_v, abs_v, false>
          <<<grid, threads, bytes, stream>>>(batch, pairs, pair_count, 1, min_count, workspace);
  });
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda
