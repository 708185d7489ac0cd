// kernels::reference::dtw_path (docs/spec.md §7): the optimal path of dtw's table, ties broken
// by docs/spec.md §3.1's predecessor order, its costs summing to dtw() bit for bit.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace {

using warpwatch::kernels::Cost;
using warpwatch::kernels::SeriesView;
using warpwatch::kernels::reference::dtw;
using warpwatch::kernels::reference::dtw_path;
using warpwatch::kernels::reference::PathStep;

TEST(ReferenceDtwPath, SumsToDtwAndIsMonotoneAndContiguousOnRandomInputs) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::uniform_int_distribution<std::size_t> len(2, 40), dims(1, 3);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = len(rng), m = len(rng), d = dims(rng);
    std::vector<float> a(n * d), b(m * d);
    for (auto& v : a) v = noise(rng);
    for (auto& v : b) v = noise(rng);
    const SeriesView va{a.data(), n, d}, vb{b.data(), m, d};
    const std::optional<double> band =
        trial % 3 == 0 ? std::optional<double>(3.0 + trial % 5) : std::nullopt;
    const Cost cost = trial % 2 ? Cost::abs : Cost::sq;
    const double want = dtw(va, vb, cost, band);
    const auto path = dtw_path(va, vb, cost, band);
    if (!std::isfinite(want)) {
      EXPECT_TRUE(path.empty());
      continue;
    }
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(path.front().i, 0u);
    EXPECT_EQ(path.front().j, 0u);
    EXPECT_EQ(path.back().i, n - 1);
    EXPECT_EQ(path.back().j, m - 1);
    double sum = 0.0;
    for (std::size_t s = 0; s < path.size(); ++s) {
      sum += path[s].cost;
      if (s == 0) continue;
      const std::size_t di = path[s].i - path[s - 1].i, dj = path[s].j - path[s - 1].j;
      ASSERT_TRUE((di == 1 && dj == 0) || (di == 0 && dj == 1) || (di == 1 && dj == 1))
          << "trial " << trial << " step " << s;
    }
    EXPECT_EQ(sum, want) << "trial " << trial << " n " << n << " m " << m;
  }
}

TEST(ReferenceDtwPath, HandWorkedThreeByThree) {
  // a = 0 1 1, b = 0 0 1, sq costs. D (1-based):  0 0 1 / 1 1 0 / 2 2 0. From (3,3) the
  // predecessors (3,2)=2, (2,2)=1, (2,3)=0: (2,3); from (2,3): (2,2)=1, (1,2)=0, (1,3)=1:
  // (1,2); from (1,2): (1,1).
  const std::vector<float> a{0, 1, 1}, b{0, 0, 1};
  const auto path = dtw_path({a.data(), 3, 1}, {b.data(), 3, 1}, Cost::sq);
  const std::vector<PathStep> want{{0, 0, 0.0}, {0, 1, 0.0}, {1, 2, 0.0}, {2, 2, 0.0}};
  EXPECT_EQ(path, want);
}

TEST(ReferenceDtwPath, TiesGoToTheEarlierPredecessor) {
  // All costs 0: every predecessor ties, and (i, j-1) comes first (docs/spec.md §3.1), so
  // from the end the path walks back along b first.
  const std::vector<float> a{0, 0, 0}, b{0, 0, 0};
  const auto path = dtw_path({a.data(), 3, 1}, {b.data(), 3, 1}, Cost::sq);
  const std::vector<PathStep> want{{0, 0, 0.0}, {1, 0, 0.0}, {2, 0, 0.0}, {2, 1, 0.0}, {2, 2, 0.0}};
  EXPECT_EQ(path, want);
}

}  // namespace
