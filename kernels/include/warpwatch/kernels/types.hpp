// What the Matcher is given and gives back, apart from the Matcher itself: streams and
// patterns (their shared definitions), chunks of new samples, raw matches and the counters.
// The backends' common code (common/) reads these types; only the backends and the callers
// see the Matcher interface (matcher.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels {

// A stream's identity is the bottom layer's (base/stream_def.hpp), not a copy.
using stream::StreamDef;
using stream::StreamRef;

struct PatternDef {
  std::string id;
  std::size_t dims = 1;
  std::vector<float> values;  // m x dims, row-major, m >= 2, all finite
  std::vector<double> times;  // optional relative timestamps in seconds (m, increasing);
                              // empty: uniform at the stream's nominal period (twed)
  MatchParams params;
  std::string library;  // the pattern library it belongs to (events name it); not used to match

  std::size_t length() const { return dims ? values.size() / dims : 0; }
  SeriesView view() const {
    return {values.data(), length(), dims, times.empty() ? nullptr : times.data()};
  }
  friend bool operator==(const PatternDef&, const PatternDef&) = default;
};

// What the daemon holds for one pattern whatever streams it meets, estimated from above
// (limits.max_library_bytes, docs/ingest.md §10), m samples of d values
// and window w (params.window, or m): the definition twice, the configuration's and the
// Matcher's (4 m d for the values, 8 m for `times` when it has them); in window mode
// (dtw, dk, ed) the Matcher's query (common/window/window_bounds.hpp), at most 8 m d + 12 m +
// 8 w d + 12 w (the pattern normalized and reordered, each row's band, the envelopes and
// their visiting order); and 256 bytes of bookkeeping. Not included: the state of each
// (stream, pattern) pair, which grows with the streams.
std::size_t pattern_memory_bytes(const PatternDef& pattern);

// Patterns are shared like streams: the Matcher, its matches and the alert rules hold one
// definition.
using PatternRef = std::shared_ptr<const PatternDef>;

inline PatternRef make_pattern(PatternDef def) {
  return std::make_shared<const PatternDef>(std::move(def));
}

// New samples of one stream: count = values.size() / dims = timestamps_ns.size().
struct StreamChunk {
  std::string_view stream_id;
  std::span<const float> values;                // count x dims, row-major, finite
  std::span<const std::int64_t> timestamps_ns;  // strictly increasing, also across chunks
};

// One match: a SPRING report (stream mode) or an occurrence's best window (window mode),
// of the pair (stream, pattern).
struct RawMatch {
  StreamRef stream;
  PatternRef pattern;
  double distance = 0.0;
  std::uint64_t start_index = 0;  // 0-based sample index since the stream was added, inclusive
  std::uint64_t end_index = 0;    // inclusive
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;

  const std::string& stream_id() const { return stream->id; }
  const std::string& pattern_id() const { return pattern->id; }
  // The same stream and pattern ids, distance, indices and timestamps (two matchers given
  // equal definitions report equal matches).
  friend bool operator==(const RawMatch& a, const RawMatch& b);
};

// Window mode's pruning stages (MatcherCounters::windows_pruned): LB_Kim, LB_Keogh on the
// pattern's envelope, LB_Keogh on the window's envelope, abandoned during the alignment (ed:
// during its sum), and ed's FFT bound (cpu/window_ed.hpp).
inline constexpr std::size_t kPruneStages = 5;

struct MatcherCounters {
  std::uint64_t samples = 0;               // samples processed, all streams
  std::uint64_t cells = 0;                 // DP cell updates (the unit of cells/s)
  std::uint64_t flat_windows_skipped = 0;  // znorm windows with std < 1e-8 (docs/spec.md §3.2)
  // Window mode's pruning (cpu backend; common/window/window_bounds.hpp, cpu/window_ed.hpp):
  // windows evaluated (not flat), and of them those a lower bound showed cannot qualify, by stage
  // (kPruneStages). `cells` counts every evaluated window's n x w cells all the same (ed: n).
  std::uint64_t windows_evaluated = 0;
  std::array<std::uint64_t, kPruneStages> windows_pruned{};
  std::uint64_t device_bytes = 0;  // device memory held (cuda backend; 0 elsewhere)
  double device_seconds = 0.0;     // cuda: stream-mode kernel time, CUDA events
  std::uint64_t batches = 0;       // batches submitted
  std::uint64_t trims = 0;         // history trims (each asks the backend for live starts)
  // `auto` with a device (switching_matcher.hpp): batches run on its second backend (cuda),
  // moves of every stream-mode pair from one backend to the other, and moves that failed
  // (the pairs stayed where they were; the backend that failed is not tried again).
  std::uint64_t second_backend_batches = 0;
  std::uint64_t backend_switches = 0;
  std::uint64_t backend_switch_failures = 0;
  // Host time, wall clock, where batches spend it: the checks, histories and window
  // schedule of submit(); the backend's start of a batch (packing, copies, launches, window
  // distances); collecting (waiting for the device included); trimming histories; and of
  // all those, the time blocked waiting for the device (cuda).
  double prepare_seconds = 0.0;
  double start_seconds = 0.0;
  double collect_seconds = 0.0;
  double trim_seconds = 0.0;
  double wait_seconds = 0.0;
  // cuda over several devices (sharded_matcher.hpp): device_bytes of each device, in the
  // order of cuda.devices (device_bytes is their sum); empty for one device.
  std::vector<std::uint64_t> device_bytes_per_device{};
};

}  // namespace warpwatch::kernels
