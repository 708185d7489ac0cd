// One pattern learnt start to end (fit.hpp).
#include "warpwatch/learn/fit.hpp"

#include <algorithm>

namespace warpwatch::learn {

Fit fit_pattern(std::span<const Series> examples, std::span<const Negative> negatives,
                const FitOptions& o) {
  const auto phase_done = [&] {
    if (o.between_phases) o.between_phases();
  };
  const std::size_t folds = std::clamp<std::size_t>(o.folds, 1, examples.size());
  Fit fit;
  fit.choice =
      choose_settings(examples, negatives, o.options, o.given, std::min<std::size_t>(folds, 5));
  phase_done();
  const MatchSettings& s = fit.choice.settings;
  const auto prepared_examples = prepared(examples, s);
  TemplateOptions options = o.options;
  options.band = template_band(s, prepared_examples);
  fit.built = build_template(prepared_examples, options);
  phase_done();
  fit.scores = held_out_scores(prepared_examples, options, s, folds);
  phase_done();
  const auto thresholds = candidate_thresholds(fit.scores);
  fit.table = threshold_table(fit.built.series, fit.scores, negatives, s, thresholds, o.backend);
  fit.chosen = choose_threshold(fit.table, o.target, !negatives.empty());
  return fit;
}

}  // namespace warpwatch::learn
