// Distance profiles and stream mode's top K (docs/spec.md §3.3) on the scalar reference.
//
// The stream profile is checked against the matcher it must agree with bit for bit (the cpu
// backend's events, planted and on the UCR archive's GunPoint and ECG200), and against a
// brute force written here: every subsequence aligned on its own in float32, whose minimum
// per end is SPRING's D(t, m) exactly (rounding is monotone, so c + min(a, b) rounds to
// min(c + a, c + b)). The window profile is checked against reference::distance on each
// window and against the reference matcher's window events.

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "matching/planted_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

using namespace warpwatch::kernels;
using namespace warpwatch::testing;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::string name(Metric metric) {
  return std::string(to_string(metric));
}

std::uint32_t bits(double float_value) {
  return std::bit_cast<std::uint32_t>(static_cast<float>(float_value));
}

TopWindowsRequest request_of(const StreamData& s, const PatternDef& p, std::size_t k = 0) {
  return {s.def(), s.values, s.ts, p, false, k, nullptr};
}

// The events of the cpu backend's stream matcher over the whole series, flushed.
std::vector<RawMatch> cpu_events(const StreamData& s, const PatternDef& p) {
  auto matcher = make_matcher(Backend::cpu);
  matcher->add_pattern(p);
  matcher->add_stream(s.def());
  std::mt19937_64 rng(1);
  return feed(*matcher, {s}, Partition::one_big, rng);
}

// docs/spec.md §3.3's relation between the profile and the matcher's reports: at a report's
// end the profile holds the report's distance and start bit for bit, unless the profile's
// best subsequence there starts inside an earlier report (whose cells the matcher reset):
// then the profile is at or under the report. Returns how many reports were equal.
std::size_t expect_profile_agrees(const std::vector<ProfilePoint>& profile,
                                  const std::vector<RawMatch>& events, const std::string& what) {
  std::size_t equal = 0;
  for (std::size_t e = 0; e < events.size(); ++e) {
    const RawMatch& m = events[e];
    const ProfilePoint& q = profile.at(m.end_index);
    EXPECT_EQ(q.end_index, m.end_index) << what;
    if (q.start_index == m.start_index) {
      EXPECT_EQ(bits(q.distance), bits(m.distance)) << what << ": at " << m.end_index << " profile "
                                                    << q.distance << ", event " << describe(m);
      ++equal;
      continue;
    }
    EXPECT_LE(q.distance, m.distance) << what << ": " << describe(m);
    bool inside_earlier = false;
    for (std::size_t f = 0; f < e; ++f) inside_earlier |= q.start_index <= events[f].end_index;
    EXPECT_TRUE(inside_earlier) << what << ": the profile's best subsequence ending at "
                                << m.end_index << " starts at " << q.start_index
                                << ", the event's at " << m.start_index;
  }
  return equal;
}

TEST(ReferenceProfile, StreamProfileHoldsThePlantedEventsDistancesBitForBit) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<float> noise(0.0f, 0.05f);
  const auto pattern = bump_pattern<float>();
  std::vector<float> series(1500);
  for (float& x : series) x = noise(rng);
  const std::size_t at[] = {200, 700, 1200};
  std::vector<std::pair<std::size_t, std::size_t>> planted;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto copy = warp(pattern, static_cast<int>(2 * k), static_cast<int>(3 * k), rng);
    for (std::size_t i = 0; i < copy.size(); ++i) series[at[k] + i] = copy[i] + noise(rng);
    planted.emplace_back(at[k], at[k] + copy.size() - 1);
  }
  const StreamData s = series_of(series, 1);
  for (Metric metric : {Metric::dtw, Metric::dk}) {
    const PatternDef p =
        base_pattern("bump", 1, pattern, Mode::stream, metric, metric == Metric::dtw ? 20 : 4);
    const auto profile = reference::profile(request_of(s, p));
    ASSERT_EQ(profile.size(), series.size());
    const auto events = cpu_events(s, p);
    ASSERT_EQ(events.size(), 3u) << describe(events);
    EXPECT_EQ(expect_profile_agrees(profile, events, name(metric)), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
      // The profile's minimum over the planted occurrence is at its end, and is the event.
      const auto [start, end] = planted[k];
      const auto best = std::min_element(
          profile.begin() + static_cast<std::ptrdiff_t>(start),
          profile.begin() + static_cast<std::ptrdiff_t>(end) + 1,
          [](const ProfilePoint& a, const ProfilePoint& b) { return a.distance < b.distance; });
      EXPECT_EQ(bits(best->distance), bits(events[k].distance)) << name(metric) << " " << k;
      EXPECT_EQ(best->end_index, end) << name(metric) << " " << k;
      EXPECT_EQ(best->start_index, start) << name(metric) << " " << k;
    }
    // Stream mode's top 3 are the same three, best first.
    auto r = request_of(s, p, 3);
    const auto top = top_windows(Backend::cpu, r);
    ASSERT_EQ(top.size(), 3u);
    std::vector<RawMatch> by_distance = events;
    std::stable_sort(by_distance.begin(), by_distance.end(),
                     [](const RawMatch& a, const RawMatch& b) { return a.distance < b.distance; });
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(bits(top[k].distance), bits(by_distance[k].distance)) << k;
      EXPECT_EQ(top[k].start_index, by_distance[k].start_index) << k;
      EXPECT_EQ(top[k].end_index, by_distance[k].end_index) << k;
      EXPECT_EQ(top[k].start_ns, s.ts[top[k].start_index]) << k;
    }
  }
}

// Real series: rows of GunPoint and ECG200 one after the other, the pattern a row that is not
// among them; the threshold lets through about 1% of the profile, so that there are
// reports, some of them close together.
TEST(ReferenceProfile, StreamProfileAgreesWithTheMatcherOnUcrSeries) {
  std::size_t reports = 0, equal = 0;
  for (const char* file : {"GunPoint_TRAIN.tsv", "ECG200_TRAIN.tsv"}) {
    const auto rows =
        warpwatch::bench::read_ucr_rows(warpwatch::bench::default_data_dir() + "/" + file);
    ASSERT_GE(rows.size(), 13u) << file;
    std::vector<float> values;
    for (std::size_t r = 0; r < 12; ++r)
      values.insert(values.end(), rows[r].begin(), rows[r].end());
    const StreamData s = series_of(values, 1);
    for (Metric metric : {Metric::dtw, Metric::dk}) {
      PatternDef p = base_pattern("row12", 1, rows[12], Mode::stream, metric, 0.0);
      const auto profile = reference::profile(request_of(s, p));
      std::vector<double> sorted_d;
      for (const auto& q : profile) sorted_d.push_back(q.distance);
      std::sort(sorted_d.begin(), sorted_d.end());
      p.params.threshold = sorted_d[sorted_d.size() / 100];
      const auto events = cpu_events(s, p);
      EXPECT_GE(events.size(), 1u) << file << " " << name(metric);
      reports += events.size();
      equal += expect_profile_agrees(profile, events, std::string(file) + " " + name(metric));
    }
  }
  // The exception of docs/spec.md §3.3 is rare: most reports are the profile's points.
  EXPECT_GE(equal * 2, reports) << equal << " of " << reports;
}

// One subsequence x[s..t] aligned with the pattern on its own (docs/spec.md §4.1 in float32,
// the recurrence of §3.1): row[t - s] = its distance, for every end t of the series.
std::vector<float> from_start(const std::vector<float>& x, const std::vector<float>& p,
                              std::size_t dims, std::size_t s, Metric metric, Cost cost) {
  const std::size_t n = x.size() / dims, m = p.size() / dims;
  std::vector<float> prev(m, kInf), cur(m), out;
  for (std::size_t t = s; t < n; ++t) {
    for (std::size_t i = 0; i < m; ++i) {
      float c = 0.0f;
      for (std::size_t k = 0; k < dims; ++k) {
        const float diff = x[t * dims + k] - p[i * dims + k];
        c = c + (cost == Cost::sq ? diff * diff : std::fabs(diff));
      }
      const float up = i ? cur[i - 1] : (t == s ? 0.0f : kInf);
      const float diag = i ? prev[i - 1] : kInf;
      const float best = std::min({up, diag, prev[i]});
      cur[i] = metric == Metric::dtw ? c + best : std::max(c, best);
    }
    out.push_back(cur[m - 1]);
    std::swap(prev, cur);
  }
  return out;
}

// Every subsequence [start, end] of the series with its distance.
struct Subsequence {
  float distance;
  std::uint64_t start, end;
};

std::vector<Subsequence> every_subsequence(const std::vector<float>& x, const std::vector<float>& p,
                                           std::size_t dims, Metric metric, Cost cost) {
  std::vector<Subsequence> out;
  for (std::size_t s = 0; s < x.size() / dims; ++s) {
    const auto row = from_start(x, p, dims, s, metric, cost);
    for (std::size_t j = 0; j < row.size(); ++j) out.push_back({row[j], s, s + j});
  }
  return out;
}

// Per end, the least distance over every start, and the starts that reach it.
struct Brute {
  float distance = kInf;
  std::vector<std::uint64_t> starts;
};
std::vector<Brute> brute_profile(const std::vector<Subsequence>& all, std::size_t n) {
  std::vector<Brute> out(n);
  for (const Subsequence& q : all) {
    Brute& b = out[q.end];
    if (q.distance < b.distance) b = {q.distance, {}};
    if (q.distance == b.distance) b.starts.push_back(q.start);
  }
  return out;
}

// The K best matches sharing no sample, literally: every subsequence in increasing
// (distance, end), each taken unless it shares a sample with one taken before.
std::vector<TopWindow> brute_top(std::vector<Subsequence> all, std::size_t k) {
  std::stable_sort(all.begin(), all.end(), [](const Subsequence& a, const Subsequence& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.end < b.end);
  });
  std::vector<TopWindow> taken;
  for (const Subsequence& q : all) {
    if (taken.size() == k) break;
    bool free = true;
    for (const TopWindow& w : taken)
      free = free && (q.end < w.start_index || q.start > w.end_index);
    if (free) taken.push_back({q.distance, q.start, q.end, 0, 0});
  }
  return taken;
}

// Whether two subsequences have the same distance: then the order above is not SPRING's.
bool any_tie(std::vector<Subsequence> all) {
  std::sort(all.begin(), all.end(),
            [](const Subsequence& a, const Subsequence& b) { return a.distance < b.distance; });
  for (std::size_t i = 1; i < all.size(); ++i)
    if (all[i].distance == all[i - 1].distance) return true;
  return false;
}

TEST(ReferenceProfile, StreamProfileAndTopKAgreeWithABruteForceOverEverySubsequence) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<std::size_t> length(12, 50), rows(2, 6), dims_of(1, 2), ks(1, 6);
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::size_t tops_compared = 0;
  for (int round = 0; round < 120; ++round) {
    const Metric metric = round % 3 == 2 ? Metric::dk : Metric::dtw;
    const Cost cost = round % 2 ? Cost::abs : Cost::sq;
    const std::size_t n = length(rng), m = rows(rng), dims = dims_of(rng), k = ks(rng);
    std::vector<float> x(n * dims), pv(m * dims);
    for (float& v : x) v = value(rng);
    for (float& v : pv) v = value(rng);
    const StreamData s = series_of(x, dims);
    PatternDef p = base_pattern("p", dims, pv, Mode::stream, metric, 0.0);
    p.params.distance.cost = cost;
    const std::string what = "round " + std::to_string(round) + " " + name(metric) +
                             " n=" + std::to_string(n) + " m=" + std::to_string(m) +
                             " d=" + std::to_string(dims) + " k=" + std::to_string(k);
    const auto profile = reference::profile(request_of(s, p));
    const auto all = every_subsequence(x, pv, dims, metric, cost);
    const auto brute = brute_profile(all, n);
    ASSERT_EQ(profile.size(), n) << what;
    for (std::size_t t = 0; t < n; ++t) {
      ASSERT_EQ(bits(profile[t].distance), std::bit_cast<std::uint32_t>(brute[t].distance))
          << what << " at " << t;
      const auto& starts = brute[t].starts;
      EXPECT_NE(std::find(starts.begin(), starts.end(), profile[t].start_index), starts.end())
          << what << " at " << t;
    }
    const auto top = reference::top_windows(request_of(s, p, k));
    // K matches (fewer only when every sample is taken), non-overlapping, best first.
    std::size_t covered = 0;
    for (const auto& t : top) covered += t.end_index + 1 - t.start_index;
    EXPECT_TRUE(top.size() == k || (top.size() < k && covered == n)) << what;
    for (std::size_t a = 0; a < top.size(); ++a) {
      if (a) {
        EXPECT_LE(top[a - 1].distance, top[a].distance) << what;
      }
      for (std::size_t b = 0; b < a; ++b)
        EXPECT_TRUE(top[a].end_index < top[b].start_index || top[a].start_index > top[b].end_index)
            << what << ": matches " << b << " and " << a << " overlap";
    }
    if (any_tie(all)) continue;  // dk's maxima often tie; dtw's sums of random values do not
    const auto want = brute_top(all, k);
    ASSERT_EQ(top.size(), want.size()) << what;
    for (std::size_t a = 0; a < top.size(); ++a) {
      EXPECT_EQ(bits(top[a].distance), bits(want[a].distance)) << what << " #" << a;
      EXPECT_EQ(top[a].start_index, want[a].start_index) << what << " #" << a;
      EXPECT_EQ(top[a].end_index, want[a].end_index) << what << " #" << a;
    }
    ++tops_compared;
  }
  EXPECT_GE(tops_compared, 40u) << "of 80 dtw rounds";  // dtw rarely ties
}

TEST(ReferenceProfile, StreamTopKWithAThresholdKeepsOnlyThoseAtOrUnderIt) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<float> value(0.0f, 1.0f);
  std::vector<float> x(200), pv(8);
  for (float& v : x) v = value(rng);
  for (float& v : pv) v = value(rng);
  const StreamData s = series_of(x, 1);
  PatternDef p = base_pattern("p", 1, pv, Mode::stream, Metric::dtw, 0.0);
  const auto all = reference::top_windows(request_of(s, p, 10));
  ASSERT_EQ(all.size(), 10u);
  // The threshold at the 4th distance, exactly as float32: the first four, no more.
  p.params.threshold = all[3].distance;
  auto r = request_of(s, p, 10);
  r.use_threshold = true;
  const auto under = reference::top_windows(r);
  ASSERT_EQ(under.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(under[k], all[k]) << k;
}

// The window profile: one point per window end (w - 1, then every hop), each the reference's
// distance of that window; +inf where the band admits no alignment, NaN for a flat window
// under znorm.
TEST(ReferenceProfile, WindowProfileIsEachWindowsReferenceDistance) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<float> value(0.0f, 1.0f);
  const std::size_t n = 300, m = 20;
  std::vector<float> x(n), pv(m);
  for (float& v : x) v = value(rng);
  for (float& v : pv) v = value(rng);
  for (std::size_t i = 100; i < 140; ++i) x[i] = 0.5f;  // flat: windows in it skipped under znorm
  const StreamData s = series_of(x, 1);
  for (Metric metric : {Metric::dtw, Metric::twed, Metric::msm}) {
    for (std::size_t w : {std::size_t{0}, std::size_t{30}}) {
      PatternDef p = base_pattern("p", 1, pv, Mode::window, metric, 0.0);
      p.params.window = w;
      p.params.hop = 3;
      if (metric == Metric::dtw) p.params.distance.band = 2.0;  // w = 30: some cells cut off
      const std::size_t wl = w ? w : m;
      const auto profile = reference::profile(request_of(s, p));
      ASSERT_EQ(profile.size(), (n - wl) / 3 + 1) << name(metric);
      for (std::size_t j = 0; j < profile.size(); ++j) {
        const std::uint64_t end = wl - 1 + 3 * j;
        ASSERT_EQ(profile[j].end_index, end);
        ASSERT_EQ(profile[j].start_index, end + 1 - wl);
        std::vector<double> times(wl);
        for (std::size_t i = 0; i < wl; ++i) times[i] = static_cast<double>(i);  // 1 s apart
        const SeriesView pattern{pv.data(), m, 1, nullptr},
            window{&x[end + 1 - wl], wl, 1, times.data()};
        const double want = reference::distance(pattern, window, p.params.distance);
        EXPECT_EQ(profile[j].distance, want) << name(metric) << " window at " << end;
      }
    }
  }
  // znorm: the profile's points at the reference matcher's events are their distances.
  PatternDef p = base_pattern("p", 1, pv, Mode::window, Metric::dtw, 0.0);
  p.params.normalize = Normalize::znorm;
  const auto profile = reference::profile(request_of(s, p));
  std::size_t flat = 0;
  for (const auto& q : profile) flat += std::isnan(q.distance) ? 1 : 0;
  EXPECT_EQ(flat, 40u - m + 1);  // the windows wholly inside the constant run
  std::vector<double> finite;
  for (const auto& q : profile)
    if (std::isfinite(q.distance)) finite.push_back(q.distance);
  std::sort(finite.begin(), finite.end());
  p.params.threshold = finite[finite.size() / 10];
  auto matcher = reference::make_matcher();
  matcher->add_pattern(p);
  matcher->add_stream(s.def());
  std::mt19937_64 feed_rng(1);
  const auto events = feed(*matcher, {s}, Partition::one_big, feed_rng);
  ASSERT_GE(events.size(), 1u);
  for (const RawMatch& e : events) {
    EXPECT_EQ(profile.at(e.end_index + 1 - m).distance, e.distance) << describe(e);
  }
}

}  // namespace
