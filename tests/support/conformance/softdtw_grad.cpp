// Conformance suite (overview: conformance.hpp): scenario 7, softdtw's gradient matrices
// against reference::softdtw_grad.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"

namespace warpwatch::testing::conformance {
namespace {

// Every pair's reference gradient, laid out as softdtw_grad_matrix writes them.
std::vector<double> reference_grads(const std::vector<SeriesView>& va,
                                    const std::vector<SeriesView>& vb,
                                    const DistanceParams& params) {
  std::vector<double> all, grad;
  for (const SeriesView& x : va)
    for (const SeriesView& y : vb) {
      kernels::reference::softdtw_grad(x, y, params.cost, params.gamma, params.band, grad);
      all.insert(all.end(), grad.begin(), grad.end());
    }
  return all;
}

Series walk_of(std::mt19937_64& rng, std::size_t length, std::size_t dims) {
  Series s;
  s.dims = dims;
  s.values = random_walk(rng, length, dims, 0.5f);
  return s;
}

}  // namespace

GradBackend dispatched_grad(kernels::Backend backend, kernels::BackendOptions options) {
  return GradBackend{
      cat("softdtw_grad_matrix backend ", kernels::to_string(backend)),
      [backend, options](std::span<const SeriesView> a, std::span<const SeriesView> b,
                         const DistanceParams& params, std::span<double> out) {
        kernels::softdtw_grad_matrix(backend, a, b, params, out, options);
      }};
}

double check_softdtw_grad(const GradBackends& backends, const std::vector<Series>& a,
                          const std::vector<Series>& b, const DistanceParams& params,
                          const std::string& what) {
  const auto va = views(a), vb = views(b);
  const std::vector<double> want = reference_grads(va, vb, params);
  double worst = 0.0;
  std::optional<std::vector<double>> first;
  for (const auto& backend : backends) {
    const std::string label = what + " [" + backend.name + "]";
    std::vector<double> got(want.size(), std::numeric_limits<double>::quiet_NaN());
    try {
      backend.grad(va, vb, params, got);
    } catch (const std::exception& e) {
      ADD_FAILURE() << label << ": threw " << e.what();
      continue;
    }
    std::size_t bad = 0, offset = 0;
    std::ostringstream list;
    for (std::size_t i = 0; i < a.size(); ++i) {
      const std::size_t size = a[i].values.size();
      for (std::size_t j = 0; j < b.size(); ++j, offset += size) {
        double scale = 0.0;
        for (std::size_t t = 0; t < size; ++t) scale = std::max(scale, std::abs(want[offset + t]));
        for (std::size_t t = 0; t < size; ++t) {
          const double g = got[offset + t], r = want[offset + t];
          const double err = scale > 0 ? std::abs(g - r) / scale : (g == 0.0 ? 0.0 : 1.0);
          if (!std::isnan(err)) worst = std::max(worst, err);
          if (err <= kGradRel) continue;  // false for NaN
          if (++bad <= 8)
            list << "  pair [" << i << "," << j << "] lengths " << a[i].length() << " x "
                 << b[j].length() << " component " << t << ": got " << format_double(g) << " want "
                 << format_double(r) << " (pair scale " << format_double(scale) << ")\n";
        }
      }
    }
    if (bad > 0)
      ADD_FAILURE() << label << ": " << bad << " of " << want.size()
                    << " gradient components off the reference by more than " << kGradRel
                    << " of their pair's largest:\n"
                    << list.str();
    if (!first) {
      first = got;
    } else if (std::memcmp(first->data(), got.data(), got.size() * sizeof(double)) != 0) {
      ADD_FAILURE() << label << ": not bit-identical to " << backends.front().name;
    }
  }
  return worst;
}

void run_softdtw_grad_scenario(const GradBackends& backends, std::size_t na, std::size_t nb,
                               std::size_t max_length) {
  max_length =
      std::max<std::size_t>(std::min<std::size_t>(max_length, 16), max_length / test_shrink());
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> length(1, max_length);
  std::size_t configs = 0;
  double worst = 0.0;
  for (std::size_t d : {1u, 3u}) {
    for (Cost cost : {Cost::sq, Cost::abs}) {
      std::vector<Series> a, b;
      for (std::size_t i = 0; i < na; ++i)
        a.push_back(walk_of(rng, i == 0 ? max_length : i == 1 ? 1 : length(rng), d));
      // B: one of max_length, one of 1, then 9 of one length (a full group of 8 lanes and
      // one more: AVX-512's doubles), the rest of another.
      const std::size_t l1 = length(rng), l2 = length(rng);
      for (std::size_t j = 0; j < nb; ++j)
        b.push_back(walk_of(rng, j == 0 ? max_length : j == 1 ? 1 : j < 11 ? l1 : l2, d));
      std::shuffle(a.begin(), a.end(), rng);
      std::shuffle(b.begin(), b.end(), rng);
      for (double gamma : {0.01, 0.1, 1.0, 10.0}) {
        for (std::optional<double> band :
             {std::optional<double>{}, std::optional<double>{0.0}, std::optional<double>{3.5},
              std::optional<double>{20.0}}) {
          DistanceParams q;
          q.metric = Metric::softdtw;
          q.cost = cost;
          q.gamma = gamma;
          q.band = band;
          const std::string what =
              cat("softdtw gradient d=", d, " cost ", kernels::to_string(cost), " gamma ", gamma,
                  " band ", band ? format_double(*band) : std::string("none"));
          worst = std::max(worst, check_softdtw_grad(backends, a, b, q, what));
          ++configs;
        }
      }
    }
  }
  std::cout << "[ grad     ] " << configs << " configurations, largest error "
            << format_double(worst) << " of the pair's largest component\n";
  EXPECT_EQ(configs, 64u);
}

void run_softdtw_grad_edge_cases(const GradBackend& backend) {
  std::mt19937_64 rng(test_seed());
  const std::vector<Series> a{walk_of(rng, 5, 2), walk_of(rng, 3, 2)};
  const std::vector<Series> b{walk_of(rng, 4, 2), walk_of(rng, 6, 2)};
  const auto va = views(a), vb = views(b);
  DistanceParams q;
  q.metric = Metric::softdtw;
  std::vector<double> none;
  EXPECT_NO_THROW(backend.grad({}, vb, q, none)) << backend.name << ": empty A";
  EXPECT_NO_THROW(backend.grad(va, {}, q, none)) << backend.name << ": empty B";
  std::vector<double> out((5 + 3) * 2 * 2);
  DistanceParams dtw = q;
  dtw.metric = Metric::dtw;
  EXPECT_THROW(backend.grad(va, vb, dtw, out), std::invalid_argument) << backend.name << ": dtw";
  DistanceParams bad = q;
  bad.gamma = 0.0;
  EXPECT_THROW(backend.grad(va, vb, bad, out), std::invalid_argument) << backend.name << ": gamma";
  const std::vector<Series> c{walk_of(rng, 4, 3)};
  const auto vc = views(c);
  std::vector<double> out_ac((5 + 3) * 2 * 1);
  EXPECT_THROW(backend.grad(va, vc, q, out_ac), std::invalid_argument)
      << backend.name << ": dims of A vs B";
  std::vector<SeriesView> with_empty = va;
  with_empty[1].length = 0;
  std::vector<double> out_empty(5 * 2 * 2);
  EXPECT_THROW(backend.grad(with_empty, vb, q, out_empty), std::invalid_argument)
      << backend.name << ": empty series";
  std::vector<double> small(out.size() - 1);
  EXPECT_THROW(backend.grad(va, vb, q, small), std::invalid_argument)
      << backend.name << ": output size";
  // And a right answer after all those errors.
  check_softdtw_grad({backend}, a, b, q, "after errors");
}

}  // namespace warpwatch::testing::conformance
