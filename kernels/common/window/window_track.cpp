#include "common/window/window_track.hpp"

#include <stdexcept>

namespace warpwatch::kernels::common {

WindowTrack::WindowTrack(const PatternDef& pattern, std::int64_t nominal_period_ns,
                         std::uint64_t first_index)
    : pattern_(&pattern),
      schedule_{window_length(pattern), pattern.params.hop, first_index},
      znorm_(pattern.params.normalize == Normalize::znorm),
      values_(pattern.values),
      times64_(pattern_times(pattern, nominal_period_ns)),
      zone_(schedule_.w, pattern.params.threshold) {
  if (znorm_ && !znormalize(values_, pattern.dims))
    throw std::invalid_argument("pattern '" + pattern.id + "' is constant: znorm is undefined");
  for (double t : times64_) times_.push_back(static_cast<float>(t));
}

void WindowTrack::ends(std::uint64_t from, std::uint64_t to,
                       std::vector<std::uint64_t>& out) const {
  out.clear();
  for (std::uint64_t e = from; e < to; ++e)
    if (schedule_.ends_at(e)) out.push_back(e);
}

// The window's clock, rebased to the pattern's first time (docs/spec.md §4.3).
template <typename T>
void WindowTrack::rebase_times(const kernels::StreamHistory& history, std::uint64_t end, T* times,
                               T first_time) const {
  const std::uint64_t start = end + 1 - schedule_.w;
  const std::int64_t t0 = history.time_ns(start);
  for (std::size_t j = 0; j < schedule_.w; ++j)
    times[j] = static_cast<T>(static_cast<double>(first_time) +
                              static_cast<double>(history.time_ns(start + j) - t0) * 1e-9);
}

template <typename T>
bool WindowTrack::window_as(const kernels::StreamHistory& history, std::uint64_t end,
                            std::vector<float>& values, T* times, T first_time) const {
  const std::size_t w = schedule_.w, dims = pattern_->dims;
  const std::uint64_t start = end + 1 - w;
  values.assign(history.sample(start), history.sample(start) + w * dims);
  if (znorm_ && !znormalize(values, dims)) return false;
  if (times) rebase_times(history, end, times, first_time);
  return true;
}

void WindowTrack::window_times(const kernels::StreamHistory& history, std::uint64_t end,
                               float* times) const {
  rebase_times(history, end, times, times_[0]);
}

bool WindowTrack::window(const kernels::StreamHistory& history, std::uint64_t end,
                         std::vector<float>& values, float* times) const {
  return window_as(history, end, values, times, times_[0]);
}

bool WindowTrack::window(const kernels::StreamHistory& history, std::uint64_t end,
                         std::vector<float>& values, double* times) const {
  return window_as(history, end, values, times, times64_[0]);
}

std::uint64_t WindowTrack::group(std::uint64_t from, std::uint64_t to,
                                 const std::vector<std::uint64_t>& ends,
                                 const std::vector<double>& distances,
                                 const std::vector<std::uint8_t>& flat,
                                 const kernels::StreamHistory& history,
                                 std::vector<WindowOccurrence>& out) {
  // Sample by sample, as docs/spec.md §3.2 reads.
  std::uint64_t skipped = 0;
  std::size_t next = 0;
  for (std::uint64_t e = from; e < to; ++e) {
    if (next < ends.size() && ends[next] == e) {
      if (flat[next]) {
        ++skipped;
      } else {
        const std::uint64_t start = e + 1 - schedule_.w;
        zone_.offer({distances[next], start, e, history.time_ns(start), history.time_ns(e)});
      }
      ++next;
    }
    if (auto o = zone_.close_after(e)) out.push_back(*o);
  }
  return skipped;
}

}  // namespace warpwatch::kernels::common
