// Stream mode on the device: the tiles of every stream-mode pattern, the tables the
// kernels read (spring_launch.hpp), and a batch's run from packed chunks to matches.
// Pairs join and leave a pattern without disturbing the other pairs' state: a leaving
// pair's lane is filled with the pattern's last lane, state and all. Pair::handle is the
// pair's lane counted across the pattern's tiles (tile * 32 + lane).
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/low32_index.hpp"
#include "common/matcher_state.hpp"
#include "cuda/runtime/device_memory.hpp"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {

class SpringPairs {
 public:
  explicit SpringPairs(const Stream& compute) : compute_(compute) {}

  void add_pattern(const common::PatternState& pattern);  // a stream-mode pattern, no pairs yet
  // Ends every pair of the pattern, appending their pending candidates.
  void remove_pattern(const common::PatternState& pattern, std::vector<RawMatch>& out);
  // A fresh pair of a pattern added before.
  void add_pair(common::Pair* pair);
  // Ends the pair, appending its pending candidate.
  void remove_pair(common::Pair* pair, std::vector<RawMatch>& out);

  bool empty() const { return patterns_.empty(); }
  // Queues the batch whose chunks are in `chunks`/`values` (device, by stream slot) on
  // the compute stream; `max_count` is the longest chunk.
  void launch(const SpringChunkDev* chunks, const float* values, std::uint32_t max_count);
  // Waits for the launched batch and appends its matches; returns the device time of its
  // kernels (CUDA events on the compute stream).
  double collect(std::vector<RawMatch>& out);
  // Every pending candidate (end of input).
  void flush(std::vector<RawMatch>& out);
  // Lowers keep_from[stream slot] to the oldest start a pair of the stream may still
  // report; `next_chunks` (device) holds every stream's next index (low 32 bits) in `first`.
  void lower_to_live_starts(const SpringChunkDev* next_chunks, std::span<std::uint64_t> keep_from);
  std::size_t device_bytes() const;

 private:
  struct Tile {
    DeviceBuffer<unsigned char> memory;
    SpringTileDev dev;  // pointers into memory; done/pattern/stream set by the table build
    std::vector<common::Pair*> lanes;
  };
  struct Pattern {
    const common::PatternState* state;
    std::vector<std::unique_ptr<Tile>> tiles;
  };
  struct Variant {  // one wavefront kernel instantiation and the pairs it runs
    WavefrontShape shape;
    bool dk, abs_cost;
    std::vector<std::uint32_t> pairs;
    DeviceBuffer<std::uint32_t> device_pairs;
  };

  void build_tables();  // after any change: patterns, values, tiles, variants to the device
  SpringBatchDev batch_view(const SpringChunkDev* chunks, const float* values) const;
  void launch_exact();  // the exact kernel over every pair, and its report counters back
  std::unique_ptr<Tile> new_tile(std::size_t m);
  // Appends the pending candidates of the tile's lanes [first, last) and clears them.
  void flush_lanes(const Pattern& p, const Tile& tile, std::uint32_t first, std::uint32_t last,
                   std::vector<RawMatch>& out);

  const Stream& compute_;
  std::map<std::string, Pattern, std::less<>> patterns_;
  bool dirty_ = true;
  // Tables, rebuilt by build_tables().
  std::vector<const Tile*> tile_order_;  // device tile index -> tile
  DeviceBuffer<SpringPatternDev> patterns_dev_;
  DeviceBuffer<float> pattern_values_;
  DeviceBuffer<SpringTileDev> tiles_dev_;
  DeviceBuffer<std::uint32_t> done_;
  std::vector<Variant> variants_;
  std::uint32_t tile_count_ = 0;
  bool launched_ = false;
  const SpringChunkDev* batch_chunks_ = nullptr;  // of the launched batch
  const float* batch_values_ = nullptr;
  // Reports.
  DeviceBuffer<SpringReportDev> reports_;
  DeviceBuffer<std::uint32_t> report_counters_;
  PinnedBuffer<std::uint32_t> counters_host_;
  PinnedBuffer<SpringReportDev> reports_host_;
  std::vector<SpringReportDev> reports_seen_;
  DeviceBuffer<std::uint32_t> ages_;
  std::vector<std::uint32_t> ages_host_;
  PinnedBuffer<float> candidates_host_;  // d_min, t_s, t_e of one tile (3 x 32 words)
  Event started_, finished_;             // around a batch's kernels
};

}  // namespace warpwatch::kernels::cuda
