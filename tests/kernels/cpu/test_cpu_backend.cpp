// The fast CPU backend (kernels/include/warpwatch/kernels/cpu.hpp) against the scalar
// reference: the conformance scenarios of tests/support/conformance/ (overview in conformance.hpp),
// each run with 1, 2 and 3 worker threads, which must also agree with each other bit for bit.

#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <span>
#include <string>

#include "conformance/conformance.hpp"
#include "warpwatch/kernels/cpu.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;

namespace {

Backend cpu_backend(unsigned threads) {
  return Backend{
      cat("cpu threads=", threads),
      [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); },
      [threads](std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                const kernels::DistanceParams& params, std::span<double> out) {
        kernels::cpu::distance_matrix(a, b, params, out, kernels::cpu::Options{threads});
      }};
}

const Backends& cpu_backends() {
  static const Backends backends{cpu_backend(1), cpu_backend(2), cpu_backend(3)};
  return backends;
}

}  // namespace

TEST(CpuBackend, NameAndSimdTarget) {
  EXPECT_EQ(kernels::cpu::make_matcher()->name(), "cpu");
  EXPECT_FALSE(kernels::cpu::simd_target().empty());
  std::cout << "[ simd     ] " << kernels::cpu::simd_target() << "\n";
}

// ---------------------------------------------------------------------------------
// 1. Stream mode (dtw, dk; sq, abs; d = 1, 3): bit-identical to the reference, every chunking.

TEST(CpuStream, SmallPatterns) {
  run_stream_scenario(cpu_backends(), StreamScenario::small_patterns());
}

TEST(CpuStream, Pattern257) {
  run_stream_scenario(cpu_backends(), StreamScenario::pattern_257());
}

TEST(CpuStream, Pattern3000) {
  run_stream_scenario(cpu_backends(), StreamScenario::pattern_3000());
}

TEST(CpuStream, DenseMatchesLongStreamsAndEcg) {
  run_stream_dense(cpu_backends(), {});
}

TEST(CpuStream, QuantizedValuesTieBreaking) {
  run_stream_quantized_ties(cpu_backends());
}

TEST(CpuStream, ThresholdEdges) {
  run_stream_threshold_edges(cpu_backends());
}

// ---------------------------------------------------------------------------------
// 2. Many pairs.

TEST(CpuManyPairs, OneByOne) {
  run_many_pairs(cpu_backends(), 1, 1, 400, 400, 40, 3);
}

TEST(CpuManyPairs, SevenByFive) {
  run_many_pairs(cpu_backends(), 7, 5, 150, 260, 24);
}

TEST(CpuManyPairs, HundredByHundred) {
  run_many_pairs(cpu_backends(), 100, 100, 30, 60, 8);
}

// Dimensions 1..64; patterns of a dimension no stream has (5), streams no pattern pairs
// with (4, 17). Pattern i is stream dtw, stream dk, window softdtw, window twed+znorm by
// i % 4: d = 64 gets stream dk and window softdtw, d = 8 stream dtw and window softdtw.
TEST(CpuManyPairs, MixedDimsAndModes) {
  run_mixed_dims_and_modes(cpu_backends(), {1, 2, 3, 4, 8, 17, 64, 1},
                           {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5}, 260);
}

// ---------------------------------------------------------------------------------
// 3. Hot changes.

TEST(CpuHotChanges, AddRemoveBetweenBatches) {
  run_hot_changes(cpu_backends());
}

// ---------------------------------------------------------------------------------
// 4. Window mode.

TEST(CpuWindow, Dtw) {
  run_window_scenario(cpu_backends(), kernels::Metric::dtw);
}
TEST(CpuWindow, Dk) {
  run_window_scenario(cpu_backends(), kernels::Metric::dk);
}
TEST(CpuWindow, Softdtw) {
  run_window_scenario(cpu_backends(), kernels::Metric::softdtw);
}
TEST(CpuWindow, Twed) {
  run_window_scenario(cpu_backends(), kernels::Metric::twed);
}
TEST(CpuWindow, Ed) {
  run_window_scenario(cpu_backends(), kernels::Metric::ed);
}
TEST(CpuWindow, FlatWindowsUnderZnorm) {
  run_window_flat_znorm(cpu_backends());
}

// ---------------------------------------------------------------------------------
// 5. Whole-series distance matrices.

TEST(CpuDistance, Dtw) {
  run_distance_scenario(cpu_backends(), kernels::Metric::dtw);
}
TEST(CpuDistance, Dk) {
  run_distance_scenario(cpu_backends(), kernels::Metric::dk);
}
TEST(CpuDistance, Softdtw) {
  run_distance_scenario(cpu_backends(), kernels::Metric::softdtw);
}
TEST(CpuDistance, Twed) {
  run_distance_scenario(cpu_backends(), kernels::Metric::twed);
}
TEST(CpuDistance, TwedLargeTimeOrigin) {
  run_distance_twed_large_time_origin(cpu_backends());
}
TEST(CpuDistance, EmptyAndInvalidInput) {
  run_distance_edge_cases(cpu_backend(2));
}

// ---------------------------------------------------------------------------------
// 6. Threads: 1, 2, 3 and the default (one per hardware thread) agree bit for bit.

TEST(CpuThreads, IdenticalResults) {
  run_backends_agree({cpu_backend(1), cpu_backend(2), cpu_backend(3), cpu_backend(0)});
}
