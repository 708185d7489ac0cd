// The reference's msm, erp and lcss (docs/spec.md §4.4-4.6): small tables worked by hand (the
// arithmetic in the comments), the papers' properties (msm and erp are metrics: symmetric,
// zero on equal series, the triangle inequality), and the shared cells
// (common/measure_cells.hpp) against literal whole-table re-implementations of the spec's
// text, written here independently of them, and a brute force for lcss.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;
using warpwatch::testing::test_seed;

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

SeriesView view(const std::vector<float>& v, std::size_t dims = 1) {
  return SeriesView{v.data(), v.size() / dims, dims, nullptr};
}

// The measures through the reference's one entry point, as every caller reaches them.
double msm(const SeriesView& a, const SeriesView& b, double c) {
  DistanceParams p;
  p.metric = Metric::msm;
  p.c = c;
  return reference::distance(a, b, p);
}
double erp(const SeriesView& a, const SeriesView& b, double g, Cost cost,
           std::optional<double> band = std::nullopt) {
  DistanceParams p;
  p.metric = Metric::erp;
  p.g = g;
  p.cost = cost;
  p.band = band;
  return reference::distance(a, b, p);
}
double lcss(const SeriesView& a, const SeriesView& b, double epsilon,
            std::optional<std::size_t> delta = std::nullopt) {
  DistanceParams p;
  p.metric = Metric::lcss;
  p.epsilon = epsilon;
  p.delta = delta;
  return reference::distance(a, b, p);
}

double at(const SeriesView& s, std::size_t i, std::size_t k) {  // 1-based sample i
  return static_cast<double>(s.values[(i - 1) * s.dims + k]);
}

// --- literal re-implementations: whole (n+1) x (m+1) tables, the spec's cases as written.

double msm_literal_1d(const SeriesView& a, const SeriesView& b, std::size_t k, double c) {
  const std::size_t n = a.length, m = b.length;
  const auto cost = [c](double x, double y, double z) {
    if ((y <= x && x <= z) || (y >= x && x >= z)) return c;
    return c + std::min(std::fabs(x - y), std::fabs(x - z));
  };
  std::vector<std::vector<double>> d(n + 1, std::vector<double>(m + 1, 0.0));
  d[1][1] = std::fabs(at(a, 1, k) - at(b, 1, k));
  for (std::size_t i = 2; i <= n; ++i)
    d[i][1] = d[i - 1][1] + cost(at(a, i, k), at(a, i - 1, k), at(b, 1, k));
  for (std::size_t j = 2; j <= m; ++j)
    d[1][j] = d[1][j - 1] + cost(at(b, j, k), at(a, 1, k), at(b, j - 1, k));
  for (std::size_t i = 2; i <= n; ++i)
    for (std::size_t j = 2; j <= m; ++j)
      d[i][j] = std::min({d[i - 1][j - 1] + std::fabs(at(a, i, k) - at(b, j, k)),
                          d[i - 1][j] + cost(at(a, i, k), at(a, i - 1, k), at(b, j, k)),
                          d[i][j - 1] + cost(at(b, j, k), at(a, i, k), at(b, j - 1, k))});
  return d[n][m];
}

double msm_literal(const SeriesView& a, const SeriesView& b, double c) {
  double sum = 0.0;
  for (std::size_t k = 0; k < a.dims; ++k) sum += msm_literal_1d(a, b, k, c);
  return sum;
}

double erp_literal(const SeriesView& a, const SeriesView& b, double g, Cost cost,
                   std::optional<double> band) {
  const std::size_t n = a.length, m = b.length;
  const auto term = [cost](double diff) {
    return cost == Cost::sq ? diff * diff : std::fabs(diff);
  };
  const auto c_ab = [&](std::size_t i, std::size_t j) {
    double s = 0.0;
    for (std::size_t k = 0; k < a.dims; ++k) s += term(at(a, i, k) - at(b, j, k));
    return s;
  };
  const auto c_gap = [&](const SeriesView& x, std::size_t i) {
    double s = 0.0;
    for (std::size_t k = 0; k < x.dims; ++k) s += term(at(x, i, k) - g);
    return s;
  };
  std::vector<std::vector<double>> d(n + 1, std::vector<double>(m + 1, 0.0));
  for (std::size_t i = 1; i <= n; ++i) d[i][0] = d[i - 1][0] + c_gap(a, i);
  for (std::size_t j = 1; j <= m; ++j) d[0][j] = d[0][j - 1] + c_gap(b, j);
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j) {
      const double centre =
          static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
      if (band && std::fabs(static_cast<double>(i) - centre) > *band) {
        d[i][j] = inf;
        continue;
      }
      d[i][j] = std::min(
          {d[i - 1][j - 1] + c_ab(i, j), d[i - 1][j] + c_gap(a, i), d[i][j - 1] + c_gap(b, j)});
    }
  return d[n][m];
}

bool lcss_match(const SeriesView& a, std::size_t i, const SeriesView& b, std::size_t j,
                double epsilon, std::optional<std::size_t> delta) {
  if (delta && (i > j ? i - j : j - i) > *delta) return false;
  for (std::size_t k = 0; k < a.dims; ++k)
    if (!(std::fabs(at(a, i, k) - at(b, j, k)) <= epsilon)) return false;
  return true;
}

double lcss_literal(const SeriesView& a, const SeriesView& b, double epsilon,
                    std::optional<std::size_t> delta) {
  const std::size_t n = a.length, m = b.length;
  std::vector<std::vector<double>> l(n + 1, std::vector<double>(m + 1, 0.0));
  for (std::size_t i = 1; i <= n; ++i)
    for (std::size_t j = 1; j <= m; ++j)
      l[i][j] = lcss_match(a, i, b, j, epsilon, delta) ? l[i - 1][j - 1] + 1
                                                       : std::max(l[i - 1][j], l[i][j - 1]);
  return 1.0 - l[n][m] / static_cast<double>(std::min(n, m));
}

// The longest common subsequence by brute force: every pair of index subsets of one size,
// in order, all matching (n, m <= 6).
double lcss_brute_force(const SeriesView& a, const SeriesView& b, double epsilon,
                        std::optional<std::size_t> delta) {
  const std::size_t n = a.length, m = b.length;
  std::size_t best = 0;
  for (unsigned sa = 0; sa < (1u << n); ++sa)
    for (unsigned sb = 0; sb < (1u << m); ++sb) {
      std::vector<std::size_t> ia, ib;
      for (std::size_t i = 0; i < n; ++i)
        if (sa >> i & 1u) ia.push_back(i + 1);
      for (std::size_t j = 0; j < m; ++j)
        if (sb >> j & 1u) ib.push_back(j + 1);
      if (ia.size() != ib.size() || ia.size() <= best) continue;
      bool all = true;
      for (std::size_t t = 0; t < ia.size() && all; ++t)
        all = lcss_match(a, ia[t], b, ib[t], epsilon, delta);
      if (all) best = ia.size();
    }
  return 1.0 - static_cast<double>(best) / static_cast<double>(std::min(n, m));
}

std::vector<float> random_values(std::mt19937_64& rng, std::size_t count, bool coarse) {
  // coarse: quarter steps in [-1, 1], so that ties and exact epsilon matches happen.
  std::uniform_int_distribution<int> q(-4, 4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(count);
  for (auto& x : v) x = coarse ? 0.25f * static_cast<float>(q(rng)) : normal(rng);
  return v;
}

}  // namespace

// ---------------------------------------------------------------- msm (docs/spec.md §4.4)

// a = (1, 2), b = (1, 3), c = 0.5: the cheapest edit moves a_2 = 2 to 3.
//   D(1,1) = |1 - 1|                                 = 0
//   D(2,1) = D(1,1) + C(2, 1, 1) = 0 + 0.5 + |2 - 1|   = 1.5   (2 not between 1 and 1)
//   D(1,2) = D(1,1) + C(3, 1, 1) = 0 + 0.5 + |3 - 1|   = 2.5
//   D(2,2) = min(D(1,1) + |2 - 3| = 1,
//                D(1,2) + C(2, 1, 3) = 2.5 + 0.5 = 3   (2 between 1 and 3),
//                D(2,1) + C(3, 2, 1) = 1.5 + 0.5 + 1 = 3) = 1
TEST(ReferenceMsm, HandComputedMove) {
  const std::vector<float> a{1, 2}, b{1, 3};
  EXPECT_DOUBLE_EQ(msm(view(a), view(b), 0.5), 1.0);
}

// a = (0, 5), b = (0, 5, 5), c = 0.1: one split of a_2 (the move-split-merge paper's point:
// a repeated value costs c, not the value).
//   D(1,1) = 0;  D(2,1) = 0 + 0.1 + 5 = 5.1;  D(1,2) = 0 + C(5, 0, 0) = 5.1
//   D(1,3) = D(1,2) + C(5, 0, 5) = 5.1 + 0.1 = 5.2        (5 between 0 and 5)
//   D(2,2) = min(0 + |5 - 5|, 5.1 + C(5, 0, 5), 5.1 + C(5, 5, 0)) = min(0, 5.2, 5.2) = 0
//   D(2,3) = min(D(1,2) + 0 = 5.1, D(1,3) + C(5, 0, 5) = 5.3, D(2,2) + C(5, 5, 5) = 0.1)
//          = 0.1
TEST(ReferenceMsm, HandComputedSplit) {
  const std::vector<float> a{0, 5}, b{0, 5, 5};
  EXPECT_NEAR(msm(view(a), view(b), 0.1), 0.1, 1e-12);
  EXPECT_NEAR(msm(view(b), view(a), 0.1), 0.1, 1e-12);  // the merge, the other way
  // c = 0: splits and merges are free, a and b differ only by a repetition.
  EXPECT_EQ(msm(view(a), view(b), 0.0), 0.0);
}

// Several dimensions: the sum of each component's distance. Component 0 is the split above
// (0.1), component 1 the same with values 0, 1, 1 (0.1): 0.2.
TEST(ReferenceMsm, DimensionsAreIndependentAndSummed) {
  const std::vector<float> a{0, 0, 5, 1}, b{0, 0, 5, 1, 5, 1};
  EXPECT_NEAR(msm(view(a, 2), view(b, 2), 0.1), 0.2, 1e-12);
}

// One sample each: D(1,1) = |a_1 - b_1|, whatever c.
TEST(ReferenceMsm, SingleSamples) {
  const std::vector<float> a{2.5f}, b{-1.0f};
  EXPECT_DOUBLE_EQ(msm(view(a), view(b), 7.0), 3.5);
}

// MSM is a metric (Stefan et al. 2013, §4): zero on equal series, symmetric, and the
// triangle inequality (up to float64 rounding) on random series of lengths 1..8.
TEST(ReferenceMsm, IsAMetric) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 8);
  for (int t = 0; t < 300; ++t) {
    const double c = t % 3 == 0 ? 0.0 : 0.3 * (t % 5);
    const auto x = random_values(rng, len(rng), t % 2), y = random_values(rng, len(rng), t % 2),
               z = random_values(rng, len(rng), t % 2);
    const double xy = msm(view(x), view(y), c), yx = msm(view(y), view(x), c);
    const double yz = msm(view(y), view(z), c), xz = msm(view(x), view(z), c);
    EXPECT_EQ(msm(view(x), view(x), c), 0.0);
    EXPECT_NEAR(xy, yx, 1e-12 * (1 + xy));
    EXPECT_LE(xz, xy + yz + 1e-12 * (1 + xz));
  }
}

TEST(ReferenceMsm, AgreesWithTheLiteralTable) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 9), dims(1, 3);
  for (int t = 0; t < 400; ++t) {
    const std::size_t d = dims(rng);
    const auto a = random_values(rng, len(rng) * d, t % 2),
               b = random_values(rng, len(rng) * d, t % 2);
    const double c = 0.25 * (t % 6);
    EXPECT_NEAR(msm(view(a, d), view(b, d), c), msm_literal(view(a, d), view(b, d), c), 1e-12)
        << "trial " << t;
  }
}

// ---------------------------------------------------------------- erp (docs/spec.md §4.5)

// r = (0), s = (1, 2), t = (2, 3, 3), g = 0, abs cost (L1, as in Chen & Ng's examples):
// ERP(r, s): D(1,0) = 0; D(0,1) = 1, D(0,2) = 3;
//   D(1,1) = min(0 + |0 - 1|, D(0,1) + |0|, D(1,0) + |1|) = 1
//   D(1,2) = min(D(0,1) + |0 - 2| = 3, D(0,2) + 0 = 3, D(1,1) + 2 = 3) = 3
// ERP(s, t): D(1,0) = 1, D(2,0) = 3; D(0,1) = 2, D(0,2) = 5, D(0,3) = 8;
//   D(1,1) = min(0 + 1, 2 + 1, 1 + 2) = 1;   D(1,2) = min(2 + 2, 5 + 1, 1 + 3) = 4
//   D(1,3) = min(5 + 2, 8 + 1, 4 + 3) = 7;   D(2,1) = min(1 + 0, 1 + 2, 3 + 2) = 1
//   D(2,2) = min(1 + 1, 4 + 2, 1 + 3) = 2;   D(2,3) = min(4 + 1, 7 + 2, 2 + 3) = 5
// ERP(r, t): D(0,j) = 2, 5, 8; D(1,1) = 2, D(1,2) = 5, D(1,3) = 8.
// The triangle inequality holds with equality: 8 = 3 + 5.
TEST(ReferenceErp, HandComputedL1) {
  const std::vector<float> r{0}, s{1, 2}, t{2, 3, 3};
  EXPECT_DOUBLE_EQ(erp(view(r), view(s), 0.0, Cost::abs), 3.0);
  EXPECT_DOUBLE_EQ(erp(view(s), view(t), 0.0, Cost::abs), 5.0);
  EXPECT_DOUBLE_EQ(erp(view(r), view(t), 0.0, Cost::abs), 8.0);
  // sq cost, ERP(r, s): D(0,1) = 1, D(0,2) = 5; D(1,1) = min(1, 1 + 0, 0 + 1) = 1;
  // D(1,2) = min(1 + 4, 5 + 0, 1 + 4) = 5.
  EXPECT_DOUBLE_EQ(erp(view(r), view(s), 0.0, Cost::sq), 5.0);
}

// The gap value: a = (1), b = (1, 1), g = 1: the extra 1 is a gap against g = 1, free.
// With g = 0 it costs |1 - 0| = 1 (abs).
TEST(ReferenceErp, GapValue) {
  const std::vector<float> a{1}, b{1, 1};
  EXPECT_DOUBLE_EQ(erp(view(a), view(b), 1.0, Cost::abs), 0.0);
  EXPECT_DOUBLE_EQ(erp(view(a), view(b), 0.0, Cost::abs), 1.0);
  // Two dimensions, g for each component: (1, 3) against g = 1 costs 0 + 2 (abs).
  const std::vector<float> a2{1, 3}, b2{1, 3, 1, 3};
  EXPECT_DOUBLE_EQ(erp(view(a2, 2), view(b2, 2), 1.0, Cost::abs), 2.0);
}

// band 0 on n = m keeps the diagonal cells (i, i) only; row 0 and column 0 stay (the
// gap-only prefixes), so D(1,1) = min(c(a_1, b_1), c(a_1, g) + c(b_1, g)) and then
// D(i,i) = D(i-1,i-1) + c(a_i, b_i). a = (3, 0, 2), b = (-3, 1, 2), g = 0, sq:
// D(1,1) = min(36, 9 + 9) = 18; D(2,2) = 18 + 1 = 19; D(3,3) = 19 + 0 = 19.
TEST(ReferenceErp, BandZeroKeepsTheDiagonal) {
  const std::vector<float> a{3, 0, 2}, b{-3, 1, 2};
  EXPECT_DOUBLE_EQ(erp(view(a), view(b), 0.0, Cost::sq, 0.0), 19.0);
  EXPECT_LE(erp(view(a), view(b), 0.0, Cost::sq), 19.0);
}

TEST(ReferenceErp, IsAMetricWithAbsCost) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 8);
  for (int t = 0; t < 300; ++t) {
    const double g = 0.5 * (t % 3);
    const auto x = random_values(rng, len(rng), t % 2), y = random_values(rng, len(rng), t % 2),
               z = random_values(rng, len(rng), t % 2);
    const auto e = [&](const std::vector<float>& p, const std::vector<float>& q) {
      return erp(view(p), view(q), g, Cost::abs);
    };
    EXPECT_EQ(e(x, x), 0.0);
    EXPECT_NEAR(e(x, y), e(y, x), 1e-12 * (1 + e(x, y)));
    EXPECT_LE(e(x, z), e(x, y) + e(y, z) + 1e-12 * (1 + e(x, z)));
  }
}

TEST(ReferenceErp, AgreesWithTheLiteralTable) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 9), dims(1, 3);
  const std::optional<double> bands[] = {std::nullopt, 0.0, 1.0, 2.5};
  for (int t = 0; t < 400; ++t) {
    const std::size_t d = dims(rng);
    const auto a = random_values(rng, len(rng) * d, t % 2),
               b = random_values(rng, len(rng) * d, t % 2);
    const double g = 0.3 * (t % 4) - 0.3;
    const Cost cost = t % 2 ? Cost::sq : Cost::abs;
    const auto band = bands[t % 4];
    const double got = erp(view(a, d), view(b, d), g, cost, band);
    const double want = erp_literal(view(a, d), view(b, d), g, cost, band);
    if (std::isinf(want))
      EXPECT_EQ(got, want) << "trial " << t;
    else
      EXPECT_NEAR(got, want, 1e-12 * (1 + want)) << "trial " << t;
  }
}

// ---------------------------------------------------------------- lcss (docs/spec.md §4.6)

// a = (0, 1, 2, 3), b = (1.2, 2.6, 5), epsilon = 0.5: a_2 = 1 matches b_1 (|1 - 1.2| = 0.2),
// a_4 = 3 matches b_2 (0.4), a_3 = 2 does not match b_2 (0.6), 5 matches nothing:
// L = 2, min(n, m) = 3, distance 1 - 2/3 = 1/3.
// delta = 0: only (i, i) pairs may match: (0, 1.2), (1, 2.6), (2, 5) do not: L = 0, 1.
// delta = 1: (2, 1) matches, (4, 2) is 2 apart: L = 1, 1 - 1/3 = 2/3. delta = 2: 1/3 again.
TEST(ReferenceLcss, HandComputed) {
  const std::vector<float> a{0, 1, 2, 3}, b{1.2f, 2.6f, 5};
  EXPECT_DOUBLE_EQ(lcss(view(a), view(b), 0.5), 1.0 - 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(lcss(view(a), view(b), 0.5, 0), 1.0);
  EXPECT_DOUBLE_EQ(lcss(view(a), view(b), 0.5, 1), 1.0 - 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(lcss(view(a), view(b), 0.5, 2), 1.0 - 2.0 / 3.0);
  // A subsequence of the other at distance 0; equal series at 0; nothing in common at 1.
  const std::vector<float> sub{0, 2, 3}, far{10, 20};
  EXPECT_EQ(lcss(view(a), view(sub), 0.5), 0.0);
  EXPECT_EQ(lcss(view(a), view(a), 0.5), 0.0);
  EXPECT_EQ(lcss(view(a), view(far), 0.5), 1.0);
}

// Several dimensions: every component within epsilon. (0, 0) vs (0.25, 0.75) (exact in
// float): component 1 is 0.75 > 0.5 apart, no match; epsilon 0.75 matches.
TEST(ReferenceLcss, EveryComponentMustMatch) {
  const std::vector<float> a{0, 0}, b{0.25f, 0.75f};
  EXPECT_EQ(lcss(view(a, 2), view(b, 2), 0.5), 1.0);
  EXPECT_EQ(lcss(view(a, 2), view(b, 2), 0.75), 0.0);
}

// The match is |a - b| <= epsilon, equality included (exact quarters).
TEST(ReferenceLcss, EpsilonIsInclusive) {
  const std::vector<float> a{0.5f}, b{0.75f};
  EXPECT_EQ(lcss(view(a), view(b), 0.25), 0.0);
  EXPECT_EQ(lcss(view(a), view(b), 0.125), 1.0);
}

TEST(ReferenceLcss, AgreesWithTheLiteralTableAndBruteForce) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> len(1, 6), dims(1, 3);
  const std::optional<std::size_t> deltas[] = {std::nullopt, 0, 1, 3};
  for (int t = 0; t < 400; ++t) {
    const std::size_t d = dims(rng);
    const auto a = random_values(rng, len(rng) * d, true),
               b = random_values(rng, len(rng) * d, true);
    const double epsilon = 0.25 * (1 + t % 4);
    const auto delta = deltas[t % 4];
    const double got = lcss(view(a, d), view(b, d), epsilon, delta);
    EXPECT_EQ(got, lcss_literal(view(a, d), view(b, d), epsilon, delta)) << "trial " << t;
    EXPECT_EQ(got, lcss_brute_force(view(a, d), view(b, d), epsilon, delta)) << "trial " << t;
    EXPECT_GE(got, 0.0);
    EXPECT_LE(got, 1.0);
  }
}

// ---------------------------------------------------------------- dispatch and checks

TEST(ReferenceMeasures, DistanceDispatchesWithTheParams) {
  const std::vector<float> a{0, 5}, b{0, 5, 5};
  DistanceParams p;
  p.metric = Metric::msm;
  p.c = 0.1;
  EXPECT_NEAR(reference::distance(view(a), view(b), p), 0.1, 1e-12);
  p.metric = Metric::erp;
  p.cost = Cost::abs;
  p.g = 5.0;  // the extra 5 is a free gap
  EXPECT_DOUBLE_EQ(reference::distance(view(a), view(b), p), 0.0);
  p.metric = Metric::lcss;
  p.epsilon = 0.5;
  p.delta = 0;  // (0, 0) and (5, 5) on the diagonal: L = 2 = min(n, m)
  EXPECT_EQ(reference::distance(view(a), view(b), p), 0.0);
}

TEST(ReferenceMeasures, BadParametersAndInputsThrow) {
  const std::vector<float> a{0, 1}, b{0, 1, 2}, c2{0, 1};
  EXPECT_THROW(msm(view(a), view(b), -0.1), std::invalid_argument);
  EXPECT_THROW(lcss(view(a), view(b), 0.0), std::invalid_argument);
  EXPECT_THROW(lcss(view(a), view(b), -1.0), std::invalid_argument);
  EXPECT_THROW(msm(view(a), view(c2, 2), 1.0), std::invalid_argument);  // dims
  const std::vector<float> empty;
  EXPECT_THROW(erp(view(empty), view(b), 0.0, Cost::sq), std::invalid_argument);
  DistanceParams p;
  p.metric = Metric::msm;
  p.band = 2.0;  // msm has no band: refused, not ignored
  EXPECT_THROW(reference::distance(view(a), view(b), p), std::invalid_argument);
}
