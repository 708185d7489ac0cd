// Window mode's z-normalization (docs/spec.md §3.2) without a pass over every window: the mean and
// population standard deviation of each window, per component, from sums that slide one
// sample at a time.
//
// Sliding sums drift over an unbounded stream, and sums from the start of a stream lose the
// window's variance to cancellation once the values wander far from zero. So each window's
// moments start from an exact two-pass computation at an anchor, the window ending at
// a = e - e % kStatsAnchor (or the track's first window end, if later), and slide from there
// to e: at most kStatsAnchor - 1 updates of Welford's fixed-size form, each exact to the
// rounding of double. The anchor is a function of e alone, so a window's moments, and the
// float32 values it is compared as, do not depend on how the stream was cut into batches.
//
// Each update errs by a few roundings of the squares of the values it handles: after a
// spike has slid out, or on a window much flatter than its values' magnitude, the sliding
// sum of squared deviations may be mostly error (a flat window would not read as flat). So
// the largest magnitude M seen since the anchor is kept, and a window whose sliding sum is
// at most 1e-5 M^2 (its error is at most about 1e-13 M^2) is computed in two passes instead;
// the sliding state goes on unchanged, so the result still depends on e alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "warpwatch/kernels/stream_history.hpp"

namespace warpwatch::kernels::common {

inline constexpr std::uint64_t kStatsAnchor = 64;

// Per component: the mean, and 1/std (0 when the window is flat: std < 1e-8, skipped).
struct WindowMoments {
  std::vector<double> mean, scale;
  bool flat = false;
};

// A window's value as it is compared: (x - mean) * scale in double, rounded to float32,
// like common::znormalize. Monotone in x (each step rounds monotonically), so the
// normalized minimum and maximum of a stretch are those of its raw values: the envelopes of
// window_bounds.hpp rely on that.
inline float znormal(float x, double mean, double scale) {
  return static_cast<float>((static_cast<double>(x) - mean) * scale);
}

// The end of the anchor window the moments of the window ending at `end` start from, for a
// track whose first window ends at `first_end` (the rule above).
inline std::uint64_t stats_anchor(std::uint64_t end, std::uint64_t first_end) {
  const std::uint64_t a = end - end % kStatsAnchor;
  return a > first_end ? a : first_end;
}

class WindowStats {
 public:
  // Windows of w samples of `dims` components; the first window of the track ends at
  // `first_end`. Windows ending before it are never asked for.
  WindowStats(std::size_t w, std::size_t dims, std::uint64_t first_end);

  // The moments of the window ending at `end`, whose samples and those back to its anchor's
  // window must be in `history` (oldest_needed below). Calls with increasing ends slide from
  // the previous one when it shares the anchor.
  const WindowMoments& at(const kernels::StreamHistory& history, std::uint64_t end);

  // How many samples before a window's first one its computation reads (its anchor's window).
  static constexpr std::uint64_t lookback() { return kStatsAnchor - 1; }

 private:
  // Two passes over the window ending at `end`: its mean, sum of squared deviations and
  // largest magnitude per component.
  void exact(const kernels::StreamHistory& history, std::uint64_t end, std::vector<double>& mean,
             std::vector<double>& m2, std::vector<double>& big) const;
  void slide(const kernels::StreamHistory& history);  // from end_ to end_ + 1
  void finish(const std::vector<double>& m2);         // scale and flat

  std::size_t w_, dims_;
  std::uint64_t first_end_;
  bool valid_ = false;
  std::uint64_t anchor_ = 0, end_ = 0;
  std::vector<double> mean_, m2_, big_;  // the sliding state at end_
  std::vector<double> m2_exact_, big_exact_;
  WindowMoments moments_;
};

}  // namespace warpwatch::kernels::common
