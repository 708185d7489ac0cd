// Stream mode (docs/spec.md §3.1) on the device: the tables the host keeps there and the
// launchers of the kernels (spring_wavefront*.cu, spring_sweep.cu, spring_kernels.cu).
//
// State layout. The pairs of one pattern are packed 32 to a tile; a tile's state is one
// allocation: two sides, each laid out [row][32 lanes] (D as float32, S as the low 32 bits
// of the start index), then 32 lanes each of d_min, t_s, t_e and side (which side holds
// the lane's column): 16*m + 16 bytes per pair, plus 4 bytes of per-batch progress (`done`,
// one array for all tiles) and 4 in the tile table. The lane-minor layout makes the
// thread-per-pair kernel's accesses coalesced; the wavefront reads a pair's column once per
// batch, keeps it in registers and writes it back to the same side; the sweep
// (spring_sweep.hpp) reads one side and writes the other, so that it can go over a block
// of columns again.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

// What both the host and the kernels compute (nvcc: __host__ __device__).
#if defined(__CUDACC__)
#define WW_LAUNCH_HD __host__ __device__
#else
#define WW_LAUNCH_HD
#endif

namespace warpwatch::kernels::cuda {

inline constexpr std::uint32_t tile_lanes = 32;
inline constexpr std::uint32_t no_pair = 0xffffffffu;

struct SpringPatternDev {
  std::uint32_t value_offset = 0;  // into the pattern value buffer
  std::uint32_t m = 0;
  std::uint32_t dims = 1;
  std::uint32_t dk = 0;        // metric: 0 dtw, 1 dk
  std::uint32_t abs_cost = 0;  // cost: 0 sq, 1 abs
  float eps = 0.0f;            // reference::stream_eps(threshold)
};

struct SpringTileDev {
  float* d[2] = {};               // by side: [m][32]
  std::int32_t* s[2] = {};        // by side: [m][32]
  float* d_min = nullptr;         // [32] pending candidate (inf: none)
  std::int32_t* t_s = nullptr;    // [32]
  std::int32_t* t_e = nullptr;    // [32]
  std::uint32_t* side = nullptr;  // [32] the side holding the lane's column (0 or 1)
  std::uint32_t* done = nullptr;  // [32] samples of this batch already processed (per batch)
  std::uint32_t pattern = 0;
  std::uint32_t lanes = 0;                // pairs held: lanes [0, lanes)
  std::uint32_t stream[tile_lanes] = {};  // per lane: the stream's slot in the chunk table
};

#if defined(__CUDACC__)
// Lane pl's column on its current side (rows 32 apart).
__device__ __forceinline__ float* lane_d(const SpringTileDev& tile, int pl) {
  return tile.d[tile.side[pl]] + pl;
}
__device__ __forceinline__ std::int32_t* lane_s(const SpringTileDev& tile, int pl) {
  return tile.s[tile.side[pl]] + pl;
}
#endif

// One stream's samples in this batch.
struct SpringChunkDev {
  std::uint64_t value_offset = 0;  // first float in the batch's value buffer
  std::uint32_t count = 0;
  std::int32_t first = 0;  // low 32 bits of the chunk's first sample index
};

// A report: the candidate of pair `pair` (tile * 32 + lane) became final after the
// column of chunk step `step`. pair == no_pair: a reserved slot left unused.
struct SpringReportDev {
  std::uint32_t pair;
  std::uint32_t step;
  float distance;
  std::int32_t t_s, t_e;
};

struct SpringBatchDev {
  const SpringTileDev* tiles = nullptr;
  std::uint32_t tile_count = 0;
  const SpringPatternDev* patterns = nullptr;
  const float* pattern_values = nullptr;
  const SpringChunkDev* chunks = nullptr;  // by stream slot
  const float* values = nullptr;           // all chunks' samples, count x dims each
  SpringReportDev* reports = nullptr;
  std::uint32_t report_capacity = 0;
  std::uint32_t* report_count = nullptr;  // device counters: [0] reports reserved,
                                          // [1] 1 when a reservation did not fit
  // Per pair (tile * 32 + lane), zero between batches: 1 when the wavefront gave the pair
  // up because a report did not fit. Its state is left as it was before the chunk, its
  // reports of the batch are void, and its `done` says the chunk is done so that the
  // sweep leaves it alone: the host runs it on the wavefront again, with a larger
  // buffer (SpringPairs::settle).
  std::uint32_t* aborted = nullptr;
};

// How the register wavefront lays out a pattern: `lanes` lanes a pair (16: two pairs a
// warp; 32: one), `rows` rows a lane, `tiles` row tiles (more than one: a warp per tile of
// 512 rows, chained in a block; spring_wavefront_tiled.cu).
struct WavefrontShape {
  std::uint32_t lanes = 0, rows = 0, tiles = 1;
  bool operator==(const WavefrontShape& o) const {
    return lanes == o.lanes && rows == o.rows && tiles == o.tiles;
  }
};

// The stream-mode kernel families, each saying what it can run and the workspace it needs
// before it runs (CUTLASS's can_implement / get_workspace_size / run):
//   SpringWavefront  the register wavefront: a pair's column in registers for the whole
//                    chunk, all of docs/spec.md §3.1's rules applied in it; chunks of 32 samples
//                    and more; patterns of 16..512 rows and 1..64 dimensions (the pattern
//                    values of several dimensions in shared memory, as much as the device
//                    has; spring_wavefront.cu), or up to 8192 rows in row tiles
//                    (spring_wavefront_tiled.cu; several dimensions as far as the device's
//                    shared memory holds their pattern rows).
//   SpringSweep      thread per pair, a block of columns per pass over the rows
//                    (spring_sweep.hpp), every shape, all of docs/spec.md §3.1's rules; continues
//                    every pair from where the wavefront left it to the end of its chunk:
//                    short chunks (live ticks), several dimensions past the device's
//                    shared memory, more than 8192 rows.
struct SpringWavefront {
  // The most row tiles a tiled pair has (a block of 16 warps at 128 registers a thread
  // fills an SM's register file), and so the longest pattern the family takes.
  static constexpr std::uint32_t max_tiles = 16;
  static constexpr std::uint32_t max_m = 512 * max_tiles;
  // Chunks shorter than this are left to SpringSweep: a wavefront spends 15 (31 at 32
  // lanes a pair) of its first iterations filling and as many of its last draining.
  static constexpr std::uint32_t min_count = 32;

  static constexpr std::uint32_t max_dims = 64;
  static constexpr std::uint32_t sample_ring = 256;  // samples a team keeps (a power of two)
  // Several dimensions: the shared memory words one warp needs beyond the kernel's static
  // share: its pattern rows ([rows a lane][dims][32 lanes]) and, per team (pair), a window
  // of sample_ring samples of `dims` values (a row of them padded to odd).
  WW_LAUNCH_HD static constexpr std::size_t multi_warp_words(std::uint32_t rows,
                                                             std::uint32_t pairs,
                                                             std::uint32_t dims) {
    return std::size_t{rows} * dims * 32 + std::size_t{pairs} * sample_ring * (dims | 1u);
  }
  // The kernel's static shared memory at most (reset rings, checkpoints; 16 rows a lane).
  static constexpr std::size_t multi_static_bytes = 24 * 1024;
  // Dynamic shared memory a block may have on this device (its opt-in limit less the static
  // share); host only, asks the current device once.
  static std::size_t multi_dynamic_limit();
  // `dynamic_limit`: multi_dynamic_limit() (only several dimensions need it).
  static constexpr bool can_implement(std::uint32_t m, std::uint32_t dims,
                                      std::size_t dynamic_limit) {
    if (dims == 1) return m >= 16 && m <= max_m;
    if (dims == 0 || dims > max_dims || m < 16 || m > max_m) return false;
    if (m > 512) return tiled_shared_bytes(shape(m).tiles, dims) <= dynamic_limit;
    return multi_fits(shape(m, dims, dynamic_limit), dims, dynamic_limit);
  }
  // Row tiles: the block's shared memory (spring_wavefront_tiled.cu): the reset ring (2 x
  // 128 words), a link of 128 cells (20 bytes) between tiles, a window of 64 samples a tile
  // (`dims` values, padded to odd) and the control words; several dimensions add each
  // tile's pattern rows ([16 rows a lane][dims][32 lanes]). At 16 tiles of dimension 1:
  // 43,552 bytes; several dimensions take the device's opt-in share (the H100's: up to 8192 rows
  // at d 2-4, 4608 at d 8, 1024 at d 32).
  WW_LAUNCH_HD static constexpr std::size_t tiled_shared_bytes(std::uint32_t tiles,
                                                               std::uint32_t dims) {
    return std::size_t{2} * 128 * 4 + std::size_t{tiles - 1} * 128 * 20 +
           std::size_t{tiles} * 64 * (dims | 1u) * 4 + 8 * 4 +
           (dims > 1 ? std::size_t{tiles} * 16 * dims * 32 * 4 : 0);
  }
  // The shape for a pattern can_implement takes: 16 lanes and the smallest power-of-two
  // rows with 16 * rows >= m up to m = 256, then 32 lanes of 16 rows up to 512, then tiles
  // of 512 rows. Several dimensions: the same, or, where two pairs' windows do not fit one
  // warp's share, 32 lanes of 16 rows (a pair a warp; the lanes past the pattern idle).
  static constexpr WavefrontShape shape(std::uint32_t m) {
    if (m > 512) return {32, 16, (m + 511) / 512};
    if (m > 16 * 16) return {32, 16, 1};
    std::uint32_t rows = 1;
    while (16 * rows < m) rows *= 2;
    return {16, rows, 1};
  }
  // (Several dimensions past 512 rows: the row tiles, as can_implement requires.)
  static constexpr WavefrontShape shape(std::uint32_t m, std::uint32_t dims,
                                        std::size_t dynamic_limit) {
    const WavefrontShape s = shape(m);
    if (dims == 1 || s.tiles > 1 || multi_fits(s, dims, dynamic_limit)) return s;
    return {32, 16, 1};
  }
  static constexpr bool multi_fits(WavefrontShape s, std::uint32_t dims,
                                   std::size_t dynamic_limit) {
    return s.tiles == 1 && multi_warp_words(s.rows, 32 / s.lanes, dims) * 4 <= dynamic_limit;
  }
  // Row tiles keep their checkpoints in global memory, a slice per resident block (host
  // only: asks the device once per tile count); 0 for one tile.
  static std::size_t workspace_bytes(WavefrontShape shape, std::uint32_t dims,
                                     std::uint32_t pair_count);
  // The pairs listed (tile * 32 + lane), all of `shape`, metric, cost and dims. A pair is skipped
  // (left to SpringSweep) when its chunk has fewer than min_count samples. Otherwise it runs
  // its whole chunk, reports included, and records it in `done` (or gives up, untouched, when
  // the report buffer is full: `aborted`). `workspace`: workspace_bytes(shape, dims,
  // pair_count).
  static void run(const SpringBatchDev& batch, const std::uint32_t* pairs, std::uint32_t pair_count,
                  WavefrontShape shape, bool dk, bool abs_cost, std::uint32_t dims,
                  float* workspace, cudaStream_t stream);
};

struct SpringSweep {
  static constexpr bool can_implement(std::uint32_t /*m*/, std::uint32_t /*dims*/) { return true; }
  static constexpr std::size_t workspace_bytes() { return 0; }  // reports go to the batch's buffer
  // Every pair continues from `done` to the end of its chunk. A pair whose block's reports
  // do not fit the report buffer stops at that block's start (`done` says where, its state
  // and candidate as they were there): the caller collects, grows and runs again.
  static void run(const SpringBatchDev& batch, cudaStream_t stream);
};

// The lanes of one tile to set to fresh pairs (D = +inf, S = 0, no candidate), side 0.
struct SpringFreshTileDev {
  float* d;
  std::int32_t* s;
  std::uint32_t* side;
  float* d_min;
  std::int32_t* t_s;
  std::int32_t* t_e;
  std::uint32_t m;
  std::uint32_t lanes;  // bit l: lane l
};

// Sets the lanes of `count` tiles fresh in one launch (a block a tile): pairs added one by
// one (10,000 auto-created streams x 64 patterns) once cost a launch each, seconds in all.
void launch_spring_fresh_lanes(const SpringFreshTileDev* tiles, std::uint32_t count,
                               cudaStream_t stream);

// Moves the state of (from, from_lane) to (to, to_lane); both tiles of one pattern.
void launch_spring_move_lane(const SpringTileDev& from, std::uint32_t from_lane,
                             const SpringTileDev& to, std::uint32_t to_lane, std::uint32_t m,
                             cudaStream_t stream);

// SpringWavefront::run's two launchers: shape.tiles == 1 (spring_wavefront.cu) and > 1
// (spring_wavefront_tiled.cu).
void launch_spring_wavefront(const SpringBatchDev& batch, const std::uint32_t* pairs,
                             std::uint32_t pair_count, WavefrontShape shape, bool dk, bool abs_cost,
                             std::uint32_t dims, std::uint32_t min_count, cudaStream_t stream);
void launch_spring_wavefront_tiled(const SpringBatchDev& batch, const std::uint32_t* pairs,
                                   std::uint32_t pair_count, std::uint32_t tiles, bool dk,
                                   bool abs_cost, std::uint32_t dims, std::uint32_t min_count,
                                   float* workspace, cudaStream_t stream);

// Per pair (tile * 32 + lane): how far back from its stream's next index (the chunk
// table's `first` field holds the low 32 bits of it) the oldest start it may still report
// lies; 0 when none.
void launch_spring_live_age(const SpringBatchDev& batch, std::uint32_t* age, cudaStream_t stream);

}  // namespace warpwatch::kernels::cuda
