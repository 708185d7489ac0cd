// The cuda backend's top-K window search (kernels/cuda/window/) against the cpu backend's
// (itself checked against the reference and its unpruned self in tests/kernels/cpu): the
// same windows, distances within docs/spec.md §3.2's 1e-5; dense candidates (planted copies, a
// query taken from the series), flat windows, thresholds, hop, band, dtw and dk, sq and
// abs, K 1 to 10. Every test prints its seed (WARPWATCH_SEED replays).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/window/window_grouping.hpp"
#include "conformance/inputs.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;

namespace {

struct SearchSeries {
  std::vector<float> values;
  std::vector<std::int64_t> times;
};

SearchSeries walk(std::mt19937_64& rng, std::size_t n) {
  SearchSeries s{random_walk(rng, n, 1), std::vector<std::int64_t>(n)};
  std::iota(s.times.begin(), s.times.end(), std::int64_t{1});
  return s;
}

kernels::TopWindowsRequest request(const SearchSeries& s, kernels::PatternDef p, std::size_t k) {
  return {{"s", 1, 1}, s.values, s.times, std::move(p), false, k, nullptr};
}

double tolerance(double d) {
  return 1e-5 * std::max(1.0, std::fabs(d));
}

// The reference's distance of the window ending at `end` (what a tie is judged by).
double window_distance(const SearchSeries& s, const kernels::PatternDef& p, std::uint64_t end) {
  const std::size_t w = p.params.window ? p.params.window : p.length();
  std::vector<float> window(s.values.begin() + static_cast<std::ptrdiff_t>(end + 1 - w),
                            s.values.begin() + static_cast<std::ptrdiff_t>(end + 1));
  std::vector<float> pattern = p.values;
  if (p.params.normalize == kernels::Normalize::znorm) {
    kernels::common::znormalize(window, 1);
    kernels::common::znormalize(pattern, 1);
  }
  return kernels::reference::distance({pattern.data(), pattern.size(), 1, nullptr},
                                      {window.data(), window.size(), 1, nullptr},
                                      p.params.distance);
}

// got (cuda) against want (cpu): the same count and distances within the tolerance; where a
// window differs, the cuda one must be as good within the tolerance (a near tie).
void expect_same_windows(const SearchSeries& s, const kernels::PatternDef& p,
                         const std::vector<kernels::TopWindow>& want,
                         const std::vector<kernels::TopWindow>& got, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(got[i].distance, want[i].distance, tolerance(want[i].distance))
        << what << " #" << i;
    if (got[i].end_index == want[i].end_index) {
      EXPECT_EQ(got[i].start_ns, want[i].start_ns) << what;
      EXPECT_EQ(got[i].end_ns, want[i].end_ns) << what;
      continue;
    }
    const double tie = window_distance(s, p, got[i].end_index);
    EXPECT_NEAR(tie, want[i].distance, 2 * tolerance(want[i].distance))
        << what << " #" << i << ": cuda took the window ending " << got[i].end_index
        << ", the cpu the one ending " << want[i].end_index;
  }
}

}  // namespace

// Random walks with the query taken from the series (the UCR experiments' setup: an exact
// match exists) and ECG beats, every parameter combination the kernel specialises on.
TEST(CudaTopWindows, FindsWhatTheCpuFinds) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const auto& beats = warpwatch::bench::ecg_beats(warpwatch::bench::default_data_dir());
  std::size_t variant = 0;
  for (const bool ecg : {false, true})
    for (const std::size_t m : {24u, 100u, 300u}) {
      const std::size_t n = 12'000;
      SearchSeries s;
      std::vector<float> query;
      if (ecg) {
        warpwatch::bench::BeatStream stream(beats, m, 1, seed + m);
        s.values.resize(n);
        stream.fill(s.values.data(), n);
        s.times.resize(n);
        std::iota(s.times.begin(), s.times.end(), std::int64_t{1});
        query = warpwatch::bench::beat_pattern(beats, 3, m, 1);
      } else {
        s = walk(rng, n);
        query.assign(s.values.begin() + 5000, s.values.begin() + 5000 + static_cast<long>(m));
      }
      for (const auto metric : {kernels::Metric::dtw, kernels::Metric::dk})
        for (const auto cost : {kernels::Cost::sq, kernels::Cost::abs})
          for (const auto normalize : {kernels::Normalize::znorm, kernels::Normalize::none}) {
            const std::size_t k = std::array<std::size_t, 3>{1, 3, 10}[variant % 3];
            kernels::PatternDef p =
                window_pattern("p", 1, query, metric, variant % 4 == 3 ? m + m / 5 : 0,
                               variant % 5 == 4 ? 2 : 1, normalize);
            p.params.distance.cost = cost;
            if (variant % 2 == 1)
              p.params.distance.band = std::max(1.0, 0.05 * static_cast<double>(m));
            const std::string what = std::string(ecg ? "ecg" : "walk") + " m " + std::to_string(m) +
                                     " variant " + std::to_string(variant) + " k " +
                                     std::to_string(k) + " seed " + std::to_string(seed);
            auto r = request(s, p, k);
            const auto want = kernels::cpu::top_windows(r, {.threads = 2});
            const auto got = kernels::cuda::top_windows(r);
            expect_same_windows(s, p, want, got, what);
            // A threshold between the first and the last distance: the cuda search keeps
            // only what is at or under it, like the cpu.
            if (want.size() >= 2 && want.front().distance < want.back().distance) {
              r.use_threshold = true;
              r.pattern.params.threshold = 0.5 * (want.front().distance + want.back().distance);
              expect_same_windows(s, p, kernels::cpu::top_windows(r, {.threads = 2}),
                                  kernels::cuda::top_windows(r), what + " with a threshold");
            }
            ++variant;
          }
    }
}

// A query taken from a long walk, no band: the search is decided by abandoning (the UCR
// task the issue's target measures), and the exact copy is found at distance ~0.
TEST(CudaTopWindows, FindsTheCopyOfALongQueryAndPrunesTheRest) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const std::size_t n = 200'000, m = 1023, at = 123'456;
  const SearchSeries s = walk(rng, n);
  std::vector<float> query(s.values.begin() + at, s.values.begin() + static_cast<long>(at + m));
  const kernels::PatternDef p =
      window_pattern("q", 1, query, kernels::Metric::dtw, 0, 1, kernels::Normalize::znorm);
  const auto got = kernels::cuda::top_windows(request(s, p, 3));
  const auto want = kernels::cpu::top_windows(request(s, p, 3), {.threads = 2});
  expect_same_windows(s, p, want, got, "seed " + std::to_string(seed));
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(got[0].start_index, at);
  EXPECT_LT(got[0].distance, 1e-3);
  // K = 1: once the copy is found the bound is ~0, and the cascade or the first cuts take
  // every other window (K = 3 keeps aligning the windows under its third region's distance).
  kernels::TopWindowsStats stats;
  auto r = request(s, p, 1);
  r.stats = &stats;
  kernels::DeviceTimings timings;
  const auto best = kernels::cuda::top_windows(r, &timings);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0], got[0]);
  const std::uint64_t windows = n - m + 1;
  EXPECT_EQ(stats.windows_evaluated, windows);
  std::uint64_t pruned = 0;
  for (const auto p_ : stats.windows_pruned) pruned += p_;
  EXPECT_LE(pruned, windows);
  EXPECT_GT(pruned, windows * 99 / 100)
      << "LB_Kim " << stats.windows_pruned[0] << ", LB_Keogh " << stats.windows_pruned[1]
      << ", abandoned " << stats.windows_pruned[3];
  EXPECT_GT(timings.kernel_seconds, 0.0);
}

// Flat stretches under znorm are skipped (docs/spec.md §3.2), not matched and not counted.
TEST(CudaTopWindows, SkipsFlatWindows) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  SearchSeries s = walk(rng, 3000);
  std::fill(s.values.begin() + 1000, s.values.begin() + 1400, 5.0f);
  const std::vector<float> query(s.values.begin() + 2000, s.values.begin() + 2064);
  const kernels::PatternDef p =
      window_pattern("p", 1, query, kernels::Metric::dtw, 0, 1, kernels::Normalize::znorm);
  kernels::TopWindowsStats gpu, cpu;
  auto r = request(s, p, 5);
  r.stats = &gpu;
  const auto got = kernels::cuda::top_windows(r);
  r.stats = &cpu;
  const auto want = kernels::cpu::top_windows(r, {.threads = 2});
  expect_same_windows(s, p, want, got, "flat");
  EXPECT_EQ(gpu.windows_evaluated, cpu.windows_evaluated);
  EXPECT_EQ(gpu.windows_evaluated, (3000 - 64 + 1) - (400 - 64 + 1));
}

TEST(CudaTopWindows, RefusesWhatItDoesNotSearch) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  const SearchSeries s = walk(rng, 5000);
  const std::vector<float> q(s.values.begin(), s.values.begin() + 32);
  const auto refused = [&](const kernels::PatternDef& p, kernels::StreamDef def,
                           const std::vector<float>& values, const std::string& says) {
    const kernels::TopWindowsRequest r{def, values, s.times, p, false, 1, nullptr};
    try {
      kernels::cuda::top_windows(r);
      ADD_FAILURE() << "not refused: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  };
  // ed has window bounds but no device search; the measures without bounds (twed, msm, ...)
  // are searched by aligning every window (test_cuda_measures.cpp).
  refused(window_pattern("p", 1, q, kernels::Metric::ed), {"s", 1, 1}, s.values, "dtw and dk");
  std::vector<float> two(2 * s.values.size(), 1.0f);
  for (std::size_t i = 0; i < two.size(); ++i) two[i] = s.values[i / 2];
  std::vector<float> q2(64);
  for (std::size_t i = 0; i < 64; ++i) q2[i] = q[i / 2];
  refused(window_pattern("p", 2, q2, kernels::Metric::dtw), {"s", 2, 1}, two, "one dimension");
  const std::vector<float> long_query(s.values.begin(), s.values.begin() + 2000);
  refused(window_pattern("p", 1, long_query, kernels::Metric::dtw), {"s", 1, 1}, s.values,
          "at most 1536");
}

TEST(CudaTopWindows, NoWindowWhenTheBandAdmitsNoPath) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  const SearchSeries s = walk(rng, 400);
  const std::vector<float> q(s.values.begin(), s.values.begin() + 16);
  kernels::PatternDef p = window_pattern("p", 1, q, kernels::Metric::dtw, 24);
  p.params.distance.band = 0.0;
  EXPECT_TRUE(kernels::cuda::top_windows(request(s, p, 3)).empty());
}
