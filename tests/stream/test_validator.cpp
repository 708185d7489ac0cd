// Per-stream validation (stream/validator.hpp): bad samples are dropped and counted,
// every valid sample around them is kept (docs/spec.md §1 and §6).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/stream/validator.hpp"

namespace {

using warpwatch::stream::Accepted;
using warpwatch::stream::RejectCounts;
using warpwatch::stream::RejectReason;
using warpwatch::stream::Samples;
using warpwatch::stream::StreamValidator;

constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr float inf = std::numeric_limits<float>::infinity();

// The expected counts, spelled out.
RejectCounts counts_of(std::initializer_list<std::pair<RejectReason, std::uint64_t>> list) {
  RejectCounts c;
  for (auto [reason, n] : list) c.add(reason, n);
  return c;
}

TEST(Validator, KeepsTheSamplesAroundANaN) {
  StreamValidator v(2);
  RejectCounts counts;
  const Accepted a =
      v.accept(Samples{2, {1, 2, 3, 4, 5}, {0, 1, 2, 3, 4, nan, 6, 7, 8, 9}}, counts);
  EXPECT_EQ(a.samples, (Samples{2, {1, 2, 4, 5}, {0, 1, 2, 3, 6, 7, 8, 9}}));
  EXPECT_EQ(counts, counts_of({{RejectReason::non_finite_value, 1}}));
  ASSERT_EQ(a.dropped.size(), 1u);
  EXPECT_EQ(a.dropped[0].reason, RejectReason::non_finite_value);
  EXPECT_EQ(a.dropped[0].count, 1u);
  EXPECT_EQ(a.dropped[0].first, "sample 2 (t_ns 3): component 1 is NaN");
  EXPECT_EQ(v.last_timestamp_ns(), 5);
}

TEST(Validator, DropsRepeatedAndDecreasingTimestamps) {
  StreamValidator v(1);
  RejectCounts counts;
  Accepted a = v.accept(Samples{1, {10, 20, 20, 30}, {1, 2, 3, 4}}, counts);  // repeated
  EXPECT_EQ(a.samples, (Samples{1, {10, 20, 30}, {1, 2, 4}}));
  ASSERT_EQ(a.dropped.size(), 1u);
  EXPECT_EQ(a.dropped[0].first, "sample 2 (t_ns 20): not after the last accepted timestamp 20");
  a = v.accept(Samples{1, {40, 35, 50}, {5, 6, 7}}, counts);  // decreasing
  EXPECT_EQ(a.samples, (Samples{1, {40, 50}, {5, 7}}));
  EXPECT_EQ(counts, counts_of({{RejectReason::non_increasing_timestamp, 2}}));
}

TEST(Validator, RemembersTheLastTimestampAcrossCalls) {
  StreamValidator v(1);
  RejectCounts counts;
  EXPECT_EQ(v.last_timestamp_ns(), std::nullopt);
  (void)v.accept(Samples{1, {10, 20}, {1, 2}}, counts);
  const Accepted a = v.accept(Samples{1, {20, 5, 21}, {3, 4, 5}}, counts);
  EXPECT_EQ(a.samples, (Samples{1, {21}, {5}}));
  EXPECT_EQ(a.dropped[0].count, 2u);
  EXPECT_EQ(a.dropped[0].first, "sample 0 (t_ns 20): not after the last accepted timestamp 20");
  EXPECT_EQ(counts, counts_of({{RejectReason::non_increasing_timestamp, 2}}));
  // A message with nothing valid in it leaves the state as it was.
  EXPECT_EQ(v.accept(Samples{1, {21}, {9}}, counts).samples.size(), 0u);
  EXPECT_EQ(v.last_timestamp_ns(), 21);
}

TEST(Validator, DroppedSamplesDoNotMoveTheLastTimestamp) {
  StreamValidator v(1);
  RejectCounts counts;
  // The NaN at 30 is dropped, so 25 and then 30 are still later than the last accepted.
  const Accepted a = v.accept(Samples{1, {10, 30, 25, 30}, {1, nan, 2, 3}}, counts);
  EXPECT_EQ(a.samples, (Samples{1, {10, 25, 30}, {1, 2, 3}}));
  EXPECT_EQ(counts, counts_of({{RejectReason::non_finite_value, 1}}));
}

TEST(Validator, MixedBadSamplesCountedOncePerSample) {
  StreamValidator v(3);
  RejectCounts counts;
  // One sample per group of three values.
  // clang-format off
  const Samples in{3,
                   {1, 2, 2, 3, 4, 5, 4, 6},
                   {0, 0, 0,  1, 1, 1,  9, 9, 9,  inf, 3, 3,  -inf, 4, nan,
                    5, 5, 5,  nan, 9, 9,  6, 6, 6}};
  // clang-format on
  const Accepted a = v.accept(in, counts);
  EXPECT_EQ(a.samples, (Samples{3, {1, 2, 5, 6}, {0, 0, 0, 1, 1, 1, 5, 5, 5, 6, 6, 6}}));
  // The sample at 4 after 5 is both late and NaN: it counts once, as late (checked first).
  EXPECT_EQ(counts, counts_of({{RejectReason::non_increasing_timestamp, 2},
                               {RejectReason::non_finite_value, 2}}));
  ASSERT_EQ(a.dropped.size(), 2u);
  EXPECT_EQ(a.dropped[0].reason, RejectReason::non_increasing_timestamp);
  EXPECT_EQ(a.dropped[0].count, 2u);
  EXPECT_EQ(a.dropped[1].reason, RejectReason::non_finite_value);
  EXPECT_EQ(a.dropped[1].first, "sample 3 (t_ns 3): component 0 is infinite");
  EXPECT_EQ(counts.total(), 4u);
}

TEST(Validator, WrongDimsRejectsTheWholeMessage) {
  StreamValidator v(2);
  RejectCounts counts;
  (void)v.accept(Samples{2, {1}, {0, 0}}, counts);
  const Accepted a = v.accept(Samples{3, {2, 3}, {1, 2, 3, 4, 5, 6}}, counts);
  EXPECT_EQ(a.samples, (Samples{2, {}, {}}));
  EXPECT_EQ(counts, counts_of({{RejectReason::wrong_dims, 1}}));
  ASSERT_EQ(a.dropped.size(), 1u);
  EXPECT_EQ(a.dropped[0].first, "message has 3 values per sample, the stream has 2");
  EXPECT_EQ(v.last_timestamp_ns(), 1);
  EXPECT_EQ(v.accept(Samples{2, {2}, {1, 1}}, counts).samples.size(), 1u);
}

TEST(Validator, ExtremeTimestampsAndBadArguments) {
  StreamValidator v(1);
  RejectCounts counts;
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(v.accept(Samples{1, {lo, hi, hi}, {1, 2, 3}}, counts).samples.times_ns,
            (std::vector<std::int64_t>{lo, hi}));
  EXPECT_THROW(StreamValidator(0), std::invalid_argument);
  EXPECT_THROW(StreamValidator(65), std::invalid_argument);
  EXPECT_THROW((void)v.accept(Samples{1, {1, 2}, {1}}, counts), std::invalid_argument);
}

TEST(Validator, CountsAddUp) {
  RejectCounts a = counts_of({{RejectReason::wrong_dims, 2}, {RejectReason::unknown_stream, 1}});
  a += counts_of({{RejectReason::wrong_dims, 3}});
  EXPECT_EQ(a[RejectReason::wrong_dims], 5u);
  EXPECT_EQ(a[RejectReason::unknown_stream], 1u);
  EXPECT_EQ(a.total(), 6u);
}

// A random stream with random damage, fed in random chunks, against a direct model:
// everything valid comes out, in order, and the counts match.
TEST(Validator, RandomDamageInRandomChunks) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  const std::size_t dims = 3;
  Samples all{dims, {}, {}};
  Samples want{dims, {}, {}};
  std::uint64_t want_late = 0, want_non_finite = 0;
  std::int64_t t = 0, last = std::numeric_limits<std::int64_t>::min();
  bool any = false;
  for (int i = 0; i < 5000; ++i) {
    const int kind = std::uniform_int_distribution<int>(0, 9)(rng);
    std::int64_t ts = t + 1 + std::uniform_int_distribution<std::int64_t>(0, 5)(rng);
    if (kind == 0) ts = t - std::uniform_int_distribution<std::int64_t>(0, 20)(rng);  // late-ish
    std::vector<float> vals = {float(i), float(i) + 0.5f, -float(i)};
    if (kind == 1) {
      const std::size_t k = std::uniform_int_distribution<std::size_t>(0, dims - 1)(rng);
      vals[k] = (i & 1) ? nan : -inf;
    }
    all.times_ns.push_back(ts);
    all.values.insert(all.values.end(), vals.begin(), vals.end());
    if (any && ts <= last) {
      ++want_late;
    } else if (kind == 1) {
      ++want_non_finite;
    } else {
      want.times_ns.push_back(ts);
      want.values.insert(want.values.end(), vals.begin(), vals.end());
      last = ts;
      any = true;
    }
    t = std::max(t, ts);
  }
  StreamValidator v(dims);
  RejectCounts counts;
  Samples got{dims, {}, {}};
  for (std::size_t at = 0; at < all.size();) {
    const std::size_t n =
        std::min(all.size() - at, std::uniform_int_distribution<std::size_t>(1, 64)(rng));
    Samples chunk{
        dims,
        {all.times_ns.begin() + long(at), all.times_ns.begin() + long(at + n)},
        {all.values.begin() + long(at * dims), all.values.begin() + long((at + n) * dims)}};
    const Accepted a = v.accept(chunk, counts);
    got.times_ns.insert(got.times_ns.end(), a.samples.times_ns.begin(), a.samples.times_ns.end());
    got.values.insert(got.values.end(), a.samples.values.begin(), a.samples.values.end());
    at += n;
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(counts, counts_of({{RejectReason::non_increasing_timestamp, want_late},
                               {RejectReason::non_finite_value, want_non_finite}}));
  EXPECT_GT(want_late, 0u);
  EXPECT_GT(want_non_finite, 0u);
}

// The hub's fast path: accept_all() takes a message whole exactly when accept() would keep
// every sample of it, and leaves the state alone otherwise.
TEST(Validator, AcceptAllAgreesWithAccept) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  const std::size_t dims = 2;
  StreamValidator fast(dims), slow(dims);
  std::int64_t t = 0;
  std::size_t whole = 0, split = 0;
  for (int m = 0; m < 2000; ++m) {
    const std::size_t n = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    Samples chunk{dims, {}, {}};
    for (std::size_t i = 0; i < n; ++i) {
      const int kind = std::uniform_int_distribution<int>(0, 299)(rng);
      t += kind == 0 ? -std::uniform_int_distribution<std::int64_t>(0, 3)(rng) : 1;
      chunk.times_ns.push_back(t);
      chunk.values.push_back(kind == 1 ? nan : float(i));
      chunk.values.push_back(kind == 2 ? -inf : (kind == 3 ? inf : -float(i)));
    }
    RejectCounts fast_counts, slow_counts;
    const Accepted want = slow.accept(chunk, slow_counts);
    const bool all = fast.accept_all(chunk);
    const Accepted got = all ? Accepted{chunk, {}} : fast.accept(chunk, fast_counts);
    ASSERT_EQ(all, want.samples.size() == n) << "message " << m << ", seed " << seed;
    ASSERT_EQ(got.samples, want.samples) << "message " << m << ", seed " << seed;
    ASSERT_EQ(fast_counts, slow_counts) << "message " << m << ", seed " << seed;
    ASSERT_EQ(fast.last_timestamp_ns(), slow.last_timestamp_ns());
    ++(all ? whole : split);
  }
  EXPECT_GT(whole, 100u);
  EXPECT_GT(split, 100u);
  // Other dims, or no samples: never the fast path.
  EXPECT_FALSE(fast.accept_all(Samples{1, {t + 1}, {0.0f}}));
  EXPECT_FALSE(fast.accept_all(Samples{dims, {}, {}}));
  EXPECT_EQ(fast.last_timestamp_ns(), slow.last_timestamp_ns());
}

}  // namespace
