// The Matcher base's bookkeeping (kernels/matcher.cpp) seen from a backend: a backend that
// cannot take a pair (its device memory ran out) leaves the matcher as it was, so that the
// caller may go on with it: the stream or pattern is not added at all, and every pair the
// backend had already taken for it is handed back.
#include <gtest/gtest.h>

#include <set>

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
