// docs/spec.md §3.2's top K windows (kernels/top_windows.hpp): the greedy selection, the pruning
// bound, the reference's search, and the cpu backend's pruned search against its unpruned
// self (bit for bit) and against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "conformance/inputs.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/top_windows.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;
using kernels::common::TopCandidate;

TEST(TopSelection, TakesIncreasingDistancesWithoutOverlapsOverHalfAWindow) {
  // w 10: windows ending 5 apart overlap by 5 (allowed), 4 apart by 6 (not).
  const std::vector<TopCandidate> c{{3.0, 100}, {1.0, 50},  {2.0, 54}, {2.0, 55},
                                    {1.5, 60},  {4.0, 200}, {1.0, 70}};
  const auto top = kernels::common::select_top(c, 4, 10);
  ASSERT_EQ(top.size(), 4u);
  // 1.0@50, then 1.0@70 (of equal distances the earlier first, and 20 from 50), 1.5@60 (10
  // from both), 2.0@54 not (4 from 50: overlap 6), 2.0@55 (5 from 50 and 60: overlap 5).
  EXPECT_EQ(top[0].end, 50u);
  EXPECT_EQ(top[1].end, 70u);
  EXPECT_EQ(top[2].end, 60u);
  EXPECT_EQ(top[3].end, 55u);
  EXPECT_EQ(kernels::common::select_top(c, 10, 10).size(), 6u);  // all but 2.0@54
  // The bound for k = 2 is the 3rd window taken: 1.5.
  EXPECT_EQ(kernels::common::top_bound(c, 2, 10), 1.5);
  EXPECT_EQ(kernels::common::top_bound(c, 4, 10), std::numeric_limits<double>::infinity());
}

namespace {

struct SearchSeries {
  std::vector<float> values;
  std::vector<std::int64_t> times;
  std::vector<float> base;
};

// A random walk holding `copies` noisy copies of a random shape, each noisier than the
// last, so that their distances are well apart.
SearchSeries planted(std::mt19937_64& rng, std::size_t n, std::size_t m, std::size_t copies) {
  SearchSeries s{random_walk(rng, n, 1), {}, random_walk(rng, m, 1)};
  s.times.resize(n);
  std::iota(s.times.begin(), s.times.end(), std::int64_t{1});
  for (auto& t : s.times) t *= 1'000'000'000;
  std::normal_distribution<float> noise(0.0f, 1.0f);
  for (std::size_t c = 0; c < copies; ++c) {
    const std::size_t at = (c + 1) * n / (copies + 1);
    const float level = 0.01f * std::pow(2.0f, static_cast<float>(c));  // 0.01, 0.02, ...
    for (std::size_t i = 0; i < m; ++i) s.values[at + i] = s.base[i] + level * noise(rng);
  }
  return s;
}

kernels::TopWindowsRequest request(const SearchSeries& s, kernels::PatternDef p, std::size_t k) {
  return {{"s", 1, 1'000'000'000}, s.values, s.times, std::move(p), false, k, nullptr};
}

}  // namespace

TEST(TopWindows, CpuFindsThePlantedCopiesLikeTheReference) {
  std::mt19937_64 rng(test_seed());
  for (const auto normalize : {kernels::Normalize::znorm, kernels::Normalize::none}) {
    for (const std::optional<double> band : {std::optional<double>{}, std::optional<double>{3.0}}) {
      const SearchSeries s = planted(rng, 5000, 64, 5);
      kernels::PatternDef p = window_pattern("p", 1, s.base, kernels::Metric::dtw, 0, 1, normalize);
      p.params.distance.band = band;
      const auto want = kernels::reference::top_windows(request(s, p, 4));
      const auto got = kernels::cpu::top_windows(request(s, p, 4), {.threads = 2});
      ASSERT_EQ(want.size(), 4u);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].end_index, want[i].end_index) << "#" << i;
        EXPECT_EQ(got[i].start_ns, want[i].start_ns);
        EXPECT_NEAR(got[i].distance, want[i].distance, 1e-5 * std::max(1.0, want[i].distance));
      }
      // The copies, least noisy first: they start at (c + 1) n / 6 (a warped alignment may
      // prefer a window a few samples off a noisy copy).
      for (std::size_t i = 0; i < 4; ++i) {
        const auto planted_at = static_cast<std::int64_t>((i + 1) * 5000 / 6);
        EXPECT_LE(std::abs(static_cast<std::int64_t>(want[i].start_index) - planted_at), 3)
            << "#" << i << " starts at " << want[i].start_index;
      }
    }
  }
}

// On random walks and ECG beats, with and without znorm and band, dtw and dk, K 1 / 3 / 10,
// with a threshold or without, 1 and 2 threads: the pruned search selects what the
// unpruned one does, bit for bit (both align the windows they keep the same way).
TEST(TopWindows, PrunedSearchSelectsWhatTheFullSearchDoes) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const auto& beats = warpwatch::bench::ecg_beats(warpwatch::bench::default_data_dir());
  for (const bool ecg : {false, true}) {
    SearchSeries s;
    const std::size_t n = 20'000, m = 96;
    if (ecg) {
      warpwatch::bench::BeatStream stream(beats, m, 1, seed);
      s.values.resize(n);
      stream.fill(s.values.data(), n);
      s.base = warpwatch::bench::beat_pattern(beats, 5, m, 1);
    } else {
      s.values = random_walk(rng, n, 1);
      s.base = std::vector<float>(s.values.begin() + 7000, s.values.begin() + 7000 + m);
    }
    s.times.resize(n);
    std::iota(s.times.begin(), s.times.end(), std::int64_t{1});
    std::size_t variant = 0;
    for (const auto metric : {kernels::Metric::dtw, kernels::Metric::dk})
      for (const auto normalize : {kernels::Normalize::znorm, kernels::Normalize::none})
        for (const std::size_t k : {1u, 3u, 10u}) {
          kernels::PatternDef p =
              window_pattern("p", 1, s.base, metric, 0, 1 + variant % 2, normalize);
          if (variant % 3 != 0) p.params.distance.band = 5.0;
          auto r = request(s, p, k);
          const auto full = kernels::cpu::top_windows(r, {.threads = 2, .window_pruning = false});
          ASSERT_EQ(full.size(), k) << "variant " << variant;
          for (const unsigned threads : {1u, 2u}) {
            const auto got = kernels::cpu::top_windows(r, {.threads = threads});
            EXPECT_EQ(got, full) << (ecg ? "ecg" : "walk") << " variant " << variant << " k " << k
                                 << " threads " << threads;
          }
          // With a threshold between the 2nd and 3rd distance: only what is at or under it.
          if (k == 3 && full[1].distance < full[2].distance) {
            r.use_threshold = true;
            r.pattern.params.threshold = 0.5 * (full[1].distance + full[2].distance);
            const auto under = kernels::cpu::top_windows(r, {.threads = 2});
            ASSERT_EQ(under.size(), 2u);
            EXPECT_EQ(under[0], full[0]);
            EXPECT_EQ(under[1], full[1]);
          }
          ++variant;
        }
  }
}

// auto searches on the cpu; cuda needs a device (its search is tested in the gpu suite).
TEST(TopWindows, AutoSearchesOnTheCpuAndCudaNeedsADevice) {
  SearchSeries s;
  s.values.assign(100, 0.0f);
  for (std::size_t i = 0; i < 100; ++i) s.values[i] = static_cast<float>(i % 7);
  s.times.resize(100);
  std::iota(s.times.begin(), s.times.end(), std::int64_t{1});
  const auto p = window_pattern("p", 1, {1, 2, 3, 4}, kernels::Metric::dtw);
  EXPECT_EQ(kernels::top_windows(kernels::Backend::automatic, request(s, p, 2)).size(), 2u);
  if (kernels::cuda_status().device_count == 0) {
    try {
      kernels::top_windows(kernels::Backend::cuda, request(s, p, 1));
      FAIL() << "the cuda backend answered without a device";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("cuda backend cannot run"), std::string::npos)
          << e.what();
    }
  } else {
    EXPECT_EQ(kernels::top_windows(kernels::Backend::cuda, request(s, p, 2)),
              kernels::top_windows(kernels::Backend::cpu, request(s, p, 2)));
  }
}

TEST(TopWindows, WindowsWithNoAlignmentInTheBandAreNoMatch) {
  std::mt19937_64 rng(test_seed());
  const SearchSeries s = planted(rng, 400, 16, 1);
  // w 24 against m 16 with band 0: no cell path from (1,1) to (16,24), every distance +inf.
  kernels::PatternDef p = window_pattern("p", 1, s.base, kernels::Metric::dtw, 24);
  p.params.distance.band = 0.0;
  EXPECT_TRUE(kernels::reference::top_windows(request(s, p, 3)).empty());
  EXPECT_TRUE(kernels::cpu::top_windows(request(s, p, 3), {.threads = 2}).empty());
  EXPECT_TRUE(
      kernels::cpu::top_windows(request(s, p, 3), {.threads = 2, .window_pruning = false}).empty());
}

TEST(TopWindows, RefusesAPatternOfOtherDims) {
  std::mt19937_64 rng(test_seed());
  const SearchSeries s = planted(rng, 200, 8, 1);
  kernels::PatternDef p = window_pattern("p", 1, s.base, kernels::Metric::dtw);
  p.dims = 2;
  p.values.resize(16);
  EXPECT_THROW(kernels::cpu::top_windows(request(s, p, 1)), std::invalid_argument);
  EXPECT_THROW(kernels::reference::top_windows(request(s, p, 1)), std::invalid_argument);
}
