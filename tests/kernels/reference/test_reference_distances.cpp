// Whole-series distances of the scalar reference (docs/spec.md §4): ed, dk, softdtw, twed.
// (dtw has its own suite in test_reference_whole_series.cpp.)
//
// Expected values come from hand-computed DP tables (written out next to each case)
// or from slow, literal re-implementations of docs/spec.md written here: path enumeration
// for dtw/dk/softdtw, the padded TWED recursion of docs/spec.md §4.3.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SeriesView view(const std::vector<float>& v, std::size_t dims = 1,
                const std::vector<double>* times = nullptr) {
  return SeriesView{v.data(), v.size() / dims, dims, times ? times->data() : nullptr};
}

// ---------------------------------------------------------------------------------
// Literal re-implementations of docs/spec.md, slow on purpose.

double local_cost(const SeriesView& a, std::size_t i, const SeriesView& b, std::size_t j,
                  Cost cost) {
  double c = 0.0;
  for (std::size_t k = 0; k < a.dims; ++k) {
    const double diff = static_cast<double>(a.sample(i)[k]) - static_cast<double>(b.sample(j)[k]);
    c += cost == Cost::sq ? diff * diff : std::abs(diff);
  }
  return c;
}

// Cell (i, j), 1-based, is inside the Sakoe-Chiba band |i - j*n/m| <= band.
bool in_band(std::size_t i, std::size_t j, std::size_t n, std::size_t m,
             std::optional<double> band) {
  if (!band) return true;
  const double centre = static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
  return std::abs(static_cast<double>(i) - centre) <= *band;
}

// Every monotone path from (1,1) to (n,m) (steps (1,0), (0,1), (1,1)) inside the band,
// as the list of its cell costs. Feasible for n, m <= 5 (Delannoy(4,4) = 321 paths).
std::vector<std::vector<double>> all_paths(const SeriesView& a, const SeriesView& b, Cost cost,
                                           std::optional<double> band) {
  const std::size_t n = a.length, m = b.length;
  std::vector<std::vector<double>> paths;
  std::vector<double> current;
  std::function<void(std::size_t, std::size_t)> walk = [&](std::size_t i, std::size_t j) {
    if (!in_band(i, j, n, m, band)) return;
    current.push_back(local_cost(a, i - 1, b, j - 1, cost));
    if (i == n && j == m) {
      paths.push_back(current);
    } else {
      if (i < n) walk(i + 1, j);
      if (j < m) walk(i, j + 1);
      if (i < n && j < m) walk(i + 1, j + 1);
    }
    current.pop_back();
  };
  walk(1, 1);
  return paths;
}

double enum_dtw(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  double best = kInf;
  for (const auto& p : all_paths(a, b, cost, band)) {
    double s = 0.0;
    for (double c : p) s += c;
    best = std::min(best, s);
  }
  return best;
}

double enum_dk(const SeriesView& a, const SeriesView& b, Cost cost, std::optional<double> band) {
  double best = kInf;
  for (const auto& p : all_paths(a, b, cost, band))
    best = std::min(best, *std::max_element(p.begin(), p.end()));
  return best;
}

// softdtw = -gamma * log(sum over paths of exp(-cost(path) / gamma)) (the closed form of
// the recursion of docs/spec.md §4.2), evaluated with the smallest path cost factored out.
double enum_softdtw(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
                    std::optional<double> band) {
  std::vector<double> costs;
  for (const auto& p : all_paths(a, b, cost, band)) {
    double s = 0.0;
    for (double c : p) s += c;
    costs.push_back(s);
  }
  if (costs.empty()) return kInf;
  const double lo = *std::min_element(costs.begin(), costs.end());
  double sum = 0.0;
  for (double c : costs) sum += std::exp(-(c - lo) / gamma);
  return lo - gamma * std::log(sum);
}

// docs/spec.md §4.3, literally: both series padded with a zero sample at time 0.
double literal_twed(const SeriesView& a, const SeriesView& b, double nu, double lambda, double p) {
  const std::size_t n = a.length, m = b.length, d = a.dims;
  auto A = [&](std::size_t i, std::size_t k) {
    return i == 0 ? 0.0 : static_cast<double>(a.sample(i - 1)[k]);
  };
  auto B = [&](std::size_t j, std::size_t k) {
    return j == 0 ? 0.0 : static_cast<double>(b.sample(j - 1)[k]);
  };
  auto TA = [&](std::size_t i) { return i == 0 ? 0.0 : a.time(i - 1); };
  auto TB = [&](std::size_t j) { return j == 0 ? 0.0 : b.time(j - 1); };
  auto norm = [&](auto&& x, auto&& y) {
    double s = 0.0;
    for (std::size_t k = 0; k < d; ++k) s += std::pow(std::abs(x(k) - y(k)), p);
    return std::pow(s, 1.0 / p);
  };
  std::vector<std::vector<double>> D(n + 1, std::vector<double>(m + 1, kInf));
  D[0][0] = 0.0;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      double match =
          D[i - 1][j - 1] +
          norm([&](std::size_t k) { return A(i, k); }, [&](std::size_t k) { return B(j, k); }) +
          nu * std::abs(TA(i) - TB(j));
      if (i > 1 && j > 1)
        match += norm([&](std::size_t k) { return A(i - 1, k); },
                      [&](std::size_t k) { return B(j - 1, k); }) +
                 nu * std::abs(TA(i - 1) - TB(j - 1));
      const double del_a =
          D[i - 1][j] +
          norm([&](std::size_t k) { return A(i, k); }, [&](std::size_t k) { return A(i - 1, k); }) +
          nu * (TA(i) - TA(i - 1)) + lambda;
      const double del_b =
          D[i][j - 1] +
          norm([&](std::size_t k) { return B(j, k); }, [&](std::size_t k) { return B(j - 1, k); }) +
          nu * (TB(j) - TB(j - 1)) + lambda;
      D[i][j] = std::min({match, del_a, del_b});
    }
  }
  return D[n][m];
}

void expect_rel_near(double actual, double expected, double rel, const char* what) {
  EXPECT_NEAR(actual, expected, rel * std::max(1.0, std::abs(expected))) << what;
}

struct Series {
  std::vector<float> values;
  std::vector<double> times;
  std::size_t dims = 1;
  SeriesView view(bool with_times = true) const {
    return SeriesView{values.data(), values.size() / dims, dims,
                      with_times && !times.empty() ? times.data() : nullptr};
  }
};

Series random_series(std::mt19937_64& rng, std::size_t length, std::size_t dims, bool times) {
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::uniform_real_distribution<double> start(0.0, 3.0), step(0.05, 1.5);
  Series s;
  s.dims = dims;
  s.values.resize(length * dims);
  for (auto& v : s.values) v = value(rng);
  if (times) {
    double t = start(rng);
    for (std::size_t i = 0; i < length; ++i) {
      s.times.push_back(t);
      t += step(rng);
    }
  }
  return s;
}

}  // namespace

// =================================================================================
// dk (discrete Frechet): hand-computed tables.

// a = 0 4 (rows i), b = 1 2 6 (columns j).
//   sq cost c(i,j):        dk D(i,j) = max(c, min(D(i,j-1), D(i-1,j-1), D(i-1,j))):
//          b=1 b=2 b=6               j=1 j=2 j=3
//   a=0     1   4  36          i=1     1   4  36
//   a=4     9   4   4          i=2     9   4   4      -> dk = 4
//   (dtw with the same cost would be 9: D = [1 5 41; 10 5 9].)
//   abs cost c:                dk D:
//   a=0     1   2   6          i=1     1   2   6
//   a=4     3   2   2          i=2     3   2   2      -> dk = 2
TEST(ReferenceDk, HandComputedUnivariate) {
  const std::vector<float> a{0, 4}, b{1, 2, 6};
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::sq), 4.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::abs), 2.0);
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq), 9.0);
}

// a = 1 5 2, b = 1 2 6 2.
//   sq c:                      dk D:
//          1   2   6   2              j=1 j=2 j=3 j=4
//   a=1    0   1  25   1       i=1     0   1  25  25
//   a=5   16   9   1   9       i=2    16   9   1   9
//   a=2    1   0  16   0       i=3    16   9  16   1   -> 1 (path (1,1)(1,2)(2,3)(3,4))
//   abs c:                     dk D:
//   a=1    0   1   5   1       i=1     0   1   5   5
//   a=5    4   3   1   3       i=2     4   3   1   3
//   a=2    1   0   4   0       i=3     4   3   4   1   -> 1
TEST(ReferenceDk, HandComputedThreeByFour) {
  const std::vector<float> a{1, 5, 2}, b{1, 2, 6, 2};
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::sq), 1.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::abs), 1.0);
  // Symmetric in its arguments (no band).
  EXPECT_DOUBLE_EQ(reference::dk(view(b), view(a), Cost::sq), 1.0);
}

// d = 2: a = (0,0) (1,2); b = (0,1) (3,2) (1,1).
//   sq c:                              dk D:
//            (0,1) (3,2) (1,1)                 j=1 j=2 j=3
//   (0,0)      1    13     2            i=1     1   13  13
//   (1,2)      2     4     1            i=2     2    4   4   -> 4
//   abs c:                             dk D:
//   (0,0)      1     5     2            i=1     1    5   5
//   (1,2)      2     2     1            i=2     2    2   2   -> 2
TEST(ReferenceDk, HandComputedMultivariate) {
  const std::vector<float> a{0, 0, 1, 2}, b{0, 1, 3, 2, 1, 1};
  EXPECT_DOUBLE_EQ(reference::dk(view(a, 2), view(b, 2), Cost::sq), 4.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a, 2), view(b, 2), Cost::abs), 2.0);
}

TEST(ReferenceDk, IdenticalSeriesAreAtZero) {
  const std::vector<float> a{3, -1, 4, 1, -5, 9, 2, -6};
  EXPECT_EQ(reference::dk(view(a), view(a), Cost::sq), 0.0);
  EXPECT_EQ(reference::dk(view(a), view(a), Cost::abs), 0.0);
  EXPECT_EQ(reference::dk(view(a, 2), view(a, 2), Cost::sq), 0.0);
}

// a = 0 5 5 5 (n = 4), b = 0 5 (m = 2); centre of column j is j*n/m = 2j.
// band 1 admits (1,1) (2,1) (3,1) (3,2) (4,2): (2,2) is out (|2-4| = 2), so the
// zero-cost path (1,1)(2,2)(3,2)(4,2) is lost and every path pays c(a2=5, b1=0) = 25.
// band 2 admits (2,2) again. band 0 excludes (1,1) itself (|1-2| = 1): no path, +inf.
TEST(ReferenceDk, BandOnUnequalLengths) {
  const std::vector<float> a{0, 5, 5, 5}, b{0, 5};
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::sq), 0.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::sq, 2.0), 0.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::sq, 1.0), 25.0);
  EXPECT_DOUBLE_EQ(reference::dk(view(a), view(b), Cost::abs, 1.0), 5.0);
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq, 1.0), 25.0);
  const double none = reference::dk(view(a), view(b), Cost::sq, 0.0);
  EXPECT_TRUE(std::isinf(none) && none > 0) << none;
}

// Random equal lengths: band 0 leaves only the diagonal, dk = max_i c(a_i, b_i).
TEST(ReferenceDk, BandZeroOnEqualLengthsIsTheDiagonal) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 12);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = len(rng), d = trial % 2 ? 3 : 1;
    const Series a = random_series(rng, n, d, false), b = random_series(rng, n, d, false);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      double worst = 0.0;
      for (std::size_t i = 0; i < n; ++i)
        worst = std::max(worst, local_cost(a.view(), i, b.view(), i, cost));
      expect_rel_near(reference::dk(a.view(), b.view(), cost, 0.0), worst, 1e-12, "dk band 0");
    }
  }
}

// Random inputs against path enumeration, and the relations between dk and dtw:
// max(c(a_1,b_1), c(a_n,b_m)) <= dk <= dtw <= (n+m-1) * dk (costs are >= 0, every path
// holds both corners and at most n+m-1 cells).
TEST(ReferenceDk, MatchesPathEnumerationAndBoundsDtw) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 5);
  const std::optional<double> bands[] = {std::nullopt, 0.0, 0.5, 1.0, 1.5, 2.0};
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 3 == 0 ? 2 : 1;
    const Series a = random_series(rng, n, d, false), b = random_series(rng, m, d, false);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      for (const auto& band : bands) {
        const double expected = enum_dk(a.view(), b.view(), cost, band);
        const double got = reference::dk(a.view(), b.view(), cost, band);
        if (std::isinf(expected)) {
          EXPECT_TRUE(std::isinf(got) && got > 0) << "n=" << n << " m=" << m << " got " << got;
          continue;
        }
        expect_rel_near(got, expected, 1e-12, "dk vs enumeration");
        expect_rel_near(reference::dtw(a.view(), b.view(), cost, band),
                        enum_dtw(a.view(), b.view(), cost, band), 1e-12, "dtw vs enumeration");
      }
      const double dk = reference::dk(a.view(), b.view(), cost);
      const double dtw = reference::dtw(a.view(), b.view(), cost);
      const double corners = std::max(local_cost(a.view(), 0, b.view(), 0, cost),
                                      local_cost(a.view(), n - 1, b.view(), m - 1, cost));
      EXPECT_GE(dk, corners * (1 - 1e-12));
      EXPECT_LE(dk, dtw * (1 + 1e-12) + 1e-300);
      EXPECT_LE(dtw, static_cast<double>(n + m - 1) * dk * (1 + 1e-12) + 1e-300);
    }
  }
}

// =================================================================================
// softdtw: hand-computed.

// a = 0 1, b = 0 2, sq cost: c = [0 4; 1 1].
//   R(1,1) = 0 + softmin(inf, inf, 0)      = 0
//   R(1,2) = 4 + softmin(R(0,2), R(1,1), R(0,1)) = 4 + 0 = 4
//   R(2,1) = 1 + softmin(R(1,1), inf, inf)  = 1
//   R(2,2) = 1 + softmin(R(1,2)=4, R(2,1)=1, R(1,1)=0)
//          = 1 - gamma * log(exp(-4/gamma) + exp(-1/gamma) + 1)
//   gamma = 1:   1 - log(1 + e^-1 + e^-4)    = 1 - log(1.386195...) = 0.6734374...
//   gamma = 0.1: 1 - 0.1 log(1 + e^-10 + e^-40) = 0.99999546...
// abs cost: c = [0 2; 1 1]: R(1,2) = 2, R(2,1) = 1,
//   R(2,2) = 1 - gamma * log(exp(-2/gamma) + exp(-1/gamma) + 1).
TEST(ReferenceSoftDtw, HandComputedTwoByTwo) {
  const std::vector<float> a{0, 1}, b{0, 2};
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 1.0),
              1.0 - std::log(1.0 + std::exp(-1.0) + std::exp(-4.0)), 1e-13);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 1.0), 0.6734374, 1e-6);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 0.1), 0.9999955, 1e-6);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 0.1),
              1.0 - 0.1 * std::log(1.0 + std::exp(-10.0) + std::exp(-40.0)), 1e-13);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::abs, 1.0),
              1.0 - std::log(1.0 + std::exp(-1.0) + std::exp(-2.0)), 1e-13);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::abs, 0.1),
              1.0 - 0.1 * std::log(1.0 + std::exp(-10.0) + std::exp(-20.0)), 1e-13);
}

// a = 1 3 (d=1), b = 2 (a single sample): only one path (1,1)(2,1),
// R = c(1,2) + c(3,2) = 1 + 1 = 2 for any gamma; and for a single-sample pair the value
// is just the cost. Then a 2x2 in d = 2:
// a = (0,0) (1,1), b = (1,0) (1,1): sq c = [1 2; 1 0]:
//   R(1,1) = 1, R(1,2) = 2 + 1 = 3, R(2,1) = 1 + 1 = 2,
//   R(2,2) = 0 + softmin(3, 2, 1) = 1 - gamma*log(1 + e^(-1/gamma) + e^(-2/gamma)).
TEST(ReferenceSoftDtw, HandComputedSinglePathAndMultivariate) {
  const std::vector<float> a{1, 3}, b{2};
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 1.0), 2.0, 1e-13);
  EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, 0.01), 2.0, 1e-13);
  EXPECT_NEAR(reference::softdtw(view(b), view(b), Cost::abs, 0.5), 0.0, 1e-13);
  const std::vector<float> a2{0, 0, 1, 1}, b2{1, 0, 1, 1};
  EXPECT_NEAR(reference::softdtw(view(a2, 2), view(b2, 2), Cost::sq, 1.0),
              1.0 - std::log(1.0 + std::exp(-1.0) + std::exp(-2.0)), 1e-13);
  EXPECT_NEAR(reference::softdtw(view(a2, 2), view(b2, 2), Cost::sq, 0.1),
              1.0 - 0.1 * std::log(1.0 + std::exp(-10.0) + std::exp(-20.0)), 1e-13);
}

// a = 0 5 5 5, b = 0 5 with band 1: allowed cells (1,1) (2,1) (3,1) (3,2) (4,2), sq cost
// 0, 25, 25, 0, 0. Paths: (1,1)(2,1)(3,1)(4,2) = 50, (1,1)(2,1)(3,1)(3,2)(4,2) = 50,
// (1,1)(2,1)(3,2)(4,2) = 25:
//   R(3,2) = 0 + softmin(R(2,2)=inf, R(3,1)=50, R(2,1)=25), R(4,2) = softmin(R(3,2), inf, 50)
//   = -gamma log(e^(-25/gamma) + 2 e^(-50/gamma)).
TEST(ReferenceSoftDtw, HandComputedBand) {
  const std::vector<float> a{0, 5, 5, 5}, b{0, 5};
  for (double gamma : {1.0, 10.0}) {
    const double expected =
        -gamma * std::log(std::exp(-25.0 / gamma) + 2.0 * std::exp(-50.0 / gamma));
    EXPECT_NEAR(reference::softdtw(view(a), view(b), Cost::sq, gamma, 1.0), expected, 1e-12)
        << "gamma " << gamma;
  }
}

TEST(ReferenceSoftDtw, NoPathInBandIsInfinite) {
  // n = 4, m = 2, band 0: (1,1) is outside (|1 - 2| = 1), as is every path.
  const std::vector<float> a{0, 5, 5, 5}, b{0, 5};
  const double v = reference::softdtw(view(a), view(b), Cost::sq, 1.0, 0.0);
  EXPECT_TRUE(std::isinf(v) && v > 0) << v;
}

// Band 0 on equal lengths: a single path, the diagonal, whatever gamma.
TEST(ReferenceSoftDtw, BandZeroOnEqualLengthsIsTheDiagonal) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 12);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = len(rng), d = trial % 2 ? 2 : 1;
    const Series a = random_series(rng, n, d, false), b = random_series(rng, n, d, false);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      double sum = 0.0;
      for (std::size_t i = 0; i < n; ++i) sum += local_cost(a.view(), i, b.view(), i, cost);
      for (double gamma : {0.01, 1.0, 5.0})
        expect_rel_near(reference::softdtw(a.view(), b.view(), cost, gamma, 0.0), sum, 1e-12,
                        "softdtw band 0");
    }
  }
}

// Random small inputs against -gamma log sum_paths exp(-cost/gamma), with and without band.
TEST(ReferenceSoftDtw, MatchesPathEnumeration) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 5);
  const std::optional<double> bands[] = {std::nullopt, 0.5, 1.0, 2.0};
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 3 == 0 ? 2 : 1;
    const Series a = random_series(rng, n, d, false), b = random_series(rng, m, d, false);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      for (double gamma : {0.05, 1.0, 3.0}) {
        for (const auto& band : bands) {
          const double expected = enum_softdtw(a.view(), b.view(), cost, gamma, band);
          const double got = reference::softdtw(a.view(), b.view(), cost, gamma, band);
          if (std::isinf(expected)) {
            EXPECT_TRUE(std::isinf(got) && got > 0) << got;
            continue;
          }
          EXPECT_NEAR(got, expected, 1e-10 * std::max(1.0, std::abs(expected)))
              << "n=" << n << " m=" << m << " d=" << d << " gamma=" << gamma;
        }
      }
    }
  }
}

// softdtw = -gamma log sum_paths exp(-cost/gamma) lies in [dtw - gamma log(#paths), dtw],
// and #paths (a Delannoy number) <= 3^(n+m-2): 0 <= dtw - softdtw <= gamma (n+m) log 3.
TEST(ReferenceSoftDtw, ApproachesDtwAsGammaVanishes) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 20);
  const double gamma = 1e-3;
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 2 ? 3 : 1;
    const Series a = random_series(rng, n, d, false), b = random_series(rng, m, d, false);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      const double soft = reference::softdtw(a.view(), b.view(), cost, gamma);
      const double hard = reference::dtw(a.view(), b.view(), cost);
      const double slack = 1e-12 * std::max(1.0, hard);
      EXPECT_LE(soft, hard + slack) << "n=" << n << " m=" << m;
      EXPECT_GE(soft, hard - gamma * static_cast<double>(n + m) * std::log(3.0) - slack)
          << "n=" << n << " m=" << m;
    }
  }
}

// The gradient of softdtw with respect to a against central finite differences.
// Values are multiples of 2^-8 (b's offset by 2^-9, so |a_ik - b_jk| >= 2^-9, far from
// the kink of abs) and the step is h = 2^-17 (about 1e-5), so a +- h is exact in float32.
namespace {

// `count` values on that grid (offset by 2^-9 for b).
std::vector<float> grid_values(std::mt19937_64& rng, std::size_t count, bool offset) {
  std::uniform_int_distribution<int> q(-512, 512);
  std::vector<float> v(count);
  for (auto& x : v)
    x = static_cast<float>(std::ldexp(q(rng), -8) + (offset ? std::ldexp(1.0, -9) : 0.0));
  return v;
}

// d softdtw(a, b) / d a[e] by central differences of step 2^-17.
double central_difference(const std::vector<float>& a, const std::vector<float>& b, std::size_t d,
                          std::size_t e, Cost cost, double gamma, std::optional<double> band) {
  const double h = std::ldexp(1.0, -17);
  std::vector<float> plus = a, minus = a;
  plus[e] = static_cast<float>(a[e] + h);
  minus[e] = static_cast<float>(a[e] - h);
  EXPECT_EQ(static_cast<double>(plus[e]) - static_cast<double>(minus[e]), 2 * h);
  return (reference::softdtw(view(plus, d), view(b, d), cost, gamma, band) -
          reference::softdtw(view(minus, d), view(b, d), cost, gamma, band)) /
         (2 * h);
}

}  // namespace

TEST(ReferenceSoftDtw, GradientMatchesFiniteDifferences) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 6);
  int checked = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 2 ? 2 : 1;
    const std::vector<float> a = grid_values(rng, n * d, false), b = grid_values(rng, m * d, true);
    for (Cost cost : {Cost::sq, Cost::abs}) {
      for (double gamma : {0.1, 1.0}) {
        const std::optional<double> band =
            (trial % 4 == 3 && n == m) ? std::optional<double>(1.0) : std::nullopt;
        std::vector<double> grad;
        const double value =
            reference::softdtw_grad(view(a, d), view(b, d), cost, gamma, band, grad);
        EXPECT_NEAR(value, reference::softdtw(view(a, d), view(b, d), cost, gamma, band),
                    1e-12 * std::max(1.0, std::abs(value)));
        ASSERT_EQ(grad.size(), n * d);
        for (std::size_t e = 0; e < n * d; ++e) {
          const double fd = central_difference(a, b, d, e, cost, gamma, band);
          EXPECT_NEAR(grad[e], fd, 1e-4 * std::max(1.0, std::abs(fd)))
              << "element " << e << " n=" << n << " m=" << m << " d=" << d << " gamma=" << gamma
              << " cost=" << to_string(cost);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// The same on longer series (20..150 samples, where the fast backends' tests compare with the
// reference): a few random components of each pair, bands of 5 and none, gamma 0.1..10.
TEST(ReferenceSoftDtw, GradientMatchesFiniteDifferencesOnLongerSeries) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(20, 150);
  int checked = 0;
  for (int trial = 0; trial < 12; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 2 ? 3 : 1;
    const std::vector<float> a = grid_values(rng, n * d, false), b = grid_values(rng, m * d, true);
    const Cost cost = trial % 4 < 2 ? Cost::sq : Cost::abs;
    const double gamma = trial % 3 == 0 ? 0.1 : trial % 3 == 1 ? 1.0 : 10.0;
    const std::optional<double> band =
        trial % 2 ? std::optional<double>(5.0 + std::abs(static_cast<double>(n) - m))
                  : std::nullopt;
    std::vector<double> grad;
    reference::softdtw_grad(view(a, d), view(b, d), cost, gamma, band, grad);
    ASSERT_EQ(grad.size(), n * d);
    std::uniform_int_distribution<std::size_t> component(0, n * d - 1);
    for (int pick = 0; pick < 4; ++pick) {
      const std::size_t e = component(rng);
      const double fd = central_difference(a, b, d, e, cost, gamma, band);
      EXPECT_NEAR(grad[e], fd, 1e-4 * std::max(1.0, std::abs(fd)))
          << "element " << e << " n=" << n << " m=" << m << " d=" << d << " gamma=" << gamma
          << " cost=" << to_string(cost);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 48);
}

// Hand-computed gradient, a single path: a = (x), b = (y): value = (x - y)^2, d/dx = 2(x - y);
// abs: |x - y|, d/dx = sign(x - y). With two samples of a against one of b, each gets its own.
TEST(ReferenceSoftDtw, GradientHandComputed) {
  const std::vector<float> a{1.5f, -2.0f}, b{0.5f};
  std::vector<double> grad;
  EXPECT_NEAR(reference::softdtw_grad(view(a), view(b), Cost::sq, 1.0, std::nullopt, grad),
              1.0 + 6.25, 1e-13);
  ASSERT_EQ(grad.size(), 2u);
  EXPECT_NEAR(grad[0], 2.0, 1e-12);
  EXPECT_NEAR(grad[1], -5.0, 1e-12);
  EXPECT_NEAR(reference::softdtw_grad(view(a), view(b), Cost::abs, 1.0, std::nullopt, grad),
              1.0 + 2.5, 1e-13);
  ASSERT_EQ(grad.size(), 2u);
  EXPECT_NEAR(grad[0], 1.0, 1e-12);
  EXPECT_NEAR(grad[1], -1.0, 1e-12);
}

// =================================================================================
// twed: hand-computed.

// a = 0 2 (times 0 1: sample indices), b = 0 1 2 (times 0 1 2); nu = 0.5, lambda = 1.
// d = 1, so ||x||_p = |x| for any p.
//   D(1,1) = match = |0-0| + nu|0-0|                                   = 0
//   D(1,2) = del B = D(1,1) + |1-0| + nu*1 + 1                          = 2.5
//   D(1,3) = del B = D(1,2) + |2-1| + nu*1 + 1                          = 5
//   D(2,1) = del A = D(1,1) + |2-0| + nu*1 + 1                          = 3.5
//   D(2,2) = min(match D(1,1) + |2-1| + |0-0| + nu(|1-1| + |0-0|) = 1,
//                del A D(1,2) + 2 + .5 + 1 = 6, del B D(2,1) + 1 + .5 + 1 = 6) = 1
//   D(2,3) = min(match D(1,2) + |2-2| + |0-1| + nu(|1-2| + |0-1|) = 4.5,
//                del A D(1,3) + 3.5 = 8.5, del B D(2,2) + 1 + .5 + 1 = 3.5)     = 3.5
TEST(ReferenceTwed, HandComputedWithoutTimes) {
  const std::vector<float> a{0, 2}, b{0, 1, 2};
  for (double p : {1.0, 2.0}) {
    EXPECT_DOUBLE_EQ(reference::twed(view(a), view(b), 0.5, 1.0, p), 3.5) << "p " << p;
    EXPECT_DOUBLE_EQ(reference::twed(view(b), view(a), 0.5, 1.0, p), 3.5) << "p " << p;
  }
  // nu = lambda = 0: D(2,3) = min(match 1 + 0 + 1 = 2 [D(1,2) = 1], del B D(2,2) + 1 = 2) = 2.
  //   D(1,1)=0 D(1,2)=1 D(1,3)=2 D(2,1)=2 D(2,2)=min(1, 1+2, 2+1)=1 D(2,3)=min(1+0+1, 2+2, 1+1)=2
  EXPECT_DOUBLE_EQ(reference::twed(view(a), view(b), 0.0, 0.0, 2.0), 2.0);
}

// Same values with explicit times (seconds): ta = 0 0.5, tb = 0 0.25 0.5; nu = 1, lambda = 0.5.
//   D(1,1) = 0
//   D(1,2) = D(1,1) + |1-0| + 1*0.25 + 0.5 = 1.75
//   D(1,3) = D(1,2) + |2-1| + 0.25 + 0.5   = 3.5
//   D(2,1) = D(1,1) + |2-0| + 0.5 + 0.5    = 3
//   D(2,2) = min(match 0 + |2-1| + 0 + (|0.5-0.25| + 0) = 1.25, del A 1.75+3 = 4.75,
//                del B 3 + 1 + 0.25 + 0.5 = 4.75)                                    = 1.25
//   D(2,3) = min(match 1.75 + |2-2| + |0-1| + (|0.5-0.5| + |0-0.25|) = 3,
//                del A 3.5 + 3 = 6.5, del B 1.25 + 1 + 0.25 + 0.5 = 3)             = 3
TEST(ReferenceTwed, HandComputedWithTimes) {
  const std::vector<float> a{0, 2}, b{0, 1, 2};
  const std::vector<double> ta{0.0, 0.5}, tb{0.0, 0.25, 0.5};
  EXPECT_DOUBLE_EQ(reference::twed(view(a, 1, &ta), view(b, 1, &tb), 1.0, 0.5, 2.0), 3.0);
  EXPECT_DOUBLE_EQ(reference::twed(view(b, 1, &tb), view(a, 1, &ta), 1.0, 0.5, 2.0), 3.0);
  // The times are absolute: one sample each, D(1,1) = |1-1| + nu |2 - 0.5| = 2 * 1.5 = 3.
  const std::vector<float> x{1}, y{1};
  const std::vector<double> tx{2.0}, ty{0.5};
  EXPECT_DOUBLE_EQ(reference::twed(view(x, 1, &tx), view(y, 1, &ty), 2.0, 7.0, 2.0), 3.0);
  // Without times both single samples are at time 0.
  EXPECT_DOUBLE_EQ(reference::twed(view(x), view(y), 2.0, 7.0, 2.0), 0.0);
}

// d = 2: a = (0,0) (3,4), b = (0,0) (1,1) (4,3), no times (0 1 / 0 1 2), nu = 0.1, lambda = 0.5.
// Norms N(v): p = 2 / p = 1:  N(1,1) = sqrt2 / 2, N(3,2) = sqrt13 / 5, N(3,4) = 5 / 7,
//   N(2,3) = sqrt13 / 5, N(-1,1) = N(-1,-1) = sqrt2 / 2.
//   D(1,1) = 0
//   D(1,2) = N(b2-b1) + 0.1 + 0.5              = N(1,1) + 0.6
//   D(1,3) = D(1,2) + N(b3-b2) + 0.6           = D(1,2) + N(3,2) + 0.6
//   D(2,1) = N(a2-a1) + 0.6                    = N(3,4) + 0.6
//   D(2,2) = min(match N(a2-b2) + N(a1-b1) + 0.1(0 + 0) = N(2,3),
//                del A D(1,2) + N(3,4) + 0.6, del B D(2,1) + N(1,1) + 0.6)   = N(2,3)
//   D(2,3) = min(match D(1,2) + N(a2-b3) + N(a1-b2) + 0.1(|1-2| + |0-1|)
//                      = N(1,1) + 0.6 + 2 N(1,1) + 0.2,
//                del A D(1,3) + N(3,4) + 0.6, del B D(2,2) + N(3,2) + 0.6)
//   p = 2: match = 3 sqrt2 + 0.8 = 5.0426, del A = 11.82, del B = 2 sqrt13 + 0.6 = 7.81 -> 3 sqrt2
//   + 0.8 p = 1: match = 6.8, del A = 15.8, del B = 10.6                                -> 6.8
TEST(ReferenceTwed, HandComputedMultivariate) {
  const std::vector<float> a{0, 0, 3, 4}, b{0, 0, 1, 1, 4, 3};
  EXPECT_NEAR(reference::twed(view(a, 2), view(b, 2), 0.1, 0.5, 2.0), 3.0 * std::sqrt(2.0) + 0.8,
              1e-12);
  EXPECT_NEAR(reference::twed(view(a, 2), view(b, 2), 0.1, 0.5, 1.0), 6.8, 1e-12);
  EXPECT_NEAR(reference::twed(view(b, 2), view(a, 2), 0.1, 0.5, 1.0), 6.8, 1e-12);
}

// Random inputs against the literal padded recursion of docs/spec.md §4.3.
TEST(ReferenceTwed, MatchesLiteralRecursion) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 12);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = trial % 2 ? 3 : 1;
    const bool times = trial % 3 != 0;
    const Series a = random_series(rng, n, d, times), b = random_series(rng, m, d, times);
    for (double nu : {0.0, 0.1, 1.0})
      for (double lambda : {0.0, 1.0})
        for (double p : {1.0, 2.0, 3.0}) {
          const double expected = literal_twed(a.view(), b.view(), nu, lambda, p);
          EXPECT_NEAR(reference::twed(a.view(), b.view(), nu, lambda, p), expected,
                      1e-10 * std::max(1.0, expected))
              << "n=" << n << " m=" << m << " d=" << d << " nu=" << nu << " lambda=" << lambda
              << " p=" << p << " times=" << times;
        }
  }
}

// TWED is a metric (Marteau 2009): identity, symmetry, triangle inequality.
TEST(ReferenceTwed, IsAMetric) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 12);
  std::uniform_int_distribution<int> pick(0, 1000);
  const double nus[] = {0.0, 0.1, 1.0}, lambdas[] = {0.0, 1.0}, ps[] = {1.0, 2.0};
  int triples = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::size_t d = trial % 2 ? 3 : 1;
    const Series a = random_series(rng, len(rng), d, true),
                 b = random_series(rng, len(rng), d, true),
                 c = random_series(rng, len(rng), d, true);
    const double nu = nus[pick(rng) % 3], lambda = lambdas[pick(rng) % 2], p = ps[pick(rng) % 2];
    auto tw = [&](const Series& x, const Series& y) {
      return reference::twed(x.view(), y.view(), nu, lambda, p);
    };
    const double ab = tw(a, b), ba = tw(b, a), bc = tw(b, c), ac = tw(a, c);
    EXPECT_EQ(tw(a, a), 0.0);
    EXPECT_EQ(tw(c, c), 0.0);
    EXPECT_NEAR(ab, ba, 1e-9 * std::max(1.0, ab)) << "symmetry, trial " << trial;
    EXPECT_LE(ac, (ab + bc) * (1 + 1e-9))
        << "triangle, trial " << trial << " nu=" << nu << " lambda=" << lambda << " p=" << p;
    EXPECT_GT(ab, 0.0);  // random float series differ: a metric separates them
    ++triples;
  }
  EXPECT_GE(triples, 600);
}

// =================================================================================
// Dispatch and errors.

TEST(ReferenceDistances, DistanceDispatchesOnMetric) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const Series a = random_series(rng, 7, 2, true), b = random_series(rng, 5, 2, true);
  DistanceParams params;
  params.cost = Cost::abs;
  params.band = 2.0;
  params.gamma = 0.3;
  params.nu = 0.2;
  params.lambda = 0.7;
  params.p = 1.5;
  params.metric = Metric::dtw;
  EXPECT_EQ(reference::distance(a.view(), b.view(), params),
            reference::dtw(a.view(), b.view(), Cost::abs, 2.0));
  params.metric = Metric::dk;
  EXPECT_EQ(reference::distance(a.view(), b.view(), params),
            reference::dk(a.view(), b.view(), Cost::abs, 2.0));
  params.metric = Metric::softdtw;
  EXPECT_EQ(reference::distance(a.view(), b.view(), params),
            reference::softdtw(a.view(), b.view(), Cost::abs, 0.3, 2.0));
  params.metric = Metric::twed;
  EXPECT_EQ(reference::distance(a.view(), b.view(), params),
            reference::twed(a.view(), b.view(), 0.2, 0.7, 1.5));
  params.metric = Metric::ed;
  params.band.reset();  // ed takes none
  const Series c = random_series(rng, 7, 2, false);
  EXPECT_EQ(reference::distance(a.view(), c.view(), params),
            reference::ed(a.view(), c.view(), Cost::abs));
}

// docs/spec.md §4.0: sum_i c(a_i, b_i), no square root.
TEST(ReferenceEd, HandComputed) {
  const std::vector<float> a{1, 2, 4}, b{0, 4, 1};
  EXPECT_EQ(reference::ed(view(a), view(b), Cost::sq), 1.0 + 4.0 + 9.0);
  EXPECT_EQ(reference::ed(view(a), view(b), Cost::abs), 1.0 + 2.0 + 3.0);
  // d = 2: the cost sums over the components. Samples (1, 2), (4, 0) against (0, 0), (1, 1).
  const std::vector<float> x{1, 2, 4, 0}, y{0, 0, 1, 1};
  EXPECT_EQ(reference::ed(view(x, 2), view(y, 2), Cost::sq), (1.0 + 4.0) + (9.0 + 1.0));
  EXPECT_EQ(reference::ed(view(x, 2), view(y, 2), Cost::abs), (1.0 + 2.0) + (3.0 + 1.0));
  EXPECT_EQ(reference::ed(view(a), view(a), Cost::sq), 0.0);
}

TEST(ReferenceEd, DifferentLengthsAreAnError) {
  const std::vector<float> a{1, 2, 4}, b{0, 4};
  try {
    reference::ed(view(a), view(b), Cost::sq);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "ed compares series of equal length: 3 and 2 samples");
  }
  DistanceParams params;
  params.metric = Metric::ed;
  EXPECT_THROW(reference::distance(view(a), view(b), params), std::invalid_argument);
  params.band = 1.0;  // and a band is refused, as validate() says
  EXPECT_THROW(reference::distance(view(a), view(a), params), std::invalid_argument);
}

TEST(ReferenceDistances, BadSeriesThrow) {
  const std::vector<float> a{0, 1, 2, 3}, b{0, 1, 2}, empty;
  const SeriesView a2 = view(a, 2), b1 = view(b, 1), e1{empty.data(), 0, 1, nullptr};
  std::vector<double> grad;
  EXPECT_THROW(reference::dk(a2, b1, Cost::sq), std::invalid_argument);
  EXPECT_THROW(reference::softdtw(a2, b1, Cost::sq, 1.0), std::invalid_argument);
  EXPECT_THROW(reference::softdtw_grad(a2, b1, Cost::sq, 1.0, std::nullopt, grad),
               std::invalid_argument);
  EXPECT_THROW(reference::twed(a2, b1, 0.1, 1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(reference::dk(e1, b1, Cost::sq), std::invalid_argument);
  EXPECT_THROW(reference::dk(b1, e1, Cost::abs), std::invalid_argument);
  EXPECT_THROW(reference::softdtw(e1, b1, Cost::sq, 1.0), std::invalid_argument);
  EXPECT_THROW(reference::softdtw_grad(b1, e1, Cost::sq, 1.0, std::nullopt, grad),
               std::invalid_argument);
  EXPECT_THROW(reference::twed(e1, b1, 0.1, 1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(reference::twed(b1, e1, 0.1, 1.0, 2.0), std::invalid_argument);
  DistanceParams params;
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
    params.metric = metric;
    EXPECT_THROW(reference::distance(a2, b1, params), std::invalid_argument) << to_string(metric);
    EXPECT_THROW(reference::distance(e1, b1, params), std::invalid_argument) << to_string(metric);
  }
}

TEST(ReferenceParams, ValidateRejectsOutOfRange) {
  const auto rejects = [](auto mutate) {
    DistanceParams p;
    mutate(p);
    return p;
  };
  const DistanceParams bad[] = {
      rejects([](DistanceParams& p) {
        p.metric = Metric::softdtw;
        p.gamma = 0.0;
      }),
      rejects([](DistanceParams& p) {
        p.metric = Metric::softdtw;
        p.gamma = -1.0;
      }),
      rejects([](DistanceParams& p) {
        p.metric = Metric::twed;
        p.nu = -0.001;
      }),
      rejects([](DistanceParams& p) {
        p.metric = Metric::twed;
        p.lambda = -1.0;
      }),
      rejects([](DistanceParams& p) {
        p.metric = Metric::twed;
        p.p = 0.5;
      }),
      rejects([](DistanceParams& p) {
        p.metric = Metric::dtw;
        p.band = -1.0;
      }),
  };
  const std::vector<float> a{0, 1, 2}, b{1, 2};
  for (const auto& p : bad) {
    EXPECT_THROW(validate(p), std::invalid_argument) << to_string(p.metric);
    EXPECT_THROW(reference::distance(view(a), view(b), p), std::invalid_argument)
        << to_string(p.metric);
  }
  // The defaults and boundary values are valid.
  DistanceParams ok;
  EXPECT_NO_THROW(validate(ok));
  ok.metric = Metric::twed;
  ok.nu = 0.0;
  ok.lambda = 0.0;
  ok.p = 1.0;
  EXPECT_NO_THROW(validate(ok));
  EXPECT_NO_THROW(reference::distance(view(a), view(b), ok));
  ok.metric = Metric::dk;
  ok.band = 0.0;
  EXPECT_NO_THROW(validate(ok));

  MatchParams mp;
  EXPECT_NO_THROW(validate(mp));
  mp.hop = 0;
  EXPECT_THROW(validate(mp), std::invalid_argument);
  mp = MatchParams{};
  mp.mode = Mode::window;
  mp.window = 1;
  EXPECT_THROW(validate(mp), std::invalid_argument);
  mp.window = 2;
  EXPECT_NO_THROW(validate(mp));
  for (Metric metric : {Metric::twed, Metric::softdtw}) {
    mp = MatchParams{};
    mp.distance.metric = metric;
    mp.mode = Mode::stream;
    EXPECT_THROW(validate(mp), std::invalid_argument) << to_string(metric);
    mp.mode = Mode::window;
    EXPECT_NO_THROW(validate(mp)) << to_string(metric);
  }
  mp = MatchParams{};
  mp.threshold = std::numeric_limits<double>::infinity();
  EXPECT_THROW(validate(mp), std::invalid_argument);
  mp.threshold = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(validate(mp), std::invalid_argument);
  mp = MatchParams{};
  mp.mode = Mode::window;
  mp.distance.metric = Metric::softdtw;
  mp.distance.gamma = 0.0;
  EXPECT_THROW(validate(mp), std::invalid_argument);
}

// The direct entry points reject the parameters they read, too (a gamma of 0 would divide
// by zero, a p below 1 is no norm).
TEST(ReferenceParams, DirectCallsRejectInvalidParams) {
  const std::vector<float> a{0, 1, 2}, b{1, 2};
  std::vector<double> grad;
  EXPECT_THROW(reference::softdtw(view(a), view(b), Cost::sq, 0.0), std::invalid_argument);
  EXPECT_THROW(reference::softdtw(view(a), view(b), Cost::sq, -1.0), std::invalid_argument);
  EXPECT_THROW(reference::softdtw_grad(view(a), view(b), Cost::sq, 0.0, std::nullopt, grad),
               std::invalid_argument);
  EXPECT_THROW(reference::twed(view(a), view(b), -0.1, 1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(reference::twed(view(a), view(b), 0.1, -1.0, 2.0), std::invalid_argument);
  EXPECT_THROW(reference::twed(view(a), view(b), 0.1, 1.0, 0.5), std::invalid_argument);
}
