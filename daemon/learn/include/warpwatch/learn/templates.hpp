// docs/spec.md §8: a template from positive examples (medoid, DBA, soft-DTW barycenter).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::learn {

enum class TemplateKind { medoid, dba, softdtw };
std::string_view to_string(TemplateKind kind);
std::optional<TemplateKind> parse_template_kind(std::string_view name);

// One example or template: length x dims values, row-major.
struct Series {
  std::vector<float> values;
  std::size_t dims = 1;
  std::size_t length() const { return dims ? values.size() / dims : 0; }
  kernels::SeriesView view() const { return {values.data(), length(), dims, nullptr}; }
};

struct TemplateOptions {
  TemplateKind kind = TemplateKind::dba;
  std::optional<double> band;  // Sakoe-Chiba radius of the dtw (and soft-DTW) alignments
  double gamma = 1.0;          // softdtw
  std::size_t max_iterations = 30;
  double tolerance = 1e-6;  // stop when the summed distance decreases by less (relative)
  kernels::Backend backend =
      kernels::Backend::automatic;  // softdtw's gradients, the medoid's matrix
};

struct TemplateResult {
  Series series;           // the template: the medoid's length
  std::size_t medoid = 0;  // index of the medoid among the examples
  // The summed distance after each iteration, [0] the medoid's: dtw (medoid, dba; float64
  // reference) or the soft-DTW divergence (softdtw). Never increases.
  std::vector<double> objective;
};

// The example of least summed dtw distance to the others (ties: the first), float64.
std::size_t medoid(std::span<const Series> examples, std::optional<double> band,
                   kernels::Backend backend = kernels::Backend::cpu);

// Throws std::invalid_argument for no examples or examples of different dims.
TemplateResult build_template(std::span<const Series> examples, const TemplateOptions& options);

// The summed soft-DTW divergence sum_k sdtw(z, P_k) - (sdtw(z, z) + sdtw(P_k, P_k)) / 2.
double softdtw_divergence_sum(const Series& z, std::span<const Series> examples, double gamma,
                              std::optional<double> band);

// Each sample's components minus their mean, over their standard deviation (population), as
// window mode's znorm (docs/spec.md §3.2); a flat component is left at 0.
Series znormed(const Series& s);

}  // namespace warpwatch::learn
