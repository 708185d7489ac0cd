// One pattern learnt start to end (fit.hpp).
#include "warpwatch/learn/fit.hpp"

#include <algorithm>

namespace warpwatch::learn {

Fit fit_pattern(std::span<const Series> examples, std::span<const Negative> negatives,
                const FitOptions& o) {
  Fit fit;
  const auto done = [&](Phase phase) {
    if (o.after_phase) o.after_phase(phase, fit);
  };
  const std::size_t folds = std::clamp<std::size_t>(o.folds, 1, examples.size());
  if (o.settings)
    fit.choice.settings = *o.settings;
  else
    fit.choice =
        choose_settings(examples, negatives, o.options, o.given, std::min<std::size_t>(folds, 5));
  done(Phase::settings);
  const MatchSettings& s = fit.choice.settings;
  fit.prepared = prepared(examples, s);
  TemplateOptions options = o.options;
  options.band = template_band(s, fit.prepared);
  fit.built = build_template(fit.prepared, options);
  done(Phase::templates);
  fit.scores = held_out_scores(fit.prepared, options, s, folds);
  done(Phase::held_out);
  fit.thresholds = candidate_thresholds(fit.scores);
  fit.table =
      threshold_table(fit.built.series, fit.scores, negatives, s, fit.thresholds, o.backend);
  done(Phase::table);
  fit.chosen = choose_threshold(fit.table, o.target, !negatives.empty());
  return fit;
}

}  // namespace warpwatch::learn
