// The sharded matcher (kernels/sharded_matcher.cpp), what the cuda backend is over several
// devices, tested without a device: N cpu (and reference) shards against one unsharded
// backend through the conformance suite (random streams with planted copies, dense matches,
// hot changes mid-run, window mode, pipelined batches; the seed is printed): stream mode
// bit for bit, window mode the same bits as the unsharded backend. Plus the placement by
// cells, the counters, and a sharded backend inside a switching matcher (auto over
// several devices).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "matching/switching_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/sharded_matcher.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
using warpwatch::testing::SwitchEvery;
using warpwatch::testing::switching_backend;

namespace {

// "s<i>" (appended: GCC 12 warns falsely, -Wrestrict, on "s" + std::string).
std::string stream_id(int i) {
  std::string id = "s";
  id += std::to_string(i);
  return id;
}

void cpu_distances(std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                   const kernels::DistanceParams& params, std::span<double> out) {
  kernels::cpu::distance_matrix(a, b, params, out, kernels::cpu::Options{2});
}

void reference_distances(std::span<const kernels::SeriesView> a,
                         std::span<const kernels::SeriesView> b,
                         const kernels::DistanceParams& params, std::span<double> out) {
  kernels::distance_matrix(kernels::Backend::reference, a, b, params, out);
}

MatcherFactory cpu(unsigned threads) {
  return [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); };
}
MatcherFactory reference() {
  return [] { return kernels::reference::make_matcher(); };
}

MatcherFactory sharded(const MatcherFactory& shard, std::size_t n) {
  return [shard, n] {
    return kernels::make_sharded_matcher(std::vector<kernels::BackendFactory>(n, shard));
  };
}

// The unsharded cpu backend first: every sharded one is compared with it bit for bit (window
// mode too), and all with the reference.
Backends cpu_shards() {
  return {{"cpu 2 (unsharded)", cpu(2), cpu_distances},
          {"3 cpu shards of 1 thread", sharded(cpu(1), 3), cpu_distances},
          {"2 cpu shards of 2 threads", sharded(cpu(2), 2), cpu_distances},
          {"1 cpu shard", sharded(cpu(2), 1), cpu_distances}};
}

Backends reference_shards() {
  return {{"reference (unsharded)", reference(), reference_distances},
          {"2 reference shards", sharded(reference(), 2), reference_distances},
          {"5 reference shards", sharded(reference(), 5), reference_distances}};
}

// Auto over several devices: the cpu and a sharded backend, the pairs moving between them.
Backends switching_to_shards() {
  const std::uint64_t seed = warpwatch::testing::test_seed();
  return {{"cpu 2 (unsharded)", cpu(2), cpu_distances},
          switching_backend("cpu 1<->3 cpu shards, random batches", cpu(1), sharded(cpu(1), 3),
                            SwitchEvery::random_batches, seed, cpu_distances),
          switching_backend("2 cpu shards<->cpu 2, every batch", sharded(cpu(2), 2), cpu(2),
                            SwitchEvery::batch, seed, cpu_distances)};
}

}  // namespace

// A restart through per-stream snapshots (conformance scenario 8) with the streams spread
// over shards: export asks each shard for its pairs, import places the stream anew.
TEST(ShardedStream, SnapshotRestoreEqualsUninterrupted) {
  run_snapshot_restore({{"3 cpu shards of 1 thread", sharded(cpu(1), 3), cpu_distances},
                        {"2 reference shards", sharded(reference(), 2), reference_distances}});
}

TEST(ShardedStream, SmallPatterns) {
  run_stream_scenario(cpu_shards(), StreamScenario::small_patterns());
}

TEST(ShardedStream, Pattern257) {
  run_stream_scenario(cpu_shards(), StreamScenario::pattern_257());
}

TEST(ShardedStream, DenseMatchesLongStreamsAndEcg) {
  run_stream_dense(cpu_shards(), DenseStreamScenario{});
}

TEST(ShardedStream, ThresholdEdges) {
  run_stream_threshold_edges(cpu_shards());
}

TEST(ShardedManyPairs, SevenByFive) {
  run_many_pairs(cpu_shards(), 7, 5, 150, 260, 24);
}

TEST(ShardedManyPairs, MixedDimsAndModes) {
  run_mixed_dims_and_modes(cpu_shards(), {1, 2, 3, 4, 8, 17, 64, 1},
                           {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5}, 260);
}

TEST(ShardedHotChanges, AddRemoveBetweenBatches) {
  run_hot_changes(cpu_shards());
}

TEST(ShardedWindow, Dtw) {
  run_window_scenario(cpu_shards(), Metric::dtw);
}

TEST(ShardedWindow, Ed) {
  run_window_scenario(cpu_shards(), Metric::ed);
}

TEST(ShardedWindow, Twed) {
  run_window_scenario(cpu_shards(), Metric::twed);
}

TEST(ShardedAgree, LargerWork) {
  run_backends_agree(cpu_shards());
}

TEST(ShardedReference, ManyPairsAndHotChanges) {
  run_many_pairs(reference_shards(), 7, 5, 150, 260, 24);
  run_hot_changes(reference_shards());
}

TEST(ShardedSwitching, StreamModeMovesBetweenTheCpuAndShards) {
  run_stream_scenario(switching_to_shards(), StreamScenario::small_patterns());
  run_hot_changes(switching_to_shards());
}

// ---------------------------------------------------------------------------------
// Placement, counters, refusals.

namespace {

kernels::PatternDef ramp_pattern(std::string id, std::size_t m, double threshold,
                                 std::size_t dims = 1) {
  kernels::PatternDef p;
  p.id = std::move(id);
  p.dims = dims;
  for (std::size_t i = 0; i < m * dims; ++i) p.values.push_back(static_cast<float>(i % 7));
  p.params.threshold = threshold;
  return p;
}

kernels::PatternDef window_pattern(std::string id, std::size_t m, std::size_t w, std::size_t hop) {
  kernels::PatternDef p = ramp_pattern(std::move(id), m, 1.0);
  p.params.mode = kernels::Mode::window;
  p.params.window = w;
  p.params.hop = hop;
  return p;
}

// The cells a sample of each shard's streams cost (the placement's measure).
std::vector<std::uint64_t> shard_cells(const kernels::Matcher& m,
                                       const std::map<std::string, std::uint64_t>& cost,
                                       std::size_t shards) {
  std::vector<std::uint64_t> cells(shards, 0);
  for (const auto& [id, c] : cost) cells.at(kernels::shard_of_stream(m, id)) += c;
  return cells;
}

}  // namespace

TEST(ShardedPlacement, BalancesCellsAcrossShardsAndFreesThemWithTheStream) {
  const std::uint64_t seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  auto m = sharded(cpu(1), 3)();
  // d 1: stream mode m 64 and 100, window mode m 20 (w 30, hop 2): 164 + 300 cells a sample;
  // d 2: one pattern of m 40. Streams of either dims in a random order.
  m->add_pattern(ramp_pattern("a", 64, 1.0));
  m->add_pattern(ramp_pattern("b", 100, 1.0));
  m->add_pattern(window_pattern("w", 20, 30, 2));
  m->add_pattern(ramp_pattern("two", 40, 1.0, 2));
  std::map<std::string, std::uint64_t> cost;
  for (int i = 0; i < 60; ++i) {
    const bool wide = std::uniform_int_distribution<int>(0, 3)(rng) == 0;
    const std::string id = stream_id(i);
    m->add_stream({id, wide ? 2u : 1u, 1000});
    cost[id] = wide ? 40 : 164 + 300;
  }
  std::vector<std::uint64_t> cells = shard_cells(*m, cost, 3);
  const auto spread = [&] {
    return *std::max_element(cells.begin(), cells.end()) -
           *std::min_element(cells.begin(), cells.end());
  };
  // Each stream went to the least loaded shard: they differ by at most the dearest stream.
  EXPECT_LE(spread(), 464u) << cells[0] << " " << cells[1] << " " << cells[2];
  // Remove the streams of shard 0: the next streams fill it first.
  std::size_t removed = 0;
  for (auto it = cost.begin(); it != cost.end();) {
    if (kernels::shard_of_stream(*m, it->first) == 0) {
      m->remove_stream(it->first);
      it = cost.erase(it);
      ++removed;
    } else {
      ++it;
    }
  }
  ASSERT_GT(removed, 0u);
  m->add_stream({"new", 1, 1000});
  EXPECT_EQ(kernels::shard_of_stream(*m, "new"), 0u);
  EXPECT_THROW(kernels::shard_of_stream(*m, "gone"), std::invalid_argument);
  EXPECT_THROW(kernels::shard_of_stream(*cpu(1)(), "s0"), std::invalid_argument);
}

TEST(ShardedPlacement, StreamsBeforePatternsGoRoundTheShards) {
  auto m = sharded(reference(), 4)();
  for (int i = 0; i < 10; ++i) m->add_stream({stream_id(i), 1, 1000});
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(kernels::shard_of_stream(*m, stream_id(i)), static_cast<std::size_t>(i % 4));
}

TEST(ShardedMatcher, CountsOnceSumsBackendCountersAndListsEachShard) {
  const auto build = [](std::unique_ptr<kernels::Matcher> m) {
    for (int i = 0; i < 5; ++i) m->add_stream({stream_id(i), 1, 1000});
    m->add_pattern(ramp_pattern("p", 7, 1.0));
    m->add_pattern(window_pattern("w", 9, 9, 1));
    return m;
  };
  auto one = build(cpu(2)());
  auto three = build(sharded(cpu(1), 3)());
  EXPECT_EQ(three->name(), "cpu");
  std::vector<std::string> ids;
  for (int s = 0; s < 5; ++s) ids.push_back(stream_id(s));
  std::vector<kernels::RawMatch> a, b;
  for (std::uint64_t batch = 0; batch < 6; ++batch) {
    std::vector<std::vector<float>> values(5);
    std::vector<std::vector<std::int64_t>> times(5);
    std::vector<kernels::StreamChunk> chunks;
    for (std::size_t s = 0; s < 5; ++s) {
      for (std::uint64_t i = 0; i < 50; ++i) {
        const std::uint64_t t = batch * 50 + i;
        values[s].push_back(static_cast<float>((t + s) % 7) + (t % 11 == 0 ? 0.5f : 0.0f));
        times[s].push_back(static_cast<std::int64_t>(t + 1) * 1000);
      }
      chunks.push_back({ids[s], values[s], times[s]});
    }
    for (auto& r : one->process(chunks)) a.push_back(r);
    for (auto& r : three->process(chunks)) b.push_back(r);
  }
  for (auto& r : one->flush()) a.push_back(r);
  for (auto& r : three->flush()) b.push_back(r);
  ASSERT_GT(a.size(), 50u);
  EXPECT_EQ(b, a);
  const kernels::MatcherCounters x = one->counters(), y = three->counters();
  EXPECT_EQ(y.samples, x.samples);
  EXPECT_EQ(y.cells, x.cells);
  EXPECT_EQ(y.batches, x.batches);
  EXPECT_EQ(y.windows_evaluated, x.windows_evaluated);
  EXPECT_EQ(y.device_bytes_per_device, std::vector<std::uint64_t>(3, 0));  // cpu: no device
  EXPECT_TRUE(x.device_bytes_per_device.empty());
}

TEST(ShardedMatcher, RefusesNoShardsAndShardsInUse) {
  EXPECT_THROW(kernels::make_sharded_matcher({}), std::invalid_argument);
  const auto used = [] {
    auto m = kernels::cpu::make_matcher({1});
    m->add_stream({"s", 1, 1000});
    return m;
  };
  EXPECT_THROW(kernels::make_sharded_matcher({cpu(1), used}), std::invalid_argument);
}
