// SPEC.md 3.2 for one (stream, pattern) pair: windows of length w ending at every hop-th
// sample, each compared with the pattern as a whole series with the float64 reference
// distances, grouped into occurrences by the shared exclusion zone.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "warpwatch/stream/stream_history.hpp"
#include "common/window_grouping.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels::reference {

using common::WindowOccurrence;

class WindowPair {
 public:
  // `first_index`: the stream's next sample when the pair was made. Throws
  // std::invalid_argument for a constant pattern under znorm.
  WindowPair(const PatternDef& pattern, const StreamDef& stream, std::uint64_t first_index);

  // The window length w (the samples this pair needs to look back, plus one).
  std::size_t window() const { return schedule_.w; }

  // Sample `index` has arrived (and is in `history` with the w-1 before it). Returns the
  // occurrence that this sample closes, if any; `cells` and `flat_skipped` count work.
  std::optional<WindowOccurrence> step(std::uint64_t index, const stream::StreamHistory& history,
                                       std::uint64_t& cells, std::uint64_t& flat_skipped);
  std::optional<WindowOccurrence> flush() { return zone_.flush(); }

 private:
  std::size_t m_, dims_;
  common::WindowSchedule schedule_;
  DistanceParams distance_;
  bool znorm_;
  std::vector<float> pattern_;         // normalized once when znorm
  std::vector<double> pattern_times_;  // seconds (twed)
  std::vector<float> window_;          // scratch: the current window, normalized
  std::vector<double> window_times_;   // scratch: rebased window times (twed)
  common::ExclusionZone zone_;
};

}  // namespace warpwatch::kernels::reference
