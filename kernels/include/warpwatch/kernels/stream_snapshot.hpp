// Everything a Matcher holds for one stream, in a form that outlives the Matcher: what a
// daemon checkpoints before a restart and restores after it (Matcher::export_stream,
// Matcher::import_stream), so that an occurrence that spans the restart is still reported,
// once, at the indices an uninterrupted run gives. The byte format is the service's
// (daemon/service checkpoint.hpp); here only the values.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels {

namespace common {

// SPRING's state of one stream-mode pair (docs/spec.md §3.1) in the form every backend can read
// and write: what moves when `auto` runs a batch on another backend than the last one
// (switching_matcher.hpp), and what a snapshot keeps. Indices are the low 32 bits of
// absolute sample indices (low32_index.hpp), as the cpu and cuda backends keep them; the
// reference's 64-bit ones are unwrapped against the stream's next index.
struct SpringLaneState {
  std::vector<float> d;                                  // D(t, 1..m) of the last column
  std::vector<std::int32_t> s;                           // S(t, 1..m): start indices, low 32 bits
  float d_min = std::numeric_limits<float>::infinity();  // pending candidate (inf: none)
  std::int32_t t_s = 0, t_e = 0;                         // its start and end, low 32 bits
  friend bool operator==(const SpringLaneState&, const SpringLaneState&) = default;
};

// A window-mode occurrence: the best qualifying window of a run (window_grouping.hpp).
struct WindowOccurrence {
  double distance;
  std::uint64_t start_index, end_index;
  std::int64_t start_ns, end_ns;
  friend bool operator==(const WindowOccurrence&, const WindowOccurrence&) = default;
};

}  // namespace common

// A window-mode pair's state (common/window/window_track.hpp): where its schedule of window ends
// starts (the stream's next index when the pair was made) and the occurrence pending in its
// exclusion zone. Its windows are computed from the stream's history.
struct WindowTrackState {
  std::uint64_t first_index = 0;
  std::optional<common::WindowOccurrence> pending;
  friend bool operator==(const WindowTrackState&, const WindowTrackState&) = default;
};

// One pair of the stream: its pattern's id and fingerprint (pattern_fingerprint), and its
// state by mode.
struct PairSnapshot {
  std::string pattern_id;
  std::uint64_t fingerprint = 0;
  std::variant<common::SpringLaneState, WindowTrackState> state;
  friend bool operator==(const PairSnapshot&, const PairSnapshot&) = default;
};

struct StreamSnapshot {
  StreamDef def;
  std::uint64_t next_index = 0;  // samples the stream has had
  std::int64_t last_ns = 0;      // the timestamp of its last sample (0: none yet)
  // The samples the Matcher still keeps, [first_index, next_index): match starts' timestamps
  // and window tails.
  std::uint64_t first_index = 0;
  std::vector<float> values;           // (next_index - first_index) x dims, row-major
  std::vector<std::int64_t> times_ns;  // next_index - first_index
  std::vector<PairSnapshot> pairs;
  friend bool operator==(const StreamSnapshot&, const StreamSnapshot&) = default;
};

// What Matcher::import_stream did with a snapshot's pairs, for the log.
struct StreamRestore {
  struct Fresh {
    std::string pattern_id;
    std::string reason;  // "new pattern", "pattern changed", ...
  };
  std::vector<std::string> restored;  // pattern ids whose pair goes on from its saved state
  std::vector<Fresh> fresh;           // pairs that start fresh, and why
  std::vector<std::string> dropped;   // saved pairs whose pattern the Matcher does not have
};

// What a saved pair's state depends on of its pattern (dims, values, times, params; not the
// id or the library), as the first 8 bytes of a SHA-256 in little-endian order: equal for
// equal patterns on every host and in every version that keeps this encoding.
std::uint64_t pattern_fingerprint(const PatternDef& pattern);

}  // namespace warpwatch::kernels
