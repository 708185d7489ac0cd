// docs/spec.md §8 for one pattern, start to end: its settings chosen (those not given), its
// template built, its positives scored held out, its threshold table over the negatives and
// the threshold chosen. What `POST /api/v1/learn` runs (daemon/service/http/job_routes.cpp).
#pragma once

#include <functional>
#include <span>
#include <vector>

#include "warpwatch/learn/settings.hpp"

namespace warpwatch::learn {

struct FitOptions {
  TemplateOptions options;  // kind, gamma, backend (band: set from the settings chosen)
  Given given;
  std::size_t folds = 10;  // at most one per positive (leave-one-out)
  Target target;
  kernels::Backend backend = kernels::Backend::cpu;  // the threshold table's Matcher
  // Called between the phases (after the settings, the template, the held-out scores): may
  // throw to stop (a time limit).
  std::function<void()> between_phases;
};

struct Fit {
  SettingsChoice choice;
  TemplateResult built;
  std::vector<double> scores;  // each positive's held-out score
  std::vector<ThresholdRow> table;
  Choice chosen;
  double threshold() const { return table[chosen.row].threshold; }
};

// std::invalid_argument for no examples or examples of different dims; std::runtime_error
// (choose_threshold's) when no row meets the target.
Fit fit_pattern(std::span<const Series> examples, std::span<const Negative> negatives,
                const FitOptions& options);

}  // namespace warpwatch::learn
