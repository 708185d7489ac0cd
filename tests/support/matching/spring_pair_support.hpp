// One (stream, pattern) pair's stream-mode run through the scalar reference, and the dense
// streams the single-pair kernel suites test with (a noisy copy of the pattern every 60-200
// samples): tests/kernels/cpu/test_spring_diagonal.cpp and
// tests/kernels/cuda_host/test_spring_sweep.cpp compare their kernels' reports with these.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

// Indices as the backends keep them: low 32 bits, unwrapped against the absolute index
// `current`, which is at or after them.
inline std::uint64_t unwrap_low32(std::uint64_t current, std::int32_t low) {
  return current - static_cast<std::uint32_t>(static_cast<std::uint32_t>(current) -
                                              static_cast<std::uint32_t>(low));
}

// A backend's match (start and end as low 32 bits) known at absolute sample `now`, with
// indices counted from `first_index` and found after `at` samples of the stream.
inline Found low32_found(float distance, std::int32_t t_s, std::int32_t t_e, std::uint64_t now,
                         std::uint64_t first_index, std::uint64_t at) {
  return {distance, unwrap_low32(now, t_s) - first_index, unwrap_low32(now, t_e) - first_index, at};
}

// One single-pair case of the kernel suites: a pattern (m x dims), its stream, a metric,
// cost and threshold, and the reference's matches there.
struct PairCase {
  const std::vector<float>& pattern;
  const std::vector<float>& x;
  std::size_t dims, m;
  Metric metric;
  Cost cost;
  double eps;
  const std::vector<Found>& want;
  std::size_t length() const { return x.size() / dims; }
  std::string describe() const {
    std::ostringstream os;
    os << "d " << dims << " m " << m << " " << warpwatch::kernels::to_string(metric) << " "
       << warpwatch::kernels::to_string(cost) << " eps " << eps;
    return os.str();
  }
};

// Calls f(const PairCase&) for every metric and cost of the given pattern and stream, at
// threshold eps(metric, cost), until a fatal failure; returns the reference's matches.
template <typename Eps, typename F>
std::size_t each_metric_case(const std::vector<float>& pattern, const std::vector<float>& x,
                             std::size_t dims, Eps&& eps_of, F&& f) {
  std::size_t matches = 0;
  for (Metric metric : {Metric::dtw, Metric::dk}) {
    for (Cost cost : {Cost::sq, Cost::abs}) {
      const double eps = eps_of(metric, cost);
      const std::vector<Found> want = reference_run(pattern, dims, metric, cost, eps, x);
      matches += want.size();
      f(PairCase{pattern, x, dims, pattern.size() / dims, metric, cost, eps, want});
      if (::testing::Test::HasFatalFailure()) return matches;
    }
  }
  return matches;
}

// Dense cases: for each dims and m, a random-walk pattern and a dense stream of it (6000
// samples at d 1, 2500 otherwise), every metric and cost at dense_threshold.
template <typename F>
std::size_t each_dense_case(std::mt19937_64& rng, std::initializer_list<std::size_t> dims_list,
                            std::initializer_list<std::size_t> ms, F&& f) {
  std::size_t matches = 0;
  for (std::size_t dims : dims_list) {
    for (std::size_t m : ms) {
      const std::vector<float> pattern = walk_pattern(rng, m, dims);
      const std::vector<float> x = dense_stream(rng, pattern, dims, dims == 1 ? 6000 : 2500);
      matches += each_metric_case(
          pattern, x, dims,
          [&](Metric metric, Cost cost) { return dense_threshold(pattern, dims, metric, cost, x); },
          f);
      if (::testing::Test::HasFatalFailure()) return matches;
    }
  }
  return matches;
}

// Quantized cases (values 0..3: exact ties everywhere, and candidates that change and
// become final within a few columns of each other): for each dims and m, a pattern and
// 3000 samples, every metric and cost.
template <typename F>
std::size_t each_quantized_case(std::mt19937_64& rng, std::initializer_list<std::size_t> dims_list,
                                std::initializer_list<std::size_t> ms, F&& f) {
  std::uniform_int_distribution<int> level(0, 3);
  std::size_t matches = 0;
  for (std::size_t dims : dims_list) {
    for (std::size_t m : ms) {
      std::vector<float> pattern(m * dims), x(3000 * dims);
      for (auto& v : pattern) v = static_cast<float>(level(rng));
      for (auto& v : x) v = static_cast<float>(level(rng));
      matches += each_metric_case(
          pattern, x, dims,
          [&](Metric metric, Cost) {
            return metric == Metric::dtw ? 0.5 * static_cast<double>(m * dims) : 1.0 + (m % 2);
          },
          f);
      if (::testing::Test::HasFatalFailure()) return matches;
    }
  }
  return matches;
}

}  // namespace warpwatch::testing
