// Stream mode on the device: the tiles of every stream-mode pattern, the tables the
// kernels read (spring_launch.hpp), and a batch's run from packed chunks to matches.
// Pairs join and leave a pattern without disturbing the other pairs' state: a leaving
// pair's lane is filled with the pattern's last lane, state and all. Pair::handle is the
// pair's lane counted across the pattern's tiles (tile * 32 + lane).
#pragma once

#include <array>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/low32_index.hpp"
#include "common/matcher_state.hpp"
#include "common/spring_lane_state.hpp"
#include "cuda/runtime/device_memory.hpp"
#include "spring_launch.hpp"

namespace warpwatch::kernels::cuda {

class SpringPairs {
 public:
  explicit SpringPairs(const Stream& compute) : compute_(compute) {}

  void add_pattern(const common::PatternState& pattern);  // a stream-mode pattern, no pairs yet
  // Ends every pair of the pattern, appending their pending candidates.
  void remove_pattern(const common::PatternState& pattern, std::vector<RawMatch>& out);
  // Forgets the pattern's pairs without reading their candidates back (they moved to another
  // backend with their state); freed memory goes back to the driver once no pattern is left,
  // not after each of a move's patterns.
  void drop_pattern(const common::PatternState& pattern);
  // A fresh pair of a pattern added before.
  void add_pair(common::Pair* pair);
  // Ends the pair, appending its pending candidate.
  void remove_pair(common::Pair* pair, std::vector<RawMatch>& out);

  bool empty() const { return patterns_.empty(); }
  // Queues the batch whose chunks are in `chunks`/`values` (device, by stream slot, ready
  // once `uploaded` completes) on the compute stream; `max_count` is the longest chunk.
  // Two batches may be launched and not collected (Matcher::submit): the older one is
  // settled first (its kernels waited for, its reports read back and a full report buffer
  // dealt with), as its pairs must have run their whole chunk before the next chunk
  // starts; so the host's work on this batch, up to here, overlaps the older one's kernels.
  void launch(const SpringChunkDev* chunks, const float* values, std::uint32_t max_count,
              const Event& uploaded);
  // Waits for the oldest launched batch and appends its matches; `first[slot]` is the
  // index of that batch's first sample of the stream in `slot` (for the streams with a
  // chunk). Returns the device time of its kernels (CUDA events on the compute stream).
  double collect(std::span<const std::uint64_t> first, std::vector<RawMatch>& out);
  bool outstanding() const { return launches_ != 0; }
  // Host time spent blocked on the device so far (seconds).
  double wait_seconds() const { return wait_seconds_; }
  // Every pending candidate (end of input).
  void flush(std::vector<RawMatch>& out);
  // Lowers keep_from[stream slot] to the oldest start a pair of the stream may still
  // report; `next_chunks` (device) holds every stream's next index (low 32 bits) in `first`,
  // and next_index (host) the whole index, by slot.
  void lower_to_live_starts(const SpringChunkDev* next_chunks,
                            std::span<const std::uint64_t> next_index,
                            std::span<std::uint64_t> keep_from);
  std::size_t device_bytes() const;
  // The pairs' state in the portable form, and over it (Matcher::export/import_stream_pairs);
  // none launched. Whole tiles travel (one copy each way a tile), so moving every pair of a
  // pattern costs what its tiles hold.
  void export_pairs(std::span<common::Pair* const> pairs, std::span<common::SpringLaneState> out);
  void import_pairs(std::span<common::Pair* const> pairs,
                    std::span<const common::SpringLaneState> in);

 private:
  struct Tile {
    SpringTileDev dev;  // pointers into its slab; done/pattern/stream set by the table build
    std::vector<common::Pair*> lanes;
    std::uint32_t m = 0;
    std::uint32_t fresh = 0;  // lanes added and not yet set fresh on the device (bit l: lane l)
  };
  // The memory of consecutive tiles of one pattern, in one allocation: a tile each
  // (20,000 cudaMallocAsync calls of 66 kB, when 10,000 streams joined 64 patterns of m 128,
  // took 15 us each, 0.3 s in all). Slabs grow 1, 1, 2, 4, ... tiles, at most
  // kMaxSlabTiles and kMaxSlabBytes (but one tile); tiles come and go at a pattern's end,
  // so only its last slab has room.
  struct Slab {
    StreamOrderedBuffer<unsigned char> memory;  // on the compute stream
    std::uint32_t capacity = 0, used = 0;       // tiles
  };
  static constexpr std::uint32_t kMaxSlabTiles = 64;
  static constexpr std::size_t kMaxSlabBytes = std::size_t{8} << 20;
  struct Pattern {
    const common::PatternState* state;
    std::vector<std::unique_ptr<Tile>> tiles;
    std::vector<Slab> slabs;  // tiles in order: slab k holds the tiles after slab k-1's
  };
  struct Variant {  // one wavefront kernel instantiation and the pairs it runs
    WavefrontShape shape;
    bool dk, abs_cost;
    std::uint32_t dims;
    std::vector<std::uint32_t> pairs;
    DeviceBuffer<std::uint32_t> device_pairs;
  };

  // A launched batch: its inputs (valid until it is collected), its reports once settled,
  // and the events around its kernels.
  struct Launch {
    bool launched = false;  // false: no stream-mode work (no pairs, or no chunk)
    bool settled = false;
    const SpringChunkDev* chunks = nullptr;
    const float* values = nullptr;
    std::vector<SpringReportDev> reports;
    double seconds = 0.0;
    Event started, finished;
  };

  void build_tables();  // after any change: patterns, values, tiles, variants to the device
  SpringBatchDev batch_view(const SpringChunkDev* chunks, const float* values) const;
  // One round of a batch's kernels, from zeroed report counters to the counters back on
  // the host: the wavefront over every variant's pairs (all), over the pairs it gave up
  // (retry, drop_aborted's lists) or not at all (sweep_only), then the sweep over
  // every pair from where it stands.
  enum class Round { all, retry, sweep_only };
  void launch_round(Launch& l, Round round);
  void settle(Launch& l);  // waits for its kernels, reads its reports back
  // Removes the reports (from index `from` on) of the pairs the wavefront gave up, clears
  // their flags and lists them, by variant, for the wavefront to run again (retry_*).
  // Returns whether there are any.
  bool drop_aborted(std::vector<SpringReportDev>& reports, std::size_t from);
  void synchronize();  // the compute stream, counted as waiting
  // A tile at the end of p's tiles, its memory in p's last slab (a new one when full).
  void push_tile(Pattern& p);
  void release_freed_memory();  // after the frees queued on the compute stream have run
  void pop_tile(Pattern& p);    // the last tile; its slab's memory goes when the slab empties
  // Sets the lanes added since the last call fresh on the device, in one launch: before any
  // launch, read or move of lane state.
  void set_fresh_lanes();
  // Appends the pending candidates of the tile's lanes [first, last) and clears them.
  void flush_lanes(const Pattern& p, const Tile& tile, std::uint32_t first, std::uint32_t last,
                   std::vector<RawMatch>& out);
  // The tiles of `pairs` copied to the host whole (tile_bytes each), by tile, once the
  // copies are done; the tile of pair k is images[tile_of[k]].
  struct TileImages {
    std::vector<const Tile*> tiles;
    std::vector<std::vector<unsigned char>> images;
    std::vector<std::size_t> tile_of;
  };
  TileImages download_tiles(std::span<common::Pair* const> pairs);

  const Stream& compute_;
  std::map<std::string, Pattern, std::less<>> patterns_;
  bool dirty_ = true;
  // Tables, rebuilt by build_tables().
  std::vector<const Tile*> tile_order_;  // device tile index -> tile
  // Device pair index (tile x 32 + lane) -> its stream's slot (no_slot: an empty lane), so
  // that a trim reads arrays, not 10^5-10^6 pairs through pointers.
  static constexpr std::uint32_t no_slot = 0xffffffffu;
  std::vector<std::uint32_t> pair_slot_;
  DeviceBuffer<SpringPatternDev> patterns_dev_;
  DeviceBuffer<float> pattern_values_;
  DeviceBuffer<SpringTileDev> tiles_dev_;
  DeviceBuffer<std::uint32_t> done_;
  std::vector<Variant> variants_;
  DeviceBuffer<float> wavefront_workspace_;  // row tiles' checkpoints (the largest variant's)
  std::uint32_t tile_count_ = 0;
  std::array<Launch, 2> launch_ring_;  // launches_ batches from ring_head_ on, oldest first
  std::size_t ring_head_ = 0, launches_ = 0;
  double wait_seconds_ = 0.0;
  // Reports: one buffer, read back when a batch settles, before the next one runs.
  DeviceBuffer<SpringReportDev> reports_;
  DeviceBuffer<std::uint32_t> report_counters_;
  DeviceBuffer<std::uint32_t> aborted_;  // SpringBatchDev::aborted, tile_count_ * 32
  std::vector<std::uint32_t> aborted_host_;
  std::vector<std::uint32_t> retry_host_, retry_from_, retry_count_;  // by variant
  DeviceBuffer<std::uint32_t> retry_dev_;
  PinnedBuffer<std::uint32_t> counters_host_;
  PinnedBuffer<SpringReportDev> reports_host_;
  DeviceBuffer<std::uint32_t> ages_;
  std::vector<std::uint32_t> ages_host_;
  PinnedBuffer<float> candidates_host_;  // d_min, t_s, t_e of one tile (3 x 32 words)
  std::vector<Tile*> fresh_tiles_;       // the tiles with fresh lanes (Tile::fresh)
  DeviceBuffer<SpringFreshTileDev> fresh_dev_;
};

}  // namespace warpwatch::kernels::cuda
