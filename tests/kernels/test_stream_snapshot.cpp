// Matcher::export_stream / import_stream (kernels/include/warpwatch/kernels/stream_snapshot.hpp):
// a restart through snapshots equals an uninterrupted run (conformance scenario 8) on the
// reference, the cpu backend and a switching matcher (the cuda backend's run is in
// kernels/cuda/test_cuda_matcher.cpp); and what import_stream refuses or starts fresh.
#include <gtest/gtest.h>

#include <limits>
#include <memory>
#include <stdexcept>

#include "conformance/conformance.hpp"
#include "conformance/inputs.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"
#include "warpwatch/kernels/switching_matcher.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
using warpwatch::testing::StreamData;

namespace {

Backend reference_backend() {
  return Backend{"reference", [] { return kernels::reference::make_matcher(); }, nullptr};
}

Backend cpu_backend(unsigned threads) {
  return Backend{cat("cpu threads=", threads),
                 [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); },
                 nullptr};
}

// A matcher with stream "s" (d 1) fed 60 samples, a stream-mode and a window-mode pattern
// planted so that both have state.
struct Fed {
  std::unique_ptr<Matcher> matcher = kernels::cpu::make_matcher(kernels::cpu::Options{1});
  PatternDef spring, window;
  StreamData data;
};

Fed fed_matcher() {
  Fed f;
  std::mt19937_64 rng(7);
  f.spring = stream_pattern("spring", 1, random_walk(rng, 8, 1), Metric::dtw, Cost::sq, 1e9);
  f.window = window_pattern("window", 1, random_walk(rng, 6, 1), Metric::dtw, 0, 2);
  f.window.params.threshold = 1e9;
  f.matcher->add_pattern(f.spring);
  f.matcher->add_pattern(f.window);
  f.data = walk_stream(rng, "s", 1, 60, {}, 0.0f);
  f.matcher->add_stream(f.data.def());
  const StreamChunk chunk = f.data.chunk(0, 60);
  f.matcher->process(std::span<const StreamChunk>(&chunk, 1));
  return f;
}

}  // namespace

TEST(StreamSnapshot, RestoreEqualsUninterruptedReference) {
  run_snapshot_restore({reference_backend()});
}

TEST(StreamSnapshot, RestoreEqualsUninterruptedCpu) {
  run_snapshot_restore({cpu_backend(1), cpu_backend(3)});
}

// The backend a batch runs on follows its longest chunk's parity: the same batches run on the
// same backends in both runs (a policy with state of its own would start over at the
// restart), and the pairs move between them most batches.
TEST(StreamSnapshot, RestoreEqualsUninterruptedSwitching) {
  const MatcherFactory cpu = [] { return kernels::cpu::make_matcher(kernels::cpu::Options{2}); };
  const MatcherFactory ref = [] { return kernels::reference::make_matcher(); };
  const Backend switching{"cpu<->reference by chunk parity",
                          [=] {
                            return kernels::make_switching_matcher(
                                cpu, ref,
                                [](const kernels::WorkShape& batch) { return batch.chunk % 2; }, 0);
                          },
                          nullptr};
  run_snapshot_restore({switching});
}

TEST(StreamSnapshot, ExportHoldsHistoryAndEveryPair) {
  Fed f = fed_matcher();
  const kernels::StreamSnapshot s = f.matcher->export_stream("s");
  EXPECT_EQ(s.def, f.data.def());
  EXPECT_EQ(s.next_index, 60u);
  EXPECT_EQ(s.last_ns, f.data.ts.back());
  EXPECT_EQ(s.values.size(), s.times_ns.size());
  EXPECT_EQ(s.first_index + s.times_ns.size(), 60u);
  ASSERT_EQ(s.pairs.size(), 2u);
  EXPECT_EQ(s.pairs[0].pattern_id, "spring");
  EXPECT_EQ(s.pairs[0].fingerprint, kernels::pattern_fingerprint(f.spring));
  const auto* lane = std::get_if<kernels::common::SpringLaneState>(&s.pairs[0].state);
  ASSERT_NE(lane, nullptr);
  EXPECT_EQ(lane->d.size(), 8u);
  EXPECT_LE(lane->d_min, 1e9f);  // a candidate pending under the huge threshold
  const auto* track = std::get_if<kernels::WindowTrackState>(&s.pairs[1].state);
  ASSERT_NE(track, nullptr);
  EXPECT_EQ(track->first_index, 0u);
  EXPECT_TRUE(track->pending.has_value());
  EXPECT_THROW(f.matcher->export_stream("nope"), std::invalid_argument);
}

TEST(StreamSnapshot, FingerprintFollowsWhatMatchingReads) {
  Fed f = fed_matcher();
  const std::uint64_t base = kernels::pattern_fingerprint(f.spring);
  PatternDef p = f.spring;
  p.id = "other";
  p.library = "lib";
  EXPECT_EQ(kernels::pattern_fingerprint(p), base);  // not the id or the library
  p.params.threshold += 1;
  EXPECT_NE(kernels::pattern_fingerprint(p), base);
  p = f.spring;
  p.values[3] = std::nextafter(p.values[3], 1e9f);
  EXPECT_NE(kernels::pattern_fingerprint(p), base);
  p = f.spring;
  p.params.distance.band = 2.0;
  EXPECT_NE(kernels::pattern_fingerprint(p), base);
  p = f.spring;
  p.params.distance.cost = Cost::abs;
  EXPECT_NE(kernels::pattern_fingerprint(p), base);
}

TEST(StreamSnapshot, RefusesASnapshotThatDoesNotHoldTogetherAndChangesNothing) {
  Fed f = fed_matcher();
  const kernels::StreamSnapshot good = f.matcher->export_stream("s");
  const auto refused = [&](auto&& damage, const char* what) {
    kernels::StreamSnapshot bad = good;
    damage(bad);
    EXPECT_THROW(f.matcher->import_stream(bad), std::invalid_argument) << what;
    EXPECT_EQ(f.matcher->export_stream("s"), good) << what << ": the stream changed";
  };
  refused([](auto& s) { s.def.id.clear(); }, "empty id");
  refused([](auto& s) { s.def.dims = 65; }, "dims");
  refused([](auto& s) { s.def.nominal_period_ns = 0; }, "period");
  refused([](auto& s) { ++s.next_index; }, "next index past the history");
  refused([](auto& s) { s.first_index = s.next_index + 1; }, "first after next");
  refused([](auto& s) { s.values.pop_back(); }, "values short");
  refused([](auto& s) { std::swap(s.times_ns[0], s.times_ns[1]); }, "times out of order");
  refused([](auto& s) { s.last_ns += 1; }, "last timestamp");
  refused([](auto& s) { s.values[0] = std::numeric_limits<float>::quiet_NaN(); }, "NaN value");
  refused([](auto& s) { s.pairs.push_back(s.pairs[0]); }, "a pattern twice");
}

TEST(StreamSnapshot, StateThatDoesNotFitStartsFresh) {
  Fed f = fed_matcher();
  const kernels::StreamSnapshot good = f.matcher->export_stream("s");
  kernels::StreamSnapshot bad = good;
  auto& lane = std::get<kernels::common::SpringLaneState>(bad.pairs[0].state);
  lane.t_s = static_cast<std::int32_t>(bad.first_index) - 5;  // before the kept samples
  lane.d_min = 0.0f;
  auto& track = std::get<kernels::WindowTrackState>(bad.pairs[1].state);
  track.first_index = bad.next_index + 1;
  bad.pairs.push_back(good.pairs[0]);
  bad.pairs.back().pattern_id = "gone";
  const kernels::StreamRestore r = f.matcher->import_stream(bad);
  EXPECT_TRUE(r.restored.empty());
  ASSERT_EQ(r.fresh.size(), 2u);
  EXPECT_EQ(r.fresh[0].reason, "saved state does not fit the pattern");
  EXPECT_EQ(r.fresh[1].reason, "saved state does not fit the pattern");
  EXPECT_EQ(r.dropped, std::vector<std::string>{"gone"});
  // Fresh: nothing pending, the window schedule from the next index.
  const kernels::StreamSnapshot now = f.matcher->export_stream("s");
  EXPECT_EQ(std::get<kernels::common::SpringLaneState>(now.pairs[0].state).d_min,
            std::numeric_limits<float>::infinity());
  EXPECT_EQ(std::get<kernels::WindowTrackState>(now.pairs[1].state),
            (kernels::WindowTrackState{.first_index = 60, .pending = std::nullopt}));
  // The good snapshot over it: restored, nothing reported of the replaced state.
  const kernels::StreamRestore again = f.matcher->import_stream(good);
  EXPECT_EQ(again.restored, (std::vector<std::string>{"spring", "window"}));
  EXPECT_EQ(f.matcher->export_stream("s"), good);
}
