// docs/spec.md §8: the thresholds of several classes calibrated together for the nearest
// template (docs/spec.md §5.1), on the training table of that decision itself.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace warpwatch::learn {

// One class's column of the training table.
struct ClassColumn {
  std::vector<double> thresholds;  // its candidate thresholds, ascending
  // Events over the background negatives at each candidate threshold (false alarms of this
  // class whatever the decision; zeros without background).
  std::vector<std::size_t> background_false;
  // This class's template against every training series (all classes' series in one order):
  // its own class's series held out (the held-out scores), the others against the template.
  std::vector<double> distances;
};

struct JointClassRow {
  std::size_t row = 0;               // the chosen candidate
  std::size_t found = 0, wrong = 0;  // own series assigned to it; other series and background
  double recall = 0.0, precision = 0.0, f1 = 0.0;
};
struct JointChoice {
  std::vector<JointClassRow> classes;
  double mean_f1 = 0.0;
  std::size_t rounds = 0;
};

// The nearest-template decision on the training series: series i goes to the class c of least
// distances[i] / threshold among those with distances[i] <= threshold (ties: the earlier
// class), or to none. Each class's F1 counts its own series assigned to it as found, other
// classes' series assigned to it and its background events as false alarms. The thresholds
// maximize the mean F1 over the classes: from each class's own best row (its column alone),
// each class's threshold in turn set to its best given the others', until a round changes
// nothing (at most 20 rounds; ties keep the current threshold, then the smaller).
// `label_of[i]`: the class of training series i. std::invalid_argument when the columns do not
// fit (sizes, a class without a candidate).
JointChoice choose_jointly(std::span<const ClassColumn> classes,
                           std::span<const std::size_t> label_of);

}  // namespace warpwatch::learn
