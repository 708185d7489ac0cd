// The Matcher base's bookkeeping (kernels/matcher.cpp) seen from a backend: a backend that
// cannot take a pair (its device memory ran out) leaves the matcher as it was, so that the
// caller may go on with it: the stream or pattern is not added at all, and every pair the
// backend had already taken for it is handed back.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/matcher_state.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace {

namespace kernels = warpwatch::kernels;

// Takes `budget` stream-mode pairs, then throws CudaOutOfMemory as a device backend would.
class BudgetMatcher final : public kernels::Matcher {
 public:
  int budget = 0;
  std::set<const Pair*> live;  // the pairs this backend holds state for

  std::string_view name() const override { return "budget"; }

 protected:
  void on_stream_pair_added(Pair& pair) override {
    if (budget == 0) throw kernels::CudaOutOfMemory(2, "out of memory (test)");
    --budget;
    live.insert(&pair);
  }
  void on_stream_pair_removed(Pair& pair, std::vector<kernels::RawMatch>&) override {
    EXPECT_EQ(live.erase(&pair), 1u) << "a pair the backend never took was handed back";
  }
  void on_stream_pattern_removed(PatternState& pattern,
                                 std::vector<kernels::RawMatch>& out) override {
    for (const auto& pair : pattern.pairs) on_stream_pair_removed(*pair, out);
  }
  void run_batch(std::span<WindowBatch>, std::vector<kernels::RawMatch>&) override {}
  void flush_stream_pairs(std::vector<kernels::RawMatch>&) override {}
  void lower_to_live_starts(std::span<std::uint64_t>) override {}
};

kernels::PatternDef pattern(const char* id) {
  kernels::PatternDef p;
  p.id = id;
  p.values = {0.0f, 1.0f, 0.0f};
  p.params.threshold = 1.0;
  return p;
}

TEST(MatcherBase, AStreamTheBackendCannotPairIsNotAdded) {
  BudgetMatcher m;
  m.add_pattern(pattern("p1"));
  m.add_pattern(pattern("p2"));
  m.budget = 1;  // room for the stream's first pair, not its second
  EXPECT_THROW(m.add_stream(kernels::StreamDef{"s", 1, 1'000'000}), kernels::CudaOutOfMemory);
  EXPECT_FALSE(m.has_stream("s"));
  EXPECT_TRUE(m.live.empty()) << "the pair taken before the failure was handed back";
  m.budget = 2;
  m.add_stream(kernels::StreamDef{"s", 1, 1'000'000});
  EXPECT_EQ(m.live.size(), 2u);
  EXPECT_EQ(m.stream_count(), 1u);
}

TEST(MatcherBase, APatternTheBackendCannotPairIsNotAdded) {
  BudgetMatcher m;
  m.budget = 2;
  m.add_stream(kernels::StreamDef{"a", 1, 1'000'000});
  m.add_stream(kernels::StreamDef{"b", 1, 1'000'000});
  m.add_pattern(pattern("p1"));
  m.budget = 1;  // room for one of p2's two pairs
  EXPECT_THROW(m.add_pattern(pattern("p2")), kernels::CudaOutOfMemory);
  EXPECT_FALSE(m.has_pattern("p2"));
  EXPECT_EQ(m.live.size(), 2u) << "p1's pairs stay, p2's one pair was handed back";
  // The matcher goes on: its streams and p1 still match (a sample each, no error).
  const std::vector<float> v{0.5f};
  const std::vector<std::int64_t> t{10};
  const std::vector<kernels::StreamChunk> batch{{"a", v, t}, {"b", v, t}};
  EXPECT_NO_THROW(m.process(batch));
  EXPECT_EQ(m.counters().samples, 2u);
}

}  // namespace

namespace {

// Records what a backend sees of the base's per-batch bookkeeping.
class RecordingMatcher final : public kernels::Matcher {
 public:
  struct Chunk {
    std::uint64_t first = 0;
    std::uint32_t count = 0;
    std::size_t values = 0;
    friend bool operator==(const Chunk&, const Chunk&) = default;
  };
  struct Batch {
    std::map<std::string, Chunk> chunks;  // every stream's chunk fields
    std::vector<std::string> active;      // state().active
    std::vector<std::string> windows;     // the window batches' streams
  };
  std::vector<Batch> batches;
  std::vector<std::vector<std::string>> trims;  // state().trim_streams at each trim

  std::string_view name() const override { return "recording"; }
  const kernels::common::MatcherState& bookkeeping() const { return state(); }

 protected:
  void on_stream_pair_added(Pair&) override {}
  void on_stream_pair_removed(Pair&, std::vector<kernels::RawMatch>&) override {}
  void on_stream_pattern_removed(PatternState&, std::vector<kernels::RawMatch>&) override {}
  void run_batch(std::span<WindowBatch> windows, std::vector<kernels::RawMatch>&) override {
    Batch b;
    for (const auto& [id, s] : state().streams)
      b.chunks[id] = Chunk{s->chunk_first, s->chunk_count, s->chunk_values.size()};
    for (const auto* s : state().active) b.active.push_back(s->def->id);
    for (const auto& w : windows) b.windows.push_back(w.pair->stream->def->id);
    batches.push_back(std::move(b));
  }
  void flush_stream_pairs(std::vector<kernels::RawMatch>&) override {}
  void lower_to_live_starts(std::span<std::uint64_t>) override {
    std::vector<std::string> ids;
    for (const auto* s : state().trim_streams) ids.push_back(s->def->id);
    trims.push_back(std::move(ids));
  }
};

// `n` samples (value 0.5) at timestamps from, from + 1, ...
struct Samples {
  std::vector<float> values;
  std::vector<std::int64_t> times;
  Samples(std::size_t n, std::int64_t from) : values(n, 0.5f), times(n) {
    for (std::size_t i = 0; i < n; ++i) times[i] = from + static_cast<std::int64_t>(i);
  }
  kernels::StreamChunk chunk(std::string_view id) const { return {id, values, times}; }
};

kernels::PatternDef window_pattern(const char* id) {
  kernels::PatternDef p = pattern(id);
  p.params.mode = kernels::Mode::window;
  return p;
}

}  // namespace

// A backend reads every stream's chunk fields, but the base touches only the streams with
// samples: a stream with a chunk in one batch and none in the next has chunk_count 0 and
// chunk_first at its next index there; state().active lists the streams with samples in
// batch order, and window mode's work covers those streams only.
TEST(MatcherBase, ChunkFieldsAreResetAfterTheBatch) {
  RecordingMatcher m;
  for (const char* id : {"a", "b", "c"}) m.add_stream(kernels::StreamDef{id, 1, 1'000'000});
  m.add_pattern(pattern("p"));
  m.add_pattern(window_pattern("w"));
  const Samples a3(3, 100), b2(2, 100), b1(1, 200), none(0, 0), a1(1, 300);
  std::vector<kernels::StreamChunk> batch{b2.chunk("b"), a3.chunk("a")};
  m.process(batch);
  batch = {b1.chunk("b"), none.chunk("c")};  // a has none; c an empty one
  m.process(batch);
  m.process({});
  batch = {a1.chunk("a")};
  m.process(batch);
  using Chunk = RecordingMatcher::Chunk;
  ASSERT_EQ(m.batches.size(), 4u);
  const auto& b = m.batches;
  EXPECT_EQ(b[0].chunks.at("a"), (Chunk{0, 3, 3}));
  EXPECT_EQ(b[0].chunks.at("b"), (Chunk{0, 2, 2}));
  EXPECT_EQ(b[0].chunks.at("c"), (Chunk{0, 0, 0}));
  EXPECT_EQ(b[0].active, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(b[0].windows, (std::vector<std::string>{"b", "a"}));
  EXPECT_EQ(b[1].chunks.at("a"), (Chunk{3, 0, 0})) << "a had a chunk in the batch before";
  EXPECT_EQ(b[1].chunks.at("b"), (Chunk{2, 1, 1}));
  EXPECT_EQ(b[1].chunks.at("c"), (Chunk{0, 0, 0}));
  EXPECT_EQ(b[1].active, (std::vector<std::string>{"b"})) << "an empty chunk is not active";
  EXPECT_EQ(b[1].windows, (std::vector<std::string>{"b"}));
  EXPECT_EQ(b[2].chunks.at("a"), (Chunk{3, 0, 0}));
  EXPECT_EQ(b[2].chunks.at("b"), (Chunk{3, 0, 0}));
  EXPECT_TRUE(b[2].active.empty());
  EXPECT_TRUE(b[2].windows.empty());
  EXPECT_EQ(b[3].chunks.at("a"), (Chunk{3, 1, 1}));
  EXPECT_EQ(b[3].chunks.at("b"), (Chunk{3, 0, 0}));
  // Between batches: no stream has a chunk, none is active.
  EXPECT_TRUE(m.bookkeeping().active.empty());
  for (const auto& [id, s] : m.bookkeeping().streams) {
    EXPECT_EQ(s->chunk_count, 0u) << id;
    EXPECT_TRUE(s->chunk_values.empty()) << id;
    EXPECT_EQ(s->chunk_first, s->next_index()) << id;
  }
  // A stream named twice is refused, and the batch changes nothing; then it goes on.
  batch = {a1.chunk("b"), a1.chunk("b")};
  EXPECT_THROW(m.process(batch), std::invalid_argument);
  EXPECT_EQ(m.batches.size(), 4u);
  const Samples b1later(1, 400);
  batch = {b1later.chunk("b")};
  m.process(batch);
  EXPECT_EQ(m.batches.back().chunks.at("b"), (Chunk{3, 1, 1}));
  // A stream removed after its batch leaves nothing behind (it is not active any more).
  EXPECT_TRUE(m.remove_stream("a").empty());
  m.process({});
  EXPECT_TRUE(m.batches.back().active.empty());
}

// Trimming (every 65536 samples) looks at the streams that got samples since the last
// trim only, and at every stream at the end of input (flush).
TEST(MatcherBase, TrimLooksAtStreamsWithNewSamples) {
  RecordingMatcher m;
  for (const char* id : {"a", "b", "c"}) m.add_stream(kernels::StreamDef{id, 1, 1'000'000});
  m.add_pattern(pattern("p"));
  std::int64_t t = 0;
  const auto feed_a = [&](std::size_t batches) {
    for (std::size_t k = 0; k < batches; ++k) {
      const Samples s(10'000, t);
      t += 10'000;
      const std::vector<kernels::StreamChunk> batch{s.chunk("a")};
      m.process(batch);
    }
  };
  const Samples b5(5, 0);
  const std::vector<kernels::StreamChunk> first{b5.chunk("b")};
  m.process(first);
  feed_a(7);  // 70005 samples: one trim
  ASSERT_EQ(m.trims.size(), 1u);
  EXPECT_EQ(m.trims[0], (std::vector<std::string>{"b", "a"}));
  // The base kept what the backend asked for: here nothing live, so only what is new.
  EXPECT_EQ(m.bookkeeping().streams.at("a")->history.first_index(), 70'000u);
  EXPECT_EQ(m.bookkeeping().streams.at("b")->history.first_index(), 5u);
  feed_a(7);
  ASSERT_EQ(m.trims.size(), 2u);
  EXPECT_EQ(m.trims[1], (std::vector<std::string>{"a"}));
  EXPECT_TRUE(m.remove_stream("a").empty());  // removed while it waits for the next trim
  m.flush();
  ASSERT_EQ(m.trims.size(), 3u);
  std::vector<std::string> all = m.trims[2];  // every stream, in the map's order
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::string>{"b", "c"}));
}

namespace {

// Starts batches and finishes them later, as a device backend does; records the order of
// starts, finishes and trims, and reports one match per batch at finish (the stream's first
// chunk sample), so that collect() can be checked to return each batch's own.
class PipelinedMatcher final : public kernels::Matcher {
 public:
  std::vector<std::string> log;                            // "start N", "finish N", "trim"
  bool fail_next_start = false, fail_next_finish = false;  // throw CudaOutOfMemory once
  std::string_view name() const override { return "pipelined"; }

 protected:
  void on_stream_pair_added(Pair&) override {}
  void on_stream_pair_removed(Pair&, std::vector<kernels::RawMatch>&) override {}
  void on_stream_pattern_removed(PatternState&, std::vector<kernels::RawMatch>&) override {}
  void run_batch(std::span<WindowBatch>, std::vector<kernels::RawMatch>&) override {
    ADD_FAILURE() << "a pipelined backend is driven through start_batch/finish_batch";
  }
  void start_batch(std::span<WindowBatch>, std::vector<kernels::RawMatch>&) override {
    if (std::exchange(fail_next_start, false))
      throw kernels::CudaOutOfMemory(2, "start_batch: out of memory (test)");
    std::vector<const Pair*> pairs;
    for (const auto* s : state().active)
      for (const Pair* p : s->pairs) pairs.push_back(p);
    started_.push_back({pairs, state().active.empty() ? 0 : state().active[0]->chunk_first});
    log.push_back("start " + std::to_string(started_.size() - 1));
  }
  void finish_batch(std::vector<kernels::RawMatch>& out) override {
    const auto& [pairs, first] = started_.at(finished_);
    log.push_back("finish " + std::to_string(finished_++));
    if (std::exchange(fail_next_finish, false))
      throw kernels::CudaOutOfMemory(2, "finish_batch: out of memory (test)");
    for (const Pair* p : pairs) out.push_back(kernels::common::make_match(*p, 0.0, first, first));
  }
  void flush_stream_pairs(std::vector<kernels::RawMatch>&) override {}
  void lower_to_live_starts(std::span<std::uint64_t>) override {
    EXPECT_EQ(finished_, started_.size()) << "a trim while a started batch is not finished";
    log.push_back("trim");
  }

 private:
  std::vector<std::pair<std::vector<const Pair*>, std::uint64_t>> started_;
  std::size_t finished_ = 0;
};

}  // namespace

// submit()/collect(): each collect() returns the oldest outstanding batch's matches; at most
// two batches outstanding; changes and flush need none (std::logic_error otherwise, and
// nothing changes).
TEST(MatcherBase, SubmitAndCollectKeepBatchesApartAndInTurn) {
  PipelinedMatcher m;
  m.add_stream(kernels::StreamDef{"a", 1, 1'000'000});
  m.add_pattern(pattern("p"));
  EXPECT_THROW(m.collect(), std::logic_error);
  const Samples s0(3, 0), s1(4, 3), s2(5, 7);
  const std::vector<kernels::StreamChunk> b0{s0.chunk("a")}, b1{s1.chunk("a")}, b2{s2.chunk("a")};
  m.submit(b0);
  m.submit(b1);
  EXPECT_EQ(m.outstanding(), 2u);
  EXPECT_THROW(m.submit(b2), std::logic_error);
  EXPECT_THROW(m.process(b2), std::logic_error);
  EXPECT_THROW(m.add_stream(kernels::StreamDef{"b", 1, 1'000'000}), std::logic_error);
  EXPECT_THROW(m.remove_stream("a"), std::logic_error);
  EXPECT_THROW(m.add_pattern(pattern("q")), std::logic_error);
  EXPECT_THROW(m.remove_pattern("p"), std::logic_error);
  EXPECT_THROW(m.flush(), std::logic_error);
  EXPECT_FALSE(m.has_stream("b"));
  EXPECT_EQ(m.counters().samples, 7u);  // the refused submit added nothing
  const auto first = m.collect();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].start_index, 0u);  // batch 0's, not batch 1's
  m.submit(b2);
  const auto second = m.collect();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].start_index, 3u);
  EXPECT_EQ(second[0].start_ns, 3);  // timestamps from the history, as submitted
  const auto third = m.collect();
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].start_index, 7u);
  EXPECT_EQ(m.outstanding(), 0u);
  EXPECT_EQ(m.log, (std::vector<std::string>{"start 0", "start 1", "finish 0", "start 2",
                                             "finish 1", "finish 2"}));
  m.add_stream(kernels::StreamDef{"b", 1, 1'000'000});  // none outstanding: allowed again
}

// A trim needs the device state of every batch before it: with a batch outstanding, the
// trim that came due is made at the next submit(), after finishing that batch and before
// starting the new one (its matches still come back from its own collect()); with none
// outstanding, collect() makes it. Trims come every 65536 samples, and not before four
// batches of the last one's size.
TEST(MatcherBase, ATrimWaitsForStartedBatchesToFinish) {
  PipelinedMatcher m;
  m.add_stream(kernels::StreamDef{"a", 1, 1'000'000});
  m.add_pattern(pattern("p"));
  std::vector<Samples> batches;
  for (std::int64_t k = 0; k < 4; ++k) batches.emplace_back(20'000, k * 20'000);
  batches.emplace_back(10, 80'000);
  for (std::int64_t k = 0; k < 7; ++k) batches.emplace_back(20'000, 80'010 + k * 20'000);
  const auto submit = [&](std::size_t k) {
    const std::vector<kernels::StreamChunk> b{batches[k].chunk("a")};
    m.submit(b);
  };
  for (std::size_t k = 0; k < 3; ++k) {
    submit(k);
    EXPECT_EQ(m.collect().front().start_index, k * 20'000);
  }
  submit(3);  // 80,000 samples: a trim is due once batch 3 is done
  submit(4);  // so batch 3 is finished and trimmed before batch 4 starts
  EXPECT_EQ(m.collect().front().start_index, 60'000u);
  EXPECT_EQ(m.collect().front().start_index, 80'000u);
  const std::vector<std::string> first_trim{"start 0", "finish 0", "start 1", "finish 1",
                                            "start 2", "finish 2", "start 3", "finish 3",
                                            "trim",    "start 4",  "finish 4"};
  EXPECT_EQ(m.log, first_trim);
  // Without a later batch outstanding, collect() trims (4 x 20,000 samples after the last).
  for (std::size_t k = 5; k < 9; ++k) {
    submit(k);
    m.collect();
  }
  EXPECT_EQ(m.log.back(), "trim");
  EXPECT_EQ(m.counters().trims, 2u);
  EXPECT_EQ(m.log.size(), first_trim.size() + 4 * 2 + 1);
}

// A batch that fails to start is not outstanding (the next collect() returns the batch before
// it); one that fails to finish is consumed (the next collect() returns the batch after it).
TEST(MatcherBase, FailedStartsAndFinishesKeepBatchesInStep) {
  PipelinedMatcher m;
  m.add_stream(kernels::StreamDef{"a", 1, 1'000'000});
  m.add_pattern(pattern("p"));
  std::vector<Samples> samples;
  for (std::int64_t k = 0; k < 4; ++k) samples.emplace_back(5, k * 5);
  const auto batch = [&](std::size_t k) {
    return std::vector<kernels::StreamChunk>{samples[k].chunk("a")};
  };
  m.submit(batch(0));
  m.fail_next_start = true;
  EXPECT_THROW(m.submit(batch(1)), kernels::CudaOutOfMemory);
  EXPECT_EQ(m.outstanding(), 1u);
  m.submit(batch(2));
  EXPECT_EQ(m.collect().front().start_index, 0u);
  m.fail_next_finish = true;
  EXPECT_THROW(m.collect(), kernels::CudaOutOfMemory);  // batch 2, lost
  EXPECT_EQ(m.outstanding(), 0u);
  m.submit(batch(3));
  EXPECT_EQ(m.collect().front().start_index, 15u);
  EXPECT_EQ(m.log, (std::vector<std::string>{"start 0", "start 1", "finish 0", "finish 1",
                                             "start 2", "finish 2"}));
}
