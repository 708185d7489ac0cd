// Sending a recorded series as a live stream (stream/replay.hpp): the chunks at a rate so
// high that no wait is due (the timestamps' own tests are in test_sources.cpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "warpwatch/stream/replay.hpp"

namespace {

using namespace warpwatch::stream;

TEST(Replay, PacedAtAHugeRateSendsEveryChunkWithoutWaiting) {
  Samples s;
  s.dims = 2;
  s.times_ns = evenly_spaced_times(10, 0, 1);
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
