// docs/spec.md §8 for one pattern, start to end: its settings chosen (those not given), its
// template built, its positives scored held out, its threshold table over the negatives and
// the threshold chosen. What `POST /api/v1/learn` (daemon/service/http/job_routes.cpp) and
// `warpwatch learn` (daemon/cli/verbs/learn/) run.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "warpwatch/learn/settings.hpp"

namespace warpwatch::learn {

struct Fit {
  SettingsChoice choice;         // settings given whole (FitOptions::settings): why is empty
  std::vector<Series> prepared;  // the examples under the settings (learn::prepared)
  TemplateResult built;
  std::vector<double> scores;      // each positive's held-out score
  std::vector<double> thresholds;  // the candidates (candidate_thresholds): the table's rows
  std::vector<ThresholdRow> table;
  Choice chosen;
  double threshold() const { return table[chosen.row].threshold; }
};

// The phases, each reported when done with the fit so far: `settings` (choice), `templates`
// (prepared, built), `held_out` (scores), `table` (thresholds, table; the threshold not yet
// chosen).
enum class Phase { settings, templates, held_out, table };

struct FitOptions {
  TemplateOptions options;  // kind, gamma, backend (band: set from the settings)
  Given given;
  // Settings given whole (several classes sharing the first class's): not chosen, `given`
  // unused.
  std::optional<MatchSettings> settings;
  std::size_t folds = 10;  // at most one per positive (leave-one-out)
  Target target;
  kernels::Backend backend = kernels::Backend::cpu;  // the threshold table's Matcher
  // Called after each phase with the fit so far: may throw to stop (a time limit, a check of
  // what the phase made).
  std::function<void(Phase, const Fit&)> after_phase;
};

// std::invalid_argument for no examples or examples of different dims; NoThreshold
// (choose_threshold's) when no row meets the target; what after_phase throws.
Fit fit_pattern(std::span<const Series> examples, std::span<const Negative> negatives,
                const FitOptions& options);

}  // namespace warpwatch::learn
