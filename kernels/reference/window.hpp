// SPEC.md 3.2 for one (stream, pattern) pair: windows of length w ending at every hop-th
// sample, each compared with the pattern as a whole series (float64 reference
// distances), and the exclusion-zone grouping that turns a run of qualifying windows
// into one occurrence.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "stream_history.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels::reference {

struct WindowOccurrence {
  double distance;
  std::uint64_t start_index, end_index;
  std::int64_t start_ns, end_ns;
};

class WindowPair {
 public:
  // `first_index`: the stream's next sample when the pair was made; its windows end at
  // first + (w-1) + k*hop. Throws std::invalid_argument for a constant pattern under znorm.
  WindowPair(const PatternDef& pattern, const StreamDef& stream, std::uint64_t first_index);

  // The window length w (the samples this pair needs to look back, plus one).
  std::size_t window() const { return w_; }

  // Sample `index` has arrived (and is in `history` with the w-1 before it). Returns the
  // occurrence that this sample closes, if any; `cells` and `flat_skipped` count work.
  std::optional<WindowOccurrence> step(std::uint64_t index, const StreamHistory& history,
                                       std::uint64_t& cells, std::uint64_t& flat_skipped);
  std::optional<WindowOccurrence> flush();

 private:
  std::size_t m_, dims_, w_, hop_;
  std::uint64_t first_index_;
  DistanceParams distance_;
  double threshold_;
  bool znorm_;
  std::vector<float> pattern_;         // normalized once when znorm
  std::vector<double> pattern_times_;  // seconds (twed)
  std::vector<float> window_;          // scratch: the current window, normalized
  std::vector<double> window_times_;   // scratch: rebased window times (twed)
  std::optional<WindowOccurrence> candidate_;
};

// Population mean/std normalization per component, in float64, written back as float32
// (samples are float32 in SPEC.md 1). Returns false, leaving `values` untouched, when a
// component's std is below 1e-8.
bool znormalize(std::vector<float>& values, std::size_t dims);

}  // namespace warpwatch::kernels::reference
