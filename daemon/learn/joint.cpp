// docs/spec.md §8: several classes' thresholds chosen together.
#include "warpwatch/learn/joint.hpp"

#include <stdexcept>

namespace warpwatch::learn {
namespace {

constexpr std::size_t kAbsent = ~std::size_t{0};  // a class left out of the decision

// The decision under `rows` (kAbsent: the class takes no series) and each class's F1.
JointChoice decide(std::span<const ClassColumn> classes, std::span<const std::size_t> label_of,
                   const std::vector<std::size_t>& rows) {
  const std::size_t k = classes.size();
  JointChoice out;
  out.classes.resize(k);
  std::vector<std::size_t> own(k, 0);
  for (std::size_t i = 0; i < label_of.size(); ++i) {
    ++own[label_of[i]];
    std::size_t best = kAbsent;
    double best_ratio = 0.0;
    for (std::size_t c = 0; c < k; ++c) {
      if (rows[c] == kAbsent) continue;
      const double t = classes[c].thresholds[rows[c]];
      const double d = classes[c].distances[i];
      if (!(d <= t)) continue;
      const double ratio = t > 0 ? d / t : 0.0;
      if (best == kAbsent || ratio < best_ratio) best = c, best_ratio = ratio;
    }
    if (best == kAbsent) continue;
    if (best == label_of[i])
      ++out.classes[best].found;
    else
      ++out.classes[best].wrong;
  }
  for (std::size_t c = 0; c < k; ++c) {
    auto& r = out.classes[c];
    r.row = rows[c];
    if (rows[c] != kAbsent) r.wrong += classes[c].background_false[rows[c]];
    r.recall = own[c] ? static_cast<double>(r.found) / own[c] : 0.0;
    r.precision = r.found + r.wrong ? static_cast<double>(r.found) / (r.found + r.wrong) : 1.0;
    r.f1 = r.recall + r.precision > 0 ? 2 * r.recall * r.precision / (r.recall + r.precision) : 0.0;
  }
  return out;
}

double mean_f1(const JointChoice& j) {
  double sum = 0.0;
  for (const auto& c : j.classes) sum += c.f1;
  return j.classes.empty() ? 0.0 : sum / static_cast<double>(j.classes.size());
}

}  // namespace

JointChoice choose_jointly(std::span<const ClassColumn> classes,
                           std::span<const std::size_t> label_of) {
  const std::size_t k = classes.size();
  for (std::size_t c = 0; c < k; ++c) {
    if (classes[c].thresholds.empty())
      throw std::invalid_argument("class " + std::to_string(c) + " has no candidate threshold");
    if (classes[c].background_false.size() != classes[c].thresholds.size() ||
        classes[c].distances.size() != label_of.size())
      throw std::invalid_argument("class " + std::to_string(c) + "'s column does not fit");
  }
  for (const std::size_t l : label_of)
    if (l >= k) throw std::invalid_argument("a training series of no class");
  // The start: each class's best row with the others left out.
  std::vector<std::size_t> rows(k, kAbsent);
  for (std::size_t c = 0; c < k; ++c) {
    std::vector<std::size_t> alone(k, kAbsent);
    double best = -1.0;
    for (std::size_t r = 0; r < classes[c].thresholds.size(); ++r) {
      alone[c] = r;
      const double f1 = decide(classes, label_of, alone).classes[c].f1;
      if (f1 > best) best = f1, rows[c] = r;
    }
  }
  double current = mean_f1(decide(classes, label_of, rows));
  std::size_t rounds = 0;
  for (bool changed = true; changed && rounds < 20; ++rounds) {
    changed = false;
    for (std::size_t c = 0; c < k; ++c) {
      std::vector<std::size_t> trial = rows;
      for (std::size_t r = 0; r < classes[c].thresholds.size(); ++r) {
        trial[c] = r;
        const double f1 = mean_f1(decide(classes, label_of, trial));
        if (f1 > current) current = f1, rows[c] = r, changed = true;
      }
    }
  }
  JointChoice out = decide(classes, label_of, rows);
  out.mean_f1 = mean_f1(out);
  out.rounds = rounds;
  return out;
}

}  // namespace warpwatch::learn
