// The switching matcher (kernels/switching_matcher.cpp), auto's way of running each batch
// on the backend its shape suits: the stream-mode pairs move between backends, state and
// all, so the matches equal the reference's whatever the moves. Here between the cpu and
// reference backends and between cpu backends of different thread counts (the moves of
// cpu <-> cuda are in kernels/cuda/test_cuda_matcher.cpp); plus auto's policy, the counters,
// and a move the target backend cannot take.
#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/matcher_state.hpp"
#include "conformance/conformance.hpp"
#include "matching/switching_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
using warpwatch::testing::SwitchEvery;
using warpwatch::testing::switching_backend;

namespace {

void cpu_distances(std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                   const kernels::DistanceParams& params, std::span<double> out) {
  kernels::cpu::distance_matrix(a, b, params, out, kernels::cpu::Options{2});
}

MatcherFactory cpu(unsigned threads) {
  return [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); };
}
MatcherFactory reference() {
  return [] { return kernels::reference::make_matcher(); };
}

// Each list alone (window mode's distances differ in their last bits between the cpu and
// the reference; each list is compared with the reference within the suite's tolerance).
std::vector<Backends> switching_lists() {
  const std::uint64_t seed = warpwatch::testing::test_seed();
  return {
      {switching_backend("cpu<->reference every batch", cpu(2), reference(), SwitchEvery::batch,
                         seed, cpu_distances)},
      {switching_backend("cpu 1<->cpu 3 random batches", cpu(1), cpu(3),
                         SwitchEvery::random_batches, seed, cpu_distances)},
      {switching_backend("reference<->cpu 2 random batches", reference(), cpu(2),
                         SwitchEvery::random_batches, seed + 1, cpu_distances)},
  };
}

}  // namespace

TEST(SwitchingStream, SmallPatterns) {
  for (const Backends& b : switching_lists())
    run_stream_scenario(b, StreamScenario::small_patterns());
}

TEST(SwitchingStream, Pattern257) {
  for (const Backends& b : switching_lists()) run_stream_scenario(b, StreamScenario::pattern_257());
}

TEST(SwitchingStream, DenseMatchesLongStreamsAndEcg) {
  DenseStreamScenario sc;
  sc.length = 20'000;  // the reference steps every sample; the cpu suite runs the long ones
  for (const Backends& b : switching_lists()) run_stream_dense(b, sc);
}

TEST(SwitchingStream, ThresholdEdges) {
  for (const Backends& b : switching_lists()) run_stream_threshold_edges(b);
}

TEST(SwitchingManyPairs, SevenByFive) {
  for (const Backends& b : switching_lists()) run_many_pairs(b, 7, 5, 150, 260, 24);
}

TEST(SwitchingManyPairs, MixedDimsAndModes) {
  for (const Backends& b : switching_lists())
    run_mixed_dims_and_modes(b, {1, 2, 3, 4, 8, 17, 64, 1}, {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5},
                             260);
}

TEST(SwitchingHotChanges, AddRemoveBetweenBatches) {
  for (const Backends& b : switching_lists()) run_hot_changes(b);
}

// ---------------------------------------------------------------------------------
// Counters, pipelining across a move, and the policy.

namespace {

kernels::PatternDef ramp_pattern(std::string id, std::size_t m, double threshold) {
  kernels::PatternDef p;
  p.id = std::move(id);
  for (std::size_t i = 0; i < m; ++i) p.values.push_back(static_cast<float>(i % 7));
  p.params.threshold = threshold;
  return p;
}

// `batches` batches of `chunk` samples of a repeating ramp on stream "s" (the pattern
// matches every 7 samples or so), pipelined two deep; every match, in order.
std::vector<kernels::RawMatch> feed(kernels::Matcher& m, std::size_t batches, std::size_t chunk) {
  std::vector<kernels::RawMatch> all;
  std::vector<std::vector<float>> values(batches);
  std::vector<std::vector<std::int64_t>> times(batches);
  for (std::size_t b = 0; b < batches; ++b)
    for (std::size_t i = 0; i < chunk; ++i) {
      const std::size_t t = b * chunk + i;
      values[b].push_back(static_cast<float>(t % 7) + (t % 13 == 0 ? 0.5f : 0.0f));
      times[b].push_back(static_cast<std::int64_t>(t + 1) * 1000);
    }
  for (std::size_t b = 0; b < batches; ++b) {
    const kernels::StreamChunk c{"s", values[b], times[b]};
    if (m.outstanding() == kernels::Matcher::max_outstanding)
      for (auto& r : m.collect()) all.push_back(r);
    m.submit(std::span(&c, 1));
  }
  while (m.outstanding() > 0)
    for (auto& r : m.collect()) all.push_back(r);
  for (auto& r : m.flush()) all.push_back(r);
  return all;
}

std::vector<kernels::RawMatch> feed_fresh(std::unique_ptr<kernels::Matcher> m) {
  m->add_stream({"s", 1, 1000});
  m->add_pattern(ramp_pattern("p", 7, 1.0));
  m->add_pattern(ramp_pattern("q", 20, 3.0));
  return feed(*m, 30, 37);
}

}  // namespace

TEST(SwitchingMatcher, CountsMovesAndBatchesAndKeepsPipelinedMatches) {
  const auto want = feed_fresh(kernels::reference::make_matcher());
  ASSERT_GT(want.size(), 100u);  // dense: a match every 7 samples or so
  // 0 0 1 1 1 0 ...: batch k on (k / 2) % 2, so a move comes while a batch is outstanding.
  auto policy = [k = std::size_t{0}](const kernels::WorkShape&) mutable { return (k++ / 2) % 2; };
  auto m = kernels::make_switching_matcher(reference(), cpu(2), policy, 0);
  EXPECT_EQ(m->name(), "auto");
  m->add_stream({"s", 1, 1000});
  m->add_pattern(ramp_pattern("p", 7, 1.0));
  m->add_pattern(ramp_pattern("q", 20, 3.0));
  const auto got = feed(*m, 30, 37);
  EXPECT_EQ(got, want);
  const kernels::MatcherCounters c = m->counters();
  EXPECT_EQ(c.batches, 30u);
  EXPECT_EQ(c.second_backend_batches, 14u);  // batches 2, 3, 6, 7, ..., 26, 27
  EXPECT_EQ(c.backend_switches, 14u);        // 0 0 | 1 1 | 0 0 | ... : 15 runs of two
  EXPECT_EQ(c.backend_switch_failures, 0u);
}

TEST(SwitchingMatcher, NamesTheBackendThatRanTheLastBatch) {
  // reference, reference, cpu, cpu, ...: the daemon sizes its rounds by running_backend().
  auto policy = [k = std::size_t{0}](const kernels::WorkShape&) mutable { return (k++ / 2) % 2; };
  auto m = kernels::make_switching_matcher(reference(), cpu(2), policy, 0);
  m->add_stream({"s", 1, 1000});
  m->add_pattern(ramp_pattern("p", 7, 1.0));
  EXPECT_EQ(m->running_backend(), "reference");  // before any batch: the initial one
  const std::vector<float> v(16, 1.0f);
  std::vector<std::int64_t> t(16);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = static_cast<std::int64_t>(i + 1) * 1000;
  std::vector<std::string> seen;
  for (std::uint64_t b = 0; b < 4; ++b) {
    for (std::size_t i = 0; i < t.size(); ++i) t[i] += 16000;
    const kernels::StreamChunk c{"s", v, t};
    m->process(std::span(&c, 1));
    seen.emplace_back(m->running_backend());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"reference", "reference", "cpu", "cpu"}));
  EXPECT_EQ(kernels::cpu::make_matcher(kernels::cpu::Options{2})->running_backend(),
            "cpu");  // not auto: name()
}

namespace {
// Takes patterns but no pair (or not even patterns), as a device backend whose memory is
// full; a pattern it never took must not be handed back.
class FullBackend final : public kernels::Matcher {
 public:
  explicit FullBackend(bool takes_patterns) : takes_patterns_(takes_patterns) {}
  std::string_view name() const override { return "full"; }

 protected:
  void on_stream_pattern_added(PatternState&) override {
    if (!takes_patterns_) throw std::runtime_error("no room for a pattern (test)");
  }
  void on_stream_pattern_removed(PatternState&, std::vector<kernels::RawMatch>&) override {
    EXPECT_TRUE(takes_patterns_) << "a pattern it never took was handed back";
  }
  void on_stream_pair_added(Pair&) override { throw std::runtime_error("no room (test)"); }
  void on_stream_pair_removed(Pair&, std::vector<kernels::RawMatch>&) override {
    ADD_FAILURE() << "a pair it never took was handed back";
  }
  void run_batch(std::span<WindowBatch>, std::vector<kernels::RawMatch>&) override {
    ADD_FAILURE() << "a batch ran on the backend that holds no pairs";
  }
  void flush_stream_pairs(std::vector<kernels::RawMatch>&) override {}
  void lower_to_live_starts(std::span<std::uint64_t>) override {}

 private:
  bool takes_patterns_;
};
}  // namespace

TEST(SwitchingMatcher, AMoveTheTargetCannotTakeLeavesEveryPairWhereItWas) {
  const auto want = feed_fresh(kernels::reference::make_matcher());
  for (const bool takes_patterns : {true, false}) {
    auto policy = [k = std::size_t{0}](const kernels::WorkShape&) mutable {
      return ++k > 3 ? 1 : 0;
    };
    auto m = kernels::make_switching_matcher(
        cpu(2), [=] { return std::make_unique<FullBackend>(takes_patterns); }, policy, 0);
    m->add_stream({"s", 1, 1000});
    m->add_pattern(ramp_pattern("p", 7, 1.0));
    m->add_pattern(ramp_pattern("q", 20, 3.0));
    EXPECT_EQ(feed(*m, 30, 37), want) << takes_patterns;
    const kernels::MatcherCounters c = m->counters();
    EXPECT_EQ(c.backend_switch_failures, 1u);  // tried once, then not again
    EXPECT_EQ(c.backend_switches, 0u);
    EXPECT_EQ(c.second_backend_batches, 0u);
  }
}

TEST(SwitchingMatcher, RefusesBackendsInUseAndMakesTheOtherOnlyWhenABatchMovesThere) {
  const auto used = [] {
    auto m = kernels::cpu::make_matcher({1});
    m->add_stream({"s", 1, 1000});
    return m;
  };
  const auto stay = [](const kernels::WorkShape&) { return std::size_t{0}; };
  EXPECT_THROW(kernels::make_switching_matcher(used, cpu(1), stay, 0), std::invalid_argument);
  // The second one is never made: nothing moves there.
  auto m = kernels::make_switching_matcher(cpu(1), used, stay, 0);
  EXPECT_EQ(feed_fresh(std::move(m)), feed_fresh(kernels::reference::make_matcher()));
  // Made when a batch moves there, and found in use: a failed move, the pairs stay.
  auto moving = kernels::make_switching_matcher(
      cpu(1), used, [](const kernels::WorkShape&) { return std::size_t{1}; }, 0);
  moving->add_stream({"s", 1, 1000});
  moving->add_pattern(ramp_pattern("p", 7, 1.0));
  moving->add_pattern(ramp_pattern("q", 20, 3.0));
  kernels::Matcher& kept = *moving;
  EXPECT_EQ(feed(kept, 30, 37), feed_fresh(kernels::reference::make_matcher()));
  EXPECT_EQ(moving->counters().backend_switch_failures, 1u);
}

TEST(AutoBackendChoice, MovesOnlyAfterEightBatchesInARowPreferTheOtherBackend) {
  // 2 cpu threads: the device pays off from 4 pairs of m 256.
  auto choose = kernels::auto_backend_choice(2, 0);
  const kernels::WorkShape many{.pairs = 64, .longest_pattern = 256, .chunk = 512};
  const kernels::WorkShape few{.pairs = 1, .longest_pattern = 256, .chunk = 512};
  for (unsigned k = 1; k < kernels::kAutoSwitchAfter; ++k) EXPECT_EQ(choose(many), 0u) << k;
  EXPECT_EQ(choose(few), 0u);  // the streak is broken
  for (unsigned k = 1; k < kernels::kAutoSwitchAfter; ++k) EXPECT_EQ(choose(many), 0u) << k;
  EXPECT_EQ(choose(many), 1u);
  EXPECT_EQ(choose(few), 1u);
  EXPECT_EQ(choose(many), 1u);
}
