#include "window_grouping.hpp"

#include <cmath>

namespace warpwatch::kernels::common {

bool znormalize(std::vector<float>& values, std::size_t dims) {
  const std::size_t n = values.size() / dims;
  std::vector<double> mean(dims, 0.0), scale(dims, 0.0);
  for (std::size_t k = 0; k < dims; ++k) {
    double sum = 0.0;
    for (std::size_t i = 0; i < n; ++i) sum += values[i * dims + k];
    mean[k] = sum / static_cast<double>(n);
    double var = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      const double dev = values[i * dims + k] - mean[k];
      var += dev * dev;
    }
    const double std = std::sqrt(var / static_cast<double>(n));
    if (std < 1e-8) return false;
    scale[k] = 1.0 / std;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < dims; ++k)
      values[i * dims + k] = static_cast<float>((values[i * dims + k] - mean[k]) * scale[k]);
  return true;
}

std::vector<double> pattern_times(const PatternDef& pattern, std::int64_t nominal_period_ns) {
  if (!pattern.times.empty()) return pattern.times;
  const double period_s = static_cast<double>(nominal_period_ns) * 1e-9;
  std::vector<double> times(pattern.length());
  for (std::size_t i = 0; i < times.size(); ++i) times[i] = static_cast<double>(i) * period_s;
  return times;
}

}  // namespace warpwatch::kernels::common
