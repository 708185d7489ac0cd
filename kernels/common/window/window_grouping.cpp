#include "common/window/window_grouping.hpp"

#include <algorithm>
#include <cmath>

namespace warpwatch::kernels::common {

ComponentMoments component_moments(const float* values, std::size_t n, std::size_t dims,
                                   std::size_t k) {
  ComponentMoments c;
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += values[i * dims + k];
    c.largest = std::max(c.largest, std::fabs(static_cast<double>(values[i * dims + k])));
  }
  c.mean = sum / static_cast<double>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double dev = values[i * dims + k] - c.mean;
    c.m2 += dev * dev;
  }
  return c;
}

double znorm_scale(double m2, std::size_t n) {
  const double std = std::sqrt(std::max(m2, 0.0) / static_cast<double>(n));
  return std < 1e-8 ? 0.0 : 1.0 / std;
}

bool znormalize(std::vector<float>& values, std::size_t dims) {
  const std::size_t n = values.size() / dims;
  std::vector<double> mean(dims, 0.0), scale(dims, 0.0);
  for (std::size_t k = 0; k < dims; ++k) {
    const ComponentMoments c = component_moments(values.data(), n, dims, k);
    mean[k] = c.mean;
    scale[k] = znorm_scale(c.m2, n);
    if (scale[k] == 0.0) return false;
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
