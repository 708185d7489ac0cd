// Conformance suite (overview: conformance.hpp), scenario 4: window mode against the reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "window.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// One metric in window mode: patterns with w = m, w < m, w > m (ed: w = m), hop 1..3,
// normalize none/znorm, bands (none, 0, fractional) for dtw/dk/softdtw, gamma 0.1/1 for softdtw;
// twed with nu/lambda/p variations and patterns with and without times; streams of d = 1 and 3 with
// irregular timestamps and different nominal periods.
void run_window_scenario(const Backends& backends, Metric metric) {
  std::mt19937_64 rng(test_seed());
  const std::vector<WindowCase> cases{
      {1, 2, 0, 1, Normalize::none, std::nullopt, Cost::sq},
      {1, 7, 0, 2, Normalize::znorm, std::nullopt, Cost::abs},
      {1, 12, 9, 1, Normalize::none, 2.0, Cost::sq},
      {1, 7, 10, 3, Normalize::znorm, 1.5, Cost::sq},
      {3, 31, 0, 1, Normalize::none, std::nullopt, Cost::abs},
      {3, 32, 40, 2, Normalize::znorm, 3.5, Cost::sq},
      {1, 33, 25, 3, Normalize::none, 3.5, Cost::abs},
      {3, 5, 0, 1, Normalize::znorm, std::nullopt, Cost::sq},
      {1, 64, 0, 2, Normalize::none, 0.0, Cost::sq},
      {1, 16, 0, 1, Normalize::znorm, 0.0, Cost::abs},
      {3, 9, 13, 1, Normalize::none, 1.0, Cost::abs},
  };
  struct TwedVariant {
    double nu, lambda, p;
    bool times;
  };
  const std::vector<TwedVariant> twed{{0.001, 1.0, 2.0, false},
                                      {0.5, 0.0, 1.0, true},
                                      {0.0, 0.3, 3.0, false},
                                      {0.1, 2.0, 2.0, true}};
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  std::uniform_real_distribution<double> tstep(0.3, 2.0);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const auto& c = cases[i];
    bases.push_back(random_walk(rng, c.m, c.dims));
    const bool lock_step = metric == Metric::ed;  // ed: w = m, no band
    const std::size_t w = lock_step ? 0 : c.w;
    std::ostringstream id;
    id << "w" << i << "_d" << c.dims << "_m" << c.m << "_w" << (w ? w : c.m) << "_hop" << c.hop
       << "_" << kernels::to_string(c.normalize);
    PatternDef p = window_pattern(id.str(), c.dims, bases.back(), metric, w, c.hop, c.normalize);
    p.params.distance.cost = c.cost;
    if (kernels::measure_info(metric).band == kernels::BandUse::applies)
      p.params.distance.band = c.band;
    p.params.distance.c = 0.05 + 0.5 * static_cast<double>(i % 3);        // msm
    p.params.distance.g = i % 2 ? 0.0 : 0.5;                              // erp
    p.params.distance.epsilon = 0.15 + 0.1 * static_cast<double>(i % 3);  // lcss
    if (i % 4 == 1) p.params.distance.delta = c.m / 4;                    // lcss
    p.params.distance.gamma = i % 2 ? 0.1 : 1.0;
    const auto& tv = twed[i % twed.size()];
    p.params.distance.nu = tv.nu;
    p.params.distance.lambda = tv.lambda;
    p.params.distance.p = tv.p;
    if (metric == Metric::twed && tv.times) {
      double t = 10.0 * static_cast<double>(i % 3);
      for (std::size_t j = 0; j < c.m; ++j) p.times.push_back(t += tstep(rng));
    }
    patterns.push_back(std::move(p));
  }
  // a: d1, 1 s period, 0.5..1.5 s steps; c: d1, 2 s period, 0.1..4 s steps; b: d3, 0.5 s
  // period, 0.2..0.8 s steps. Each pattern planted once in every stream of its dimension.
  struct S {
    const char* id;
    std::size_t dims, length;
    TimeShape time;
  };
  const std::vector<S> shapes{{"a", 1, 420, {kSecond, kSecond / 2, 3 * kSecond / 2}},
                              {"c", 1, 300, {2 * kSecond, kSecond / 10, 4 * kSecond}},
                              {"b", 3, 360, {kSecond / 2, kSecond / 5, 4 * kSecond / 5}}};
  std::vector<StreamData> streams;
  for (const auto& sh : shapes) {
    std::vector<std::size_t> mine, lengths;
    for (std::size_t p = 0; p < patterns.size(); ++p)
      if (patterns[p].dims == sh.dims) {
        mine.push_back(p);
        lengths.push_back(patterns[p].length());
      }
    std::shuffle(mine.begin(), mine.end(), rng);
    lengths.clear();
    for (std::size_t p : mine) lengths.push_back(patterns[p].length());
    const auto pos = random_positions(rng, sh.length, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < mine.size() && k < pos.size(); ++k)
      plants.push_back({&bases[mine[k]], pos[k]});
    streams.push_back(walk_stream(rng, sh.id, sh.dims, sh.length, plants, 0.1f, sh.time));
  }
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const std::string what = cat("window mode, ", kernels::to_string(metric));
  check_workload(backends, w, rng(), what, all_chunkings(), &predicted);
  for (const auto& p : w.patterns)
    EXPECT_TRUE(std::any_of(predicted.begin(), predicted.end(),
                            [&](const RawMatch& m) { return m.pattern_id() == p.id; }))
        << p.id << " has no event";
}

// znorm with exactly constant stretches (values that are not powers of two, so that a
// float32 mean is not exact): those windows are flat (std 0 < 1e-8), skipped and counted
// exactly as the reference does.
void run_window_flat_znorm(const Backends& backends) {
  std::mt19937_64 rng(test_seed());
  std::vector<StreamData> streams;
  for (std::size_t d : {1u, 2u}) {
    StreamData s = walk_stream(rng, cat("flat", d), d, 400, {}, 0.0f);
    const float levels[] = {3.7f, 0.1f, -123.456f, 1e4f / 3.0f};
    for (int k = 0; k < 4; ++k) {
      const std::size_t from = 30 + 90 * static_cast<std::size_t>(k),
                        to = from + 25 + 5 * static_cast<std::size_t>(k);
      for (std::size_t i = from; i < to; ++i)
        for (std::size_t c = 0; c < d; ++c)
          // d = 2: component 1 constant only on every other stretch.
          if (c == 0 || k % 2 == 0) s.values[i * d + c] = levels[k] + static_cast<float>(c);
    }
    streams.push_back(std::move(s));
  }
  std::vector<PatternDef> patterns;
  patterns.push_back(
      window_pattern("z_dtw_m7", 1, random_walk(rng, 7, 1), Metric::dtw, 0, 1, Normalize::znorm));
  patterns.push_back(
      window_pattern("z_dk_m5_w9", 1, random_walk(rng, 5, 1), Metric::dk, 9, 2, Normalize::znorm));
  patterns.push_back(
      window_pattern("z_twed_m6", 2, random_walk(rng, 6, 2), Metric::twed, 0, 1, Normalize::znorm));
  patterns.push_back(window_pattern("z_soft_m8_w11", 2, random_walk(rng, 8, 2), Metric::softdtw, 11,
                                    3, Normalize::znorm));
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.1);
  const Outcome want =
      check_workload(backends, w, rng(), "znorm with flat windows", all_chunkings(), &predicted);
  EXPECT_GT(want.counters.flat_windows_skipped, 50u);
}

}  // namespace warpwatch::testing::conformance
