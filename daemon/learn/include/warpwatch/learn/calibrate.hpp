// docs/spec.md §8: calibration. Positives scored leave-one-out in the daemon's mode, negatives
// scored by the events the daemon would publish over them, a table per threshold, a choice.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/learn/templates.hpp"

namespace warpwatch::learn {

// How the daemon will match the template: stream mode (SPRING, dtw) or window mode (windows
// of the template's length, optionally z-normalized, dtw with an optional band or lcss with
// its epsilon and delta).
struct MatchSettings {
  kernels::Mode mode = kernels::Mode::stream;
  bool znorm = false;                             // window mode only
  std::optional<double> band;                     // window mode's dtw only
  kernels::Metric metric = kernels::Metric::dtw;  // lcss: window mode only
  double epsilon = 1.0;                           // lcss
  std::optional<std::size_t> delta;               // lcss (unset: no limit)
  kernels::MatchParams params(double threshold) const;
  // Window mode with dtw.
  static MatchSettings window(bool znorm, std::optional<double> band);
};

// The band of the template's dtw alignments (DBA, the medoid) under `settings`: dtw's own
// band; lcss (no band) 0 when every example has one length (DBA with band 0 is their
// arithmetic mean), else none.
std::optional<double> template_band(const MatchSettings& settings,
                                    std::span<const Series> examples);

// A series where any event is a false alarm: its samples and times (strictly increasing).
struct Negative {
  std::string name;
  Series series;
  std::vector<std::int64_t> times_ns;
  // Series laid end to end: the first sample of each after the first (empty: one series).
  std::vector<std::size_t> joins;
  double hours() const;  // its duration: last - first time plus one period (the mean spacing)
};

// The examples a template is built from under `settings`: z-normalized when it says znorm
// (window mode normalizes each window and the pattern), else as they are.
std::vector<Series> prepared(std::span<const Series> examples, const MatchSettings& settings);

// The best match of `tmpl` inside `example` in the daemon's mode: stream mode the minimum of
// the stream profile (docs/spec.md §3.3); window mode the best window of the template's
// length (the whole example compared when it is shorter), znorm as the daemon would.
double score(const Series& tmpl, const Series& example, const MatchSettings& settings);

// The least distance of any match of `tmpl` in a negative series (docs/spec.md §3.3's top 1:
// stream mode the best subsequence, window mode the best window, +inf for a series shorter
// than a window): no threshold under it has an event there.
double best_match(const Series& tmpl, const Negative& n, const MatchSettings& settings);

// best_match of each series of a negative laid end to end (Negative::joins): over the windows
// (subsequences) that start in it, so that one straddling into the next counts for it.
std::vector<double> best_match_per_series(const Series& tmpl, const Negative& n,
                                          const MatchSettings& settings);

// Each positive's score against a template built without it: the positives split into
// min(folds, k) folds by index modulo, a template built from the others for each fold
// (folds = k: leave-one-out), a fold a thread. One positive alone is scored against itself
// (nothing else).
std::vector<double> held_out_scores(std::span<const Series> positives,
                                    const TemplateOptions& options, const MatchSettings& settings,
                                    std::size_t folds);

struct ThresholdRow {
  double threshold = 0.0;
  std::size_t found = 0;         // positives scoring <= threshold
  std::size_t false_alarms = 0;  // events over the negatives
  double recall = 0.0, precision = 0.0, false_per_hour = 0.0, f1 = 0.0;
};

// Candidate thresholds: the distinct positive scores (where recall steps up), at most `most`
// of them evenly by rank (the largest always kept).
std::vector<double> candidate_thresholds(std::vector<double> scores, std::size_t most = 24);

// The table: recall and found from `scores`; false alarms from one run of the real Matcher
// over every negative with one copy of the template per threshold (cpu backend unless
// another is given), so that one pass counts every threshold's events; the thresholds under
// every negative's best_match have none and are not run.
std::vector<ThresholdRow> threshold_table(const Series& tmpl, std::span<const double> scores,
                                          std::span<const Negative> negatives,
                                          const MatchSettings& settings,
                                          std::span<const double> thresholds,
                                          kernels::Backend backend = kernels::Backend::cpu);

struct Target {
  std::optional<double> recall;          // --target-recall
  std::optional<double> false_per_hour;  // --max-false-per-hour
};
struct Choice {
  std::size_t row = 0;
  std::string why;  // one line: the rule that picked it
};
// --target-recall R: the smallest threshold with recall >= R. --max-false-per-hour F: the
// largest with false alarms per hour <= F. Default: the best F1 on the given data (ties: the
// smaller threshold); without negatives, the smallest threshold with recall >= 0.9.
// NoThreshold when no row meets the target, saying the best reachable value (or the table is
// empty).
struct NoThreshold : std::runtime_error {
  using std::runtime_error::runtime_error;
};
Choice choose_threshold(std::span<const ThresholdRow> table, const Target& target,
                        bool have_negatives);

}  // namespace warpwatch::learn
