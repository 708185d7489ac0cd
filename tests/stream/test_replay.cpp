// Sending a recorded series as a live stream (stream/replay.hpp): the timestamps of a
// regular series, refused where int64 nanoseconds overflow, and the chunks at a rate so
// high that no wait is due.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "warpwatch/stream/replay.hpp"

namespace {

using namespace warpwatch::stream;

constexpr std::int64_t kMaxNs = std::numeric_limits<std::int64_t>::max();

TEST(Replay, RegularTimesStartAtTheStartAndStepByThePeriod) {
  EXPECT_EQ(regular_times_ns(4, 100, 10), (std::vector<std::int64_t>{100, 110, 120, 130}));
  EXPECT_EQ(regular_times_ns(1, kMaxNs, kMaxNs), std::vector<std::int64_t>{kMaxNs});
  EXPECT_TRUE(regular_times_ns(0, 5, kMaxNs).empty());
  EXPECT_EQ(regular_times_ns(2, kMaxNs - 10, 10).back(), kMaxNs) << "the last that fits";
}

TEST(Replay, RegularTimesBeyondInt64AreRefusedNamingTheValues) {
  EXPECT_THROW(regular_times_ns(2, kMaxNs - 10, 11), std::range_error);
  EXPECT_THROW(regular_times_ns(3, 0, kMaxNs / 2 + 1), std::range_error);
  try {
    regular_times_ns(1'000'000, 0, 1'000'000'000'000'000);  // 1e6 samples every 11.6 days
    ADD_FAILURE() << "no exception";
  } catch (const std::range_error& e) {
    EXPECT_STREQ(e.what(),
                 "1000000 samples every 1000000000000000 ns from 0 ns: the timestamps "
                 "overflow int64 nanoseconds");
  }
}

TEST(Replay, PacedAtAHugeRateSendsEveryChunkWithoutWaiting) {
  Samples s;
  s.dims = 2;
  s.times_ns = regular_times_ns(10, 0, 1);
  for (int i = 0; i < 20; ++i) s.values.push_back(static_cast<float>(i));
  std::vector<Samples> parts;
  const std::size_t sent = replay_paced(s, 4, 1e300, [&](const Samples& part) {
    parts.push_back(part);
    return true;
  });
  ASSERT_EQ(sent, 3u);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[2].times_ns, (std::vector<std::int64_t>{8, 9}));
  EXPECT_EQ(parts[2].values, (std::vector<float>{16, 17, 18, 19}));
}

}  // namespace
