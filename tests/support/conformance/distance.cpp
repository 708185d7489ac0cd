// Conformance suite (overview: conformance.hpp): whole-series series and distance-matrix
// checks, and scenario 5, whole-series distance matrices against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Whole-series distances.

std::vector<SeriesView> views(const std::vector<Series>& s) {
  std::vector<SeriesView> v;
  for (const auto& x : s) v.push_back(x.view());
  return v;
}

// The matrix of every backend against reference::distance (within tolerance, +inf where it
// has +inf), and the backends with each other bit for bit.
void check_distance_matrix(const Backends& backends, const std::vector<Series>& a,
                           const std::vector<Series>& b, const DistanceParams& params,
                           const std::string& what) {
  const auto va = views(a), vb = views(b);
  std::vector<double> want(a.size() * b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j)
      want[i * b.size() + j] = kernels::reference::distance(va[i], vb[j], params);
  std::optional<std::vector<double>> first;
  for (const auto& backend : backends) {
    const std::string label = what + " [" + backend.name + "]";
    std::vector<double> got(want.size(), std::numeric_limits<double>::quiet_NaN());
    try {
      backend.distance_matrix(va, vb, params, got);
    } catch (const std::exception& e) {
      ADD_FAILURE() << label << ": threw " << e.what();
      continue;
    }
    std::size_t bad = 0;
    std::ostringstream list;
    for (std::size_t i = 0; i < a.size(); ++i) {
      for (std::size_t j = 0; j < b.size(); ++j) {
        const double g = got[i * b.size() + j], r = want[i * b.size() + j];
        if (within_tolerance(g, r)) continue;
        if (++bad <= 8)
          list << "  [" << i << "," << j << "] lengths " << a[i].length() << " x " << b[j].length()
               << ": got " << format_double(g) << " want " << format_double(r) << " (rel err "
               << std::abs(g - r) / magnitude(r) << ")\n";
      }
    }
    if (bad > 0)
      ADD_FAILURE() << label << ": " << bad << " of " << want.size()
                    << " distances off the reference by more than " << kRel << " relative:\n"
                    << list.str();
    if (!first) {
      first = got;
    } else if (std::memcmp(first->data(), got.data(), got.size() * sizeof(double)) != 0) {
      ADD_FAILURE() << label << ": not bit-identical to " << backends.front().name;
    }
  }
}

// =================================================================================
// Scenario 5: whole-series distance matrices.

// |A| x |B| with unequal lengths (1..300) inside A and inside B, d = 1 and 3, for one
// metric: dtw/dk with band none/0/3.5 and cost sq/abs; softdtw also with gamma 0.1/1;
// twed with nu/lambda/p variations, with and without timestamps.
void run_distance_scenario(const Backends& backends, Metric metric, std::size_t na, std::size_t nb,
                           std::size_t max_length) {
  std::mt19937_64 rng(test_seed());
  std::size_t configs = 0;
  for (std::size_t d : {1u, 3u}) {
    for (bool times : {false, true}) {
      if (times && metric != Metric::twed) continue;
      const auto a = random_series(rng, na, d, max_length, times);
      const auto b = random_series(rng, nb, d, max_length, times);
      std::vector<DistanceParams> params;
      DistanceParams base;
      base.metric = metric;
      if (metric == Metric::twed) {
        for (auto [nu, lambda, p] : {std::tuple{0.001, 1.0, 2.0}, std::tuple{0.5, 0.0, 1.0},
                                     std::tuple{0.0, 0.3, 3.0}, std::tuple{0.05, 2.0, 1.5}}) {
          DistanceParams q = base;
          q.nu = nu;
          q.lambda = lambda;
          q.p = p;
          params.push_back(q);
        }
      } else if (kernels::measure_info(metric).cells) {
        params = cell_param_sets(metric);  // measures.cpp: the same sets as scenario 9
        // and band 0 where a band applies (+inf where no path fits the lengths).
        if (kernels::measure_info(metric).band == kernels::BandUse::applies)
          for (std::size_t k = 0, n = params.size(); k < n; ++k) {
            DistanceParams q = params[k];
            q.band = 0.0;
            params.push_back(q);
          }
      } else {
        for (std::optional<double> band :
             {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{3.5}})
          for (Cost cost : {Cost::sq, Cost::abs})
            for (double gamma : {0.1, 1.0}) {
              if (metric != Metric::softdtw && gamma != 1.0) continue;
              DistanceParams q = base;
              q.band = band;
              q.cost = cost;
              q.gamma = gamma;
              params.push_back(q);
            }
      }
      for (const auto& q : params) {
        std::ostringstream what;
        what << kernels::to_string(metric) << " d=" << d << (times ? " with times" : "") << " cost "
             << kernels::to_string(q.cost) << " band " << (q.band ? format_double(*q.band) : "none")
             << " gamma " << q.gamma << " nu " << q.nu << " lambda " << q.lambda << " p " << q.p
             << " c " << q.c << " g " << q.g << " epsilon " << q.epsilon << " delta "
             << (q.delta ? std::to_string(*q.delta) : "none");
        check_distance_matrix(backends, a, b, q, what.str());
        ++configs;
      }
    }
  }
  EXPECT_GT(configs, 0u);
}

// twed with timestamps far from 0 (seconds since the epoch, as a CSV time column gives
// them): only differences of times enter docs/spec.md §4.3, and the result must still be within
// tolerance (float32 times of that size would be off by minutes).
void run_distance_twed_large_time_origin(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  for (std::size_t d : {1u, 3u}) {
    const auto a = random_series(rng, 4, d, 120, true, 1.7e9);
    const auto b = random_series(rng, 3, d, 120, true, 1.7e9);
    DistanceParams q;
    q.metric = Metric::twed;
    q.nu = 0.5;
    q.lambda = 0.5;
    check_distance_matrix(backends, a, b, q, cat("twed, times near 1.7e9 s, d=", d));
  }
}

// Empty sets give an empty matrix; mismatched dimensions, an empty series, a wrong output
// size and invalid parameters throw std::invalid_argument.
void run_distance_edge_cases(const Backend& backend) {
  std::mt19937_64 rng(test_seed());
  const auto a = random_series(rng, 3, 2, 20, false), b = random_series(rng, 2, 2, 20, false);
  const auto va = views(a), vb = views(b);
  DistanceParams q;
  std::vector<double> none;
  EXPECT_NO_THROW(backend.distance_matrix({}, vb, q, none)) << backend.name << ": empty A";
  EXPECT_NO_THROW(backend.distance_matrix(va, {}, q, none)) << backend.name << ": empty B";
  EXPECT_NO_THROW(backend.distance_matrix({}, {}, q, none)) << backend.name << ": both empty";
  std::vector<double> out(va.size() * vb.size());
  // Mismatched dimensions: A against B, and inside A.
  const auto c = random_series(rng, 2, 3, 20, false);
  const auto vc = views(c);
  std::vector<double> out_ac(va.size() * vc.size());
  EXPECT_THROW(backend.distance_matrix(va, vc, q, out_ac), std::invalid_argument)
      << backend.name << ": dims of A vs B";
  std::vector<SeriesView> mixed = va;
  mixed[1] = vc[0];
  EXPECT_THROW(backend.distance_matrix(mixed, vb, q, out), std::invalid_argument)
      << backend.name << ": dims inside A";
  std::vector<SeriesView> mixed_b = vb;
  mixed_b[0] = vc[0];
  EXPECT_THROW(backend.distance_matrix(va, mixed_b, q, out), std::invalid_argument)
      << backend.name << ": dims inside B";
  // An empty series.
  std::vector<SeriesView> with_empty = va;
  with_empty[2].length = 0;
  EXPECT_THROW(backend.distance_matrix(with_empty, vb, q, out), std::invalid_argument)
      << backend.name << ": empty series";
  // The output's size is not |A| x |B|.
  std::vector<double> small(out.size() - 1);
  EXPECT_THROW(backend.distance_matrix(va, vb, q, small), std::invalid_argument)
      << backend.name << ": output size";
  // Invalid parameters.
  for (int k = 0; k < 4; ++k) {
    DistanceParams bad;
    if (k == 0) {
      bad.metric = Metric::softdtw;
      bad.gamma = 0.0;
    }
    if (k == 1) {
      bad.metric = Metric::twed;
      bad.p = 0.5;
    }
    if (k == 2) {
      bad.metric = Metric::dtw;
      bad.band = -1.0;
    }
    if (k == 3) {
      bad.metric = Metric::twed;
      bad.nu = -0.1;
    }
    EXPECT_THROW(backend.distance_matrix(va, vb, bad, out), std::invalid_argument)
        << backend.name << ": invalid params " << k;
  }
  // Single samples, and a matrix that is right after all those errors.
  const auto one = random_series(rng, 2, 2, 1, false);
  check_distance_matrix({backend}, one, b, q, "single samples");
  check_distance_matrix({backend}, a, b, q, "after errors");
}

}  // namespace warpwatch::testing::conformance
