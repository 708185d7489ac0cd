// When each stream's samples arrived, by the sample index the Matcher gives them, so that an
// event can be timed from the arrival of its match's last sample (docs/operations.md §7,
// warpwatch_detection_latency_seconds).
//
// The arrivals come from the IngestHub in runs (a run: one source's messages for the stream
// within 10 ms of the run's first, all given the first's time, so a latency may read up to
// 10 ms long, never short). Per stream the last max_runs runs are kept, at most 1 KiB a
// stream; a match that ends before them cannot be timed, and the caller counts it.
// Used by the scheduler's thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/ingest_hub.hpp"

namespace warpwatch::service {

class ArrivalLog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::size_t max_runs = 64;

  // The stream's next samples, in the order the Matcher is given them.
  void record(std::string_view stream, std::span<const stream::Arrival> runs);
  // The stream left the Matcher: when it comes back, its indices start at 0 again.
  void forget(std::string_view stream);
  // When sample `index` of `stream` arrived; nullopt when it is older than the runs kept,
  // or not recorded.
  std::optional<Clock::time_point> arrival(std::string_view stream, std::uint64_t index) const;
  std::size_t streams() const { return logs_.size(); }

 private:
  struct Run {
    std::uint64_t first = 0;  // index of its first sample
    Clock::time_point at;
  };
  struct Log {
    std::uint64_t next = 0;  // index of the stream's next sample
    std::vector<Run> runs;   // oldest first, from `head` on (a ring once max_runs are kept)
    std::size_t head = 0;
    const Run& nth(std::size_t i) const { return runs[(head + i) % runs.size()]; }
  };
  std::unordered_map<std::string, Log, stream::StreamIdHash, std::equal_to<>> logs_;
};

}  // namespace warpwatch::service
