// Window mode's pruning on the CPU (kernels/common/window/window_bounds.hpp, window_stats.hpp,
// kernels/cpu/window_distances.cpp): the sliding moments against two passes and across any
// batching, the bounds against the reference's distances, and the events of the pruned
// backend against those of the same backend aligning every window, bit for bit, on random
// walks with planted copies and on real ECG beats (the conformance suite compares both with
// the reference).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_grouping.hpp"
#include "common/window/window_stats.hpp"
#include "conformance/inputs.hpp"
#include "matching/matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "window_test_series.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::ecg_values;
using warpwatch::testing::history_of;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;
namespace common = warpwatch::kernels::common;
namespace bench = warpwatch::bench;

namespace {

// A random walk with drift far from zero, spikes, and flat stretches (what sliding sums get
// wrong first).
std::vector<float> rough_series(std::mt19937_64& rng, std::size_t n, std::size_t dims) {
  std::normal_distribution<float> step(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 99);
  std::vector<float> out(n * dims);
  std::vector<float> level(dims, 1000.0f);
  for (std::size_t i = 0; i < n; ++i) {
    const int k = i % 500 < 250 ? 80 : kind(rng);  // a flat stretch of 250 every 500
    for (std::size_t c = 0; c < dims; ++c) {
      if (k < 70) level[c] += step(rng);  // walk
      // 70..89: flat (level kept)
      out[i * dims + c] = k >= 98 ? level[c] + 1e5f : level[c];  // 98, 99: a spike
    }
  }
  return out;
}

}  // namespace

TEST(WindowStats, MatchTwoPassesAndDoNotDependOnTheBatching) {
  std::mt19937_64 rng(test_seed());
  for (const std::size_t dims : {1u, 3u}) {
    for (const std::size_t w : {2u, 17u, 64u, 200u}) {
      const std::vector<float> values = rough_series(rng, 3000, dims);
      const auto history = history_of(values, dims);
      const std::uint64_t first_end = w - 1 + 5;  // a pair made at sample 5
      // In order with one object, and again with a fresh object at random ends and random
      // skips (as slices of batches see them): bit for bit the same.
      common::WindowStats in_order(w, dims, first_end);
      std::vector<common::WindowMoments> want;
      for (std::uint64_t e = first_end; e < 3000; ++e) want.push_back(in_order.at(history, e));
      std::uniform_int_distribution<int> coin(0, 30);
      auto sliced = std::make_unique<common::WindowStats>(w, dims, first_end);
      std::size_t flat = 0;
      for (std::uint64_t e = first_end; e < 3000; ++e) {
        if (coin(rng) == 0) sliced = std::make_unique<common::WindowStats>(w, dims, first_end);
        if (coin(rng) == 1) continue;
        const common::WindowMoments& got = sliced->at(history, e);
        const common::WindowMoments& expect = want[e - first_end];
        ASSERT_EQ(got.mean, expect.mean) << "dims " << dims << " w " << w << " end " << e;
        ASSERT_EQ(got.scale, expect.scale) << "dims " << dims << " w " << w << " end " << e;
        ASSERT_EQ(got.flat, expect.flat);
      }
      // Against two passes over each window (common::znormalize's definition).
      for (std::uint64_t e = first_end; e < 3000; ++e) {
        const common::WindowMoments& got = want[e - first_end];
        std::vector<float> window(values.begin() + static_cast<std::ptrdiff_t>((e + 1 - w) * dims),
                                  values.begin() + static_cast<std::ptrdiff_t>((e + 1) * dims));
        const std::vector<float> raw = window;
        const bool ok = common::znormalize(window, dims);
        ASSERT_EQ(got.flat, !ok) << "dims " << dims << " w " << w << " end " << e;
        if (!ok) {
          ++flat;
          continue;
        }
        for (std::size_t j = 0; j < w; ++j)
          for (std::size_t k = 0; k < dims; ++k) {
            const float z = common::znormal(raw[j * dims + k], got.mean[k], got.scale[k]);
            ASSERT_NEAR(z, window[j * dims + k], 1e-5 * (1.0 + std::fabs(window[j * dims + k])))
                << "dims " << dims << " w " << w << " end " << e << " j " << j;
          }
      }
      if (w <= 17) {
        EXPECT_GT(flat, 0u) << "the series has flat windows of " << w;
      }
    }
  }
}

TEST(WindowBounds, StayBelowTheDistance) {
  std::mt19937_64 rng(test_seed());
  std::uniform_int_distribution<int> length(2, 70);
  std::uniform_int_distribution<int> pick(0, 1);
  std::uniform_real_distribution<double> band_of(0.0, 8.0);
  std::size_t positive = 0, checked = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const std::size_t dims = pick(rng) ? 1 : 3;
    const auto m = static_cast<std::size_t>(length(rng));
    const std::size_t w = pick(rng) ? m : static_cast<std::size_t>(length(rng));
    kernels::PatternDef p =
        window_pattern("p", dims, random_walk(rng, m, dims),
                       pick(rng) ? kernels::Metric::dtw : kernels::Metric::dk, w, 1,
                       pick(rng) ? kernels::Normalize::znorm : kernels::Normalize::none);
    p.params.distance.cost = pick(rng) ? kernels::Cost::sq : kernels::Cost::abs;
    if (trial % 3 == 1) p.params.distance.band = band_of(rng);
    if (trial % 3 == 2) p.params.distance.band = 0.0;
    std::vector<float> pattern = p.values;
    if (p.params.normalize == kernels::Normalize::znorm && !common::znormalize(pattern, dims))
      continue;
    const common::WindowQuery q(p);
    std::vector<float> window = random_walk(rng, w, dims);
    for (auto& v : window) v *= 0.5f;
    if (p.params.normalize == kernels::Normalize::znorm && !common::znormalize(window, dims))
      continue;
    const kernels::SeriesView a{pattern.data(), m, dims, nullptr};
    const kernels::SeriesView b{window.data(), w, dims, nullptr};
    const double d = kernels::reference::distance(a, b, p.params.distance);
    const common::WindowView view{window.data(), nullptr, nullptr, dims};
    std::vector<double> rest;
    std::vector<float> lo, hi;
    const double kim = common::lb_kim(q, view);
    const double keogh_p =
        common::lb_keogh_pattern(q, view, std::numeric_limits<double>::infinity());
    const double keogh_w = common::lb_keogh_window(q, window.data(), rest, lo, hi);
    const auto desc = [&] {
      return cat("trial ", trial, " m ", m, " w ", w, " dims ", dims, " ",
                 kernels::to_string(p.params.distance.metric), " band ",
                 p.params.distance.band ? *p.params.distance.band : -1.0, ": distance ", d);
    };
    // No bound may prune the window at a limit equal to its own distance.
    EXPECT_FALSE(q.prunes(kim, d)) << desc() << ", LB_Kim " << kim;
    EXPECT_FALSE(q.prunes(keogh_p, d)) << desc() << ", LB_Keogh (pattern) " << keogh_p;
    EXPECT_FALSE(q.prunes(keogh_w, d)) << desc() << ", LB_Keogh (window) " << keogh_w;
    for (std::size_t i = 1; i <= m; ++i) {
      EXPECT_GE(rest[i], rest[i + 1]) << desc() << " row " << i;
    }
    if (std::isfinite(d)) {
      ++checked;
      if (keogh_p > 0 && keogh_w > 0 && kim > 0) ++positive;
    }
  }
  EXPECT_GT(checked, 300u);
  EXPECT_GT(positive, checked / 3) << "the bounds are mostly 0: they prune nothing";
}

namespace {

struct TestSeries {
  std::string id;
  std::size_t dims;
  std::vector<float> values;
  std::vector<float> base;  // the shape planted in it (a pattern is made from it)
};

// A random walk where a noisy, scaled and shifted copy of `base` starts every 60-200
// samples (dense occurrences).
TestSeries planted_walk(std::mt19937_64& rng, std::size_t n, std::size_t dims, std::size_t m) {
  TestSeries s{cat("walk", dims), dims, random_walk(rng, n, dims), random_walk(rng, m, dims)};
  std::uniform_int_distribution<std::size_t> gap(60, 200);
  std::normal_distribution<float> noise(0.0f, 0.3f);
  std::uniform_real_distribution<float> scale(0.8f, 1.5f), shift(-20.0f, 20.0f);
  for (std::size_t at = gap(rng); at + m < n; at += m + gap(rng)) {
    const float a = scale(rng), b = shift(rng);
    for (std::size_t i = 0; i < m * dims; ++i)
      s.values[at * dims + i] = a * s.base[i] + b + noise(rng);
  }
  return s;
}

TestSeries ecg_stream(std::size_t n, std::size_t dims, std::size_t m, std::uint64_t seed) {
  const bench::Beats& beats = bench::ecg_beats(bench::default_data_dir());
  return {cat("ecg", dims), dims, ecg_values(n, dims, m, seed),
          bench::beat_pattern(beats, 3, m, dims)};
}

// A threshold under which about `fraction` of the pair's windows qualify: that quantile of
// the reference's distances of 300 random windows.
double threshold_for(const kernels::PatternDef& p, const TestSeries& s, std::mt19937_64& rng,
                     double fraction) {
  const std::size_t w = common::window_length(p), dims = p.dims, n = s.values.size() / dims;
  std::vector<float> pattern = p.values;
  const bool znorm = p.params.normalize == kernels::Normalize::znorm;
  if (znorm) common::znormalize(pattern, dims);
  std::uniform_int_distribution<std::size_t> at(0, n - w);
  std::vector<double> d;
  for (int k = 0; k < 300; ++k) {
    const std::size_t start = at(rng);
    std::vector<float> window(s.values.begin() + static_cast<std::ptrdiff_t>(start * dims),
                              s.values.begin() + static_cast<std::ptrdiff_t>((start + w) * dims));
    if (znorm && !common::znormalize(window, dims)) continue;
    const double x =
        kernels::reference::distance({pattern.data(), p.length(), dims, nullptr},
                                     {window.data(), w, dims, nullptr}, p.params.distance);
    if (std::isfinite(x)) d.push_back(x);
  }
  if (d.empty()) return 1.0;  // no path within the band: every distance is +inf
  std::sort(d.begin(), d.end());
  return d[static_cast<std::size_t>(fraction * static_cast<double>(d.size() - 1))];
}

struct Outcome {
  std::vector<kernels::RawMatch> events;
  kernels::MatcherCounters counters;
};

// Every pattern against the series, fed in chunks drawn from [1, max_chunk].
Outcome run(bool prune, const TestSeries& s, const std::vector<kernels::PatternDef>& patterns,
            std::size_t max_chunk, std::uint64_t chunk_seed) {
  auto m = kernels::cpu::make_matcher({.threads = 2, .window_pruning = prune});
  m->add_stream({s.id, s.dims, 1000});
  for (const auto& p : patterns) m->add_pattern(p);
  const std::size_t n = s.values.size() / s.dims;
  std::vector<std::int64_t> times(n);
  std::iota(times.begin(), times.end(), std::int64_t{1'000'000});
  for (auto& t : times) t *= 1000;
  Outcome out;
  std::mt19937_64 rng(chunk_seed);
  std::uniform_int_distribution<std::size_t> chunk(1, max_chunk);
  for (std::size_t at = 0; at < n;) {
    const std::size_t c = std::min(chunk(rng), n - at);
    const kernels::StreamChunk piece{s.id, std::span(s.values).subspan(at * s.dims, c * s.dims),
                                     std::span(times).subspan(at, c)};
    for (auto& e : m->process(std::span(&piece, 1))) out.events.push_back(e);
    at += c;
  }
  for (auto& e : m->flush()) out.events.push_back(e);
  // Batches report in stream, pattern, end order each: across batches, by pattern and end.
  std::stable_sort(out.events.begin(), out.events.end(), [](const auto& a, const auto& b) {
    return std::tie(a.pattern_id(), a.end_index) < std::tie(b.pattern_id(), b.end_index);
  });
  out.counters = m->counters();
  return out;
}

// The first events that differ, readable; "" when none do.
std::string differences(const std::vector<kernels::RawMatch>& got,
                        const std::vector<kernels::RawMatch>& want) {
  std::string out;
  const std::size_t n = std::max(got.size(), want.size());
  for (std::size_t i = 0, shown = 0; i < n && shown < 4; ++i) {
    if (i < got.size() && i < want.size() && got[i] == want[i]) continue;
    ++shown;
    out +=
        cat("\n  #", i, " got  ",
            i < got.size() ? warpwatch::testing::describe(got[i]) : std::string("-"), "\n  #", i,
            " want ", i < want.size() ? warpwatch::testing::describe(want[i]) : std::string("-"));
  }
  return out.empty() && got.size() == want.size()
             ? ""
             : cat(out, "\n  (", got.size(), " vs ", want.size(), " events)");
}

std::uint64_t total_pruned(const kernels::MatcherCounters& c) {
  return std::accumulate(c.windows_pruned.begin(), c.windows_pruned.end(), std::uint64_t{0});
}

}  // namespace

// Every combination of metric, cost, normalization and band (none, 5% of w, 0), w = m and
// w != m, hop 1 and 2, d 1 and 3, on planted random walks and on ECG beats; thresholds at
// the 2nd percentile of window distances (so whole runs of windows qualify around each
// occurrence). One big batch, random chunks, and single samples for a stretch: the pruned
// backend reports exactly what it reports aligning every window.
TEST(CpuWindowPruning, SameEventsAsAligningEveryWindow) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::uint64_t evaluated = 0, pruned = 0, events = 0;
  for (const std::size_t dims : {1u, 3u}) {
    for (const bool ecg : {false, true}) {
      const std::size_t m = 48;
      const TestSeries s = ecg ? ecg_stream(6000, dims, m, seed) : planted_walk(rng, 6000, dims, m);
      std::vector<kernels::PatternDef> patterns;
      for (const auto metric : {kernels::Metric::dtw, kernels::Metric::dk})
        for (const auto cost : {kernels::Cost::sq, kernels::Cost::abs})
          for (const auto normalize : {kernels::Normalize::none, kernels::Normalize::znorm})
            for (const int band : {-1, 5, 0}) {
              const std::size_t w = patterns.size() % 3 == 2 ? m + 8 : m;
              const std::size_t hop = patterns.size() % 4 == 3 ? 2 : 1;
              kernels::PatternDef p = window_pattern(cat("p", patterns.size()), dims, s.base,
                                                     metric, w, hop, normalize);
              p.params.distance.cost = cost;
              if (band >= 0) p.params.distance.band = 0.01 * band * static_cast<double>(w);
              p.params.threshold = threshold_for(p, s, rng, 0.02);
              patterns.push_back(p);
            }
      const Outcome want = run(false, s, patterns, 6000, 1);
      for (const auto& [max_chunk, chunk_seed] :
           std::vector<std::pair<std::size_t, std::uint64_t>>{{6000, 1}, {700, seed}, {1, 2}}) {
        const Outcome got = run(true, s, patterns, max_chunk, chunk_seed);
        const Outcome full = run(false, s, patterns, max_chunk, chunk_seed);
        ASSERT_EQ(differences(full.events, want.events), "")
            << s.id << ", aligning every window, chunks up to " << max_chunk << " (seed "
            << chunk_seed << ") against one batch";
        ASSERT_EQ(differences(got.events, want.events), "")
            << s.id << ", chunks up to " << max_chunk << " (seed " << chunk_seed << ")";
        EXPECT_EQ(got.counters.windows_evaluated, want.counters.windows_evaluated);
        EXPECT_EQ(total_pruned(want.counters), 0u);
        evaluated += got.counters.windows_evaluated;
        pruned += total_pruned(got.counters);
        std::cout << "[ pruning  ] " << s.id << " chunks <= " << max_chunk << ": "
                  << got.events.size() << " events, " << got.counters.windows_evaluated
                  << " windows, pruned " << got.counters.windows_pruned[0] << " / "
                  << got.counters.windows_pruned[1] << " / " << got.counters.windows_pruned[2]
                  << " / " << got.counters.windows_pruned[3] << "\n";
      }
      events += want.events.size();
      EXPECT_GE(want.events.size(), patterns.size()) << s.id << ": too few events to compare";
    }
  }
  EXPECT_GT(events, 0u);
  EXPECT_GT(pruned, evaluated / 2) << "the cascade pruned under half the windows";
}
