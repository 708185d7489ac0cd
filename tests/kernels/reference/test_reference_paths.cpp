// kernels::reference::warping_path and edit_path (docs/spec.md §7): the paths and edit
// operations that explanations are made of. warping_path's distance is dtw()'s and dk()'s in
// float64, and in float32 the SPRING cell's value; edit_path's costs, summed in path order,
// give distance() bit for bit (msm: per component, then summed; lcss: L).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;
using namespace warpwatch::testing;

namespace {

DistanceParams params_of(Metric metric, Cost cost, std::optional<double> band) {
  DistanceParams p;
  p.metric = metric;
  p.cost = cost;
  p.band = band;
  return p;
}

TEST(ReferencePaths, WarpingPathInFloat64IsDtwAndDkBitForBitAndItsCostsAccumulateToIt) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> length(2, 30);
  for (int round = 0; round < 200; ++round) {
    const std::size_t dims = 1 + round % 3, n = length(rng), m = length(rng);
    const auto a = random_values(rng, n * dims), b = random_values(rng, m * dims);
    const SeriesView va{a.data(), n, dims}, vb{b.data(), m, dims};
    const Metric metric = round % 2 ? Metric::dtw : Metric::dk;
    const Cost cost = round % 4 < 2 ? Cost::sq : Cost::abs;
    const std::optional<double> band =
        round % 5 == 0 ? std::optional<double>(static_cast<double>(round % 4)) : std::nullopt;
    const auto params = params_of(metric, cost, band);
    const double want = reference::distance(va, vb, params);
    for (const auto ties : {reference::PathTies::a_is_stream, reference::PathTies::b_is_stream}) {
      const auto path =
          reference::warping_path(va, vb, params, reference::Arithmetic::float64, ties);
      EXPECT_EQ(std::bit_cast<std::uint64_t>(path.distance), std::bit_cast<std::uint64_t>(want))
          << round;
      if (!std::isfinite(want)) {
        EXPECT_TRUE(path.steps.empty()) << round;
        continue;
      }
      double total = 0;
      for (const auto& s : path.steps)
        total = metric == Metric::dtw ? total + s.cost : std::max(total, s.cost);
      EXPECT_EQ(total, want) << round;
      EXPECT_EQ(path.steps.front().i + path.steps.front().j, 0u);
      EXPECT_EQ(path.steps.back().i, n - 1);
      EXPECT_EQ(path.steps.back().j, m - 1);
    }
  }
}

TEST(ReferencePaths, TiesGoToTheStreamsSampleBeforeThePatternsRow) {
  // Every cell costs 0: each predecessor ties, and §3.1's first, (t, i-1), wins every time.
  const std::vector<float> a(3, 1.0f), b(3, 1.0f);
  const auto params = params_of(Metric::dtw, Cost::sq, std::nullopt);
  const auto stream_b =
      reference::warping_path({a.data(), 3, 1}, {b.data(), 3, 1}, params,
                              reference::Arithmetic::float32, reference::PathTies::b_is_stream);
  // b is the stream: back from (2,2) the move (row-1, t) comes first: down the rows of a.
  std::vector<std::pair<std::size_t, std::size_t>> got;
  for (const auto& s : stream_b.steps) got.emplace_back(s.i, s.j);
  EXPECT_EQ(got, (std::vector<std::pair<std::size_t, std::size_t>>{
                     {0, 0}, {0, 1}, {0, 2}, {1, 2}, {2, 2}}));
}

TEST(ReferencePaths, FmaArithmeticFusesEachStepAndTakesOneDimension) {
  const std::vector<float> a = {0.1f, 0.7f, 0.3f}, b = {0.2f, 0.5f, 0.4f, 0.3f};
  const auto params = params_of(Metric::dtw, Cost::sq, std::nullopt);
  const auto path =
      reference::warping_path({a.data(), 3, 1}, {b.data(), 4, 1}, params,
                              reference::Arithmetic::float32_fma, reference::PathTies::b_is_stream);
  float total = 0;
  for (const auto& s : path.steps) {
    const float d = a[s.i] - b[s.j];
    total = std::fma(d, d, total);
  }
  EXPECT_EQ(std::bit_cast<std::uint32_t>(static_cast<float>(path.distance)),
            std::bit_cast<std::uint32_t>(total));
  const std::vector<float> two(6, 0.0f);
  EXPECT_THROW(
      reference::warping_path({two.data(), 3, 2}, {two.data(), 3, 2}, params,
                              reference::Arithmetic::float32_fma, reference::PathTies::b_is_stream),
      std::invalid_argument);
}

TEST(ReferencePaths, EditOperationsSumToTheDistanceBitForBit) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> length(2, 20);
  for (int round = 0; round < 160; ++round) {
    const std::size_t dims = 1 + round % 2, n = length(rng), m = length(rng);
    const auto a = random_values(rng, n * dims), b = random_values(rng, m * dims);
    std::vector<double> ta, tb;
    for (std::size_t i = 0; i < n; ++i) ta.push_back(0.5 * static_cast<double>(i * i % 7 + i));
    for (std::size_t j = 0; j < m; ++j) tb.push_back(0.3 * static_cast<double>(j));
    const SeriesView va{a.data(), n, dims, ta.data()}, vb{b.data(), m, dims, tb.data()};
    DistanceParams p;
    p.metric = std::vector{Metric::twed, Metric::msm, Metric::erp, Metric::lcss}[round % 4];
    p.nu = 0.1;
    p.lambda = 0.5;
    p.g = 0.3;
    p.epsilon = 0.6;
    if (p.metric == Metric::erp && round % 3 == 0) p.band = 3.0;
    const double want = reference::distance(va, vb, p);
    const auto path = reference::edit_path(va, vb, p);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(path.distance), std::bit_cast<std::uint64_t>(want))
        << to_string(p.metric) << " " << round;
    if (!std::isfinite(want)) continue;
    std::vector<double> tables(dims, 0.0);
    for (const auto& s : path.steps) tables[s.component] += s.cost;
    double total = 0;
    for (const double t : tables) total += t;
    if (p.metric == Metric::lcss) total = 1.0 - total / static_cast<double>(std::min(n, m));
    EXPECT_EQ(std::bit_cast<std::uint64_t>(total), std::bit_cast<std::uint64_t>(want))
        << to_string(p.metric) << " " << round << ": " << total << " vs " << want;
    // A path of cells from (0, 0) to (n, m), each move one of the three.
    std::size_t i = 0, j = 0, component = 0;
    for (const auto& s : path.steps) {
      if (s.component != component) component = s.component, i = 0, j = 0;
      const std::size_t di = s.i - i, dj = s.j - j;
      EXPECT_TRUE((s.move == reference::EditMove::diagonal && di == 1 && dj == 1) ||
                  (s.move == reference::EditMove::a_step && di == 1 && dj == 0) ||
                  (s.move == reference::EditMove::b_step && di == 0 && dj == 1))
          << to_string(p.metric) << " " << round;
      i = s.i, j = s.j;
    }
    EXPECT_EQ(i, n);
    EXPECT_EQ(j, m);
  }
}

TEST(ReferencePaths, EditPathRefusesAMeasureWithoutEditOperations) {
  const std::vector<float> a = {1, 2};
  DistanceParams p;
  p.metric = Metric::dtw;
  EXPECT_THROW(reference::edit_path({a.data(), 2, 1}, {a.data(), 2, 1}, p), std::invalid_argument);
}

}  // namespace
