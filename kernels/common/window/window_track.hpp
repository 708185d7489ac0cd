// Window mode (docs/spec.md §3.2) for one (stream, pattern) pair, minus the distances: which
// windows end in a batch, what each window looks like when it is compared (z-normalized,
// twed's rebased clock), and the grouping of evaluated windows into occurrences. The
// Matcher base keeps one per window-mode pair; every backend computes the distances its
// own way between ends() and group(), so all of them agree on everything else.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "common/window/window_grouping.hpp"
#include "common/window/window_stats.hpp"
#include "warpwatch/kernels/stream_history.hpp"

namespace warpwatch::kernels::common {

class WindowTrack {
 public:
  // Throws std::invalid_argument for a constant pattern under znorm. `first_index`: the
  // stream's next sample when the pair was made.
  WindowTrack(const PatternDef& pattern, std::int64_t nominal_period_ns, std::uint64_t first_index);

  std::size_t window() const { return schedule_.w; }
  bool znorm() const { return znorm_; }
  std::uint64_t first_end() const { return schedule_.first + schedule_.w - 1; }
  const PatternDef& pattern() const { return *pattern_; }
  const std::vector<float>& values() const { return values_; }  // the pattern as compared
  // twed: the pattern's clock in seconds, as the fast backends (float32) and the
  // reference (float64) compare it.
  const std::vector<float>& times() const { return times_; }
  const std::vector<double>& times64() const { return times64_; }
  bool twed() const { return measure_info(pattern_->params.distance.metric).times; }

  // The ends of the windows among samples [from, to), in order.
  void ends(std::uint64_t from, std::uint64_t to, std::vector<std::uint64_t>& out) const;
  // The window ending at `end` (its samples must be in `history`) as it is compared:
  // w x dims values, normalized under znorm; false when the window is flat (skipped).
  // For twed, `times` (w values) receives its clock rebased to the pattern's first time
  // (float for the fast backends, double for the reference; null: not wanted).
  bool window(const kernels::StreamHistory& history, std::uint64_t end, std::vector<float>& values,
              float* times) const;
  bool window(const kernels::StreamHistory& history, std::uint64_t end, std::vector<float>& values,
              double* times) const;
  // twed: only the window's rebased clock (w values).
  void window_times(const kernels::StreamHistory& history, std::uint64_t end, float* times) const;
  // Offers the evaluated windows of [from, to) (ends[i] with distances[i]; flat[i] set for
  // skipped ones) to the exclusion zone in sample order; appends the occurrences that
  // become final and returns how many windows were skipped as flat.
  std::uint64_t group(std::uint64_t from, std::uint64_t to, const std::vector<std::uint64_t>& ends,
                      const std::vector<double>& distances, const std::vector<std::uint8_t>& flat,
                      const kernels::StreamHistory& history, std::vector<WindowOccurrence>& out);
  // End of input: the pending occurrence, if any.
  std::optional<WindowOccurrence> flush() { return zone_.flush(); }
  // The state a snapshot keeps (stream_snapshot.hpp), and the same given back to a track
  // made for the same pattern and stream: it goes on as if it had never stopped.
  WindowTrackState save() const { return {schedule_.first, zone_.pending()}; }
  void restore(const WindowTrackState& state) {
    schedule_.first = state.first_index;
    zone_.restore(state.pending);
  }
  // The oldest start index a match of this pair may still have when `next` is the
  // stream's next index: its pending occurrence's, or the next window's (it ends at `next`
  // or later). Matcher::settled_before reads it.
  std::uint64_t oldest_start(std::uint64_t next) const {
    std::uint64_t oldest = next + 1 > schedule_.w ? next + 1 - schedule_.w : 0;
    if (const auto& pending = zone_.pending()) oldest = std::min(oldest, pending->start_index);
    return oldest;
  }
  // The oldest sample a future window needs when `next` is the stream's next index: the
  // next window ends at `next` or later and reaches w-1 samples back, and under znorm the
  // cpu backend's moments start from an anchor window up to WindowStats::lookback() earlier.
  std::uint64_t oldest_needed(std::uint64_t next) const {
    const std::uint64_t lookback = schedule_.w - 1 + (znorm_ ? WindowStats::lookback() : 0);
    return next > lookback ? next - lookback : 0;
  }

 private:
  template <typename T>
  void rebase_times(const kernels::StreamHistory& history, std::uint64_t end, T* times,
                    T first_time) const;
  template <typename T>
  bool window_as(const kernels::StreamHistory& history, std::uint64_t end,
                 std::vector<float>& values, T* times, T first_time) const;

  const PatternDef* pattern_;
  WindowSchedule schedule_;
  bool znorm_;
  std::vector<float> values_;
  std::vector<double> times64_;
  std::vector<float> times_;
  ExclusionZone zone_;
};

}  // namespace warpwatch::kernels::common
