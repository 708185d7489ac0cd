// ed (docs/spec.md §4.0) on the cpu backend (kernels/cpu/window_ed.hpp, sliding_dot.hpp):
// whole-series distances against a plain loop; window mode and the top-K search pruned (early
// abandoning, the FFT filter) against the same backend summing every window, bit for bit, and
// against the reference; an exact self-match and a threshold placed exactly at a window's distance;
// and the FFT's error bounds against exact sums on walks far from zero and on flat stretches. The
// conformance suite (CpuWindow.Ed) compares window mode with the reference in every chunking.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_track.hpp"
#include "conformance/inputs.hpp"
#include "cpu/window/sliding_dot.hpp"
#include "cpu/window/window_distances.hpp"
#include "cpu/window/window_ed.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;
namespace common = warpwatch::kernels::common;
namespace cpu = warpwatch::kernels::cpu;
using Fft = kernels::cpu::Options::EdFft;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double plain_ed(const float* a, const float* b, std::size_t n, std::size_t dims, Cost cost) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double c = 0.0;
    for (std::size_t k = 0; k < dims; ++k) {
      const double d = static_cast<double>(a[i * dims + k]) - static_cast<double>(b[i * dims + k]);
      c += cost == Cost::sq ? d * d : std::abs(d);
    }
    sum += c;
  }
  return sum;
}

// A series of n samples: a random walk of N(0, step) steps from `level`, with a copy of
// `plant` (plus N(0, noise)) written at each of `at`.
std::vector<float> walk_with(std::mt19937_64& rng, std::size_t n, std::size_t dims, float level,
                             float step, const std::vector<float>& plant,
                             const std::vector<std::size_t>& at, float noise) {
  std::normal_distribution<float> delta(0.0f, step), jitter(0.0f, noise > 0 ? noise : 1.0f);
  std::vector<float> out(n * dims);
  std::vector<float> x(dims, level);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < dims; ++k) out[i * dims + k] = x[k] += delta(rng);
  for (const std::size_t a : at)
    for (std::size_t i = 0; i < plant.size(); ++i)
      out[a * dims + i] = plant[i] + (noise > 0 ? jitter(rng) : 0.0f);
  return out;
}

std::vector<std::int64_t> seconds(std::size_t n) {
  std::vector<std::int64_t> t(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = static_cast<std::int64_t>(i + 1) * kSecond;
  return t;
}

PatternDef ed_pattern(std::size_t dims, std::vector<float> values, Normalize normalize, Cost cost) {
  PatternDef p = window_pattern("q", dims, std::move(values), Metric::ed, 0, 1, normalize);
  p.params.distance.cost = cost;
  return p;
}

std::string describe(const PatternDef& p) {
  return cat("ed d ", p.dims, " m ", p.length(), " ", kernels::to_string(p.params.normalize), " ",
             kernels::to_string(p.params.distance.cost));
}

// Window mode over the whole series in chunks of `chunk` samples (0: one batch).
std::vector<RawMatch> run_window(kernels::Matcher& matcher, const PatternDef& p,
                                 const std::vector<float>& values, std::size_t chunk) {
  const std::size_t n = values.size() / p.dims;
  const auto times = seconds(n);
  matcher.add_stream({"s", p.dims, kSecond});
  matcher.add_pattern(p);
  std::vector<RawMatch> out;
  const std::size_t step = chunk ? chunk : n;
  for (std::size_t at = 0; at < n; at += step) {
    const std::size_t count = std::min(step, n - at);
    const StreamChunk c{"s", std::span(values).subspan(at * p.dims, count * p.dims),
                        std::span(times).subspan(at, count)};
    const auto got = matcher.process(std::span(&c, 1));
    out.insert(out.end(), got.begin(), got.end());
  }
  const auto rest = matcher.flush();
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// The reference's distance of the window [start, end] (the window z-normalized in two passes
// under znorm, as the reference does).
double reference_window(const PatternDef& p, const std::vector<float>& values,
                        std::uint64_t start) {
  std::vector<float> pattern = p.values,
                     window(values.begin() + static_cast<std::ptrdiff_t>(start * p.dims),
                            values.begin() +
                                static_cast<std::ptrdiff_t>((start + p.length()) * p.dims));
  if (p.params.normalize == Normalize::znorm) {
    common::znormalize(pattern, p.dims);
    common::znormalize(window, p.dims);
  }
  return kernels::reference::ed({pattern.data(), p.length(), p.dims, nullptr},
                                {window.data(), p.length(), p.dims, nullptr},
                                p.params.distance.cost);
}

kernels::TopWindowsRequest top_request(const PatternDef& p, const std::vector<float>& values,
                                       const std::vector<std::int64_t>& times, std::size_t k,
                                       bool use_threshold) {
  return {{"s", p.dims, kSecond}, values, times, p, use_threshold, k, nullptr};
}

// A WindowLimit that never prunes: every window summed to its end.
class NoLimit final : public cpu::WindowLimit {
 public:
  double limit() override { return kInf; }
};

}  // namespace

// ---------------------------------------------------------------------------------
// Whole series.

TEST(EdDistance, MatchesAPlainLoopOnTheCpuAndTheReference) {
  std::mt19937_64 rng(test_seed());
  for (const std::size_t dims : {1u, 3u}) {
    for (const Cost cost : {Cost::sq, Cost::abs}) {
      const std::size_t n = 37;
      std::vector<std::vector<float>> a, b;
      for (int i = 0; i < 5; ++i) a.push_back(random_walk(rng, n, dims));
      for (int i = 0; i < 4; ++i) b.push_back(random_walk(rng, n, dims));
      std::vector<SeriesView> va, vb;
      for (const auto& s : a) va.push_back({s.data(), n, dims, nullptr});
      for (const auto& s : b) vb.push_back({s.data(), n, dims, nullptr});
      DistanceParams params;
      params.metric = Metric::ed;
      params.cost = cost;
      std::vector<double> on_cpu(a.size() * b.size()), on_reference(a.size() * b.size());
      kernels::cpu::distance_matrix(va, vb, params, on_cpu, {.threads = 2});
      kernels::distance_matrix(kernels::Backend::reference, va, vb, params, on_reference);
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j) {
          const double want = plain_ed(a[i].data(), b[j].data(), n, dims, cost);
          EXPECT_EQ(on_cpu[i * b.size() + j], want) << "d " << dims << " i " << i << " j " << j;
          EXPECT_EQ(on_reference[i * b.size() + j], want) << "d " << dims << " i " << i;
        }
    }
  }
}

TEST(EdDistance, DifferentLengthsAreAnErrorThatSaysWhich) {
  const std::vector<float> a(10, 1.0f), b(12, 2.0f);
  const std::vector<SeriesView> va{{a.data(), 10, 1, nullptr}},
      vb{{a.data(), 10, 1, nullptr}, {b.data(), 12, 1, nullptr}};
  DistanceParams params;
  params.metric = Metric::ed;
  std::vector<double> out(2);
  // The cpu checks the whole input first; the reference, pair by pair, says it of the pair.
  for (const auto& [backend, message] :
       {std::pair{kernels::Backend::cpu,
                  "ed compares series of equal length: series 1 of B has 12 samples, series 0 of "
                  "A 10"},
        std::pair{kernels::Backend::reference,
                  "ed compares series of equal length: 10 and 12 samples"}}) {
    try {
      kernels::distance_matrix(backend, va, vb, params, out);
      ADD_FAILURE() << "expected an error";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
}

// ---------------------------------------------------------------------------------
// Window mode.

TEST(EdWindows, PrunedIsUnprunedBitForBitAndTheReferencesWindows) {
  std::mt19937_64 rng(test_seed());
  struct Case {
    std::size_t dims, m, n, hop;
  };
  // m 600 and 300: the FFT filter's automatic rule takes them (d 1, sq); hop 3: the FFT
  // computes the windows in between too.
  for (const Case c : {Case{1, 48, 5000, 1}, Case{3, 40, 3000, 1}, Case{1, 600, 12000, 1},
                       Case{1, 300, 8000, 3}}) {
    for (const Normalize normalize : {Normalize::none, Normalize::znorm}) {
      for (const Cost cost : {Cost::sq, Cost::abs}) {
        const std::vector<float> base = random_walk(rng, c.m, c.dims, 1.0f);
        std::vector<std::size_t> at;
        for (std::size_t a = 300; a + c.m < c.n; a += c.m + 700) at.push_back(a);
        const std::vector<float> values =
            walk_with(rng, c.n, c.dims, 0.0f, 1.0f, base, at, 0.2f * (1.0f + at.size() % 3));
        PatternDef p = ed_pattern(c.dims, base, normalize, cost);
        p.params.hop = c.hop;
        // A threshold that several windows pass: a little over the 5th best distance.
        const auto times = seconds(c.n);
        const auto fifth = kernels::cpu::top_windows(top_request(p, values, times, 5, false),
                                                     {.threads = 2, .window_pruning = false});
        ASSERT_EQ(fifth.size(), 5u) << describe(p);
        p.params.threshold = 1.2 * fifth.back().distance;

        auto full = kernels::cpu::make_matcher({.threads = 2, .window_pruning = false});
        const auto want = run_window(*full, p, values, 0);
        ASSERT_GE(want.size(), 3u) << describe(p);
        for (const RawMatch& e : want) {
          const double r = reference_window(p, values, e.start_index);
          EXPECT_NEAR(e.distance, r, 1e-6 * std::max(1.0, r))
              << describe(p) << " at " << e.start_index;
          EXPECT_EQ(e.end_index - e.start_index + 1, c.m);
          EXPECT_EQ((e.end_index + 1 - c.m) % c.hop, 0u);
        }
        std::uniform_int_distribution<std::size_t> chunk(1, 3000);
        for (const Fft fft : {Fft::automatic, Fft::always, Fft::never}) {
          for (const std::size_t size : {std::size_t{0}, chunk(rng)}) {
            auto pruned = kernels::cpu::make_matcher({.threads = 2, .ed_fft = fft});
            const auto got = run_window(*pruned, p, values, size);
            EXPECT_EQ(got, want) << describe(p) << " fft " << static_cast<int>(fft) << " chunk "
                                 << size;
            const auto counters = pruned->counters();
            const std::uint64_t dropped = std::accumulate(
                counters.windows_pruned.begin(), counters.windows_pruned.end(), std::uint64_t{0});
            EXPECT_GT(dropped, 0u) << describe(p);
            if (fft == Fft::always && c.dims == 1 && cost == Cost::sq && size == 0) {
              EXPECT_GT(counters.windows_pruned[4], 0u) << describe(p) << ": the FFT pruned none";
            }
            if (fft == Fft::never || c.dims > 1 || cost == Cost::abs) {
              EXPECT_EQ(counters.windows_pruned[4], 0u) << describe(p);
            }
          }
        }
      }
    }
  }
}

// The reference matcher gives the same windows (its distances in index order and two-pass
// moments may differ in the last bits; the planted copies are far apart in distance).
TEST(EdWindows, ReferenceMatcherFindsThePlantedCopiesLikeTheCpu) {
  std::mt19937_64 rng(test_seed());
  for (const Normalize normalize : {Normalize::none, Normalize::znorm}) {
    const std::vector<float> base = random_walk(rng, 30, 1, 1.0f);
    const std::vector<float> values =
        walk_with(rng, 2000, 1, 0.0f, 1.0f, base, {200, 900, 1500}, 0.01f);
    PatternDef p = ed_pattern(1, base, normalize, Cost::sq);
    p.params.threshold = 0.5;
    auto ref = kernels::reference::make_matcher();
    auto fast = kernels::cpu::make_matcher({.threads = 2});
    const auto want = run_window(*ref, p, values, 0);
    const auto got = run_window(*fast, p, values, 0);
    ASSERT_EQ(want.size(), 3u) << describe(p);
    ASSERT_EQ(got.size(), 3u) << describe(p);
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(got[k].start_index, want[k].start_index);
      EXPECT_EQ(got[k].start_index, (std::vector<std::uint64_t>{200, 900, 1500}[k]));
      EXPECT_NEAR(got[k].distance, want[k].distance, 1e-6 * std::max(1.0, want[k].distance));
    }
  }
}

// ---------------------------------------------------------------------------------
// Top K.

TEST(EdTop, PrunedIsUnprunedBitForBitAndAgreesWithTheReference) {
  std::mt19937_64 rng(test_seed());
  for (const std::size_t dims : {1u, 3u}) {
    for (const Normalize normalize : {Normalize::znorm, Normalize::none}) {
      for (const Cost cost : {Cost::sq, Cost::abs}) {
        const std::size_t m = dims == 1 ? 520 : 64, n = dims == 1 ? 20000 : 6000;
        const std::vector<float> base = random_walk(rng, m, dims, 1.0f);
        // Copies ever noisier: their distances are well apart.
        std::vector<float> values = walk_with(rng, n, dims, 0.0f, 1.0f, base, {}, 0.0f);
        std::normal_distribution<float> noise(0.0f, 1.0f);
        for (std::size_t c = 0; c < 4; ++c) {
          const std::size_t at = (c + 1) * n / 5;
          for (std::size_t i = 0; i < m * dims; ++i)
            values[at * dims + i] = base[i] + 0.02f * static_cast<float>(c + 1) * noise(rng);
        }
        const PatternDef p = ed_pattern(dims, base, normalize, cost);
        const auto times = seconds(n);
        for (const std::size_t k : {1u, 3u}) {
          const auto request = top_request(p, values, times, k, false);
          const auto want =
              kernels::cpu::top_windows(request, {.threads = 2, .window_pruning = false});
          ASSERT_EQ(want.size(), k);
          for (const Fft fft : {Fft::automatic, Fft::always, Fft::never}) {
            EXPECT_EQ(kernels::cpu::top_windows(request, {.threads = 2, .ed_fft = fft}), want)
                << describe(p) << " k " << k << " fft " << static_cast<int>(fft);
          }
          const auto reference = kernels::reference::top_windows(request);
          ASSERT_EQ(reference.size(), k);
          for (std::size_t i = 0; i < k; ++i) {
            EXPECT_EQ(reference[i].end_index, want[i].end_index) << describe(p) << " k " << k;
            EXPECT_EQ(want[i].start_index, (i + 1) * n / 5) << describe(p) << " k " << k;
            EXPECT_NEAR(reference[i].distance, want[i].distance,
                        1e-6 * std::max(1.0, reference[i].distance));
          }
        }
      }
    }
  }
}

// A query cut from the series itself, far from zero: its own window is at distance 0 (raw) or
// about 0 (znorm: the window's moments slide, the pattern's are two-pass), and the FFT filter,
// whose estimate of it is mostly rounding error, must keep it. Then a threshold placed exactly
// at a window's distance keeps that window, and the next double below it does not.
TEST(EdTop, ExactSelfMatchAndAThresholdAtAWindowsDistance) {
  std::mt19937_64 rng(test_seed());
  for (const Normalize normalize : {Normalize::znorm, Normalize::none}) {
    const std::size_t n = 30000, m = 700, at = 12345;
    const std::vector<float> values = walk_with(rng, n, 1, 1e4f, 1.0f, {}, {}, 0.0f);
    const std::vector<float> cut(values.begin() + at, values.begin() + at + m);
    PatternDef p = ed_pattern(1, cut, normalize, Cost::sq);
    const auto times = seconds(n);
    const auto unpruned = kernels::cpu::top_windows(top_request(p, values, times, 6, false),
                                                    {.threads = 2, .window_pruning = false});
    ASSERT_EQ(unpruned.size(), 6u);
    EXPECT_EQ(unpruned[0].start_index, at);
    if (normalize == Normalize::none) {
      EXPECT_EQ(unpruned[0].distance, 0.0);
    } else {
      EXPECT_LT(unpruned[0].distance, 1e-6);
    }
    for (const Fft fft : {Fft::always, Fft::never}) {
      EXPECT_EQ(kernels::cpu::top_windows(top_request(p, values, times, 6, false),
                                          {.threads = 2, .ed_fft = fft}),
                unpruned)
          << kernels::to_string(normalize) << " fft " << static_cast<int>(fft);
    }
    // The 5th best window's own distance as the threshold: it is kept; just below, it is not.
    const kernels::TopWindow fifth = unpruned[4];
    for (const double threshold : {fifth.distance, std::nextafter(fifth.distance, 0.0)}) {
      p.params.threshold = threshold;
      const auto request = top_request(p, values, times, 10, true);
      const auto want = kernels::cpu::top_windows(request, {.threads = 2, .window_pruning = false});
      const bool kept = std::find(want.begin(), want.end(), fifth) != want.end();
      EXPECT_EQ(kept, threshold == fifth.distance) << kernels::to_string(normalize);
      for (const Fft fft : {Fft::always, Fft::never, Fft::automatic}) {
        EXPECT_EQ(kernels::cpu::top_windows(request, {.threads = 1, .ed_fft = fft}), want)
            << kernels::to_string(normalize) << " threshold " << threshold << " fft "
            << static_cast<int>(fft);
      }
      // Window mode at that threshold: the same events with the filter, without it, unpruned.
      auto full = kernels::cpu::make_matcher({.threads = 2, .window_pruning = false});
      const auto events = run_window(*full, p, values, 0);
      for (const Fft fft : {Fft::always, Fft::never}) {
        auto pruned = kernels::cpu::make_matcher({.threads = 2, .ed_fft = fft});
        EXPECT_EQ(run_window(*pruned, p, values, 0), events) << kernels::to_string(normalize);
      }
    }
  }
}

// ---------------------------------------------------------------------------------
// The FFT: its dot products and window sums within their bounds of exact sums, and the
// filter's bound of each window's ed at or below the direct sum it stands for.

namespace {

struct Shape {
  const char* name;
  std::vector<float> values;
};

// Random walks far from zero, flat stretches with tiny noise (znorm scales them up by 10^4),
// spikes, and values near zero.
std::vector<Shape> hard_series(std::mt19937_64& rng, std::size_t n) {
  std::vector<Shape> out;
  out.push_back({"walk at 1e4", walk_with(rng, n, 1, 1e4f, 1.0f, {}, {}, 0.0f)});
  out.push_back({"walk at -3e5", walk_with(rng, n, 1, -3e5f, 5.0f, {}, {}, 0.0f)});
  std::normal_distribution<float> tiny(0.0f, 1e-4f);
  std::vector<float> flat = walk_with(rng, n, 1, 1234.5f, 1.0f, {}, {}, 0.0f);
  for (std::size_t i = 0; i < n; ++i)
    if (i % 3000 < 1500) flat[i] = 1234.5f + tiny(rng);
  out.push_back({"flat stretches at 1234.5", flat});
  std::vector<float> spikes = walk_with(rng, n, 1, 0.0f, 1.0f, {}, {}, 0.0f);
  for (std::size_t i = 0; i < n; i += 997) spikes[i] += 1e5f;
  out.push_back({"spikes of 1e5", spikes});
  out.push_back({"near zero", walk_with(rng, n, 1, 0.0f, 1e-3f, {}, {}, 0.0f)});
  return out;
}

}  // namespace

TEST(EdFft, SlidingDotsStayWithinTheirBounds) {
  std::mt19937_64 rng(test_seed());
  double worst[3] = {0.0, 0.0, 0.0};  // the largest error seen, as a fraction of its bound
  for (const std::size_t m : {2u, 33u, 600u, 1023u}) {
    for (const Shape& shape : hard_series(rng, 12000)) {
      std::vector<float> q = random_walk(rng, m, 1, 1.0f);
      if (m > 2) common::znormalize(q, 1);
      const std::size_t count = shape.values.size() - m + 1;
      cpu::WindowDots dots;
      cpu::SlidingDotScratch scratch;
      cpu::sliding_dots(q, shape.values.data(), count, dots, scratch);
      for (std::size_t j = 0; j < count; ++j) {
        long double dot = 0, x1 = 0, x2 = 0;
        const long double c = dots.centre[j];
        for (std::size_t i = 0; i < m; ++i) {
          const long double x = static_cast<long double>(shape.values[j + i]) - c;
          dot += static_cast<long double>(q[i]) * x;
          x1 += x;
          x2 += x * x;
        }
        const auto check = [&](int what, double got, long double want, double bound) {
          const double error = static_cast<double>(std::fabs(static_cast<long double>(got) - want));
          ASSERT_LE(error, bound) << "sum " << what << " of window " << j << ", m " << m << ", "
                                  << shape.name;
          if (bound > 0) worst[what] = std::max(worst[what], error / bound);
        };
        check(0, dots.dot[j], dot, dots.err_dot[j]);
        check(1, dots.x1[j], x1, dots.err_x1[j]);
        check(2, dots.x2[j], x2, dots.err_x2[j]);
      }
    }
  }
  std::cout << "[ fft      ] the largest errors seen, as fractions of their bounds: dot "
            << worst[0] << ", x1 " << worst[1] << ", x2 " << worst[2] << "\n";
}

TEST(EdFft, FilterBoundsNeverExceedTheDirectSums) {
  std::mt19937_64 rng(test_seed());
  std::size_t checked = 0, useful = 0;
  for (const std::size_t m : {2u, 40u, 600u}) {
    for (const Shape& shape : hard_series(rng, 9000)) {
      for (const Normalize normalize : {Normalize::znorm, Normalize::none}) {
        const std::size_t n = shape.values.size();
        // A query from the series (the search's usual case) with some noise on it.
        std::vector<float> q(shape.values.begin() + 4000,
                             shape.values.begin() + 4000 + static_cast<std::ptrdiff_t>(m));
        std::normal_distribution<float> noise(0.0f, 0.5f);
        for (float& v : q) v += noise(rng);
        PatternDef p = ed_pattern(1, q, normalize, Cost::sq);
        std::vector<float> check = p.values;
        if (normalize == Normalize::znorm && !common::znormalize(check, 1)) continue;
        warpwatch::kernels::StreamHistory history(1);
        history.append(shape.values, seconds(n));
        const common::WindowTrack track(p, kSecond, 0);
        const common::WindowQuery query(p);
        std::vector<std::uint64_t> ends;
        for (std::uint64_t e = m - 1; e < n; ++e) ends.push_back(e);
        std::vector<double> distances(ends.size(), -1.0);
        std::vector<std::uint8_t> flat(ends.size(), 0);
        cpu::WorkerScratch scratch;
        std::array<std::uint64_t, kernels::kPruneStages> pruned{};
        NoLimit no_limit;
        cpu::compute_windows({&history, &track, &query, Fft::always}, ends, 0, ends.size(),
                             no_limit, distances.data(), flat.data(), scratch, pruned);
        ASSERT_EQ(scratch.ed_bound.size(), ends.size());
        for (std::size_t i = 0; i < ends.size(); ++i) {
          if (flat[i]) continue;
          ++checked;
          ASSERT_LE(scratch.ed_bound[i], distances[i])
              << "window ending " << ends[i] << ", m " << m << ", " << shape.name << ", "
              << kernels::to_string(normalize);
          if (scratch.ed_bound[i] > 0.99 * distances[i]) ++useful;
        }
      }
    }
  }
  EXPECT_GT(checked, 100000u);
  // Far from every window being close to its distance only where rounding dominates (flat
  // stretches under znorm, a query's own window): most bounds are within 1% of the sum.
  EXPECT_GT(useful, checked / 2);
  std::cout << "[ fft      ] " << useful << " of " << checked
            << " bounds within 1% of the direct sum\n";
}

TEST(EdFft, BlockIsAPowerOfTwoAFewTimesTheQuery) {
  EXPECT_EQ(cpu::sliding_dot_block(1023, 1'000'000), 4096u);
  EXPECT_EQ(cpu::sliding_dot_block(128, 1'000'000), 512u);
  EXPECT_EQ(cpu::sliding_dot_block(2, 1'000'000), 256u);
  EXPECT_EQ(cpu::sliding_dot_block(600, 1), 1024u);    // one window: the query's own length
  EXPECT_EQ(cpu::sliding_dot_block(600, 500), 2048u);  // 1099 samples
}
