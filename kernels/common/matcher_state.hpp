// The Matcher's bookkeeping, shared by every backend (matcher.hpp): streams with their
// histories and this batch's chunk, patterns, pairs, and window mode's per-batch work.
// Kept in the Matcher base, read by the backends through Matcher::state().
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_track.hpp"
#include "warpwatch/kernels/stream_history.hpp"
#include "warpwatch/kernels/types.hpp"

namespace warpwatch::kernels::common {

struct StreamState {
  StreamRef def;
  kernels::StreamHistory history;  // match-start timestamps, window tails
  std::uint32_t slot = 0;          // dense row, reused after removal: backends' per-stream tables
  std::vector<Pair*> pairs;        // one per pattern of its dims
  // Kept as pairs come and go, so that a batch reads no pair of a stream to count its cells
  // or find its windows (a pair is a cache miss; 10,000 streams x 64 patterns made those
  // loops most of a batch's host time): the rows of its stream-mode patterns, summed (cells
  // a sample), and its window-mode pairs.
  std::uint64_t stream_mode_rows = 0;
  std::vector<Pair*> window_pairs;
  // This batch's chunk (chunk_count 0 and no values: none); its samples are in `history`
  // already. Holds for every stream during a batch, chunk or not: Matcher::submit sets it
  // for the streams with samples (MatcherState::active) and puts them back to "none" after
  // the batch, so the others are never touched (a batch costs what its chunks hold).
  std::uint64_t chunk_first =
      0;  // index of the chunk's first sample: the next index before the batch
  std::uint32_t chunk_count = 0;
  std::span<const float> chunk_values;
  // The Matcher's own marks: the serial of the last batch that named the stream (a stream
  // named twice in one batch is refused), and whether it got samples since the last trim.
  std::uint64_t batch_serial = 0;
  bool changed_since_trim = false;

  StreamState(StreamRef d, std::uint32_t s) : def(std::move(d)), history(def->dims), slot(s) {}
  std::uint64_t next_index() const { return history.next_index(); }
};

struct PatternState {
  PatternRef def;
  float eps = 0.0f;               // stream mode: the threshold as every backend compares D with it
  std::uint64_t fingerprint = 0;  // pattern_fingerprint(*def): what a saved pair is checked by
  std::vector<std::unique_ptr<Pair>> pairs;
  std::uint32_t handle = 0;  // stream mode: the backend's place for the pattern's state
  // Window mode with dtw or dk: the pattern's envelopes for pruning (window_bounds.hpp).
  std::unique_ptr<const WindowQuery> window_query;

  bool stream_mode() const { return def->params.mode == Mode::stream; }
};

struct Pair {
  StreamState* stream = nullptr;
  PatternState* pattern = nullptr;
  std::optional<WindowTrack> window;  // window mode: schedule, pattern as compared, grouping
  std::uint32_t handle = 0;           // stream mode: the backend's place for the pair's state
};

// Window mode's work in one batch for one pair: the windows ending in the stream's chunk.
// The backend fills `distances` (and sets `flat` for windows that znorm skips).
struct WindowBatch {
  Pair* pair = nullptr;
  std::vector<std::uint64_t> ends;
  std::vector<double> distances;
  std::vector<std::uint8_t> flat;
  // Windows the backend did not align in full because a lower bound showed they cannot
  // qualify (their distance is +inf), by stage (kPruneStages: LB_Kim, LB_Keogh on the
  // pattern's envelope, LB_Keogh on the window's envelope, abandoned, ed's FFT bound).
  std::array<std::uint64_t, kPruneStages> pruned{};
};

// The match of `pair` with absolute sample indices; timestamps from the stream's history.
inline RawMatch make_match(const Pair& pair, double distance, std::uint64_t start_index,
                           std::uint64_t end_index) {
  const kernels::StreamHistory& history = pair.stream->history;
  return RawMatch{pair.stream->def,
                  pair.pattern->def,
                  distance,
                  start_index,
                  end_index,
                  history.time_ns(start_index),
                  history.time_ns(end_index)};
}

// A shard's part of a batch's and a trim's streams (sharded_matcher.hpp): what
// Matcher::batch_streams() and streams_to_trim() return to it instead of MatcherState's
// active and trim_streams, in their order.
struct StreamSubset {
  std::vector<StreamState*> active;
  std::vector<StreamState*> trim_streams;
};

class MatcherState {
 public:
  // Hashed: looked up once per stream per batch (any order of iteration is fine: the
  // backends key their tables by slot, and matches are sorted).
  std::unordered_map<std::string, std::unique_ptr<StreamState>, stream::StreamIdHash,
                     std::equal_to<>>
      streams;
  std::map<std::string, std::unique_ptr<PatternState>, std::less<>> patterns;
  std::vector<std::uint32_t> free_slots;
  std::uint32_t slot_count = 0;      // every slot ever used is below this
  std::vector<WindowBatch> windows;  // this batch's; reused, so steady batches allocate nothing
  // During a batch: the streams whose chunk holds samples, in batch order (empty between
  // batches). Per-batch work follows this list, never every stream or pair.
  std::vector<StreamState*> active;
  std::uint64_t batch_serial = 0;  // batches begun so far
  MatcherCounters counters;
  std::uint64_t samples_since_trim = 0;
  std::uint64_t last_batch_samples = 0;  // of the last batch submitted
  // The streams that got samples since the last trim (changed_since_trim set), in the order
  // they first did. While trimming: the streams to trim (every stream on a full trim); a
  // backend's lower_to_live_starts needs to look at these streams' pairs only.
  std::vector<StreamState*> trim_streams;
  std::vector<std::uint64_t> keep_from;  // by slot, while trimming
};

}  // namespace warpwatch::kernels::common
