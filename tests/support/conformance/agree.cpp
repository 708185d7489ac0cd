// Conformance suite (overview: conformance.hpp), scenario 6: several backends (thread
// counts) agree bit for bit on larger work, distance matrices and a matcher.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <random>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "workload.hpp"

namespace warpwatch::testing::conformance {

// =================================================================================
// Scenario 6: several backends (thread counts) agree bit for bit on larger work, without
// the reference. (Every scenario above also compares them on its own inputs.)
void run_backends_agree(const Backends& backends) {
  if (backends.size() < 2) return;
  std::mt19937_64 rng(test_seed());
  // Distance matrices, every metric.
  for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
    const auto a = random_series(rng, 17, 2, 160, metric == Metric::twed);
    const auto b = random_series(rng, 13, 2, 160, metric == Metric::twed);
    DistanceParams q;
    q.metric = metric;
    if (metric == Metric::dk) q.band = 4.0;
    const auto va = views(a), vb = views(b);
    std::optional<std::vector<double>> first;
    for (const auto& backend : backends) {
      std::vector<double> out(a.size() * b.size());
      backend.distance_matrix(va, vb, q, out);
      if (!first) {
        first = out;
      } else {
        EXPECT_EQ(std::memcmp(first->data(), out.data(), out.size() * sizeof(double)), 0)
            << backend.name << " vs " << backends.front().name << ": " << kernels::to_string(metric)
            << " matrix";
      }
    }
  }
  // A matcher with 24 streams x 16 patterns of both modes.
  std::vector<StreamData> streams;
  std::vector<PatternDef> patterns;
  std::vector<std::vector<float>> bases;
  for (std::size_t p = 0; p < 16; ++p) bases.push_back(random_walk(rng, 4 + p % 11, 1 + p % 2));
  for (std::size_t s = 0; s < 24; ++s) {
    const std::size_t d = 1 + s % 2;
    std::vector<Plant> plants;
    std::size_t at = 10;
    for (std::size_t p = 0; p < bases.size(); ++p)
      if (1 + p % 2 == d && (p + s) % 3 == 0) {
        plants.push_back({&bases[p], at});
        at += bases[p].size() / d + 20;
      }
    streams.push_back(walk_stream(rng, cat("s", s), d, 300, plants, 0.1f));
  }
  const Metric metrics[] = {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed};
  for (std::size_t p = 0; p < bases.size(); ++p) {
    const std::size_t d = 1 + p % 2, m = bases[p].size() / d;
    if (p % 2 == 0) {
      patterns.push_back(stream_pattern(cat("p", p), d, bases[p], p % 4 ? Metric::dk : Metric::dtw,
                                        Cost::sq, p % 4 ? 1.0 : 0.5 * static_cast<double>(m)));
    } else {
      patterns.push_back(window_pattern(cat("p", p), d, bases[p], metrics[(p / 2) % 4], m + p % 3,
                                        1 + p % 3, p % 3 ? Normalize::none : Normalize::znorm));
      patterns.back().params.threshold = 1e30;  // every window qualifies: many comparisons
    }
  }
  const Workload w = Workload::all_at_once(streams, patterns);
  for (Chunking chunking : {Chunking::small_random, Chunking::one_big}) {
    std::optional<Outcome> first;
    for (const auto& backend : backends) {
      auto matcher = backend.make_matcher();
      const Outcome got = run_workload(*matcher, w, chunking, 99);
      if (!first) {
        EXPECT_FALSE(got.all().empty());
        first = got;
      } else {
        expect_identical(
            got, *first,
            backend.name + " vs " + backends.front().name + ", " + to_string(chunking));
      }
    }
  }
}

}  // namespace warpwatch::testing::conformance
