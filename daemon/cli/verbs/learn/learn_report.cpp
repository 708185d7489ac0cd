// `warpwatch learn --report`.
#include "learn_report.hpp"

#include <cmath>

#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/report/html.hpp"
#include "warpwatch/report/svg.hpp"

namespace warpwatch::cli {
namespace {

using report::number;

// The template (first dimension) over each example warped onto its axis along the example's
// dtw path to it (DBA's alignment: a template sample's value is the mean of the example's
// samples aligned to it).
report::Chart aligned_chart(const PatternReport& p) {
  report::Chart chart{p.id + ": the template over the aligned positives",
                      "template sample",
                      "value (first dimension)",
                      {},
                      {},
                      {}};
  const std::size_t m = p.tmpl.length(), d = p.tmpl.dims;
  std::vector<double> x(m);
  for (std::size_t j = 0; j < m; ++j) x[j] = static_cast<double>(j);
  for (const auto& e : p.examples) {
    std::vector<double> sum(m, 0.0), count(m, 0.0);
    for (const auto& step : kernels::reference::dtw_path(e.view(), p.tmpl.view(), kernels::Cost::sq,
                                                         p.settings.band)) {
      sum[step.j] += e.values[step.i * d];
      count[step.j] += 1.0;
    }
    std::vector<double> y(m, NAN);
    for (std::size_t j = 0; j < m; ++j)
      if (count[j] > 0) y[j] = sum[j] / count[j];
    chart.series.push_back({"", x, y, "#7f8c8d", false, 0.35, 1.0});
  }
  std::vector<double> t(m);
  for (std::size_t j = 0; j < m; ++j) t[j] = p.tmpl.values[j * d];
  chart.series.push_back({"template", x, t, "#c0392b", false, 1.0, 2.5});
  return chart;
}

}  // namespace

void write_learn_report(const std::filesystem::path& path, const std::string& title,
                        const std::vector<std::string>& header,
                        const std::vector<PatternReport>& patterns) {
  report::Page page(title);
  std::string how;
  for (const auto& line : header) how += line + "\n";
  page.preformatted(how);
  for (const auto& p : patterns) {
    const auto& row = p.table[p.chosen];
    page.heading("pattern " + p.id);
    for (const auto& line : p.why) page.paragraph(line);
    page.figure(report::svg(aligned_chart(p)),
                "each positive warped onto the template along its dtw path (grey)");
    auto hist =
        report::histogram(p.id + ": distances", "distance",
                          {{"positives (held out)", p.positive_scores, "#27ae60"},
                           {"negatives (best match of each series)", p.negative_best, "#c0392b"}});
    hist.rules.push_back({row.threshold, "threshold " + number(row.threshold), true, ""});
    page.figure(report::svg(hist), "the chosen threshold as a vertical line");
    report::Chart pr{p.id + ": precision and recall", "recall", "precision", {}, {}, {}};
    report::Chart fa{
        p.id + ": false alarms per hour", "threshold", "false alarms per hour", {}, {}, {}};
    report::Series prs{"precision against recall", {}, {}, "", false, 1.0, 1.5};
    report::Series fas{"false alarms per hour", {}, {}, "", false, 1.0, 1.5};
    std::vector<std::vector<std::string>> rows;
    for (std::size_t r = 0; r < p.table.size(); ++r) {
      const auto& t = p.table[r];
      prs.x.push_back(t.recall);
      prs.y.push_back(t.precision);
      fas.x.push_back(t.threshold);
      fas.y.push_back(t.false_per_hour);
      rows.push_back({(r == p.chosen ? "* " : "") + number(t.threshold, 6), number(t.recall, 3),
                      number(t.precision, 3), std::to_string(t.false_alarms),
                      number(t.false_per_hour, 3), number(t.f1, 3)});
    }
    pr.series.push_back(prs);
    pr.rules.push_back({row.recall, "chosen", true, ""});
    fa.series.push_back(fas);
    fa.rules.push_back({row.threshold, "chosen", true, ""});
    page.figure(report::svg(pr)).figure(report::svg(fa));
    page.table({"threshold", "recall", "precision", "false alarms", "per hour", "F1"}, rows);
  }
  page.write(path);
}

}  // namespace warpwatch::cli
