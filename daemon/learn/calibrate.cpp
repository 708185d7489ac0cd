// docs/spec.md §8: calibration.
#include "warpwatch/learn/calibrate.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::learn {
namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

kernels::PatternDef pattern_of(const Series& tmpl, const MatchSettings& settings, double threshold,
                               std::string id) {
  kernels::PatternDef p;
  p.id = std::move(id);
  p.dims = tmpl.dims;
  p.values = tmpl.values;
  p.params = settings.params(threshold);
  return p;
}

// docs/spec.md §3.3's top 1 of `tmpl` in `series` (cpu backend: its bounds and fast paths,
// not the scalar reference), +inf when nothing matches.
double top_one(const Series& tmpl, const Series& series, std::span<const std::int64_t> times_ns,
               const MatchSettings& settings) {
  kernels::TopWindowsRequest request;
  request.stream = {"series", series.dims, 1};
  request.values = series.values;
  request.times_ns = times_ns;
  request.pattern = pattern_of(tmpl, settings, 0.0, "template");
  const auto top = kernels::top_windows(kernels::Backend::cpu, request);
  return top.empty() ? inf : top.front().distance;
}

}  // namespace

double best_match(const Series& tmpl, const Negative& n, const MatchSettings& settings) {
  if (n.series.length() < tmpl.length() && settings.mode == kernels::Mode::window) return inf;
  return top_one(tmpl, n.series, n.times_ns, settings);
}

std::vector<double> best_match_per_series(const Series& tmpl, const Negative& n,
                                          const MatchSettings& settings) {
  if (n.joins.empty()) return {best_match(tmpl, n, settings)};
  std::vector<double> out;
  const std::size_t len = n.series.length(), d = n.series.dims, m = tmpl.length();
  for (std::size_t k = 0; k <= n.joins.size(); ++k) {
    const std::size_t begin = k == 0 ? 0 : n.joins[k - 1];
    const std::size_t end =
        k == n.joins.size() ? len : std::min(len, n.joins[k] + (m > 0 ? m - 1 : 0));
    Negative part;
    part.series.dims = d;
    part.series.values.assign(n.series.values.begin() + static_cast<std::ptrdiff_t>(begin * d),
                              n.series.values.begin() + static_cast<std::ptrdiff_t>(end * d));
    part.times_ns.assign(n.times_ns.begin() + static_cast<std::ptrdiff_t>(begin),
                         n.times_ns.begin() + static_cast<std::ptrdiff_t>(end));
    out.push_back(best_match(tmpl, part, settings));
  }
  return out;
}

kernels::MatchParams MatchSettings::params(double threshold) const {
  kernels::MatchParams p;
  p.distance.metric = metric;
  p.distance.cost = kernels::Cost::sq;
  p.mode = mode;
  p.threshold = threshold;
  if (mode == kernels::Mode::window) {
    if (metric == kernels::Metric::lcss) {
      p.distance.epsilon = epsilon;
      p.distance.delta = delta;
    } else {
      p.distance.band = band;
    }
    p.normalize = znorm ? kernels::Normalize::znorm : kernels::Normalize::none;
  }
  return p;
}

MatchSettings MatchSettings::window(bool znorm, std::optional<double> band) {
  MatchSettings s;
  s.mode = kernels::Mode::window;
  s.znorm = znorm;
  s.band = band;
  return s;
}

std::optional<double> template_band(const MatchSettings& settings,
                                    std::span<const Series> examples) {
  if (settings.metric != kernels::Metric::lcss) return settings.band;
  for (const auto& e : examples)
    if (e.length() != examples.front().length()) return std::nullopt;
  return 0.0;
}

double Negative::hours() const {
  const std::size_t n = times_ns.size();
  if (n == 0) return 0.0;
  const double span = n > 1 ? static_cast<double>(times_ns.back() - times_ns.front()) : 0.0;
  const double period = n > 1 ? span / static_cast<double>(n - 1) : 1e9;
  return (span + period) / 3.6e12;
}

std::vector<Series> prepared(std::span<const Series> examples, const MatchSettings& settings) {
  std::vector<Series> out;
  for (const auto& e : examples) out.push_back(settings.znorm ? znormed(e) : e);
  return out;
}

double score(const Series& tmpl, const Series& example, const MatchSettings& settings) {
  const std::size_t m = tmpl.length();
  if (settings.mode == kernels::Mode::window && example.length() < m) {
    const Series a = settings.znorm ? znormed(example) : example;
    const Series b = settings.znorm ? znormed(tmpl) : tmpl;
    return kernels::reference::distance(a.view(), b.view(), settings.params(0.0).distance);
  }
  std::vector<std::int64_t> times(example.length());
  for (std::size_t i = 0; i < times.size(); ++i) times[i] = static_cast<std::int64_t>(i);
  return top_one(tmpl, example, times, settings);  // a flat window (NaN) is never the best
}

std::vector<double> held_out_scores(std::span<const Series> positives,
                                    const TemplateOptions& options, const MatchSettings& settings,
                                    std::size_t folds) {
  const std::size_t k = positives.size();
  std::vector<double> scores(k, inf);
  if (k == 1) {
    scores[0] = score(positives[0], positives[0], settings);
    return scores;
  }
  folds = std::clamp<std::size_t>(folds, 2, k);
  // The folds are independent: one a thread, as many threads as the machine has cores.
  std::atomic<std::size_t> next{0};
  std::exception_ptr failed;
  std::mutex failed_mutex;
  const auto work = [&] {
    for (std::size_t f; (f = next++) < folds;) {
      try {
        std::vector<Series> train;
        for (std::size_t i = 0; i < k; ++i)
          if (i % folds != f) train.push_back(positives[i]);
        const Series tmpl = build_template(train, options).series;
        for (std::size_t i = f; i < k; i += folds) scores[i] = score(tmpl, positives[i], settings);
      } catch (...) {
        const std::lock_guard lock(failed_mutex);
        failed = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  const std::size_t count =
      std::min<std::size_t>(folds, std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t t = 1; t < count; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  if (failed) std::rethrow_exception(failed);
  return scores;
}

std::vector<double> candidate_thresholds(std::vector<double> scores, std::size_t most) {
  std::vector<double> finite;
  for (double s : scores)
    if (std::isfinite(s)) finite.push_back(s);
  std::sort(finite.begin(), finite.end());
  finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
  if (finite.size() <= most || most < 2) return finite;
  std::vector<double> out;
  for (std::size_t r = 0; r < most; ++r)
    out.push_back(finite[(r * (finite.size() - 1)) / (most - 1)]);
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<ThresholdRow> threshold_table(const Series& tmpl, std::span<const double> scores,
                                          std::span<const Negative> negatives,
                                          const MatchSettings& settings,
                                          std::span<const double> thresholds,
                                          kernels::Backend backend) {
  std::vector<std::size_t> events(thresholds.size(), 0);
  double hours = 0.0;
  for (const auto& n : negatives) hours += n.hours();
  // A threshold under every negative's best match has no event (docs/spec.md §3.3: the
  // matcher's distances are never below the profile's): its copy is not run.
  double least = inf;
  if (!negatives.empty() && !thresholds.empty())
    for (const auto& n : negatives) least = std::min(least, best_match(tmpl, n, settings));
  if (!negatives.empty() && !thresholds.empty() && thresholds.back() >= least) {
    auto matcher = kernels::make_matcher(backend);
    std::map<std::string, std::size_t> row_of;
    for (std::size_t r = 0; r < thresholds.size(); ++r) {
      if (thresholds[r] < least) continue;
      std::string id = "t";  // (not "t" + ...: GCC 12's -Wrestrict false positive)
      id += std::to_string(r);
      row_of[id] = r;
      matcher->add_pattern(pattern_of(tmpl, settings, thresholds[r], id));
    }
    const auto count = [&](const std::vector<kernels::RawMatch>& matches) {
      for (const auto& m : matches) ++events[row_of.at(m.pattern_id())];
    };
    for (std::size_t s = 0; s < negatives.size(); ++s) {
      const auto& n = negatives[s];
      std::string id = "negative";
      id += std::to_string(s);
      const std::int64_t period =
          n.times_ns.size() > 1
              ? std::max<std::int64_t>(1, (n.times_ns.back() - n.times_ns.front()) /
                                              static_cast<std::int64_t>(n.times_ns.size() - 1))
              : 1'000'000'000;
      matcher->add_stream(kernels::StreamDef{id, n.series.dims, period});
      const kernels::StreamChunk chunk{id, n.series.values, n.times_ns};
      count(matcher->process({&chunk, 1}));
      count(matcher->remove_stream(id));
    }
  }
  std::vector<ThresholdRow> table;
  for (std::size_t r = 0; r < thresholds.size(); ++r) {
    ThresholdRow row;
    row.threshold = thresholds[r];
    for (double s : scores)
      if (s <= thresholds[r]) ++row.found;
    row.false_alarms = events[r];
    row.recall = scores.empty() ? 0.0 : static_cast<double>(row.found) / scores.size();
    const std::size_t flagged = row.found + row.false_alarms;
    row.precision = flagged ? static_cast<double>(row.found) / flagged : 1.0;
    row.false_per_hour = hours > 0 ? row.false_alarms / hours : 0.0;
    row.f1 = row.recall + row.precision > 0
                 ? 2 * row.recall * row.precision / (row.recall + row.precision)
                 : 0.0;
    table.push_back(row);
  }
  return table;
}

Choice choose_threshold(std::span<const ThresholdRow> table, const Target& target,
                        bool have_negatives) {
  if (table.empty()) throw NoThreshold("no threshold to choose from (no finite score)");
  if (target.recall) {
    for (std::size_t r = 0; r < table.size(); ++r)
      if (table[r].recall >= *target.recall)
        return {r, "--target-recall " + fixed(*target.recall, 3) +
                       ": the smallest threshold that finds that share of the positives"};
    throw NoThreshold("no threshold reaches --target-recall " + fixed(*target.recall, 3) +
                      ": the best reachable recall is " + fixed(table.back().recall, 3));
  }
  if (target.false_per_hour) {
    std::optional<std::size_t> best;
    for (std::size_t r = 0; r < table.size(); ++r)
      if (table[r].false_per_hour <= *target.false_per_hour) best = r;
    if (best)
      return {*best, "--max-false-per-hour " + fixed(*target.false_per_hour, 3) +
                         ": the largest threshold (the best recall) within that false-alarm rate"};
    double least = inf;
    for (const auto& row : table) least = std::min(least, row.false_per_hour);
    throw NoThreshold("no threshold stays within --max-false-per-hour " +
                      fixed(*target.false_per_hour, 3) +
                      ": the fewest false alarms per hour reachable is " + fixed(least, 3) +
                      " (give more or cleaner positives, or a larger F)");
  }
  if (!have_negatives) {
    for (std::size_t r = 0; r < table.size(); ++r)
      if (table[r].recall >= 0.9)
        return {r,
                "default without negatives: recall 0.9, the smallest threshold that finds 90% of "
                "the held-out positives (nothing measures false alarms; give --negatives)"};
    return {table.size() - 1, "default without negatives: the largest positive score"};
  }
  std::size_t best = 0;
  for (std::size_t r = 1; r < table.size(); ++r)
    if (table[r].f1 > table[best].f1) best = r;
  return {best,
          "default: the best F1 on the given data (held-out positives against the negatives' "
          "events), which weighs a missed positive and a false alarm alike; --target-recall or "
          "--max-false-per-hour pick otherwise"};
}

}  // namespace warpwatch::learn
