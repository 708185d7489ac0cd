// Choosing mode, znorm and band from the training data.
#include "warpwatch/learn/settings.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace warpwatch::learn {
namespace {

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string describe(const MatchSettings& s) {
  if (s.mode == kernels::Mode::stream) return "stream";
  return std::string("window") + (s.znorm ? " with znorm" : "") +
         (s.band ? ", band " + num(*s.band) : "");
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
  opts.band = settings.band;
  opts.max_iterations = std::min<std::size_t>(opts.max_iterations, 10);  // a comparison only
  const auto pos = held_out_scores(examples, opts, settings, folds);
  const Series tmpl = build_template(examples, opts).series;
  const auto table = threshold_table(tmpl, pos, negatives, settings, candidate_thresholds(pos));
  Separation best;
  for (const auto& row : table)
    if (row.f1 > best.f1) best = {row.f1, row.false_per_hour};
  return {settings, best};
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
    out.why.push_back("band: " + (s.band ? num(*s.band) : std::string("none")) + " — " +
                      (given.band ? "given" : "no negatives to compare bands on"));
    return out;
  }
  std::vector<MatchSettings> candidates;
  for (const auto& c : {MatchSettings{kernels::Mode::stream, false, std::nullopt},
                        MatchSettings{kernels::Mode::window, false, given.band},
                        MatchSettings{kernels::Mode::window, true, given.band}}) {
    if (given.mode && c.mode != *given.mode) continue;
    if (given.znorm && c.mode == kernels::Mode::window && c.znorm != *given.znorm) continue;
    if (given.znorm && *given.znorm && c.mode == kernels::Mode::stream) continue;
    candidates.push_back(c);
  }
  std::vector<Scored> scored;
  for (const auto& c : candidates)
    scored.push_back(evaluate(c, positives, negatives, options, folds));
  const auto better = [](const Scored& a, const Scored& b) {
    if (a.separation.f1 != b.separation.f1) return a.separation.f1 > b.separation.f1;
    return a.separation.false_per_hour < b.separation.false_per_hour;
  };
  std::stable_sort(scored.begin(), scored.end(), better);  // ties: the simpler, listed first
  std::string table;
  for (const auto& c : scored)
    table += (table.empty() ? "" : "; ") + describe(c.settings) + " F1 " + num(c.separation.f1) +
             " at " + num(c.separation.false_per_hour) + " false/h";
  s = scored.front().settings;
  const std::string basis =
      "the best F1 of the threshold table on the training data (held-out positives against "
      "the events over the negatives: " +
      table + ")";
  out.why.push_back(std::string("mode: ") + std::string(kernels::to_string(s.mode)) + " — " +
                    (given.mode ? "given" : basis));
  out.why.push_back(std::string("znorm: ") + (s.znorm ? "on" : "off") + " — " +
                    (given.znorm                       ? "given"
                     : s.mode == kernels::Mode::stream ? "stream mode does not normalize"
                                                       : "the better of the two above"));
  if (s.mode == kernels::Mode::window && !given.band && !given.band_fixed) {
    // Bands of 5% and 10% of the length against none: a band also keeps a window that is
    // shifted against the shape from warping onto it.
    Scored best = scored.front();
    std::string tried;
    const double m = static_cast<double>(positives[medoid(positives, std::nullopt)].length());
    for (const double share : {0.05, 0.1}) {
      MatchSettings banded = s;
      banded.band = std::max(1.0, std::round(share * m));
      const Scored b = evaluate(banded, positives, negatives, options, folds);
      tried += "; band " + num(*banded.band) + " F1 " + num(b.separation.f1);
      if (better(b, best)) best = b;
    }
    s = best.settings;
    out.why.push_back("band: " + (s.band ? num(*s.band) : std::string("none")) +
                      " — the best F1 of the threshold table (none F1 " +
                      num(scored.front().separation.f1) + tried + ")");
  } else {
    out.why.push_back("band: " + (s.band ? num(*s.band) : std::string("none")) + " — " +
                      (given.band || given.band_fixed ? "given" : "stream mode has no band"));
  }
  return out;
}

}  // namespace warpwatch::learn
