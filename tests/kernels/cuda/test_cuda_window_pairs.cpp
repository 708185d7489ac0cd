// The cuda Matcher's window mode on the device (kernels/cuda/window/window_pairs.hpp): the
// pruned passes against the same passes aligning every window (bit for bit: both compare
// the same float32 values) and both against the reference (within docs/spec.md §3.2's 1e-5),
// through the conformance suite's workloads, in every chunking (one sample a batch, uneven
// chunks, one batch). Dense matches (thresholds near the 5% quantile of the windows'
// distances, planted copies), ECG beats, patterns up to the kernel's 1,536 rows (every
// register size), bands, hops, w != m, znorm with flat stretches, several streams per
// batch. Every test prints its seed (WARPWATCH_SEED replays).
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "conformance/conformance.hpp"
#include "conformance/inputs.hpp"
#include "conformance/window.hpp"
#include "conformance/workload.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/cuda.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::StreamData;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;
namespace bench = warpwatch::bench;

namespace {

Backend cuda(bool prune) {
  return Backend{prune ? "cuda" : "cuda, every window aligned",
                 [prune] { return kernels::cuda::make_matcher({.window_pruning = prune}); },
                 [](std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                    const kernels::DistanceParams& params,
                    std::span<double> out) { kernels::cuda::distance_matrix(a, b, params, out); }};
}

// The pruned matcher first: the unpruned one must match it bit for bit.
const Backends& pruned_and_full() {
  static const Backends backends{cuda(true), cuda(false)};
  return backends;
}

std::uint64_t total_pruned(const kernels::MatcherCounters& c) {
  return std::accumulate(c.windows_pruned.begin(), c.windows_pruned.end(), std::uint64_t{0});
}

// How much the pruned matcher pruned in one batch over the whole workload.
kernels::MatcherCounters pruned_counts(const Workload& w) {
  auto m = kernels::cuda::make_matcher();
  for (const StreamData& s : w.streams) m->add_stream({s.id, s.dims, s.period_ns});
  for (const PatternDef& p : w.patterns) m->add_pattern(p);
  std::vector<kernels::StreamChunk> chunks;
  for (const StreamData& s : w.streams) chunks.push_back({s.id, s.values, s.ts});
  m->process(chunks);
  m->flush();
  return m->counters();
}

// ECG200 beats resampled around m samples, as a stream of n samples.
StreamData ecg_stream(std::mt19937_64& rng, const std::string& id, std::size_t n, std::size_t m) {
  StreamData s = walk_stream(rng, id, 1, n, {}, 0.0f);
  bench::BeatStream beats(bench::ecg_beats(bench::default_data_dir()), m, 1, rng());
  beats.fill(s.values.data(), n);
  return s;
}

}  // namespace

// The conformance suite's window scenarios (short patterns, d 1 and 3: the d 3 pairs and
// the other metrics go through ElasticBatcher beside the device passes in the same batch).
TEST(CudaWindowPairs, ConformanceScenariosPrunedAndFull) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(pruned_and_full(), kernels::Metric::dtw);
  run_window_scenario(pruned_and_full(), kernels::Metric::dk);
  run_window_scenario(pruned_and_full(), kernels::Metric::ed);
  run_window_flat_znorm(pruned_and_full());
}

// Planted walks and ECG beats, several streams in each batch, dtw and dk patterns of 24 to
// 1,500 samples (4, 8, 16, 32 and 48 rows a lane) and ed ones, thresholds near the 5%
// quantile.
TEST(CudaWindowPairs, DenseMatchesLongPatternsAndEcg) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  struct Case {
    std::size_t m, w, hop;
    kernels::Metric metric;
    kernels::Cost cost;
    kernels::Normalize normalize;
    double band;  // fraction of w; < 0: none
  };
  using kernels::Cost;
  using kernels::Metric;
  using kernels::Normalize;
  // Hops keep the reference's share of the test's time down (it aligns every window's whole
  // table, band or not).
  const std::vector<Case> cases{
      {24, 24, 1, Metric::dtw, Cost::sq, Normalize::znorm, -1.0},
      {100, 108, 2, Metric::dk, Cost::abs, Normalize::znorm, 0.1},
      {200, 200, 1, Metric::dtw, Cost::abs, Normalize::none, 0.05},
      {128, 128, 1, Metric::ed, Cost::sq, Normalize::znorm, -1.0},
      {400, 400, 4, Metric::dtw, Cost::sq, Normalize::znorm, 0.1},
      {700, 700, 8, Metric::dtw, Cost::sq, Normalize::znorm, -1.0},
      {1000, 1000, 12, Metric::dk, Cost::sq, Normalize::znorm, 0.05},
      {1500, 1500, 16, Metric::dtw, Cost::sq, Normalize::znorm, 0.02},
      {300, 300, 2, Metric::ed, Cost::abs, Normalize::none, -1.0},
  };
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    bases.push_back(random_walk(rng, c.m, 1));
    PatternDef p = window_pattern(cat("p", i, "_m", c.m), 1, bases.back(), c.metric,
                                  c.w == c.m ? 0 : c.w, c.hop, c.normalize);
    p.params.distance.cost = c.cost;
    if (c.band >= 0) p.params.distance.band = c.band * static_cast<double>(c.w);
    patterns.push_back(std::move(p));
  }
  // A walk with every pattern planted (noisy copies), one with the four shortest, ECG beats.
  std::vector<StreamData> streams;
  for (const auto& [id, n, planted] :
       std::vector<std::tuple<const char*, std::size_t, std::size_t>>{{"walk_a", 5000, 9},
                                                                      {"walk_b", 2000, 4}}) {
    std::vector<std::size_t> lengths;
    for (std::size_t k = 0; k < planted; ++k) lengths.push_back(bases[k].size());
    const auto at = random_positions(rng, n, lengths);
    std::vector<Plant> plants;
    for (std::size_t k = 0; k < planted; ++k) plants.push_back({&bases[k], at[k]});
    streams.push_back(walk_stream(rng, id, 1, n, plants, 0.1f));
  }
  streams.push_back(ecg_stream(rng, "ecg", 1800, 96));
  Workload w = Workload::all_at_once(streams, patterns);
  const auto predicted = calibrate_window_thresholds(w, rng, 0.05);
  const Outcome want = check_workload(pruned_and_full(), w, rng(), "dense, long patterns, ecg",
                                      all_chunkings(), &predicted);
  EXPECT_GT(want.all().size(), patterns.size());
  const kernels::MatcherCounters c = pruned_counts(w);
  std::cout << "[ pruning  ] seed " << seed << ": " << c.windows_evaluated << " windows, pruned "
            << c.windows_pruned[0] << " (LB_Kim) / " << c.windows_pruned[1] << " (LB_Keogh) / "
            << c.windows_pruned[3] << " (abandoned)\n";
  EXPECT_GT(total_pruned(c), c.windows_evaluated / 2) << "the cascade pruned under half";
}
