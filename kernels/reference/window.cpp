#include "window.hpp"

#include <cmath>
#include <stdexcept>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {

bool znormalize(std::vector<float>& values, std::size_t dims) {
  const std::size_t n = values.size() / dims;
  std::vector<double> mean(dims, 0.0), scale(dims, 0.0);
  for (std::size_t k = 0; k < dims; ++k) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += values[i * dims + k];
    mean[k] = sum / static_cast<double>(n);
    double var = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double dev = values[i * dims + k] - mean[k];
      var += dev * dev;
    }
    const double std = std::sqrt(var / static_cast<double>(n));
    if (std < 1e-8) return false;
    scale[k] = 1.0 / std;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < dims; ++k)
      values[i * dims + k] = static_cast<float>((values[i * dims + k] - mean[k]) * scale[k]);
  return true;
}

WindowPair::WindowPair(const PatternDef& pattern, const StreamDef& stream, std::uint64_t first_index)
    : m_(pattern.length()),
      dims_(pattern.dims),
      w_(pattern.params.window ? pattern.params.window : pattern.length()),
      hop_(pattern.params.hop),
      first_index_(first_index),
      distance_(pattern.params.distance),
      threshold_(pattern.params.threshold),
      znorm_(pattern.params.normalize == Normalize::znorm),
      pattern_(pattern.values) {
  if (znorm_ && !znormalize(pattern_, dims_))
    throw std::invalid_argument("pattern '" + pattern.id + "' is constant: znorm is undefined");
  const double period_s = static_cast<double>(stream.nominal_period_ns) * 1e-9;
  pattern_times_.resize(m_);
  for (std::size_t i = 0; i < m_; ++i)
    pattern_times_[i] = pattern.times.empty() ? static_cast<double>(i) * period_s : pattern.times[i];
}

std::optional<WindowOccurrence> WindowPair::step(std::uint64_t index, const StreamHistory& history,
                                                 std::uint64_t& cells, std::uint64_t& flat_skipped) {
  const std::uint64_t first_end = first_index_ + w_ - 1;
  if (index >= first_end && (index - first_end) % hop_ == 0) {
    const std::uint64_t start = index + 1 - w_;
    window_.assign(history.sample(start), history.sample(start) + w_ * dims_);
    if (znorm_ && !znormalize(window_, dims_)) {
      ++flat_skipped;
    } else {
      // twed: the window's own clock, rebased to the pattern's first timestamp, in seconds.
      window_times_.resize(w_);
      const std::int64_t t0 = history.time_ns(start);
      for (std::size_t j = 0; j < w_; ++j)
        window_times_[j] =
            pattern_times_[0] + static_cast<double>(history.time_ns(start + j) - t0) * 1e-9;
      const SeriesView pattern_view{pattern_.data(), m_, dims_, pattern_times_.data()};
      const SeriesView window_view{window_.data(), w_, dims_, window_times_.data()};
      const double d = distance(pattern_view, window_view, distance_);
      cells += static_cast<std::uint64_t>(m_) * w_;
      if (d <= threshold_ && (!candidate_ || d < candidate_->distance))
        candidate_ = WindowOccurrence{d, start, index, t0, history.time_ns(index)};
    }
  }
  // Exclusion zone: the best window of a run is final once w/2 samples passed without a
  // better one.
  if (candidate_ && index - candidate_->end_index >= w_ / 2) return flush();
  return std::nullopt;
}

std::optional<WindowOccurrence> WindowPair::flush() {
  auto occurrence = candidate_;
  candidate_.reset();
  return occurrence;
}

}  // namespace warpwatch::kernels::reference
