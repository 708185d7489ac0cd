// One (stream, pattern) pair's stream-mode run through the scalar reference, and the dense
// streams the single-pair kernel suites test with (a noisy copy of the pattern every 60-200
// samples): tests/kernels/cpu/test_spring_diagonal.cpp and
// tests/kernels/cuda_host/test_spring_sweep.cpp compare their kernels' reports with these.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <ostream>
#include <random>
#include <vector>

#include "reference/spring.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::testing {

using warpwatch::kernels::Cost;
using warpwatch::kernels::Metric;

struct Found {
  float distance;
  std::uint64_t start, end;
  std::uint64_t at;  // the sample whose column made it final (the stream's length: flush)
  bool operator==(const Found& o) const {
    return std::bit_cast<std::uint32_t>(distance) == std::bit_cast<std::uint32_t>(o.distance) &&
           start == o.start && end == o.end && at == o.at;
  }
};

inline std::ostream& operator<<(std::ostream& os, const Found& f) {
  return os << "{" << f.distance << ", " << f.start << ".." << f.end << " at " << f.at << "}";
}

// A pattern of m x dims samples: a random walk of unit steps per dimension.
inline std::vector<float> walk_pattern(std::mt19937_64& rng, std::size_t m, std::size_t dims) {
  std::normal_distribution<float> walk(0.0f, 1.0f);
  std::vector<float> pattern(m * dims);
  std::vector<float> at(dims, 0.0f);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t k = 0; k < dims; ++k) pattern[i * dims + k] = at[k] += walk(rng);
  return pattern;
}

// A random walk with a noisy copy of `pattern` every 60-200 samples (gaps of walk between).
inline std::vector<float> dense_stream(std::mt19937_64& rng, const std::vector<float>& pattern,
                                       std::size_t dims, std::size_t length) {
  std::normal_distribution<float> noise(0.0f, 0.1f), step(0.0f, 0.3f);
  std::uniform_int_distribution<std::size_t> gap(0, 140);
  const std::size_t m = pattern.size() / dims;
  std::vector<float> x;
  std::vector<float> at(dims, 0.0f);
  while (x.size() < length * dims) {
    for (std::size_t g = gap(rng) + (m < 60 ? 60 - m : 0); g > 0; --g)
      for (std::size_t k = 0; k < dims; ++k) x.push_back(at[k] += step(rng));
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t k = 0; k < dims; ++k)
        x.push_back(at[k] = pattern[i * dims + k] + noise(rng));
  }
  x.resize(length * dims);
  return x;
}

inline std::vector<Found> reference_run(const std::vector<float>& pattern, std::size_t dims,
                                        Metric metric, Cost cost, double eps,
                                        const std::vector<float>& x) {
  warpwatch::kernels::reference::SpringPair pair(pattern.data(), pattern.size() / dims, dims,
                                                 metric, cost, eps);
  std::vector<Found> out;
  const std::size_t n = x.size() / dims;
  for (std::size_t t = 0; t < n; ++t)
    if (auto r = pair.step(x.data() + t * dims, t))
      out.push_back({r->distance, r->start_index, r->end_index, t});
  if (auto r = pair.flush()) out.push_back({r->distance, r->start_index, r->end_index, n});
  return out;
}

// The threshold that makes about every planted copy a match: a little above the median
// of the reference's best distances at a generous threshold.
inline double dense_threshold(const std::vector<float>& pattern, std::size_t dims, Metric metric,
                              Cost cost, const std::vector<float>& x) {
  std::vector<Found> loose = reference_run(pattern, dims, metric, cost, 1e30, x);
  std::vector<float> best;
  for (const auto& f : loose) best.push_back(f.distance);
  if (best.empty()) return 1.0;
  std::nth_element(best.begin(), best.begin() + best.size() / 2, best.end());
  return 1.5 * best[best.size() / 2] + 1e-6;
}

}  // namespace warpwatch::testing
