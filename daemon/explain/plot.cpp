// An explanation drawn (explain.hpp's plot_svg): the segment above, the pattern below, a
// segment of the chart (report::Segment) between each step's sample and pattern row.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "warpwatch/explain/explain.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/report/svg.hpp"

namespace warpwatch::explain {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace

std::string plot_svg(const Explanation& e, const kernels::PatternDef& pattern,
                     std::span<const float> segment, std::uint64_t first_index,
                     const std::string& title, std::optional<double> distance,
                     std::optional<double> threshold) {
  const std::size_t dims = std::max<std::size_t>(pattern.dims, 1), m = pattern.length();
  report::Chart chart;
  chart.title = title;
  if (distance) chart.title += ", distance " + number(*distance);
  if (threshold) chart.title += ", threshold " + number(*threshold);
  chart.x_label = "stream index";
  chart.y_label = dims > 1 ? "value (component 1)" : "value";
  chart.height = 360;

  // The matched range: the steps' stream indices.
  std::uint64_t start = first_index, end = first_index + segment.size() / dims;
  end = end > start ? end - 1 : start;
  if (!e.steps.empty()) {
    const auto [lo, hi] = std::minmax_element(
        e.steps.begin(), e.steps.end(),
        [](const Step& a, const Step& b) { return a.stream_index < b.stream_index; });
    start = lo->stream_index;
    end = hi->stream_index;
  }

  // What is drawn: the segment as stored, or under znorm the window and the pattern as
  // compared (their raw scales need not match).
  std::vector<float> values(segment.begin(), segment.end()), rows = pattern.values;
  std::uint64_t values_first = first_index;
  const bool znorm = pattern.params.mode == kernels::Mode::window &&
                     pattern.params.normalize == kernels::Normalize::znorm;
  if (znorm && start >= first_index && (end - first_index + 1) * dims <= segment.size()) {
    values.assign(segment.begin() + static_cast<std::ptrdiff_t>((start - first_index) * dims),
                  segment.begin() + static_cast<std::ptrdiff_t>((end - first_index + 1) * dims));
    values_first = start;
    if (!kernels::reference::znormalize(values, dims) ||
        !kernels::reference::znormalize(rows, dims)) {
      values.assign(segment.begin(), segment.end());
      values_first = first_index;
      rows = pattern.values;
    }
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::size_t k = 0; k < values.size(); k += dims)
    lo = std::min(lo, double{values[k]}), hi = std::max(hi, double{values[k]});
  for (std::size_t k = 0; k < rows.size(); k += dims)
    lo = std::min(lo, double{rows[k]}), hi = std::max(hi, double{rows[k]});
  const double span = std::isfinite(hi - lo) && hi > lo ? hi - lo : 1.0;
  const double offset = 1.3 * span;  // the pattern below the segment, apart

  report::Series stream;
  stream.name = "segment";
  for (std::size_t k = 0; k * dims < values.size(); ++k) {
    stream.x.push_back(static_cast<double>(values_first + k));
    stream.y.push_back(values[k * dims]);
  }
  // Row r (1-based) of the pattern at its place spread over the matched range.
  const auto row_x = [&](std::size_t r) {
    if (m < 2) return static_cast<double>(start);
    return static_cast<double>(start) + static_cast<double>(r - 1) *
                                            static_cast<double>(end - start) /
                                            static_cast<double>(m - 1);
  };
  report::Series rows_line;
  rows_line.name = "pattern " + pattern.id + " (shifted down)";
  for (std::size_t r = 1; r <= m; ++r) {
    rows_line.x.push_back(row_x(r));
    rows_line.y.push_back(rows[(r - 1) * dims] - offset);
  }
  const auto value_at = [&](std::uint64_t index) {
    if (index < values_first || (index - values_first + 1) * dims > values.size())
      return std::numeric_limits<double>::quiet_NaN();
    return static_cast<double>(values[(index - values_first) * dims]);
  };
  for (const Step& s : e.steps) {
    report::Segment link;
    link.x1 = static_cast<double>(s.stream_index);
    link.y1 = value_at(s.stream_index);
    const std::size_t r = std::clamp<std::size_t>(s.pattern_row, 1, m);
    link.x2 = row_x(r);
    link.y2 = rows[(r - 1) * dims] - offset;
    chart.segments.push_back(link);
  }
  chart.series.push_back(std::move(stream));
  chart.series.push_back(std::move(rows_line));
  return report::svg(chart);
}

}  // namespace warpwatch::explain
