// The choices `warpwatch learn` makes from the training data when they are not given: mode,
// z-normalisation and band, each with one line saying why (docs/spec.md §8).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "warpwatch/learn/calibrate.hpp"

namespace warpwatch::learn {

struct Given {
  std::optional<kernels::Mode> mode;
  std::optional<bool> znorm;
  std::optional<double> band;
  bool band_fixed = false;                // `band` as it is, also when unset (no band): not chosen
  std::optional<kernels::Metric> metric;  // dtw: not chosen (lcss only with its parameters)
};

// "dtw band 8", "lcss epsilon 0.05 delta 15" (delta "none": no limit).
std::string describe_measure(const MatchSettings& settings);

// How well a setting separates on the training data: the best F1 of its threshold table
// and that row's false alarms per hour (the tie-break: fewer).
struct Separation {
  double f1 = 0.0, false_per_hour = 0.0;
};

struct SettingsChoice {
  MatchSettings settings;
  std::vector<std::string> why;  // "mode: window — ...", "znorm: ...", "band: ..."
};

// With negatives, every setting not given is picked by its threshold table on the training
// data only (templates of at most 10 iterations, held-out positives in `folds` folds against the
// Matcher's events over the negatives, at most their first 100000 samples in all: the best F1,
// ties to fewer false alarms per hour, then to the order below; F1 1 without a false alarm ends
// the search): znorm by window mode without and with it (dtw, no band), then window mode's
// measure under that znorm: dtw with no band against band 0 (examples of one length), 5% and
// 10% of the template's length, and lcss with epsilon 0.05, 0.1, 0.2 or 0.3 of the positives'
// spread (after znorm when it is on) and delta none, 5% or 10% of the length; last the mode:
// stream mode against window mode at its best measure. Without negatives:
// stream mode unless znorm is needed (the positives' means differ by more than one
// within-example standard deviation: stream mode cannot normalize), dtw, no band.
SettingsChoice choose_settings(std::span<const Series> positives,
                               std::span<const Negative> negatives, const TemplateOptions& options,
                               const Given& given, std::size_t folds);

}  // namespace warpwatch::learn
