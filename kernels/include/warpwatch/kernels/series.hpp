// A read-only view of a multivariate series: the unit every kernel reads.
#pragma once

#include <cstddef>

namespace warpwatch::kernels {

// n samples of dimension d, row-major: sample i is values[i*d .. i*d + d).
// Values are float32 as in docs/spec.md §1. `times` (seconds, optional) is used by twed only;
// without it sample i is at time i (docs/spec.md §4.3).
struct SeriesView {
  const float* values = nullptr;
  std::size_t length = 0;
  std::size_t dims = 1;
  const double* times = nullptr;

  const float* sample(std::size_t i) const { return values + i * dims; }
  double time(std::size_t i) const { return times ? times[i] : static_cast<double>(i); }
};

}  // namespace warpwatch::kernels
