// auto with a device: the cpu and cuda backends behind one switching matcher
// (kernels/switching_matcher.cpp). Policies that move every stream-mode pair between them
// on every batch, or on random batches (seed printed), against the reference: the cuda
// backend's export and import of its tiles (wavefront, row tiles, several dims, sweep) and
// the cpu's, with dense matches, pending candidates and two batches outstanding across moves.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "gpu_test_support.hpp"
#include "matching/switching_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/cuda.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
using warpwatch::testing::SwitchEvery;
using warpwatch::testing::switching_backend;

namespace {

void cuda_distances(std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                    const kernels::DistanceParams& params, std::span<double> out) {
  kernels::cuda::distance_matrix(a, b, params, out);
}

// cpu first, cuda second; each list alone (window mode's last bits differ between them).
std::vector<Backends> switching_lists(SwitchEvery every) {
  const std::uint64_t seed = warpwatch::testing::test_seed();
  const MatcherFactory cpu = [] { return kernels::cpu::make_matcher({2}); };
  const MatcherFactory cuda = [] { return kernels::cuda::make_matcher(); };
  return {{switching_backend("cpu<->cuda", cpu, cuda, every, seed, cuda_distances)},
          {switching_backend("cuda<->cpu", cuda, cpu, every, seed + 1, cuda_distances)}};
}

}  // namespace

TEST(CudaSwitching, SmallPatternsEveryBatch) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  for (const Backends& b : switching_lists(SwitchEvery::batch))
    run_stream_scenario(b, StreamScenario::small_patterns());
}

// Every wavefront shape and several dims (the tiles' two sides, lanes moved in and out).
TEST(CudaSwitching, WavefrontShapesRandomBatches) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {16, 100, 256, 300, 512};
  sc.dims = {1, 3};
  sc.streams_per_dims = 2;
  sc.min_length = 1500;
  sc.four_variants = false;
  for (const Backends& b : switching_lists(SwitchEvery::random_batches)) run_stream_scenario(b, sc);
}

TEST(CudaSwitching, DenseMatchesRandomBatches) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.length = 30'000;
  sc.chunkings = {Chunking::large_random, Chunking::pipelined};
  sc.large_chunk = 2000;
  for (const Backends& b : switching_lists(SwitchEvery::random_batches)) run_stream_dense(b, sc);
}

TEST(CudaSwitching, DenseMatchesRowTilesRandomBatches) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {1};
  sc.m = 1100;
  sc.length = 40'000;
  sc.chunkings = {Chunking::large_random, Chunking::pipelined};
  sc.large_chunk = 3000;  // candidates pending across batches, and across moves
  for (const Backends& b : switching_lists(SwitchEvery::random_batches)) run_stream_dense(b, sc);
}

TEST(CudaSwitching, HotChangesEveryBatch) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  for (const Backends& b : switching_lists(SwitchEvery::batch)) run_hot_changes(b);
}

TEST(CudaSwitching, ManyPairsRandomBatches) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  for (const Backends& b : switching_lists(SwitchEvery::random_batches)) {
    run_many_pairs(b, 100, 100, 30, 60, 8);
    run_mixed_dims_and_modes(b, {1, 2, 3, 4, 8, 17, 64, 1}, {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5},
                             260);
  }
}

// What auto is with a device: make_matcher(auto) gives the switching matcher, starting where
// the rule puts the expected shape.
TEST(CudaSwitching, AutoIsTheSwitchingMatcherWithADevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  auto m = kernels::make_matcher(kernels::Backend::automatic,
                                 {.cpu_threads = 2, .shape = {.pairs = 1, .longest_pattern = 64}});
  EXPECT_EQ(m->name(), "auto");
  m->add_stream({"s", 1, 1000});
  kernels::PatternDef p;
  p.id = "p";
  p.values.assign(64, 0.5f);
  p.params.threshold = 1.0;
  m->add_pattern(p);
  std::vector<float> values(100, 0.5f);
  std::vector<std::int64_t> times(100);
  for (std::size_t i = 0; i < times.size(); ++i) times[i] = static_cast<std::int64_t>(i + 1);
  const kernels::StreamChunk c{"s", values, times};
  m->process(std::span(&c, 1));
  EXPECT_EQ(m->counters().second_backend_batches, 0u);  // one pair: the cpu
  EXPECT_EQ(m->counters().backend_switches, 0u);
}

// A measurement, not a check (run by hand: --gtest_also_run_disabled_tests): what a move of
// 16,384 pairs of m 256 costs (512 streams x 32 patterns), cuda -> cpu and back, against a
// batch of 64 samples a stream on either backend.
TEST(CudaSwitching, DISABLED_MeasureMoves) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::size_t batch = 0;
  // batches 0-2 on cuda, 3-5 on the cpu, 6-8 on cuda: the moves come in batches 3 and 6.
  auto policy = [&batch](const kernels::WorkShape&) { return batch / 3 % 2 == 0 ? 1 : 0; };
  auto m = kernels::make_switching_matcher([] { return kernels::cpu::make_matcher(); },
                                           [] { return kernels::cuda::make_matcher(); }, policy, 1);
  constexpr std::size_t streams = 512, patterns = 32, m_rows = 256, chunk = 64;
  for (std::size_t s = 0; s < streams; ++s) m->add_stream({cat("s", s), 1, 1000});
  std::mt19937_64 rng(1);
  std::normal_distribution<float> noise;
  for (std::size_t p = 0; p < patterns; ++p) {
    kernels::PatternDef def;
    def.id = cat("p", p);
    for (std::size_t i = 0; i < m_rows; ++i) def.values.push_back(noise(rng));
    def.params.threshold = 1.0;
    m->add_pattern(def);
  }
  std::vector<std::string> ids(streams);
  std::vector<float> values(streams * chunk);
  std::vector<std::int64_t> times(chunk);
  for (; batch < 9; ++batch) {
    for (auto& v : values) v = noise(rng);
    for (std::size_t i = 0; i < chunk; ++i)
      times[i] = static_cast<std::int64_t>((batch * chunk + i + 1) * 1000);
    std::vector<kernels::StreamChunk> chunks;
    for (std::size_t s = 0; s < streams; ++s) {
      ids[s] = cat("s", s);
      chunks.push_back({ids[s], std::span(values).subspan(s * chunk, chunk), times});
    }
    const auto began = std::chrono::steady_clock::now();
    m->process(chunks);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    std::cout << "[ move     ] batch " << batch << " on " << (batch / 3 % 2 == 0 ? "cuda" : "cpu")
              << (batch == 3 || batch == 6 ? " (after a move)" : "") << ": " << ms << " ms\n";
  }
  EXPECT_EQ(m->counters().backend_switches, 2u);
}
