// The backtest's HTML report (daemon/report/): per stream its series, thinned, with each
// event a shaded span labelled with its pattern; the tables; the command and configuration.
#include <algorithm>
#include <cmath>

#include "backtest.hpp"
#include "warpwatch/report/html.hpp"
#include "warpwatch/report/svg.hpp"

namespace warpwatch::cli::backtest {
namespace {

constexpr std::size_t kPoints = 2000;        // per line, after thinning
constexpr std::size_t kSpansPerChart = 300;  // more are counted in the caption, not drawn
constexpr std::size_t kDimsDrawn = 8;

}  // namespace

void ReportSamples::add(const stream::QueuedSamples& q) {
  Kept& kept = streams[q.stream->id];
  kept.dims = q.stream->dims;
  kept.times_ns.insert(kept.times_ns.end(), q.times_ns.begin(), q.times_ns.end());
  kept.values.insert(kept.values.end(), q.values.begin(), q.values.end());
}

void write_report(const std::string& path, const std::string& config_path,
                  const std::string& command, const TableInput& in, const ReportSamples& samples,
                  const std::string& summary) {
  report::Page page("warpwatch backtest of " + config_path);
  page.preformatted(command);
  page.paragraph(summary);
  std::vector<std::string> header;
  auto rules = rule_rows(in, header);
  page.heading("Rules").table(header, std::move(rules));
  auto streams = stream_rows(in, header);
  page.heading("Streams").table(header, std::move(streams));
  page.heading("Series and events");
  for (const auto& [id, kept] : samples.streams) {
    if (kept.times_ns.empty()) continue;
    const std::int64_t first = kept.times_ns.front();
    const double span_s = static_cast<double>(kept.times_ns.back() - first) / 1e9;
    const bool hours = span_s > 7200;
    const double unit_ns = hours ? 3.6e12 : 1e9;
    const auto at = [&](std::int64_t t) { return static_cast<double>(t - first) / unit_ns; };
    report::Chart chart;
    chart.title = id;
    chart.x_label =
        std::string(hours ? "hours" : "seconds") + " of stream time from its first sample";
    chart.y_label = "value";
    const std::size_t n = kept.times_ns.size();
    for (std::size_t d = 0; d < std::min(kept.dims, kDimsDrawn); ++d) {
      report::Series line;
      line.name = kept.dims == 1 ? id : id + "[" + std::to_string(d) + "]";
      line.x.reserve(n);
      line.y.reserve(n);
      for (std::size_t i = 0; i < n; ++i) {
        line.x.push_back(at(kept.times_ns[i]));
        line.y.push_back(kept.values[i * kept.dims + d]);
      }
      chart.series.push_back(report::thinned(std::move(line), kPoints));
    }
    std::size_t events = 0;
    for (const alerting::SharedEvent& e : in.events) {
      if (e->stream != id) continue;
      if (++events <= kSpansPerChart)
        chart.spans.push_back(
            {at(e->start_ns), at(e->end_ns), e->pattern + " (" + e->rule + ")", ""});
    }
    std::string caption = std::to_string(n) + " samples (drawn thinned to at most " +
                          std::to_string(kPoints) + " points a line), " + std::to_string(events) +
                          " events shaded";
    if (events > kSpansPerChart)
      caption += " (the first " + std::to_string(kSpansPerChart) + " drawn)";
    if (kept.dims > kDimsDrawn)
      caption += "; the first " + std::to_string(kDimsDrawn) + " of " + std::to_string(kept.dims) +
                 " dimensions drawn";
    page.figure(report::svg(chart), caption);
  }
  page.write(path);
}

}  // namespace warpwatch::cli::backtest
