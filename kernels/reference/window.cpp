#include "window.hpp"

#include <stdexcept>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {

WindowPair::WindowPair(const PatternDef& pattern, const StreamDef& stream, std::uint64_t first_index)
    : m_(pattern.length()),
      dims_(pattern.dims),
      schedule_{common::window_length(pattern), pattern.params.hop, first_index},
      distance_(pattern.params.distance),
      znorm_(pattern.params.normalize == Normalize::znorm),
      pattern_(pattern.values),
      pattern_times_(common::pattern_times(pattern, stream.nominal_period_ns)),
      zone_(schedule_.w, pattern.params.threshold) {
  if (znorm_ && !common::znormalize(pattern_, dims_))
    throw std::invalid_argument("pattern '" + pattern.id + "' is constant: znorm is undefined");
}

std::optional<WindowOccurrence> WindowPair::step(std::uint64_t index,
                                                 const stream::StreamHistory& history,
                                                 std::uint64_t& cells, std::uint64_t& flat_skipped) {
  if (schedule_.ends_at(index)) {
    const std::size_t w = schedule_.w;
    const std::uint64_t start = index + 1 - w;
    window_.assign(history.sample(start), history.sample(start) + w * dims_);
    if (znorm_ && !common::znormalize(window_, dims_)) {
      ++flat_skipped;
    } else {
      // twed: the window's own clock, rebased to the pattern's first timestamp, in seconds.
      window_times_.resize(w);
      const std::int64_t t0 = history.time_ns(start);
      for (std::size_t j = 0; j < w; ++j)
        window_times_[j] =
            pattern_times_[0] + static_cast<double>(history.time_ns(start + j) - t0) * 1e-9;
      const SeriesView pattern_view{pattern_.data(), m_, dims_, pattern_times_.data()};
      const SeriesView window_view{window_.data(), w, dims_, window_times_.data()};
      cells += static_cast<std::uint64_t>(m_) * w;
      zone_.offer({distance(pattern_view, window_view, distance_), start, index, t0,
                   history.time_ns(index)});
    }
  }
  return zone_.close_after(index);
}

}  // namespace warpwatch::kernels::reference
