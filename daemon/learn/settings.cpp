// Choosing mode, znorm and band from the training data.
#include "warpwatch/learn/settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace warpwatch::learn {
namespace {

// The most background samples the settings are compared on (subsample()).
constexpr std::size_t kCompareSamples = 100'000;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

}  // namespace

std::string describe_measure(const MatchSettings& s) {
  if (s.metric == kernels::Metric::lcss)
    return "lcss epsilon " + num(s.epsilon) + " delta " +
           (s.delta ? std::to_string(*s.delta) : std::string("none"));
  return std::string("dtw band ") + (s.band ? num(*s.band) : std::string("none"));
}

namespace {

std::string describe(const MatchSettings& s) {
  if (s.mode == kernels::Mode::stream) return "stream";
  return std::string("window") + (s.znorm ? " with znorm" : "") + ", " + describe_measure(s);
}

struct Scored {
  MatchSettings settings;
  Separation separation;
};

// The settings' threshold table on the training data (held-out positives against the
// Matcher's events over the negatives), as calibration computes it, and its best F1.
Scored evaluate(const MatchSettings& settings, std::span<const Series> positives,
                std::span<const Negative> negatives, const TemplateOptions& options,
                std::size_t folds) {
  const std::vector<Series> examples = prepared(positives, settings);
  TemplateOptions opts = options;
  opts.band = template_band(settings, examples);
  opts.max_iterations = std::min<std::size_t>(opts.max_iterations, 10);  // a comparison only
  const auto pos = held_out_scores(examples, opts, settings, folds);
  const Series tmpl = build_template(examples, opts).series;
  const auto table = threshold_table(tmpl, pos, negatives, settings, candidate_thresholds(pos));
  Separation best;
  for (const auto& row : table)
    if (row.f1 > best.f1) best = {row.f1, row.false_per_hour};
  return {settings, best};
}

// The positives' spread (as prepared under `settings`): the root of the mean within-example
// variance, over the components; lcss's epsilon is a share of it.
double spread(std::span<const Series> positives, const MatchSettings& settings) {
  double var = 0.0;
  std::size_t count = 0;
  for (const auto& p : prepared(positives, settings)) {
    const std::size_t d = p.dims, n = p.length();
    for (std::size_t k = 0; k < d; ++k) {
      double mean = 0.0, sq = 0.0;
      for (std::size_t i = 0; i < n; ++i) mean += p.values[i * d + k];
      mean /= static_cast<double>(n);
      for (std::size_t i = 0; i < n; ++i) sq += std::pow(p.values[i * d + k] - mean, 2);
      var += sq / static_cast<double>(n), ++count;
    }
  }
  const double sd = count ? std::sqrt(var / static_cast<double>(count)) : 0.0;
  return sd > 0 ? sd : 1.0;
}

// The negatives the settings are compared on: at most `most` samples in all, each negative
// cut to its share (its first samples), so that comparing many settings over a long
// background costs a part of one calibration (the chosen setting's table uses them whole).
std::vector<Negative> subsample(std::span<const Negative> negatives, std::size_t most) {
  std::size_t total = 0;
  for (const auto& n : negatives) total += n.series.length();
  std::vector<Negative> out(negatives.begin(), negatives.end());
  if (total <= most) return out;
  for (auto& n : out) {
    const std::size_t keep = std::max<std::size_t>(1, n.series.length() * most / total);
    n.series.values.resize(keep * n.series.dims);
    n.times_ns.resize(keep);
    std::erase_if(n.joins, [keep](std::size_t j) { return j >= keep; });
  }
  return out;
}

// The spread of the positives' means against their own standard deviations: the largest
// difference of two means over the mean within-example standard deviation (worst component).
double mean_spread(std::span<const Series> positives) {
  const std::size_t d = positives.front().dims;
  double worst = 0.0;
  for (std::size_t k = 0; k < d; ++k) {
    double lo = 1e300, hi = -1e300, sd_sum = 0.0;
    for (const auto& p : positives) {
      double mean = 0.0, sq = 0.0;
      const std::size_t n = p.length();
      for (std::size_t i = 0; i < n; ++i) mean += p.values[i * d + k];
      mean /= static_cast<double>(n);
      for (std::size_t i = 0; i < n; ++i) sq += std::pow(p.values[i * d + k] - mean, 2);
      sd_sum += std::sqrt(sq / static_cast<double>(n));
      lo = std::min(lo, mean), hi = std::max(hi, mean);
    }
    const double sd = sd_sum / static_cast<double>(positives.size());
    worst = std::max(worst, sd > 0 ? (hi - lo) / sd : 0.0);
  }
  return worst;
}

}  // namespace

SettingsChoice choose_settings(std::span<const Series> positives,
                               std::span<const Negative> negatives, const TemplateOptions& options,
                               const Given& given, std::size_t folds) {
  SettingsChoice out;
  MatchSettings& s = out.settings;
  if (negatives.empty()) {
    const double spread = mean_spread(positives);
    const bool need_znorm = given.znorm.value_or(spread > 1.0);
    s.mode = given.mode.value_or(need_znorm ? kernels::Mode::window : kernels::Mode::stream);
    s.znorm = s.mode == kernels::Mode::window && need_znorm;
    if (s.mode == kernels::Mode::window) s.band = given.band;
    out.why.push_back(std::string("mode: ") + std::string(kernels::to_string(s.mode)) + " — " +
                      (given.mode ? "given"
                       : need_znorm
                           ? "znorm is needed and only window mode normalizes"
                           : "no negatives to compare modes on: stream mode, which finds the "
                             "shape at any length"));
    out.why.push_back(std::string("znorm: ") + (s.znorm ? "on" : "off") + " — " +
                      (given.znorm ? "given"
                                   : "the positives' means differ by " + num(spread) +
                                         " within-example standard deviations (znorm above 1)"));
    out.why.push_back("measure: " + describe_measure(s) + " — " +
                      (given.band ? "given" : "no negatives to compare measures on"));
    return out;
  }
  const std::vector<Negative> compared = subsample(negatives, kCompareSamples);
  std::vector<MatchSettings> candidates;
  for (const auto& c : {MatchSettings{}, MatchSettings::window(false, given.band),
                        MatchSettings::window(true, given.band)}) {
    if (given.mode && c.mode != *given.mode) continue;
    if (given.znorm && c.mode == kernels::Mode::window && c.znorm != *given.znorm) continue;
    if (given.znorm && *given.znorm && c.mode == kernels::Mode::stream) continue;
    candidates.push_back(c);
  }
  const auto better = [](const Scored& a, const Scored& b) {
    if (a.separation.f1 != b.separation.f1) return a.separation.f1 > b.separation.f1;
    return a.separation.false_per_hour < b.separation.false_per_hour;
  };
  // Nothing is better than F1 1 without a false alarm: the candidates after one are not run.
  const auto perfect = [](const Scored& c) {
    return c.separation.f1 >= 1.0 && c.separation.false_per_hour <= 0.0;
  };
  // One candidate and no measure to choose after it: nothing to compare, nothing run.
  const bool measure_fixed = given.band || given.band_fixed || given.metric;
  if (candidates.size() == 1 &&
      (candidates.front().mode == kernels::Mode::stream || measure_fixed)) {
    s = candidates.front();
    out.why.push_back(std::string("mode: ") + std::string(kernels::to_string(s.mode)) + " — " +
                      (given.mode ? "given" : "the only mode for the settings given"));
    out.why.push_back(std::string("znorm: ") + (s.znorm ? "on" : "off") + " — " +
                      (given.znorm ? "given" : "stream mode does not normalize"));
    out.why.push_back("measure: " + describe_measure(s) + " — " +
                      (measure_fixed ? "given" : "stream mode: dtw without a band"));
    return out;
  }
  std::vector<Scored> scored;
  for (const auto& c : candidates) {
    scored.push_back(evaluate(c, positives, compared, options, folds));
    if (perfect(scored.back())) break;
  }
  std::stable_sort(scored.begin(), scored.end(), better);  // ties: the simpler, listed first
  std::string table;
  for (const auto& c : scored)
    table += (table.empty() ? "" : "; ") + describe(c.settings) + " F1 " + num(c.separation.f1) +
             " at " + num(c.separation.false_per_hour) + " false/h";
  // The window settings' measure is chosen before the mode: stream mode is compared with
  // window mode at its best measure, not at dtw without a band only.
  const auto window_it = std::find_if(scored.begin(), scored.end(), [](const Scored& c) {
    return c.settings.mode == kernels::Mode::window;
  });
  std::optional<Scored> window;
  if (window_it != scored.end()) window = *window_it;
  std::string measure_why;
  if (window && !given.band && !given.band_fixed && !given.metric && !perfect(scored.front())) {
    // The measure: dtw with bands 0 (equal lengths: the template is the examples' mean),
    // 5% and 10% of the length against none (a band keeps a window shifted against the
    // shape from warping onto it), and lcss with epsilon a share of the positives' spread
    // and delta none, 5% or 10% of the length (lcss counts the samples that match within
    // epsilon: a few far-off samples cost no more than a miss each).
    const Scored none = *window;
    std::string tried;
    const double m = static_cast<double>(positives[medoid(positives, std::nullopt)].length());
    std::vector<MatchSettings> measures;
    bool one_length = true;
    for (const auto& p : positives) one_length = one_length && p.length() == positives[0].length();
    const bool z = none.settings.znorm;
    if (one_length) measures.push_back(MatchSettings::window(z, 0.0));
    for (const double share : {0.05, 0.1})
      measures.push_back(MatchSettings::window(z, std::max(1.0, std::round(share * m))));
    const double sd = spread(positives, none.settings);
    for (const double eps : {0.05, 0.1, 0.2, 0.3})
      for (const double share : {0.0, 0.05, 0.1}) {
        MatchSettings l = MatchSettings::window(z, std::nullopt);
        l.metric = kernels::Metric::lcss;
        l.epsilon = std::stod(num(eps * sd));  // 3 significant digits, as printed
        if (share > 0) l.delta = static_cast<std::size_t>(std::max(1.0, std::round(share * m)));
        measures.push_back(l);
      }
    for (const auto& c : measures) {
      const Scored b = evaluate(c, positives, compared, options, folds);
      tried += "; " + describe_measure(c) + " F1 " + num(b.separation.f1);
      if (better(b, *window)) window = b;
      if (perfect(*window)) break;
    }
    measure_why = "the best F1 of the threshold table in window mode" +
                  std::string(z ? " with znorm" : "") + " (dtw band none F1 " +
                  num(none.separation.f1) + tried +
                  "; lcss epsilon as a share 0.05-0.3 of the positives' spread " + num(sd) + ")";
  }
  const auto stream_it = std::find_if(scored.begin(), scored.end(), [](const Scored& c) {
    return c.settings.mode == kernels::Mode::stream;
  });
  const bool stream_wins = stream_it != scored.end() && (!window || !better(*window, *stream_it));
  s = stream_wins ? stream_it->settings : window->settings;
  const std::string basis =
      "the best F1 of the threshold table on the training data (held-out positives against "
      "the events over the negatives" +
      std::string(compared[0].series.length() < negatives[0].series.length()
                      ? ", compared on their first " + std::to_string(kCompareSamples) + " samples"
                      : "") +
      ": " + table +
      (measure_why.empty() || stream_it == scored.end()
           ? std::string()
           : "; window at its best measure below F1 " + num(window->separation.f1) + " at " +
                 num(window->separation.false_per_hour) + " false/h") +
      ")";
  out.why.push_back(std::string("mode: ") + std::string(kernels::to_string(s.mode)) + " — " +
                    (given.mode ? "given" : basis));
  out.why.push_back(std::string("znorm: ") + (s.znorm ? "on" : "off") + " — " +
                    (given.znorm                       ? "given"
                     : s.mode == kernels::Mode::stream ? "stream mode does not normalize"
                                                       : "the better of the two above"));
  if (s.mode == kernels::Mode::window && !measure_why.empty()) {
    out.why.push_back("measure: " + describe_measure(s) + " — " + measure_why);
  } else {
    out.why.push_back("measure: " + describe_measure(s) + " — " +
                      (measure_fixed ? "given"
                       : s.mode == kernels::Mode::stream
                           ? "stream mode: dtw without a band"
                           : "dtw without a band separates the training data perfectly"));
  }
  return out;
}

}  // namespace warpwatch::learn
