// Window mode (docs/spec.md §3.2) pieces every backend shares, so that they agree on which
// windows exist and which of them become events: the schedule of window ends, the
// z-normalization, the rebased window clock of twed, and the exclusion-zone grouping.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "warpwatch/kernels/stream_snapshot.hpp"  // WindowOccurrence
#include "warpwatch/kernels/types.hpp"

namespace warpwatch::kernels::common {

// Windows of a (stream, pattern) pair end at first + (w-1) + k*hop, k = 0, 1, ...
// where `first` is the stream's next sample when the pair was made.
struct WindowSchedule {
  std::size_t w = 2, hop = 1;
  std::uint64_t first = 0;

  bool ends_at(std::uint64_t index) const {
    const std::uint64_t first_end = first + w - 1;
    return index >= first_end && (index - first_end) % hop == 0;
  }
};

// The window length of a pattern: params.window, or m when that is 0.
inline std::size_t window_length(const PatternDef& p) {
  return p.params.window ? p.params.window : p.length();
}

// Population mean/std normalization per component, in float64, written back as float32
// (samples are float32 in docs/spec.md §1). Returns false, leaving `values` untouched, when a
// component's std is below 1e-8 (the window is then skipped and counted).
bool znormalize(std::vector<float>& values, std::size_t dims);

// What znormalize computes per component, shared with the sliding moments of
// window_stats.hpp so that both agree to the bit: component k of n samples (dims apart),
// its mean and sum of squared deviations in two passes in double, and its largest magnitude.
struct ComponentMoments {
  double mean = 0.0, m2 = 0.0, largest = 0.0;
};
ComponentMoments component_moments(const float* values, std::size_t n, std::size_t dims,
                                   std::size_t k);
// 1/std of n values whose squared deviations sum to m2 (population std); 0 when the std is
// below 1e-8 (docs/spec.md §3.2: the window is flat, skipped).
double znorm_scale(double m2, std::size_t n);

// The pattern's timestamps in seconds for twed: its own, or uniform at the stream's
// nominal period.
std::vector<double> pattern_times(const PatternDef& pattern, std::int64_t nominal_period_ns);

// Turns a run of qualifying windows into one occurrence: the best window (strictly
// smaller distance wins) is final once w/2 samples passed without a better one.
class ExclusionZone {
 public:
  ExclusionZone(std::size_t w, double threshold) : half_(w / 2), threshold_(threshold) {}

  // The window ending at window.end_index was evaluated (call before close_after for
  // the same index).
  void offer(const WindowOccurrence& window) {
    if (window.distance <= threshold_ && (!best_ || window.distance < best_->distance))
      best_ = window;
  }
  // Sample `index` has been seen: the occurrence it makes final, if any.
  std::optional<WindowOccurrence> close_after(std::uint64_t index) {
    if (best_ && index - best_->end_index >= half_) return flush();
    return std::nullopt;
  }
  // The occurrence not final yet, if any, and a zone given it back (a snapshot's).
  const std::optional<WindowOccurrence>& pending() const { return best_; }
  void restore(std::optional<WindowOccurrence> pending) { best_ = std::move(pending); }
  // End of input: the pending occurrence, if any.
  std::optional<WindowOccurrence> flush() {
    auto occurrence = best_;
    best_.reset();
    return occurrence;
  }

 private:
  std::size_t half_;
  double threshold_;
  std::optional<WindowOccurrence> best_;
};

}  // namespace warpwatch::kernels::common
