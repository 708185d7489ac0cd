// Window mode (docs/spec.md §3.2) of the reference Matcher.
//
// Expected matches come from planted occurrences, hand-made cases whose window distances
// are known, and a literal simulation of docs/spec.md §3.2 written here (WindowSim) that
// compares each window with reference::distance (tested on its own in
// test_reference_distances.cpp) and groups windows with the exclusion zone w/2.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;
using namespace warpwatch::testing;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

// A realistic epoch (late 2023, in ns) for the streams' timestamps: window times are
// rebased from values this large.
constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;

// Timestamps near-regular at 1 s (0.5 s to 1.5 s apart) from kEpochNs on; planted copies
// carry noise of standard deviation 0.1.
constexpr RandomStreamShape kWindowStreams{
    0.1f, kEpochNs, kSecond / 2, 3 * kSecond / 2, kSecond / 2, 3 * kSecond / 2};

PatternDef window_pattern(const std::string& id, std::size_t dims, std::vector<float> values,
                          Metric metric, double threshold, std::size_t window = 0,
                          std::size_t hop = 1, Normalize normalize = Normalize::none) {
  PatternDef p = base_pattern(id, dims, std::move(values), Mode::window, metric, threshold);
  p.params.window = window;
  p.params.hop = hop;
  p.params.normalize = normalize;
  return p;
}

// A series prepared for reference::distance.
struct Prepared {
  std::vector<float> values;
  std::vector<double> times;
  std::size_t dims = 1;
  SeriesView view() const { return {values.data(), values.size() / dims, dims, times.data()}; }
};

// The pattern as compared: normalized when asked; its times are its own (seconds) or
// i * nominal period.
Prepared prepare_pattern(const PatternDef& p, std::int64_t period_ns) {
  Prepared out;
  out.dims = p.dims;
  out.values = p.values;
  if (p.params.normalize == Normalize::znorm) {
    const bool ok = znormalize(out.values, p.dims);
    EXPECT_TRUE(ok) << "test patterns are not flat";
  }
  if (!p.times.empty()) {
    out.times = p.times;
  } else {
    for (std::size_t i = 0; i < p.length(); ++i)
      out.times.push_back(static_cast<double>(i) * static_cast<double>(period_ns) * 1e-9);
  }
  return out;
}

// The window of w samples ending at `end`, times rebased to tp0 (seconds); nullopt when flat
// under znorm.
std::optional<Prepared> extract_window(const StreamData& s, std::size_t end, std::size_t w,
                                       double tp0, Normalize normalize) {
  Prepared out;
  out.dims = s.dims;
  const std::size_t first = end + 1 - w;
  out.values.assign(s.values.begin() + static_cast<std::ptrdiff_t>(first * s.dims),
                    s.values.begin() + static_cast<std::ptrdiff_t>((end + 1) * s.dims));
  for (std::size_t j = first; j <= end; ++j)
    out.times.push_back(tp0 + static_cast<double>(s.ts[j] - s.ts[first]) * 1e-9);
  if (normalize == Normalize::znorm && !znormalize(out.values, s.dims)) return std::nullopt;
  return out;
}

// docs/spec.md §3.2 for one (stream, pattern) pair whose first sample is `first`, literally.
class WindowSim {
 public:
  WindowSim(const PatternDef& pattern, const StreamData& stream, std::uint64_t first = 0)
      : pattern_(pattern),
        stream_(stream),
        prepared_(prepare_pattern(pattern, stream.period_ns)),
        w_(pattern.params.window ? pattern.params.window : pattern.length()),
        h_(w_ / 2),
        first_(first),
        next_(first) {}

  // The distance of the window ending at sample e, if one ends there and is not flat.
  std::optional<double> window_distance(std::uint64_t e) {
    if (e < first_ + w_ - 1 || (e - first_ - (w_ - 1)) % pattern_.params.hop != 0)
      return std::nullopt;
    auto win = extract_window(stream_, e, w_, prepared_.times[0], pattern_.params.normalize);
    if (!win) {
      ++flat_;
      return std::nullopt;
    }
    return reference::distance(prepared_.view(), win->view(), pattern_.params.distance);
  }

  std::optional<RawMatch> step() {
    const std::uint64_t e = next_++;
    if (auto d = window_distance(e)) {
      distances_.push_back(*d);
      if (*d <= pattern_.params.threshold && (!cand_ || *d < cand_->distance)) cand_ = make(*d, e);
    }
    if (cand_ && e - cand_->end_index >= h_) {
      auto r = cand_;
      cand_.reset();
      return r;
    }
    return std::nullopt;
  }

  std::vector<RawMatch> run(std::size_t end, bool flush_at_end) {
    std::vector<RawMatch> out;
    while (next_ < end)
      if (auto r = step()) out.push_back(*r);
    if (flush_at_end && cand_) {
      out.push_back(*cand_);
      cand_.reset();
    }
    return out;
  }

  const std::vector<double>& distances() const { return distances_; }
  std::uint64_t flat() const { return flat_; }

 private:
  RawMatch make(double d, std::uint64_t e) const {
    const std::uint64_t s = e + 1 - w_;
    return raw_match(stream_.id, pattern_.id, d, s, e, stream_.ts[s], stream_.ts[e]);
  }

  const PatternDef& pattern_;
  const StreamData& stream_;
  Prepared prepared_;
  std::size_t w_, h_;
  std::uint64_t first_, next_;
  std::optional<RawMatch> cand_;
  std::vector<double> distances_;
  std::uint64_t flat_ = 0;
};

double quantile_threshold(const PatternDef& p, const StreamData& s, double q) {
  WindowSim sim(p, s);
  sim.run(s.length(), false);
  auto v = sim.distances();
  EXPECT_FALSE(v.empty());
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())))];
}

}  // namespace

// =================================================================================
// Planted occurrences. A two-lobed pattern (m = 20, zero at both ends) is planted three
// times, each resampled to a length L in [0.8m, 1.25m] (time warping), into noise of
// standard deviation 0.05; w = m, hop = 1. The thresholds were calibrated on 4000 seeds
// with margins on both sides: dtw (sq) best planted window <= 0.37, no noise-only window
// below 2.2, split occurrences above 0.8: threshold 0.6; twed (nu = 0.001/s,
// lambda = 0.5) best planted <= 5.9, noise >= 12.7, splits above 11.5: threshold 8.5;
// znorm dtw on 3x + 2 (raw dtw cannot see them) best planted <= 1.4, noise >= 3.3:
// threshold 2.5.
namespace {

struct Planted {
  StreamData stream;
  std::vector<float> pattern;
  std::size_t pos[3];
  std::size_t len[3];
};

Planted planted(std::mt19937_64& rng, std::size_t m, bool affine) {
  Planted out;
  out.pattern.resize(m);
  for (std::size_t i = 0; i < m; ++i) {
    const double u = static_cast<double>(i) / static_cast<double>(m - 1);
    out.pattern[i] =
        static_cast<float>(std::sin(2 * std::numbers::pi * u) * std::sin(std::numbers::pi * u));
  }
  const std::size_t n = 400;
  std::normal_distribution<double> noise(0.0, 0.05);
  std::vector<double> x(n);
  for (auto& v : x) v = noise(rng);
  std::uniform_int_distribution<std::size_t> jitter(0, 20);
  std::uniform_int_distribution<std::size_t> length(
      static_cast<std::size_t>(std::lround(0.8 * static_cast<double>(m))),
      static_cast<std::size_t>(std::lround(1.25 * static_cast<double>(m))));
  const std::size_t base[3] = {60, 190, 310};
  for (int k = 0; k < 3; ++k) {
    out.pos[k] = base[k] + jitter(rng);
    out.len[k] = length(rng);
    const std::size_t L = out.len[k];
    for (std::size_t j = 0; j < L; ++j) {
      const double s =
          static_cast<double>(j) * static_cast<double>(m - 1) / static_cast<double>(L - 1);
      const std::size_t i0 = std::min(static_cast<std::size_t>(s), m - 2);
      const double f = s - static_cast<double>(i0);
      x[out.pos[k] + j] += out.pattern[i0] * (1 - f) + out.pattern[i0 + 1] * f;
    }
  }
  out.stream.id = "planted";
  out.stream.dims = 1;
  out.stream.period_ns = kSecond;
  for (std::size_t i = 0; i < n; ++i) {
    out.stream.values.push_back(static_cast<float>(affine ? 3 * x[i] + 2 : x[i]));
    out.stream.ts.push_back(kEpochNs + static_cast<std::int64_t>(i) * kSecond);
  }
  return out;
}

void expect_three_occurrences(const Planted& p, const PatternDef& pattern, std::mt19937_64& rng) {
  auto matcher = reference::make_matcher();
  matcher->add_stream(p.stream.def());
  matcher->add_pattern(pattern);
  const auto got = feed(*matcher, {p.stream}, Partition::random_sizes, rng);
  std::ostringstream where;
  for (int k = 0; k < 3; ++k) where << " [" << p.pos[k] << "," << p.pos[k] + p.len[k] - 1 << "]";
  ASSERT_EQ(got.size(), 3u) << "planted at" << where.str() << "\n" << describe(got);
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(got[k].end_index - got[k].start_index + 1, pattern.length());
    EXPECT_GE(got[k].end_index, p.pos[k]) << "occurrence " << k << " planted at" << where.str();
    EXPECT_LE(got[k].start_index, p.pos[k] + p.len[k] - 1)
        << "occurrence " << k << " planted at" << where.str();
    EXPECT_LE(got[k].distance, pattern.params.threshold);
  }
}

}  // namespace

TEST(ReferenceWindow, PlantedOccurrencesDtw) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (int rep = 0; rep < 5; ++rep) {
    const Planted p = planted(rng, 20, false);
    expect_three_occurrences(p, window_pattern("bump", 1, p.pattern, Metric::dtw, 0.6), rng);
  }
}

TEST(ReferenceWindow, PlantedOccurrencesTwed) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (int rep = 0; rep < 5; ++rep) {
    const Planted p = planted(rng, 20, false);
    PatternDef pattern = window_pattern("bump", 1, p.pattern, Metric::twed, 8.5);
    pattern.params.distance.nu = 0.001;
    pattern.params.distance.lambda = 0.5;
    pattern.params.distance.p = 2.0;
    expect_three_occurrences(p, pattern, rng);
  }
}

TEST(ReferenceWindow, PlantedOccurrencesZnormDtw) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (int rep = 0; rep < 5; ++rep) {
    const Planted p = planted(rng, 20, true);
    expect_three_occurrences(
        p, window_pattern("bump", 1, p.pattern, Metric::dtw, 2.5, 0, 1, Normalize::znorm), rng);
    // Without normalization the scaled, shifted copies are far from the pattern.
    auto matcher = reference::make_matcher();
    matcher->add_stream(p.stream.def());
    matcher->add_pattern(window_pattern("bump", 1, p.pattern, Metric::dtw, 2.5));
    EXPECT_TRUE(feed(*matcher, {p.stream}, Partition::one_big, rng).empty());
  }
}

// =================================================================================
// Exclusion zone on a hand-made case. Pattern = 4 zeros, w = m = 4, dtw sq: a path must
// visit every window sample at least once and the diagonal visits each once, so the
// window distance is the window's sum of squares. Threshold 1, h = w/2 = 2.
//
//  index  0   1   2   3   4   5  6   7   8  9  10 11 12 13  14 15  16 17 18 19 20
//  x      3  .5  .5  .5  .5   0 .5  .5   3  0   1  0  0 .5   0 .5   3  0  0  0 .5
//  x^2    9 .25 .25 .25 .25   0 .25 .25  9  0   1  0  0 .25  0 .25  9  0  0  0 .25
//
//  e=3  W=9.75 no          e=12 W=1    cand (1, 12)
//  e=4  W=1    cand (1, 4) e=13 W=1.25 no
//  e=5  W=.75  cand (.75,5)e=14 W=.25  better: cand (.25, 14) (14-12 = 2, but the window
//  e=6  W=.75  equal: kept              at e is evaluated first)
//  e=7  W=.75  equal: kept; 7-5 = 2:   e=15 W=.5 qualifies, not better
//       REPORT (.75, 2..5)             e=16 W=9.5; 16-14 = 2: REPORT (.25, 11..14)
//  e=8..11 contain the 9: no           e=17..19 no; e=20 W=.25 cand (.25, 20): flush
TEST(ReferenceWindow, ExclusionZoneHandCase) {
  const StreamData s = hand_stream(
      {3, .5f, .5f, .5f, .5f, 0, .5f, .5f, 3, 0, 1, 0, 0, .5f, 0, .5f, 3, 0, 0, 0, .5f}, kEpochNs);
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  matcher->add_pattern(window_pattern("z", 1, {0, 0, 0, 0}, Metric::dtw, 1.0));
  const auto got = feed_one_by_one(*matcher, s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].first, 7u);
  EXPECT_EQ(got[0].second, expected(s, "z", 0.75, 2, 5)) << describe(got[0].second);
  EXPECT_EQ(got[1].first, 16u);
  EXPECT_EQ(got[1].second, expected(s, "z", 0.25, 11, 14)) << describe(got[1].second);
  EXPECT_EQ(got[2].first, s.length());  // from flush()
  EXPECT_EQ(got[2].second, expected(s, "z", 0.25, 17, 20)) << describe(got[2].second);
}

// The pending best window of a removed pair comes back from remove_pattern/remove_stream
// (the hand case above, whose last candidate (.25, 17..20) is pending at the end).
TEST(ReferenceWindow, RemovalReportsThePendingWindow) {
  const StreamData s = hand_stream(
      {3, .5f, .5f, .5f, .5f, 0, .5f, .5f, 3, 0, 1, 0, 0, .5f, 0, .5f, 3, 0, 0, 0, .5f}, kEpochNs);
  for (int how = 0; how < 2; ++how) {
    auto matcher = reference::make_matcher();
    matcher->add_stream(s.def());
    matcher->add_pattern(window_pattern("z", 1, {0, 0, 0, 0}, Metric::dtw, 1.0));
    const StreamChunk c = s.chunk(0, s.length());
    const auto got = matcher->process(std::span<const StreamChunk>(&c, 1));
    ASSERT_EQ(got.size(), 2u) << describe(got);
    EXPECT_EQ(got[0], expected(s, "z", 0.75, 2, 5));
    EXPECT_EQ(got[1], expected(s, "z", 0.25, 11, 14));
    const auto removed = how == 0 ? matcher->remove_pattern("z") : matcher->remove_stream("s");
    ASSERT_EQ(removed.size(), 1u) << "how=" << how;
    EXPECT_EQ(removed[0], expected(s, "z", 0.25, 17, 20));
    EXPECT_TRUE(matcher->flush().empty());
  }
}

// w != m: a 2-sample zero pattern against windows of 4 has the same distances (each
// window sample is visited at least once, a path can visit each exactly once), and the
// exclusion zone is w/2 = 2, not m/2 = 1: identical events.
TEST(ReferenceWindow, WindowLongerThanPattern) {
  const StreamData s = hand_stream(
      {3, .5f, .5f, .5f, .5f, 0, .5f, .5f, 3, 0, 1, 0, 0, .5f, 0, .5f, 3, 0, 0, 0, .5f}, kEpochNs);
  auto matcher = reference::make_matcher();
  matcher->add_stream(s.def());
  matcher->add_pattern(window_pattern("z2", 1, {0, 0}, Metric::dtw, 1.0, 4));
  const auto got = feed_one_by_one(*matcher, s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].first, 7u);
  EXPECT_EQ(got[0].second, expected(s, "z2", 0.75, 2, 5));
  EXPECT_EQ(got[1].first, 16u);
  EXPECT_EQ(got[1].second, expected(s, "z2", 0.25, 11, 14));
  EXPECT_EQ(got[2].second, expected(s, "z2", 0.25, 17, 20));
}

// hop > 1. Pattern = 3 zeros, w = 3, dtw sq, threshold 0.5, h = 1.
//  index 0 1 2 3 4 5 6 7 8 9 10
//  x     1 0 0 0 1 1 0 0 0 1 1
// hop 2: windows end at 2, 4, 6, 8, 10 with sums 1, 1, 2, 0, 2: only [6..8], reported at 9.
//   The zero run [1..3] ends at 3, where no window ends.
// hop 1: [1..3] (sum 0) is reported at 4, [6..8] at 9.
// hop 2 with the pattern added after sample 0 (first = 1): windows end at 3, 5, 7, 9 with
//   sums 0, 2, 1, 1: only [1..3], reported at 4.
TEST(ReferenceWindow, HopSelectsWindowEnds) {
  const StreamData s = hand_stream({1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1}, kEpochNs);
  // The reports of the zero pattern with `hop`, its pair created after the stream's first
  // `first` samples, each with the index of the one-sample call that returned it.
  auto reports = [&](std::size_t hop, std::size_t first) {
    auto matcher = reference::make_matcher();
    matcher->add_stream(s.def());
    if (first > 0) {
      const StreamChunk head = s.chunk(0, first);
      EXPECT_TRUE(matcher->process(std::span<const StreamChunk>(&head, 1)).empty());
    }
    matcher->add_pattern(window_pattern("z", 1, {0, 0, 0}, Metric::dtw, 0.5, 0, hop));
    return feed_one_by_one(*matcher, s, first);
  };
  {
    const auto got = reports(2, 0);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].first, 9u);
    EXPECT_EQ(got[0].second, expected(s, "z", 0.0, 6, 8));
  }
  {
    const auto got = reports(1, 0);
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].first, 4u);
    EXPECT_EQ(got[0].second, expected(s, "z", 0.0, 1, 3));
    EXPECT_EQ(got[1].first, 9u);
    EXPECT_EQ(got[1].second, expected(s, "z", 0.0, 6, 8));
  }
  {
    const auto got = reports(2, 1);
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].first, 4u);
    EXPECT_EQ(got[0].second, expected(s, "z", 0.0, 1, 3));
  }
}

// twed in window mode: window times are rebased to the pattern's first time (seconds).
// Pattern {0, 1}; stream {3, 1, 1} at T0, T0 + 2 s, T0 + 3 s; nu = 0.5, lambda = 1, w = 2,
// threshold 3.
//  (a) pattern without times, nominal period 2 s: tp = {0, 2}.
//      window [0..1] = {3, 1} at {0, 2}: D11 = 3, D12 = 3+2+1+1 = 7, D21 = 3+1+1+1 = 6,
//        D22 = min(3 + 0 + 3 + 0 = 6, 7+1+1+1, 6+2+1+1) = 6            -> no
//      window [1..2] = {1, 1} at {0, 1}: D11 = 1, D12 = 1+0+.5+1 = 2.5, D21 = 1+1+1+1 = 4,
//        D22 = min(1 + 0 + 1 + .5(|2-1| + 0) = 2.5, 2.5+1+1+1, 4+0+.5+1) = 2.5 -> (2.5, 1..2)
//  (b) pattern times {10, 11}: window [1..2] at {10, 11}: D11 = 1, D12 = 2.5,
//        D21 = 1+1+.5+1 = 3.5, D22 = min(1 + 0 + 1 + 0 = 2, 5, 5) = 2   -> (2, 1..2)
//      window [0..1] at {10, 12}: D22 = min(3+0+3+.5(1+0) = 6.5, 9.5, 9.5) -> no
TEST(ReferenceWindow, TwedRebasesWindowTimes) {
  StreamData s;
  s.id = "s";
  s.period_ns = 2 * kSecond;
  s.values = {3, 1, 1};
  const std::int64_t t0 = kEpochNs;
  s.ts = {t0, t0 + 2 * kSecond, t0 + 3 * kSecond};
  for (int variant = 0; variant < 2; ++variant) {
    PatternDef p = window_pattern("tw", 1, {0, 1}, Metric::twed, 3.0);
    p.params.distance.nu = 0.5;
    p.params.distance.lambda = 1.0;
    if (variant == 1) p.times = {10.0, 11.0};
    auto matcher = reference::make_matcher();
    matcher->add_stream(s.def());
    matcher->add_pattern(p);
    const auto got = feed_one_by_one(*matcher, s);
    ASSERT_EQ(got.size(), 1u) << "variant " << variant;
    EXPECT_EQ(got[0].first, s.length()) << "reported by flush()";
    EXPECT_EQ(got[0].second, expected(s, "tw", variant == 0 ? 2.5 : 2.0, 1, 2))
        << "variant " << variant << " " << describe(got[0].second);
  }
}

// znorm skips (and counts) windows whose std is below 1e-8 in any component.
TEST(ReferenceWindow, FlatWindowsSkippedUnderZnorm) {
  // d = 1: a run of five 5s holds two flat windows of 4 ([4..7], [5..8]).
  const StreamData s1 = hand_stream({0, 1, 2, 3, 5, 5, 5, 5, 5, 6, 2, 3, 4}, kEpochNs);
  // d = 2: component 0 varies everywhere, component 1 is 7 on [2..7]: windows ending at
  // 5, 6, 7 are flat in component 1.
  StreamData s2 =
      hand_stream({0, 1, 1, 2, 2, 7, 3, 7, 4, 7, 5, 7, 6, 7, 7, 7, 8, 3, 9, 4, 10, 5, 11, 6, 12, 7},
                  kEpochNs, 2);
  s2.id = "s2";
  auto matcher = reference::make_matcher();
  matcher->add_stream(s1.def());
  matcher->add_stream(s2.def());
  const PatternDef p1 =
      window_pattern("p1", 1, {0, 1, 0, -1}, Metric::dtw, 1e30, 0, 1, Normalize::znorm);
  const PatternDef p2 =
      window_pattern("p2", 2, {0, 1, 1, 0, 0, -1, -1, 0}, Metric::dk, 1e30, 0, 1, Normalize::znorm);
  matcher->add_pattern(p1);
  matcher->add_pattern(p2);
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const auto got = sorted(feed(*matcher, {s1, s2}, Partition::one_sample, rng));
  EXPECT_EQ(matcher->counters().flat_windows_skipped, 5u);
  WindowSim sim1(p1, s1), sim2(p2, s2);
  auto want = sim1.run(s1.length(), true);
  const auto want2 = sim2.run(s2.length(), true);
  want.insert(want.end(), want2.begin(), want2.end());
  EXPECT_EQ(sim1.flat(), 2u);
  EXPECT_EQ(sim2.flat(), 3u);
  expect_same_matches(got, sorted(want), "znorm with flat windows", 1e-6);
  for (const auto& m : got) {
    if (m.stream_id() == "s") {
      EXPECT_FALSE(m.end_index == 7 || m.end_index == 8) << describe(m);
    } else {
      EXPECT_FALSE(m.end_index >= 5 && m.end_index <= 7) << describe(m);
    }
  }
}

// =================================================================================
// Random inputs against the literal simulation: every metric, normalize none/znorm,
// w = m, w < m, w > m, hop 1..3, bands, d = 1 and 2, pairs that start mid-stream.
TEST(ReferenceWindow, MatchesLiteralSimulation) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<std::size_t> plen(2, 10), hop(1, 3), later(0, 40);
  std::uniform_int_distribution<int> pick(0, 2);
  const double quantiles[] = {0.02, 0.1, 0.3};
  std::size_t total = 0;
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed, Metric::ed}) {
    const bool lock_step = metric == Metric::ed;  // w = m, no band
    for (Normalize normalize : {Normalize::none, Normalize::znorm}) {
      for (std::size_t d : {1u, 2u}) {
        for (int rep = 0; rep < 3; ++rep) {
          const std::size_t m = plen(rng);
          std::size_t w = m;
          if (rep == 1 && !lock_step) w = m + 3;
          if (rep == 2 && !lock_step) w = std::max<std::size_t>(2, m - 1);
          const std::vector<float> pv = random_values(rng, m * d);
          const StreamData s = random_stream(rng, kWindowStreams, "s", d, 150, &pv);
          PatternDef p =
              window_pattern("p", d, pv, metric, 0.0, rep == 0 ? 0 : w, hop(rng), normalize);
          p.params.distance.cost = pick(rng) == 0 ? Cost::abs : Cost::sq;
          if (metric != Metric::twed && !lock_step && pick(rng) == 0)
            p.params.distance.band = 1.0 + pick(rng);
          p.params.distance.gamma = 0.5;
          p.params.distance.nu = 0.1;
          p.params.distance.lambda = 0.5;
          p.params.distance.p = pick(rng) == 0 ? 1.0 : 2.0;
          if (metric == Metric::twed && pick(rng) == 0) {
            double t = 3.0;
            for (std::size_t i = 0; i < m; ++i) p.times.push_back(t += 0.7);
          }
          p.params.threshold = quantile_threshold(p, s, quantiles[pick(rng)]);
          const std::size_t K = rep == 2 ? later(rng) : 0;  // pair created after K samples

          auto matcher = reference::make_matcher();
          matcher->add_stream(s.def());
          std::vector<RawMatch> got;
          if (K > 0) {
            const StreamChunk head = s.chunk(0, K);
            EXPECT_TRUE(matcher->process(std::span<const StreamChunk>(&head, 1)).empty());
          }
          matcher->add_pattern(p);
          {
            // The same stream, fed from index K on.
            std::uniform_int_distribution<std::size_t> size(0, 9);
            std::size_t i = K;
            while (i < s.length()) {
              const std::size_t n = std::min(size(rng), s.length() - i);
              const StreamChunk c = s.chunk(i, i + n);
              auto r = matcher->process(std::span<const StreamChunk>(&c, 1));
              got.insert(got.end(), r.begin(), r.end());
              i += n;
            }
            auto r = matcher->flush();
            got.insert(got.end(), r.begin(), r.end());
          }
          WindowSim sim(p, s, K);
          const auto want = sim.run(s.length(), true);
          std::ostringstream what;
          what << "metric " << to_string(metric) << " normalize " << to_string(normalize)
               << " d=" << d << " m=" << m << " w=" << w << " hop=" << p.params.hop
               << " first=" << K << " threshold " << p.params.threshold;
          const bool exact = normalize == Normalize::none && metric != Metric::twed;
          expect_same_matches(got, want, what.str(), exact ? 0.0 : 1e-9);
          total += want.size();
        }
      }
    }
  }
  EXPECT_GT(total, 60u);
}

// Any partition of the streams into batches gives the same matches (compared exactly).
TEST(ReferenceWindow, ChunkingInvariance) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::vector<float> v1 = random_values(rng, 8), v2 = random_values(rng, 6),
                           v3 = random_values(rng, 7 * 2), v4 = random_values(rng, 5 * 2);
  std::vector<StreamData> streams;
  streams.push_back(random_stream(rng, kWindowStreams, "a", 1, 300, &v1));
  streams.push_back(random_stream(rng, kWindowStreams, "b", 2, 250, &v3));
  streams.push_back(random_stream(rng, kWindowStreams, "c", 1, 200, &v2));
  std::vector<PatternDef> patterns;
  patterns.push_back(window_pattern("w1", 1, v1, Metric::dtw, 0));
  patterns.push_back(window_pattern("w2", 1, v2, Metric::dk, 0, 9, 2, Normalize::znorm));
  patterns.push_back(window_pattern("w3", 2, v3, Metric::softdtw, 0, 5, 1));
  patterns.back().params.distance.band = 2.0;
  patterns.back().params.distance.gamma = 0.3;
  patterns.push_back(window_pattern("w4", 2, v4, Metric::twed, 0, 0, 3));
  patterns.back().times = {0.0, 0.5, 1.5, 2.0, 3.0};
  patterns.back().params.distance.nu = 0.2;
  for (auto& p : patterns)
    p.params.threshold = quantile_threshold(p, p.dims == 1 ? streams[0] : streams[1], 0.1);
  // A stream-mode pattern in the same matcher (v1 is planted in "a" with noise 0.1, so
  // its copies cost about 8 * 0.01).
  PatternDef spring = window_pattern("s1", 1, v1, Metric::dtw, 0.5);
  spring.params.mode = Mode::stream;

  bool with_spring = false;
  auto run = [&](Partition partition) {
    auto matcher = reference::make_matcher();
    for (const auto& s : streams) matcher->add_stream(s.def());
    for (const auto& p : patterns) matcher->add_pattern(p);
    if (with_spring) matcher->add_pattern(spring);
    return sorted(feed(*matcher, streams, partition, rng));
  };
  const auto big = run(Partition::one_big);
  ASSERT_GT(big.size(), 10u);
  expect_same_matches(big, simulate_all_pairs<WindowSim>(streams, patterns),
                      "one big chunk vs simulation", 1e-9);
  expect_same_matches(run(Partition::one_sample), big, "one sample per chunk");
  for (int rep = 0; rep < 3; ++rep)
    expect_same_matches(run(Partition::random_sizes), big, "random chunks");

  with_spring = true;
  const auto mixed = run(Partition::one_big);
  std::vector<RawMatch> window_only;
  std::size_t spring_matches = 0;
  for (const auto& m : mixed) {
    if (m.pattern_id() == "s1") {
      ++spring_matches;
    } else {
      window_only.push_back(m);
    }
  }
  EXPECT_GE(spring_matches, 1u);  // the last planted copy is intact (copies may overlap)
  expect_same_matches(window_only, big, "window pairs beside a stream-mode pattern");
  expect_same_matches(run(Partition::one_sample), mixed, "mixed modes, one sample per chunk");
  expect_same_matches(run(Partition::random_sizes), mixed, "mixed modes, random chunks");
}

// Each reported distance is reference::distance of the pattern and the extracted window
// (every window qualifies here; the reported ones are the best of their runs).
TEST(ReferenceWindow, DistancesEqualReferenceOnExtractedWindow) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::size_t checked = 0;
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
    for (std::size_t d : {1u, 3u}) {
      const std::vector<float> pv = random_values(rng, 6 * d);
      const StreamData s = random_stream(rng, kWindowStreams, "s", d, 200, &pv);
      PatternDef p = window_pattern("p", d, pv, metric, 1e30, 8, 2);
      p.params.distance.cost = Cost::abs;
      p.params.distance.gamma = 0.7;
      p.params.distance.nu = 0.3;
      p.params.distance.lambda = 0.2;
      if (metric == Metric::twed && d == 3) p.times = {1.0, 1.5, 2.5, 2.75, 4.0, 5.0};
      auto matcher = reference::make_matcher();
      matcher->add_stream(s.def());
      matcher->add_pattern(p);
      const auto got = feed(*matcher, {s}, Partition::random_sizes, rng);
      ASSERT_FALSE(got.empty());
      const Prepared pattern = prepare_pattern(p, s.period_ns);
      for (const auto& m : got) {
        ASSERT_EQ(m.end_index - m.start_index + 1, 8u) << describe(m);
        EXPECT_EQ((m.end_index - 7) % 2, 0u) << "windows end at 7, 9, 11, ...";
        const auto win = extract_window(s, m.end_index, 8, pattern.times[0], Normalize::none);
        ASSERT_TRUE(win);
        const double want = reference::distance(pattern.view(), win->view(), p.params.distance);
        if (metric == Metric::twed)
          EXPECT_NEAR(m.distance, want, 1e-12 * std::max(1.0, std::abs(want))) << describe(m);
        else
          EXPECT_EQ(m.distance, want) << to_string(metric) << " " << describe(m);
        EXPECT_EQ(m.start_ns, s.ts[m.start_index]);
        EXPECT_EQ(m.end_ns, s.ts[m.end_index]);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 8u);
}

TEST(ReferenceWindow, InvalidWindowParamsThrow) {
  auto matcher = reference::make_matcher();
  matcher->add_stream(StreamDef{"s", 1, kSecond});
  const std::vector<float> v{0, 1, 2};
  PatternDef p = window_pattern("w1", 1, v, Metric::dtw, 1.0, 1);
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("hop0", 1, v, Metric::dtw, 1.0, 0, 0);
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("gamma0", 1, v, Metric::softdtw, 1.0);
  p.params.distance.gamma = 0.0;
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("nu", 1, v, Metric::twed, 1.0);
  p.params.distance.nu = -1.0;
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("lambda", 1, v, Metric::twed, 1.0);
  p.params.distance.lambda = -1.0;
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("p", 1, v, Metric::twed, 1.0);
  p.params.distance.p = 0.9;
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  p = window_pattern("band", 1, v, Metric::dk, 1.0);
  p.params.distance.band = -0.5;
  EXPECT_THROW(matcher->add_pattern(p), std::invalid_argument);
  for (const char* id : {"w1", "hop0", "gamma0", "nu", "lambda", "p", "band"})
    EXPECT_FALSE(matcher->has_pattern(id));
  // Valid window patterns of every metric are accepted.
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
    p = window_pattern(std::string("ok_") + std::string(to_string(metric)), 1, v, metric, 1.0, 2,
                       5);
    EXPECT_NO_THROW(matcher->add_pattern(p)) << to_string(metric);
  }
}
