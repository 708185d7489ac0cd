// Stream mode on the device: the tiles of every stream-mode pattern, the tables the
// kernels read (spring_launch.hpp), and a batch's run from packed chunks to matches.
// Streams join and leave a pattern without disturbing the other pairs' state: a leaving
// pair's lane is filled with the pattern's last lane, state and all.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_state.hpp"
#include "cuda/runtime/device_memory.hpp"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {

class SpringPairs {
 public:
  explicit SpringPairs(const Stream& compute) : compute_(compute) {}

  void add_pattern(const PatternDef& pattern);  // a stream-mode pattern, no pairs yet
  // Ends every pair of the pattern, appending their pending candidates.
  void remove_pattern(const std::string& id, std::vector<RawMatch>& out);
  void add_pair(const std::string& pattern_id, StreamHost* stream);
  // Ends the pairs of `stream`, appending their pending candidates.
  void remove_stream(const StreamHost* stream, std::vector<RawMatch>& out);

  bool empty() const { return patterns_.empty(); }
  // Queues the batch whose chunks are in `chunks`/`values` (device, by stream slot) on
  // the compute stream; `max_count` is the longest chunk. Returns the cells it computes.
  std::uint64_t launch(const SpringChunkDev* chunks, const float* values, std::uint32_t max_count);
  // Waits for the launched batch and appends its matches; returns the device time of its
  // kernels (CUDA events on the compute stream).
  double collect(std::vector<RawMatch>& out);
  // Every pending candidate (end of input).
  void flush(std::vector<RawMatch>& out);
  // Lowers each stream's keep_from to the oldest start a pair of it may still report;
  // `next_chunks` holds every stream's next index (low 32 bits) in `first`.
  void update_keep_from(const SpringChunkDev* next_chunks);
  std::size_t device_bytes() const;

 private:
  struct Tile {
    DeviceBuffer<unsigned char> memory;
    SpringTileDev dev;  // pointers into memory; done/pattern/stream set by the table build
    std::vector<StreamHost*> lanes;
  };
  struct Pattern {
    const PatternDef* def;
    float eps;
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
  struct Candidate {
    float d_min;
    std::int32_t t_s, t_e;
  };
  void emit(const Pattern& p, const StreamHost& stream, std::uint64_t current, const Candidate& c,
            std::vector<RawMatch>& out) const;
  // Appends the pending candidates of the tile's lanes [first, last) and clears them.
  void flush_lanes(const Pattern& p, const Tile& tile, std::uint32_t first, std::uint32_t last,
                   std::vector<RawMatch>& out);

  const Stream& compute_;
  std::map<std::string, Pattern, std::less<>> patterns_;
  bool dirty_ = true;
  // Tables, rebuilt by build_tables().
  std::vector<const Tile*> tile_order_;  // device tile index -> tile
  std::vector<const Pattern*> tile_pattern_;
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
  PinnedBuffer<float> candidates_host_;
  Event started_, finished_;  // around a batch's kernels  // d_min, t_s, t_e of one tile (3 x 32 words)
};

}  // namespace warpwatch::kernels::cuda
